/* SPDX-License-Identifier: BSD-2-Clause */
/* SPDX-FileCopyrightText: 2026 the elfthp-align authors */
/*
 * -f FILE and -0: paths read from a list, so that a configuration file
 * (/etc/elfthp-align/paths, read by the unit, the timer and the APT hook)
 * or `find ... -print0` can name them.  Relative paths are taken from the
 * current directory, as xargs does, except in a list file that root reads:
 * root's lists (the paths file, read by the unit, the timer and the APT
 * hook from whatever directory they were started in) take absolute paths
 * only, and a relative line refuses the list, naming it and the line.
 *
 * A line list: one path a line; blank lines and lines whose first non-blank
 * character is '#' are skipped, and blanks around a path are trimmed.  A NUL
 * byte in a line list is refused: it means the list wanted -0.  A -0 list:
 * NUL-terminated paths taken as they are (no comments, no trimming), empty
 * ones skipped, the last one's terminator optional.
 *
 * A list is untrusted input of unknown size (/dev/zero, a FIFO, a file of
 * one endless line): a record holds at most LIST_RECORD_MAX bytes (no path
 * is longer), more than LIST_EMPTY_RUN empty records in a row end the
 * read, and a named FIFO is waited for at most LIST_FIFO_WAIT_S seconds
 * until a writer opens it.  Each is an error naming the list: a list that
 * cannot be read is never taken for an empty one.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "elfthp_cli.h"

static bool
is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r';
}

/* Takes a copy of path.  0, or -1 with errno set (ENOMEM). */
int
path_list_add(struct path_list *l, const char *path)
{
	char *copy;

	if (l->n == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 16;
		char **v = reallocarray(l->v, cap, sizeof(*v));

		if (v == NULL)
			return -1;
		l->v = v;
		l->cap = cap;
	}
	if ((copy = strdup(path)) == NULL)
		return -1;
	l->v[l->n++] = copy;
	return 0;
}

void
path_list_free(struct path_list *l)
{
	while (l->n > 0)
		free(l->v[--l->n]);
	free(l->v);
	*l = (struct path_list){ .v = NULL };
}

/* The longest record taken, blanks and comment included: a path is shorter. */
#define LIST_RECORD_MAX PATH_MAX
/* Empty records in a row that end the read: /dev/zero with -0 is endless. */
#define LIST_EMPTY_RUN 4096
/* How long a named FIFO is waited for until a writer opens it. */
#define LIST_FIFO_WAIT_S 5

struct list_reader {
	FILE *f;
	const char *shown;	/* the list as messages name it */
	const char *unit;	/* "line" or "record" (-0) */
	int delim;
	size_t number;		/* of the record last read */
	size_t empty_run;	/* empty records just before it */
	bool absolute;		/* a file root reads: absolute paths only */
	char rec[LIST_RECORD_MAX + 1];
};

/*
 * Reads the next record into r->rec, NUL-terminated, its delimiter
 * dropped.  1: a record; 0: the end of the list; -1: err says why (a read
 * error, a NUL byte in a line list, a record over LIST_RECORD_MAX).
 */
static int
record_next(struct list_reader *r, char *err, size_t errlen)
{
	size_t len = 0;
	int c;

	errno = 0;
	while ((c = getc_unlocked(r->f)) != EOF && c != r->delim) {
		if (len == 0)
			r->number++;
		if (c == '\0') {
			snprintf(err, errlen, "%s: line %zu holds a NUL byte (for "
			    "a NUL-separated list, give -0)", r->shown, r->number);
			return -1;
		}
		if (len == LIST_RECORD_MAX) {
			snprintf(err, errlen, "%s: %s %zu is longer than %d bytes "
			    "(no path is)", r->shown, r->unit, r->number,
			    LIST_RECORD_MAX);
			return -1;
		}
		r->rec[len++] = (char)c;
	}
	if (c == EOF && ferror(r->f)) {
		snprintf(err, errlen, "%s: cannot read: %s", r->shown,
		    strerror(errno ? errno : EIO));
		return -1;
	}
	if (c == EOF && len == 0)
		return 0;
	if (len == 0)
		r->number++;
	r->rec[len] = '\0';
	return 1;
}

/*
 * One record of a line list: trimmed in place; *keep false for a blank line
 * or a comment.
 */
static char *
line_trim(char *rec, bool *keep)
{
	char *end;

	while (*rec != '\0' && is_blank(*rec))
		rec++;
	end = rec + strlen(rec);
	while (end > rec && is_blank(end[-1]))
		*--end = '\0';
	*keep = *rec != '\0' && *rec != '#';
	return rec;
}

/* 0, or -1 when too many empty records came in a row (err says so). */
static int
count_empty(struct list_reader *r, const char *path, char *err,
    size_t errlen)
{
	r->empty_run = *path == '\0' ? r->empty_run + 1 : 0;
	if (r->empty_run <= LIST_EMPTY_RUN)
		return 0;
	snprintf(err, errlen, "%s: %s %zu: more than %d empty %ss in a row "
	    "(not a path list?)", r->shown, r->unit, r->number, LIST_EMPTY_RUN,
	    r->unit);
	return -1;
}

static int
read_records(struct path_list *l, struct list_reader *r, bool nul_lists,
    char *err, size_t errlen)
{
	char *path;
	bool keep;
	int got;

	while ((got = record_next(r, err, errlen)) > 0) {
		path = r->rec;
		keep = *path != '\0';
		if (!nul_lists)
			path = line_trim(path, &keep);
		if (count_empty(r, path, err, errlen) != 0)
			return -1;
		if (keep && r->absolute && path[0] != '/') {
			snprintf(err, errlen, "%s: %s %zu: %s is a relative path; "
			    "a list root reads takes absolute paths only (its "
			    "working directory may be anyone's)", r->shown,
			    r->unit, r->number, path);
			return -1;
		}
		if (keep && path_list_add(l, path) != 0) {
			snprintf(err, errlen, "%s: %s", r->shown, strerror(errno));
			return -1;
		}
	}
	return got;
}

/*
 * A named FIFO was opened without waiting for a writer (O_NONBLOCK): wait
 * for one, a while.  Until a writer opens it, poll sees neither data nor
 * a hang-up.  0, or -1 with err set.
 */
static int
fifo_wait_writer(int fd, const char *file, char *err, size_t errlen)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	int n;

	while ((n = poll(&p, 1, LIST_FIFO_WAIT_S * 1000)) < 0 && errno == EINTR)
		;
	if (n > 0)
		return 0;
	if (n == 0)
		snprintf(err, errlen, "%s: cannot read: no writer opened the "
		    "FIFO within %d s", file, LIST_FIFO_WAIT_S);
	else
		snprintf(err, errlen, "%s: cannot read: %s", file,
		    strerror(errno));
	return -1;
}

/*
 * Checks what fd (the list, opened by list_open) is, and waits for a
 * FIFO's writer; then reads block again.  0, or -1 with err set.
 */
static int
list_check_fd(int fd, bool is_stdin, const char *shown, char *err,
    size_t errlen)
{
	struct stat st;

	if (fstat(fd, &st) != 0) {
		snprintf(err, errlen, "%s: cannot read: %s", shown,
		    strerror(errno));
		return -1;
	}
	if (S_ISDIR(st.st_mode)) {
		snprintf(err, errlen, "%s: cannot read: a directory is not a "
		    "path list", shown);
		return -1;
	}
	if (is_stdin)
		return 0;
	if (S_ISFIFO(st.st_mode) &&
	    fifo_wait_writer(fd, shown, err, errlen) != 0)
		return -1;
	if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK) != 0) {
		snprintf(err, errlen, "%s: cannot read: %s", shown,
		    strerror(errno));
		return -1;
	}
	return 0;
}

/* The list as a stream, or NULL with err set.  The caller fcloses it. */
static FILE *
list_open(const char *file, bool is_stdin, const char *shown, char *err,
    size_t errlen)
{
	int fd = is_stdin ? STDIN_FILENO :
	    open(file, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	FILE *f;

	if (fd < 0) {
		snprintf(err, errlen, "%s: cannot open the path list: %s", file,
		    strerror(errno));
		return NULL;
	}
	if (list_check_fd(fd, is_stdin, shown, err, errlen) != 0) {
		if (!is_stdin)
			close(fd);
		return NULL;
	}
	if (is_stdin)
		return stdin;
	if ((f = fdopen(fd, "r")) == NULL) {
		snprintf(err, errlen, "%s: %s", shown, strerror(errno));
		close(fd);
	}
	return f;
}

/*
 * Appends the paths listed in file ("-": standard input) to l.  0, or -1
 * with a message naming the file in err; l then holds what was read before
 * the failure, and the caller frees it either way.
 */
int
path_list_read(struct path_list *l, const char *file,
    const struct options *o, char *err, size_t errlen)
{
	bool is_stdin = strcmp(file, "-") == 0;
	struct list_reader *r;
	int rc;

	if ((r = calloc(1, sizeof(*r))) == NULL) {
		snprintf(err, errlen, "%s: %s", file, strerror(errno));
		return -1;
	}
	r->shown = is_stdin ? "standard input" : file;
	r->unit = o->nul_lists ? "record" : "line";
	r->delim = o->nul_lists ? '\0' : '\n';
	r->absolute = !is_stdin && geteuid() == 0;
	if ((r->f = list_open(file, is_stdin, r->shown, err, errlen)) == NULL) {
		free(r);
		return -1;
	}
	rc = read_records(l, r, o->nul_lists, err, errlen);
	if (!is_stdin)
		fclose(r->f);
	free(r);
	return rc;
}
