/* SPDX-License-Identifier: BSD-2-Clause */
/* SPDX-FileCopyrightText: 2026 the elfthp-align authors */
/*
 * --measure, one round: COMMAND run once, in the small state or the huge
 * one, and measured.  The small state's toggle is either the LD_AUDIT
 * module elfthp-audit.so (q->audit: LD_AUDIT, which the children
 * inherit, makes every dynamically linked process advise the FILEs'
 * read-only mappings MADV_NOHUGEPAGE; the huge rounds load it too, in
 * its "huge" mode that advises nothing) or prctl(PR_SET_THP_DISABLE),
 * which its children and their execs inherit and which also takes THP
 * from anonymous memory.  A "before" round of --before runs COMMAND in a
 * private mount namespace of its own, the original bind-mounted over the
 * rewritten file's path (q->bind_from, q->bind_over).  Measured:
 *   - wall time from the exec to COMMAND's exit; user and system time,
 *     faults and max RSS from wait4 (its waited-for children included);
 *   - hardware counters (perf_event_open, user space, inherited by the
 *     children) where the machine has them;
 *   - how each FILE was mapped: every process of the tree is traced
 *     (PTRACE_O_TRACEFORK, VFORK, CLONE, EXIT), and at its exit event,
 *     while its memory is still there, its /proc/PID/smaps is read for
 *     the FILEs' FilePmdMapped (and ShmemPmdMapped).
 * A look that fails (smaps unreadable, a short read) leaves the round's
 * reason in r->unread: such a round is not a measurement of the kernel.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "elfthp_io.h"

struct round_ctx {
	const struct round_request *q;
	struct round_result *r;
	struct measure_file *files;
	size_t *nfiles;
	size_t max_files;
	pid_t *seen;
	size_t nseen;
	size_t seen_cap;
	int ctr[CTR_N];
	double last_exit;	/* when the last exit event came, less the
				   looks before it */
	pid_t killed[256];	/* after the grace */
	size_t nkilled;
};

const char *const counter_names[CTR_N] = { "itlb_misses", "instructions",
	"cycles", "dtlb_misses" };

static void
counter_attr(enum counter c, struct perf_event_attr *a)
{
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->disabled = 1;
	a->enable_on_exec = 1;
	a->inherit = 1;
	a->exclude_kernel = 1;
	a->exclude_hv = 1;
	switch (c) {
	case CTR_ITLB:
	case CTR_DTLB:
		a->type = PERF_TYPE_HW_CACHE;
		a->config = (c == CTR_ITLB ? PERF_COUNT_HW_CACHE_ITLB :
		    PERF_COUNT_HW_CACHE_DTLB) |
		    (PERF_COUNT_HW_CACHE_OP_READ << 8) |
		    (PERF_COUNT_HW_CACHE_RESULT_MISS << 16);
		break;
	case CTR_INSTRUCTIONS:
	case CTR_CYCLES:
		a->type = PERF_TYPE_HARDWARE;
		a->config = c == CTR_CYCLES ? PERF_COUNT_HW_CPU_CYCLES :
		    PERF_COUNT_HW_INSTRUCTIONS;
		break;
	default:
		break;
	}
}

static int
counter_open(enum counter c, pid_t pid)
{
	struct perf_event_attr a;

	counter_attr(c, &a);
	return (int)syscall(SYS_perf_event_open, &a, pid, -1, -1,
	    PERF_FLAG_FD_CLOEXEC);
}

/* Why a counter cannot be opened here, in words; "" when it can. */
void
counter_probe(enum counter c, char *why, size_t n)
{
	char paranoid[16] = "?";
	FILE *f;
	int fd = counter_open(c, 0), e = errno;

	why[0] = '\0';
	if (fd >= 0) {
		close(fd);
		return;
	}
	if ((f = fopen("/proc/sys/kernel/perf_event_paranoid", "re")) != NULL) {
		if (fscanf(f, "%15s", paranoid) != 1)
			snprintf(paranoid, sizeof(paranoid), "?");
		fclose(f);
	}
	if (e == ENOENT || e == EOPNOTSUPP || e == ENODEV)
		snprintf(why, n, "no hardware counter for it here (no PMU "
		    "exposed; perf_event_open: %s)", strerror(e));
	else if (e == EACCES || e == EPERM)
		snprintf(why, n, "not permitted (perf_event_paranoid is %s; "
		    "perf_event_open: %s)", paranoid, strerror(e));
	else
		snprintf(why, n, "perf_event_open: %s", strerror(e));
}

/* With the audit toggle: LD_AUDIT (ours first), the files, the state. */
static void
audit_env(const struct round_request *q)
{
	const char *old = getenv("LD_AUDIT");
	char *v = NULL;

	if (q->audit == NULL)
		return;
	if (old != NULL && old[0] != '\0' &&
	    asprintf(&v, "%s:%s", q->audit, old) < 0)
		_exit(126);
	setenv("LD_AUDIT", v != NULL ? v : q->audit, 1);
	setenv("ELFTHP_AUDIT_FILES", q->audit_files, 1);
	setenv("ELFTHP_AUDIT_MODE", q->small ? "small" : "huge", 1);
	free(v);
}

/* What the child could not do, for the parent (through the pipe). */
enum child_stage { STAGE_UNSHARE = 1, STAGE_PRIVATE, STAGE_BIND, STAGE_EXEC };

static const char *const stage_names[] = { "", "unshare(CLONE_NEWNS)",
	"mount(/, MS_PRIVATE | MS_REC)", "mount(MS_BIND)", "exec" };

/*
 * A "before" round: ORIG bind-mounted over the path in a mount namespace
 * of the child's own, private so that nothing propagates back to the
 * host's; the command and its children see ORIG there, this process
 * still sees the rewritten file.  0, or the stage that failed (errno).
 */
static int
bind_orig(const char *from, const char *over)
{
	if (unshare(CLONE_NEWNS) != 0)
		return STAGE_UNSHARE;
	if (mount(NULL, "/", NULL, MS_PRIVATE | MS_REC, NULL) != 0)
		return STAGE_PRIVATE;
	if (mount(from, over, NULL, MS_BIND, NULL) != 0)
		return STAGE_BIND;
	return 0;
}

static _Noreturn void
child_failed(int report, int stage, int code)
{
	int msg[2] = { stage, errno };

	(void)!write(report, msg, sizeof(msg));
	_exit(code);
}

/* The child: the state, the output, the trace, then COMMAND. */
static void
child(const struct round_request *q, int report)
{
	int null, stage;

	if (q->bind_from != NULL &&
	    (stage = bind_orig(q->bind_from, q->bind_over)) != 0)
		child_failed(report, stage, 125);
	prctl(PR_SET_THP_DISABLE, q->thp_disable ? 1 : 0, 0, 0, 0);
	audit_env(q);
	if (q->keep_output && q->stdout_to_stderr)
		dup2(STDERR_FILENO, STDOUT_FILENO);
	if (!q->keep_output && (null = open("/dev/null", O_WRONLY)) >= 0) {
		dup2(null, STDOUT_FILENO);
		dup2(null, STDERR_FILENO);
		close(null);
	}
	if (ptrace(PTRACE_TRACEME, 0, NULL, NULL) != 0 || raise(SIGSTOP) != 0)
		_exit(126);
	execvp(q->argv[0], q->argv);
	/* The parent reads why from the pipe the exec would have closed. */
	child_failed(report, STAGE_EXEC, 127);
}

/*
 * A child with a close-on-exec pipe back (pfd[1] its end): what it writes
 * there before it execs or exits is why it failed.  -1 with err set.
 */
static pid_t
fork_reporting(int pfd[2], char *err, size_t n)
{
	pid_t pid;

	if (pipe2(pfd, O_CLOEXEC) != 0)
		return error_text(err, n, "pipe: %s", strerror(errno));
	if ((pid = fork()) < 0) {
		close(pfd[0]);
		close(pfd[1]);
		return error_text(err, n, "fork: %s", strerror(errno));
	}
	return pid;
}

/* What the child wrote before it exited: the stage and errno, in words. */
static int
child_said(int rd, char *err, size_t n, const char *cmd)
{
	int msg[2];

	if (read(rd, msg, sizeof(msg)) != (ssize_t)sizeof(msg) || msg[0] < 1 ||
	    msg[0] > STAGE_EXEC)
		return 0;
	if (msg[0] == STAGE_EXEC)
		return error_text(err, n, "cannot run %s: %s", cmd,
		    strerror(msg[1]));
	return error_text(err, n, "cannot bind-mount the original over the "
	    "path for the before rounds: %s: %s%s", stage_names[msg[0]],
	    strerror(msg[1]), msg[1] == EPERM ? " (a private mount namespace "
	    "needs CAP_SYS_ADMIN: run as root)" : "");
}

int
measure_bind_probe(const char *orig, const char *path, char *err, size_t n)
{
	int pfd[2], status, rc, stage;
	pid_t pid;

	if ((pid = fork_reporting(pfd, err, n)) < 0)
		return -1;
	if (pid == 0) {
		if ((stage = bind_orig(orig, path)) != 0)
			child_failed(pfd[1], stage, 125);
		_exit(0);
	}
	close(pfd[1]);
	rc = child_said(pfd[0], err, n, orig);
	close(pfd[0]);
	if (waitpid(pid, &status, 0) != pid)
		return rc != 0 ? rc : error_text(err, n, "waitpid: %s",
		    strerror(errno));
	if (rc == 0 && !(WIFEXITED(status) && WEXITSTATUS(status) == 0))
		rc = error_text(err, n, "the bind-mount probe ended with "
		    "status %d", status);
	return rc;
}

static double
now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* One file-backed mapping's header: its dev and inode.  false if none. */
static bool
smaps_mapping(const char *line, dev_t *dev, ino_t *ino, const char **path,
    bool *text)
{
	unsigned maj, min;
	unsigned long long inode;
	char perm[5] = "";
	int end = 0;

	if (sscanf(line, "%*x-%*x %4s %*x %x:%x %llu %n", perm, &maj, &min,
	    &inode, &end) != 4 || end == 0)
		return false;
	*text = perm[1] == '-' && perm[2] == 'x';
	*dev = makedev(maj, min);
	*ino = (ino_t)inode;
	*path = line + end;
	return inode != 0;
}

/* The files a round looks for (q->files), or with discover any. */
static long
file_index(struct round_ctx *c, dev_t dev, ino_t ino, const char *path)
{
	size_t i;

	for (i = 0; i < *c->nfiles; i++)
		if (c->files[i].dev == dev && c->files[i].ino == ino)
			return (long)i;
	if (!c->q->discover || *c->nfiles >= c->max_files || path[0] != '/')
		return -1;
	c->files[i] = (struct measure_file){ .dev = dev, .ino = ino };
	if ((c->files[i].path = strndup(path, strcspn(path, "\n"))) == NULL)
		return -1;
	(*c->nfiles)++;
	return (long)i;
}

/* /proc/PID/io's read_bytes: what the process made the kernel read. */
static uint64_t
read_bytes_of(pid_t pid)
{
	char path[64], line[128];
	unsigned long long v = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/io", (int)pid);
	if ((f = fopen(path, "re")) == NULL)
		return 0;
	while (fgets(line, sizeof(line), f) != NULL)
		if (sscanf(line, "read_bytes: %llu", &v) == 1)
			break;
	fclose(f);
	return (uint64_t)v;
}

/* Is this process huge: each FILE it maps as PMD-mapped as expected? */
static bool
process_huge(const struct round_ctx *c, const uint64_t *kb, const bool *maps)
{
	size_t i;
	bool any = false;

	for (i = 0; i < *c->nfiles; i++) {
		if (!maps[i])
			continue;
		if (c->q->expected ? kb[i] < c->q->expected[i] || kb[i] == 0 :
		    kb[i] == 0)
			return false;
		any = true;
	}
	return any;
}

/* One smaps line in the mapping cur (a FILE's index, or -1): kb, anon. */
static void
smaps_line(const char *line, long cur, uint64_t *kb, uint64_t *anon)
{
	unsigned long long v;

	if (sscanf(line, "FilePmdMapped: %llu kB", &v) == 1 && cur >= 0)
		kb[cur] += v;
	else if (sscanf(line, "ShmemPmdMapped: %llu kB", &v) == 1)
		*(cur >= 0 ? &kb[cur] : anon) += v;
	else if (sscanf(line, "AnonHugePages: %llu kB", &v) == 1)
		*anon += v;
}

/* A VmFlags line with "nh": MADV_NOHUGEPAGE (the audit module's). */
static bool
advised(const char *line)
{
	return strstr(line, " nh") != NULL;
}

/* smaps of one process, at its exit: the FILEs' PMD-mapped kB. */
static void
read_smaps(struct round_ctx *c, pid_t pid)
{
	char path[64], *line = NULL;
	uint64_t kb[MEASURE_MAX_FILES] = { 0 }, anon = 0;
	bool maps[MEASURE_MAX_FILES] = { false }, text = false, bare = false;
	size_t cap = 0;
	long cur = -1;
	const char *name;
	dev_t dev;
	ino_t ino;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/smaps", (int)pid);
	if ((f = fopen(path, "re")) == NULL) {
		snprintf(c->r->unread, sizeof(c->r->unread), "%s: %s", path,
		    strerror(errno));
		return;
	}
	while (getline(&line, &cap, f) > 0) {
		if (smaps_mapping(line, &dev, &ino, &name, &text)) {
			if ((cur = file_index(c, dev, ino, name)) >= 0)
				maps[cur] = true;
		} else if ((line[0] >= '0' && line[0] <= '9') ||
		    (line[0] >= 'a' && line[0] <= 'f'))
			cur = -1;	/* anonymous: a header with inode 0 */
		else if (strncmp(line, "VmFlags:", 8) == 0)
			bare |= cur >= 0 && text && !advised(line);
		else
			smaps_line(line, cur, kb, &anon);
	}
	if (ferror(f))
		snprintf(c->r->unread, sizeof(c->r->unread), "%s: read: %s",
		    path, strerror(errno));
	fclose(f);
	free(line);
	c->r->processes++;
	c->r->unadvised += bare;
	c->r->anon_huge_kb += anon;
	c->r->read_bytes += read_bytes_of(pid);
	round_files_add(&c->r->pf, kb, maps, *c->nfiles);
	if (process_huge(c, kb, maps))
		c->r->huge_procs++;
	for (cur = 0; cur < (long)*c->nfiles; cur++)
		if (maps[cur]) {
			c->r->mappers++;
			break;
		}
}

/* THP_enabled of /proc/PID/status: 1, 0, or -1 where it is not said. */
static int
thp_state(pid_t pid)
{
	char path[64], line[128];
	int v = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	if ((f = fopen(path, "re")) == NULL)
		return -1;
	while (fgets(line, sizeof(line), f) != NULL)
		if (sscanf(line, "THP_enabled: %d", &v) == 1)
			break;
	fclose(f);
	return v;
}

/* A process that turned THP on or off itself (prctl) left the state. */
static void
check_state(struct round_ctx *c, pid_t pid)
{
	int v = thp_state(pid);

	if (v >= 0 && v != (c->q->thp_disable ? 0 : 1))
		c->r->thp_changed++;
}

/* A thread's exit is not its process's: smaps once, at the leader's. */
static bool
is_leader(pid_t pid)
{
	char path[64], line[128];
	long tgid = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	if ((f = fopen(path, "re")) == NULL)
		return true;
	while (fgets(line, sizeof(line), f) != NULL)
		if (sscanf(line, "Tgid: %ld", &tgid) == 1)
			break;
	fclose(f);
	return tgid < 0 || tgid == pid;
}

/* Tracees seen: a new one's first SIGSTOP is the attach, not a signal. */
static bool
first_stop(struct round_ctx *c, pid_t pid)
{
	size_t i;
	pid_t *v;

	for (i = 0; i < c->nseen; i++)
		if (c->seen[i] == pid)
			return false;
	if (c->nseen == c->seen_cap) {
		size_t cap = c->seen_cap ? c->seen_cap * 2 : 64;

		if ((v = realloc(c->seen, cap * sizeof(*v))) == NULL)
			return true;
		c->seen = v;
		c->seen_cap = cap;
	}
	c->seen[c->nseen++] = pid;
	return true;
}

/* A process gone: false if it was never traced (it escaped). */
static bool
forget(struct round_ctx *c, pid_t pid)
{
	size_t i;

	for (i = 0; i < c->nseen; i++)
		if (c->seen[i] == pid) {
			c->seen[i] = c->seen[--c->nseen];
			return true;
		}
	return false;
}

/* The parent of a process, from /proc/PID/stat; 0 if gone. */
static pid_t
parent_of(pid_t pid)
{
	char path[64], buf[512], *rp;
	int ppid = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if ((f = fopen(path, "re")) == NULL)
		return 0;
	if (fgets(buf, sizeof(buf), f) != NULL &&
	    (rp = strrchr(buf, ')')) != NULL &&
	    sscanf(rp + 1, " %*c %d", &ppid) != 1)
		ppid = 0;
	fclose(f);
	return (pid_t)ppid;
}

/* Was pid killed already?  Else remember it (as long as there is room). */
static bool
killed_before(struct round_ctx *c, pid_t pid)
{
	size_t i;

	for (i = 0; i < c->nkilled; i++)
		if (c->killed[i] == pid)
			return true;
	if (c->nkilled < sizeof(c->killed) / sizeof(c->killed[0]))
		c->killed[c->nkilled++] = pid;
	return false;
}

/*
 * SIGKILL every process below this one (a subreaper): true if any was
 * found.  r->killed counts each process once, however long it takes to die.
 */
static bool
kill_tree(struct round_ctx *c)
{
	pid_t me = getpid(), p, q;
	struct dirent *d;
	bool any = false;
	int depth;
	DIR *dir;

	if ((dir = opendir("/proc")) == NULL)
		return 0;
	while ((d = readdir(dir)) != NULL) {
		if ((p = (pid_t)atoi(d->d_name)) <= 0 || p == me)
			continue;
		for (q = p, depth = 0; q > 1 && q != me && depth < 4096; depth++)
			q = parent_of(q);
		if (q != me || kill(p, SIGKILL) != 0)
			continue;
		any = true;
		if (!killed_before(c, p))
			c->r->killed++;
	}
	closedir(dir);
	return any;
}

#ifdef ELFTHP_TEST_HOOKS
/*
 * Test builds only: ELFTHP_TEST_SLOW_LOOK=MS makes each look at an
 * exiting process MS milliseconds slower, so that a test sees whether
 * wall_s counts the tool's own looks (it must not).
 */
static void
test_slow_look(void)
{
	const char *v = getenv("ELFTHP_TEST_SLOW_LOOK");
	long ms = v != NULL ? atol(v) : 0;
	struct timespec ts = { ms / 1000, ms % 1000 * 1000000L };

	if (ms > 0)
		nanosleep(&ts, NULL);
}
#else
static void
test_slow_look(void)
{
}
#endif

/*
 * A stop of a tracee: its THP state at an exec, its smaps at an exit
 * event, signals passed on.  The tracee waits while the tool looks: the
 * time is kept (look_s) and left out of wall_s, which ends at the last
 * exit event, before the look at it.
 */
static void
on_stop(struct round_ctx *c, pid_t pid, int status)
{
	int sig = WSTOPSIG(status), event = status >> 16, pass = 0;
	double t0 = now_s();

	if (event == PTRACE_EVENT_EXIT) {
		c->last_exit = t0 - c->r->look_s;
		if (is_leader(pid)) {
			check_state(c, pid);
			read_smaps(c, pid);
			test_slow_look();
		}
		c->r->look_s += now_s() - t0;
	} else if (event == PTRACE_EVENT_EXEC) {
		check_state(c, pid);
		c->r->look_s += now_s() - t0;
	} else if (event == 0 && sig == SIGSTOP && first_stop(c, pid)) {
		pass = 0;
	} else if (event == 0 && sig != SIGTRAP) {
		pass = sig;
	}
	ptrace(PTRACE_CONT, pid, NULL, (void *)(long)pass);
}

static void
take_rusage(struct round_result *r, const struct rusage *ru)
{
	r->user_s = (double)ru->ru_utime.tv_sec + ru->ru_utime.tv_usec / 1e6;
	r->sys_s = (double)ru->ru_stime.tv_sec + ru->ru_stime.tv_usec / 1e6;
	r->minflt = (uint64_t)ru->ru_minflt;
	r->majflt = (uint64_t)ru->ru_majflt;
	r->maxrss_kb = (uint64_t)ru->ru_maxrss;
}

/*
 * Nothing to reap now: after COMMAND's exit and MEASURE_GRACE_S, kill
 * what is left of its tree (this process is their subreaper), then wait.
 */
static int
idle(struct round_ctx *c, double top_gone)
{
	const struct timespec tick = { 0, 5000000 };

	if (now_s() - top_gone < MEASURE_GRACE_S) {
		nanosleep(&tick, NULL);
		return WNOHANG;
	}
	if (!kill_tree(c))
		return 0;
	nanosleep(&tick, NULL);
	return WNOHANG;
}

/*
 * Until every process of the tree is gone, traced or not (reparented to
 * this subreaper); COMMAND's own exit ends the wall time.
 */
static int
trace_all(struct round_ctx *c, pid_t top, double start)
{
	struct rusage ru;
	double top_gone = 0;
	int status, flags = 0;	/* WNOHANG once COMMAND is gone */
	pid_t p;

	for (;;) {
		p = wait4(-1, &status, __WALL | flags, &ru);
		if (p < 0 && errno == EINTR)
			continue;
		if (p < 0)
			return errno == ECHILD ? 0 : -1;
		if (p == 0) {
			flags = idle(c, top_gone);
			continue;
		}
		if (WIFSTOPPED(status)) {
			on_stop(c, p, status);
			continue;
		}
		if (!forget(c, p) && p != top)
			c->r->untraced++;
		if (p == top) {
			top_gone = now_s();
			flags = WNOHANG;
			c->r->wall_s = (c->last_exit > 0 ? c->last_exit :
			    now_s()) - start;
			c->r->status = status;
			take_rusage(c->r, &ru);
		}
	}
}

static void
counters_open(struct round_ctx *c, pid_t pid)
{
	int k;

	for (k = 0; k < CTR_N; k++)
		c->ctr[k] = c->q->counters ? counter_open(k, pid) : -1;
}

static void
counters_read(struct round_ctx *c)
{
	uint64_t v;
	int k;

	for (k = 0; k < CTR_N; k++) {
		c->r->counted[k] = c->ctr[k] >= 0 &&
		    read(c->ctr[k], &v, sizeof(v)) == sizeof(v);
		c->r->counter[k] = c->r->counted[k] ? v : 0;
		if (c->ctr[k] >= 0)
			close(c->ctr[k]);
	}
}

/* The child stopped itself: trace its tree, open the counters, go. */
static int
start_traced(struct round_ctx *c, pid_t pid, char *err, size_t n)
{
	int status;

	if (waitpid(pid, &status, 0) != pid || !WIFSTOPPED(status)) {
		if (WIFEXITED(status) && WEXITSTATUS(status) == 126)
			return error_text(err, n, "ptrace(PTRACE_TRACEME) "
			    "failed in the child");
		return error_text(err, n, "the child did not stop before "
		    "its exec");
	}
	first_stop(c, pid);
	if (ptrace(PTRACE_SETOPTIONS, pid, NULL, (void *)(long)(
	    PTRACE_O_TRACEFORK | PTRACE_O_TRACEVFORK | PTRACE_O_TRACECLONE |
	    PTRACE_O_TRACEEXIT | PTRACE_O_TRACEEXEC | PTRACE_O_EXITKILL)) != 0) {
		kill(pid, SIGKILL);
		return error_text(err, n, "ptrace(PTRACE_SETOPTIONS): %s",
		    strerror(errno));
	}
	counters_open(c, pid);
	return 0;
}

int
measure_round(const struct round_request *q, struct measure_file *files,
    size_t *nfiles, size_t max_files, struct round_result *r, char *err,
    size_t n)
{
	struct round_ctx c = { .q = q, .r = r, .files = files,
		.nfiles = nfiles, .max_files = max_files };
	int pfd[2], rc;
	double start;
	pid_t pid;

	memset(r, 0, sizeof(*r));
	/* Orphans of the tree, traced or not, become this process's. */
	if (prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0)
		return error_text(err, n, "prctl(PR_SET_CHILD_SUBREAPER): %s",
		    strerror(errno));
	if ((pid = fork_reporting(pfd, err, n)) < 0)
		return -1;
	if (pid == 0)
		child(q, pfd[1]);
	close(pfd[1]);
	rc = start_traced(&c, pid, err, n);
	if (rc != 0)	/* the child's own reason, where it gave one */
		(void)child_said(pfd[0], err, n, q->argv[0]);
	start = now_s();
	if (rc == 0 && ptrace(PTRACE_CONT, pid, NULL, NULL) != 0)
		rc = error_text(err, n, "ptrace(PTRACE_CONT): %s",
		    strerror(errno));
	if (rc == 0 && trace_all(&c, pid, start) != 0)
		rc = error_text(err, n, "wait4: %s", strerror(errno));
	if (rc == 0)
		counters_read(&c);
	if (rc == 0)
		rc = child_said(pfd[0], err, n, q->argv[0]);
	close(pfd[0]);
	free(c.seen);
	return rc;
}
