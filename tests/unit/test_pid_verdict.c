/* SPDX-License-Identifier: BSD-2-Clause */
/* SPDX-FileCopyrightText: 2026 the elfthp-align authors */
/*
 * Unit tests of pid_verdict.c: which windows of a mapped file --pid
 * counts (the read-only PT_LOADs', as --report does: never RELRO), which
 * of them a process has at PMD-aligned addresses, and the status and the
 * fix for each set of measured facts.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <elf.h>

#include "fixture.h"

/*
 * A library laid out as GNU ld does, rewritten: R at 0, R E with 6 MiB of
 * text from 2 MiB, R again, then RW whose first 3 MiB are RELRO.  ld.so
 * maps the RW PT_LOAD r--p over its RELRO after relocating: a read-only
 * mapping with a full PMD range inside, which must not count.
 */
static struct fixture *
relro_library(void)
{
	struct fixture *f = new_file(ET_DYN, M(20));

	load(f, PF_R, 0, 0, K(64));
	load(f, PF_R | PF_X, M(2), M(2), M(6));
	load(f, PF_R, M(8), M(8), K(512));
	load(f, PF_R | PF_W, M(9), M(9) + K(4), M(4));
	return f;
}

static void
test_windows_skip_relro(void **state)
{
	struct fixture *f = *state = relro_library();

	assert_int_equal(pid_file_windows(&f->L, M(2)), 3);
}

/* Mappings as ld.so makes them at a base of 0x7f0000000000 (aligned). */
static void
test_place_aligned_base(void **state)
{
	struct fixture *f = *state = relro_library();
	const uint64_t b = UINT64_C(0x7f0000000000);
	const struct pid_map maps[] = {
		{ b, b + K(64), 0, false },
		{ b + M(2), b + M(8), M(2), false },
		{ b + M(8), b + M(8) + K(512), M(8), false },
		{ b + M(9), b + M(12), M(9), false },	/* RELRO, r--p */
		{ b + M(12), b + M(13) + K(8), M(12), true },
	};
	uint64_t at[8];

	assert_int_equal(pid_place_windows(&f->L, maps, 5, M(2), at, 8), 3);
	assert_int_equal(at[0], b + M(2));
	assert_int_equal(at[2], b + M(6));
}

/* The same library at a base that is not PMD-aligned: none placed. */
static void
test_place_unaligned_base(void **state)
{
	struct fixture *f = *state = relro_library();
	const uint64_t b = UINT64_C(0x7f0000010000);
	const struct pid_map maps[] = {
		{ b, b + K(64), 0, false },
		{ b + M(2), b + M(8), M(2), false },
		{ b + M(9), b + M(12), M(9), false },
	};
	uint64_t at[8];

	assert_int_equal(pid_place_windows(&f->L, maps, 3, M(2), at, 8), 0);
}

/* lld's text: p_vaddr = p_offset + 4 KiB, so never at an aligned address
 * however the base falls. */
static void
test_place_incongruent(void **state)
{
	struct fixture *f = *state = new_file(ET_DYN, M(8));
	const uint64_t b = UINT64_C(0x7f0000000000);
	const struct pid_map maps[] = {
		{ b + K(8), b + K(8) + M(6), K(4), false },
	};
	uint64_t at[4];

	load(f, PF_R | PF_X, K(4), K(8), M(6));
	assert_int_equal(pid_file_windows(&f->L, M(2)), 2);
	assert_int_equal(pid_place_windows(&f->L, maps, 1, M(2), at, 4), 0);
}

static struct pid_verdict
decide(struct pid_facts f)
{
	struct pid_verdict v;

	f.pmd = M(2);
	f.windows_known = true;
	pid_decide(&f, &v);
	return v;
}

static void
test_decide_huge_and_partly(void **state)
{
	struct pid_verdict v;

	(void)state;
	v = decide((struct pid_facts){ .windows = 3, .placed = 3,
	    .resident = 3, .huge = 3, .fs_keeps_huge = TRI_YES });
	assert_int_equal(v.status, PID_HUGE);
	assert_int_equal(v.fix, FIX_NONE);
	assert_int_equal(v.huge_bytes, M(6));
	assert_int_equal(v.missed_bytes, 0);
	v = decide((struct pid_facts){ .windows = 3, .placed = 3,
	    .resident = 3, .huge = 2 });
	assert_int_equal(v.status, PID_PARTLY_HUGE);
	assert_int_equal(v.rest, PID_SMALL_FOLIOS);
	assert_int_equal(v.fix, FIX_STOP_WARM_START);
	assert_int_equal(v.missed_bytes, M(2));
	v = decide((struct pid_facts){ .windows = 3, .placed = 3,
	    .resident = 2, .huge = 2 });
	assert_int_equal(v.rest, PID_NOT_TOUCHED);
	assert_int_equal(v.fix, FIX_WARM);
	/* A replaced file whose old inode is all huge is huge now. */
	v = decide((struct pid_facts){ .windows = 2, .placed = 2, .huge = 2,
	    .replaced = true });
	assert_int_equal(v.status, PID_HUGE);
}

/*
 * 7.2: small folios a process maps are collapsed in place where
 * MADV_COLLAPSE works (no stop and start); windows it has not run since
 * khugepaged made them huge are not "not run yet ... run --warm".
 */
static void
test_decide_in_place(void **state)
{
	struct pid_facts f = { .windows = 3, .placed = 3, .resident = 3,
		.fs_keeps_huge = TRI_YES, .collapse = TRI_YES };

	(void)state;
	assert_int_equal(decide(f).status, PID_SMALL_FOLIOS);
	assert_int_equal(decide(f).fix, FIX_WARM_IN_PLACE);
	f.collapse = TRI_NO;
	assert_int_equal(decide(f).fix, FIX_STOP_WARM_START);
	f.collapse = TRI_UNKNOWN;
	assert_int_equal(decide(f).fix, FIX_STOP_WARM_START);
	f.resident = 0;
	f.cache_huge = 3;
	assert_int_equal(decide(f).status, PID_CACHE_HUGE);
	assert_int_equal(decide(f).fix, FIX_NONE);
	/* One of the untouched windows is not huge in the cache: --warm. */
	f.cache_huge = 2;
	assert_int_equal(decide(f).status, PID_NOT_TOUCHED);
	assert_int_equal(decide(f).fix, FIX_WARM);
	/* Huge ones it maps, the rest huge in the cache. */
	f = (struct pid_facts){ .windows = 3, .placed = 3, .resident = 1,
		.huge = 1, .cache_huge = 3, .fs_keeps_huge = TRI_YES };
	assert_int_equal(decide(f).status, PID_PARTLY_HUGE);
	assert_int_equal(decide(f).rest, PID_CACHE_HUGE);
	assert_int_equal(decide(f).fix, FIX_NONE);
	assert_string_equal(pid_status_name(PID_CACHE_HUGE), "huge-in-cache");
}

static void
test_decide_not_huge(void **state)
{
	struct pid_facts f = { .windows = 3, .placed = 3, .resident = 3,
		.fs_keeps_huge = TRI_YES };

	(void)state;
	assert_int_equal(decide(f).status, PID_SMALL_FOLIOS);
	f.resident = 0;
	assert_int_equal(decide(f).status, PID_NOT_TOUCHED);
	f.placed = 0;
	assert_int_equal(decide(f).status, PID_LAYOUT);
	assert_int_equal(decide(f).fix, FIX_REWRITE_RESTART);
	assert_int_equal(decide(f).missed_bytes, M(6));
	f.fs_keeps_huge = TRI_NO;
	assert_int_equal(decide(f).status, PID_NO_HUGE_FOLIOS);
	assert_int_equal(decide(f).fix, FIX_OTHER_FS);
	f.thp_disabled = true;
	assert_int_equal(decide(f).status, PID_THP_DISABLED);
	assert_int_equal(decide(f).fix, FIX_ENABLE_THP);
	f.replaced = true;
	assert_int_equal(decide(f).status, PID_REPLACED);
	assert_int_equal(decide(f).fix, FIX_RESTART);
	f.windows = 0;
	assert_int_equal(decide(f).status, PID_NOTHING_TO_GAIN);
	assert_int_equal(decide(f).fix, FIX_NONE);
	assert_int_equal(decide(f).missed_bytes, 0);
}

/* Headers that could not be read: only "replaced" is known. */
static void
test_decide_unknown_windows(void **state)
{
	struct pid_facts f = { .replaced = true, .huge = 1, .pmd = M(2) };
	struct pid_verdict v;

	(void)state;
	pid_decide(&f, &v);
	assert_int_equal(v.status, PID_REPLACED);
	assert_int_equal(v.fix, FIX_RESTART);
	assert_int_equal(v.huge_bytes, 0);
}

static void
test_names(void **state)
{
	(void)state;
	assert_string_equal(pid_status_name(PID_THP_DISABLED), "cannot-be-huge");
	assert_string_equal(pid_status_name(PID_NO_HUGE_FOLIOS),
	    "cannot-be-huge");
	assert_string_equal(pid_reason_name(PID_THP_DISABLED), "thp-disabled");
	assert_string_equal(pid_reason_name(PID_NO_HUGE_FOLIOS),
	    "no-huge-folios");
	assert_string_equal(pid_status_name(PID_NOTHING_TO_GAIN),
	    "nothing-to-gain");
	assert_string_equal(pid_reason_name(PID_LAYOUT), "layout");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		TF(test_windows_skip_relro),
		TF(test_place_aligned_base),
		TF(test_place_unaligned_base),
		TF(test_place_incongruent),
		cmocka_unit_test(test_decide_huge_and_partly),
		cmocka_unit_test(test_decide_not_huge),
		cmocka_unit_test(test_decide_in_place),
		cmocka_unit_test(test_decide_unknown_windows),
		cmocka_unit_test(test_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
