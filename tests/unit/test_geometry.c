/* SPDX-License-Identifier: BSD-2-Clause */
/* SPDX-FileCopyrightText: 2026 the elfthp-align authors */
/*
 * Unit tests of geometry.c: the plan parameters each machine, page size
 * and report geometry call for (plan_params_make).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <elf.h>
#include <stdlib.h>
#include <string.h>

#include "fixture.h"

static void
test_geometry_targets(void **state)
{
	struct plan_params p;
	const char *why;

	p = params_of(&(struct plan_request){ .machine = EM_X86_64 });
	assert_memory_equal(&p, &x86, sizeof(p));
	p = params_of(&(struct plan_request){ .machine = EM_AARCH64 });
	assert_memory_equal(&p, &arm64, sizeof(p));
	p = params_of(&(struct plan_request){ .machine = EM_AARCH64,
	    .page_size = K(16) });
	assert_int_equal(p.huge_align, M(32));
	assert_int_equal(p.fallback_align, M(2));
	assert_int_equal(p.min_p_align, K(16));
	assert_int_equal(p.page, K(16));
	/* x86_64 with 16 KiB pages (Android's emulation): still 2 MiB PMDs. */
	p = params_of(&(struct plan_request){ .machine = EM_X86_64,
	    .page_size = K(16) });
	assert_int_equal(p.huge_align, M(2));
	assert_int_equal(p.min_p_align, K(16));
	assert_true(machine_runs_page(EM_X86_64, K(16)));
	assert_false(machine_runs_page(EM_X86_64, K(64)));
	assert_false(machine_runs_page(EM_RISCV, K(16)));
	p = params_of(&(struct plan_request){ .machine = EM_AARCH64,
	    .page_size = K(64) });
	assert_int_equal(p.huge_align, M(2));
	p = params_of(&(struct plan_request){ .machine = EM_RISCV });
	assert_int_equal(p.huge_align, M(2));
	assert_int_equal(plan_params_make(&(struct plan_request){
	    .machine = EM_X86_64, .page_size = K(64) }, &p, &why), -1);
	assert_string_equal(why, "page size not supported by this machine");
	p = params_of(&(struct plan_request){ .machine = EM_X86_64,
	    .align = M(4) });
	assert_int_equal(p.huge_align, M(4));
}

/* A report geometry's plan: its target and page, the file's machine floor. */
static void
test_geometry_params(void **state)
{
	const struct geometry *g[8];
	struct plan_params p;
	size_t n = report_geometries(EM_AARCH64, 0, true, g, 8), i;

	assert_int_equal(n, 4);
	for (i = 0; i < n; i++) {
		p = params_of(&(struct plan_request){ .machine = EM_AARCH64,
		    .geometry = g[i] });
		assert_int_equal(p.huge_align, geometry_target(g[i]));
		assert_int_equal(p.fallback_align, geometry_fallback(g[i]));
		assert_int_equal(p.page, g[i]->page);
		assert_true(p.max_page >= K(64) && p.max_page >= g[i]->page);
		assert_int_equal(p.min_p_align, 0);
	}
	assert_int_equal(report_geometries(EM_RISCV, 0, true, g, 8), 5);
	assert_string_equal(g[4]->name, "riscv64-4k");
	assert_ptr_equal(own_geometry(EM_RISCV, 0), g[4]);
	assert_string_equal(own_geometry(EM_AARCH64, K(16))->name, "arm64-16k");
	assert_string_equal(own_geometry(EM_PPC64, 0)->name, "x86_64-4k");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_geometry_targets),
		cmocka_unit_test(test_geometry_params),
	};

	return cmocka_run_group_tests_name("geometry", tests, NULL, NULL);
}
