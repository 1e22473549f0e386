/* SPDX-License-Identifier: BSD-2-Clause */
/* SPDX-FileCopyrightText: 2026 the elfthp-align authors */
/*
 * Unit tests of impact.c: the --report model (translations, contiguous-PTE
 * blocks) and the proposed kernel loader rule.
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

/*
 * The --report model on the lld layout: text [0x15f0, +8 MiB) has 3 windows.
 * x86_64-4k after: 3 huge + the rest in 4 KiB pages.
 */
static void
test_impact_counts_translations(void **state)
{
	struct fixture *f = *state = new_file(ET_DYN, 0x5f0 + M(8) + K(8));
	const struct geometry *g[8];
	struct geometry_impact imp;
	struct seg_desc after[16];
	uint64_t pages, head;

	load(f, PF_R, 0, 0, 0x5f0);
	load(f, PF_R | PF_X, 0x5f0, 0x15f0, M(8));
	plan_ok(f, &x86);
	assert_true(report_geometries(EM_X86_64, g, 8) >= 4);
	assert_string_equal(g[0]->name, "x86_64-4k");
	impact_compute(&f->L, &f->P, g[0], after, &imp);
	pages = (M(8) + K(4)) / K(4);	/* [0x1000, 0x802000) */
	assert_int_equal(imp.translations_now, pages);
	head = (M(2) - K(4)) / K(4);	/* [0x1000, 0x200000) */
	assert_int_equal(imp.translations_after,
	    3 + head + (pages - head - 3 * 512));
	assert_int_equal(imp.huge_bytes_now, 0);
	assert_int_equal(imp.huge_bytes_after, 3 * M(2));
	assert_int_equal(imp.rss_increase_max, 3 * (M(2) - K(4)));
	assert_int_equal(imp.aslr_bits_lost, 9);
	assert_int_equal(imp.file_growth, K(4));
}

static void
test_impact_arm64_contiguous_blocks(void **state)
{
	struct fixture *f = *state = new_file(ET_EXEC, M(9));
	const struct geometry *g[8];
	struct geometry_impact imp;
	struct seg_desc after[16];

	/* ET_EXEC at 0x400000, already congruent: now == after. */
	load(f, PF_R | PF_X, 0, 0x400000, M(8) + K(64));
	plan_ok(f, &arm64);
	report_geometries(EM_AARCH64, g, 8);
	assert_string_equal(g[1]->name, "arm64-4k");
	impact_compute(&f->L, &f->P, g[1], after, &imp);
	/* 4 windows, one 64 KiB block, no stray pages. */
	assert_int_equal(imp.translations_now, 4 + 1);
	assert_int_equal(imp.translations_after, 4 + 1);
	assert_int_equal(imp.aslr_bits_lost, 0);
	assert_string_equal(g[3]->name, "arm64-64k");
	impact_compute(&f->L, &f->P, g[3], after, &imp);
	/* 512 MiB PMDs are no target: 4 blocks of 2 MiB and one 64 KiB page. */
	assert_int_equal(imp.translations_now, 4 + 1);
	assert_int_equal(imp.huge_bytes_now, 0);
	assert_int_equal(imp.rss_increase_max, 0);
}

static void
test_kernel_patch_rule(void **state)
{
	struct fixture *f = *state = new_file(ET_DYN, M(12));
	size_t r, text;

	seg(f, PT_INTERP, PF_R, 0x2a8, 0x2a8, 0x1c, 0x1c, 1);
	f->L.has_interp = true;	/* what the reader sets for PT_INTERP */
	f->L.flags1_pie = true;	/* and for DF_1_PIE in DT_FLAGS_1 */
	r = load(f, PF_R, 0, 0, M(4));
	text = load(f, PF_R | PF_X, M(4), M(4) + K(4), M(6));
	assert_string_equal(file_kind(&f->L), "pie");
	assert_true(kernel_patch_aligns(&f->L, &f->segs[r], M(2)));
	/* Congruent but not PMD-aligned: the tool aligns it, the patch does not. */
	assert_false(kernel_patch_aligns(&f->L, &f->segs[text], M(2)));
	f->L.has_interp = false;
	f->L.flags1_pie = false;
	assert_string_equal(file_kind(&f->L), "shared-library");
	assert_false(kernel_patch_aligns(&f->L, &f->segs[r], M(2)));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_impact_counts_translations),
		T(test_impact_arm64_contiguous_blocks),
		T(test_kernel_patch_rule),
	};

	return cmocka_run_group_tests_name("impact", tests, NULL, NULL);
}
