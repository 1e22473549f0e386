/* SPDX-License-Identifier: BSD-2-Clause */
/* SPDX-FileCopyrightText: 2026 the elfthp-align authors */
/*
 * proc_fault.so: an LD_PRELOAD shim that fails one read of /proc/PID/...
 * so that a test can check that every such failure is an error naming the
 * call, never a verdict (test_pid.sh builds it with cc -shared -fPIC).
 *
 * It counts the calls that touch a file under /proc/<digits>/: open64,
 * openat64 and open of such a path, and read and pread64 on a descriptor
 * so opened, but for the mapped files themselves (/proc/PID/root/...,
 * /proc/PID/map_files/...), whose opens count and whose reads are the ELF
 * reader's, tested with the rewrite.  ELFTHP_FAULT_N=K makes the Kth of them fail (open: EMFILE,
 * read and pread: EIO) and ELFTHP_FAULT_N=0 fails none; with
 * ELFTHP_FAULT_SHORT=1 the Kth read or pread returns half of what it
 * asked for instead (a short read).  Each counted call appends
 * "N CALL PATH" to the file ELFTHP_FAULT_LOG, if set.
 *
 * ELFTHP_FAULT_PID=V counts only the calls on /proc/V/... (--pid all
 * reads every process; the test aims at one).  ELFTHP_FAULT_KILL=1 makes
 * the Kth call, instead of failing, SIGKILL V and wait until it has ended
 * (a zombie, or reaped) before it runs: a process that exits at exactly
 * that step of the scan.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#define MAX_FD 1024

static char *proc_path[MAX_FD];	/* what each counted descriptor names */
static long calls;

static bool
is_proc_pid(const char *path)
{
	return path != NULL && strncmp(path, "/proc/", 6) == 0 &&
	    path[6] >= '0' && path[6] <= '9';
}

/* Does path name /proc/ELFTHP_FAULT_PID/... (any /proc/PID/ if unset)? */
static bool
aimed_at(const char *path)
{
	const char *pid = getenv("ELFTHP_FAULT_PID");
	size_t n;

	if (pid == NULL)
		return true;
	n = strlen(pid);
	return strncmp(path + 6, pid, n) == 0 && path[6 + n] == '/';
}

/* SIGKILL the process aimed at; wait (5 s at most) until it has ended.
 * fopen and fscanf call glibc's own open and read, not these wrappers. */
static void
kill_target(void)
{
	const char *pid = getenv("ELFTHP_FAULT_PID");
	struct timespec tick = { .tv_nsec = 1000000 };
	char path[64], state = 'R';
	int i;
	FILE *f;

	if (pid == NULL || kill((pid_t)atol(pid), SIGKILL) != 0)
		return;
	snprintf(path, sizeof(path), "/proc/%s/stat", pid);
	for (i = 0; i < 5000; i++) {
		if ((f = fopen(path, "re")) == NULL)
			return;
		if (fscanf(f, "%*d (%*[^)]) %c", &state) != 1)
			state = 'R';
		fclose(f);
		if (state == 'Z' || state == 'X')
			return;
		nanosleep(&tick, NULL);
	}
}

/* Count a call; true if it is the one to fail. */
static bool
fault(const char *call, const char *path)
{
	const char *n = getenv("ELFTHP_FAULT_N"), *log = getenv("ELFTHP_FAULT_LOG");
	FILE *f;

	if (!aimed_at(path))
		return false;
	calls++;
	if (log != NULL && (f = fopen(log, "ae")) != NULL) {
		fprintf(f, "%ld %s %s\n", calls, call, path);
		fclose(f);
	}
	if (n == NULL || atol(n) != calls)
		return false;
	if (getenv("ELFTHP_FAULT_KILL") == NULL)
		return true;
	kill_target();
	return false;
}

static int
opened(int fd, const char *path)
{
	if (strstr(path, "/root/") != NULL || strstr(path, "/map_files/") != NULL)
		return fd;
	if (fd >= 0 && fd < MAX_FD) {
		free(proc_path[fd]);
		proc_path[fd] = strdup(path);
	}
	return fd;
}

static int
open_common(const char *call, int dirfd, const char *path, int flags,
    mode_t mode)
{
	static int (*real_openat)(int, const char *, int, ...);

	if (real_openat == NULL)
		real_openat = dlsym(RTLD_NEXT, "openat64");
	if (!is_proc_pid(path))
		return real_openat(dirfd, path, flags, mode);
	if (fault(call, path)) {
		errno = EMFILE;
		return -1;
	}
	return opened(real_openat(dirfd, path, flags, mode), path);
}

static mode_t
mode_of(int flags, va_list ap)
{
	return (flags & (O_CREAT | O_TMPFILE)) ? va_arg(ap, mode_t) : 0;
}

int
open64(const char *path, int flags, ...)
{
	va_list ap;
	mode_t m;

	va_start(ap, flags);
	m = mode_of(flags, ap);
	va_end(ap);
	return open_common("open", AT_FDCWD, path, flags, m);
}

int
open(const char *path, int flags, ...)
{
	va_list ap;
	mode_t m;

	va_start(ap, flags);
	m = mode_of(flags, ap);
	va_end(ap);
	return open_common("open", AT_FDCWD, path, flags, m);
}

int
openat64(int dirfd, const char *path, int flags, ...)
{
	va_list ap;
	mode_t m;

	va_start(ap, flags);
	m = mode_of(flags, ap);
	va_end(ap);
	return open_common("openat", dirfd, path, flags, m);
}

int
close(int fd)
{
	static int (*real_close)(int);

	if (real_close == NULL)
		real_close = dlsym(RTLD_NEXT, "close");
	if (fd >= 0 && fd < MAX_FD) {
		free(proc_path[fd]);
		proc_path[fd] = NULL;
	}
	return real_close(fd);
}

ssize_t
read(int fd, void *buf, size_t len)
{
	static ssize_t (*real_read)(int, void *, size_t);

	if (real_read == NULL)
		real_read = dlsym(RTLD_NEXT, "read");
	if (fd >= 0 && fd < MAX_FD && proc_path[fd] != NULL &&
	    fault("read", proc_path[fd])) {
		errno = EIO;
		return -1;
	}
	return real_read(fd, buf, len);
}

ssize_t
pread64(int fd, void *buf, size_t len, off_t off)
{
	static ssize_t (*real_pread)(int, void *, size_t, off_t);

	if (real_pread == NULL)
		real_pread = dlsym(RTLD_NEXT, "pread64");
	if (fd >= 0 && fd < MAX_FD && proc_path[fd] != NULL &&
	    fault("pread", proc_path[fd])) {
		if (getenv("ELFTHP_FAULT_SHORT") != NULL)
			return real_pread(fd, buf, len / 2, off);
		errno = EIO;
		return -1;
	}
	return real_pread(fd, buf, len, off);
}
