/* SPDX-License-Identifier: BSD-2-Clause */
/* SPDX-FileCopyrightText: 2026 the elfthp-align authors */
/*
 * Does MADV_COLLAPSE collapse a read-only mapping of a regular file on
 * this file system?  Measured, once per run per file system (st_dev):
 * Linux 7.2 does it on ext4 and XFS (CONFIG_READ_ONLY_THP_FOR_FS is gone:
 * file_thp_enabled() asks the mapping's largest folio order), not on
 * btrfs (no PMD-sized folios); 6.18 without the option refuses with
 * EINVAL on every file system.  Where it works, the page-cache step
 * collapses cached small folios in place: nothing is dropped or read, and
 * a process that maps them gets PMDs at its next fault, without a restart.
 *
 * The probe: a file of one PMD written in 64 KiB pieces (small folios) in
 * the directory, synced, closed and opened again read-only (up to 7.1 a
 * file open for writing is never collapsed), unlinked, mapped PROT_READ at
 * a PMD-aligned address, MADV_COLLAPSE, and the mapping's PMDs counted.
 * EINVAL is "no"; 0 with a PMD mapped is "yes"; ENOMEM, EAGAIN, EBUSY (no
 * huge page now) and a directory this user cannot write are "unknown",
 * and the caller falls back to what the kernel is expected to do.  Only
 * where the kernel may collapse at all (collapse_fs_measure's caller
 * decides) is anything written.
 */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "elfthp_io.h"

#define COLLAPSE_FS_MAX 64

static struct {
	dev_t dev;
	enum tri works;
} known[COLLAPSE_FS_MAX];
static size_t nknown;
static pthread_mutex_t known_lock = PTHREAD_MUTEX_INITIALIZER;

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

/* A file of pmd bytes in dir, written in small pieces; its fd read-only. */
static int
probe_small_file(const char *dir, uint64_t pmd)
{
	char path[PATH_MAX], buf[65536];
	uint64_t off;
	int fd, ro = -1, e = 0;

	if (snprintf(path, sizeof(path), "%s/.elfthp-collapse-XXXXXX", dir) >=
	    (int)sizeof(path)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	if ((fd = mkostemp(path, O_CLOEXEC)) < 0)
		return -1;
	memset(buf, 0x5a, sizeof(buf));
	for (off = 0; off < pmd && e == 0; off += sizeof(buf))
		if (pwrite(fd, buf, sizeof(buf), (off_t)off) !=
		    (ssize_t)sizeof(buf))
			e = errno != 0 ? errno : ENOSPC;
	if (e == 0 && fdatasync(fd) != 0 && errno != EINVAL)
		e = errno;
	close(fd);
	if (e == 0 && (ro = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		e = errno;
	unlink(path);
	errno = e;
	return ro;
}

/* The measurement of the top comment, in dir. */
static enum tri
probe_dir(const char *dir, uint64_t pmd)
{
	struct pc_map m;
	uint64_t bytes = 0;
	const char *what;
	enum tri t = TRI_UNKNOWN;
	int fd, e;

	if ((fd = probe_small_file(dir, pmd)) < 0)
		return TRI_UNKNOWN;
	if (pc_map(fd, 0, pmd, pmd, false, &m) == 0) {
		e = pc_collapse(&m);
		if (e == EINVAL)
			t = TRI_NO;
		else if (e == 0 && pc_populate(&m) == 0 &&
		    pc_pmd_mapped(&m, &bytes, &what) == 0)
			t = bytes >= pmd ? TRI_YES : TRI_UNKNOWN;
		pc_unmap(&m);
	}
	close(fd);
	return t;
}

/* The cached answer for dev: true with *t, or false. */
static bool
cached(dev_t dev, enum tri *t)
{
	size_t i;

	for (i = 0; i < nknown; i++)
		if (known[i].dev == dev) {
			*t = known[i].works;
			return true;
		}
	return false;
}

/*
 * MADV_COLLAPSE on the file system of path (st_dev dev): measured in
 * path's directory the first time this run asks about dev (see the top
 * comment), then the same answer.  TRI_UNKNOWN where it could not be
 * measured.  Thread-safe: --warm asks from several threads.
 */
enum tri
collapse_fs_measure(const char *path, dev_t dev)
{
	char *copy = NULL;
	const char *dir = path;
	struct stat st;
	uint64_t pmd;
	enum tri t = TRI_UNKNOWN;

	if (forced(&t))
		return t;
	pthread_mutex_lock(&known_lock);
	if (cached(dev, &t))
		goto out;
	if (host_pmd_read(&pmd) == 0 && stat(path, &st) == 0) {
		if (!S_ISDIR(st.st_mode) && (copy = strdup(path)) != NULL)
			dir = dirname(copy);
		if (copy != NULL || S_ISDIR(st.st_mode))
			t = probe_dir(dir, pmd);
		free(copy);
	}
	if (nknown < COLLAPSE_FS_MAX) {
		known[nknown].dev = dev;
		known[nknown++].works = t;
	}
out:
	pthread_mutex_unlock(&known_lock);
	return t;
}

/*
 * What the page-cache step can count on for collapse, on the file system
 * of path: the kernel's expectation e (fs_expect) where that is "no",
 * else the measurement where there is one, else the expectation.
 */
enum tri
collapse_fs_expect(const char *path, dev_t dev, enum tri expected)
{
	enum tri t;

	if (forced(&t))
		return t;
	if (expected == TRI_NO)
		return TRI_NO;
	t = collapse_fs_measure(path, dev);
	return t != TRI_UNKNOWN ? t : expected;
}
