/* SPDX-License-Identifier: BSD-2-Clause */
/* SPDX-FileCopyrightText: 2026 the elfthp-align authors */
/*
 * Atomic replacement, all of it relative to the directory descriptor the
 * caller opened (io/dirfd.c): a temporary file beside the target,
 * metadata copied in the order that keeps it (owner, then mode, then extended attributes
 * with security.capability last, since any write or chown clears it),
 * fsync, then (after the caller has checked the input once more) rename,
 * and fsync of the directory.  Until the rename the target is
 * untouched; on any failure, or on any signal that would end the process
 * (if its action is still the default), the temporary file is removed,
 * and a later run sweeps the ones a SIGKILL left (unlocked, older than 2 s,
 * owned by the caller, the directory's owner or the target's owner).  A
 * name is removed or renamed only while it is still the file created.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sys/file.h>
#include <time.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "elfthp_io.h"

#define CAPS_XATTR "security.capability"
#define TMP_SUFFIX ".elfthp-XXXXXX"

/*
 * The temporary files a signal must clean up, one slot per worker thread.
 * A signal handler can reach nothing else, so this is global state.  Each
 * slot is an atomic_file whose dfd, tmp_name, dev and ino are set before
 * it is published.
 */
static struct atomic_file *volatile pending[ATOMIC_MAX_OPEN];

/*
 * Remove the temporary file through its directory, and only while the
 * name is still the file we created: another user who can write the
 * directory may have put something else there.  Async-signal-safe.
 */
static void
unlink_ours(const struct atomic_file *a)
{
	struct stat st;

	if (fstatat(a->dfd, a->tmp_name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	    st.st_dev == a->dev && st.st_ino == a->ino)
		unlinkat(a->dfd, a->tmp_name, 0);
}

/* A hard-link group's temporary names (atomic_links.c), likewise. */
static struct atomic_links *volatile pending_links[ATOMIC_MAX_OPEN];

/* Each name linked so far that is still the new file.  Async-signal-safe. */
static void
unlink_links(const struct atomic_links *l)
{
	size_t i, n = __atomic_load_n(&l->n, __ATOMIC_SEQ_CST);
	struct stat st;

	for (i = 0; i < n; i++)
		if (fstatat(l->v[i].dfd, l->v[i].tmp_name, &st,
		    AT_SYMLINK_NOFOLLOW) == 0 && st.st_dev == l->new_dev &&
		    st.st_ino == l->new_ino)
			unlinkat(l->v[i].dfd, l->v[i].tmp_name, 0);
}

/*
 * Threads inside a rename phase (atomic_hold_signals), and the last
 * ending signal that came meanwhile: a group of hard links is renamed
 * name after name, and a process that died between two names would leave
 * them split between two files.  The signal is blocked in the renaming
 * thread, but the kernel may hand it to any other (the main thread waits
 * for output): there the handler only notes it, and the rename phase,
 * once every name is in place, ends the process with it.
 */
static int renaming;
static int deferred_sig;

static void
die_of(int sig)
{
	size_t i;

	for (i = 0; i < ATOMIC_MAX_OPEN; i++) {
		const struct atomic_file *a = pending[i];
		const struct atomic_links *l = pending_links[i];

		if (a != NULL)
			unlink_ours(a);
		if (l != NULL)
			unlink_links(l);
	}
	signal(sig, SIG_DFL);
	raise(sig);
}

static void
on_signal(int sig)
{
	/* Stored before renaming is read, and released the other way round
	 * (atomic_release_signals): one of the two sees the other. */
	__atomic_store_n(&deferred_sig, sig, __ATOMIC_SEQ_CST);
	if (__atomic_load_n(&renaming, __ATOMIC_SEQ_CST) > 0)
		return;
	die_of(sig);
}

/* A full table is an error: a temp file a signal cannot remove is a leak. */
static int
pending_add(struct atomic_file *a)
{
	size_t i;

	for (i = 0; i < ATOMIC_MAX_OPEN; i++) {
		struct atomic_file *expected = NULL;

		if (__atomic_compare_exchange_n(&pending[i], &expected, a,
		    false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
			return 0;
	}
	return -1;
}

static void
pending_remove(struct atomic_file *a)
{
	size_t i;

	for (i = 0; i < ATOMIC_MAX_OPEN; i++) {
		struct atomic_file *expected = a;

		__atomic_compare_exchange_n(&pending[i], &expected, NULL,
		    false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
	}
}

int
atomic_links_publish(struct atomic_links *l)
{
	size_t i;

	for (i = 0; i < ATOMIC_MAX_OPEN; i++) {
		struct atomic_links *expected = NULL;

		if (__atomic_compare_exchange_n(&pending_links[i], &expected, l,
		    false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
			return 0;
	}
	return -1;
}

void
atomic_links_unpublish(struct atomic_links *l)
{
	size_t i;

	for (i = 0; i < ATOMIC_MAX_OPEN; i++) {
		struct atomic_links *expected = l;

		__atomic_compare_exchange_n(&pending_links[i], &expected, NULL,
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

/*
 * A rename phase: until atomic_release_signals, an ending signal waits.
 * Blocked in this thread; noted by the handler in any other (see
 * renaming).  The faults stay deliverable: blocked, they would kill the
 * process without a handler.
 */
void
atomic_hold_signals(struct signal_hold *h)
{
	static const int faults[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL,
		SIGTRAP, SIGSYS, SIGABRT };
	sigset_t set;
	size_t i;

	sigfillset(&set);
	for (i = 0; i < sizeof(faults) / sizeof(faults[0]); i++)
		sigdelset(&set, faults[i]);
	__atomic_add_fetch(&renaming, 1, __ATOMIC_SEQ_CST);
	pthread_sigmask(SIG_BLOCK, &set, &h->old);
	h->on = true;
}

/* The phase is over: a signal that came meanwhile ends the process now. */
void
atomic_release_signals(struct signal_hold *h)
{
	int sig;

	if (!h->on)
		return;
	h->on = false;
	pthread_sigmask(SIG_SETMASK, &h->old, NULL);
	if (__atomic_sub_fetch(&renaming, 1, __ATOMIC_SEQ_CST) == 0 &&
	    (sig = __atomic_load_n(&deferred_sig, __ATOMIC_SEQ_CST)) != 0)
		die_of(sig);
}

/* "NAME.elfthp-XXXXXX", or ".elfthp-XXXXXX" where that name is too long. */
static char *
tmp_template(const char *final_name)
{
	char *name;

	if (strlen(final_name) + strlen(TMP_SUFFIX) > NAME_MAX)
		final_name = "";
	if (asprintf(&name, "%s" TMP_SUFFIX, final_name) < 0)
		return NULL;
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

/* Where in name the suffix of one of ours (TMP_SUFFIX) begins, or NULL. */
static const char *
temp_suffix_at(const char *name)
{
	const char *p = strstr(name, ".elfthp-");

	while (p != NULL && !temp_suffix(p + 8))
		p = strstr(p + 1, ".elfthp-");
	return p;
}

/* "NAME.elfthp-XXXXXX" or ".elfthp-XXXXXX": one of ours (TMP_SUFFIX). */
bool
is_temp_name(const char *name)
{
	return temp_suffix_at(name) != NULL;
}

/* Six random letters or digits at the end of name (mkostemp's XXXXXX). */
static int
fill_suffix(char *name)
{
	static const char set[] = "abcdefghijklmnopqrstuvwxyz"
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
	char *x = name + strlen(name) - 6;
	unsigned char r[6];
	int i;

	if (getrandom(r, sizeof(r), 0) != sizeof(r))
		return -1;
	for (i = 0; i < 6; i++)
		x[i] = set[r[i] % (sizeof(set) - 1)];
	return 0;
}

/*
 * mkostemp, in a directory descriptor: O_EXCL | O_NOFOLLOW, so that the
 * name is a new file of ours, never something another user put there.
 */
static int
create_temp(int dfd, char *name)
{
	int tries, fd;

	for (tries = 0; tries < 100; tries++) {
		if (fill_suffix(name) != 0)
			return -1;
		fd = openat(dfd, name, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW |
		    O_CLOEXEC, 0600);
		if (fd >= 0 || errno != EEXIST)
			return fd;
	}
	errno = EEXIST;
	return -1;
}

/*
 * a's temporary file under one more new name (template: NAME.elfthp-XXXXXX)
 * in dfd: linkat from a's directory, never through a path, and like
 * O_EXCL it never replaces a name that exists.  0, or -1 with errno.
 */
int
atomic_link_temp(const struct atomic_file *a, int dfd, char *name)
{
	int tries;

	for (tries = 0; tries < 100; tries++) {
		if (fill_suffix(name) != 0)
			return -1;
		if (linkat(a->dfd, a->tmp_name, dfd, name, 0) == 0)
			return 0;
		if (errno != EEXIST)
			return -1;
	}
	errno = EEXIST;
	return -1;
}

char *
atomic_temp_name(const char *final_name)
{
	return tmp_template(final_name);
}

/* Directories already swept in this run, so that -r sweeps each once. */
struct swept {
	struct swept *next;
	dev_t dev;
	ino_t ino;
};
static struct swept *swept_dirs;
static pthread_mutex_t swept_mu = PTHREAD_MUTEX_INITIALIZER;

static bool
first_sweep(const struct stat *dir)
{
	struct swept *w;
	bool first = true;

	pthread_mutex_lock(&swept_mu);
	for (w = swept_dirs; w != NULL && first; w = w->next)
		first = w->dev != dir->st_dev || w->ino != dir->st_ino;
	if (first && (w = malloc(sizeof(*w))) != NULL) {
		w->dev = dir->st_dev;
		w->ino = dir->st_ino;
		w->next = swept_dirs;
		swept_dirs = w;
	}
	pthread_mutex_unlock(&swept_mu);
	return first;
}

/*
 * Who a temporary file of ours can belong to: the caller; the owner of
 * the file it stands beside (root's rewrite gives the temporary file the
 * original's owner before the rename); or the directory's owner.  Any
 * other owner's file is not one this tool made, whatever its name.
 */
static bool
temp_owner_ok(int dfd, const char *name, const struct stat *st,
    const struct stat *dir)
{
	const char *suffix = temp_suffix_at(name);
	char target[NAME_MAX + 1];
	struct stat t;

	if (st->st_uid == geteuid() || st->st_uid == dir->st_uid)
		return true;
	if (suffix == NULL || suffix == name ||
	    (size_t)(suffix - name) > NAME_MAX)
		return false;
	memcpy(target, name, (size_t)(suffix - name));
	target[suffix - name] = '\0';
	return fstatat(dfd, target, &t, AT_SYMLINK_NOFOLLOW) == 0 &&
	    S_ISREG(t.st_mode) && t.st_uid == st->st_uid;
}

/* Was t more than secs seconds ago?  To the nanosecond: counted in
 * whole seconds, a file 2.0 to 2.99 s old would be "not older than 2". */
static bool
older_than(const struct timespec *t, long secs)
{
	struct timespec now;
	long long ns;

	if (clock_gettime(CLOCK_REALTIME, &now) != 0)
		return false;
	ns = (long long)(now.tv_sec - t->tv_sec) * 1000000000LL +
	    (now.tv_nsec - t->tv_nsec);
	return ns > secs * 1000000000LL;
}

/*
 * A temporary file whose writer is gone: ours by name and by owner, a
 * regular file, not locked (every writer holds a lock on its temporary
 * file), and older than two seconds (a writer takes its lock right after
 * creating the file).  Opened without following or blocking.
 */
static bool
stale_temp(int dfd, const char *name, const struct stat *dir)
{
	struct stat st;
	bool stale = false;
	int fd;

	if (!is_temp_name(name))
		return false;
	fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY |
	    O_CLOEXEC);
	if (fd < 0)
		return false;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
	    temp_owner_ok(dfd, name, &st, dir) &&
	    older_than(&st.st_mtim, 2) &&
	    flock(fd, LOCK_EX | LOCK_NB) == 0)
		stale = true;
	close(fd);
	return stale;
}

/* The directory part of shown ("dir/prog": "dir"), for the notes. */
static int
dir_len(const char *shown)
{
	const char *slash = strrchr(shown, '/');

	return slash == NULL ? 0 : slash == shown ? 1 : (int)(slash - shown);
}

/* Remove the stale temporary files in dfd, once per directory a run;
 * shown names a file there, notes gets a line per file removed. */
void
atomic_sweep(int dfd, const char *shown, FILE *notes)
{
	struct stat dir;
	struct dirent *e;
	DIR *d;
	int fd;

	if (fstat(dfd, &dir) != 0 || !first_sweep(&dir))
		return;
	/* A descriptor of its own: readdir moves its offset. */
	if ((fd = openat(dfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
		return;
	if ((d = fdopendir(fd)) == NULL) {
		close(fd);
		return;
	}
	while ((e = readdir(d)) != NULL)
		if (stale_temp(dirfd(d), e->d_name, &dir) &&
		    unlinkat(dirfd(d), e->d_name, 0) == 0 && notes)
			diag(notes, NULL, "%.*s%s%s: removed a stale "
			    "temporary file (no process was writing it)",
			    dir_len(shown), shown, dir_len(shown) ? "/" : "",
			    e->d_name);
	closedir(d);
}

static void
atomic_clear(struct atomic_file *a)
{
	free(a->final_name);
	free(a->tmp_name);
	free(a->shown);
	a->fd = -1;
	a->final_name = a->tmp_name = a->shown = NULL;
}

static int
open_temp(struct atomic_file *a, char *err, size_t n)
{
	struct stat st;

	if ((a->fd = create_temp(a->dfd, a->tmp_name)) < 0) {
		int e = errno;

		atomic_clear(a);
		return error_text(err, n, "cannot create a temporary file "
		    "beside it: %s", strerror(e));
	}
	if (fstat(a->fd, &st) != 0) {
		int e = errno;

		close(a->fd);
		unlinkat(a->dfd, a->tmp_name, 0);
		atomic_clear(a);
		return error_text(err, n, "stat: %s", strerror(e));
	}
	a->dev = st.st_dev;
	a->ino = st.st_ino;
	return 0;
}

/*
 * The temporary file beside final_name in the directory dfd (the
 * caller's, open until atomic_rename or atomic_abort returned); shown
 * names the final file in messages.
 */
int
atomic_open(struct atomic_file *a, int dfd, const char *final_name,
    const char *shown, FILE *notes, char *err, size_t n)
{
	sigset_t all, old;
	bool full;

	*a = (struct atomic_file){ .dfd = dfd, .fd = -1, .notes = notes };
	if ((a->final_name = strdup(final_name)) == NULL ||
	    (a->shown = strdup(shown)) == NULL ||
	    (a->tmp_name = tmp_template(final_name)) == NULL) {
		atomic_clear(a);
		return error_text(err, n, "out of memory");
	}
	guard_signals();
	atomic_sweep(a->dfd, a->shown, a->notes);
	/* No signal between creating the file and publishing it. */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	if (open_temp(a, err, n) != 0) {
		pthread_sigmask(SIG_SETMASK, &old, NULL);
		return -1;
	}
	full = pending_add(a) != 0;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (full) {
		atomic_abort(a);
		return error_text(err, n, "more than %d temporary files open "
		    "at once", ATOMIC_MAX_OPEN);
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
			diag(a->notes, a->shown, "%s not copied: it "
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


/* The rename on disk too; a directory we may not read cannot be synced. */
void
atomic_dir_sync(int dfd)
{
	int fd = openat(dfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd >= 0) {
		fsync(fd);
		close(fd);
	}
}

/* Is the temporary file's name still the file we created? */
static bool
name_is_ours(const struct atomic_file *a)
{
	struct stat st;

	return fstatat(a->dfd, a->tmp_name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	    st.st_dev == a->dev && st.st_ino == a->ino;
}

/*
 * The new file again, read-only (the page-cache step needs a descriptor
 * with no writer), from the descriptor we hold, never from its name,
 * which another user may have swapped for a FIFO or a link by now.
 * Without /proc, the name is opened without following or blocking and
 * must be the file we created.
 */
int
atomic_reopen_read(const struct atomic_file *a, char *err, size_t n)
{
	char self[64];
	struct stat st;
	int fd;

	snprintf(self, sizeof(self), "/proc/self/fd/%d", a->fd);
	fd = open(self, O_RDONLY | O_CLOEXEC);
	if (fd < 0 && errno == ENOENT)
		fd = openat(a->dfd, a->tmp_name, O_RDONLY | O_NOFOLLOW |
		    O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return error_text(err, n, "cannot open the new file again: %s",
		    strerror(errno));
	if (fstat(fd, &st) != 0 || st.st_dev != a->dev || st.st_ino != a->ino) {
		close(fd);
		return error_text(err, n, "the new file was replaced by "
		    "another process before it was in place");
	}
	return fd;
}

int
atomic_rename(struct atomic_file *a, char *err, size_t n)
{
	if (!name_is_ours(a)) {
		error_text(err, n, "the new file was replaced by another "
		    "process before it was in place; left the original as it "
		    "was");
		atomic_abort(a);
		return -1;
	}
	if (renameat(a->dfd, a->tmp_name, a->dfd, a->final_name) != 0) {
		error_text(err, n, "cannot rename the new file into place: %s",
		    strerror(errno));
		atomic_abort(a);
		return -1;
	}
	pending_remove(a);
	if (a->durable)
		atomic_dir_sync(a->dfd);
	atomic_clear(a);
	return 0;
}

void
atomic_abort(struct atomic_file *a)
{
	if (a->fd >= 0)
		close(a->fd);
	if (a->tmp_name != NULL && a->ino != 0)
		unlink_ours(a);
	pending_remove(a);
	atomic_clear(a);
}
