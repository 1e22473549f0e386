/* SPDX-License-Identifier: BSD-2-Clause */
/* SPDX-FileCopyrightText: 2026 the elfthp-align authors */
/*
 * -f FILE and -0: paths read from a list, so that a configuration file
 * (/etc/elfthp-align/paths, read by the unit, the timer and the APT hook)
 * or `find ... -print0` can name them.  Relative paths are taken from the
 * current directory, as xargs does.
 *
 * A line list: one path a line; blank lines and lines whose first non-blank
 * character is '#' are skipped, and blanks around a path are trimmed.  A NUL
 * byte in a line list is refused: it means the list wanted -0.  A -0 list:
 * NUL-terminated paths taken as they are (no comments, no trimming), empty
 * ones skipped, the last one's terminator optional.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/*
 * One record of a line list: trimmed in place; *keep false for a blank line
 * or a comment.  -1 if it holds a NUL byte (len counts past it).
 */
static int
line_record(char *rec, size_t len, char **path, bool *keep)
{
	char *end;

	if (strlen(rec) != len)
		return -1;
	while (*rec != '\0' && is_blank(*rec))
		rec++;
	end = rec + strlen(rec);
	while (end > rec && is_blank(end[-1]))
		*--end = '\0';
	*keep = *rec != '\0' && *rec != '#';
	*path = rec;
	return 0;
}

static int
read_records(struct path_list *l, FILE *f, const struct options *o,
    const char *shown, char *err, size_t errlen)
{
	char *buf = NULL, *path;
	size_t cap = 0, lineno = 0;
	ssize_t got;
	bool keep;
	int rc = 0;

	errno = 0;
	while ((got = getdelim(&buf, &cap, o->nul_lists ? '\0' : '\n', f)) > 0) {
		lineno++;
		if (buf[got - 1] == (o->nul_lists ? '\0' : '\n'))
			buf[--got] = '\0';
		path = buf;
		keep = got > 0;
		if (!o->nul_lists &&
		    line_record(buf, (size_t)got, &path, &keep) != 0) {
			snprintf(err, errlen, "%s: line %zu holds a NUL byte "
			    "(for a NUL-separated list, give -0)", shown, lineno);
			rc = -1;
			break;
		}
		if (keep && path_list_add(l, path) != 0) {
			snprintf(err, errlen, "%s: %s", shown, strerror(errno));
			rc = -1;
			break;
		}
		errno = 0;
	}
	if (rc == 0 && ferror(f)) {
		snprintf(err, errlen, "%s: cannot read: %s", shown,
		    strerror(errno ? errno : EIO));
		rc = -1;
	}
	free(buf);
	return rc;
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
	const char *shown = is_stdin ? "standard input" : file;
	FILE *f = is_stdin ? stdin : fopen(file, "re");
	int rc;

	if (f == NULL) {
		snprintf(err, errlen, "%s: cannot open the path list: %s", file,
		    strerror(errno));
		return -1;
	}
	rc = read_records(l, f, o, shown, err, errlen);
	if (!is_stdin)
		fclose(f);
	return rc;
}
