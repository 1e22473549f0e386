/*
 * Unit tests of page-size compatibility (compat.c, and the planner with
 * --page-size): what loads on larger pages, and what only a relink fixes.
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

/* --page-size 64k: two permissions on one 64 KiB page only a relink fixes. */
static void
test_page_size_refuses_shared_page(void **state)
{
	struct fixture *f = *state = new_file(ET_DYN, K(64));
	struct plan_params p = arm64;
	struct compat_finding cf[8];
	size_t n, i;
	bool shared = false;

	f->L.machine = EM_AARCH64;
	load(f, PF_R | PF_X, 0, 0, 0x87c);
	load(f, PF_R | PF_W, 0xdc8, 0x1dc8, 0x270);
	p.min_p_align = K(64);
	assert_int_equal(plan_build(&f->L, &p, &f->P, &f->e), -1);
	assert_int_equal(f->e.code, PLAN_PAGE_SHARED);
	n = compat_findings(&f->L, K(64), cf, 8);
	for (i = 0; i < n; i++)
		shared |= cf[i].kind == COMPAT_SHARED;
	assert_true(shared);
}

/* --page-size 64k on a fixable file: every PT_LOAD congruent, p_align raised. */
static void
test_page_size_fixes_alignment(void **state)
{
	struct fixture *f = *state = new_file(ET_DYN, K(256));
	struct plan_params p = arm64;
	size_t text, rw;

	f->L.machine = EM_AARCH64;
	text = load(f, PF_R | PF_X, 0, 0, K(60));
	rw = load(f, PF_R | PF_W, K(60) + 0x100, K(128) + 0x100, K(4));
	p.min_p_align = K(64);
	plan_ok(f, &p);
	assert_int_equal(f->P.segs[text].new_align, K(64));
	assert_int_equal(f->P.segs[rw].new_align, K(64));
	assert_true(congruent(f->P.segs[rw].new_offset, K(128) + 0x100, K(64)));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_page_size_refuses_shared_page),
		T(test_page_size_fixes_alignment),
	};

	return cmocka_run_group_tests_name("compat", tests, NULL, NULL);
}
