/* SPDX-License-Identifier: BSD-2-Clause */
/* SPDX-FileCopyrightText: 2026 the elfthp-align authors */
/*
 * Runs the files: expands directories (-r) into a sorted list, hands the
 * list to worker threads (-j), and prints each file's output in list order
 * as soon as it and every file before it are done, so the output does not
 * depend on which worker finishes first.
 *
 * The walk uses openat, fdopendir and fstatat(AT_SYMLINK_NOFOLLOW): links
 * found inside a tree are never followed, and with -x it does not leave the
 * device of the argument it started from.  Each file it finds keeps its
 * place below that argument (struct walk_ref), and is reached from there
 * again the same way when it is worked on (io/dirfd.c): a directory
 * swapped for a symlink after the walk is refused, not followed.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "elfthp_cli.h"

/* An argument the walk started from: the directory it opened. */
struct root {
	const char *arg;
	dev_t dev;
	ino_t ino;
};

/*
 * A name, as a hard-link group counts names: its directory and its last
 * component (the same name given twice, or walked and named, is one).
 */
struct name_key {
	dev_t dev;
	ino_t ino;
	char *base;
};

#define NO_GROUP SIZE_MAX

struct item {
	char *path;
	bool from_walk;
	bool listed;		/* from a -f list */
	size_t root;		/* walked: its root, and where in path the */
	size_t rel;		/* name below it begins */
	struct walk_ref ref;	/* walked: where, for process_file */
	struct stat st;		/* as the walk (or stat) found it */
	bool have_st;
	struct name_key key;	/* several links: which name of the file */
	size_t group;		/* its file's hard-link group, or NO_GROUP */
	size_t first;		/* a name the first one rewrites: that one's
				   index, or NO_GROUP */
	bool done;
	enum file_class cls;
	char *out;
	size_t outlen;
	char *err;
	size_t errlen;
};

/* The names of one file of several links that the run found. */
struct group {
	struct link_group g;
	struct link_name *names;	/* g.others points into it */
};

struct work {
	struct item *items;
	size_t n;
	size_t cap;
	size_t next;		/* next item a worker takes */
	struct root *roots;
	size_t nroots;
	size_t roots_cap;
	struct group *groups;
	size_t ngroups;
	size_t walk_errors;
	size_t temps_skipped;	/* NAME.elfthp-XXXXXX met in walks */
	char page_text[32];	/* --compat: "16KiB pages" */
	const struct options *o;
	pthread_mutex_t mu;
	pthread_cond_t cv;
};

static int
add_item(struct work *w, char *path, bool from_walk, size_t rel,
    const struct stat *st)
{
	if (w->n == w->cap) {
		size_t cap = w->cap ? w->cap * 2 : 64;
		struct item *v = realloc(w->items, cap * sizeof(*v));

		if (v == NULL) {
			free(path);
			return -1;
		}
		w->items = v;
		w->cap = cap;
	}
	w->items[w->n++] = (struct item){ .path = path,
		.from_walk = from_walk, .root = w->nroots - 1, .rel = rel,
		.st = st ? *st : (struct stat){ .st_nlink = 0 },
		.have_st = st != NULL, .group = NO_GROUP, .first = NO_GROUP };
	return 0;
}

static int
cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The entries of a directory, sorted, without "." and "..". */
static char **
read_names(int dfd, size_t *count)
{
	DIR *d = fdopendir(dfd);
	char **names = NULL, **grown;
	size_t n = 0, cap = 0;
	struct dirent *e;
	int saved;

	if (d == NULL) {
		close(dfd);
		return NULL;
	}
	errno = 0;
	while ((e = readdir(d)) != NULL) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 32;
			if ((grown = realloc(names, cap * sizeof(*names))) == NULL)
				goto fail;
			names = grown;
		}
		if ((names[n] = strdup(e->d_name)) == NULL)
			goto fail;
		n++;
	}
	/* readdir's NULL is the end, or an error that errno names. */
	if (errno != 0)
		goto fail;
	closedir(d);
	if (n > 0)
		qsort(names, n, sizeof(*names), cmp_names);
	*count = n;
	return names ? names : calloc(1, sizeof(*names));
fail:
	/* Half a listing would make -r skip files without a word. */
	saved = errno ? errno : ENOMEM;
	while (n > 0)
		free(names[--n]);
	free(names);
	closedir(d);
	errno = saved;
	return NULL;
}

static void
walk_error(struct work *w, const char *path, const char *what)
{
	diag(stderr, path, "%s", what);
	/* JSON: one line per failure too, before the files' lines. */
	report_other(stdout, w->o, path, FILE_ERROR, what);
	w->walk_errors++;
}

/*
 * --exclude: a pattern with a '/' is matched against the whole path, as
 * given or as the walk built it (a '*' matches a '/' too, so that one
 * pattern waives a directory's files wherever it is); one without, against
 * the last name, as find -name and tar --exclude do.  A directory excluded
 * is not walked.
 */
static bool
excluded(const struct options *o, const char *path)
{
	const char *base = strrchr(path, '/');
	size_t i;

	base = base && base[1] != '\0' ? base + 1 : path;
	for (i = 0; i < o->nexcludes; i++) {
		const char *p = o->excludes[i];

		if (fnmatch(p, strchr(p, '/') ? path : base, 0) == 0)
			return true;
	}
	return false;
}

static void walk_dir(struct work *, int dfd, const char *path, dev_t dev);

/* Where, in a path the walk built, the part below the root begins. */
static size_t
rel_start(const struct work *w, const char *path)
{
	size_t len = strlen(w->roots[w->nroots - 1].arg);

	/* As walk_entry joins: the root without its trailing '/'s. */
	while (len > 0 && w->roots[w->nroots - 1].arg[len - 1] == '/')
		len--;
	return len + (path[len] == '/');
}

static void
walk_entry(struct work *w, int dfd, const char *dir, const char *name,
    dev_t dev)
{
	struct stat st;
	char *path;
	size_t dlen = strlen(dir);
	int sub;

	/* "dir/" and "/" given as arguments: no "dir//name". */
	while (dlen > 0 && dir[dlen - 1] == '/')
		dlen--;
	if (asprintf(&path, "%.*s/%s", (int)dlen, dir, name) < 0)
		return walk_error(w, dir, "out of memory");
	if (excluded(w->o, path)) {
		/* Waived: not a file of this run. */
	} else if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) != 0) {
		walk_error(w, path, strerror(errno));
	} else if (S_ISREG(st.st_mode) && is_temp_name(name)) {
		/* Half-written by a run that died: never an input. */
		diag(stderr, path, "skipped: a temporary file of elfthp-align");
		w->temps_skipped++;
	} else if (S_ISREG(st.st_mode)) {
		if (add_item(w, path, true, rel_start(w, path), &st) != 0)
			walk_error(w, dir, "out of memory");
		return;
	} else if (S_ISDIR(st.st_mode) && (!w->o->one_fs || st.st_dev == dev)) {
		sub = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
		    O_CLOEXEC);
		if (sub < 0)
			walk_error(w, path, strerror(errno));
		else
			walk_dir(w, sub, path, dev);
	}
	free(path);
}

/* Takes ownership of dfd. */
static void
walk_dir(struct work *w, int dfd, const char *path, dev_t dev)
{
	int keep = dup(dfd);
	char **names;
	size_t i, n = 0;

	if (keep < 0 || (names = read_names(dfd, &n)) == NULL) {
		if (keep >= 0)
			close(keep);
		return walk_error(w, path, strerror(errno));
	}
	for (i = 0; i < n; i++) {
		walk_entry(w, keep, path, names[i], dev);
		free(names[i]);
	}
	free(names);
	close(keep);
}

/* The directory the walk of arg opened: its files are reached from it. */
static int
add_root(struct work *w, const char *arg, const struct stat *st)
{
	struct root *v;

	if (w->nroots == w->roots_cap) {
		size_t cap = w->roots_cap ? w->roots_cap * 2 : 8;

		if ((v = realloc(w->roots, cap * sizeof(*v))) == NULL)
			return -1;
		w->roots = v;
		w->roots_cap = cap;
	}
	w->roots[w->nroots++] = (struct root){ arg, st->st_dev, st->st_ino };
	return 0;
}

/*
 * A command-line argument: a file, or with -r a tree.  A tree's argument
 * is resolved as every path is (io/dirfd.c: another user's symlink is
 * not followed) and listed from that descriptor; a name that does not
 * resolve to a directory is a file, whose own run says what is wrong.
 */
static void
expand_arg(struct work *w, const char *arg)
{
	struct resolved r;
	struct stat st;
	char *copy, why[512];
	int dfd;

	if (excluded(w->o, arg))
		return;
	if (path_whole(arg, &r, why, sizeof(why)) == 0 &&
	    fstat(r.fd, &st) == 0 && S_ISDIR(st.st_mode)) {
		if (!w->o->recursive) {
			resolved_free(&r);
			return walk_error(w, arg, "is a directory (give -r to "
			    "walk it)");
		}
		dfd = openat(r.fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		resolved_free(&r);
		if (dfd < 0)
			return walk_error(w, arg, strerror(errno));
		if (fstat(dfd, &st) != 0 || add_root(w, arg, &st) != 0) {
			close(dfd);
			return walk_error(w, arg, strerror(errno));
		}
		return walk_dir(w, dfd, arg, st.st_dev);
	}
	resolved_free(&r);
	if ((copy = strdup(arg)) == NULL ||
	    add_item(w, copy, false, 0, NULL) != 0)
		walk_error(w, arg, "out of memory");
}

/* Where each walked item is below its root, for process_file and for a
 * hard-link group's first name; set before any worker starts. */
static void
walk_refs(struct work *w)
{
	size_t i;

	for (i = 0; i < w->n; i++) {
		struct item *it = &w->items[i];
		const struct root *r;

		/* Only a walked item has a root (others: no index, no roots). */
		if (!it->from_walk)
			continue;
		r = &w->roots[it->root];
		it->ref = (struct walk_ref){ r->arg, r->dev, r->ino,
			it->path + it->rel };
	}
}

/* --- hard links: the run's names of each file, found before any work --- */

/*
 * An item's file as found (the walk's fstatat, or for a name given, its
 * directory resolved and fstatat there), and for a file of several links
 * which name it is: its directory and base.  -1 if it cannot be looked at.
 */
static int
look_at(struct item *it)
{
	struct resolved r;
	struct stat dir;
	char why[512];
	int rc = -1;

	if (path_parent(it->path, &r, why, sizeof(why)) != 0)
		return -1;
	if (!it->have_st && fstatat(r.fd, r.base, &it->st,
	    AT_SYMLINK_NOFOLLOW) != 0)
		goto out;
	if (!S_ISREG(it->st.st_mode) || it->st.st_nlink <= 1) {
		rc = 0;
		goto out;
	}
	if (fstat(r.fd, &dir) == 0 && (it->key.base = strdup(r.base)) != NULL) {
		it->key.dev = dir.st_dev;
		it->key.ino = dir.st_ino;
		rc = 0;
	}
out:
	resolved_free(&r);
	return rc;
}

/*
 * Every item looked at (look_at).  An item that cannot be looked at is
 * left out of the grouping: its own run reports why.
 */
static void
identify(struct work *w)
{
	size_t i;

	for (i = 0; i < w->n; i++) {
		struct item *it = &w->items[i];

		if (it->have_st && (!S_ISREG(it->st.st_mode) ||
		    it->st.st_nlink <= 1))
			continue;
		it->have_st = look_at(it) == 0;
	}
}

struct file_id {
	dev_t dev;
	ino_t ino;
	size_t idx;
};

static int
cmp_ids(const void *a, const void *b)
{
	const struct file_id *x = a, *y = b;

	if (x->dev != y->dev)
		return x->dev < y->dev ? -1 : 1;
	if (x->ino != y->ino)
		return x->ino < y->ino ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

static bool
same_name(const struct name_key *a, const struct name_key *b)
{
	return a->dev == b->dev && a->ino == b->ino &&
	    strcmp(a->base, b->base) == 0;
}

/* Is items[ids[k]] a name already seen among ids[0..k)? */
static bool
seen_before(const struct work *w, const struct file_id *ids, size_t k)
{
	size_t i;

	for (i = 0; i < k; i++)
		if (same_name(&w->items[ids[i].idx].key,
		    &w->items[ids[k].idx].key))
			return true;
	return false;
}

/*
 * A rewrite in place replaces a file of several names through its first
 * name, once, for all of them: unless --break-hardlinks asks for one name
 * at a time.  Other modes only read, each name on its own.
 */
static bool
rewrites_together(const struct options *o)
{
	return o->mode == MODE_REWRITE && !o->dry_run && o->output == NULL &&
	    !o->break_hardlinks;
}

/* One file's k names in the run, ids[0] the first in list order. */
static void
make_group(struct work *w, const struct file_id *ids, size_t k,
    struct group *g)
{
	const struct item *first = &w->items[ids[0].idx];
	bool together = rewrites_together(w->o);
	size_t i;

	*g = (struct group){ .g.found = 0 };
	for (i = 0; i < k; i++)
		g->g.found += !seen_before(w, ids, i);
	together = together && g->g.found == first->st.st_nlink &&
	    (g->names = calloc(k, sizeof(*g->names))) != NULL;
	for (i = 0; i < k; i++) {
		struct item *it = &w->items[ids[i].idx];

		it->group = (size_t)(g - w->groups);
		if (!together || i == 0)
			continue;
		it->first = ids[0].idx;
		if (!seen_before(w, ids, i))
			g->names[g->g.nothers++] = (struct link_name){
				.name = it->path,
				.walk = it->from_walk ? &it->ref : NULL };
	}
	if (together)
		g->g.others = g->names;
}

/*
 * Group the run's names by file (st_dev, st_ino) before any work starts,
 * counting each file's distinct names; a file whose every name is here is
 * then rewritten once, by its first name's worker (make_group).
 */
static void
group_links(struct work *w)
{
	struct file_id *ids;
	size_t i, k, m = 0, start;

	if (w->o->break_hardlinks || w->n == 0)
		return;
	identify(w);
	if ((ids = calloc(w->n, sizeof(*ids))) == NULL)
		return;
	for (i = 0; i < w->n; i++)
		if (w->items[i].have_st && w->items[i].key.base != NULL)
			ids[m++] = (struct file_id){ w->items[i].st.st_dev,
				w->items[i].st.st_ino, i };
	qsort(ids, m, sizeof(*ids), cmp_ids);
	if (m > 0 && (w->groups = calloc(m, sizeof(*w->groups))) != NULL)
		for (start = 0; start < m; start = k) {
			for (k = start + 1; k < m && ids[k].dev ==
			    ids[start].dev && ids[k].ino == ids[start].ino; k++)
				;
			make_group(w, ids + start, k - start,
			    &w->groups[w->ngroups++]);
		}
	free(ids);
}

/*
 * A name the first name rewrote: once that one is done, it ended as its
 * file did.  A first name that failed leaves this one not done; one that
 * is not a program leaves it quietly, as it would have been.
 */
static void
follow_first(struct work *w, struct item *it, FILE *out)
{
	const struct item *first = &w->items[it->first];
	const struct group *g = &w->groups[it->group];
	enum file_class c;

	pthread_mutex_lock(&w->mu);
	while (!first->done)
		pthread_cond_wait(&w->cv, &w->mu);
	c = first->cls;
	pthread_mutex_unlock(&w->mu);
	if (c == FILE_NOT_ELF || c == FILE_NOT_APPLICABLE) {
		it->cls = c;
		return;
	}
	it->cls = c == FILE_ERROR || c == FILE_NOT_DONE ? FILE_NOT_DONE :
	    FILE_LINKED;
	report_linked(out, w->o, it->path, first->path, g->g.found, it->cls);
}

static void
run_item(struct work *w, struct item *it)
{
	FILE *out = open_memstream(&it->out, &it->outlen);
	FILE *err = open_memstream(&it->err, &it->errlen);

	if (out == NULL || err == NULL) {
		it->cls = FILE_ERROR;
		if (out)
			fclose(out);
		if (err)
			fclose(err);
		return;
	}
	if (it->first != NO_GROUP) {
		follow_first(w, it, out);
	} else {
		struct file_ref r = { .name = it->path, .listed = it->listed,
			.walk = it->from_walk ? &it->ref : NULL,
			.links = it->group != NO_GROUP ?
			    &w->groups[it->group].g : NULL };

		it->cls = process_file_ref(&r, w->o, out, err);
	}
	fclose(out);
	fclose(err);
}

static void *
worker(void *arg)
{
	struct work *w = arg;

	for (;;) {
		struct item *it;

		pthread_mutex_lock(&w->mu);
		it = w->next < w->n ? &w->items[w->next++] : NULL;
		pthread_mutex_unlock(&w->mu);
		if (it == NULL)
			return NULL;
		run_item(w, it);
		pthread_mutex_lock(&w->mu);
		it->done = true;
		pthread_cond_broadcast(&w->cv);
		pthread_mutex_unlock(&w->mu);
	}
}

static double
now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

struct progress {
	bool on;
	bool shown;
	double start;
	double last;
};

static void
progress_clear(struct progress *p)
{
	if (p->shown)
		fputs("\r\033[K", stderr);
	p->shown = false;
}

static void
progress_show(struct progress *p, size_t done, size_t total)
{
	double t = now_s();

	if (!p->on || t - p->last < 0.1)
		return;
	p->last = t;
	fprintf(stderr, "\r\033[K%zu/%zu files, %.0f files/s", done, total,
	    done / (t - p->start > 0 ? t - p->start : 1));
	p->shown = true;
}

static void
emit(struct item *it, struct progress *p)
{
	if (it->outlen > 0 || it->errlen > 0)
		progress_clear(p);
	fflush(stderr);
	if (it->outlen > 0)
		fwrite(it->out, 1, it->outlen, stdout);
	fflush(stdout);
	if (it->errlen > 0)
		fwrite(it->err, 1, it->errlen, stderr);
	free(it->out);
	free(it->err);
	it->out = it->err = NULL;
	/* The path stays until the end: a later name of the same file
	 * names this one as its first (follow_first). */
}

struct tally {
	size_t by_class[FILE_ERROR + 1];
};

/* The progress line: on a terminal, for more than one file, never with -q. */
static void
print_in_order(struct work *w, const struct options *o, struct tally *t)
{
	struct progress p = { !o->quiet && isatty(STDERR_FILENO) && w->n > 1,
		false, now_s(), 0 };
	size_t i;

	for (i = 0; i < w->n; i++) {
		pthread_mutex_lock(&w->mu);
		while (!w->items[i].done)
			pthread_cond_wait(&w->cv, &w->mu);
		pthread_mutex_unlock(&w->mu);
		t->by_class[w->items[i].cls]++;
		emit(&w->items[i], &p);
		progress_show(&p, i + 1, w->n);
	}
	progress_clear(&p);
}

static unsigned
worker_count(const struct options *o, size_t n)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	unsigned j = o->jobs ? o->jobs : (cpus > 0 ? (unsigned)cpus : 1);

	if (j > MAX_JOBS)
		j = MAX_JOBS;
	return n < j ? (unsigned)(n ? n : 1) : j;
}

/* Said once more after the summary, where there is one. */
static void
temps_note(FILE *f, const struct work *w)
{
	if (w->temps_skipped > 0)
		fprintf(f, "skipped %zu temporary file%s of elfthp-align (see "
		    "above)\n", w->temps_skipped,
		    w->temps_skipped == 1 ? "" : "s");
}

static size_t
files_in(const struct tally *t)
{
	size_t total = 0, i;

	for (i = 0; i <= FILE_ERROR; i++)
		total += t->by_class[i];
	return total;
}

/* A class's status as a key: "needs-rewrite" counts under "needs_rewrite". */
static const char *
summary_key(enum file_class c, char *buf, size_t len)
{
	size_t i;

	snprintf(buf, len, "%s", class_text(c));
	for (i = 0; buf[i] != '\0'; i++)
		if (buf[i] == '-')
			buf[i] = '_';
	return buf;
}

/* --check, --compat and --warm with several files: the closing counts. */
static void
summary_json(const struct work *w, const struct tally *t)
{
	/* The same keys every time, for the mode. */
	static const enum file_class check[] = { FILE_READY,
		FILE_NEEDS_REWRITE, FILE_NEEDS_RELINK, FILE_NOT_DONE,
		FILE_NOT_APPLICABLE, FILE_NOT_ELF };
	static const enum file_class compat[] = { FILE_COMPATIBLE,
		FILE_FIXABLE, FILE_NEEDS_RELINK, FILE_NOT_APPLICABLE,
		FILE_NOT_ELF };
	static const enum file_class warm[] = { FILE_READY, FILE_NOT_HUGE,
		FILE_NEEDS_REWRITE, FILE_NO_WINDOWS, FILE_NOT_APPLICABLE,
		FILE_NOT_ELF, FILE_CACHE_UNKNOWN };
	const enum file_class *classes = w->o->compat ? compat :
	    w->o->mode == MODE_WARM ? warm : check;
	size_t k, nclasses = classes == compat ? 5 : classes == warm ? 7 : 6;
	struct json j;
	char key[32];

	json_begin(&j, stdout, mode_name(w->o));
	json_object(&j, "summary");
	json_u64(&j, "files", files_in(t));
	for (k = 0; k < nclasses; k++)
		json_u64(&j, summary_key(classes[k], key, sizeof(key)),
		    t->by_class[classes[k]]);
	json_u64(&j, "error", t->by_class[FILE_ERROR] + w->walk_errors);
	json_u64(&j, "temporary_files_skipped", w->temps_skipped);
	json_end(&j);
}

/* "N not done (...), ", said only where a file was (the line stays the
 * same for every run without one). */
static const char *
not_done_text(char *buf, size_t len, size_t n)
{
	if (n == 0)
		return "";
	snprintf(buf, len, "%zu not done (hard links outside the run), ", n);
	return buf;
}

/* "N with the page cache unknown, ": --warm -n by a user who may not
 * write them; said only where a file was. */
static const char *
unknown_text(char *buf, size_t len, size_t n)
{
	if (n == 0)
		return "";
	snprintf(buf, len, "%zu with the page cache unknown, ", n);
	return buf;
}

/*
 * The closing counts of --check, --compat and --warm (with several files):
 * a JSON object, or a text line the mode words; -q leaves it out.
 */
static void
summarise(const struct work *w, const struct tally *t)
{
	const size_t *c = t->by_class;
	size_t total = files_in(t), errors = c[FILE_ERROR] + w->walk_errors;
	size_t na = c[FILE_NOT_APPLICABLE] + c[FILE_NOT_ELF];
	const char *s = total == 1 ? "" : "s", *es = errors == 1 ? "" : "s";
	char nd[64];

	if (w->o->format == FORMAT_JSON)
		return summary_json(w, t);
	if (w->o->quiet)
		return;
	if (w->o->mode == MODE_WARM)
		printf("%s %zu file%s: %zu all huge, %zu not all huge, %zu "
		    "need rewriting, %zu with nothing to warm, %s%zu not "
		    "applicable, %zu error%s\n", w->o->dry_run ? "looked at" :
		    "warmed", total, s, c[FILE_READY], c[FILE_NOT_HUGE],
		    c[FILE_NEEDS_REWRITE], c[FILE_NO_WINDOWS],
		    unknown_text(nd, sizeof(nd), c[FILE_CACHE_UNKNOWN]), na,
		    errors, es);
	else if (w->o->compat)
		printf("checked %zu file%s for %s: %zu compatible, %zu fixable, "
		    "%zu need relinking, %zu not applicable (%zu not ELF), %zu "
		    "error%s\n", total, s, w->page_text, c[FILE_COMPATIBLE],
		    c[FILE_FIXABLE], c[FILE_NEEDS_RELINK], na, c[FILE_NOT_ELF],
		    errors, es);
	else
		printf("checked %zu file%s: %zu ready, %zu need rewriting, %zu "
		    "need relinking, %s%zu not applicable (%zu not ELF), %zu "
		    "error%s\n", total, s, c[FILE_READY], c[FILE_NEEDS_REWRITE],
		    c[FILE_NEEDS_RELINK], not_done_text(nd, sizeof(nd),
		    c[FILE_NOT_DONE]), na, c[FILE_NOT_ELF], errors, es);
	temps_note(stdout, w);
}

/*
 * 2: a file failed; --compat: 3 if one needs a relink, else 1 if one is
 * fixable; --check: 1 if one needs rewriting or relinking, or would not
 * be done (a hard link outside the run); --warm: 1 if a window is not
 * huge.  A rewrite that left a file not done is not an error.
 */
static int
exit_status(const struct work *w, const struct tally *t)
{
	if (t->by_class[FILE_ERROR] > 0 || w->walk_errors > 0)
		return 2;
	if (w->o->compat)
		return t->by_class[FILE_NEEDS_RELINK] > 0 ? 3 :
		    t->by_class[FILE_FIXABLE] > 0 ? 1 : 0;
	if (t->by_class[FILE_NEEDS_REWRITE] + t->by_class[FILE_NEEDS_RELINK] +
	    t->by_class[FILE_NOT_HUGE] > 0)
		return 1;
	/* --check: a file this run's rewrite would leave is not ready. */
	if (w->o->mode == MODE_CHECK && t->by_class[FILE_NOT_DONE] > 0)
		return 1;
	return 0;
}

static void
work_free(struct work *w)
{
	size_t i;

	for (i = 0; i < w->n; i++) {
		free(w->items[i].path);
		free(w->items[i].key.base);
	}
	for (i = 0; i < w->ngroups; i++)
		free(w->groups[i].names);
	free(w->groups);
	free(w->items);
	free(w->roots);
}

int
run_all(char **args, size_t nargs, size_t nnamed, const struct options *o)
{
	struct work w = { .o = o, .mu = PTHREAD_MUTEX_INITIALIZER,
		.cv = PTHREAD_COND_INITIALIZER };
	char size[16];
	pthread_t threads[MAX_JOBS];
	struct tally t = { { 0 } };
	unsigned nthreads, k, started = 0;
	size_t i;
	int rc;

	format_size(size, sizeof(size), o->page_size);
	snprintf(w.page_text, sizeof(w.page_text), "%s pages", size);
	for (i = 0; i < nargs; i++) {
		size_t before = w.n;

		expand_arg(&w, args[i]);
		while (i >= nnamed && before < w.n)
			w.items[before++].listed = true;
	}
	walk_refs(&w);
	group_links(&w);
	nthreads = worker_count(o, w.n);
	for (k = 0; k < nthreads; k++)
		if (pthread_create(&threads[k], NULL, worker, &w) == 0)
			started++;
	if (started == 0 && w.n > 0)
		worker(&w);
	print_in_order(&w, o, &t);
	for (k = 0; k < started; k++)
		pthread_join(threads[k], NULL);
	if (o->mode == MODE_CHECK || (o->mode == MODE_WARM && w.n > 1))
		summarise(&w, &t);
	rc = exit_status(&w, &t);
	work_free(&w);
	return rc;
}
