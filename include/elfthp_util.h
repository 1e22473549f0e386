/* SPDX-License-Identifier: BSD-2-Clause */
/* SPDX-FileCopyrightText: 2026 the elfthp-align authors */
/*
 * Small pure helpers shared by the core and the I/O layer: sizes, powers
 * of two, congruence and byte ranges.  plan_check.c keeps its own copies
 * of the range tests on purpose: the second opinion must not share them
 * with the planner it checks (see there).
 */
#ifndef ELFTHP_UTIL_H
#define ELFTHP_UTIL_H

#include <stdbool.h>
#include <stdint.h>

#define KiB (UINT64_C(1) << 10)
#define MiB (UINT64_C(1) << 20)

/*
 * A PMD above this is not a huge-page target (arm64 with 64 KiB pages has
 * 512 MiB PMDs): the same line the proposed kernel loader change draws.
 */
#define PMD_CAP (32 * MiB)

static inline bool
is_pow2(uint64_t x)
{
	return x != 0 && (x & (x - 1)) == 0;
}

static inline uint64_t
max_u64(uint64_t a, uint64_t b)
{
	return a > b ? a : b;
}

static inline uint64_t
min_u64(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}

/* offset == vaddr (mod m), m a power of two; m of 0 or 1 asks nothing. */
static inline bool
congruent(uint64_t offset, uint64_t vaddr, uint64_t m)
{
	return m <= 1 || ((offset - vaddr) & (m - 1)) == 0;
}

/* [off, off + len) inside [0, size), without overflow. */
static inline bool
range_within(uint64_t off, uint64_t len, uint64_t size)
{
	return len <= size && off <= size - len;
}

/* Two non-empty ranges share a byte. */
static inline bool
ranges_overlap(uint64_t a, uint64_t alen, uint64_t b, uint64_t blen)
{
	return alen > 0 && blen > 0 && a < b + blen && b < a + alen;
}

#endif
