/* SPDX-License-Identifier: BSD-2-Clause */
/* SPDX-FileCopyrightText: 2026 the elfthp-align authors */
/*
 * --measure, the pure part: whether a round was in the state it was run
 * in, and the statistics over the pairs that were.  The ratio is taken
 * pair by pair (huge over small of the same pair, run back to back),
 * because a shared machine drifts between pairs more than within one:
 * the spread of the pair ratios is what says whether the difference is
 * real.  A ratio whose pairs do not all agree in direction is noise.
 */
#include <stdlib.h>
#include <string.h>

#include "elfthp_core.h"

bool
round_verified(bool huge, const uint64_t *pmd_kb, const uint64_t *expected_kb,
    size_t nfiles, size_t *bad_file, const char **why)
{
	size_t i;

	for (i = 0; i < nfiles; i++) {
		*bad_file = i;
		if (!huge && pmd_kb[i] > 0) {
			*why = "PMD-mapped in a small round";
			return false;
		}
		if (huge && (expected_kb[i] == 0 || pmd_kb[i] < expected_kb[i])) {
			*why = "less PMD-mapped than in the warm-up round";
			return false;
		}
	}
	*why = NULL;
	return true;
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

/*
 * small[i] and huge[i] are pair i's.  A pair whose small value is not
 * positive gives no ratio (a counter that read 0).  0, or -1 when no
 * pair is left or there is no memory.
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
	m->n = k;
	if (k > 0) {
		spread(r, k, &m->ratio_median, &m->ratio_min, &m->ratio_max);
		m->noise = !(m->ratio_max < 1 || m->ratio_min > 1);
	}
	free(s);
	return k > 0 ? 0 : -1;
}
