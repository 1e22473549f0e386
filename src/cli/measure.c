/* SPDX-License-Identifier: BSD-2-Clause */
/* SPDX-FileCopyrightText: 2026 the elfthp-align authors */
/*
 * --measure: is COMMAND faster with its text huge?  An A/B on the user's
 * own program, in which the two states differ in whether the FILEs' text
 * is PMD-mapped, nothing else: the same files and page cache; the small
 * rounds start COMMAND with PR_SET_THP_DISABLE (inherited by its
 * children), the huge ones without.
 *
 *   1. a warm-up round (uncounted, COMMAND's output shown) finds the files
 *      its processes map; named FILEs must be among them;
 *   2. the page-cache step (--warm) on each; a file that needs a rewrite
 *      is never rewritten here: named, it is refused, else left out;
 *   3. what a huge round must show (each FILE's PMD-mapped kB): the
 *      warm-up's, or a second uncounted round's where step 2 had to make
 *      a file huge first;
 *   4. PAIRS pairs, small and huge in a random order within each pair,
 *      each round verified (core: round_verified) or not counted;
 *   5. per metric, medians and the pair-by-pair ratio (core:
 *      metric_summarize), as text or one JSON object.
 * With --before ORIG FILE, a second comparison: ORIG checked to be FILE's
 * original (same_program), an uncounted before round, then with each
 * toggle pair a pair of a before round (ORIG bind-mounted over FILE in a
 * private mount namespace) and an after round (FILE as it is), each
 * verified (core: round_ba_verified); every result names its comparison.
 */
#include <bsd/stdlib.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "elfthp_cli.h"

/* The Makefile says where make install puts the audit module; builds of
 * the sources alone (check-vm's static tool, the fuzzers) get the
 * default PREFIX's. */
#ifndef ELFTHP_PKGLIBDIR
#define ELFTHP_PKGLIBDIR "/usr/local/lib/elfthp-align"
#endif

#define NMETRICS (6 + CTR_N)

struct round_rec {
	size_t pair;		/* 0: uncounted */
	bool ba;		/* the before-after comparison, else the toggle */
	bool huge;		/* before-after: the after round */
	bool audit;		/* the toggle: the audit module, else prctl */
	bool verified;
	char why[320];
	struct round_result r;
};

struct measure {
	const struct options *o;
	char **cmd;
	struct measure_file files[MEASURE_MAX_FILES];	/* found, then kept */
	size_t nfiles;
	uint64_t expected[MEASURE_MAX_FILES];
	char notes[8][PATH_MAX + 160];
	size_t nnotes;
	char ctr_why[CTR_N][192];
	struct round_rec *rounds;
	size_t nrounds;
	size_t valid_pairs;	/* of the toggle comparison */
	size_t valid_ba;	/* of the before-after comparison */
	const char *before;	/* --before ORIG, or NULL */
	char over[PATH_MAX];	/* the FILE ORIG is bind-mounted over */
	struct stat orig_st;	/* ORIG's device and inode */
	size_t rewrite_first;	/* files left out that need a rewrite */
	char confound[4][220];	/* what else differed between the states */
	size_t nconfounds;
	char audit[PATH_MAX];	/* the audit module, or "": prctl */
	char audit_files[MEASURE_MAX_FILES * 44];	/* "dev:ino,..." */
	char toggle_why[PATH_MAX + 160];	/* why prctl, or "" */
	size_t audit_rounds, prctl_rounds;	/* small rounds of each */
	char err[PATH_MAX + 320];
};

static const char *const metric_names[NMETRICS] = { "wall_s", "user_s",
	"sys_s", "minflt", "majflt", "maxrss_kB", "itlb_misses",
	"instructions", "cycles", "dtlb_misses" };

static int
fail(struct measure *m, const char *fmt, ...) PRINTF_LIKE(2, 3);

static int
fail(struct measure *m, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(m->err, sizeof(m->err), fmt, ap);
	va_end(ap);
	return -1;
}

/* A metric of a round, or NAN where it was not counted. */
static double
metric(const struct round_result *r, size_t k)
{
	switch (k) {
	case 0: return r->wall_s;
	case 1: return r->user_s;
	case 2: return r->sys_s;
	case 3: return (double)r->minflt;
	case 4: return (double)r->majflt;
	case 5: return (double)r->maxrss_kb;
	default:
		return r->counted[k - 6] ? (double)r->counter[k - 6] : NAN;
	}
}

static uint64_t
pmd_total(const struct measure *m, const struct round_result *r)
{
	uint64_t t = 0;
	size_t i;

	for (i = 0; i < m->nfiles; i++)
		t += r->pf.sum_kb[i];
	return t;
}

/* A COMMAND that fails ends the measurement. */
static int
command_ok(struct measure *m, const struct round_result *r)
{
	if (WIFSIGNALED(r->status))
		return fail(m, "%s was killed by signal %d; the measurement "
		    "stopped", m->cmd[0], WTERMSIG(r->status));
	if (WEXITSTATUS(r->status) != 0)
		return fail(m, "%s exited with status %d; the measurement "
		    "stopped", m->cmd[0], WEXITSTATUS(r->status));
	return 0;
}

/* One round of the toggle comparison (or the warm-up). */
static int
run_round(struct measure *m, bool huge, bool discover, bool show,
    struct round_result *r)
{
	bool audit = !discover && m->audit[0] != '\0';
	struct round_request q = { .argv = m->cmd, .thp_disable = !huge &&
		!audit, .audit = audit ? m->audit : NULL,
		.audit_files = m->audit_files, .small = !huge,
		.keep_output = show || m->o->keep_output,
		.stdout_to_stderr = m->o->format == FORMAT_JSON,
		.discover = discover, .counters = !discover,
		.expected = discover ? NULL : m->expected };
	char msg[512];

	if (measure_round(&q, m->files, &m->nfiles, discover ?
	    MEASURE_MAX_FILES : m->nfiles, r, msg, sizeof(msg)) != 0)
		return fail(m, "%s", msg);
	return command_ok(m, r);
}

/*
 * One round of the before-after comparison: COMMAND as it is (no toggle,
 * no audit module), with ORIG bind-mounted over FILE (before) or not
 * (after).  The files looked for: [0] the one the round must map (ORIG
 * before, FILE after), [1] the other, which no process may map.
 */
static int
run_ba_round(struct measure *m, bool after, bool counters,
    struct round_result *r)
{
	struct measure_file orig = { .dev = m->orig_st.st_dev,
		.ino = m->orig_st.st_ino, .path = (char *)m->before };
	struct measure_file f[2] = { after ? m->files[0] : orig,
		after ? orig : m->files[0] };
	uint64_t expected[2] = { m->expected[0], 0 };
	size_t nf = 2;
	struct round_request q = { .argv = m->cmd,
		.keep_output = m->o->keep_output,
		.stdout_to_stderr = m->o->format == FORMAT_JSON,
		.counters = counters, .expected = after ? expected : NULL,
		.bind_from = after ? NULL : m->before,
		.bind_over = after ? NULL : m->over };
	char msg[512];

	if (measure_round(&q, f, &nf, 2, r, msg, sizeof(msg)) != 0)
		return fail(m, "%s", msg);
	return command_ok(m, r);
}

static void
note(struct measure *m, const char *fmt, ...) PRINTF_LIKE(2, 3);

static void
note(struct measure *m, const char *fmt, ...)
{
	va_list ap;

	if (m->nnotes == sizeof(m->notes) / sizeof(m->notes[0]))
		return;
	va_start(ap, fmt);
	vsnprintf(m->notes[m->nnotes++], sizeof(m->notes[0]), fmt, ap);
	va_end(ap);
}

/* The page-cache step on one file (never a rewrite): its verdict. */
static enum file_class
warm_one(const struct measure *m, const char *path)
{
	struct options w = *m->o;
	char *out = NULL, *err = NULL;
	size_t olen, elen;
	FILE *fo = open_memstream(&out, &olen);
	FILE *fe = open_memstream(&err, &elen);
	enum file_class c = FILE_ERROR;

	w.mode = MODE_WARM;
	w.format = FORMAT_TEXT;
	w.dry_run = false;
	if (fo != NULL && fe != NULL)
		c = process_file(path, &w, fo, fe, NULL);
	if (fo)
		fclose(fo);
	if (fe)
		fclose(fe);
	free(out);
	free(err);
	return c;
}

/* Is a found file one of the named FILEs?  By device and inode. */
static bool
named(const struct measure *m, const struct measure_file *f, char **paths,
    size_t npaths, const char **which)
{
	struct stat st;
	size_t i;

	for (i = 0; i < npaths; i++)
		if (stat(paths[i], &st) == 0 && st.st_dev == f->dev &&
		    st.st_ino == f->ino) {
			*which = paths[i];
			return true;
		}
	(void)m;
	return false;
}

/* A named FILE the warm-up did not see: refused, with the reason. */
static int
named_missing(struct measure *m, char **paths, size_t npaths)
{
	struct stat st;
	const char *which;
	size_t i, k;

	for (i = 0; i < npaths; i++) {
		if (stat(paths[i], &st) != 0)
			return fail(m, "%s: %s", paths[i], strerror(errno));
		for (k = 0; k < m->nfiles; k++)
			if (named(m, &m->files[k], &paths[i], 1, &which))
				break;
		if (k == m->nfiles)
			return fail(m, "%s: %s does not map it (warm-up round)",
			    paths[i], m->cmd[0]);
	}
	return 0;
}

/* What the page-cache step's verdict means for a FILE: keep it, or why not. */
static const char *
not_ready(enum file_class c)
{
	switch (c) {
	case FILE_READY:
	case FILE_NOT_HUGE:
		return NULL;
	case FILE_NEEDS_REWRITE:
		return "its layout is not aligned (--measure never rewrites)";
	case FILE_ERROR:
		return "the page-cache step failed (run elfthp-align --warm on "
		    "it to see why)";
	default:
		return "";	/* no window: not a FILE, nothing to say */
	}
}

/* Step 2 for one found file: kept (true), or left out with a note. */
static int
consider(struct measure *m, size_t k, char **paths, size_t npaths,
    bool *keep)
{
	const struct measure_file *f = &m->files[k];
	const char *which = f->path, *why;
	size_t len = strlen(f->path);
	bool is_named = npaths > 0 && named(m, f, paths, npaths, &which);

	*keep = false;
	if ((npaths > 0 && !is_named) || (len > 10 &&
	    strcmp(f->path + len - 10, " (deleted)") == 0))
		return 0;
	why = not_ready(warm_one(m, f->path));
	if (why == NULL) {
		*keep = true;
		return 0;
	}
	if (is_named)
		return fail(m, "%s: not ready for --measure: %s; run "
		    "elfthp-align -- %s first%s", which, why[0] ? why :
		    "it has no window that can be huge", which, m->before ?
		    " (--before ORIG FILE: FILE is the rewritten file)" : "");
	if (why[0] != '\0')
		note(m, "%s: left out: %s", f->path, why);
	if (strcmp(why, not_ready(FILE_NEEDS_REWRITE)) == 0)
		m->rewrite_first++;
	return 0;
}

/* Steps 1-2: the FILEs, from the warm-up round r; expected from it. */
static int
choose_files(struct measure *m, const struct round_result *r, char **paths,
    size_t npaths)
{
	size_t k, n = 0;
	bool keep;

	if (npaths > 0 && named_missing(m, paths, npaths) != 0)
		return -1;
	for (k = 0; k < m->nfiles; k++) {
		if (consider(m, k, paths, npaths, &keep) != 0) {
			/* Keep only what is still owned: [0, n) and [k, ...). */
			while (k < m->nfiles)
				m->files[n++] = m->files[k++];
			m->nfiles = n;
			return -1;
		}
		if (!keep) {
			free(m->files[k].path);
			continue;
		}
		m->expected[n] = r->pf.max_kb[k];
		m->files[n++] = m->files[k];
	}
	m->nfiles = n;
	return 0;
}

/* Step 3: a second uncounted round where a FILE was small in the first. */
static int
calibrate(struct measure *m, struct round_result *r)
{
	size_t k, n = 0;
	bool again = false;

	for (k = 0; k < m->nfiles; k++)
		again = again || m->expected[k] == 0;
	memset(m->expected, 0, again ? sizeof(m->expected) : 0);
	if (again && run_round(m, true, false, false, r) != 0)
		return -1;
	for (k = 0; k < m->nfiles; k++) {
		if (again)
			m->expected[k] = r->pf.max_kb[k];
		if (m->expected[k] == 0) {
			note(m, "%s: left out: not PMD-mapped by the command "
			    "even with its windows in the page cache",
			    m->files[k].path);
			free(m->files[k].path);
			continue;
		}
		m->expected[n] = m->expected[k];
		m->files[n++] = m->files[k];
	}
	m->nfiles = n;
	if (n == 0 && m->rewrite_first > 0)
		return fail(m, "no file %s maps was PMD-mapped in the warm-up "
		    "round: rewrite its program first (elfthp-align -- PATH), "
		    "then measure", m->cmd[0]);
	if (n == 0)
		return fail(m, "no file %s maps was PMD-mapped in the warm-up "
		    "round, and none needs a rewrite: no file it maps has a "
		    "window that can be huge here (see the notes)", m->cmd[0]);
	return 0;
}

/*
 * What a round's tree did that the looks at its processes' exits cannot
 * vouch for: false, with why, if anything.
 */
static bool
tree_accounted(const struct round_result *r, char *why, size_t n)
{
	if (r->untraced > 0)
		snprintf(why, n, "%zu process%s escaped the trace "
		    "(CLONE_UNTRACED): %s mappings were never looked at",
		    r->untraced, r->untraced == 1 ? "" : "es",
		    r->untraced == 1 ? "its" : "their");
	else if (r->thp_changed > 0)
		snprintf(why, n, "%zu process%s changed %s THP state itself "
		    "(prctl PR_SET_THP_DISABLE) during the round", r->thp_changed,
		    r->thp_changed == 1 ? "" : "es",
		    r->thp_changed == 1 ? "its" : "their");
	else if (r->killed > 0)
		snprintf(why, n, "%zu process%s still running %d s after the "
		    "command exited: killed", r->killed, r->killed == 1 ? " was" :
		    "es were", MEASURE_GRACE_S);
	else
		return true;
	return false;
}

/*
 * A small round where the audit module did not advise a process that
 * maps a FILE's text (a static or set-ID program in the tree, LD_AUDIT
 * removed): not counted, and the later small rounds use prctl.
 */
static void
audit_missed(struct measure *m, struct round_rec *x)
{
	snprintf(x->why, sizeof(x->why), "the audit module did not advise "
	    "%zu process%s mapping a file's text (no \"nh\" in its VmFlags: "
	    "a static or set-ID program, or LD_AUDIT removed); the later "
	    "small rounds use prctl(PR_SET_THP_DISABLE)", x->r.unadvised,
	    x->r.unadvised == 1 ? "" : "es");
	snprintf(m->toggle_why, sizeof(m->toggle_why), "the audit module "
	    "did not advise every process of the command (round %zu)",
	    m->nrounds);
	m->audit[0] = '\0';
}

/* COMMAND's program as execvp finds it: its path in p, or false. */
static bool
program_path(const char *cmd, char *p, size_t n)
{
	const char *dirs = getenv("PATH"), *end;

	if (strchr(cmd, '/') != NULL)
		return (size_t)snprintf(p, n, "%s", cmd) < n;
	for (dirs = dirs ? dirs : "/usr/bin:/bin"; *dirs != '\0'; dirs = end +
	    (*end != '\0')) {
		end = dirs + strcspn(dirs, ":");
		if ((size_t)snprintf(p, n, "%.*s/%s", (int)(end - dirs), dirs,
		    cmd) < n && access(p, X_OK) == 0)
			return true;
	}
	return false;
}

/* An ELF program with no PT_INTERP: no ld.so runs in it. */
static bool
statically_linked(int fd)
{
	Elf64_Ehdr e;
	Elf64_Phdr ph;
	unsigned i;

	if (pread(fd, &e, sizeof(e), 0) != (ssize_t)sizeof(e) ||
	    memcmp(e.e_ident, ELFMAG, SELFMAG) != 0 ||
	    e.e_ident[EI_CLASS] != ELFCLASS64 || e.e_phentsize != sizeof(ph))
		return false;
	for (i = 0; i < e.e_phnum; i++)
		if (pread(fd, &ph, sizeof(ph), (off_t)(e.e_phoff + i *
		    sizeof(ph))) != (ssize_t)sizeof(ph) || ph.p_type == PT_INTERP)
			return false;
	return true;
}

/* Where the audit module is: ELFTHP_AUDIT_MODULE, beside the tool, installed. */
static bool
find_module(char *p, size_t n)
{
	const char *env = getenv("ELFTHP_AUDIT_MODULE");
	char self[PATH_MAX];
	ssize_t k = readlink("/proc/self/exe", self, sizeof(self) - 1);
	char *slash;

	if (env != NULL && env[0] != '\0')
		return (size_t)snprintf(p, n, "%s", env) < n &&
		    access(p, R_OK) == 0;
	if (k > 0) {
		self[k] = '\0';
		if ((slash = strrchr(self, '/')) != NULL &&
		    (size_t)snprintf(p, n, "%.*s/elfthp-audit.so",
		    (int)(slash - self), self) < n && access(p, R_OK) == 0)
			return true;
	}
	return (size_t)snprintf(p, n, "%s/elfthp-audit.so",
	    ELFTHP_PKGLIBDIR) < n && access(p, R_OK) == 0;
}

/*
 * The small state's toggle: the audit module where ld.so will load it
 * (COMMAND dynamically linked, not set-ID), else prctl, with why.
 */
static void
choose_toggle(struct measure *m)
{
	const char *force = getenv("ELFTHP_MEASURE_TOGGLE");
	char prog[PATH_MAX];
	struct stat st;
	size_t i, k = 0;
	int fd;

	m->audit[0] = '\0';
	if (force != NULL && strcmp(force, "prctl") == 0)
		snprintf(m->toggle_why, sizeof(m->toggle_why),
		    "ELFTHP_MEASURE_TOGGLE=prctl");
	else if (!find_module(m->audit, sizeof(m->audit)))
		snprintf(m->toggle_why, sizeof(m->toggle_why), "no audit "
		    "module (elfthp-audit.so beside the tool or in %s)",
		    ELFTHP_PKGLIBDIR);
	else if (!program_path(m->cmd[0], prog, sizeof(prog)) ||
	    (fd = open(prog, O_RDONLY | O_CLOEXEC)) < 0)
		snprintf(m->toggle_why, sizeof(m->toggle_why), "%s: not "
		    "found or unreadable: its linking is unknown", m->cmd[0]);
	else {
		if (fstat(fd, &st) == 0 && (st.st_mode & (S_ISUID | S_ISGID)))
			snprintf(m->toggle_why, sizeof(m->toggle_why), "%s is "
			    "set-ID: ld.so ignores LD_AUDIT there", prog);
		else if (statically_linked(fd))
			snprintf(m->toggle_why, sizeof(m->toggle_why), "%s is "
			    "statically linked: no ld.so loads the module", prog);
		close(fd);
	}
	if (m->toggle_why[0] != '\0')
		m->audit[0] = '\0';
	for (i = 0; i < m->nfiles && k < sizeof(m->audit_files); i++)
		k += (size_t)snprintf(m->audit_files + k, sizeof(m->audit_files)
		    - k, "%s%ju:%ju", i ? "," : "", (uintmax_t)m->files[i].dev,
		    (uintmax_t)m->files[i].ino);
}

/* A round's state in words: small, huge (toggle), before, after. */
static const char *
state_name(const struct round_rec *x)
{
	if (x->ba)
		return x->huge ? "after" : "before";
	return x->huge ? "huge" : "small";
}

/* A counted round of the toggle: run, then verified from its processes. */
static int
counted_round(struct measure *m, size_t pair, bool huge)
{
	struct round_rec *x = &m->rounds[m->nrounds];
	const char *why;
	size_t bad;

	*x = (struct round_rec){ .pair = pair, .huge = huge,
		.audit = m->audit[0] != '\0' };
	if (run_round(m, huge, false, false, &x->r) != 0)
		return -1;
	m->nrounds++;
	if (!huge)
		(x->audit ? &m->audit_rounds : &m->prctl_rounds)[0]++;
	if (x->r.unread[0] != '\0')
		snprintf(x->why, sizeof(x->why), "could not look: %s",
		    x->r.unread);
	else if (!tree_accounted(&x->r, x->why, sizeof(x->why)))
		;
	else if (!huge && x->audit && x->r.unadvised > 0)
		audit_missed(m, x);
	else if (!round_verified(huge, &x->r.pf, m->expected, m->nfiles,
	    &bad, &why))
		snprintf(x->why, sizeof(x->why), "%s: %s (%" PRIu64 " kB in "
		    "%" PRIu32 " process%s, %" PRIu64 " kB the least; expected "
		    "%s%" PRIu64 " kB in each; %zu of %zu processes huge)",
		    m->files[bad].path, why, x->r.pf.sum_kb[bad],
		    x->r.pf.nmap[bad], x->r.pf.nmap[bad] == 1 ? "" : "es",
		    x->r.pf.min_kb[bad], huge ? "" : "0, not ",
		    m->expected[bad], x->r.huge_procs, x->r.mappers);
	else
		x->verified = true;
	return 0;
}

/*
 * A counted round of the before-after comparison: every process that
 * maps the program maps the original (before) or the rewritten file with
 * each window PMD-mapped (after), or the round is not counted.
 */
static int
counted_ba_round(struct measure *m, size_t pair, bool after)
{
	struct round_rec *x = &m->rounds[m->nrounds];
	const char *why;

	*x = (struct round_rec){ .pair = pair, .ba = true, .huge = after };
	if (run_ba_round(m, after, true, &x->r) != 0)
		return -1;
	m->nrounds++;
	if (x->r.unread[0] != '\0')
		snprintf(x->why, sizeof(x->why), "could not look: %s",
		    x->r.unread);
	else if (!tree_accounted(&x->r, x->why, sizeof(x->why)))
		;
	else if (!round_ba_verified(after, &x->r.pf, m->expected, &why))
		snprintf(x->why, sizeof(x->why), "%s (%s: %" PRIu32 " process%s"
		    ", %" PRIu64 " kB PMD-mapped, %" PRIu64 " kB the least; the "
		    "%s: %" PRIu32 ")", why, after ? m->files[0].path : m->before,
		    x->r.pf.nmap[0], x->r.pf.nmap[0] == 1 ? "" : "es",
		    x->r.pf.sum_kb[0], x->r.pf.min_kb[0], after ? "original" :
		    "rewritten file", x->r.pf.nmap[1]);
	else
		x->verified = true;
	return 0;
}

/*
 * A pair whose rounds made the kernel read different amounts from
 * storage (a file evicted before one of them) did not differ in the text
 * alone: neither round is counted.  64 kB and 10 % of slack.
 */
static void
reads_differ(struct round_rec *a, struct round_rec *b)
{
	const struct round_rec *sm = a->huge ? b : a, *h = a->huge ? a : b;
	uint64_t lo = sm->r.read_bytes, hi = h->r.read_bytes, t;

	if (lo > hi) {
		t = lo;
		lo = hi;
		hi = t;
	}
	if (!a->verified || !b->verified || hi - lo <= 65536 ||
	    hi - lo <= hi / 10)
		return;
	a->verified = b->verified = false;
	snprintf(a->why, sizeof(a->why), "the pair's rounds read different "
	    "amounts from storage (%s %" PRIu64 " kB, %s %" PRIu64 " kB): the "
	    "page cache was not the same", state_name(sm), sm->r.read_bytes /
	    1024, state_name(h), h->r.read_bytes / 1024);
	memcpy(b->why, a->why, sizeof(b->why));
}

/*
 * --pairs auto: enough pairs when wall_s's 95 % interval is narrower than
 * AUTO_WIDTH (ci_high - ci_low of the ratio), or after AUTO_BUDGET_S of
 * counted rounds; a note says which.
 */
#define AUTO_WIDTH 0.05
#define AUTO_BUDGET_S 600.0

static size_t pair_values(const struct measure *, bool, size_t, double *,
    double *);

/* Pairs run of a comparison (ba: before-after, else the toggle). */
static size_t
pairs_run(const struct measure *m, bool ba)
{
	size_t i, n = 0;

	for (i = 0; i + 1 < m->nrounds; i += 2)
		n += m->rounds[i].ba == ba;
	return n;
}

/* Is wall_s's interval of a comparison narrow enough?  Its width. */
static bool
narrow(const struct measure *m, bool ba, double *width)
{
	double *v;
	struct metric_summary s;
	size_t n;
	bool done = false;

	if ((ba ? m->valid_ba : m->valid_pairs) < MEASURE_MIN_PAIRS ||
	    (v = calloc(2 * m->nrounds + 2, sizeof(*v))) == NULL)
		return false;
	n = pair_values(m, ba, 0, v, v + m->nrounds + 1);
	if (metric_summarize(v, v + m->nrounds + 1, n, &s) == 0 && s.ci &&
	    s.ci_high - s.ci_low < AUTO_WIDTH) {
		*width = s.ci_high - s.ci_low;
		done = true;
	}
	free(v);
	return done;
}

/* --pairs auto: every comparison's interval narrow, or the budget spent. */
static bool
enough_pairs(struct measure *m, double spent)
{
	double w[2] = { 0, 0 };

	if (spent >= AUTO_BUDGET_S) {
		note(m, "--pairs auto: stopped after %zu pairs, the time budget "
		    "(%.0f s of rounds) spent", pairs_run(m, false),
		    AUTO_BUDGET_S);
		return true;
	}
	if (!narrow(m, false, &w[0]) ||
	    (m->before != NULL && !narrow(m, true, &w[1])))
		return false;
	if (m->before == NULL)
		note(m, "--pairs auto: stopped after %zu pairs, wall_s's 95 %% "
		    "interval %.1f points wide (under %.0f)", pairs_run(m, false),
		    w[0] * 100, AUTO_WIDTH * 100);
	else
		note(m, "--pairs auto: stopped after %zu pairs, wall_s's 95 %% "
		    "interval %.1f points wide (under %.0f), before-after's %.1f",
		    pairs_run(m, false), w[0] * 100, AUTO_WIDTH * 100, w[1] * 100);
	return true;
}

/* One pair of a comparison, its two rounds in a random order: wall_s. */
static int
run_pair(struct measure *m, size_t p, bool ba, double *spent)
{
	bool huge_first = arc4random_uniform(2) == 1;
	struct round_rec *a, *b;

	if (ba ? counted_ba_round(m, p, huge_first) != 0 ||
	    counted_ba_round(m, p, !huge_first) != 0 :
	    counted_round(m, p, huge_first) != 0 ||
	    counted_round(m, p, !huge_first) != 0)
		return -1;
	a = &m->rounds[m->nrounds - 2];
	b = &m->rounds[m->nrounds - 1];
	reads_differ(a, b);
	if (a->verified && b->verified)
		(ba ? &m->valid_ba : &m->valid_pairs)[0]++;
	*spent += a->r.wall_s + b->r.wall_s;
	return 0;
}

/*
 * Step 4: the pairs, in a random order within each; with --before, each
 * pair number has a pair of both comparisons, in a random order too.
 */
static int
run_pairs(struct measure *m)
{
	size_t p, per = m->before != NULL ? 4 : 2;
	bool ba_first;
	double spent = 0;

	m->rounds = calloc(per * m->o->pairs, sizeof(*m->rounds));
	if (m->rounds == NULL)
		return fail(m, "out of memory");
	for (p = 1; p <= m->o->pairs; p++) {
		ba_first = m->before != NULL && arc4random_uniform(2) == 1;
		if (run_pair(m, p, ba_first, &spent) != 0 ||
		    (m->before != NULL && run_pair(m, p, !ba_first, &spent) != 0))
			return -1;
		if (m->o->pairs_auto && enough_pairs(m, spent))
			break;
	}
	return 0;
}

/* Metric k over a comparison's valid pairs: small[i], huge[i]; how many. */
static size_t
pair_values(const struct measure *m, bool ba, size_t k, double *small,
    double *huge)
{
	size_t i, n = 0;

	for (i = 0; i + 1 < m->nrounds; i += 2) {
		const struct round_rec *a = &m->rounds[i], *b = &m->rounds[i + 1];
		const struct round_rec *s = a->huge ? b : a, *h = a->huge ? a : b;

		if (a->ba != ba || !a->verified || !b->verified ||
		    isnan(metric(&s->r, k)) || isnan(metric(&h->r, k)))
			continue;
		small[n] = metric(&s->r, k);
		huge[n++] = metric(&h->r, k);
	}
	return n;
}

static int
cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* anon_huge_kb's median over a comparison's valid rounds of a state. */
static uint64_t
anon_median(const struct measure *m, bool ba, bool huge, uint64_t *v)
{
	size_t i, n = 0;

	for (i = 0; i + 1 < m->nrounds; i += 2) {
		const struct round_rec *a = &m->rounds[i], *b = &m->rounds[i + 1];

		if (a->ba == ba && a->verified && b->verified)
			v[n++] = (a->huge == huge ? a : b)->r.anon_huge_kb;
	}
	if (n == 0)
		return 0;
	qsort(v, n, sizeof(*v), cmp_u64);
	return v[n / 2];
}

/*
 * What else differed between the states over the valid pairs: the
 * anonymous memory's (and other files' shmem) huge pages, which
 * PR_SET_THP_DISABLE also takes away.  Storage reads are per pair
 * (reads_differ).  The before-after comparison's are named as such.
 */
static void
find_confounds(struct measure *m)
{
	uint64_t *v = calloc(m->nrounds + 1, sizeof(*v)), h, sm;
	int ba;

	if (v == NULL)
		return;
	for (ba = 0; ba <= (m->before != NULL); ba++) {
		h = anon_median(m, ba, true, v);
		sm = anon_median(m, ba, false, v);
		if (h != sm)
			snprintf(m->confound[m->nconfounds++],
			    sizeof(m->confound[0]), "%sheap THP: %" PRIu64
			    " kB in %s rounds, %" PRIu64 " in %s (AnonHugePages, "
			    "medians)", ba ? "before-after: " : "", h, ba ?
			    "after" : "huge", sm, ba ? "before" : "small");
	}
	free(v);
}

/* --- output: formatting only ---------------------------------------------- */

static void
text_header(const struct measure *m, const char *thp)
{
	size_t i;
	int k;

	printf("measure: %zu pair%s of rounds, small and huge in a random "
	    "order within each pair, after an uncounted warm-up\n",
	    pairs_run(m, false), pairs_run(m, false) == 1 ? "" : "s");
	if (m->before != NULL)
		printf("before-after: %zu pair%s of rounds, before and after "
		    "in a random order within each pair, after an uncounted "
		    "before round: before, %s bind-mounted over %s in a private "
		    "mount namespace (its page cache as the runs fill it); "
		    "after, %s as it is; both without the toggle\n",
		    pairs_run(m, true), pairs_run(m, true) == 1 ? "" : "s",
		    m->before, m->over, m->files[0].path);
	printf("command:");
	for (i = 0; m->cmd[i] != NULL; i++) {
		char w[SHELL_WORD_MAX];

		shell_word(w, sizeof(w), m->cmd[i]);
		printf(" %s", w);
	}
	printf("\n");
	for (i = 0; i < m->nfiles; i++)
		printf("file: %s (%" PRIu64 " kB PMD-mapped when huge)\n",
		    m->files[i].path, m->expected[i]);
	for (i = 0; i < m->nnotes; i++)
		printf("note: %s\n", m->notes[i]);
	if (m->audit_rounds > 0)
		printf("toggle: audit: %zu small round%s ran with LD_AUDIT=%s, "
		    "which advises the files' read-only mappings "
		    "MADV_NOHUGEPAGE in every process and leaves anonymous "
		    "memory alone\n", m->audit_rounds, m->audit_rounds == 1 ?
		    "" : "s", m->audit);
	if (m->prctl_rounds > 0)
		printf("toggle: prctl: %zu small round%s started the command "
		    "with prctl(PR_SET_THP_DISABLE) (%s), which its children "
		    "inherit; it also turns off transparent huge pages for "
		    "their anonymous memory (here THP enabled=%s)\n",
		    m->prctl_rounds, m->prctl_rounds == 1 ? "" : "s",
		    m->toggle_why, thp);
	for (k = 0; k < CTR_N; k++)
		if (m->ctr_why[k][0] != '\0')
			printf("counter: %s not available: %s\n",
			    counter_names[k], m->ctr_why[k]);
}

static void
text_value(double v, size_t k)
{
	if (isnan(v))
		printf(" %12s", "n/a");
	else if (k <= 2)
		printf(" %12.3f", v);
	else
		printf(" %12.0f", v);
}

/* A round's toggle: audit or prctl; "none" for the before-after rounds. */
static const char *
toggle_name(const struct round_rec *x)
{
	if (x->ba)
		return "none";
	return x->audit ? "audit" : "prctl";
}

static void
text_rounds(const struct measure *m)
{
	size_t i, k;

	printf("%5s %5s %6s %6s %8s %9s %7s %9s %9s", "round", "pair", "state",
	    "toggle", "verified", "pmd_kB", "huge/p", "anon_kB", "read_kB");
	for (k = 0; k < NMETRICS; k++)
		printf(" %12s", metric_names[k]);
	printf("\n");
	for (i = 0; i < m->nrounds; i++) {
		const struct round_rec *x = &m->rounds[i];

		printf("%5zu %5zu %6s %6s %8s %9" PRIu64 " %3zu/%-3zu %9" PRIu64
		    " %9" PRIu64, i + 1, x->pair, state_name(x), toggle_name(x),
		    x->verified ? "yes" : "NO", pmd_total(m, &x->r),
		    x->r.huge_procs, x->r.mappers, x->r.anon_huge_kb,
		    x->r.read_bytes / 1024);
		for (k = 0; k < NMETRICS; k++)
			text_value(metric(&x->r, k), k);
		printf("\n");
		if (!x->verified)
			printf("      not counted: %s\n", x->why);
	}
}

/* Was a confound named for this comparison (its differences not the text's)? */
static bool
confounded(const struct measure *m, bool ba)
{
	size_t i;

	for (i = 0; i < m->nconfounds; i++)
		if ((strncmp(m->confound[i], "before-after: ", 14) == 0) == ba)
			return true;
	return false;
}

/* The ratio of one metric, its interval, and what may be said of it. */
static void
text_ratio(const struct measure *m, bool ba, size_t k,
    const struct metric_summary *s)
{
	printf("%-13s %s %.6g (%.6g .. %.6g), %s %.6g (%.6g .. %.6g): "
	    "%+.1f %% (pairs: %+.1f .. %+.1f %%", metric_names[k],
	    ba ? "before" : "small", s->small_median, s->small_min,
	    s->small_max, ba ? "after" : "huge", s->huge_median, s->huge_min,
	    s->huge_max, (s->ratio_median - 1) * 100,
	    (s->ratio_min - 1) * 100, (s->ratio_max - 1) * 100);
	if (s->ci)
		printf("; 95 %% interval %+.1f .. %+.1f %%)%s", (s->ci_low - 1)
		    * 100, (s->ci_high - 1) * 100, s->noise ?
		    ", within noise" : "");
	else
		printf("), within noise: %zu pair%s, fewer than %d give no "
		    "interval", s->n, s->n == 1 ? "" : "s", MEASURE_MIN_PAIRS);
	printf("%s\n", confounded(m, ba) && !s->noise ? ", not the text's "
	    "alone (see the confound)" : "");
}

/* "wall_s: small 1.234 (1.200 .. 1.300), huge ...: -10.9 % (pairs ...)" */
static void
text_metric(const struct measure *m, bool ba, size_t k)
{
	double *v = calloc(2 * m->nrounds + 2, sizeof(*v));
	struct metric_summary s;
	size_t n;

	if (v == NULL)
		return;
	n = pair_values(m, ba, k, v, v + m->nrounds + 1);
	if (k >= 6 && m->ctr_why[k - 6][0] != '\0')
		printf("%-13s not available (see above)\n", metric_names[k]);
	else if (n == 0)
		printf("%-13s no pair to compare\n", metric_names[k]);
	else if (metric_summarize(v, v + m->nrounds + 1, n, &s) != 0)
		printf("%-13s out of memory\n", metric_names[k]);
	else if (s.n == 0)
		printf("%-13s %s %.6g, %s %.6g (%.6g .. %.6g): no ratio, 0 in "
		    "every %s round\n", metric_names[k], ba ? "before" : "small",
		    s.small_median, ba ? "after" : "huge", s.huge_median,
		    s.huge_min, s.huge_max, ba ? "before" : "small");
	else
		text_ratio(m, ba, k, &s);
	free(v);
}

static void
json_round_files(struct json *j, const struct measure *m,
    const struct round_rec *x)
{
	size_t k;

	json_array(j, "files");
	for (k = 0; k < m->nfiles; k++) {
		json_object(j, NULL);
		json_u64(j, "pmd_kB", x->r.pf.sum_kb[k]);
		json_u64(j, "pmd_kB_min", x->r.pf.min_kb[k]);
		json_u64(j, "processes", x->r.pf.nmap[k]);
		json_close(j);
	}
	json_close(j);
}

/* Why some of a round's metrics are null (counters), or NULL. */
static const char *
round_null_why(const struct measure *m, const struct round_rec *x)
{
	int k;

	for (k = 0; k < CTR_N; k++)
		if (!x->r.counted[k])
			return m->ctr_why[k][0] != '\0' ? "a hardware counter is "
			    "not available here (the summary's not_available "
			    "says why)" : "a hardware counter could not be "
			    "opened or read in this round";
	return NULL;
}

static void
json_round(struct json *j, const struct measure *m, size_t i)
{
	const struct round_rec *x = &m->rounds[i];
	size_t k;

	json_object(j, NULL);
	json_u64(j, "round", i + 1);
	json_u64(j, "pair", x->pair);
	json_str(j, "comparison", x->ba ? "before-after" : "toggle");
	json_str(j, "state", state_name(x));
	json_str(j, "toggle", toggle_name(x));
	json_bool(j, "verified", x->verified);
	json_str(j, "why", x->verified ? NULL : x->why);
	json_u64(j, "pmd_kB", pmd_total(m, &x->r));
	json_u64(j, "processes", x->r.processes);
	json_u64(j, "mapping_processes", x->r.mappers);
	json_u64(j, "huge_processes", x->r.huge_procs);
	json_round_files(j, m, x);
	json_u64(j, "escaped", x->r.untraced);
	json_u64(j, "killed", x->r.killed);
	json_u64(j, "thp_changed", x->r.thp_changed);
	json_u64(j, "anon_huge_kB", x->r.anon_huge_kb);
	json_u64(j, "read_bytes", x->r.read_bytes);
	for (k = 0; k < NMETRICS; k++)
		json_double(j, metric_names[k], metric(&x->r, k));
	json_str(j, "null_why", round_null_why(m, x));
	json_close(j);
}

/* Why a metric's ratio (or interval) is null; NULL when it is not. */
static const char *
null_why(const struct measure *m, size_t k, size_t n, bool ok,
    const struct metric_summary *s)
{
	if (k >= 6 && m->ctr_why[k - 6][0] != '\0')
		return m->ctr_why[k - 6];
	if (n == 0)
		return "no verified pair";
	if (!ok)
		return "out of memory";
	if (s->n == 0)
		return "0 in every small (or before) round: no ratio";
	if (!s->ci)
		return "fewer than 6 pairs with a ratio: no interval";
	return NULL;
}

static void
json_metric(struct json *j, const struct measure *m, bool ba, size_t k)
{
	double *v = calloc(2 * m->nrounds + 2, sizeof(*v));
	struct metric_summary s = { 0 };
	size_t n = v ? pair_values(m, ba, k, v, v + m->nrounds + 1) : 0;
	bool ok = n > 0 && metric_summarize(v, v + m->nrounds + 1, n, &s) == 0;
	bool r = ok && s.n > 0, ci = r && s.ci;

	json_object(j, NULL);
	json_str(j, "comparison", ba ? "before-after" : "toggle");
	json_str(j, "metric", metric_names[k]);
	json_u64(j, "pairs", ok ? s.pairs : 0);
	json_u64(j, "pairs_with_ratio", r ? s.n : 0);
	json_double(j, "small_median", ok ? s.small_median : NAN);
	json_double(j, "small_min", ok ? s.small_min : NAN);
	json_double(j, "small_max", ok ? s.small_max : NAN);
	json_double(j, "huge_median", ok ? s.huge_median : NAN);
	json_double(j, "huge_min", ok ? s.huge_min : NAN);
	json_double(j, "huge_max", ok ? s.huge_max : NAN);
	json_double(j, "ratio_median", r ? s.ratio_median : NAN);
	json_double(j, "ratio_min", r ? s.ratio_min : NAN);
	json_double(j, "ratio_max", r ? s.ratio_max : NAN);
	json_double(j, "ci_low", ci ? s.ci_low : NAN);
	json_double(j, "ci_high", ci ? s.ci_high : NAN);
	json_bool(j, "within_noise", !ci || s.noise);
	json_str(j, "null_why", null_why(m, k, n, ok, &s));
	json_str(j, "not_available", k >= 6 && m->ctr_why[k - 6][0] ?
	    m->ctr_why[k - 6] : NULL);
	json_close(j);
	free(v);
}

static void
json_files(struct json *j, const struct measure *m, const char *thp)
{
	size_t i;

	json_array(j, "command");
	for (i = 0; m->cmd[i] != NULL; i++)
		json_str(j, NULL, m->cmd[i]);
	json_close(j);
	json_array(j, "files");
	for (i = 0; i < m->nfiles; i++) {
		json_object(j, NULL);
		json_str(j, "path", m->files[i].path);
		json_u64(j, "pmd_kB_when_huge", m->expected[i]);
		json_close(j);
	}
	json_close(j);
	json_array(j, "notes");
	for (i = 0; i < m->nnotes; i++)
		json_str(j, NULL, m->notes[i]);
	json_close(j);
	json_str(j, "toggle", m->prctl_rounds == 0 ? "audit" :
	    m->audit_rounds == 0 ? "prctl" : "audit, then prctl");
	json_str(j, "toggle_why", m->prctl_rounds > 0 ? m->toggle_why : NULL);
	json_str(j, "confound", m->prctl_rounds == 0 ? NULL : "the small "
	    "rounds under prctl(PR_SET_THP_DISABLE) also get no transparent "
	    "huge pages for anonymous memory");
	json_str(j, "thp_enabled", thp);
}

/* Which comparisons ran, with their pairs (and for before-after, the files). */
static void
json_comparisons(struct json *j, const struct measure *m)
{
	int ba;

	json_array(j, "comparisons");
	for (ba = 0; ba <= (m->before != NULL); ba++) {
		json_object(j, NULL);
		json_str(j, "comparison", ba ? "before-after" : "toggle");
		if (ba) {
			json_str(j, "before", m->before);
			json_str(j, "after", m->files[0].path);
		}
		json_u64(j, "pairs_run", pairs_run(m, ba));
		json_u64(j, "pairs_valid", ba ? m->valid_ba : m->valid_pairs);
		json_close(j);
	}
	json_close(j);
}

static void
json_report(const struct measure *m, const char *thp)
{
	struct json j;
	size_t i;
	int ba;

	json_begin(&j, stdout, "measure");
	json_files(&j, m, thp);
	json_u64(&j, "pairs_run", pairs_run(m, false));
	json_u64(&j, "pairs_valid", m->valid_pairs);
	json_comparisons(&j, m);
	json_array(&j, "rounds");
	for (i = 0; i < m->nrounds; i++)
		json_round(&j, m, i);
	json_close(&j);
	json_array(&j, "confounds");
	for (i = 0; i < m->nconfounds; i++)
		json_str(&j, NULL, m->confound[i]);
	json_close(&j);
	json_str(&j, "interval", "95 % distribution-free interval of the "
	    "median pair ratio (order statistics, binomial); none below 6 "
	    "pairs");
	json_array(&j, "summary");
	for (ba = 0; ba <= (m->before != NULL); ba++)
		for (i = 0; i < NMETRICS; i++)
			json_metric(&j, m, ba, i);
	json_close(&j);
	json_end(&j);
}

static void
text_summary(const struct measure *m, bool ba)
{
	size_t k;

	if (m->before != NULL)
		printf("%s\n", ba ? "comparison before-after: after/before, "
		    "the rewritten file against its original, each as the "
		    "kernel maps it" : "comparison toggle: huge/small, the "
		    "same file's text PMD-mapped or not");
	for (k = 0; k < m->nconfounds; k++)
		if ((strncmp(m->confound[k], "before-after: ", 14) == 0) == ba)
			printf("confound: %s: the differences below are not "
			    "the text's alone\n", m->confound[k]);
	for (k = 0; k < NMETRICS; k++)
		text_metric(m, ba, k);
}

static void
report(const struct measure *m)
{
	char thp[32] = "unknown";

	if (thp_setting("enabled", thp, sizeof(thp)) != 0)
		snprintf(thp, sizeof(thp), "unknown");
	if (m->o->format == FORMAT_JSON)
		return json_report(m, thp);
	text_header(m, thp);
	text_rounds(m);
	text_summary(m, false);
	if (m->before != NULL)
		text_summary(m, true);
	printf("valid pairs: %zu of %zu\n", m->valid_pairs, pairs_run(m, false));
	if (m->before != NULL)
		printf("valid pairs, before-after: %zu of %zu\n", m->valid_ba,
		    pairs_run(m, true));
}

/*
 * --before ORIG FILE, before any round: ORIG a readable regular file, not
 * FILE itself, the program FILE was rewritten from (same_program: the
 * same bytes at every address, another layout), executable if FILE is;
 * and ORIG can be bind-mounted over FILE here (not as a user without
 * CAP_SYS_ADMIN: a user namespace would run the command as another user,
 * a second difference, so none is made).
 */
static int
before_check(struct measure *m, const char *file)
{
	char why[PATH_MAX + 160];
	struct stat fst;
	int ofd, ffd = -1, rc = -1;
	bool orig_bad;

	if (realpath(file, m->over) == NULL)
		return fail(m, "%s: %s", file, strerror(errno));
	/* O_NONBLOCK: a FIFO named ORIG is refused, not waited on. */
	if ((ofd = open(m->before, O_RDONLY | O_CLOEXEC | O_NONBLOCK)) < 0 ||
	    fstat(ofd, &m->orig_st) != 0)
		fail(m, "%s: %s", m->before, strerror(errno));
	else if (!S_ISREG(m->orig_st.st_mode))
		fail(m, "%s: not a regular file (--before names the original "
		    "program %s was rewritten from)", m->before, file);
	else if ((ffd = open(m->over, O_RDONLY | O_CLOEXEC | O_NONBLOCK)) < 0 ||
	    fstat(ffd, &fst) != 0)
		fail(m, "%s: %s", file, strerror(errno));
	else if (fst.st_dev == m->orig_st.st_dev &&
	    fst.st_ino == m->orig_st.st_ino)
		fail(m, "%s: it is %s itself (--before names the original it "
		    "was rewritten from)", m->before, file);
	else if (same_program(ofd, ffd, why, sizeof(why), &orig_bad) != 0)
		fail(m, "%s: %s (compared with %s)", orig_bad ? m->before :
		    file, why, orig_bad ? file : m->before);
	else if ((fst.st_mode & 0111) && !(m->orig_st.st_mode & 0111))
		fail(m, "%s: not executable, and %s is: the before rounds "
		    "could not run it", m->before, file);
	else if (measure_bind_probe(m->before, m->over, why, sizeof(why)) != 0)
		fail(m, "--before %s: %s", m->before, why);
	else
		rc = 0;
	if (ofd >= 0)
		close(ofd);
	if (ffd >= 0)
		close(ffd);
	return rc;
}

/* The warm-up, the FILEs and what a huge round must show; --before's too. */
static int
prepare(struct measure *m, char **paths, size_t npaths,
    struct round_result *r)
{
	const char *what;

	if (pc_can_look(&what) != 0)
		return fail(m, "cannot measure: %s", what);
	if (m->before != NULL && before_check(m, paths[0]) != 0)
		return -1;
	if (run_round(m, true, true, true, r) != 0 ||
	    choose_files(m, r, paths, npaths) != 0 || calibrate(m, r) != 0)
		return -1;
	/* ORIG's page cache as a run of it fills it, before any count. */
	if (m->before != NULL && run_ba_round(m, false, false, r) != 0)
		return -1;
	return 0;
}

static int
measure_steps(struct measure *m, char **paths, size_t npaths)
{
	struct round_result *r = calloc(1, sizeof(*r));
	int k, rc = -1;

	if (r == NULL)
		return fail(m, "out of memory");
	if (prepare(m, paths, npaths, r) == 0) {
		choose_toggle(m);
		for (k = 0; k < CTR_N; k++)
			counter_probe(k, m->ctr_why[k], sizeof(m->ctr_why[k]));
		rc = run_pairs(m);
		find_confounds(m);
	}
	free(r);
	return rc;
}

/* --measure [FILE ...] -- COMMAND: 0 with a valid pair (of each), else 2. */
int
measure_report(char **paths, size_t npaths, char **cmd,
    const struct options *o)
{
	struct measure *m = calloc(1, sizeof(*m));
	size_t i;
	int rc;

	if (m == NULL) {
		diag(stderr, NULL, "--measure: out of memory");
		return 2;
	}
	m->o = o;
	m->cmd = cmd;
	m->before = o->before;
	rc = measure_steps(m, paths, npaths);
	if (m->nrounds > 0)
		report(m);
	for (i = 0; m->nrounds == 0 && i < m->nnotes; i++)
		diag(stderr, NULL, "--measure: %s", m->notes[i]);
	if (rc != 0)
		diag(stderr, NULL, "--measure: %s", m->err);
	else if (m->valid_pairs == 0)
		diag(stderr, NULL, "--measure: no pair of rounds was verified "
		    "(see 'not counted' above); nothing to compare");
	else if (m->before != NULL && m->valid_ba == 0)
		diag(stderr, NULL, "--measure: no before-after pair was "
		    "verified (see 'not counted' above); nothing to compare "
		    "with %s", m->before);
	if (rc == 0 && (m->valid_pairs == 0 || (m->before != NULL &&
	    m->valid_ba == 0)))
		rc = -1;
	for (i = 0; i < m->nfiles; i++)
		free(m->files[i].path);
	free(m->rounds);
	free(m);
	return rc != 0 ? 2 : 0;
}
