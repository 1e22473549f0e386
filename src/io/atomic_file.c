/* SPDX-License-Identifier: BSD-2-Clause */
/* SPDX-FileCopyrightText: 2026 the elfthp-align authors */
/*
 * Atomic replacement: a temporary file beside the target, metadata copied
 * in the order that keeps it (owner, then mode, then extended attributes
 * with security.capability last, since any write or chown clears it),
 * fsync, then (after the caller has checked the input once more) rename,
 * and fsync of the directory.  Until the rename the target is
 * untouched; on any failure, or on any signal that would end the process
 * (if its action is still the default), the temporary file is removed,
 * and a later run sweeps the ones a SIGKILL left (unlocked, older than 2 s).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sys/file.h>
#include <time.h>
#include <libgen.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "elfthp_io.h"

#define CAPS_XATTR "security.capability"
#define TMP_SUFFIX ".elfthp-XXXXXX"

/*
 * The temporary files a signal must clean up, one slot per worker thread.
 * A signal handler can reach nothing else, so this is global state.
 */
static const char *volatile pending[ATOMIC_MAX_OPEN];

static void
on_signal(int sig)
{
	size_t i;

	for (i = 0; i < ATOMIC_MAX_OPEN; i++) {
		const char *p = pending[i];

		if (p != NULL)
			unlink(p);
	}
	signal(sig, SIG_DFL);
	raise(sig);
}

/* A full table is an error: a temp file a signal cannot remove is a leak. */
static int
pending_add(const char *path)
{
	size_t i;

	for (i = 0; i < ATOMIC_MAX_OPEN; i++) {
		const char *expected = NULL;

		if (__atomic_compare_exchange_n(&pending[i], &expected, path,
		    false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
			return 0;
	}
	return -1;
}

static void
pending_remove(const char *path)
{
	size_t i;

	for (i = 0; path != NULL && i < ATOMIC_MAX_OPEN; i++) {
		const char *expected = path;

		__atomic_compare_exchange_n(&pending[i], &expected, NULL,
		    false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
	}
}

/*
 * Every signal whose default action ends the process, and that can be
 * caught, removes the temporary files first.  The faults (SIGSEGV and the
 * like) too, except under AddressSanitizer, whose own handlers report
 * them.  SIGXFSZ is ignored: past RLIMIT_FSIZE a write then fails with
 * EFBIG, an ordinary error that cleans up like any other.
 */
static const int ending_signals[] = {
	SIGHUP, SIGINT, SIGQUIT, SIGPIPE, SIGALRM, SIGTERM, SIGUSR1, SIGUSR2,
	SIGVTALRM, SIGPROF, SIGXCPU, SIGIO, SIGPWR, SIGSTKFLT, SIGTRAP,
#if !defined(__SANITIZE_ADDRESS__)
	SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGSYS,
#endif
};

/*
 * Only where the action is still the default: a signal the caller
 * ignores (nohup's SIGHUP) stays ignored, and one something else already
 * handles (a fuzzer's SIGALRM) stays with it.
 */
static void
catch_if_default(int sig, const struct sigaction *sa)
{
	struct sigaction old;

	if (sigaction(sig, NULL, &old) == 0 && old.sa_handler == SIG_DFL &&
	    !(old.sa_flags & SA_SIGINFO))
		sigaction(sig, sa, NULL);
}

static void
guard_signals(void)
{
	static _Atomic bool installed;
	struct sigaction sa, ign;
	size_t i;
	int sig;

	if (installed)
		return;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	for (i = 0; i < sizeof(ending_signals) / sizeof(ending_signals[0]); i++)
		catch_if_default(ending_signals[i], &sa);
	for (sig = SIGRTMIN; sig <= SIGRTMAX; sig++)
		catch_if_default(sig, &sa);
	ign = sa;
	ign.sa_handler = SIG_IGN;
	catch_if_default(SIGXFSZ, &ign);
	installed = true;
}

/* "<target>.elfthp-XXXXXX", or "<dir>/.elfthp-XXXXXX" if that name is too long. */
static char *
tmp_name(const char *final_path)
{
	char *copy, *dir, *name = NULL;
	const char *base = strrchr(final_path, '/');

	base = base ? base + 1 : final_path;
	if (strlen(base) + strlen(TMP_SUFFIX) <= NAME_MAX) {
		if (asprintf(&name, "%s" TMP_SUFFIX, final_path) < 0)
			return NULL;
		return name;
	}
	if ((copy = strdup(final_path)) == NULL)
		return NULL;
	dir = dirname(copy);
	if (asprintf(&name, "%s/" TMP_SUFFIX, dir) < 0)
		name = NULL;
	free(copy);
	return name;
}

/* mkostemp's suffix: six letters or digits. */
static bool
temp_suffix(const char *s)
{
	size_t i;

	for (i = 0; i < 6; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' &&
		    s[i] <= 'Z') || (s[i] >= '0' && s[i] <= '9')))
			return false;
	return s[6] == '\0';
}

/* "NAME.elfthp-XXXXXX" or ".elfthp-XXXXXX": one of ours (TMP_SUFFIX). */
bool
is_temp_name(const char *name)
{
	const char *p = strstr(name, ".elfthp-");

	while (p != NULL && !temp_suffix(p + 8))
		p = strstr(p + 1, ".elfthp-");
	return p != NULL;
}

/* Directories already swept in this run, so that -r sweeps each once. */
struct swept {
	struct swept *next;
	char path[];
};
static struct swept *swept_dirs;
static pthread_mutex_t swept_mu = PTHREAD_MUTEX_INITIALIZER;

static bool
first_sweep(const char *dir)
{
	struct swept *w;
	bool first = true;

	pthread_mutex_lock(&swept_mu);
	for (w = swept_dirs; w != NULL && first; w = w->next)
		first = strcmp(w->path, dir) != 0;
	if (first && (w = malloc(sizeof(*w) + strlen(dir) + 1)) != NULL) {
		strcpy(w->path, dir);
		w->next = swept_dirs;
		swept_dirs = w;
	}
	pthread_mutex_unlock(&swept_mu);
	return first;
}

/*
 * A temporary file whose writer is gone: ours by name, the caller's, a
 * regular file, not locked (every writer holds a lock on its temporary
 * file), and older than two seconds (a writer takes its lock right after
 * creating the file).
 */
static bool
stale_temp(int dfd, const char *name)
{
	struct stat st;
	bool stale = false;
	int fd;

	if (!is_temp_name(name))
		return false;
	fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return false;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
	    st.st_uid == geteuid() && st.st_mtime + 2 < time(NULL) &&
	    flock(fd, LOCK_EX | LOCK_NB) == 0)
		stale = true;
	close(fd);
	return stale;
}

/* Remove the stale temporary files in the directory of final_path. */
static void
sweep_stale(const char *final_path, FILE *notes)
{
	char *copy = strdup(final_path), *dir;
	struct dirent *e;
	DIR *d;

	if (copy == NULL)
		return;
	dir = dirname(copy);
	if (first_sweep(dir) && (d = opendir(dir)) != NULL) {
		while ((e = readdir(d)) != NULL)
			if (stale_temp(dirfd(d), e->d_name) &&
			    unlinkat(dirfd(d), e->d_name, 0) == 0 && notes)
				diag(notes, NULL, "%s/%s: removed a stale "
				    "temporary file (no process was writing "
				    "it)", dir, e->d_name);
		closedir(d);
	}
	free(copy);
}

int
atomic_open(struct atomic_file *a, const char *final_path, FILE *notes,
    char *err, size_t n)
{
	a->fd = -1;
	a->tmp_path = NULL;
	a->notes = notes;
	if ((a->final_path = strdup(final_path)) == NULL ||
	    (a->tmp_path = tmp_name(final_path)) == NULL) {
		atomic_abort(a);
		return error_text(err, n, "out of memory");
	}
	guard_signals();
	sweep_stale(final_path, notes);
	if (pending_add(a->tmp_path) != 0) {
		atomic_abort(a);
		return error_text(err, n, "more than %d temporary files open "
		    "at once", ATOMIC_MAX_OPEN);
	}
	if ((a->fd = mkostemp(a->tmp_path, O_CLOEXEC)) < 0) {
		int e = errno;

		pending_remove(a->tmp_path);
		free(a->tmp_path);
		a->tmp_path = NULL;
		atomic_abort(a);
		return error_text(err, n, "cannot create a temporary file beside it: %s",
		    strerror(e));
	}
	/*
	 * main() keeps descriptors 0 to 2 open: here, one of them would take
	 * what is printed to a closed standard stream into the new file.
	 */
	if (a->fd <= STDERR_FILENO) {
		int fd = a->fd;

		atomic_abort(a);
		return error_text(err, n, "the temporary file got descriptor %d, "
		    "a standard stream's: refusing to write it", fd);
	}
	/* While it is held, no later run takes the file for a stale one. */
	flock(a->fd, LOCK_EX | LOCK_NB);
	return 0;
}

static int
copy_one_xattr(int src, int dst, const char *name, char *err, size_t n)
{
	ssize_t len = fgetxattr(src, name, NULL, 0);
	char *val;
	int rc = 0;

	if (len < 0)
		return error_text(err, n, "cannot read attribute %s: %s", name,
		    strerror(errno));
	if ((val = malloc(len ? (size_t)len : 1)) == NULL)
		return error_text(err, n, "out of memory");
	len = fgetxattr(src, name, val, (size_t)len);
	if (len < 0 || fsetxattr(dst, name, val, (size_t)len, 0) != 0)
		rc = error_text(err, n, "cannot copy attribute %s: %s", name,
		    strerror(errno));
	free(val);
	return rc;
}

static bool
has_name(const char *names, ssize_t len, const char *name)
{
	const char *p;

	for (p = names; p < names + len; p += strlen(p) + 1)
		if (strcmp(p, name) == 0)
			return true;
	return false;
}

/*
 * A new file can inherit attributes from its directory (a default ACL
 * becomes system.posix_acl_access): drop those the original does not
 * have, so the result carries exactly the original's.
 */
static int
drop_inherited(int src, int dst, char *err, size_t n)
{
	char srcnames[8192], dstnames[8192], *p;
	ssize_t slen = flistxattr(src, srcnames, sizeof(srcnames));
	ssize_t dlen = flistxattr(dst, dstnames, sizeof(dstnames));

	if (slen < 0)
		slen = 0;
	if (dlen <= 0)
		return 0;
	for (p = dstnames; p < dstnames + dlen; p += strlen(p) + 1)
		if (!has_name(srcnames, slen, p) && fremovexattr(dst, p) != 0 &&
		    errno != ENODATA && errno != EPERM && errno != ENOTSUP)
			return error_text(err, n, "cannot drop inherited attribute "
			    "%s: %s", p, strerror(errno));
	return 0;
}

/*
 * Signatures of the old content (IMA's hash or signature, EVM's HMAC or
 * signature over the attributes): copied onto new content they are
 * wrong, and a host that appraises would refuse to run the file.
 */
static bool
signature_xattr(const char *name)
{
	return strcmp(name, "security.ima") == 0 ||
	    strcmp(name, "security.evm") == 0;
}

static int
copy_xattrs(const struct atomic_file *a, int src, int dst, char *err,
    size_t n)
{
	ssize_t len = flistxattr(src, NULL, 0);
	char *names, *p;
	bool caps = false;
	int rc = 0;

	if (len < 0 && (errno == ENOTSUP || errno == ENOSYS))
		return 0;
	if (len <= 0)
		return len < 0 ? error_text(err, n, "cannot list attributes: %s",
		    strerror(errno)) : 0;
	if ((names = malloc((size_t)len)) == NULL)
		return error_text(err, n, "out of memory");
	if ((len = flistxattr(src, names, (size_t)len)) < 0)
		rc = error_text(err, n, "cannot list attributes: %s", strerror(errno));
	for (p = names; rc == 0 && p < names + len; p += strlen(p) + 1) {
		if (strcmp(p, CAPS_XATTR) == 0)
			caps = true;
		else if (signature_xattr(p) && a->notes != NULL)
			diag(a->notes, a->final_path, "%s not copied: it "
			    "signs the old content; sign the new file again "
			    "(evmctl ima_sign)", p);
		else if (!signature_xattr(p))
			rc = copy_one_xattr(src, dst, p, err, n);
	}
	/* Last: anything after it (a chown, a write) would clear it. */
	if (rc == 0 && caps)
		rc = copy_one_xattr(src, dst, CAPS_XATTR, err, n);
	free(names);
	return rc;
}

static int
copy_metadata(struct atomic_file *a, int src, bool owner_required, char *err,
    size_t n)
{
	struct stat st;
	mode_t mode;

	if (fstat(src, &st) != 0)
		return error_text(err, n, "stat: %s", strerror(errno));
	mode = st.st_mode & 07777;
	/* Owner before mode: fchown clears the set-user-ID and set-group-ID bits. */
	if (fchown(a->fd, st.st_uid, st.st_gid) != 0) {
		if (owner_required || errno != EPERM)
			return error_text(err, n, "cannot keep the owner: %s",
			    strerror(errno));
		/* As cp(1) does: no set-ID bits on a file we could not give away. */
		mode &= ~(mode_t)(S_ISUID | S_ISGID);
	}
	if (drop_inherited(src, a->fd, err, n) != 0)
		return -1;
	if (fchmod(a->fd, mode) != 0)
		return error_text(err, n, "cannot keep the mode: %s", strerror(errno));
	return copy_xattrs(a, src, a->fd, err, n);
}

/* Owner, mode, ACLs and xattrs of src on the temporary; aborts on failure,
 * as every atomic_* call does. */
int
atomic_copy_metadata(struct atomic_file *a, int src, bool owner_required,
    char *err, size_t n)
{
	if (copy_metadata(a, src, owner_required, err, n) != 0) {
		atomic_abort(a);
		return -1;
	}
	return 0;
}

static void
sync_dir(const char *path)
{
	char *copy = strdup(path);
	int fd;

	if (copy == NULL)
		return;
	fd = open(dirname(copy), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd >= 0) {
		fsync(fd);
		close(fd);
	}
	free(copy);
}

#ifdef ELFTHP_TEST_HOOKS
/*
 * Test builds only (build/hooks/elfthp-align): ELFTHP_TEST_STDOUT_BEFORE_SYNC
 * writes a line to standard output while the temporary file is complete
 * and still open, as the main thread printing an earlier file's line late
 * would.
 * It makes the closed-descriptor race of tests/integration/test_stdfds.sh
 * happen every time instead of on a loaded machine only.
 */
static void
hook_before_sync(void)
{
	if (getenv("ELFTHP_TEST_STDOUT_BEFORE_SYNC") != NULL) {
		fputs("{\"schema\":1,\"mode\":\"test-hook\"}\n", stdout);
		fflush(stdout);
	}
}
#else
static void
hook_before_sync(void)
{
}
#endif

/*
 * Data and metadata on disk before the rename can make them visible, unless
 * the caller does not need that (--no-sync: build outputs it can remake).
 */
int
atomic_sync(struct atomic_file *a, bool durable, char *err, size_t n)
{
	int rc = 0;

	hook_before_sync();
	a->durable = durable;
	if (durable && fsync(a->fd) != 0)
		rc = error_text(err, n, "fsync: %s", strerror(errno));
	if (close(a->fd) != 0 && rc == 0)
		rc = error_text(err, n, "close: %s", strerror(errno));
	a->fd = -1;
	if (rc != 0)
		atomic_abort(a);
	return rc;
}


int
atomic_rename(struct atomic_file *a, char *err, size_t n)
{
	if (rename(a->tmp_path, a->final_path) != 0) {
		error_text(err, n, "cannot rename the new file into place: %s",
		    strerror(errno));
		atomic_abort(a);
		return -1;
	}
	pending_remove(a->tmp_path);
	if (a->durable)
		sync_dir(a->final_path);
	free(a->tmp_path);
	free(a->final_path);
	a->tmp_path = a->final_path = NULL;
	return 0;
}

void
atomic_abort(struct atomic_file *a)
{
	if (a->fd >= 0)
		close(a->fd);
	if (a->tmp_path != NULL)
		unlink(a->tmp_path);
	pending_remove(a->tmp_path);
	free(a->tmp_path);
	free(a->final_path);
	a->fd = -1;
	a->tmp_path = a->final_path = NULL;
}
