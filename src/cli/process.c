/* SPDX-License-Identifier: BSD-2-Clause */
/* SPDX-FileCopyrightText: 2026 the elfthp-align authors */
/*
 * One file through the passes: open, read, validate (the door, in every
 * mode), plan, check, then the mode's action (rewrite, --report, --check
 * or --warm).  Output goes to the streams given, so that parallel workers
 * can collect it and the runner can print it in order.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "elfthp_cli.h"

#define MAX_GEOMETRIES 8
#define MAX_FINDINGS 64

/*
 * What each step of process_file returns: go on, or stop here.  How the
 * file ended (its enum file_class) is kept in the job, apart: a step that
 * went well says nothing about the file's verdict.
 */
/* STEP_STOP_LOOK: --report or --warm -n could not look at the page cache
 * (the kernel shows it only to a user who may write the file): it goes on. */
enum step { STEP_OK, STEP_STOP, STEP_STOP_LOOK };

/* One file on its way through the passes. */
struct job {
	const char *name;	/* as the user gave it, for messages */
	char *path;		/* symlinks resolved: the file we replace */
	const struct walk_ref *walk;	/* found by a walk, or NULL */
	int dfd;		/* the directory it is in: all file work is */
	const char *base;	/* relative to dfd (io/dirfd.c) */
	const struct options *o;
	FILE *out;
	FILE *err;
	bool from_walk;
	bool listed;		/* from a -f list */
	const struct link_group *links;	/* several names in the run, or NULL */
	int fd;
	struct stat st;
	struct elf_layout layout;
	struct plan plan;
	enum file_class class;	/* how it ended; FILE_DONE until a step says */
	int new_fd;		/* the file written, open to warm it, or -1 */
	char *new_path;		/* its name */
	struct seg_desc *after;	/* the program headers as the plan leaves them */
	struct warm_result cache;	/* the page-cache step's */
	bool cache_done;	/* ... and there was one */
	char msg[512];
};

static enum step file_error(struct job *, const char *, ...)
    PRINTF_LIKE(2, 3);
static enum step warm_pmd(struct job *, uint64_t *);

static enum step
file_error(struct job *j, const char *fmt, ...)
{
	char text[768];
	va_list ap;

	va_start(ap, fmt);
	verror_text(text, sizeof(text), fmt, ap);
	va_end(ap);
	diag(j->err, j->name, "%s", text);
	report_other(j->out, j->o, j->name, FILE_ERROR, text);
	j->class = FILE_ERROR;
	return STEP_STOP;
}

/*
 * The directory a name is in, opened once; every later step works
 * relative to it.  A walked name is reached below the walk's argument
 * without following anything; any other is resolved one component at a
 * time (io/dirfd.c: a symlink is followed only when it is root's or the
 * caller's), in every mode.  *path (the caller's to free, also on
 * failure) is the file's path, resolved; *base points into it or into
 * w->rel.  A new descriptor, or -1 with msg.
 */
static int
dir_of(const char *name, const struct walk_ref *w, char **path,
    const char **base, char *msg, size_t n)
{
	struct resolved r;
	const char *slash;

	if (w != NULL) {
		slash = strrchr(w->rel, '/');
		*base = slash ? slash + 1 : w->rel;
		if ((*path = strdup(name)) == NULL)
			return error_text(msg, n, "out of memory");
		return dir_open_walked(w->root, w->dev, w->ino, w->rel,
		    slash ? (size_t)(slash - w->rel) : 0, msg, n);
	}
	*path = NULL;
	if (path_parent(name, &r, msg, n) != 0)
		return -1;
	*path = r.path;
	*base = r.base;
	return r.fd;
}

static enum step
open_dir(struct job *j)
{
	j->dfd = dir_of(j->name, j->walk, &j->path, &j->base, j->msg,
	    sizeof(j->msg));
	if (j->dfd < 0)
		return file_error(j, "%s", j->msg);
	return STEP_OK;
}

/* Open the input; in place, io/dest.c takes the lock and makes sure the
 * name still points at the locked file. */
static enum step
open_input(struct job *j, bool lock)
{
	struct open_request r = { .name = j->name, .lock = lock,
		.lock_timeout = j->o->lock_timeout, .notes = stderr };

	if (open_dir(j) != STEP_OK)
		return STEP_STOP;
	r.dfd = j->dfd;
	r.base = j->base;
	r.nofollow = true;
	if (dest_open_input(&r, &j->fd, &j->st, j->msg, sizeof(j->msg)) != 0)
		return file_error(j, "%s", j->msg);
	return STEP_OK;
}

/*
 * Not ELF, or not a program: one rule in every mode.  Named, it is
 * skipped with a line that says why, and the exit status does not change
 * (a CI step can hand over every file of a package); found by a walk, it
 * is skipped quietly.  Either way it is counted where there is a summary.
 */
static enum step
not_for_us(struct job *j, enum read_status st)
{
	j->class = st == READ_NOT_ELF ? FILE_NOT_ELF : FILE_NOT_APPLICABLE;
	if (!j->from_walk)
		report_other(j->out, j->o, j->name, j->class, j->msg);
	return STEP_STOP;
}

static enum step
read_layout(struct job *j)
{
	enum read_status st;

	st = layout_read(j->fd, &j->layout, j->msg, sizeof(j->msg));
	if (st == READ_NOT_ELF || st == READ_NOT_APPLICABLE)
		return not_for_us(j, st);
	if (st != READ_OK)
		return file_error(j, "%s", j->msg);
	return STEP_OK;
}

/*
 * Well formed, but a PT_LOAD is not congruent even modulo the smallest
 * page: Linux never runs it as a program (firmware for another machine,
 * a test file).  In a walk or a -f list it is skipped, as files that are
 * not ELF are, with the reason under -v; walked, the line itself only
 * under -v.  Named on the command line it stays an error: the user asked
 * for that file.
 */
static enum step
not_loadable(struct job *j)
{
	char why[sizeof(j->msg)];

	snprintf(why, sizeof(why), "%s", j->msg);
	/* The door's words are short; the bound only quiets the compiler. */
	snprintf(j->msg, sizeof(j->msg), "not a program Linux can load%s%.400s",
	    j->o->verbose > 0 ? ": " : "", j->o->verbose > 0 ? why : "");
	j->class = FILE_NOT_APPLICABLE;
	if (!j->from_walk || j->o->verbose > 0)
		report_other(j->out, j->o, j->name, j->class, j->msg);
	return STEP_STOP;
}

/*
 * The door: the relations between headers, checked once, before any mode's
 * own work, so that a hostile file is refused with the same words and exit
 * status in every mode (even --check --compat, which plans nothing).
 */
static enum step
validate_layout(struct job *j)
{
	struct plan_error perr;

	if (layout_validate(&j->layout, &perr) != 0) {
		plan_strerror(&perr, j->msg, sizeof(j->msg));
		if (perr.code == PLAN_NOT_CONGRUENT && (j->from_walk || j->listed))
			return not_loadable(j);
		return file_error(j, "%s", j->msg);
	}
	return STEP_OK;
}

/*
 * Plan, then check: plan_build plans in two steps (the page floor alone,
 * then, only for a file it changes anyway, the machine's largest page:
 * see segment_pad.c), and plan_verify, sharing no method with it, checks
 * the result against the rules before anything acts on it.
 */
static int
plan_checked(struct job *j, const struct plan_params *params, struct plan *P,
    struct plan_error *perr)
{
	if (plan_build(&j->layout, params, P, perr) != 0)
		return -1;
	if (plan_verify(&j->layout, params, P, perr) != 0) {
		plan_free(P);
		return -1;
	}
	return 0;
}

static enum step
make_plan(struct job *j, struct plan_params *params, struct plan *P)
{
	struct plan_error perr;

	if (plan_checked(j, params, P, &perr) != 0) {
		plan_strerror(&perr, j->msg, sizeof(j->msg));
		return file_error(j, "%s", j->msg);
	}
	return STEP_OK;
}

/*
 * The base page a file is planned for: --page-size; else, for a file of
 * this host's machine on a host whose page is not that machine's usual
 * one (arm64 with 16 KiB pages), this host's, whose PMD is what its
 * kernel maps (32 MiB there, not 2); else the machine's usual page (0).
 */
static uint64_t
page_size_for(const struct job *j)
{
	uint64_t host = host_page_size();

	if (j->o->page_size != 0)
		return j->o->page_size;
	if (j->layout.machine == host_machine() &&
	    host != own_geometry(j->layout.machine, 0)->page)
		return host;
	return 0;
}

/*
 * Where this host places the file's mappings, for the modes that speak of
 * this host's page cache (--report's measured row, --warm, the rewrite's
 * page-cache step): a shared library may get an aligned base from its file
 * system whatever its p_align (io/placement.c).  --check judges the file,
 * which may be installed where that does not hold (overlayfs), and asks
 * nothing of the host.
 */
static enum step
host_placement(struct job *j, struct plan_params *params, bool check_too)
{
	uint64_t pmd;

	params->placed_by_offset = false;
	if ((j->o->mode == MODE_CHECK && !check_too) ||
	    j->layout.machine != host_machine() ||
	    file_kind(&j->layout) != KIND_SHARED_LIBRARY ||
	    max_load_align(&j->layout, NULL) >= params->huge_align)
		return STEP_OK;
	if (warm_pmd(j, &pmd) != STEP_OK)
		return STEP_STOP;
	if (pmd != params->huge_align)
		return STEP_OK;	/* --align or a foreign page: no PMD of ours */
	if (placement_by_offset(j->fd, pmd, host_page_size(),
	    &params->placed_by_offset) != 0)
		return file_error(j, "could not look where the kernel places "
		    "its mappings: mmap: %s", strerror(errno));
	return STEP_OK;
}

static enum step
file_params(struct job *j, struct plan_params *params)
{
	const struct plan_request r = { .machine = j->layout.machine,
		.page_size = page_size_for(j), .align = j->o->align };
	const char *why;

	if (plan_params_make(&r, params, &why) != 0)
		return file_error(j, "%s: %s", machine_name(j->layout.machine),
		    why);
	params->split = j->o->start_layout;
	return host_placement(j, params, false);
}

/*
 * Nothing may have touched the input between reading and renaming.  In
 * place, its metadata counts too (ctime: the new file copies owner, mode
 * and attributes).  -o reads the inode it opened, and only its bytes
 * count (size and mtime): another run replacing the input's name changes
 * the old inode's ctime (its link count), not its bytes.
 */
static bool
input_unchanged(const struct job *j, bool in_place)
{
	struct stat now;

	if (fstat(j->fd, &now) != 0 || now.st_size != j->st.st_size ||
	    now.st_mtim.tv_sec != j->st.st_mtim.tv_sec ||
	    now.st_mtim.tv_nsec != j->st.st_mtim.tv_nsec)
		return false;
	if (!in_place)
		return true;
	if (now.st_ctim.tv_sec != j->st.st_ctim.tv_sec ||
	    now.st_ctim.tv_nsec != j->st.st_ctim.tv_nsec)
		return false;
	return fstatat(j->dfd, j->base, &now, AT_SYMLINK_NOFOLLOW) == 0 &&
	    now.st_dev == j->st.st_dev && now.st_ino == j->st.st_ino;
}

/*
 * Large writes wherever the output's file system can keep huge folios (or
 * might); the kernel's own copy, which can share blocks, where it cannot.
 */
static enum copy_how
copy_how_for(int fd)
{
	struct fs_expect e;
	char self[64];

	/* Its file system, found from the descriptor, not from a name. */
	snprintf(self, sizeof(self), "/proc/self/fd/%d", fd);
	if (fs_expect_path(self, NULL, &e) != 0)
		return COPY_LARGE_WRITES;
	return e.write == TRI_NO ? COPY_IN_KERNEL : COPY_LARGE_WRITES;
}

/* The rewrite's page-cache step runs unless --no-warm or -n. */
static bool
warms(const struct options *o)
{
	return o->mode == MODE_REWRITE && !o->no_warm && !o->dry_run;
}

/*
 * In place, the original's name is at stake: fsync before the rename
 * unless --no-sync.  -o makes a new file, as a linker or cp does: no fsync
 * unless --sync.
 */
static bool
durable(const struct options *o, bool in_place)
{
	return in_place ? !o->no_sync : o->sync;
}

/*
 * A file of several names, every one of them in the run (runner.c found
 * them; the link count, read when the file was opened, agrees): its first
 * name rewrites it for all.
 */
static bool
links_complete(const struct job *j)
{
	return j->links != NULL && j->links->found == j->st.st_nlink;
}

/* ... and this is the name that rewrites it (the others wait for it). */
static bool
links_whole(const struct job *j)
{
	return links_complete(j) && j->links->others != NULL;
}

/*
 * Every other name gets the new file too, as one file with them
 * (io/atomic_links.c says how, and why that way).  Each name's directory
 * is opened as its own file's would be: below the walk's argument, or
 * resolved.  On failure every name still has the old file (or, past the
 * first rename, the message says which have which), no temporary name is
 * left and a is aborted.
 */
static int
place_linked(struct job *j, struct atomic_file *a)
{
	const struct link_group *g = j->links;
	struct atomic_links l;
	const char *base;
	char *path, why[sizeof(j->msg)];
	size_t i;
	int dfd, rc = 0;

	if (atomic_links_begin(&l, a, &j->st, g->nothers, j->msg,
	    sizeof(j->msg)) != 0)
		return -1;
	for (i = 0; i < g->nothers && rc == 0; i++) {
		path = NULL;
		dfd = dir_of(g->others[i].name, g->others[i].walk, &path,
		    &base, why, sizeof(why));
		if (dfd < 0) {
			atomic_links_abort(&l);
			/* why first: a long name may be cut, the problem not. */
			rc = error_text(j->msg, sizeof(j->msg), "%s; left "
			    "every name as it was (the other name: %s)", why,
			    g->others[i].name);
		} else {
			rc = atomic_links_add(&l, dfd, base, g->others[i].name,
			    j->msg, sizeof(j->msg));
		}
		free(path);
	}
	return rc != 0 ? -1 : atomic_links_rename(&l, j->msg, sizeof(j->msg));
}

/* The new file, written beside base in dfd and renamed over it. */
static enum step
write_new(struct job *j, int dfd, const char *base, const char *shown,
    bool in_place)
{
	struct atomic_file a;
	char *m = j->msg;
	size_t n = sizeof(j->msg);

	if (atomic_open(&a, dfd, base, shown, j->err, m, n) != 0)
		goto fail;
	if ((j->plan.changed ? rewrite_to_fd(j->fd, a.fd, &j->layout,
	    &j->plan, copy_how_for(a.fd), m, n) : copy_whole(j->fd, a.fd,
	    j->layout.file_size, copy_how_for(a.fd), m, n)) != 0)
		goto fail;
	/*
	 * The page-cache step reads the new file: open it now, while it is
	 * still ours and mode 0600 (the input's mode may deny reading, 0711),
	 * from the descriptor, never the name (atomic_reopen_read).
	 */
	if (warms(j->o) && ((j->new_fd = atomic_reopen_read(&a, m, n)) < 0 ||
	    (j->new_path = strdup(shown)) == NULL)) {
		if (j->new_fd >= 0)
			snprintf(m, n, "out of memory");
		goto fail;
	}
	if (atomic_copy_metadata(&a, j->fd, in_place, m, n) != 0 ||
	    atomic_sync(&a, durable(j->o, in_place), m, n) != 0)
		goto fail;
	/* Last look, as close to the rename as it can be. */
	if (!input_unchanged(j, in_place)) {
		snprintf(m, n, "changed while being rewritten; left as it was");
		goto fail;
	}
	if ((in_place && links_whole(j) ? place_linked(j, &a) :
	    atomic_rename(&a, m, n)) != 0)
		goto fail;
	return STEP_OK;
fail:
	if (j->new_fd >= 0)
		close(j->new_fd);
	j->new_fd = -1;
	/* The copy, the open and the last look are not atomic_* calls, which
	 * abort themselves when they fail: abort here (idempotent). */
	atomic_abort(&a);
	return file_error(j, "%s", m);
}

/* -o: the destination's directory, resolved once (io/dest.c has the
 * rules), and the write there. */
static enum step
write_output(struct job *j, const char *output)
{
	struct resolved r;
	enum step c;

	if (dest_output_path(output, &j->st, &r, j->msg, sizeof(j->msg)) != 0)
		return file_error(j, "%s", j->msg);
	c = write_new(j, r.fd, r.base, r.path, false);
	resolved_free(&r);
	return c;
}

/*
 * In place, a file of several names is replaced only with all of them
 * (links_whole), or, asked to (--break-hardlinks), like sed -i: this
 * name alone, the others keeping the old file.
 */
static bool
splits_links(const struct job *j)
{
	return j->o->output == NULL && j->st.st_nlink > 1 &&
	    !j->o->break_hardlinks &&
	    !(j->o->dry_run ? links_complete(j) : links_whole(j));
}

/*
 * A name of the file is not in the run.  Named, that is an error, as it
 * always was; found by a walk or in a list, the file is "not done": said,
 * counted, and the run's exit status is not an error's.
 */
static enum step
not_done(struct job *j)
{
	const char *words = "replacing it would split them: --break-hardlinks "
	    "replaces just this name (Cargo hard-links target/*/NAME to "
	    "deps/NAME-HASH), or write elsewhere with -o";
	size_t found = j->links != NULL ? j->links->found : 1;

	if (!j->from_walk && !j->listed)
		return file_error(j, "has %ju hard links; %s",
		    (uintmax_t)j->st.st_nlink, words);
	snprintf(j->msg, sizeof(j->msg), "has %ju hard links, %zu of them in "
	    "this run; %s", (uintmax_t)j->st.st_nlink, found, words);
	j->class = FILE_NOT_DONE;
	if (j->o->format == FORMAT_TEXT)
		diag(j->err, j->name, "not done: %s", j->msg);
	report_other(j->out, j->o, j->name, j->class, j->msg);
	return STEP_STOP;
}

static enum step
write_result(struct job *j)
{
	const char *output = j->o->output;

	return output != NULL ? write_output(j, output) :
	    write_new(j, j->dfd, j->base, j->path, true);
}

static void
show_rewrite(const struct job *j)
{
	if (j->o->quiet && !j->o->dry_run && j->o->format == FORMAT_TEXT &&
	    j->class != FILE_NOT_HUGE)
		return;
	report_rewrite(j->out, j->o, j->name, &j->layout, &j->plan,
	    j->cache_done ? &j->cache : NULL);
}

/*
 * The page-cache step on the file open as fd at path, whose headers are
 * L (base_aligned: the plan's word on its load base): warm its windows,
 * or with look_only say what warming would do.  states, if not NULL,
 * gets one enum window_state per PMD range of the file, and nranges their
 * number; the caller frees *states, also on failure.
 */
/* The host's PMD for the page cache: a read that failed is the file's error. */
static enum step
warm_pmd(struct job *j, uint64_t *pmd)
{
	if (host_pmd_read(pmd) != 0)
		return file_error(j, "could not look: /sys/kernel/mm/"
		    "transparent_hugepage/hpage_pmd_size: %s", strerror(errno));
	return STEP_OK;
}

static enum step
cache_step(struct job *j, int fd, const char *path,
    const struct elf_layout *L, bool base_aligned, bool look_only,
    uint8_t **states, uint64_t *nranges)
{
	struct warm_request q = { .look_only = look_only };
	struct warm_plan w;
	enum step c = STEP_OK;
	uint64_t pmd;

	if (warm_pmd(j, &pmd) != STEP_OK)
		return STEP_STOP;
	if (warm_plan_build(L, pmd, base_aligned, &w) != 0)
		return file_error(j, "out of memory");
	if (states != NULL &&
	    (q.states = *states = calloc(w.nranges + 1, 1)) == NULL)
		c = file_error(j, "out of memory");
	else if (warm_file(fd, path, &w, &q, &j->cache, j->msg,
	    sizeof(j->msg)) == 0)
		;
	/* --report goes on without the look (its rows are the model's),
	 * --warm -n with the layout's verdicts and the cache unknown. */
	else if (look_only && (j->o->mode == MODE_REPORT ||
	    j->o->mode == MODE_WARM) && j->cache.cache_refused)
		c = STEP_STOP_LOOK;
	else
		c = file_error(j, "%s%s", j->o->mode != MODE_REWRITE ? "" :
		    j->new_fd >= 0 ? "the new file is in place, but the "
		    "page-cache step: " : "page-cache step: ", j->msg);
	if (nranges != NULL)
		*nranges = w.nranges;
	warm_plan_free(&w);
	j->cache_done = c == STEP_OK;
	if (c == STEP_STOP_LOOK)
		c = STEP_OK;
	return c;
}

/* The headers as the plan leaves them, for the file it wrote. */
static enum step
planned_layout(struct job *j, struct elf_layout *out)
{
	size_t i;

	if (j->after == NULL &&
	    (j->after = calloc(j->layout.nsegs + 1, sizeof(*j->after))) == NULL)
		return file_error(j, "out of memory");
	for (i = 0; i < j->layout.nsegs; i++) {
		j->after[i] = j->layout.segs[i];
		j->after[i].offset = j->plan.segs[i].new_offset;
		j->after[i].align = j->plan.segs[i].new_align;
	}
	*out = j->layout;
	out->segs = j->after;
	out->file_size = j->plan.new_size;
	return STEP_OK;
}

/*
 * After the write, the next run is what counts: the file written (or,
 * unchanged in place, the input) gets its windows into the page cache as
 * huge folios.  -n only looks, where there is a file to look at.  A file
 * for another machine never runs here: its page cache is left alone.
 */
static enum step
settle(struct job *j)
{
	struct elf_layout L;

	if (j->o->no_warm || (j->o->dry_run && j->plan.changed) ||
	    j->layout.machine != host_machine())
		return STEP_OK;
	if (j->o->dry_run)
		return cache_step(j, j->fd, j->path, &j->layout,
		    j->plan.base_aligned_now, true, NULL, NULL);
	if (j->new_fd < 0)
		return cache_step(j, j->fd, j->path, &j->layout,
		    j->plan.base_aligned_now, false, NULL, NULL);
	if (planned_layout(j, &L) != STEP_OK)
		return STEP_STOP;
	return cache_step(j, j->new_fd, j->new_path, &L,
	    j->plan.base_aligned_after, false, NULL, NULL);
}

static enum step
do_rewrite(struct job *j)
{
	struct plan_params params;
	enum step c;

	if ((c = file_params(j, &params)) != STEP_OK ||
	    (c = make_plan(j, &params, &j->plan)) != STEP_OK)
		return c;
	/* -n says what the rewrite would do, but a named file keeps its
	 * old -n: the plan, whatever its links. */
	if (j->plan.changed && splits_links(j) &&
	    (!j->o->dry_run || j->from_walk || j->listed))
		return not_done(j);
	if (!j->o->dry_run && (j->plan.changed || j->o->output != NULL) &&
	    (c = write_result(j)) != STEP_OK)
		return c;
	if ((c = settle(j)) != STEP_OK)
		return c;
	if (j->cache_done && !j->o->dry_run)
		j->class = settle_verdict(&j->cache);
	show_rewrite(j);
	return STEP_OK;
}

/* The plan a geometry calls for, to measure what a rewrite for it buys. */
static enum step
impact_for(struct job *j, const struct geometry *g, struct seg_desc *after,
    struct geometry_impact *out)
{
	const struct plan_request r = { .machine = j->layout.machine,
		.geometry = g };
	struct plan_params params;
	struct plan_error perr;
	struct plan P;

	(void)plan_params_make(&r, &params, NULL);	/* cannot fail */
	/* One geometry the file cannot be planned for is one row, not the file. */
	if (plan_checked(j, &params, &P, &perr) != 0) {
		memset(out, 0, sizeof(*out));
		out->geometry = g;
		out->target = geometry_target(g);
		plan_strerror(&perr, out->error, sizeof(out->error));
		return STEP_OK;
	}
	impact_compute(&j->layout, &P, g, after, out);
	plan_free(&P);
	return STEP_OK;
}

/* Does the file's own geometry describe this host: can it be measured? */
static bool
own_is_host(const struct geometry *own, uint16_t machine)
{
	return machine == host_machine() && own->page == host_page_size() &&
	    own->pmd == host_pmd_size();
}

/*
 * The host's own geometry, measured: a look at the file's page cache
 * (reading no data) replaces the model's NOW and AFTER for its row.
 */
static enum step
measure_own(struct job *j, const struct geometry *own,
    struct geometry_impact *imp, size_t n, const struct seg_desc *after)
{
	struct cache_view cv = { .fs_keeps_huge = true };
	uint8_t *states = NULL;
	struct fs_expect e;
	size_t i;

	for (i = 0; i < n && imp[i].geometry != own; i++)
		;
	if (i == n || imp[i].error[0] != '\0')
		return STEP_OK;
	if (cache_step(j, j->fd, j->path, &j->layout, j->plan.base_aligned_now,
	    true, &states, &cv.nranges) != STEP_OK) {
		free(states);
		return STEP_STOP;
	}
	if (!j->cache_done) {		/* refused: the model's rows */
		free(states);
		return STEP_OK;
	}
	if (fs_expect_fd(j->fd, &e) == 0)
		cv.fs_keeps_huge = e.write != TRI_NO || e.readahead != TRI_NO;
	cv.states = states;
	impact_measured(&j->layout, &j->plan, &cv, &imp[i], after);
	free(states);
	return STEP_OK;
}

static enum step
do_report(struct job *j)
{
	const struct geometry *geos[MAX_GEOMETRIES], *own;
	struct geometry_impact imp[MAX_GEOMETRIES];
	struct plan_params params;
	struct seg_desc *after;
	enum step c;
	size_t i, n;

	if ((c = file_params(j, &params)) != STEP_OK ||
	    (c = make_plan(j, &params, &j->plan)) != STEP_OK)
		return c;
	own = own_geometry(j->layout.machine, page_size_for(j));
	n = report_geometries(j->layout.machine, page_size_for(j),
	    j->o->verbose > 0, geos, MAX_GEOMETRIES);
	if ((after = calloc(j->layout.nsegs, sizeof(*after))) == NULL)
		return file_error(j, "out of memory");
	for (i = 0; i < n && c == STEP_OK; i++)
		c = impact_for(j, geos[i], after, &imp[i]);
	if (c == STEP_OK && own_is_host(own, j->layout.machine))
		c = measure_own(j, own, imp, n, after);
	free(after);
	if (c == STEP_OK)
		report_impact(j->out, j->o, j->name, &j->layout, &j->plan,
		    own, imp, n, j->cache_done || j->cache.cache_refused ?
		    &j->cache : NULL);
	return c;
}

/*
 * --check: the plan the rewrite with the same options would apply, and its
 * findings.  Where the rewrite would refuse because two permissions share
 * a page of --page-size, only a relink helps.
 */
static enum step
do_check(struct job *j)
{
	struct finding f[MAX_FINDINGS];
	struct plan_params params;
	struct plan_error perr;
	size_t n;

	if (file_params(j, &params) != STEP_OK)
		return STEP_STOP;
	if (plan_checked(j, &params, &j->plan, &perr) != 0) {
		if (!refusal_finding(&perr, &f[0], &j->class)) {
			plan_strerror(&perr, j->msg, sizeof(j->msg));
			return file_error(j, "%s", j->msg);
		}
		report_check(j->out, j->o, j->name, &j->layout, &j->plan, f, 1,
		    1, j->class);
		return STEP_OK;
	}
	n = readiness_findings(&j->layout, &j->plan, f, MAX_FINDINGS);
	j->class = readiness_verdict(&j->plan);
	/* -v: the windows now on this host too, as --report counts them. */
	j->plan.windows_now_host = j->plan.windows_now;
	if (j->o->verbose > 0 && host_placement(j, &params, true) == STEP_OK)
		j->plan.windows_now_host = plan_windows_now(&j->layout,
		    &j->plan, params.huge_align, params.placed_by_offset);
	/* What the rewrite of the same run would leave: not done. */
	if (j->class == FILE_NEEDS_REWRITE && j->st.st_nlink > 1 &&
	    !links_complete(j))
		j->class = FILE_NOT_DONE;
	report_check(j->out, j->o, j->name, &j->layout, &j->plan, f,
	    n < MAX_FINDINGS ? n : MAX_FINDINGS, n, j->class);
	if (j->class == FILE_NOT_DONE)
		report_check_not_done(j->out, j->o, j->name,
		    (uintmax_t)j->st.st_nlink, j->links ? j->links->found : 1);
	return STEP_OK;
}

/* --check --compat: does it load on --page-size pages?  No plan needed. */
static enum step
do_compat(struct job *j)
{
	struct finding f[MAX_FINDINGS];
	uint64_t page = j->o->page_size;
	size_t n;

	if (!machine_runs_page(j->layout.machine, page))
		return file_error(j, "%s kernels do not run pages of %ju bytes",
		    machine_name(j->layout.machine), (uintmax_t)page);
	if (compat_report(&j->layout, page, f, MAX_FINDINGS, &n,
	    &j->class) != 0)
		return file_error(j, "out of memory");
	report_compat(j->out, j->o, j->name, &j->layout, page, f,
	    n < MAX_FINDINGS ? n : MAX_FINDINGS, n, j->class);
	return STEP_OK;
}

/* --warm, and --warm -n: the page-cache step alone. */
static enum step
do_warm(struct job *j)
{
	struct plan_params params;
	bool per_window = j->o->dry_run || j->o->verbose > 0, shown;
	uint8_t *states = NULL;
	uint64_t nranges = 0;
	enum step c;

	if ((c = file_params(j, &params)) != STEP_OK ||
	    (c = make_plan(j, &params, &j->plan)) != STEP_OK)
		return c;
	c = cache_step(j, j->fd, j->path, &j->layout, j->plan.base_aligned_now,
	    j->o->dry_run, per_window ? &states : NULL, &nranges);
	if (c == STEP_OK)
		j->class = warm_verdict(&j->cache);
	/* Files with nothing to warm only with -v; -q: only those not huge. */
	shown = j->o->format == FORMAT_JSON || (j->class == FILE_NO_WINDOWS ?
	    j->o->verbose > 0 : !j->o->quiet || j->class != FILE_READY);
	if (c == STEP_OK && shown)
		report_warm(j->out, j->o, j->name, &j->cache, j->class, states,
		    nranges);
	free(states);
	return c;
}

enum file_class
process_file(const char *name, const struct options *o, FILE *out, FILE *err,
    const struct walk_ref *walk)
{
	const struct file_ref r = { .name = name, .walk = walk };

	return process_file_ref(&r, o, out, err);
}

enum file_class
process_file_ref(const struct file_ref *r, const struct options *o, FILE *out,
    FILE *err)
{
	struct job j = { .name = r->name, .o = o, .out = out, .err = err,
		.walk = r->walk, .from_walk = r->walk != NULL,
		.listed = r->listed, .links = r->links, .dfd = -1, .fd = -1,
		.new_fd = -1, .class = FILE_DONE };
	bool in_place = o->mode == MODE_REWRITE && !o->dry_run &&
	    o->output == NULL;
	enum step c;

	c = open_input(&j, in_place);
	/* An APK, bundle or zip: its native libraries, each with the rules. */
	if (c == STEP_OK && o->mode == MODE_CHECK && o->compat &&
	    archive_named(j.name, j.fd, j.from_walk)) {
		j.class = archive_check(j.fd, j.name, o, out, err);
		c = STEP_STOP;
	}
	if (c == STEP_OK)
		c = read_layout(&j);
	if (c == STEP_OK)
		c = validate_layout(&j);
	if (c == STEP_OK && o->mode == MODE_REWRITE)
		c = do_rewrite(&j);
	else if (c == STEP_OK && o->mode == MODE_REPORT)
		c = do_report(&j);
	else if (c == STEP_OK && o->mode == MODE_CHECK)
		c = o->compat ? do_compat(&j) : do_check(&j);
	else if (c == STEP_OK && o->mode == MODE_WARM)
		c = do_warm(&j);
	plan_free(&j.plan);
	layout_free(&j.layout);
	if (j.fd >= 0)
		close(j.fd);	/* also drops the lock */
	if (j.new_fd >= 0)
		close(j.new_fd);
	if (j.dfd >= 0)
		close(j.dfd);
	free(j.new_path);
	free(j.after);
	free(j.path);
	return j.class;
}
