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
	/* Ratios 0.9, 0.8, 0.9: median 0.9, range 0.8 .. 0.9, all faster. */
	assert_true(m.ratio_median > 0.899 && m.ratio_median < 0.901);
	assert_true(m.ratio_min > 0.799 && m.ratio_min < 0.801);
	assert_true(m.ratio_max > 0.899 && m.ratio_max < 0.901);
	assert_false(m.noise);
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
	assert_true(m.ratio_min > 1 && !m.noise);
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
	assert_int_equal(metric_summarize(huge + 2, huge + 2, 1, &m), -1);
	assert_int_equal(metric_summarize(small, huge, 0, &m), -1);
}

static void
test_round_verdicts(void **state)
{
	const uint64_t expected[] = { 4096, 2048 };
	const uint64_t full[] = { 4096, 2048 }, less[] = { 4096, 0 };
	const uint64_t none[] = { 0, 0 }, some[] = { 0, 2048 };
	const char *why;
	size_t bad;

	(void)state;
	assert_true(round_verified(true, full, expected, 2, &bad, &why));
	assert_null(why);
	assert_false(round_verified(true, less, expected, 2, &bad, &why));
	assert_int_equal(bad, 1);
	assert_non_null(why);
	assert_true(round_verified(false, none, expected, 2, &bad, &why));
	assert_false(round_verified(false, some, expected, 2, &bad, &why));
	assert_int_equal(bad, 1);
	/* A FILE with nothing expected can never verify a huge round. */
	assert_false(round_verified(true, full, none, 2, &bad, &why));
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
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
