/* SPDX-License-Identifier: BSD-2-Clause */
/* SPDX-FileCopyrightText: 2026 the elfthp-align authors */
/*
 * The directory a file is worked on through.  Every step after this one
 * (open, lock check, temporary file, rename, unlink, sweep, fsync of the
 * directory) is relative to the descriptor opened here, so that a name
 * resolved once is not resolved again after another user changed it.
 *
 * A file found by a walk (-r) is reached from the argument the walk
 * started at, one component at a time with O_NOFOLLOW, as the walk itself
 * went: a directory swapped for a symlink since it was listed is refused,
 * never followed (the effect of openat2's RESOLVE_BENEATH |
 * RESOLVE_NO_SYMLINKS, on every kernel; a walk's names hold no "..").
 * A name that realpath resolved is reached the same way from "/", so that
 * the directory opened is the one realpath saw.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "elfthp_io.h"

/*
 * O_PATH: reaching a directory needs only the search permission the
 * kernel's own lookup needs (a 0711 directory on the way is fine); the
 * *at calls take such a descriptor, and what needs more (listing the
 * directory, fsync) opens "." below it.
 */
#define DIR_FLAGS (O_PATH | O_DIRECTORY | O_CLOEXEC)

/*
 * A directory's name near PATH_MAX (a deep tree) would fill the caller's
 * error buffer (512 bytes in process.c) and cut off the problem itself:
 * messages quote only its last DIR_SHOWN bytes, after "...".
 */
#define DIR_SHOWN 200

struct shown {
	const char *dots;	/* "..." where the start was left out */
	int len;
	const char *s;
};

/* s[0..len) as a message quotes it: "%s%.*s", q.dots, q.len, q.s. */
static struct shown
shown_tail(const char *s, size_t len)
{
	struct shown q = { .dots = "", .len = (int)len, .s = s };

	if (len <= DIR_SHOWN)
		return q;
	q.dots = "...";
	q.s = s + len - DIR_SHOWN;
	/* Start at a character, not inside a UTF-8 sequence. */
	while (q.s < s + len && ((unsigned char)*q.s & 0xc0) == 0x80)
		q.s++;
	q.len = (int)(s + len - q.s);
	return q;
}

static int
component_error(const char *comp, size_t len, int e, char *err, size_t n)
{
	if (e == ELOOP || e == ENOTDIR)
		return error_text(err, n, "%.*s is no longer a directory "
		    "(replaced by a symlink or a file since it was listed); "
		    "not followed", (int)len, comp);
	return error_text(err, n, "%.*s: %s", (int)len, comp, strerror(e));
}

/*
 * rel[0..len), '/'-separated directory names below start: each opened
 * with O_NOFOLLOW.  A new descriptor, or -1 with the reason in err.
 */
int
dir_open_beneath(int start, const char *rel, size_t len, char *err, size_t n)
{
	const char *p = rel, *end = rel + len;
	int fd = openat(start, ".", DIR_FLAGS), next;

	if (fd < 0)
		return error_text(err, n, "%s", strerror(errno));
	while (p < end) {
		const char *slash = memchr(p, '/', (size_t)(end - p));
		size_t clen = slash ? (size_t)(slash - p) : (size_t)(end - p);
		char comp[NAME_MAX + 1];

		if (clen == 0 || (clen == 1 && p[0] == '.')) {
			p += clen + 1;
			continue;
		}
		if (clen > NAME_MAX || (clen == 2 && memcmp(p, "..", 2) == 0)) {
			struct shown q = shown_tail(p, clen);

			close(fd);
			return error_text(err, n, "%s%.*s: not a name below the "
			    "directory", q.dots, q.len, q.s);
		}
		memcpy(comp, p, clen);
		comp[clen] = '\0';
		next = openat(fd, comp, DIR_FLAGS | O_NOFOLLOW);
		if (next < 0) {
			int e = errno;

			close(fd);
			return component_error(p, clen, e, err, n);
		}
		close(fd);
		fd = next;
		p += clen + 1;
	}
	return fd;
}

/*
 * The directory a walk listed rel_dir in: its argument root opened again
 * (as the walk opened it) and checked to be the directory the walk
 * started at, then rel_dir below it without following anything.
 */
int
dir_open_walked(const char *root, dev_t dev, ino_t ino, const char *rel_dir,
    size_t len, char *err, size_t n)
{
	struct shown q = shown_tail(root, strlen(root));
	struct stat st;
	int rfd = open(root, DIR_FLAGS), fd;

	if (rfd < 0)
		return error_text(err, n, "%s%.*s: %s", q.dots, q.len, q.s,
		    strerror(errno));
	if (fstat(rfd, &st) != 0 || st.st_dev != dev || st.st_ino != ino) {
		close(rfd);
		return error_text(err, n, "%s%.*s was replaced by another "
		    "directory since the walk; not followed", q.dots, q.len,
		    q.s);
	}
	fd = dir_open_beneath(rfd, rel_dir, len, err, n);
	close(rfd);
	return fd;
}

/*
 * The directory path names a file in, and the file's name there (*base
 * points into path).  exact: path was resolved (realpath), so nothing on
 * the way may be a symlink now; else the directory is found as the user
 * named it, symlinks and all.
 */
int
dir_open_parent(const char *path, bool exact, const char **base, char *err,
    size_t n)
{
	const char *slash = strrchr(path, '/');
	size_t len = slash ? (size_t)(slash - path) : 0;
	char *dir;
	int fd, top;

	*base = slash ? slash + 1 : path;
	if (**base == '\0')
		return error_text(err, n, "not a file name");
	if (exact) {
		top = path[0] == '/' ? open("/", DIR_FLAGS) : AT_FDCWD;
		if (path[0] == '/' && top < 0)
			return error_text(err, n, "/: %s", strerror(errno));
		fd = dir_open_beneath(top, path, len, err, n);
		if (top >= 0)
			close(top);
		return fd;
	}
	/* "prog", "/prog", "dir/prog" */
	if ((dir = strndup(slash ? path : ".", len ? len : 1)) == NULL)
		return error_text(err, n, "out of memory");
	if ((fd = open(dir, DIR_FLAGS)) < 0) {
		struct shown q = shown_tail(dir, strlen(dir));

		error_text(err, n, "%s%.*s: %s", q.dots, q.len, q.s,
		    strerror(errno));
	}
	free(dir);
	return fd;
}
