/* SPDX-License-Identifier: BSD-2-Clause */
/* SPDX-FileCopyrightText: 2026 the elfthp-align authors */
/*
 * --host's measurements.  Host facts come from /proc and /sys (fs_info.c);
 * for each path, the file system is probed where the directory is
 * writable: a 2-window file is written with one write(), mapped at a
 * PMD-aligned address and its FilePmdMapped read; then dropped and read
 * back through MADV_HUGEPAGE readahead (what --warm does); then dropped,
 * read back in small folios and collapsed with MADV_COLLAPSE.  The file is
 * made with O_TMPFILE, so it never has a name and vanishes with its
 * descriptor.  Elsewhere the answer comes from the file system type and
 * the kernel version (hugefs.c).  Nothing here prints: cli/host.c does.
 */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "elfthp_io.h"

/* A nameless file in dir: O_TMPFILE, else a temporary name unlinked at once. */
static int
probe_file(const char *dir)
{
	char path[PATH_MAX];
	int fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);

	if (fd >= 0 || (errno != EOPNOTSUPP && errno != EISDIR &&
	    errno != EINVAL))
		return fd;
	if (snprintf(path, sizeof(path), "%s/.elfthp-probe-XXXXXX", dir) >=
	    (int)sizeof(path)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	if ((fd = mkostemp(path, O_CLOEXEC)) >= 0)
		unlink(path);
	return fd;
}

/* A measurement of the probe that failed: no number is recorded.  -1. */
static int
probe_failed(struct fs_probe *p, int e, const char *what)
{
	if (p->error == 0) {
		p->error = e != 0 ? e : EIO;
		p->failed = what != NULL ? what : "?";
	}
	return -1;
}

/*
 * Bytes PMD-mapped when the whole file is mapped aligned and populated, in
 * *bytes; -1 (p says why) where that could not be looked at.
 */
static int
pmd_now(int fd, uint64_t size, uint64_t pmd, bool hugepage,
    struct fs_probe *p, uint64_t *bytes)
{
	struct pc_map m;
	const char *what = NULL;
	int e, rc = 0;

	*bytes = 0;
	if (pc_map(fd, 0, size, pmd, hugepage, &m) != 0)
		return probe_failed(p, errno, m.failed);
	if ((e = pc_populate(&m)) != 0)
		rc = probe_failed(p, e, "madvise(MADV_POPULATE_READ)");
	else if (pc_pmd_mapped(&m, bytes, &what) != 0)
		rc = probe_failed(p, errno, what);
	pc_unmap(&m);
	return rc;
}

/* Drop the probe's cache: its data first on disk, then the pages. */
static int
drop_probe(int fd, uint64_t size, struct fs_probe *p)
{
	int e;

	if (fdatasync(fd) != 0 && errno != EINVAL)
		return probe_failed(p, errno, "fdatasync");
	if ((e = pc_drop(fd, 0, size)) != 0)
		return probe_failed(p, e, "posix_fadvise(POSIX_FADV_DONTNEED)");
	return 0;
}

/* Read the file back in small pieces, as ordinary readahead does. */
static int
read_small(int fd, uint64_t size, struct fs_probe *p)
{
	char buf[4096];
	uint64_t off;
	ssize_t got;

	for (off = 0; off < size; off += sizeof(buf))
		if ((got = pread(fd, buf, sizeof(buf), (off_t)off)) !=
		    (ssize_t)sizeof(buf))
			return probe_failed(p, got < 0 ? errno : EIO, "pread");
	return 0;
}

/* EINVAL, ENOMEM, EAGAIN, EBUSY: MADV_COLLAPSE's answers, not errors. */
static int
probe_collapse(int fd, uint64_t size, uint64_t pmd, struct fs_probe *p)
{
	struct pc_map m;
	int e;

	if (drop_probe(fd, size, p) != 0 || read_small(fd, size, p) != 0)
		return -1;
	if (pc_map(fd, 0, size, pmd, true, &m) != 0)
		return probe_failed(p, errno, m.failed);
	e = pc_collapse(&m);
	pc_unmap(&m);
	if (e != 0 && e != EINVAL && e != ENOMEM && e != EAGAIN && e != EBUSY)
		return probe_failed(p, e, "madvise(MADV_COLLAPSE)");
	p->collapse_error = e;
	if (e != 0)
		return 0;
	return pmd_now(fd, size, pmd, false, p, &p->collapse_pmd);
}

/* The three measurements of the top comment, in the probe file fd. */
static void
probe_measure(int fd, uint64_t size, uint64_t pmd, struct fs_probe *p)
{
	if (pmd_now(fd, size, pmd, false, p, &p->write_pmd) != 0 ||
	    drop_probe(fd, size, p) != 0 ||
	    pmd_now(fd, size, pmd, true, p, &p->warm_pmd) != 0 ||
	    probe_collapse(fd, size, pmd, p) != 0) {
		/* Numbers of a probe that did not finish are no measurement. */
		p->write_pmd = p->warm_pmd = p->collapse_pmd = 0;
		return;
	}
	p->done = true;
	p->size = size;
}

/*
 * Did a probe fail to measure (rather than find the directory unwritable:
 * EROFS, EACCES, EPERM, ENOSPC, EDQUOT, which judge by type instead)?
 */
bool
host_probe_broke(const struct fs_probe *p)
{
	return p->failed != NULL || (p->error != 0 && p->error != EROFS &&
	    p->error != EACCES && p->error != EPERM && p->error != ENOSPC &&
	    p->error != EDQUOT);
}

/*
 * The probe, in dir: a nameless file of two PMDs, one write(), measured.
 * *ro: the file opened again read-only (through /proc/self/fd, the writer
 * then closed: up to 7.1 a file open for writing is never collapsed), for
 * the caller to ask MADV_COLLAPSE of and close; -1 where there is none.
 * ro NULL: not wanted.  A reopen that fails is the probe's failure.
 */
static void
probe_dir(const char *dir, uint64_t pmd, struct fs_probe *p, int *ro)
{
	char self[64];
	uint64_t size = 2 * pmd;
	const char *what;
	ssize_t put;
	char *buf;
	int fd;

	if (ro != NULL)
		*ro = -1;
	memset(p, 0, sizeof(*p));
	/* Its mappings would show no PMD, whatever the file system keeps. */
	if (pc_can_look(&what) != 0) {
		probe_failed(p, errno, what);
		return;
	}
	if ((fd = probe_file(dir)) < 0) {
		p->error = errno;
		if (host_probe_broke(p))
			p->failed = "open(O_TMPFILE)";
		return;
	}
	if ((buf = malloc((size_t)size)) == NULL) {
		probe_failed(p, ENOMEM, "malloc");
		close(fd);
		return;
	}
	memset(buf, 0x5a, (size_t)size);
	put = pwrite(fd, buf, (size_t)size, 0);
	if (put == (ssize_t)size)
		probe_measure(fd, size, pmd, p);
	else if ((p->error = put < 0 ? errno : ENOSPC) != 0 && host_probe_broke(p))
		p->failed = "pwrite";	/* not ENOSPC, EDQUOT: the place's */
	free(buf);
	snprintf(self, sizeof(self), "/proc/self/fd/%d", fd);
	if (p->done && ro != NULL &&
	    (*ro = open(self, O_RDONLY | O_CLOEXEC)) < 0) {
		probe_failed(p, errno, "open(/proc/self/fd)");
		p->done = false;
	}
	close(fd);
}

/* The directory to probe for a path: itself, or the one holding it. */
void
host_probe_path(struct host_path *h, const struct host_facts *hf, uint64_t pmd)
{
	struct stat st;
	char *copy = NULL;
	const char *dir = h->path;
	int ro = -1;
	bool measure;
	const char *what;

	if (stat(h->path, &st) != 0) {
		h->error = errno;
		h->what = "stat";
		return;
	}
	if (fs_identify(h->path, &h->fs, &h->what) != 0) {
		h->error = errno;
		return;
	}
	if (!S_ISDIR(st.st_mode) && (copy = strdup(h->path)) != NULL)
		dir = dirname(copy);
	/* MADV_COLLAPSE asked of the file itself, else of the probe's. */
	measure = strcmp(h->fs.type, "tmpfs") != 0 &&
	    strcmp(h->fs.type, "shmem") != 0;
	probe_dir(dir, pmd, &h->probe, measure && !S_ISREG(st.st_mode) ?
	    &ro : NULL);
	free(copy);
	if (measure && S_ISREG(st.st_mode) &&
	    (ro = open(h->path, O_RDONLY | O_CLOEXEC)) < 0) {
		h->error = errno;
		h->what = "open";
		return;
	}
	fs_expect(&h->fs, hf->version, hf->ro_thp_for_fs, &h->expect);
	h->collapse = h->expect.collapse;
	if (measure && ro >= 0) {
		h->collapse = collapse_fs_measure(ro, pmd, &what);
		/* A measurement that broke is the probe's failure: exit 2. */
		if (what != NULL)
			probe_failed(&h->probe, errno, what);
	} else if (measure)
		h->collapse = TRI_UNKNOWN;
	if (ro >= 0)
		close(ro);
	if (h->collapse != TRI_UNKNOWN)
		h->expect.collapse = h->collapse;
	h->khugepaged = host_khugepaged(hf, h->collapse);
	h->outcome = fs_outcome(&h->expect, &h->probe);
	fs_outcome_sentence(h->sentence, sizeof(h->sentence), h->outcome,
	    &h->fs, &h->expect);
}

/*
 * Does khugepaged collapse program text on a file system where
 * MADV_COLLAPSE does what collapse says?  The rule, from mm/khugepaged.c
 * and mm/huge_memory.c: khugepaged and MADV_COLLAPSE ask the same
 * question of a file mapping (thp_vma_allowable_order: file_thp_enabled,
 * CONFIG_READ_ONLY_THP_FOR_FS up to 7.1, the file's largest folio order
 * from 7.2), but khugepaged also obeys the THP mode, which MADV_COLLAPSE
 * ignores: under "always" every mapping, under "madvise" only
 * MADV_HUGEPAGE ones, which the text exec maps is not.  So: yes where
 * collapse works and the mode is always and khugepaged scans; no where
 * either is not.  make check-vm watches it happen (or not) on each kernel.
 */
enum tri
host_khugepaged(const struct host_facts *hf, enum tri collapse)
{
	if (collapse == TRI_NO || strcmp(hf->thp_enabled, "never") == 0 ||
	    strcmp(hf->thp_enabled, "madvise") == 0 || hf->khp_pages == 0)
		return TRI_NO;
	if (collapse == TRI_YES && strcmp(hf->thp_enabled, "always") == 0)
		return TRI_YES;
	return TRI_UNKNOWN;
}

static int unread(struct host_facts *, const char *, int);

/*
 * A number from a khugepaged setting, read only, in *v: -1 where the
 * kernel has none (ENOENT).  0, or -1 where it could not be read (hf's
 * unread names it).
 */
static int
khp_setting(struct host_facts *hf, const char *name, long *v)
{
	char path[128];
	FILE *f;
	int e = 0;

	*v = -1;
	snprintf(path, sizeof(path), "/sys/kernel/mm/transparent_hugepage/"
	    "khugepaged/%s", name);
	if ((f = fopen(path, "re")) == NULL)
		return errno == ENOENT ? 0 : unread(hf, path, errno);
	if (fscanf(f, "%ld", v) != 1) {
		e = ferror(f) && errno ? errno : EIO;
		*v = -1;
	}
	fclose(f);
	return e ? unread(hf, path, e) : 0;
}

/* A fact that could not be read: its line says unknown, and the CLI says why. */
static int
unread(struct host_facts *hf, const char *where, int e)
{
	if (hf->nunread < HOST_MAX_UNREAD) {
		snprintf(hf->unread[hf->nunread].where,
		    sizeof(hf->unread[0].where), "%s", where);
		hf->unread[hf->nunread++].error = e;
	}
	return -1;
}

/* 0, or -1 where a fact could not be read (hf->unread names it). */
int
host_facts_read(struct host_facts *hf)
{
	static const char *const thp_dir = "/sys/kernel/mm/transparent_hugepage";
	char where[320];
	int rc = 0, e;

	host_kernel(hf->kernel, sizeof(hf->kernel), &hf->version);
	snprintf(where, sizeof(where), "%s/enabled", thp_dir);
	if (thp_setting("enabled", hf->thp_enabled, sizeof(hf->thp_enabled)))
		rc = unread(hf, where, errno);
	snprintf(where, sizeof(where), "%s/defrag", thp_dir);
	if (thp_setting("defrag", hf->thp_defrag, sizeof(hf->thp_defrag)))
		rc = unread(hf, where, errno);
	snprintf(where, sizeof(where), "%s/shmem_enabled", thp_dir);
	if (thp_setting("shmem_enabled", hf->thp_shmem, sizeof(hf->thp_shmem)))
		rc = unread(hf, where, errno);
	hf->ro_thp_for_fs = kernel_config("CONFIG_READ_ONLY_THP_FOR_FS",
	    hf->kernel, hf->config_where, sizeof(hf->config_where), &e,
	    &hf->ro_thp_absent);
	if (e != 0)
		rc = unread(hf, hf->config_where, e);
	hf->collapse_files = collapse_on_files(hf->version, hf->ro_thp_for_fs);
	if (khp_setting(hf, "pages_to_scan", &hf->khp_pages) != 0 ||
	    khp_setting(hf, "scan_sleep_millisecs", &hf->khp_sleep_ms) != 0)
		rc = -1;
	hf->glibc = host_glibc();
	if (glibc_thp_read(&hf->thp, hf->thp_version, sizeof(hf->thp_version),
	    where, sizeof(where)) != 0)
		rc = unread(hf, where, errno != 0 ? errno : EIO);
	if (hf->thp.version != NULL)
		hf->glibc = hf->thp.version;	/* ELFTHP_GLIBC_ROOT's */
	hf->glibc_aligns = glibc_aligns_libraries(hf->glibc);
	glibc_thp_decide(&hf->thp, &hf->thp_verdict);
	return rc;
}

/*
 * The glibc.elf.thp sentence, which names khugepaged where it collapses
 * program text: made once the paths' file systems are measured, which
 * decide whether MADV_COLLAPSE (so khugepaged) works.
 */
void
host_thp_advice(struct host_facts *hf)
{
	glibc_thp_sentence(hf->thp_sentence, sizeof(hf->thp_sentence),
	    &hf->thp, &hf->thp_verdict, host_khugepaged(hf,
	    hf->collapse_files));
}

/*
 * The measurement of a regular file's file system (not tmpfs) says what
 * MADV_COLLAPSE does there; the host line sums them up: yes where any
 * file system measured yes (it is per file system: each path says its
 * own), else no where one measured no.
 */
void
host_collapse_measured(struct host_facts *hf, const struct host_path *h)
{
	if (h->error != 0 || strcmp(h->fs.type, "tmpfs") == 0 ||
	    strcmp(h->fs.type, "shmem") == 0 || h->collapse == TRI_UNKNOWN)
		return;
	if (hf->collapse_where != NULL && (hf->collapse_files == TRI_YES ||
	    h->collapse == TRI_NO))
		return;
	hf->collapse_files = h->collapse;
	hf->collapse_where = h->path;
}

