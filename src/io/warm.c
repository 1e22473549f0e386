/* SPDX-License-Identifier: BSD-2-Clause */
/* SPDX-FileCopyrightText: 2026 the elfthp-align authors */
/*
 * --warm: make every PMD window of a file that the kernel can map resident
 * as one PMD-sized page-cache folio, without writing to the file.
 *
 * Why it works (docs/page-cache.md, 'Readahead'): a fault maps a PMD
 * only where the cache already holds a PMD-sized folio; ext4 and XFS make
 * one when readahead runs for a MADV_HUGEPAGE mapping, but only where no
 * 4 KiB page of the window is cached already.  So, per window that is not huge yet:
 *
 *   1. MADV_COLLAPSE, where the kernel can collapse this file (tmpfs
 *      always; other files where collapse_fs.c measured that it works on
 *      their file system, as 7.2 does on ext4 and XFS, or may work):
 *      in place, mapped or not, nothing dropped or read; EINVAL says it
 *      cannot, and it is not tried again for this file;
 *   2. if small folios are cached and no other process maps them:
 *      fdatasync (once), then POSIX_FADV_DONTNEED on the window;
 *   3. map the window at a PMD-aligned address with MADV_HUGEPAGE and
 *      populate it (MADV_POPULATE_READ, so a file truncated under us gives
 *      an error instead of SIGBUS);
 *   4. read the result in this process's own page table (PAGEMAP_SCAN;
 *      FilePmdMapped in its smaps before Linux 6.7).
 *
 * A look that fails (EMFILE opening smaps, ENOMEM from mmap, an error of
 * madvise, mincore, cachestat or fadvise) is never taken for the kernel's
 * answer: the file's result is then an error that names the call and the
 * errno, and no window is counted.  A file that changes size or mtime
 * while it is warmed (EFAULT from MADV_POPULATE_READ past its new end) is
 * named as such.
 *
 * A window that another process maps is left alone: dropping cannot evict
 * mapped pages, and we change nothing we cannot finish.  The state of
 * every window is taken before any is warmed, and they are warmed from the
 * last down, because readahead for one window also reads the next.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "elfthp_io.h"

struct warm_ctx {
	int fd;
	const char *path;
	struct stat st;
	struct pc_view v;	/* where the page cache is (overlayfs) */
	bool view_open;
	bool shrank;		/* EFAULT reading: shorter than its mapping */
	bool wait_off;		/* a drop waited for in vain: not again */
	uint64_t pmd;
	uint64_t page;
	struct fs_expect expect;
	bool synced;
	bool collapse_off;	/* EINVAL once: not for this file */
	bool blind;		/* this user may not see the page cache */
	bool counted;		/* a cachestat answered: a refusal after it
				   is a failed look, not the kernel's rule */
	bool refused;		/* the first cachestat said EPERM */
	int collapse_error;
	uint64_t dropped;	/* pages dropped and read again */
	int fail;		/* a look failed: its errno, else 0 */
	const char *fail_what;	/* and what was called or read */
	const struct warm_request *q;
	struct warm_result *r;
};

static void
set_state(struct warm_ctx *c, uint64_t k, enum window_state s)
{
	if (c->q->states != NULL)
		c->q->states[k] = (uint8_t)s;
}

/* A look that failed: the first is kept, and it ends the file.  -1. */
static int
failed(struct warm_ctx *c, int e, const char *what)
{
	if (c->fail == 0) {
		c->fail = e != 0 ? e : EIO;
		c->fail_what = what != NULL ? what : "?";
	}
	return -1;
}

/* pc_pmd_mapped failed: what names the file it read. */
static int
look_failed(struct warm_ctx *c, const char *what)
{
	return failed(c, errno, what);
}

/*
 * MADV_POPULATE_READ: the file is read; EFAULT means it was shorter than
 * the mapping while it was read, which is said as a change even when its
 * size and mtime are back by the time they are looked at again (truncated
 * and written again within one timestamp tick).
 */
static int
populated(struct warm_ctx *c, int e)
{
	if (e == EFAULT)
		c->shrank = true;
	return e == 0 ? 0 : failed(c, e, "madvise(MADV_POPULATE_READ)");
}

/* Cached pages of the whole file. */
static int
file_resident(struct warm_ctx *c, uint64_t *pages)
{
	*pages = 0;
	if (pc_view_cached(&c->v, 0, (uint64_t)c->st.st_size, c->pmd, c->page,
	    pages) != 0) {
		c->refused = errno == EPERM && !c->counted && c->fail == 0;
		return failed(c, errno, "cachestat");
	}
	c->counted = true;
	return 0;
}

/*
 * Is range k one PMD-mapped folio now?  Only a fully cached range is
 * faulted in, so that this reads no data.  *cached gets its cached pages.
 * 0, or -1 when it could not be told (c->fail says why).
 */
static int
range_is_huge(struct warm_ctx *c, uint64_t k, bool *huge, uint64_t *cached)
{
	struct pc_map m;
	uint64_t pmd_bytes = 0;
	const char *what = NULL;
	int rc = 0;

	*huge = false;
	if (pc_map(c->fd, k * c->pmd, c->pmd, c->pmd, false, &m) != 0)
		return failed(c, errno, m.failed);
	if (pc_resident(&m, c->page, cached) != 0)
		rc = failed(c, errno, "mincore");
	else if (*cached == c->pmd / c->page) {
		if ((rc = populated(c, pc_populate(&m))) == 0 &&
		    (rc = pc_pmd_mapped(&m, &pmd_bytes, &what)) != 0)
			look_failed(c, what);
		*huge = rc == 0 && pmd_bytes >= c->pmd;
	}
	pc_unmap(&m);
	return rc;
}

static void
not_huge(struct warm_ctx *c, enum warm_reason why)
{
	c->r->not_huge[why]++;
}

/* Why a populated window is still small, from what the fs should do. */
static enum warm_reason
small_reason(const struct warm_ctx *c)
{
	if (c->collapse_error == ENOMEM || c->collapse_error == EAGAIN)
		return WARM_NO_HUGE_PAGE;
	if (c->expect.readahead == TRI_YES || (c->expect.collapse == TRI_YES &&
	    !c->collapse_off))
		return WARM_NO_HUGE_PAGE;
	return WARM_NO_HUGE_FOLIOS;
}

/*
 * MADV_COLLAPSE's answers about the kernel: EINVAL (not for this file),
 * ENOMEM and EAGAIN (no huge page now), EBUSY.  Anything else is an error.
 */
static bool
collapse_answer(int e)
{
	return e == 0 || e == EINVAL || e == ENOMEM || e == EAGAIN ||
	    e == EBUSY;
}

/* Step 1.  Returns true if the range is huge afterwards. */
static bool
try_collapse(struct warm_ctx *c, uint64_t k)
{
	struct pc_map m;
	uint64_t pmd_bytes = 0;
	const char *what = NULL;
	bool huge = false;
	int e;

	if (c->collapse_off || c->expect.collapse == TRI_NO)
		return false;
	if (pc_map(c->fd, k * c->pmd, c->pmd, c->pmd, true, &m) != 0) {
		failed(c, errno, m.failed);
		return false;
	}
	e = pc_collapse(&m);
	c->collapse_error = e;
	if (e == EINVAL)
		c->collapse_off = true;
	if (!collapse_answer(e))
		failed(c, e, "madvise(MADV_COLLAPSE)");
	else if (e == 0 && populated(c, pc_populate(&m)) == 0) {
		if (pc_pmd_mapped(&m, &pmd_bytes, &what) != 0)
			look_failed(c, what);
		huge = pmd_bytes >= c->pmd;
	}
	pc_unmap(&m);
	return huge && c->fail == 0;
}

static void
note_mappers(struct warm_ctx *c, const long *pids, size_t n)
{
	size_t i, j;

	for (i = 0; i < n; i++) {
		for (j = 0; j < c->r->npids && c->r->pids[j] != pids[i]; j++)
			;
		if (j == c->r->npids && c->r->npids < WARM_MAX_PIDS) {
			/* Named now: the report only formats. */
			pc_comm(pids[i], c->r->comms[j], sizeof(c->r->comms[j]));
			c->r->pids[c->r->npids++] = pids[i];
		}
	}
}

/* After the drop: pages of range k still cached, in *left.  0 or -1. */
static int
left_cached(struct warm_ctx *c, uint64_t k, uint64_t *left)
{
	struct pc_map m;
	int rc = 0;

	if (pc_map(c->fd, k * c->pmd, c->pmd, c->pmd, false, &m) != 0)
		return failed(c, errno, m.failed);
	if (pc_resident(&m, c->page, left) != 0)
		rc = failed(c, errno, "mincore");
	pc_unmap(&m);
	return rc;
}

/*
 * Small folios left after a drop of an overlay file whose real file could
 * not be opened.  fdatasync through overlayfs does not reach a lower file
 * (a layer just unpacked is still dirty), and dirty pages are not dropped
 * while the writeback that POSIX_FADV_DONTNEED itself starts runs: so the
 * drop is tried again, after waits of 10, 50 and 250 ms.  Once that was
 * in vain, not again for this file.  Elsewhere fdatasync has written the
 * file back.  *left: the pages still cached.  0, or -1 (c->fail).
 */
static int
drop_again(struct warm_ctx *c, uint64_t k, uint64_t *left)
{
	static const unsigned wait_ms[] = { 10, 50, 250 };
	size_t i;
	int e;

	if (!c->v.overlay || c->v.real_fd >= 0)
		return 0;
	for (i = 0; *left > 0 && !c->wait_off && i < 3; i++) {
		usleep(wait_ms[i] * 1000);
		if ((e = pc_drop(pc_view_cache_fd(&c->v), k * c->pmd,
		    c->pmd)) != 0)
			return failed(c, e, "posix_fadvise(POSIX_FADV_DONTNEED)");
		if (left_cached(c, k, left) != 0)
			return -1;
	}
	c->wait_off = *left > 0;
	return 0;
}

/*
 * Range k is still cached after the drops, and no process this user can
 * read the maps of maps it: what was seen is said, not a guess.  Its
 * dirty pages, where cachestat can count them (not through overlayfs).
 */
static void
still_cached(struct warm_ctx *c, uint64_t k)
{
	uint64_t unclean = 0;

	if (pc_view_unclean(&c->v, k * c->pmd, c->pmd, &unclean) != 0)
		c->r->unclean_unknown = true;
	else
		c->r->unclean += unclean;
	not_huge(c, WARM_STILL_CACHED);
}

/* fdatasync, once: the real file's where overlayfs hides it. */
static int
sync_once(struct warm_ctx *c)
{
	if (!c->synced && fdatasync(pc_view_cache_fd(&c->v)) != 0 &&
	    errno != EINVAL && errno != EROFS)
		return failed(c, errno, "fdatasync");
	c->synced = true;
	return 0;
}

/* Step 2.  Returns false (and says why) if the small folios must stay. */
static bool
drop_small(struct warm_ctx *c, uint64_t k, uint64_t cached)
{
	long pids[WARM_MAX_PIDS];
	size_t n, unreadable;
	uint64_t left = 0;
	int e;

	if (pc_find_mappers(&c->v, k * c->pmd, c->pmd, pids, WARM_MAX_PIDS,
	    &n, &unreadable) != 0) {
		failed(c, errno, "/proc/PID/maps");
		return false;
	}
	if (unreadable > c->r->unreadable)
		c->r->unreadable = unreadable;
	if (n > 0) {
		note_mappers(c, pids, n < WARM_MAX_PIDS ? n : WARM_MAX_PIDS);
		not_huge(c, WARM_BUSY);
		return false;
	}
	if (sync_once(c) != 0)
		return false;
	if ((e = pc_drop(pc_view_cache_fd(&c->v), k * c->pmd, c->pmd)) != 0) {
		failed(c, e, "posix_fadvise(POSIX_FADV_DONTNEED)");
		return false;
	}
	if (left_cached(c, k, &left) != 0 || drop_again(c, k, &left) != 0)
		return false;
	if (left > 0) {
		still_cached(c, k);
		return false;
	}
	c->dropped += cached;
	return true;
}

#ifdef ELFTHP_TEST_HOOKS
/*
 * Test builds only: ELFTHP_TEST_TRUNCATE_WHILE_WARMING=BYTES truncates the
 * file (by its name, as another process would) before each window is
 * read, so that tests/integration/test_measure.sh sees a file shrink under
 * --warm every time.  With ELFTHP_TEST_RESTORE_AFTER_READ set too, the
 * size and mtime are put back after the read, as a writer that truncates
 * and writes again within one timestamp tick leaves them.
 */
static void
hook_before_read(const struct warm_ctx *c)
{
	const char *size = getenv("ELFTHP_TEST_TRUNCATE_WHILE_WARMING");

	if (size != NULL && c->path != NULL)
		(void)truncate(c->path, (off_t)strtoull(size, NULL, 0));
}

static void
hook_after_read(const struct warm_ctx *c)
{
	struct timespec t[2] = { { .tv_nsec = UTIME_OMIT }, c->st.st_mtim };

	if (getenv("ELFTHP_TEST_RESTORE_AFTER_READ") != NULL &&
	    c->path != NULL && truncate(c->path, c->st.st_size) == 0)
		(void)utimensat(AT_FDCWD, c->path, t, 0);
}
#else
static void
hook_before_read(const struct warm_ctx *c)
{
}

static void
hook_after_read(const struct warm_ctx *c)
{
}
#endif

/* Steps 3 and 4. */
static void
read_huge(struct warm_ctx *c, uint64_t k)
{
	struct pc_map m;
	uint64_t pmd_bytes = 0;
	const char *what = NULL;
	int e;

	hook_before_read(c);
	if (pc_map(c->fd, k * c->pmd, c->pmd, c->pmd, true, &m) != 0) {
		failed(c, errno, m.failed);
		return;
	}
	e = pc_populate(&m);
	hook_after_read(c);
	if (populated(c, e) != 0)
		;
	else if (pc_pmd_mapped(&m, &pmd_bytes, &what) != 0)
		look_failed(c, what);
	else if (pmd_bytes >= c->pmd)
		c->r->made_huge++;
	else
		not_huge(c, small_reason(c));
	pc_unmap(&m);
}

/*
 * look_only: what warm_range_k would do to range k, from what is cached
 * and who maps it; nothing is read, dropped or collapsed.  Allocation can
 * still fail when warming for real: "would" is the best case.
 */
static void
look_range_k(struct warm_ctx *c, uint64_t k)
{
	long pids[WARM_MAX_PIDS];
	size_t n = 0, unreadable = 0;
	uint64_t cached = 0;

	if (c->expect.readahead == TRI_NO && c->expect.collapse != TRI_YES) {
		not_huge(c, WARM_NO_HUGE_FOLIOS);
		set_state(c, k, WINDOW_NO_FOLIOS);
		return;
	}
	if (pc_view_cached(&c->v, k * c->pmd, c->pmd, c->pmd, c->page,
	    &cached)) {
		failed(c, errno, "cachestat");
		return;
	}
	/*
	 * Collapse in place: mapped or not, nothing dropped; it reads only
	 * the pages that are not cached.
	 */
	if (cached > 0 && c->expect.collapse == TRI_YES) {
		set_state(c, k, WINDOW_COLLAPSE);
		c->r->made_huge++;
		c->r->read_bytes += cached * c->page < c->pmd ?
		    c->pmd - cached * c->page : 0;
		return;
	}
	if (cached > 0 &&
	    pc_find_mappers(&c->v, k * c->pmd, c->pmd, pids, WARM_MAX_PIDS,
	    &n, &unreadable) != 0) {
		failed(c, errno, "/proc/PID/maps");
		return;
	}
	if (n > 0) {
		note_mappers(c, pids, n < WARM_MAX_PIDS ? n : WARM_MAX_PIDS);
		not_huge(c, WARM_BUSY);
		set_state(c, k, WINDOW_BUSY);
		return;
	}
	set_state(c, k, cached ? WINDOW_SMALL : WINDOW_UNCACHED);
	c->r->made_huge++;
	c->r->read_bytes += c->pmd;
}

static void
warm_range_do(struct warm_ctx *c, uint64_t k)
{
	uint64_t cached = 0;
	bool huge;

	/* Readahead for an earlier window may have done this one. */
	if (range_is_huge(c, k, &huge, &cached) != 0)
		return;
	if (huge) {
		c->r->made_huge++;
		return;
	}
	if (try_collapse(c, k)) {
		c->r->made_huge++;
		return;
	}
	if (c->fail != 0)
		return;
	/* Nothing to gain from dropping where no readahead makes them. */
	if (c->expect.readahead == TRI_NO) {
		not_huge(c, small_reason(c));
		return;
	}
	if (cached > 0 && !drop_small(c, k, cached))
		return;
	read_huge(c, k);
}

static void
warm_range_k(struct warm_ctx *c, uint64_t k)
{
	uint64_t made = c->r->made_huge;

	warm_range_do(c, k);
	set_state(c, k, c->r->made_huge > made ? WINDOW_MADE_HUGE :
	    WINDOW_STILL_SMALL);
}

/*
 * The file system, and what the kernel is expected to do on it, for
 * choosing steps and naming reasons.  The expectations need the kernel's
 * config (a gzip'd /proc/config.gz), so only a file with work left asks.
 */
static int
warm_setup(struct warm_ctx *c, struct fs_info *fs)
{
	const char *what;
	uint64_t pmd;

	if (host_pmd_read(&pmd) != 0)
		return failed(c, errno, "/sys/kernel/mm/transparent_hugepage/"
		    "hpage_pmd_size");
	/* A plan made for another PMD (a default, where a read failed). */
	if (pmd != c->pmd)
		return failed(c, EINVAL, "the plan's PMD size");
	if (fstat(c->fd, &c->st) != 0)
		return failed(c, errno, "fstat");
	if (pc_view_open(c->fd, c->page, &c->v, &what) != 0)
		return failed(c, errno, what);
	c->view_open = true;
	/* A count that would say "cached" of every page is no look. */
	if (c->v.blind)
		return failed(c, EACCES, "mincore through overlayfs (it "
		    "answers only to the file's owner or a writer, and "
		    "cachestat through overlayfs sees no page cache)");
	c->r->cache_how = c->v.how;
	c->r->cache_why = c->v.real_why;
	/* Before anything is read: a look that cannot see a PMD is no look. */
	if (pc_can_look(&what) != 0)
		return failed(c, errno, what);
	if (fs_identify_fd(c->fd, fs, &what) != 0)
		return failed(c, errno, what);
	snprintf(c->r->fs_type, sizeof(c->r->fs_type), "%s", fs->type);
	return 0;
}

static int
warm_expect(struct warm_ctx *c, const struct fs_info *fs)
{
	const char *where;
	int e = host_ro_thp_error(&where);

	if (e != 0)
		return failed(c, e, where);
	fs_expect(fs, host_kernel_version(), host_ro_thp_for_fs(), &c->expect);
	/* Measured on the file system itself, where it may work at all. */
	if (c->path != NULL && strcmp(fs->type, "tmpfs") != 0 &&
	    strcmp(fs->type, "shmem") != 0)
		c->expect.collapse = collapse_fs_expect(c->fd, c->pmd,
		    c->expect.collapse);
	c->r->fs_why = c->expect.why;
	c->r->fs_advice = c->expect.advice;
	/* Said only after a read through the overlay gave small folios. */
	if (c->v.overlay && c->r->fs_why == NULL)
		c->r->fs_why = "a read through it gave the real file, on a "
		    "layer's file system, small folios";
	return 0;
}

/* Per range: fully cached (full[k]); and the pages cached in the file. */
static int
cached_ranges(struct warm_ctx *c, const struct warm_plan *w, bool *full,
    uint64_t *pages)
{
	uint64_t k, n = 0, npages = ((uint64_t)c->st.st_size + c->page - 1) /
	    c->page;
	bool all;

	if (file_resident(c, pages) != 0)
		return -1;
	all = *pages >= npages;
	for (k = 0; k < w->nranges; k++) {
		full[k] = false;
		if (!warm_range(w, k))
			continue;
		if (!all && pc_view_cached(&c->v, k * c->pmd, c->pmd, c->pmd,
		    c->page, &n) != 0)
			return failed(c, errno, "cachestat");
		full[k] = all || n == c->pmd / c->page;
	}
	return 0;
}

/* Ranges looked at through one mapping: at most this many PMDs of RSS. */
#define LOOK_BATCH 4

/*
 * Which of the ranges [k0, k0 + n) are one PMD-mapped folio each (huge[i]
 * for k0 + i): one mapping for them all, but only the fully cached ones
 * (full) faulted in, so that this reads no data, and each range's PMDs
 * counted alone (PAGEMAP_SCAN), so that a PMD folio readahead put beside a
 * window never stands in for it.  0; -1 when a look failed; 1 where the
 * kernel cannot count part of a mapping (before 6.7): the caller then
 * looks at each range in a mapping of its own (range_is_huge).
 */
static int
batch_is_huge(struct warm_ctx *c, uint64_t k0, uint64_t n, const bool *full,
    bool *huge)
{
	struct pc_map m;
	uint64_t i, bytes;
	int rc = 0;

	if (pc_map(c->fd, k0 * c->pmd, n * c->pmd, c->pmd, false, &m) != 0)
		return failed(c, errno, m.failed);
	for (i = 0; i < n && rc == 0; i++) {
		huge[i] = false;
		if (!full[k0 + i])
			continue;
		if ((rc = populated(c, pc_populate_at(&m, i * c->pmd,
		    c->pmd))) != 0)
			break;
		if (pc_pmd_mapped_at(&m, i * c->pmd, c->pmd, &bytes) != 0)
			rc = pc_no_scan(errno) ? 1 : failed(c, errno,
			    "/proc/self/pagemap");
		huge[i] = rc == 0 && bytes >= c->pmd;
	}
	pc_unmap(&m);
	return rc;
}

/* Looks at ranges [k0, k0 + n) one mapping each: before PAGEMAP_SCAN. */
static int
each_is_huge(struct warm_ctx *c, uint64_t k0, uint64_t n, const bool *full,
    bool *huge)
{
	uint64_t i, cached;

	for (i = 0; i < n; i++) {
		huge[i] = false;
		if (full[k0 + i] && range_is_huge(c, k0 + i, &huge[i],
		    &cached) != 0)
			return -1;
	}
	return 0;
}

/*
 * Which ranges are huge already, before anything reads ahead, reading no
 * data (batch_is_huge); address space and RSS stay LOOK_BATCH PMDs,
 * whatever the file's size.  The rest go to todo.  0, or -1 when a look
 * failed.
 */
static int
first_look(struct warm_ctx *c, const struct warm_plan *w, bool *todo,
    uint64_t *before)
{
	uint64_t k0, i, n;
	bool *full = todo, huge[LOOK_BATCH];
	int rc;

	if (cached_ranges(c, w, full, before) != 0)
		return -1;
	for (k0 = 0; k0 < w->nranges; k0 += n) {
		n = w->nranges - k0 < LOOK_BATCH ? w->nranges - k0 : LOOK_BATCH;
		/* full[] is read here, before todo[] (the same array) is set. */
		rc = batch_is_huge(c, k0, n, full, huge);
		if (rc == 1)
			rc = each_is_huge(c, k0, n, full, huge);
		if (rc != 0)
			return -1;
		for (i = 0; i < n; i++) {
			if (!warm_range(w, k0 + i))
				continue;
			todo[k0 + i] = !huge[i];
			if (huge[i]) {
				c->r->huge_before++;
				set_state(c, k0 + i, WINDOW_HUGE);
			}
		}
	}
	return 0;
}

/*
 * Did the file change since warm_setup looked (another process truncated
 * or rewrote it in place)?  Then what was measured is not about it, and
 * that is said, with the counts so far; so is an fstat that failed.
 */
static bool
changed_under(const struct warm_ctx *c, char *err, size_t n)
{
	struct stat now;

	if (fstat(c->fd, &now) != 0) {
		error_text(err, n, "could not look: fstat: %s (no verdict on "
		    "huge pages)", strerror(errno));
		return true;
	}
	if (!c->shrank && now.st_size == c->st.st_size &&
	    now.st_mtim.tv_sec == c->st.st_mtim.tv_sec &&
	    now.st_mtim.tv_nsec == c->st.st_mtim.tv_nsec)
		return false;
	snprintf(err, n, "changed while being warmed (%jd bytes when opened, "
	    "%jd now): %ju of %ju windows were huge, %ju made huge before it "
	    "changed", (intmax_t)c->st.st_size, (intmax_t)now.st_size,
	    (uintmax_t)c->r->huge_before, (uintmax_t)c->r->windows,
	    (uintmax_t)c->r->made_huge);
	return true;
}

/*
 * Last range first: MADV_HUGEPAGE readahead reads the next PMD too, and
 * racing it (small folios half read, pages locked) would leave ranges
 * small; the next range is then always done already.
 */
static int
warm_ranges(struct warm_ctx *c, const struct warm_plan *w, const bool *todo,
    const struct fs_info *fs, bool *dirty)
{
	uint64_t k;

	for (k = w->nranges; k-- > 0 && c->fail == 0;) {
		if (!todo[k])
			continue;
		if (!*dirty && warm_expect(c, fs) != 0)
			return -1;
		*dirty = true;
		if (c->q->look_only)
			look_range_k(c, k);
		else
			warm_range_k(c, k);
	}
	return c->fail != 0 ? -1 : 0;
}

/*
 * A user who may not write the file: the kernel shows its page cache only
 * to a writer (cachestat says EPERM, mincore says every page is cached),
 * but faulting the file in needs no more than reading it.  So each window
 * is faulted in through a MADV_HUGEPAGE mapping of its own and judged by
 * its own PMD mapping, which is what root's look ends with too; whether
 * it was cached before is told by the bytes the fault read (this thread's
 * read_bytes).  A window still small is collapsed, or dropped (clean
 * pages no process maps) and read again.
 */
static const char blind_how[] = "faults of this user's own MADV_HUGEPAGE "
    "mappings, one per window, judged by their PMD mappings (it may not "
    "write the file, and the kernel counts a file's page cache only for a "
    "writer); bytes read from /proc/thread-self/io";

/* Fault range k in; *huge if it is PMD-mapped, *read the bytes read. */
static int
blind_fault(struct warm_ctx *c, uint64_t k, bool *huge, uint64_t *read)
{
	struct pc_map m;
	uint64_t b0, b1, bytes = 0;
	const char *what = NULL;
	int rc;

	*huge = false;
	hook_before_read(c);
	if (pc_thread_read_bytes(&b0) != 0)
		return failed(c, errno, "/proc/thread-self/io");
	if (pc_map(c->fd, k * c->pmd, c->pmd, c->pmd, true, &m) != 0)
		return failed(c, errno, m.failed);
	if ((rc = populated(c, pc_populate(&m))) == 0 &&
	    (rc = pc_pmd_mapped(&m, &bytes, &what)) != 0)
		look_failed(c, what);
	pc_unmap(&m);
	if (rc == 0 && pc_thread_read_bytes(&b1) != 0)
		return failed(c, errno, "/proc/thread-self/io");
	*huge = rc == 0 && bytes >= c->pmd;
	*read = rc == 0 && b1 > b0 ? b1 - b0 : 0;
	return rc;
}

/* Range k, still small after its fault: collapse, or drop and read. */
static bool
blind_retry(struct warm_ctx *c, uint64_t k, uint64_t *read)
{
	bool huge = false;
	uint64_t more = 0;
	int e;

	if (try_collapse(c, k) || c->fail != 0)
		return c->fail == 0;
	if (c->expect.readahead == TRI_NO) {
		not_huge(c, small_reason(c));
		return false;
	}
	if (sync_once(c) != 0)
		return false;
	if ((e = pc_drop(c->fd, k * c->pmd, c->pmd)) != 0) {
		failed(c, e, "posix_fadvise(POSIX_FADV_DONTNEED)");
		return false;
	}
	if (blind_fault(c, k, &huge, &more) != 0)
		return false;
	*read += more;
	if (!huge)
		not_huge(c, WARM_STILL_CACHED);
	return huge;
}

static void
blind_range(struct warm_ctx *c, uint64_t k)
{
	uint64_t read = 0;
	bool huge;

	if (blind_fault(c, k, &huge, &read) != 0)
		return;
	if (huge && read == 0) {
		c->r->huge_before++;
		set_state(c, k, WINDOW_HUGE);
	} else if (huge || blind_retry(c, k, &read)) {
		c->r->made_huge++;
		set_state(c, k, WINDOW_MADE_HUGE);
	} else {
		set_state(c, k, WINDOW_STILL_SMALL);
	}
	c->r->read_bytes += read;
}

/* Every range, the last first (see warm_ranges). */
static int
warm_blind(struct warm_ctx *c, const struct warm_plan *w,
    const struct fs_info *fs)
{
	uint64_t k;

	c->r->cache_how = blind_how;
	if (warm_expect(c, fs) != 0)
		return -1;
	for (k = w->nranges; k-- > 0 && c->fail == 0;)
		if (warm_range(w, k))
			blind_range(c, k);
	return c->fail != 0 ? -1 : 0;
}

/*
 * Can this user count the file's page cache?  Not without write access
 * (EPERM).  ENOSYS (before 6.5) leaves it to mincore; any other error is
 * a look that failed.  0, or -1 (c->fail).
 */
static int
blind_probe(struct warm_ctx *c)
{
	uint64_t pages;

	if (c->v.overlay || c->q->look_only ||
	    pc_cachestat(c->fd, 0, c->page, &pages) == 0 || errno == ENOSYS)
		return 0;
	if (errno != EPERM)
		return failed(c, errno, "cachestat");
	c->blind = true;
	return 0;
}

/* What r says before anything is looked at: every window, none huge yet. */
static void
result_init(const struct warm_plan *w, const struct warm_request *q,
    struct warm_result *r)
{
	memset(r, 0, sizeof(*r));
	r->windows = w->warmable + w->misaligned;
	r->not_huge[WARM_NOT_ALIGNED] = w->misaligned;
	r->base_aligned = w->base_aligned;
	r->look_only = q->look_only;
	r->pmd = w->pmd;
	if (q->states != NULL)
		memset(q->states, WINDOW_NONE, w->nranges);
}

/*
 * The look failed: its message; where the kernel refused the first count
 * (not a writer), the result says so (cache_refused) and each window's
 * state is unknown.
 */
static void
look_failed_text(struct warm_ctx *c, const struct warm_plan *w, char *err,
    size_t n)
{
	uint64_t k;

	c->r->cache_refused = c->refused;
	for (k = 0; c->refused && k < w->nranges; k++)
		if (warm_range(w, k))
			set_state(c, k, WINDOW_UNKNOWN);
	error_text(err, n, "could not look: %s: %s (no verdict on huge "
	    "pages)%s", c->fail_what, strerror(c->fail), c->refused ?
	    ": the kernel shows a file's page cache only to a user who "
	    "may write it; run as its owner or as root" : "");
}

/*
 * Warm the ranges of w in the file open as fd (path names it, to find its
 * file system), or with q->look_only only say what that would do.  Fills
 * q->states where given.  Returns 0 with *r filled, or -1 with a message
 * in err: a look that failed (the call and the errno), or the file
 * changed.
 */
int
warm_file(int fd, const char *path, const struct warm_plan *w,
    const struct warm_request *q, struct warm_result *r, char *err, size_t n)
{
	struct warm_ctx c = { .fd = fd, .path = path, .pmd = w->pmd,
		.page = host_page_size(), .q = q, .r = r };
	struct fs_info fs;
	uint64_t before = 0, after = 0;
	bool *todo = NULL, dirty = false;
	int rc = -1;

	result_init(w, q, r);
	if (w->warmable == 0)
		return 0;
	if ((todo = calloc(w->nranges, sizeof(*todo))) == NULL)
		return error_text(err, n, "out of memory");
	if (warm_setup(&c, &fs) != 0)
		goto out;
	if (blind_probe(&c) != 0)
		goto out;
	if (c.blind) {
		rc = warm_blind(&c, w, &fs);
		goto out;
	}
	if (first_look(&c, w, todo, &before) != 0)
		goto out;
	if (q->look_only && q->huge_only) {
		rc = 0;
		goto out;
	}
	if (warm_ranges(&c, w, todo, &fs, &dirty) != 0)
		goto out;
	rc = 0;
	/* A look's read_bytes is what warming would read, counted above. */
	if (q->look_only)
		goto out;
	rc = -1;
	after = before;
	if (dirty && file_resident(&c, &after) != 0)
		goto out;
	r->read_bytes = (after + c.dropped > before ?
	    after + c.dropped - before : 0) * c.page;
	rc = 0;
out:
	free(todo);
	if (c.view_open)
		pc_view_close(&c.v);
	if (c.st.st_ino != 0 && changed_under(&c, err, n))
		return -1;
	if (rc != 0)
		look_failed_text(&c, w, err, n);
	return rc;
}
