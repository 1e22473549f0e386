/* SPDX-License-Identifier: BSD-2-Clause */
/* SPDX-FileCopyrightText: 2026 the elfthp-align authors */
/*
 * Fault injection for the measuring modes: every call through which
 * --warm, warm_file() and --host look at the kernel fails in turn, and
 * the outcome must be an error that names the call (and the errno), never
 * a verdict about huge pages, and no byte of the file may change.
 *
 * The calls are wrapped at link time (-Wl,--wrap=..., MEASURE_WRAP in the
 * Makefile): open64, fopen64 and fgets (the /proc and /sys reads: smaps,
 * maps, mountinfo, hpage_pmd_size, the THP settings), opendir and
 * readdir64 (/proc), gzopen64 (the kernel's config), realpath, fstat64,
 * pread64 and pwrite64, mmap64, madvise, mincore, posix_fadvise64,
 * fdatasync, syscall (cachestat) and ioctl (PAGEMAP_SCAN, which the
 * *_smaps tests make unknown, as before Linux 6.7).  A run with nothing failing counts
 * the calls of each; then each of them, the Nth for every N (the first 16
 * and every sixteenth part where there are many: fgets of smaps), fails with an errno
 * that fits it: EMFILE for opens, EIO for reads, ENOMEM for maps and
 * mincore.  fgets can also end early without an error (a short read).
 *
 * The test's own calls go to the __real_ ones.
 *
 * Scenarios: warm_file() as a library call on a plain 6 MiB file with three
 * PMD windows whose small folios are cached (the look also with only its
 * first window cached, so that each window's cachestat is asked); process_file() in --warm mode
 * on a 6 MiB ELF file made here (one congruent read-only PT_LOAD); and
 * host_report() on a directory.  The controls: the same runs with nothing
 * failing give a verdict (windows made huge, a probe that measured).
 *
 * Build: make tests/test_measure (every object but src/main.o).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zlib.h>

#include "elfthp_cli.h"

#define MiB_ (UINT64_C(1) << 20)
#define FILE_SIZE (6 * MiB_ + 4096)

/* ---- the injection ---- */

enum call {
	C_OPEN, C_FOPEN, C_FGETS, C_FGETS_SHORT, C_OPENDIR, C_READDIR,
	C_GZOPEN, C_REALPATH, C_FSTAT, C_PREAD, C_PWRITE, C_MMAP, C_MADVISE,
	C_MINCORE, C_FADVISE, C_FDATASYNC, C_SYSCALL, NCALLS
};

static const struct {
	const char *name;
	int error;
	const char *named;	/* what the message must say, or NULL */
} calls[NCALLS] = {
	[C_OPEN] = { "open", EMFILE, NULL },
	[C_FOPEN] = { "fopen", EMFILE, "/" },
	[C_FGETS] = { "fgets", EIO, "/" },
	[C_FGETS_SHORT] = { "fgets (short)", 0, "/" },
	[C_OPENDIR] = { "opendir", EMFILE, "/proc" },
	[C_READDIR] = { "readdir", EIO, "/proc" },
	[C_GZOPEN] = { "gzopen", EMFILE, "config" },
	[C_REALPATH] = { "realpath", ENOMEM, "realpath" },
	[C_FSTAT] = { "fstat", EIO, NULL },
	[C_PREAD] = { "pread", EIO, NULL },
	[C_PWRITE] = { "pwrite", EIO, "pwrite" },
	[C_MMAP] = { "mmap", ENOMEM, "mmap" },
	[C_MADVISE] = { "madvise", EIO, "madvise" },
	[C_MINCORE] = { "mincore", ENOMEM, "mincore" },
	[C_FADVISE] = { "posix_fadvise", EIO, "posix_fadvise" },
	[C_FDATASYNC] = { "fdatasync", EIO, "fdatasync" },
	[C_SYSCALL] = { "syscall (cachestat)", ENOMEM, "cachestat" },
};

static bool armed;		/* count and fail only inside the tool's calls */
static unsigned long count[NCALLS];
static enum call fail_call = NCALLS;
static unsigned long fail_nth;

/* Should this call fail?  Sets errno when it should. */
static bool
inject(enum call c)
{
	if (!armed)
		return false;
	count[c]++;
	if (c == fail_call && count[c] == fail_nth) {
		errno = calls[c].error;
		return true;
	}
	return false;
}

static void
arm(enum call c, unsigned long nth)
{
	memset(count, 0, sizeof(count));
	fail_call = c;
	fail_nth = nth;
	armed = true;
}

int __real_open64(const char *, int, ...);
int __wrap_open64(const char *, int, ...);
FILE *__real_fopen64(const char *, const char *);
FILE *__wrap_fopen64(const char *, const char *);
char *__real_fgets(char *, int, FILE *);
char *__wrap_fgets(char *, int, FILE *);
char *__real___fgets_chk(char *, size_t, int, FILE *);
char *__wrap___fgets_chk(char *, size_t, int, FILE *);
DIR *__real_opendir(const char *);
DIR *__wrap_opendir(const char *);
struct dirent *__real_readdir64(DIR *);
struct dirent *__wrap_readdir64(DIR *);
gzFile __real_gzopen64(const char *, const char *);
gzFile __wrap_gzopen64(const char *, const char *);
char *__real_realpath(const char *, char *);
char *__wrap_realpath(const char *, char *);
int __real_fstat64(int, struct stat *);
int __wrap_fstat64(int, struct stat *);
ssize_t __real_pread64(int, void *, size_t, off_t);
ssize_t __wrap_pread64(int, void *, size_t, off_t);
ssize_t __real_pwrite64(int, const void *, size_t, off_t);
ssize_t __wrap_pwrite64(int, const void *, size_t, off_t);
void *__real_mmap64(void *, size_t, int, int, int, off_t);
void *__wrap_mmap64(void *, size_t, int, int, int, off_t);
int __real_madvise(void *, size_t, int);
int __wrap_madvise(void *, size_t, int);
int __real_mincore(void *, size_t, unsigned char *);
int __wrap_mincore(void *, size_t, unsigned char *);
int __real_posix_fadvise64(int, off_t, off_t, int);
int __wrap_posix_fadvise64(int, off_t, off_t, int);
int __real_fdatasync(int);
int __wrap_fdatasync(int);
long __real_syscall(long, ...);
long __wrap_syscall(long, ...);
/* A user who may not write the file: cachestat answers EPERM. */
static bool no_cachestat_for_us;
/* From this cachestat call on (1: every one), EPERM; 0: off. */
static unsigned long eperm_from;

int
__wrap_open64(const char *path, int flags, ...)
{
	va_list ap;
	mode_t mode;

	va_start(ap, flags);
	mode = (flags & (O_CREAT | O_TMPFILE)) ? (mode_t)va_arg(ap, int) : 0;
	va_end(ap);
	if (inject(C_OPEN))
		return -1;
	return __real_open64(path, flags, mode);
}

FILE *
__wrap_fopen64(const char *path, const char *mode)
{
	return inject(C_FOPEN) ? NULL : __real_fopen64(path, mode);
}

/* An error sets the stream's error flag, as a failed read(2) would. */
char *
__wrap_fgets(char *buf, int n, FILE *f)
{
	if (inject(C_FGETS)) {
		f->_flags |= _IO_ERR_SEEN;
		return NULL;
	}
	if (inject(C_FGETS_SHORT))
		return NULL;
	return __real_fgets(buf, n, f);
}

/*
 * Where _FORTIFY_SOURCE knows the buffer's size, the compiler calls
 * __fgets_chk instead (it does under SANITIZE=1's -O1): the same faults.
 */
char *
__wrap___fgets_chk(char *buf, size_t size, int n, FILE *f)
{
	if (inject(C_FGETS)) {
		f->_flags |= _IO_ERR_SEEN;
		return NULL;
	}
	if (inject(C_FGETS_SHORT))
		return NULL;
	return __real___fgets_chk(buf, size, n, f);
}

DIR *
__wrap_opendir(const char *path)
{
	return inject(C_OPENDIR) ? NULL : __real_opendir(path);
}

struct dirent *
__wrap_readdir64(DIR *d)
{
	return inject(C_READDIR) ? NULL : __real_readdir64(d);
}

gzFile
__wrap_gzopen64(const char *path, const char *mode)
{
	return inject(C_GZOPEN) ? NULL : __real_gzopen64(path, mode);
}

char *
__wrap_realpath(const char *path, char *resolved)
{
	return inject(C_REALPATH) ? NULL : __real_realpath(path, resolved);
}

int
__wrap_fstat64(int fd, struct stat *st)
{
	return inject(C_FSTAT) ? -1 : __real_fstat64(fd, st);
}

ssize_t
__wrap_pread64(int fd, void *buf, size_t n, off_t off)
{
	return inject(C_PREAD) ? -1 : __real_pread64(fd, buf, n, off);
}

ssize_t
__wrap_pwrite64(int fd, const void *buf, size_t n, off_t off)
{
	return inject(C_PWRITE) ? -1 : __real_pwrite64(fd, buf, n, off);
}

void *
__wrap_mmap64(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	if (inject(C_MMAP))
		return MAP_FAILED;
	return __real_mmap64(addr, len, prot, flags, fd, off);
}

int
__wrap_madvise(void *addr, size_t len, int advice)
{
	return inject(C_MADVISE) ? -1 : __real_madvise(addr, len, advice);
}

int
__wrap_mincore(void *addr, size_t len, unsigned char *vec)
{
	return inject(C_MINCORE) ? -1 : __real_mincore(addr, len, vec);
}

/* posix_fadvise returns the error instead of setting errno. */
int
__wrap_posix_fadvise64(int fd, off_t off, off_t len, int advice)
{
	if (inject(C_FADVISE))
		return errno;
	return __real_posix_fadvise64(fd, off, len, advice);
}

int
__wrap_fdatasync(int fd)
{
	return inject(C_FDATASYNC) ? -1 : __real_fdatasync(fd);
}

/* The tool calls syscall() for cachestat only: four arguments. */
long
__wrap_syscall(long nr, ...)
{
	va_list ap;
	long a[4];
	int i;

	va_start(ap, nr);
	for (i = 0; i < 4; i++)
		a[i] = va_arg(ap, long);
	va_end(ap);
	if (inject(C_SYSCALL))
		return -1;
	if (armed && (no_cachestat_for_us || (eperm_from > 0 &&
	    count[C_SYSCALL] >= eperm_from))) {
		errno = EPERM;
		return -1;
	}
	return __real_syscall(nr, a[0], a[1], a[2], a[3]);
}

/*
 * A kernel before 6.7, where it is asked for: PAGEMAP_SCAN ('f', 16) is
 * unknown (ENOTTY), so every look goes through smaps, and the smaps
 * reads (fopen, fgets) are swept too.  Other ioctls (FICLONE) go through.
 */
static bool no_pagemap_scan;

int __real_ioctl(int, unsigned long, ...);
int __wrap_ioctl(int, unsigned long, ...);

int
__wrap_ioctl(int fd, unsigned long req, ...)
{
	va_list ap;
	void *arg;

	va_start(ap, req);
	arg = va_arg(ap, void *);
	va_end(ap);
	if (no_pagemap_scan && _IOC_TYPE(req) == 'f' && _IOC_NR(req) == 16) {
		errno = ENOTTY;
		return -1;
	}
	return __real_ioctl(fd, req, arg);
}

/* ---- the files ---- */

struct state {
	char dir[256];
	char path[320];
	unsigned char *bytes;	/* what the file must hold */
};

/* Pattern bytes; with elf, one congruent read-only PT_LOAD over all. */
static void
fill(unsigned char *b, bool elf)
{
	uint64_t i;

	for (i = 0; i < FILE_SIZE; i += 8)
		memcpy(b + i, &i, 8);
	if (!elf)
		return;
	memset(b, 0, 120);
	memcpy(b, "\177ELF\2\1\1", 7);
	b[16] = 3;			/* ET_DYN */
	b[18] = 62;			/* EM_X86_64 */
	b[20] = 1;			/* e_version */
	b[32] = 64;			/* e_phoff */
	b[52] = 64;			/* e_ehsize */
	b[54] = 56;			/* e_phentsize */
	b[56] = 1;			/* e_phnum */
	b[64] = 1;			/* PT_LOAD */
	b[68] = 5;			/* PF_R | PF_X */
	/* p_offset = p_vaddr = 0; p_filesz = p_memsz = FILE_SIZE */
	memcpy(b + 64 + 32, &(uint64_t){ FILE_SIZE }, 8);
	memcpy(b + 64 + 40, &(uint64_t){ FILE_SIZE }, 8);
	memcpy(b + 64 + 48, &(uint64_t){ 2 * MiB_ }, 8);
}

/*
 * The file written anew, its cache dropped, then read with pread so that
 * small folios are cached: --warm has a drop and a read to do every time.
 */
/* Only the first cache_only bytes are read back, where it is not 0. */
static off_t cache_only;

static void
make_cold(struct state *t)
{
	int fd = open(t->path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	off_t off, end = cache_only ? cache_only : (off_t)FILE_SIZE;
	char buf[65536];

	assert_true(fd >= 0);
	assert_int_equal(write(fd, t->bytes, FILE_SIZE), FILE_SIZE);
	assert_int_equal(fsync(fd), 0);
	posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
	/* No readahead past what is read: the rest stays out. */
	if (cache_only)
		posix_fadvise(fd, 0, 0, POSIX_FADV_RANDOM);
	for (off = 0; off < end; off += (off_t)sizeof(buf))
		assert_true(pread(fd, buf, sizeof(buf), off) > 0);
	close(fd);
}

static bool
unchanged(const struct state *t)
{
	unsigned char *now = malloc(FILE_SIZE);
	int fd = open(t->path, O_RDONLY);
	bool same = fd >= 0 && now != NULL &&
	    pread(fd, now, FILE_SIZE, 0) == FILE_SIZE &&
	    memcmp(now, t->bytes, FILE_SIZE) == 0;

	if (fd >= 0)
		close(fd);
	free(now);
	return same;
}

static int
setup(void **state)
{
	struct state *t = calloc(1, sizeof(*t));
	const char *tmp = getenv("TMPDIR");

	if (t == NULL || (t->bytes = malloc(FILE_SIZE)) == NULL)
		return -1;
	snprintf(t->dir, sizeof(t->dir), "%s/test_measure.XXXXXX",
	    tmp && *tmp ? tmp : "/var/tmp");
	if (mkdtemp(t->dir) == NULL)
		return -1;
	snprintf(t->path, sizeof(t->path), "%s/file", t->dir);
	*state = t;
	return 0;
}

static int
teardown(void **state)
{
	struct state *t = *state;

	armed = false;
	cache_only = 0;
	unlink(t->path);
	rmdir(t->dir);
	free(t->bytes);
	free(t);
	return 0;
}

/* ---- one run of a scenario, and the sweep ---- */

struct outcome {
	bool error;		/* the run ended in an error */
	bool verdict;		/* it said something about huge pages */
	char text[2048];	/* its messages */
};

typedef void (*scenario)(struct state *, struct outcome *);

/* warm_file() on the plain file: three windows. */
static void
run_warm_file(struct state *t, struct outcome *o)
{
	struct warm_plan w = { .pmd = 2 * MiB_, .nranges = 3,
		.bits = (uint8_t[]){ 0x7 }, .warmable = 3,
		.base_aligned = true };
	struct warm_result r;
	int fd = __real_open64(t->path, O_RDONLY);

	assert_true(fd >= 0);
	o->error = warm_file(fd, t->path, &w, &(struct warm_request){ 0 }, &r,
	    o->text, sizeof(o->text)) != 0;
	o->verdict = !o->error;
	if (!o->error)
		snprintf(o->text, sizeof(o->text), "%ju made huge, %ju not",
		    (uintmax_t)r.made_huge, (uintmax_t)warm_not_huge(&r));
	close(fd);
}

/* process_file() with opt, as the CLI runs it. */
static void
run_cli(struct state *t, struct outcome *o, const struct options *opt)
{
	char *out = NULL, *err = NULL;
	size_t outlen = 0, errlen = 0;
	FILE *fo = open_memstream(&out, &outlen);
	FILE *fe = open_memstream(&err, &errlen);
	enum file_class c;

	assert_non_null(fo);
	assert_non_null(fe);
	c = process_file(t->path, opt, fo, fe, NULL);
	fclose(fo);
	fclose(fe);
	o->error = c == FILE_ERROR;
	o->verdict = strstr(out, "window") != NULL;
	snprintf(o->text, sizeof(o->text), "%s%s", err, out);
	free(out);
	free(err);
}

static void
run_warm_cli(struct state *t, struct outcome *o)
{
	run_cli(t, o, &(struct options){ .mode = MODE_WARM, .jobs = 1 });
}

/* --warm -n: the look, which reads and changes nothing. */
static void
run_look_cli(struct state *t, struct outcome *o)
{
	run_cli(t, o, &(struct options){ .mode = MODE_WARM, .jobs = 1,
	    .dry_run = true });
}

/* The rewrite of an aligned file: its page-cache step on the input. */
static void
run_settle_cli(struct state *t, struct outcome *o)
{
	run_cli(t, o, &(struct options){ .mode = MODE_REWRITE, .jobs = 1,
	    .lock_timeout = 1 });
}

/* host_report() on the directory: stdout to /dev/null, stderr kept. */
static void
run_host(struct state *t, struct outcome *o)
{
	struct options opt = { .mode = MODE_HOST };
	char *paths[] = { t->dir }, errpath[300];
	int saved_out = dup(STDOUT_FILENO), saved_err = dup(STDERR_FILENO);
	int null = __real_open64("/dev/null", O_WRONLY), rc;
	FILE *f;
	size_t n;

	snprintf(errpath, sizeof(errpath), "%s.err", t->dir);
	fflush(stdout);
	fflush(stderr);
	assert_true(freopen(errpath, "w", stderr) != NULL);
	dup2(null, STDOUT_FILENO);
	rc = host_report(paths, 1, &opt);
	fflush(stdout);
	fflush(stderr);
	dup2(saved_out, STDOUT_FILENO);
	dup2(saved_err, STDERR_FILENO);
	close(saved_out);
	close(saved_err);
	close(null);
	o->error = rc == 2;
	o->verdict = rc == 0;
	o->text[0] = '\0';
	if ((f = __real_fopen64(errpath, "r")) != NULL) {
		n = fread(o->text, 1, sizeof(o->text) - 1, f);
		o->text[n] = '\0';
		fclose(f);
	}
	unlink(errpath);
}

/*
 * A process that maps the ELF file as a loader would (read and execute, at
 * a 2 MiB-aligned address, offset 0) and runs its first page only: its
 * first window is resident, the other two are not, so --pid also looks at
 * the file's page cache.  The child calls only the real functions.
 */
static pid_t
start_mapper(const struct state *t)
{
	int p[2], fd;
	pid_t pid;
	char c = 'E';

	assert_int_equal(pipe(p), 0);
	if ((pid = fork()) == 0) {
		uint8_t *m = __real_mmap64(NULL, 10 * MiB_, PROT_NONE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0), *at;

		fd = __real_open64(t->path, O_RDONLY);
		at = (uint8_t *)(((uintptr_t)m + 2 * MiB_ - 1) &
		    ~(uintptr_t)(2 * MiB_ - 1));
		if (m != MAP_FAILED && fd >= 0 && __real_mmap64(at, FILE_SIZE,
		    PROT_READ | PROT_EXEC, MAP_PRIVATE | MAP_FIXED, fd, 0) == at)
			c = *(volatile uint8_t *)at == 0x7f ? 'R' : 'E';
		(void)!write(p[1], &c, 1);
		for (;;)
			pause();
	}
	close(p[1]);
	assert_true(pid > 0);
	if (read(p[0], &c, 1) != 1 || c != 'R') {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		fail_msg("the mapping process could not map %s", t->path);
	}
	close(p[0]);
	return pid;
}

/* "pid N" becomes "pid P", so that two runs' texts compare. */
static void
without_pid(char *text, pid_t pid)
{
	char word[32], *at;
	size_t wl;

	wl = (size_t)snprintf(word, sizeof(word), "pid %ld", (long)pid);
	while ((at = strstr(text, word)) != NULL) {
		memmove(at + 5, at + wl, strlen(at + wl) + 1);
		at[4] = 'P';
	}
}

/* --pid on that process: stdout and stderr kept, as run_host does. */
static void
run_pid(struct state *t, struct outcome *o)
{
	pid_t child = start_mapper(t);
	long pids[] = { (long)child };
	struct options opt = { .mode = MODE_PID, .pids = pids, .npids = 1 };
	char outpath[300], errpath[300];
	int saved_out = dup(STDOUT_FILENO), saved_err = dup(STDERR_FILENO);
	int rc;
	size_t n = 0;
	FILE *f;

	snprintf(outpath, sizeof(outpath), "%s.out", t->dir);
	snprintf(errpath, sizeof(errpath), "%s.err", t->dir);
	fflush(stdout);
	fflush(stderr);
	assert_true(freopen(outpath, "w", stdout) != NULL);
	assert_true(freopen(errpath, "w", stderr) != NULL);
	rc = pid_report(&opt);
	fflush(stdout);
	fflush(stderr);
	dup2(saved_out, STDOUT_FILENO);
	dup2(saved_err, STDERR_FILENO);
	close(saved_out);
	close(saved_err);
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	o->error = rc == 2;
	o->text[0] = '\0';
	if ((f = __real_fopen64(errpath, "r")) != NULL) {
		n = fread(o->text, 1, sizeof(o->text) - 1, f);
		fclose(f);
	}
	if ((f = __real_fopen64(outpath, "r")) != NULL) {
		n += fread(o->text + n, 1, sizeof(o->text) - 1 - n, f);
		fclose(f);
	}
	o->text[n] = '\0';
	without_pid(o->text, child);
	o->verdict = strstr(o->text, "window") != NULL;
	unlink(outpath);
	unlink(errpath);
}

static void
run_once(struct state *t, scenario s, enum call c, unsigned long nth,
    struct outcome *o)
{
	if (s != run_host)
		make_cold(t);
	memset(o, 0, sizeof(*o));
	arm(c, nth);
	s(t, o);
	armed = false;
}

/* Every stride-th of many calls, and the first 16 and the last. */
static unsigned long
next_nth(unsigned long nth, unsigned long total)
{
	if (nth < 16 || nth == total)
		return nth + 1;
	return nth + total / 16 > total ? total : nth + total / 16;
}

/*
 * The failed run is an error naming the call and errno, and no verdict.
 * A read cut short without an error (fgets (short)) may also be harmless:
 * then the run gives the control's verdict (same_verdict).  (A /proc/PID/maps
 * cut at a line's end cannot be told from a shorter one; the kernel's
 * seq_file reads end short only at the end.)
 */
/*
 * The same verdict: the texts up to the bytes read, which end them and
 * may differ by a page or two that the machine's own reclaim or
 * readahead moved between the control and the run.
 */
static bool
same_verdict(const char *a, const char *b)
{
	const char *ea = strrchr(a, ';'), *eb = strrchr(b, ';');
	size_t la = ea ? (size_t)(ea - a) : strlen(a);
	size_t lb = eb ? (size_t)(eb - b) : strlen(b);

	return la == lb && strncmp(a, b, la) == 0;
}

static void
check_failed(const struct state *t, scenario s, enum call c,
    unsigned long nth, const struct outcome *o, const struct outcome *ctl)
{
	const char *why = calls[c].error ? strerror(calls[c].error) : NULL;

	if (c == C_FGETS_SHORT && !o->error && o->verdict &&
	    same_verdict(o->text, ctl->text))
		return;
	if (!o->error || o->verdict)
		fail_msg("%s #%lu failed: want an error and no verdict, got "
		    "%s: %s", calls[c].name, nth, o->error ? "error and verdict" :
		    "no error", o->text);
	if (why != NULL && strstr(o->text, why) == NULL)
		fail_msg("%s #%lu failed: the message does not name %s: %s",
		    calls[c].name, nth, why, o->text);
	if (calls[c].named != NULL && strstr(o->text, calls[c].named) == NULL)
		fail_msg("%s #%lu failed: the message does not name %s: %s",
		    calls[c].name, nth, calls[c].named, o->text);
	if (s != run_host && !unchanged(t))
		fail_msg("%s #%lu failed: the file changed", calls[c].name, nth);
}

static void
sweep(struct state *t, scenario s, bool elf, unsigned long *failures)
{
	unsigned long clean[NCALLS], nth;
	struct outcome o, ctl;
	enum call c;

	fill(t->bytes, elf);
	run_once(t, s, NCALLS, 0, &ctl);
	if (ctl.error || !ctl.verdict)
		fail_msg("control: with nothing failing, want a verdict: %s",
		    ctl.text);
	memcpy(clean, count, sizeof(clean));
	clean[C_FGETS_SHORT] = clean[C_FGETS];
	for (c = 0; c < NCALLS; c++)
		for (nth = 1; nth <= clean[c]; nth = next_nth(nth, clean[c])) {
			run_once(t, s, c, nth, &o);
			/* The call was made and failed, or the run took
			 * another path before it: either way, no verdict. */
			if (count[c] >= nth) {
				check_failed(t, s, c, nth, &o, &ctl);
				(*failures)++;
			}
		}
}

static void
test_warm_file_faults(void **state)
{
	unsigned long n = 0;

	sweep(*state, run_warm_file, false, &n);
	assert_true(n > 20);
	assert_true(count[C_SYSCALL] + count[C_MMAP] > 0);
}

static void
test_warm_cli_faults(void **state)
{
	unsigned long n = 0;

	sweep(*state, run_warm_cli, true, &n);
	assert_true(n > 20);
}

static void
test_look_cli_faults(void **state)
{
	unsigned long n = 0;

	sweep(*state, run_look_cli, true, &n);
	assert_true(n > 10);
}

static void
test_settle_cli_faults(void **state)
{
	unsigned long n = 0;

	sweep(*state, run_settle_cli, true, &n);
	assert_true(n > 20);
}

static void
test_host_faults(void **state)
{
	unsigned long n = 0;

	sweep(*state, run_host, false, &n);
	assert_true(n > 10);
}

/*
 * --pid on a process that has run one of the file's three windows: every
 * read of /proc, of the file and of its page cache failing in turn is an
 * error naming what could not be read, never a status.  The control: a
 * status for the file, from a look at its page cache (cachestat asked).
 */
static void
test_pid_faults(void **state)
{
	unsigned long n = 0;

	sweep(*state, run_pid, true, &n);
	assert_true(n > 20);
}

/*
 * The kernel shows the page cache only to a writer (cachestat EPERM): the
 * status stands and says the cache is unknown; the control (the same run
 * with the cache shown) says nothing of the kind.
 */
static void
test_pid_cache_refused(void **state)
{
	struct state *t = *state;
	struct outcome o;

	fill(t->bytes, true);
	run_once(t, run_pid, NCALLS, 0, &o);
	if (o.error || !o.verdict || strstr(o.text, "page cache: unknown"))
		fail_msg("control: want a status, the cache known: %s", o.text);
	if (count[C_SYSCALL] == 0)
		fail_msg("control: the page cache was not looked at: %s",
		    o.text);
	no_cachestat_for_us = true;
	run_once(t, run_pid, NCALLS, 0, &o);
	no_cachestat_for_us = false;
	if (o.error || !o.verdict || !strstr(o.text, "page cache: unknown"))
		fail_msg("cachestat refused: want the status and \"page cache: "
		    "unknown\", exit 0: %s", o.text);
}

/* The same sweeps where the kernel has no PAGEMAP_SCAN: smaps looks. */
static void
test_look_cli_faults_smaps(void **state)
{
	no_pagemap_scan = true;
	test_look_cli_faults(state);
	no_pagemap_scan = false;
}

/*
 * ... and their control: with nothing failing, the smaps looks read the
 * lines (fgets counted) and find the windows made huge, as PAGEMAP_SCAN
 * does; a fallback that said "no huge page" without reading would fail.
 */
static void
test_warm_file_faults_smaps(void **state)
{
	struct outcome o;

	no_pagemap_scan = true;
	test_warm_file_faults(state);
	run_once(*state, run_warm_file, NCALLS, 0, &o);
	no_pagemap_scan = false;
	if (count[C_FGETS] == 0 || strcmp(o.text, "3 made huge, 0 not") != 0)
		fail_msg("smaps fallback: %lu fgets, want the 3 windows made "
		    "huge: %s", count[C_FGETS], o.text);
}

/*
 * The same sweep for a user the kernel shows no page cache (cachestat
 * EPERM): the windows are faulted in through mappings of its own and
 * judged by their PMD mappings (every call of that way fails in turn),
 * and the control still makes the 3 windows huge, reading them.
 */
static void
test_warm_file_faults_blind(void **state)
{
	struct outcome o;

	no_cachestat_for_us = true;
	test_warm_file_faults(state);
	run_once(*state, run_warm_file, NCALLS, 0, &o);
	no_cachestat_for_us = false;
	if (strcmp(o.text, "3 made huge, 0 not") != 0 || count[C_FOPEN] == 0)
		fail_msg("blind warm: %lu fopens (thread-self/io), want the 3 "
		    "windows made huge: %s", count[C_FOPEN], o.text);
}

/*
 * The look at a file partly cached (its first window): the whole file's
 * cachestat is not the end of it, each window is asked on its own (a fully
 * cached file skips that), and each of those calls failing in turn is an
 * error, never "nothing cached" and a verdict.
 */
/* Pages of the file in the page cache now (mincore, not armed). */
static size_t
resident_pages(const struct state *t)
{
	size_t npages = (FILE_SIZE + 4095) / 4096, n = 0, i;
	unsigned char *vec = malloc(npages);
	int fd = open(t->path, O_RDONLY);
	void *m = fd < 0 ? MAP_FAILED :
	    mmap(NULL, FILE_SIZE, PROT_READ, MAP_SHARED, fd, 0);

	assert_true(vec != NULL && m != MAP_FAILED);
	assert_int_equal(mincore(m, FILE_SIZE, vec), 0);
	for (i = 0; i < npages; i++)
		n += vec[i] & 1;
	munmap(m, FILE_SIZE);
	close(fd);
	free(vec);
	return n;
}

static void
test_look_cli_partly_cached(void **state)
{
	struct state *t = *state;
	unsigned long clean, nth;
	struct outcome o, ctl;
	size_t pages;

	fill(t->bytes, true);
	cache_only = (off_t)(2 * MiB_);
	make_cold(t);
	pages = resident_pages(t);
	if (pages < 512 || pages >= (FILE_SIZE + 4095) / 4096)
		fail_msg("precondition: want the first window cached and not "
		    "the whole file, got %zu pages cached", pages);
	run_once(t, run_look_cli, NCALLS, 0, &ctl);
	clean = count[C_SYSCALL];
	if (ctl.error || !ctl.verdict || clean < 4)
		fail_msg("control: want a verdict from 4 or more cachestat "
		    "calls (the file, each window), got %lu: %s", clean,
		    ctl.text);
	for (nth = 1; nth <= clean; nth++) {
		run_once(t, run_look_cli, C_SYSCALL, nth, &o);
		check_failed(t, run_look_cli, C_SYSCALL, nth, &o, &ctl);
	}
	cache_only = 0;
}

/*
 * --warm -n by a user the kernel shows no page cache: the first cachestat
 * refused (EPERM) is the kernel's rule, and the look ends with the page
 * cache unknown, no error.  A refusal after a cachestat answered (a later
 * window's, the file partly cached) is a failed look: an error naming
 * cachestat, never "unknown" and never "nothing cached".
 */
static void
test_look_cli_refused(void **state)
{
	struct state *t = *state;
	struct outcome o;

	fill(t->bytes, true);
	eperm_from = 1;
	run_once(t, run_look_cli, NCALLS, 0, &o);
	if (o.error || strstr(o.text, "page cache: unknown (the kernel shows "
	    "a file's page cache only to a user who may write it") == NULL)
		fail_msg("cachestat refused: want the page cache unknown, no "
		    "error: %s", o.text);
	cache_only = (off_t)(2 * MiB_);
	eperm_from = 2;
	run_once(t, run_look_cli, NCALLS, 0, &o);
	eperm_from = 0;
	cache_only = 0;
	if (!o.error || strstr(o.text, "could not look: cachestat: "
	    "Operation not permitted") == NULL || strstr(o.text, "unknown"))
		fail_msg("a later cachestat refused: want an error naming it, "
		    "not unknown: %s", o.text);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_warm_file_faults, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_warm_file_faults_blind,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(test_warm_cli_faults, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_look_cli_faults, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_look_cli_partly_cached,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(test_look_cli_refused,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(test_settle_cli_faults, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_host_faults, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_pid_faults, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_pid_cache_refused, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_look_cli_faults_smaps,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(test_warm_file_faults_smaps,
		    setup, teardown),
	};

	if (elf_lib_init() != 0)
		return 1;
	/* MEASURE_TESTS=test_pid_* runs only those, while working on them. */
	if (getenv("MEASURE_TESTS") != NULL)
		cmocka_set_test_filter(getenv("MEASURE_TESTS"));
	return cmocka_run_group_tests_name("measure", tests, NULL, NULL);
}
