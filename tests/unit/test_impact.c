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
	assert_true(report_geometries(EM_X86_64, 0, true, g, 8) >= 4);
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
	report_geometries(EM_AARCH64, 0, true, g, 8);
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
	assert_int_equal(file_kind(&f->L), KIND_PIE);
	assert_string_equal(file_kind_name(file_kind(&f->L)), "pie");
	assert_true(kernel_patch_aligns(&f->L, &f->segs[r], M(2)));
	/* Congruent but not PMD-aligned: the tool aligns it, the patch does not. */
	assert_false(kernel_patch_aligns(&f->L, &f->segs[text], M(2)));
	f->L.has_interp = false;
	f->L.flags1_pie = false;
	assert_int_equal(file_kind(&f->L), KIND_SHARED_LIBRARY);
	assert_string_equal(file_kind_name(file_kind(&f->L)), "shared-library");
	assert_false(kernel_patch_aligns(&f->L, &f->segs[r], M(2)));
}

/*
 * The host's own geometry, measured: an ET_EXEC already congruent (cc1's
 * case) whose page cache holds small folios.  The layout says 4 windows;
 * NOW must be what the cache holds (0), AFTER what the page-cache step
 * makes of it (4), and a window a process pins stays small after too.
 */
static void
test_impact_measured_from_cache(void **state)
{
	struct fixture *f = *state = new_file(ET_EXEC, M(9));
	const struct geometry *g = own_geometry(EM_X86_64, 0);
	uint8_t states[5] = { WINDOW_UNCACHED, WINDOW_SMALL, WINDOW_SMALL,
		WINDOW_SMALL, WINDOW_NONE };
	struct cache_view cv = { .states = states, .nranges = 4,
		.fs_keeps_huge = true };
	struct geometry_impact imp;
	struct seg_desc after[16];

	/* Text [0x400000, +8 MiB) at offset 0: file ranges 0..3. */
	load(f, PF_R | PF_X, 0, 0x400000, M(8));
	plan_ok(f, &x86);
	assert_false(f->P.changed);
	impact_compute(&f->L, &f->P, g, after, &imp);
	assert_int_equal(imp.huge_bytes_now, 4 * M(2));	/* the model */
	assert_false(imp.measured);
	impact_measured(&f->L, &f->P, &cv, &imp, after);
	assert_true(imp.measured);
	assert_int_equal(imp.huge_bytes_now, 0);
	assert_int_equal(imp.translations_now, M(8) / K(4));
	assert_int_equal(imp.huge_bytes_after, 4 * M(2));
	assert_int_equal(imp.translations_after, 4);
	assert_int_equal(imp.rss_increase_max, 4 * (M(2) - K(4)));
	/* Two huge now, one pinned by a process: it stays small. */
	states[0] = WINDOW_HUGE;
	states[1] = WINDOW_HUGE;
	states[2] = WINDOW_BUSY;
	impact_compute(&f->L, &f->P, g, after, &imp);
	impact_measured(&f->L, &f->P, &cv, &imp, after);
	assert_int_equal(imp.huge_bytes_now, 2 * M(2));
	assert_int_equal(imp.huge_bytes_after, 3 * M(2));
	assert_int_equal(imp.translations_now, 2 + 2 * M(2) / K(4));
	assert_int_equal(imp.rss_increase_max, M(2) - K(4));
	/* Where MADV_COLLAPSE works, mapped small folios are collapsed. */
	states[2] = WINDOW_COLLAPSE;
	impact_compute(&f->L, &f->P, g, after, &imp);
	impact_measured(&f->L, &f->P, &cv, &imp, after);
	assert_int_equal(imp.huge_bytes_now, 2 * M(2));
	assert_int_equal(imp.huge_bytes_after, 4 * M(2));
}

/*
 * A file the rewrite changes: NOW from the cache of the input (its
 * windows cannot be huge: incongruent), AFTER every window, written with
 * large writes, unless the file system keeps no huge folios (then 0).
 */
static void
test_impact_measured_rewrite(void **state)
{
	struct fixture *f = *state = new_file(ET_DYN, 0x5f0 + M(8) + K(8));
	const struct geometry *g = own_geometry(EM_X86_64, 0);
	uint8_t states[8] = { 0 };
	struct cache_view cv = { .states = states, .nranges = 4,
		.fs_keeps_huge = true };
	struct geometry_impact imp;
	struct seg_desc after[16];

	load(f, PF_R, 0, 0, 0x5f0);
	load(f, PF_R | PF_X, 0x5f0, 0x15f0, M(8));
	plan_ok(f, &x86);
	assert_true(f->P.changed);
	impact_compute(&f->L, &f->P, g, after, &imp);
	impact_measured(&f->L, &f->P, &cv, &imp, after);
	assert_int_equal(imp.huge_bytes_now, 0);
	assert_int_equal(imp.huge_bytes_after, 3 * M(2));
	cv.fs_keeps_huge = false;
	impact_compute(&f->L, &f->P, g, after, &imp);
	impact_measured(&f->L, &f->P, &cv, &imp, after);
	assert_int_equal(imp.huge_bytes_after, 0);
	assert_int_equal(imp.translations_after,
	    (M(8) + K(4)) / K(4));
}

/* A report shows the file's own machine's geometries; -v adds the others. */
static void
test_report_geometries_by_machine(void **state)
{
	const struct geometry *g[8];

	(void)state;
	assert_int_equal(report_geometries(EM_X86_64, 0, false, g, 8), 1);
	assert_string_equal(g[0]->name, "x86_64-4k");
	assert_int_equal(report_geometries(EM_AARCH64, 0, false, g, 8), 3);
	assert_string_equal(g[0]->name, "arm64-4k");
	assert_int_equal(report_geometries(EM_PPC, 0, false, g, 8), 0);
	assert_int_equal(report_geometries(EM_PPC, 0, true, g, 8), 4);
	/* --page-size 16k on x86_64: the 16 KiB geometries too. */
	assert_int_equal(report_geometries(EM_X86_64, K(16), false, g, 8), 2);
	assert_string_equal(g[1]->name, "arm64-16k");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_impact_counts_translations),
		T(test_impact_arm64_contiguous_blocks),
		T(test_kernel_patch_rule),
		T(test_impact_measured_from_cache),
		T(test_impact_measured_rewrite),
		T(test_report_geometries_by_machine),
	};

	return cmocka_run_group_tests_name("impact", tests, NULL, NULL);
}
