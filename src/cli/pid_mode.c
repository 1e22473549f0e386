/* SPDX-License-Identifier: BSD-2-Clause */
/* SPDX-FileCopyrightText: 2026 the elfthp-align authors */
/*
 * --pid: io/pid_scan.c measures every process asked for and pid_verdict.c
 * decides each mapped file; here the notes the scan met are printed, the
 * rows sorted and grouped into one line per file, and the summary made.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "elfthp_cli.h"

/* Most bytes to gain first; then one file's rows together, by status. */
static int
by_gain(const void *a, const void *b)
{
	const struct pid_row *x = a, *y = b;
	int c;

	if (x->verdict.missed_bytes != y->verdict.missed_bytes)
		return x->verdict.missed_bytes > y->verdict.missed_bytes ? -1 : 1;
	if ((c = strcmp(x->path, y->path)) != 0 ||
	    (c = strcmp(x->dev, y->dev)) != 0)
		return c;
	if (x->inode != y->inode)
		return x->inode < y->inode ? -1 : 1;
	if (x->verdict.status != y->verdict.status)
		return (int)x->verdict.status - (int)y->verdict.status;
	if (x->verdict.rest != y->verdict.rest)
		return (int)x->verdict.rest - (int)y->verdict.rest;
	if (x->facts.huge != y->facts.huge)
		return x->facts.huge < y->facts.huge ? -1 : 1;
	return x->pid < y->pid ? -1 : x->pid > y->pid;
}

static bool
same_file(const struct pid_row *a, const struct pid_row *b)
{
	return a->inode == b->inode && strcmp(a->dev, b->dev) == 0;
}

/* Rows that print as one line: the same file, status and huge windows. */
static bool
same_group(const struct pid_row *a, const struct pid_row *b)
{
	return same_file(a, b) && a->verdict.status == b->verdict.status &&
	    a->verdict.rest == b->verdict.rest && a->facts.huge == b->facts.huge;
}

/*
 * Each file once, at its first row: its most huge bytes and its most
 * missed over all its rows (a file mapped huge by one process and small
 * by another may come first by gain in a small row); its fix per line.
 */
static void
add_file(struct pid_summary *sum, const struct pid_row *rows, size_t n,
    size_t from)
{
	uint64_t huge = 0, missed = 0;
	size_t i;

	sum->fixes[rows[from].verdict.fix]++;
	for (i = 0; i < from; i++)
		if (same_file(&rows[i], &rows[from]))
			return;
	for (i = from; i < n; i++) {
		if (!same_file(&rows[i], &rows[from]))
			continue;
		if (rows[i].verdict.huge_bytes > huge)
			huge = rows[i].verdict.huge_bytes;
		if (rows[i].verdict.missed_bytes > missed)
			missed = rows[i].verdict.missed_bytes;
	}
	sum->files++;
	sum->huge_bytes += huge;
	sum->missed_bytes += missed;
}

static void
print_rows(const struct options *o, struct pid_scan *s,
    struct pid_summary *sum)
{
	size_t i, j;

	if (s->nrows > 1)
		qsort(s->rows, s->nrows, sizeof(*s->rows), by_gain);
	for (i = 0; i < s->nrows; i = j) {
		for (j = i + 1; j < s->nrows && same_group(&s->rows[i],
		    &s->rows[j]); j++)
			;
		add_file(sum, s->rows, s->nrows, i);
		/* --pid all: files with nothing to gain only with -v. */
		if (o->pid_all && o->verbose == 0 &&
		    s->rows[i].verdict.status == PID_NOTHING_TO_GAIN)
			continue;
		report_pid_file(stdout, o, &s->rows[i], j - i);
	}
}


/* The scan's notes, in its order: errors on stderr, the rest on stdout. */
static void
print_notes(const struct options *o, const struct pid_scan *s)
{
	size_t i;

	for (i = 0; i < s->nnotes; i++) {
		const struct pid_note *n = &s->notes[i];
		bool error = strcmp(n->kind, "error") == 0;

		report_pid_message(error ? stderr : stdout, o, n->pid, n->kind,
		    n->message);
	}
	if (s->notes_lost > 0)
		report_pid_message(stderr, o, 0, "error", "out of memory: "
		    "some messages could not be kept");
}

int
pid_report(const struct options *o)
{
	struct pid_scan s = { .rc = 0 };
	struct pid_summary sum = { .all = o->pid_all };
	int rc;

	pid_scan(o->pids, o->npids, o->pid_all, &s);
	print_notes(o, &s);
	print_rows(o, &s, &sum);
	sum.processes = s.processes;
	sum.kernel_threads = s.kthreads;
	sum.zombies = s.zombies;
	sum.unread = s.unread;
	sum.nunread = s.nunread;
	/*
	 * A summary only of a whole scan: after a process that could not be
	 * read (an error, not one that vanished or is another user's) or
	 * messages lost for want of memory, it would count too few.
	 */
	if ((s.processes > 0 || o->pid_all) && s.rc == 0 &&
	    s.notes_lost == 0)
		report_pid_summary(stdout, o, &sum);
	rc = s.notes_lost > 0 ? 2 : s.rc;
	pid_scan_free(&s);
	return rc;
}
