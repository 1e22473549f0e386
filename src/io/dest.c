/* SPDX-License-Identifier: BSD-2-Clause */
/* SPDX-FileCopyrightText: 2026 the elfthp-align authors */
/*
 * Where a run reads and writes, and who may be there: the in-place lock
 * that makes two runs on one file take turns, the check that the name
 * still points at the file locked, and the rules for -o's destination
 * (through a symlink, never over the input, never through or over what
 * another user planted in a sticky world-writable directory).  Failures
 * are described in the caller's buffer (error_text); waiting for the lock
 * is said at once on the notes stream, since the per-file output comes
 * only at the end.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "elfthp_io.h"

#define LOCK_TRIES 10

static bool
same_file(const struct stat *a, const struct stat *b)
{
	return a->st_dev == b->st_dev && a->st_ino == b->st_ino;
}

/*
 * The in-place lock, which another elfthp-align on the same file holds
 * while it rewrites it; given up after lock_timeout seconds, so that a
 * post-link step never hangs silently.
 */
static int
lock_input(const struct open_request *r, int fd, char *err, size_t n)
{
	const struct timespec tick = { 0, 100 * 1000 * 1000 };
	unsigned long waited_ms = 0, limit_ms = r->lock_timeout * 1000ul;

	for (;;) {
		if (flock(fd, LOCK_EX | LOCK_NB) == 0)
			return 0;
		if (errno != EWOULDBLOCK && errno != EINTR)
			return error_text(err, n, "lock: %s", strerror(errno));
		if (waited_ms >= limit_ms)
			return error_text(err, n, "another elfthp-align has "
			    "been rewriting it for %lu s; giving up "
			    "(--lock-timeout)", waited_ms / 1000);
		if (waited_ms == 500)
			diag(r->notes, r->name, "waiting for another "
			    "elfthp-align on it (up to %u s)", r->lock_timeout);
		nanosleep(&tick, NULL);
		waited_ms += 100;
	}
}

static int
stat_at(const struct open_request *r, struct stat *st)
{
	return fstatat(r->dfd, r->base, st, r->nofollow ? AT_SYMLINK_NOFOLLOW :
	    0);
}

/*
 * One try: a regular file, locked when asked.  fd is -1 on failure.
 * Devices and FIFOs are refused before open() can act on them, and
 * O_NONBLOCK keeps one swapped in meanwhile from blocking the open.
 */
static int
open_once(const struct open_request *r, int *fd, struct stat *st, char *err,
    size_t n)
{
	struct stat now;

	if (stat_at(r, &now) != 0)
		return error_text(err, n, "%s", strerror(errno));
	/* A symlink is refused by O_NOFOLLOW below, the one test of it. */
	if (!S_ISREG(now.st_mode) && !(r->nofollow && S_ISLNK(now.st_mode)))
		return error_text(err, n, "not a regular file");
	*fd = openat(r->dfd, r->base, O_RDONLY | O_NONBLOCK | O_NOCTTY |
	    O_CLOEXEC | (r->nofollow ? O_NOFOLLOW : 0));
	if (*fd < 0 && errno == ELOOP && r->nofollow)
		return error_text(err, n, "became a symlink since it was "
		    "found; not followed");
	if (*fd < 0)
		return error_text(err, n, "%s", strerror(errno));
	if ((r->lock && lock_input(r, *fd, err, n) != 0) ||
	    (fstat(*fd, st) != 0 && error_text(err, n, "%s",
	    strerror(errno))) || (!S_ISREG(st->st_mode) &&
	    error_text(err, n, "not a regular file"))) {
		close(*fd);
		*fd = -1;
		return -1;
	}
	return 0;
}

/*
 * Open the input.  For an in-place rewrite, take an exclusive lock and make
 * sure the name still points at the locked file, so that two runs on one
 * file take turns and the second finds the first one's result.
 */
int
dest_open_input(const struct open_request *r, int *fd, struct stat *st,
    char *err, size_t n)
{
	struct stat now;
	int tries;

	for (tries = 0; tries < LOCK_TRIES; tries++) {
		if (open_once(r, fd, st, err, n) != 0)
			return -1;
		if (!r->lock || (stat_at(r, &now) == 0 && same_file(&now, st)))
			return 0;
		close(*fd);
		*fd = -1;
	}
	return error_text(err, n, "keeps being replaced by another process");
}

/*
 * In a sticky world-writable directory (/tmp), -o never writes over a
 * file another user put there: the rule of fs.protected_regular, for
 * root too.  The caller's files, and the directory owner's, are fine.
 * (Through a symlink: the resolver's one rule, io/dirfd.c.)
 */
static int
refuse_planted(const char *output, const struct resolved *r,
    const struct stat *l, char *err, size_t n)
{
	struct stat d;

	if (fstat(r->fd, &d) != 0)
		return error_text(err, n, "%s: %s", output, strerror(errno));
	if (!(d.st_mode & S_ISVTX) || !(d.st_mode & S_IWOTH) ||
	    l->st_uid == geteuid() || l->st_uid == d.st_uid)
		return 0;
	return error_text(err, n, "%s: %s is a file of uid %ju in a sticky "
	    "world-writable directory; not writing over it", output, r->path,
	    (uintmax_t)l->st_uid);
}

/* The file -o names, if there: a regular file, not another user's in a
 * sticky directory, never the input itself. */
static int
output_found(const char *output, const struct stat *input,
    const struct resolved *r, char *err, size_t n)
{
	struct stat st;

	if (fstatat(r->fd, r->base, &st, AT_SYMLINK_NOFOLLOW) != 0)
		return errno == ENOENT ? 0 : error_text(err, n, "%s: %s",
		    output, strerror(errno));
	if (!S_ISREG(st.st_mode))
		return error_text(err, n, "%s: not a regular file", output);
	if (same_file(&st, input))
		return error_text(err, n, "%s is the input itself; leave out "
		    "-o to rewrite in place", output);
	return refuse_planted(output, r, &st, err, n);
}

/* Where -o writes: its directory and name, resolved; the caller frees. */
int
dest_output_path(const char *output, const struct stat *input,
    struct resolved *final, char *err, size_t n)
{
	char why[400];
	const char *dots, *shown = path_shown(output, &dots);

	if (path_parent(output, final, why, sizeof(why)) != 0)
		return error_text(err, n, "%s%s: %s", dots, shown, why);
	if (output_found(output, input, final, err, n) != 0) {
		resolved_free(final);
		return -1;
	}
	return 0;
}
