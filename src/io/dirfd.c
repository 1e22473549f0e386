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
 * Every other path the tool is given (a named file, a -f line, a walk's
 * argument, -o) is resolved here, one component at a time from "/" or the
 * working directory, each opened with O_PATH | O_NOFOLLOW: a symlink met on
 * the way is followed only when it belongs to root or to the caller (the
 * one rule, link_trusted), read from the descriptor of the link itself, so
 * that the link judged is the link followed.  Another user's symlink is
 * refused, named.  A /proc link on the way (/proc/PID/root) is followed
 * by the kernel, since its text is a path in another root (rs_proc_link).  Nothing is opened that could block (O_PATH).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>
#include <linux/magic.h>

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

/* The name a message quotes: s whole, or "..." and its last DIR_SHOWN
 * bytes (*dots says which); see shown_tail. */
const char *
path_shown(const char *s, const char **dots)
{
	struct shown q = shown_tail(s, strlen(s));

	*dots = q.dots;
	return q.s;
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
 * The directory a walk listed rel_dir in: its argument root resolved again
 * (as the walk resolved it) and checked to be the directory the walk
 * started at, then rel_dir below it without following anything.
 */
int
dir_open_walked(const char *root, dev_t dev, ino_t ino, const char *rel_dir,
    size_t len, char *err, size_t n)
{
	struct shown q = shown_tail(root, strlen(root));
	struct resolved r;
	struct stat st;
	int rfd, fd;

	if (path_whole(root, &r, err, n) != 0)
		return -1;
	rfd = r.fd;
	r.fd = -1;
	resolved_free(&r);
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

/* --- the resolver: every path the tool is given --- */

#define MAX_LINKS 40	/* the kernel's own limit on a lookup */

/*
 * The one rule for which symlinks a run follows, in every mode and on
 * every component: root's (/lib -> usr/lib) and the caller's own.  Any
 * other user's is refused, wherever it is: what another user can name is
 * not what the caller named.
 */
static bool
link_trusted(const struct stat *link)
{
	return link->st_uid == 0 || link->st_uid == geteuid();
}

struct rs {
	int fd;		/* what is resolved so far (O_PATH): a directory */
	char *done;	/* its path, "" for "/"; no symlink in it */
	size_t done_len;
	char *todo;	/* the path left, after links were put in */
	size_t at;	/* the next component starts at todo[at] */
	unsigned links;	/* followed so far */
	const char *base;	/* parent mode: the last name, in done */
	char *err;
	size_t n;
};

static int
rs_error(struct rs *s, const char *name, int e)
{
	struct shown q = shown_tail(s->done, s->done_len);

	/* A missing name is the user's news; else say where. */
	if (e == ENOENT)
		return error_text(s->err, s->n, "%s", strerror(e));
	return error_text(s->err, s->n, "%s%.*s/%s: %s", q.dots, q.len, q.s,
	    name, strerror(e));
}

static int
rs_append(struct rs *s, const char *name)
{
	size_t len = strlen(name);
	char *grown = realloc(s->done, s->done_len + len + 2);

	if (grown == NULL)
		return error_text(s->err, s->n, "out of memory");
	s->done = grown;
	s->done[s->done_len] = '/';
	memcpy(s->done + s->done_len + 1, name, len + 1);
	s->done_len += len + 1;
	return 0;
}

/* Make fd, reached by name, the walk's place (fd is taken, either way). */
static int
rs_enter(struct rs *s, const char *name, int fd)
{
	if (rs_append(s, name) != 0) {
		close(fd);
		return -1;
	}
	close(s->fd);
	s->fd = fd;
	return 0;
}

static int
rs_start(struct rs *s, const char *path)
{
	bool abs = path[0] == '/';

	s->todo = strdup(path);
	s->done = abs ? strdup("") : getcwd(NULL, 0);
	if (s->todo == NULL || s->done == NULL)
		return error_text(s->err, s->n, "%s", s->done == NULL && !abs ?
		    "the working directory: cannot name it" : "out of memory");
	if (strcmp(s->done, "/") == 0)
		s->done[0] = '\0';
	s->done_len = strlen(s->done);
	s->fd = open(abs ? "/" : ".", DIR_FLAGS);
	if (s->fd < 0)
		return error_text(s->err, s->n, "%s: %s", abs ? "/" : ".",
		    strerror(errno));
	return 0;
}

/* The next component: its length (0 at the end); last: nothing after. */
static size_t
rs_next(struct rs *s, const char **c, bool *last)
{
	const char *p = s->todo + s->at, *q;
	size_t len;

	while (*p == '/')
		p++;
	len = strcspn(p, "/");
	for (q = p + len; *q == '/'; q++)
		;
	*c = p;
	*last = *q == '\0';
	s->at = (size_t)(p - s->todo) + len;
	return len;
}

/* "..": the parent of the directory reached (of "/", "/"). */
static int
rs_up(struct rs *s)
{
	int fd = openat(s->fd, "..", DIR_FLAGS);
	char *slash;

	if (fd < 0)
		return rs_error(s, "..", errno);
	close(s->fd);
	s->fd = fd;
	if ((slash = strrchr(s->done, '/')) != NULL) {
		*slash = '\0';
		s->done_len = (size_t)(slash - s->done);
	}
	return 0;
}

/* One more link to follow: refused past the limit or for its owner. */
static int
rs_may_follow(struct rs *s, const char *name, const struct stat *st)
{
	struct shown q = shown_tail(s->done, s->done_len);

	if (++s->links > MAX_LINKS)
		return rs_error(s, name, ELOOP);
	if (link_trusted(st))
		return 0;
	return error_text(s->err, s->n, "%s%.*s/%s is a symlink of uid %ju, "
	    "neither root's nor the caller's; not followed", q.dots, q.len,
	    q.s, name, (uintmax_t)st->st_uid);
}

/* Is the link lfd one of /proc's (/proc/PID/root, cwd, fd/N)? */
static bool
is_proc_link(int lfd)
{
	struct statfs sfs;

	return fstatfs(lfd, &sfs) == 0 && sfs.f_type == PROC_SUPER_MAGIC;
}

/*
 * A /proc link to a directory on the way (/proc/PID/root, /proc/PID/cwd):
 * its text is a path in that process's root and mount namespace, not in
 * this one's, so it is followed by the kernel, as its own lookup would,
 * and named as given: /proc/PID/root/usr/bin/x reaches the file in that
 * process's root (a container's, another mount namespace's), never the
 * file at /usr/bin/x here.
 */
static int
rs_proc_link(struct rs *s, const char *name, bool last,
    const struct stat *st)
{
	int fd;

	if (rs_may_follow(s, name, st) != 0)
		return -1;
	fd = openat(s->fd, name, O_PATH | O_CLOEXEC | (last ? 0 : O_DIRECTORY));
	if (fd < 0)
		return rs_error(s, name, errno);
	return rs_enter(s, name, fd);
}

/* The link lfd (name, st): refused, or its target put before the rest. */
static int
rs_follow(struct rs *s, int lfd, const char *name, const struct stat *st)
{
	char target[PATH_MAX], *todo;
	const char *rest = s->todo + s->at;
	ssize_t len;

	if (rs_may_follow(s, name, st) != 0)
		return -1;
	len = readlinkat(lfd, "", target, sizeof(target) - 1);
	if (len < 0 || len == 0)
		return rs_error(s, name, len < 0 ? errno : ENOENT);
	target[len] = '\0';
	if (asprintf(&todo, "%s%s", target, rest) < 0)
		return error_text(s->err, s->n, "out of memory");
	free(s->todo);
	s->todo = todo;
	s->at = 0;
	if (target[0] != '/')
		return 0;
	close(s->fd);
	s->done[0] = '\0';
	s->done_len = 0;
	if ((s->fd = open("/", DIR_FLAGS)) < 0)
		return error_text(s->err, s->n, "/: %s", strerror(errno));
	return 0;
}

/* parent mode: stop at name, the last component, in the directory. */
static int
rs_stop(struct rs *s, const char *name)
{
	if (rs_append(s, name) != 0)
		return -1;
	s->base = s->done + s->done_len - strlen(name);
	return 1;
}

/* One name: stepped into, followed, or (parent mode, last) stopped at. */
static int
rs_name(struct rs *s, const char *name, bool last, bool whole)
{
	struct stat st;
	int fd = openat(s->fd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC), rc;

	if (fd < 0 && last && !whole && errno == ENOENT)
		return rs_stop(s, name);
	if (fd < 0)
		return rs_error(s, name, errno);
	if (fstat(fd, &st) != 0)
		rc = rs_error(s, name, errno);
	else if (S_ISLNK(st.st_mode) && (!last || whole) && is_proc_link(fd))
		rc = rs_proc_link(s, name, last, &st);
	else if (S_ISLNK(st.st_mode))
		rc = rs_follow(s, fd, name, &st);
	else if (last && !whole)
		rc = rs_stop(s, name);
	else if (!last && !S_ISDIR(st.st_mode))
		rc = rs_error(s, name, ENOTDIR);
	else
		rc = 0;
	if (rc != 0 || S_ISLNK(st.st_mode)) {
		close(fd);
		return rc;
	}
	return rs_enter(s, name, fd);
}

static int
rs_run(struct rs *s, bool whole)
{
	const char *c;
	char name[NAME_MAX + 1];
	bool last;
	size_t len;
	int rc;

	while ((len = rs_next(s, &c, &last)) != 0) {
		if (len == 1 && c[0] == '.')
			continue;
		if (len == 2 && memcmp(c, "..", 2) == 0) {
			if (rs_up(s) != 0)
				return -1;
			continue;
		}
		if (len > NAME_MAX) {
			memcpy(name, c, NAME_MAX);
			name[NAME_MAX] = '\0';
			return rs_error(s, name, ENAMETOOLONG);
		}
		memcpy(name, c, len);
		name[len] = '\0';
		if ((rc = rs_name(s, name, last, whole)) != 0)
			return rc < 0 ? -1 : 0;
	}
	if (!whole)
		return error_text(s->err, s->n, "not a file name");
	return 0;
}

static int
resolve(const char *path, bool whole, struct resolved *r, char *err,
    size_t n)
{
	struct rs s = { .fd = -1, .err = err, .n = n };

	*r = (struct resolved){ .fd = -1 };
	if (rs_start(&s, path) != 0 || rs_run(&s, whole) != 0) {
		if (s.fd >= 0)
			close(s.fd);
		free(s.done);
		free(s.todo);
		return -1;
	}
	free(s.todo);
	if (s.done_len == 0 && (free(s.done), s.done = strdup("/")) == NULL) {
		close(s.fd);
		return error_text(err, n, "out of memory");
	}
	*r = (struct resolved){ .fd = s.fd, .path = s.done, .base = s.base };
	return 0;
}

/*
 * The directory holding the file path names (O_PATH), r->path the file's
 * path with every symlink resolved and r->base its name there; the file
 * itself may be missing (-o).  A symlink as the last name is followed by
 * the same rule.
 */
int
path_parent(const char *path, struct resolved *r, char *err, size_t n)
{
	return resolve(path, false, r, err, n);
}

/* What path names, every component resolved (O_PATH; r->base NULL). */
int
path_whole(const char *path, struct resolved *r, char *err, size_t n)
{
	return resolve(path, true, r, err, n);
}

void
resolved_free(struct resolved *r)
{
	if (r->fd >= 0)
		close(r->fd);
	free(r->path);
	*r = (struct resolved){ .fd = -1 };
}
