/* SPDX-License-Identifier: BSD-2-Clause */
/* SPDX-FileCopyrightText: 2026 the elfthp-align authors */
/*
 * Does MADV_COLLAPSE collapse a read-only mapping of this regular file?
 * Linux 7.2 does it on ext4 and XFS (CONFIG_READ_ONLY_THP_FOR_FS is gone:
 * file_thp_enabled() asks the mapping's largest folio order), not on
 * btrfs (no PMD-sized folios); 6.18 without the option refuses with
 * EINVAL on every file system.  Where it works, the page-cache step
 * collapses cached small folios in place: nothing is dropped or read, and
 * a process that maps them gets PMDs at its next fault, without a restart.
 *
 * The probe writes nothing and changes no page cache: the file itself,
 * from its open descriptor, is mapped PROT_READ for one PMD at a
 * PMD-aligned address and file offset 0 (past EOF is allowed: nothing
 * touches it), and MADV_COLLAPSE is asked of its first page only.
 * mm/khugepaged.c madvise_collapse() first checks the VMA
 * (thp_vma_allowable_order for a forced collapse: one aligned PMD in the
 * VMA, then shmem_huge_enabled or file_thp_enabled) and returns EINVAL
 * where this file cannot be collapsed; else the range, rounded in to
 * PMDs, is empty, nothing is scanned and it returns 0.  So EINVAL is
 * "no", 0 is "yes", and anything else (ENOMEM, a mapping that failed, a
 * process under PR_SET_THP_DISABLE, which the kernel refuses whatever the
 * file) is "unknown": the caller falls back to what the kernel is
 * expected to do.  Asked per file, since the kernel decides per inode (a
 * file open for writing is refused up to 7.1); it costs one mmap and one
 * madvise (which drains the per-CPU LRU lists where it says 0).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "elfthp_io.h"

#ifdef ELFTHP_TEST_HOOKS
/*
 * Test builds only: ELFTHP_TEST_COLLAPSE=yes takes every file system for
 * one where MADV_COLLAPSE works, without the probe, so that a test sees
 * the collapse path fall back where the kernel refuses it.
 */
static bool
forced(enum tri *t)
{
	const char *v = getenv("ELFTHP_TEST_COLLAPSE");

	if (v == NULL || strcmp(v, "yes") != 0)
		return false;
	*t = TRI_YES;
	return true;
}
#else
static bool
forced(enum tri *t)
{
	(void)t;
	return false;
}
#endif

/*
 * The probe of the top comment, on fd.  A call that failed (not one of
 * MADV_COLLAPSE's answers) is named in *failed, errno set; else NULL.
 */
enum tri
collapse_fs_measure(int fd, uint64_t pmd, const char **failed)
{
	struct pc_map m, first;
	enum tri t = TRI_UNKNOWN;
	int e;

	*failed = NULL;
	if (forced(&t))
		return t;
	/* Under PR_SET_THP_DISABLE the kernel refuses whatever the file. */
	if (pc_can_look(failed) != 0)
		return TRI_UNKNOWN;
	if (pc_map(fd, 0, pmd, pmd, false, &m) != 0) {
		*failed = m.failed;
		return TRI_UNKNOWN;
	}
	first = m;
	first.len = (size_t)host_page_size();
	e = pc_collapse(&first);
	pc_unmap(&m);
	if (e == 0)
		return TRI_YES;
	if (e == EINVAL)
		return TRI_NO;
	if (e != ENOMEM && e != EAGAIN && e != EBUSY) {
		*failed = "madvise(MADV_COLLAPSE)";
		errno = e;
	}
	return TRI_UNKNOWN;
}

/*
 * What the page-cache step can count on for collapse, for the file fd:
 * the kernel's expectation (fs_expect) where that is "no" (fd is then not
 * used, and may be -1), else the measurement where there is one, else the
 * expectation.
 */
enum tri
collapse_fs_expect(int fd, uint64_t pmd, enum tri expected)
{
	const char *failed;
	enum tri t;

	if (forced(&t))
		return t;
	if (expected == TRI_NO)
		return TRI_NO;
	t = collapse_fs_measure(fd, pmd, &failed);
	return t != TRI_UNKNOWN ? t : expected;
}
