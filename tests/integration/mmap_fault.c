/* SPDX-License-Identifier: BSD-2-Clause */
/* SPDX-FileCopyrightText: 2026 the elfthp-align authors */
/*
 * mmap_fault.so: an LD_PRELOAD shim that refuses, with ENODEV, every
 * mapping of one file (the inode that ELFTHP_MMAP_REFUSE names), as a
 * file system without mmap does (test_copier.sh builds it with cc -shared
 * -fPIC).  Mappings of other files, and anonymous ones, pass.  Each
 * refusal appends a line to the file ELFTHP_MMAP_LOG, if set, so that
 * the test knows the shim acted.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

typedef void *mmap_fn(void *, size_t, int, int, int, off_t);

static void
note(int fd, off_t off)
{
	const char *log = getenv("ELFTHP_MMAP_LOG");
	char line[64];
	int lf, len;

	if (log == NULL)
		return;
	lf = open(log, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
	if (lf < 0)
		return;
	len = snprintf(line, sizeof(line), "refused fd %d offset %lld\n", fd,
	    (long long)off);
	if (write(lf, line, (size_t)len) != len)
		(void)0;
	close(lf);
}

/* Whether fd is the file that ELFTHP_MMAP_REFUSE names. */
static int
refused(int fd)
{
	const char *path = getenv("ELFTHP_MMAP_REFUSE");
	struct stat a, b;

	return path != NULL && fd >= 0 && fstat(fd, &a) == 0 &&
	    stat(path, &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

static void *
shim(const char *name, void *a, size_t len, int prot, int flags, int fd,
    off_t off)
{
	static mmap_fn *real;

	if (!(flags & MAP_ANONYMOUS) && refused(fd)) {
		note(fd, off);
		errno = ENODEV;
		return MAP_FAILED;
	}
	if (real == NULL)
		real = (mmap_fn *)dlsym(RTLD_NEXT, name);
	return real(a, len, prot, flags, fd, off);
}

void *
mmap(void *a, size_t len, int prot, int flags, int fd, off_t off)
{
	return shim("mmap", a, len, prot, flags, fd, off);
}

void *
mmap64(void *a, size_t len, int prot, int flags, int fd, off_t off)
{
	return shim("mmap64", a, len, prot, flags, fd, off);
}
