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
 *      always; other files with CONFIG_READ_ONLY_THP_FOR_FS or from 7.2);
 *      EINVAL says it cannot, and it is not tried again for this file;
 *   2. if small folios are cached and no other process maps them:
 *      fdatasync (once), then POSIX_FADV_DONTNEED on the window;
 *   3. map the window at a PMD-aligned address with MADV_HUGEPAGE and
 *      populate it (MADV_POPULATE_READ, so a file truncated under us gives
 *      an error instead of SIGBUS);
 *   4. read the result in this process's own smaps (FilePmdMapped).
 *
 * A window that another process maps is left alone: dropping cannot evict
 * mapped pages, and we change nothing we cannot finish.  The state of
 * every window is taken before any is warmed, and they are warmed from the
 * last down, because readahead for one window also reads the next.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "elfthp_io.h"

struct warm_ctx {
	int fd;
	struct stat st;
	uint64_t pmd;
	uint64_t page;
	struct fs_expect expect;
	bool synced;
	bool collapse_off;	/* EINVAL once: not for this file */
	int collapse_error;
	uint64_t dropped;	/* pages dropped and read again */
	const struct warm_request *q;
	struct warm_result *r;
};

static void
set_state(struct warm_ctx *c, uint64_t k, enum window_state s)
{
	if (c->q->states != NULL)
		c->q->states[k] = (uint8_t)s;
}

/* Cached pages of the whole file. */
static int
file_resident(const struct warm_ctx *c, uint64_t *pages)
{
	*pages = 0;
	return pc_cached(c->fd, 0, (uint64_t)c->st.st_size, c->pmd, c->page,
	    pages);
}

/*
 * Is range k one PMD-mapped folio now?  Only a fully cached range is
 * faulted in, so that this reads no data.  *cached gets its cached pages.
 */
static int
range_is_huge(struct warm_ctx *c, uint64_t k, bool *huge, uint64_t *cached)
{
	struct pc_map m;
	uint64_t pmd_bytes = 0;
	int rc = 0;

	*huge = false;
	if (pc_map(c->fd, k * c->pmd, c->pmd, c->pmd, false, &m) != 0)
		return errno;
	if (pc_resident(&m, c->page, cached) != 0)
		rc = errno;
	else if (*cached == c->pmd / c->page && pc_populate(&m) == 0 &&
	    pc_pmd_mapped(m.addr, &pmd_bytes) == 0)
		*huge = pmd_bytes >= c->pmd;
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

/* Step 1.  Returns true if the range is huge afterwards. */
static bool
try_collapse(struct warm_ctx *c, uint64_t k)
{
	struct pc_map m;
	uint64_t pmd_bytes = 0;
	bool huge = false;
	int e;

	if (c->collapse_off || c->expect.collapse == TRI_NO ||
	    pc_map(c->fd, k * c->pmd, c->pmd, c->pmd, true, &m) != 0)
		return false;
	e = pc_collapse(&m);
	c->collapse_error = e;
	if (e == EINVAL)
		c->collapse_off = true;
	if (e == 0 && pc_populate(&m) == 0 &&
	    pc_pmd_mapped(m.addr, &pmd_bytes) == 0)
		huge = pmd_bytes >= c->pmd;
	pc_unmap(&m);
	return huge;
}

static void
note_mappers(struct warm_ctx *c, const long *pids, size_t n)
{
	size_t i, j;

	for (i = 0; i < n; i++) {
		for (j = 0; j < c->r->npids && c->r->pids[j] != pids[i]; j++)
			;
		if (j == c->r->npids && c->r->npids < WARM_MAX_PIDS)
			c->r->pids[c->r->npids++] = pids[i];
	}
}

/* Step 2.  Returns false (and says why) if the small folios must stay. */
static bool
drop_small(struct warm_ctx *c, uint64_t k, uint64_t cached)
{
	long pids[WARM_MAX_PIDS];
	size_t n, unreadable;
	struct pc_map m;
	uint64_t left = 0;

	n = pc_find_mappers(&c->st, k * c->pmd, c->pmd, pids, WARM_MAX_PIDS,
	    &unreadable);
	if (unreadable > c->r->unreadable)
		c->r->unreadable = unreadable;
	if (n > 0) {
		note_mappers(c, pids, n < WARM_MAX_PIDS ? n : WARM_MAX_PIDS);
		not_huge(c, WARM_BUSY);
		return false;
	}
	if (!c->synced && fdatasync(c->fd) != 0 && errno != EINVAL &&
	    errno != EROFS) {
		c->r->io_error = errno;
		not_huge(c, WARM_IO_ERROR);
		return false;
	}
	c->synced = true;
	pc_drop(c->fd, k * c->pmd, c->pmd);
	if (pc_map(c->fd, k * c->pmd, c->pmd, c->pmd, false, &m) == 0) {
		if (pc_resident(&m, c->page, &left) != 0)
			left = cached;
		pc_unmap(&m);
	}
	if (left > 0) {
		/* Mapped by a process we cannot see, locked, or dirty. */
		not_huge(c, WARM_BUSY);
		return false;
	}
	c->dropped += cached;
	return true;
}

/* Steps 3 and 4. */
static void
read_huge(struct warm_ctx *c, uint64_t k)
{
	struct pc_map m;
	uint64_t pmd_bytes = 0;
	int e;

	if (pc_map(c->fd, k * c->pmd, c->pmd, c->pmd, true, &m) != 0) {
		c->r->io_error = errno;
		not_huge(c, WARM_IO_ERROR);
		return;
	}
	if ((e = pc_populate(&m)) != 0) {
		c->r->io_error = e;
		not_huge(c, WARM_IO_ERROR);
	} else if (pc_pmd_mapped(m.addr, &pmd_bytes) == 0 &&
	    pmd_bytes >= c->pmd) {
		c->r->made_huge++;
	} else {
		not_huge(c, small_reason(c));
	}
	pc_unmap(&m);
}

/*
 * look_only: what warm_range_k would do to range k, from what is cached
 * and who maps it; nothing is read, dropped or collapsed.  Allocation can
 * still fail when warming for real: "would" is the best case.
 */
static int
look_range_k(struct warm_ctx *c, uint64_t k)
{
	long pids[WARM_MAX_PIDS];
	size_t n, unreadable;
	uint64_t cached = 0;

	if (c->expect.readahead == TRI_NO && c->expect.collapse != TRI_YES) {
		not_huge(c, WARM_NO_HUGE_FOLIOS);
		set_state(c, k, WINDOW_NO_FOLIOS);
		return 0;
	}
	if (pc_cached(c->fd, k * c->pmd, c->pmd, c->pmd, c->page, &cached))
		return errno;
	n = cached == 0 || c->expect.collapse == TRI_YES ? 0 :
	    pc_find_mappers(&c->st, k * c->pmd, c->pmd, pids, WARM_MAX_PIDS,
	    &unreadable);
	if (n > 0) {
		note_mappers(c, pids, n < WARM_MAX_PIDS ? n : WARM_MAX_PIDS);
		not_huge(c, WARM_BUSY);
		set_state(c, k, WINDOW_BUSY);
		return 0;
	}
	set_state(c, k, cached ? WINDOW_SMALL : WINDOW_UNCACHED);
	c->r->made_huge++;
	c->r->read_bytes += c->pmd;
	return 0;
}

static void
warm_range_do(struct warm_ctx *c, uint64_t k)
{
	uint64_t cached = 0;
	bool huge;

	/* Readahead for an earlier window may have done this one. */
	if (range_is_huge(c, k, &huge, &cached) == 0 && huge) {
		c->r->made_huge++;
		return;
	}
	if (try_collapse(c, k)) {
		c->r->made_huge++;
		return;
	}
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
warm_setup(struct warm_ctx *c, const char *path, struct fs_info *fs,
    char *err, size_t n)
{
	if (fstat(c->fd, &c->st) != 0 || fs_identify(path, fs) != 0) {
		snprintf(err, n, "%s", strerror(errno));
		return -1;
	}
	snprintf(c->r->fs_type, sizeof(c->r->fs_type), "%s", fs->type);
	return 0;
}

static void
warm_expect(struct warm_ctx *c, const struct fs_info *fs)
{
	fs_expect(fs, host_kernel_version(), host_ro_thp_for_fs(), &c->expect);
	c->r->fs_why = c->expect.why;
}

/* Per range: fully cached (full[k]); and the pages cached in the file. */
static void
cached_ranges(struct warm_ctx *c, const struct warm_plan *w, bool *full,
    uint64_t *pages)
{
	uint64_t k, n, npages = ((uint64_t)c->st.st_size + c->page - 1) /
	    c->page;
	bool all = file_resident(c, pages) == 0 && *pages >= npages;

	for (k = 0; k < w->nranges; k++)
		full[k] = warm_range(w, k) && (all || (pc_cached(c->fd,
		    k * c->pmd, c->pmd, c->pmd, c->page, &n) == 0 &&
		    n == c->pmd / c->page));
}

/*
 * Which ranges are huge already, before anything reads ahead, reading no
 * data: the fully cached ones are faulted in, in one mapping, and one read
 * of smaps says whether all of them are PMD-mapped; only where some are
 * not is each looked at alone.  The rest go to todo.
 */
static void
first_look(struct warm_ctx *c, const struct warm_plan *w, bool *todo,
    uint64_t *before)
{
	struct pc_map m = { 0 };
	uint64_t k, nfull = 0, cached, pmd_bytes = 0;
	uint64_t len = ((uint64_t)c->st.st_size + c->page - 1) / c->page *
	    c->page;
	bool *full = todo, all = false, huge;

	cached_ranges(c, w, full, before);
	/* The whole file in one mapping at a PMD-aligned address: its
	 * PMD-aligned ranges are PMD-aligned in memory too. */
	if (pc_map(c->fd, 0, len, c->pmd, false, &m) == 0) {
		/* All cached: one call faults it all in, reading nothing. */
		bool whole = *before * c->page >= len && pc_populate(&m) == 0;

		for (k = 0; k < w->nranges; k++)
			if (full[k] && (whole ||
			    pc_populate_at(&m, k * c->pmd, c->pmd) == 0))
				nfull++;
		all = nfull > 0 && pc_pmd_mapped(m.addr, &pmd_bytes) == 0 &&
		    pmd_bytes >= nfull * c->pmd;
		pc_unmap(&m);
	}
	for (k = 0; k < w->nranges; k++) {
		if (!warm_range(w, k))
			continue;
		if (full[k] && (all || (range_is_huge(c, k, &huge, &cached) ==
		    0 && huge))) {
			c->r->huge_before++;
			set_state(c, k, WINDOW_HUGE);
			todo[k] = false;
		} else {
			todo[k] = true;
		}
	}
}

/*
 * Warm the ranges of w in the file open as fd (path names it, to find its
 * file system), or with q->look_only only say what that would do.  Fills
 * q->states where given.  Returns 0 with *r filled, or -1 with a message
 * in err.
 */
int
warm_file(int fd, const char *path, const struct warm_plan *w,
    const struct warm_request *q, struct warm_result *r, char *err, size_t n)
{
	struct warm_ctx c = { .fd = fd, .pmd = w->pmd,
		.page = host_page_size(), .q = q, .r = r };
	struct fs_info fs;
	uint64_t k, before = 0, after = 0;
	bool *todo, dirty = false;
	int e = 0;

	memset(r, 0, sizeof(*r));
	r->windows = w->warmable + w->misaligned;
	r->not_huge[WARM_NOT_ALIGNED] = w->misaligned;
	r->base_aligned = w->base_aligned;
	r->look_only = q->look_only;
	r->pmd = w->pmd;
	if (q->states != NULL)
		memset(q->states, WINDOW_NONE, w->nranges);
	if (w->warmable == 0)
		return 0;
	if (warm_setup(&c, path, &fs, err, n) != 0)
		return -1;
	if ((todo = calloc(w->nranges, sizeof(*todo))) == NULL) {
		snprintf(err, n, "out of memory");
		return -1;
	}
	first_look(&c, w, todo, &before);
	after = before;
	/*
	 * Last range first: MADV_HUGEPAGE readahead reads the next PMD too,
	 * and racing it (small folios half read, pages locked) would leave
	 * ranges small; the next range is then always done already.
	 */
	for (k = w->nranges; k-- > 0 && e == 0;) {
		if (!todo[k])
			continue;
		if (!dirty)
			warm_expect(&c, &fs);
		dirty = true;
		if (q->look_only)
			e = look_range_k(&c, k);
		else
			warm_range_k(&c, k);
	}
	free(todo);
	if (e != 0) {
		snprintf(err, n, "cannot count its cached pages: %s",
		    strerror(e));
		return -1;
	}
	if (q->look_only)
		return 0;
	if (dirty)
		file_resident(&c, &after);
	r->read_bytes = (after + c.dropped > before ?
	    after + c.dropped - before : 0) * c.page;
	return 0;
}
