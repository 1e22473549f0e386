/* SPDX-License-Identifier: BSD-2-Clause */
/* SPDX-FileCopyrightText: 2026 the elfthp-align authors */
/* dtlb.c - does a 2 MiB mapping speed up TLB-bound accesses on this machine?
 *
 *   dtlb MIB huge|small STEPS
 *
 * Maps MIB MiB of anonymous memory, asks for transparent huge pages
 * (MADV_HUGEPAGE) or forbids them (MADV_NOHUGEPAGE), and chases a pointer
 * through one cache line of every 4 KiB page in a pseudo-random cycle.  With
 * 4 KiB pages every step misses the TLB; with 2 MiB pages the TLB covers far
 * more.  Prints "ns/step AnonHugePages-kB".  A context check for part 3: in
 * a VM whose host backs guest memory with 4 KiB pages, a guest huge page
 * still costs a 4 KiB TLB entry and the two modes run alike.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#define PMD (2UL << 20)

static unsigned long anon_huge_kb(void)
{
	char line[256];
	unsigned long kb = 0;
	FILE *f = fopen("/proc/self/smaps_rollup", "r");

	while (f && fgets(line, sizeof line, f))
		if (sscanf(line, "AnonHugePages: %lu kB", &kb) == 1)
			break;
	if (f)
		fclose(f);
	return kb;
}

int main(int argc, char **argv)
{
	if (argc != 4) {
		fprintf(stderr, "usage: dtlb MIB huge|small STEPS\n");
		return 2;
	}
	size_t len = strtoul(argv[1], 0, 0) << 20, npages = len / 4096;
	int huge = strcmp(argv[2], "huge") == 0;
	unsigned long steps = strtoul(argv[3], 0, 0);
	char *raw = mmap(NULL, len + PMD, PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (raw == MAP_FAILED)
		return perror("mmap"), 1;
	char *p = (char *)(((uintptr_t)raw + PMD - 1) & ~(PMD - 1));
	madvise(p, len, huge ? MADV_HUGEPAGE : MADV_NOHUGEPAGE);
	memset(p, 1, len);
	/* Sattolo: one cycle through all pages; line (i*7)%64 of page i. */
	uint32_t *perm = malloc(npages * sizeof *perm);
	uint64_t x = 88172645463325252ull;
	for (size_t i = 0; i < npages; i++)
		perm[i] = (uint32_t)i;
	for (size_t i = npages - 1; i > 0; i--) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		size_t j = x % i, t = perm[i];
		perm[i] = perm[j], perm[j] = (uint32_t)t;
	}
#define SLOT(i) ((void **)(p + (size_t)(i) * 4096 + ((i) * 7 % 64) * 64))
	for (size_t i = 0; i < npages; i++)
		*SLOT(i) = SLOT(perm[i]);
	free(perm);
	void **q = SLOT(0);
	struct timespec a, b;
	clock_gettime(CLOCK_MONOTONIC, &a);
	for (unsigned long s = 0; s < steps; s++)
		q = *q;
	clock_gettime(CLOCK_MONOTONIC, &b);
	double ns = ((b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec)) / steps;
	printf("%.2f %lu %p\n", ns, anon_huge_kb(), (void *)q);
	return 0;
}
