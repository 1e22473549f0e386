/* SPDX-License-Identifier: BSD-2-Clause */
/* SPDX-FileCopyrightText: 2026 the elfthp-align authors */
/*
 * --measure, the pure part: whether a round was in the state it was run
 * in, and the statistics over the pairs that were.  The ratio is taken
 * pair by pair (huge over small of the same pair, run back to back),
 * because a shared machine drifts between pairs more than within one:
 * the spread of the pair ratios is what says whether the difference is
 * real.  The ratio's median gets a 95 % confidence interval that assumes
 * nothing of the ratios' distribution: two of their order statistics,
 * chosen from the binomial distribution of how many pairs fall below the
 * true median (the sign test's interval).  It exists from
 * MEASURE_MIN_PAIRS pairs on; a difference is one whose interval
 * excludes 1, and with fewer pairs nothing is a difference.
 */
#include <stdlib.h>
#include <string.h>

#include "elfthp_core.h"

void
round_files_add(struct round_files *f, const uint64_t *kb, const bool *maps,
    size_t nfiles)
{
	size_t i;

	for (i = 0; i < nfiles; i++) {
		if (!maps[i])
			continue;
		f->sum_kb[i] += kb[i];
		if (f->nmap[i] == 0 || kb[i] < f->min_kb[i])
			f->min_kb[i] = kb[i];
		if (kb[i] > f->max_kb[i])
			f->max_kb[i] = kb[i];
		f->nmap[i]++;
	}
}

bool
round_verified(bool huge, const struct round_files *f,
    const uint64_t *expected_kb, size_t nfiles, size_t *bad_file,
    const char **why)
{
	size_t i;

	for (i = 0; i < nfiles; i++) {
		*bad_file = i;
		if (!huge && f->sum_kb[i] > 0) {
			*why = "PMD-mapped in a small round";
			return false;
		}
		if (huge && f->nmap[i] == 0) {
			*why = "mapped by no process of the round";
			return false;
		}
		if (huge && (expected_kb[i] == 0 ||
		    f->min_kb[i] < expected_kb[i])) {
			*why = f->max_kb[i] >= expected_kb[i] &&
			    expected_kb[i] > 0 ? "a process of the round "
			    "PMD-mapped less of it than the warm-up round" :
			    "less PMD-mapped than in the warm-up round";
			return false;
		}
	}
	*why = NULL;
	return true;
}

bool
round_ba_verified(bool after, const struct round_files *f,
    const uint64_t *expected_kb, const char **why)
{
	size_t bad;

	if (f->nmap[1] > 0) {
		*why = after ? "a process of an after round mapped the "
		    "original" : "a process of a before round mapped the "
		    "rewritten file, not the original (through another path "
		    "than the one the original is bind-mounted over?)";
		return false;
	}
	if (!after && f->nmap[0] == 0) {
		*why = "no process of the round mapped the original";
		return false;
	}
	if (!after) {
		*why = NULL;
		return true;
	}
	return round_verified(true, f, expected_kb, 1, &bad, why);
}

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* Sorts v in place: its median, min and max. */
static void
spread(double *v, size_t n, double *median, double *min, double *max)
{
	qsort(v, n, sizeof(*v), cmp_double);
	*min = v[0];
	*max = v[n - 1];
	*median = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

size_t
median_ci_rank(size_t n)
{
	long double term = 1, below = 0;
	size_t j, k = 0;

	for (j = 0; j < n; j++)
		term /= 2;		/* P(X = 0), X ~ Binomial(n, 1/2) */
	for (j = 0; j < n / 2; j++) {
		below += term;		/* P(X <= j) */
		if (2 * below > 0.05L)
			break;
		k = j + 1;
		term = term * (long double)(n - j) / (long double)(j + 1);
	}
	return k;
}

/*
 * small[i] and huge[i] are pair i's.  A pair whose small value is not
 * positive gives no ratio (a counter that read 0): the medians are still
 * given, n is 0.  0, or -1 with no pair or no memory.
 */
int
metric_summarize(const double *small, const double *huge, size_t n,
    struct metric_summary *m)
{
	double *s, *h, *r;
	size_t i, k = 0;

	memset(m, 0, sizeof(*m));
	if (n == 0 || (s = calloc(3 * n, sizeof(*s))) == NULL)
		return -1;
	h = s + n;
	r = h + n;
	for (i = 0; i < n; i++) {
		s[i] = small[i];
		h[i] = huge[i];
		if (small[i] > 0)
			r[k++] = huge[i] / small[i];
	}
	spread(s, n, &m->small_median, &m->small_min, &m->small_max);
	spread(h, n, &m->huge_median, &m->huge_min, &m->huge_max);
	m->pairs = n;
	m->n = k;
	m->noise = true;
	if (k > 0) {
		size_t c = median_ci_rank(k);

		spread(r, k, &m->ratio_median, &m->ratio_min, &m->ratio_max);
		m->ci = c > 0;
		if (m->ci) {
			m->ci_low = r[c - 1];
			m->ci_high = r[k - c];
			m->noise = !(m->ci_high < 1 || m->ci_low > 1);
		}
	}
	free(s);
	return 0;
}
