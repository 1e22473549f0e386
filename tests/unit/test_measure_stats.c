/* SPDX-License-Identifier: BSD-2-Clause */
/* SPDX-FileCopyrightText: 2026 the elfthp-align authors */
/*
 * Unit tests of measure_stats.c on fixed inputs: medians (odd and even
 * counts), the pair-by-pair ratio and its range, "within noise" exactly
 * when the pairs disagree in direction, pairs without a ratio (a small
 * value of 0), and the verdict on a round in each state.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "elfthp_core.h"

static void
test_medians_odd(void **state)
{
	const double small[] = { 10, 12, 11 }, huge[] = { 9, 9.6, 9.9 };
	struct metric_summary m;

	(void)state;
	assert_int_equal(metric_summarize(small, huge, 3, &m), 0);
	assert_int_equal(m.n, 3);
	assert_true(m.small_median == 11 && m.small_min == 10 &&
	    m.small_max == 12);
	assert_true(m.huge_median == 9.6 && m.huge_min == 9 && m.huge_max == 9.9);
	/*
	 * Ratios 0.9, 0.8, 0.9: median 0.9, range 0.8 .. 0.9, all faster,
	 * yet three pairs give no interval: within noise.
	 */
	assert_true(m.ratio_median > 0.899 && m.ratio_median < 0.901);
	assert_true(m.ratio_min > 0.799 && m.ratio_min < 0.801);
	assert_true(m.ratio_max > 0.899 && m.ratio_max < 0.901);
	assert_false(m.ci);
	assert_true(m.noise);
}

static void
test_medians_even_and_noise(void **state)
{
	const double small[] = { 10, 10, 10, 10 }, huge[] = { 9, 11, 10, 9.5 };
	struct metric_summary m;

	(void)state;
	assert_int_equal(metric_summarize(small, huge, 4, &m), 0);
	/* Sorted huge 9, 9.5, 10, 11: the mean of the middle two. */
	assert_true(m.huge_median == 9.75);
	assert_true(m.ratio_min == 0.9 && m.ratio_max == 1.1);
	assert_true(m.noise);
}

static void
test_equal_is_noise(void **state)
{
	const double small[] = { 5, 5 }, huge[] = { 5, 5 };
	struct metric_summary m;

	(void)state;
	assert_int_equal(metric_summarize(small, huge, 2, &m), 0);
	assert_true(m.ratio_median == 1 && m.noise);
}

static void
test_slower_everywhere(void **state)
{
	const double small[] = { 1, 2 }, huge[] = { 1.5, 2.2 };
	struct metric_summary m;

	(void)state;
	assert_int_equal(metric_summarize(small, huge, 2, &m), 0);
	assert_true(m.ratio_min > 1 && m.noise && !m.ci);
}

static void
test_zero_small_gives_no_ratio(void **state)
{
	const double small[] = { 0, 4, 0 }, huge[] = { 1, 2, 0 };
	struct metric_summary m;

	(void)state;
	assert_int_equal(metric_summarize(small, huge, 3, &m), 0);
	assert_int_equal(m.n, 1);
	assert_true(m.ratio_median == 0.5);
	/* 0 in every small round: the medians stay, no ratio. */
	assert_int_equal(metric_summarize(huge + 2, huge + 2, 1, &m), 0);
	assert_int_equal(m.n, 0);
	assert_int_equal(m.pairs, 1);
	assert_true(m.noise);
	assert_int_equal(metric_summarize(small, huge, 0, &m), -1);
}

/* rf: a round's per-file figures from its processes' looks. */
static void
rf_add(struct round_files *f, uint64_t a, uint64_t b, bool ma, bool mb)
{
	const uint64_t kb[] = { a, b };
	const bool maps[] = { ma, mb };

	round_files_add(f, kb, maps, 2);
}

static void
test_round_verdicts(void **state)
{
	const uint64_t expected[] = { 4096, 2048 }, none[] = { 0, 0 };
	struct round_files full = { 0 }, less = { 0 }, zero = { 0 },
	    some = { 0 }, three = { 0 }, unmapped = { 0 };
	const char *why;
	size_t bad;

	(void)state;
	rf_add(&full, 4096, 2048, true, true);
	rf_add(&less, 4096, 0, true, true);
	rf_add(&zero, 0, 0, true, true);
	rf_add(&some, 0, 2048, true, true);
	assert_true(round_verified(true, &full, expected, 2, &bad, &why));
	assert_null(why);
	assert_false(round_verified(true, &less, expected, 2, &bad, &why));
	assert_int_equal(bad, 1);
	assert_non_null(why);
	assert_true(round_verified(false, &zero, expected, 2, &bad, &why));
	assert_false(round_verified(false, &some, expected, 2, &bad, &why));
	assert_int_equal(bad, 1);
	/* A FILE with nothing expected can never verify a huge round. */
	assert_false(round_verified(true, &full, none, 2, &bad, &why));
	/*
	 * Three processes: the first huge, the next two small (the file
	 * evicted after the first).  The most is as expected, the least is
	 * 0: not verified, and the sum and the least say so.
	 */
	rf_add(&three, 4096, 2048, true, true);
	rf_add(&three, 0, 0, true, true);
	rf_add(&three, 0, 0, true, true);
	assert_int_equal(three.max_kb[0], 4096);
	assert_int_equal(three.min_kb[0], 0);
	assert_int_equal(three.sum_kb[0], 4096);
	assert_int_equal(three.nmap[0], 3);
	assert_false(round_verified(true, &three, expected, 2, &bad, &why));
	assert_int_equal(bad, 0);
	assert_string_equal(why, "a process of the round PMD-mapped less of "
	    "it than the warm-up round");
	/* A process that maps neither file does not count. */
	rf_add(&full, 0, 0, false, false);
	assert_true(round_verified(true, &full, expected, 2, &bad, &why));
	assert_int_equal(full.nmap[0], 1);
	/* A file no process mapped: a huge round is not verified. */
	rf_add(&unmapped, 4096, 0, true, false);
	assert_false(round_verified(true, &unmapped, expected, 2, &bad,
	    &why));
	assert_int_equal(bad, 1);
	assert_string_equal(why, "mapped by no process of the round");
}

/*
 * The before-after rounds: [0] the file the round must map (the original
 * before, the rewritten file after), [1] the other.
 */
static void
test_ba_verdicts(void **state)
{
	const uint64_t expected[] = { 4096, 0 };
	struct round_files orig_only = { 0 }, orig_pmd = { 0 }, both = { 0 },
	    neither = { 0 }, after_full = { 0 }, after_less = { 0 },
	    after_and_orig = { 0 };
	const char *why;

	(void)state;
	rf_add(&orig_only, 0, 0, true, false);
	rf_add(&orig_only, 0, 0, false, false);	/* sh: maps neither */
	assert_true(round_ba_verified(false, &orig_only, expected, &why));
	assert_null(why);
	/* The original however the kernel maps it: PMDs are no failure. */
	rf_add(&orig_pmd, 2048, 0, true, false);
	assert_true(round_ba_verified(false, &orig_pmd, expected, &why));
	/* A process that reached the rewritten file by another path. */
	rf_add(&both, 0, 0, true, false);
	rf_add(&both, 0, 4096, false, true);
	assert_false(round_ba_verified(false, &both, expected, &why));
	assert_string_equal(why, "a process of a before round mapped the "
	    "rewritten file, not the original (through another path than the "
	    "one the original is bind-mounted over?)");
	rf_add(&neither, 0, 0, false, false);
	assert_false(round_ba_verified(false, &neither, expected, &why));
	assert_string_equal(why, "no process of the round mapped the original");
	rf_add(&after_full, 4096, 0, true, false);
	assert_true(round_ba_verified(true, &after_full, expected, &why));
	rf_add(&after_less, 4096, 0, true, false);
	rf_add(&after_less, 2048, 0, true, false);
	assert_false(round_ba_verified(true, &after_less, expected, &why));
	assert_string_equal(why, "a process of the round PMD-mapped less of "
	    "it than the warm-up round");
	assert_false(round_ba_verified(true, &neither, expected, &why));
	assert_string_equal(why, "mapped by no process of the round");
	rf_add(&after_and_orig, 4096, 0, true, false);
	rf_add(&after_and_orig, 0, 0, false, true);
	assert_false(round_ba_verified(true, &after_and_orig, expected, &why));
	assert_string_equal(why, "a process of an after round mapped the "
	    "original");
}

/*
 * The interval's rank against the binomial distribution computed
 * independently (python3: the largest k with 2 * sum(comb(n, i) for i
 * in range(k)) / 2**n <= 0.05): none below 6 pairs.
 */
static void
test_ci_rank(void **state)
{
	static const size_t want[31] = { 0, 0, 0, 0, 0, 0, 1, 1, 1, 2, 2, 2,
		3, 3, 3, 4, 4, 5, 5, 5, 6, 6, 6, 7, 7, 8, 8, 8, 9, 9, 10 };
	size_t n;

	(void)state;
	for (n = 0; n <= 30; n++)
		assert_int_equal(median_ci_rank(n), want[n]);
	assert_int_equal(median_ci_rank(50), 18);
	assert_int_equal(median_ci_rank(100), 40);
	assert_int_equal(median_ci_rank(1000), 469);
}

/* The interval from the ranks; a difference only when it excludes 1. */
static void
test_ci_values(void **state)
{
	const double small[] = { 10, 10, 10, 10, 10, 10, 10, 10, 10, 10 };
	const double faster[] = { 9, 8, 9.5, 8.5, 9.2, 8.8, 9.1, 8.9, 9.3, 9.4 };
	const double mixed[] = { 9, 8, 9.5, 10.5, 9.2, 10.8, 9.1, 8.9, 9.3,
		11 };
	struct metric_summary m;

	(void)state;
	/* Sorted ratios .80 .85 .88 .89 .90 .91 .92 .93 .94 .95: n 10, k 2. */
	assert_int_equal(metric_summarize(small, faster, 10, &m), 0);
	assert_true(m.ci);
	assert_true(m.ci_low > 0.849 && m.ci_low < 0.851);
	assert_true(m.ci_high > 0.939 && m.ci_high < 0.941);
	assert_true(m.ratio_median > 0.904 && m.ratio_median < 0.906);
	assert_false(m.noise);
	/* .80 .89 .90 .91 .92 .93 .95 1.05 1.08 1.10: .89 .. 1.08 holds 1. */
	assert_int_equal(metric_summarize(small, mixed, 10, &m), 0);
	assert_true(m.ci && m.ci_low < 1 && m.ci_high > 1);
	assert_true(m.noise);
	/* Five pairs all faster: no interval, so no difference. */
	assert_int_equal(metric_summarize(small, faster, 5, &m), 0);
	assert_false(m.ci);
	assert_true(m.noise);
	/* Six: the interval is the range, and it excludes 1. */
	assert_int_equal(metric_summarize(small, faster, 6, &m), 0);
	assert_true(m.ci && m.ci_low == m.ratio_min && m.ci_high == m.ratio_max);
	assert_false(m.noise);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_medians_odd),
		cmocka_unit_test(test_medians_even_and_noise),
		cmocka_unit_test(test_equal_is_noise),
		cmocka_unit_test(test_slower_everywhere),
		cmocka_unit_test(test_zero_small_gives_no_ratio),
		cmocka_unit_test(test_round_verdicts),
		cmocka_unit_test(test_ba_verdicts),
		cmocka_unit_test(test_ci_rank),
		cmocka_unit_test(test_ci_values),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
