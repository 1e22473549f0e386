/* SPDX-License-Identifier: BSD-2-Clause */
/* SPDX-FileCopyrightText: 2026 the elfthp-align authors */
/*
 * Every name of a file with hard links gets the new file, and the names
 * stay one file: the new file is written once beside the first name
 * (atomic_file.c), linked (linkat, from directory descriptor to directory
 * descriptor) under a temporary name beside each other name, and then
 * every temporary name is renamed over its name in one phase.
 *
 * Why this way: a rename is the only atomic step a name has, and there is
 * none for several names at once.  Linking first means every step that
 * can fail for an ordinary reason (space for a directory entry, a
 * permission, a name that changed) fails before any name has moved, and
 * the old file is left with every name.  The rename phase itself waits
 * for ending signals (atomic_hold_signals), so that SIGINT, SIGTERM or
 * SIGHUP leave either every name on the old file or every name on the new
 * one.  Only SIGKILL (or a crash of the machine) can stop it between two
 * names: then each name holds either the old bytes or the new, and the
 * temporary names left beside the names not yet renamed are swept by the
 * next run as stale.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "elfthp_io.h"

/* Is name in dfd the file (dev, ino)? */
static bool
name_is(int dfd, const char *name, dev_t dev, ino_t ino)
{
	struct stat st;

	return fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	    st.st_dev == dev && st.st_ino == ino;
}

static void
link_free(struct atomic_link *k)
{
	free(k->final_name);
	free(k->tmp_name);
	free(k->shown);
	if (k->dfd >= 0)
		close(k->dfd);
	*k = (struct atomic_link){ .dfd = -1 };
}

int
atomic_links_begin(struct atomic_links *l, struct atomic_file *first,
    const struct stat *old, size_t others, char *err, size_t n)
{
	*l = (struct atomic_links){ .first = first, .old_dev = old->st_dev,
		.old_ino = old->st_ino, .new_dev = first->dev,
		.new_ino = first->ino, .cap = others, .notes = first->notes };
	/* Its size is fixed now: the signal handler may read it any time. */
	if ((l->v = calloc(others + 1, sizeof(*l->v))) == NULL) {
		atomic_abort(first);
		return error_text(err, n, "out of memory");
	}
	if (atomic_links_publish(l) != 0) {
		atomic_links_abort(l);
		return error_text(err, n, "more than %d hard-link groups "
		    "open at once", ATOMIC_MAX_OPEN);
	}
	return 0;
}

/* k's temporary name, a link to the new file; 0 or -1 with err. */
static int
link_one(struct atomic_links *l, struct atomic_link *k, char *err, size_t n)
{
	if (!name_is(k->dfd, k->final_name, l->old_dev, l->old_ino))
		return error_text(err, n, "%s is no longer a name of this "
		    "file; left every name as it was", k->shown);
	atomic_sweep(k->dfd, k->shown, l->notes);
	if (atomic_link_temp(l->first, k->dfd, k->tmp_name) != 0)
		return error_text(err, n, "%s: cannot link the new file "
		    "beside it: %s", k->shown, strerror(errno));
	/* The first temporary name may have been swapped since it was made:
	 * the link is then not ours to keep. */
	if (!name_is(k->dfd, k->tmp_name, l->new_dev, l->new_ino)) {
		unlinkat(k->dfd, k->tmp_name, 0);
		return error_text(err, n, "the new file was replaced by "
		    "another process before it was in place; left every "
		    "name as it was");
	}
	return 0;
}

int
atomic_links_add(struct atomic_links *l, int dfd, const char *final_name,
    const char *shown, char *err, size_t n)
{
	struct atomic_link *k = &l->v[l->n];

	if (l->n == l->cap) {
		close(dfd);
		atomic_links_abort(l);
		return error_text(err, n, "internal error: more names than "
		    "the group has");
	}
	*k = (struct atomic_link){ .dfd = dfd,
		.final_name = strdup(final_name), .shown = strdup(shown),
		.tmp_name = atomic_temp_name(final_name) };
	if (k->final_name == NULL || k->shown == NULL || k->tmp_name == NULL) {
		link_free(k);
		atomic_links_abort(l);
		return error_text(err, n, "out of memory");
	}
	if (link_one(l, k, err, n) != 0) {
		link_free(k);
		atomic_links_abort(l);
		return -1;
	}
	/* Published whole: the handler removes v[0..n). */
	__atomic_store_n(&l->n, l->n + 1, __ATOMIC_SEQ_CST);
	return 0;
}

/* Before any name moves: every name still the old file, every temporary
 * name still the new one. */
static int
all_in_place(const struct atomic_links *l, char *err, size_t n)
{
	const struct atomic_file *a = l->first;
	size_t i;

	if (!name_is(a->dfd, a->final_name, l->old_dev, l->old_ino))
		return error_text(err, n, "changed while being rewritten; left "
		    "every name as it was");
	for (i = 0; i < l->n; i++) {
		if (!name_is(l->v[i].dfd, l->v[i].final_name, l->old_dev,
		    l->old_ino))
			return error_text(err, n, "%s changed while being "
			    "rewritten; left every name as it was",
			    l->v[i].shown);
		if (!name_is(l->v[i].dfd, l->v[i].tmp_name, l->new_dev,
		    l->new_ino))
			return error_text(err, n, "the new file was replaced "
			    "by another process before it was in place; left "
			    "every name as it was");
	}
	return 0;
}

/*
 * The new file exchanged with the name (RENAME_EXCHANGE), so that what
 * the name held is not lost but lies at the temporary name: the old file,
 * whose extra name is then removed, or what another process put there
 * since the last check, which then gets its name back.  1 where the file
 * system has no exchange (the caller renames, its last check as close as
 * it can be).
 */
static int
exchange_one(const struct atomic_links *l, const struct atomic_link *k,
    char *err, size_t n)
{
	if (renameat2(k->dfd, k->tmp_name, k->dfd, k->final_name,
	    RENAME_EXCHANGE) != 0)
		return errno == EINVAL || errno == ENOSYS ? 1 :
		    error_text(err, n, "%s: cannot rename the new file into "
		    "place: %s", k->shown, strerror(errno));
	if (name_is(k->dfd, k->tmp_name, l->old_dev, l->old_ino)) {
		(void)unlinkat(k->dfd, k->tmp_name, 0);
		return 0;
	}
	(void)renameat2(k->dfd, k->tmp_name, k->dfd, k->final_name,
	    RENAME_EXCHANGE);
	return error_text(err, n, "%s changed while its names were being "
	    "renamed; it keeps what it is now", k->shown);
}

/*
 * One other name: checked again just before (another process may replace
 * a name at any time; its file is never renamed over), then exchanged.
 */
static int
rename_one(const struct atomic_links *l, const struct atomic_link *k,
    char *err, size_t n)
{
	int rc;

	if (!name_is(k->dfd, k->final_name, l->old_dev, l->old_ino) ||
	    !name_is(k->dfd, k->tmp_name, l->new_dev, l->new_ino))
		return error_text(err, n, "%s changed while its names were "
		    "being renamed; it keeps what it is now", k->shown);
	if ((rc = exchange_one(l, k, err, n)) != 1)
		return rc;
	if (renameat(k->dfd, k->tmp_name, k->dfd, k->final_name) != 0)
		return error_text(err, n, "%s: cannot rename the new file "
		    "into place: %s", k->shown, strerror(errno));
	return 0;
}

/*
 * The other names, then the first (atomic_rename).  A name another
 * process replaced meanwhile is no longer a name of this file: it keeps
 * what it is, and the file's remaining names still move together.  Past
 * the first rename nothing can be undone, so a failure says where the
 * names stand.
 */
static int
rename_all(struct atomic_links *l, char *err, size_t n)
{
	char why[512] = "", later[512];	/* the first failure is said */
	size_t i, moved = 0;
	bool failed = false;

	for (i = 0; i < l->n; i++) {
		if (rename_one(l, &l->v[i], failed ? later : why,
		    sizeof(why)) == 0)
			moved++;
		else
			failed = true;
	}
	if (!name_is(l->first->dfd, l->first->final_name, l->old_dev,
	    l->old_ino)) {
		if (!failed)
			error_text(why, sizeof(why), "changed while its names "
			    "were being renamed; it keeps what it is now");
		failed = true;
	} else if (atomic_rename(l->first, failed ? later : why,
	    sizeof(why)) == 0) {
		moved++;
	} else {
		failed = true;
	}
	if (!failed)
		return 0;
	return error_text(err, n, "%s (%zu of %zu names have the new file)",
	    why, moved, l->n + 1);
}

int
atomic_links_rename(struct atomic_links *l, char *err, size_t n)
{
	struct signal_hold hold = { .on = false };
	size_t i;
	int rc;

	atomic_hold_signals(&hold);
	if ((rc = all_in_place(l, err, n)) == 0)
		rc = rename_all(l, err, n);
	if (rc == 0 && l->first->durable)
		for (i = 0; i < l->n; i++)
			atomic_dir_sync(l->v[i].dfd);
	atomic_links_abort(l);	/* the temporary names left, if any */
	atomic_release_signals(&hold);
	return rc;
}

void
atomic_links_abort(struct atomic_links *l)
{
	size_t i;

	if (l->v == NULL)
		return;
	for (i = 0; i < l->n; i++)
		if (name_is(l->v[i].dfd, l->v[i].tmp_name, l->new_dev,
		    l->new_ino))
			unlinkat(l->v[i].dfd, l->v[i].tmp_name, 0);
	atomic_links_unpublish(l);
	atomic_abort(l->first);
	for (i = 0; i < l->n; i++)
		link_free(&l->v[i]);
	free(l->v);
	l->v = NULL;
	l->n = 0;
}
