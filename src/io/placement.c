/* SPDX-License-Identifier: BSD-2-Clause */
/* SPDX-FileCopyrightText: 2026 the elfthp-align authors */
/*
 * Where this host places a mapping of a file: measured, never assumed
 * from a version or a file system's name.  ext4 (with large folios), XFS,
 * btrfs and tmpfs mounted huge= hand a mapping of a PMD or more an address
 * congruent to its file offset (thp_get_unmapped_area); overlayfs and a
 * plain tmpfs do not (measured on Linux 6.18: docs/loading.md).  ld.so
 * maps a shared library's whole span with one such mapping first, so
 * there its base is PMD-aligned whatever the file's p_align says.
 */
#include <errno.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/types.h>

#include "elfthp_io.h"

/*
 * Each try maps two PMDs from a different small offset (k pages): a
 * placement by offset lands at an address congruent to it, which a free
 * placement is only by chance, and not by the usual accident (a hole
 * just below an aligned mapping, such as a malloc arena, gives an aligned
 * address, congruent to 0, not to k pages).
 */
#define PLACEMENT_TRIES 3

/*
 * *placed: whether every try landed at an address congruent to its file
 * offset modulo pmd.  The mappings are made together, so that the kernel
 * cannot hand back one freed hole thrice; each spans two PMDs (address
 * space bounded whatever the file's size) and is never touched, so
 * nothing is read.  0, or -1 with errno set (mmap's) and nothing left
 * mapped.
 */
int
placement_by_offset(int fd, uint64_t pmd, uint64_t page, bool *placed)
{
	void *at[PLACEMENT_TRIES];
	size_t len = (size_t)(2 * pmd);
	int i, n, e = 0;

	*placed = true;
	for (n = 0; n < PLACEMENT_TRIES; n++) {
		uint64_t off = (uint64_t)(n + 1) * page;

		at[n] = mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, (off_t)off);
		if (at[n] == MAP_FAILED) {
			e = errno;
			break;
		}
		if ((uintptr_t)at[n] % pmd != off % pmd)
			*placed = false;
	}
	for (i = 0; i < n; i++)
		munmap(at[i], len);
	if (e != 0) {
		errno = e;
		return -1;
	}
	return 0;
}
