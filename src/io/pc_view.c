/* SPDX-License-Identifier: BSD-2-Clause */
/* SPDX-FileCopyrightText: 2026 the elfthp-align authors */
/*
 * Where the page cache of an open file is, and under which dev:ino the
 * processes that map it show it in /proc/PID/maps.
 *
 * Overlayfs (the storage of Docker and Podman images) keeps no page cache
 * of its own: a mapping of an overlay file maps the real (lower or upper)
 * file, and POSIX_FADV_DONTNEED is passed on to it, but cachestat(2) on the
 * overlay descriptor looks at the overlay inode's own, empty mapping, and
 * fdatasync does not reach a lower file.  On Linux 6.18 /proc/PID/maps
 * shows a mapping of an overlay file with the overlay's device number,
 * which is not the st_dev that fstat gives for the same file.  So, for a
 * file on overlayfs:
 *
 *   - the real file is opened through /proc/self/map_files of a mapping
 *     of the descriptor: the kernel opens the mapped file itself, so no
 *     name is resolved that a user could swap.  This needs
 *     CAP_SYS_ADMIN or CAP_CHECKPOINT_RESTORE, and kernels that keep the
 *     user's path in a mapping's backing file (6.18) open the overlay file
 *     again: fstatfs tells which.  With the real file, cachestat, fdatasync
 *     and POSIX_FADV_DONTNEED go to it;
 *   - without it, the cache is counted with mincore on mappings of the
 *     overlay descriptor (those map the real file on every kernel), unless
 *     cachestat through the descriptor is seen to count a page that
 *     mincore counts.  mincore answers only to the file's owner or to a
 *     process that may write it (others are told every page is cached):
 *     a page past the end of the file, which no folio holds, tells which;
 *     where it pretends, nothing here can count the cache (v->blind);
 *   - the dev:ino pairs looked for in /proc/PID/maps are fstat's, the one
 *     /proc/self/maps shows for a mapping of ours, and the real file's.
 *
 * Nothing is assumed from the kernel's version: each of these is tried.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "elfthp_io.h"

#define OVERLAYFS_MAGIC 0x794c7630UL

static void
add_ident(struct pc_view *v, uint64_t dev, uint64_t ino)
{
	size_t i;

	for (i = 0; i < v->nids; i++)
		if (v->ids[i].dev == dev && v->ids[i].ino == ino)
			return;
	if (v->nids < PC_MAX_IDENTS)
		v->ids[v->nids++] = (struct pc_ident){ .dev = dev, .ino = ino };
}

static bool
on_overlay(int fd, bool *overlay)
{
	struct statfs sf;

	if (fstatfs(fd, &sf) != 0)
		return false;
	*overlay = (unsigned long)sf.f_type == OVERLAYFS_MAGIC;
	return true;
}

/* The dev:ino that /proc/self/maps shows for our mapping at addr.  0 or -1. */
static int
self_maps_ident(const void *addr, uint64_t *dev, uint64_t *ino)
{
	FILE *f = fopen("/proc/self/maps", "re");
	char line[4096];
	unsigned long long start, end, pgoff, inode;
	unsigned maj, min;
	int rc = -1;

	if (f == NULL)
		return -1;
	while (rc != 0 && fgets(line, sizeof(line), f) != NULL)
		if (sscanf(line, "%llx-%llx %*s %llx %x:%x %llu", &start, &end,
		    &pgoff, &maj, &min, &inode) == 6 &&
		    start == (uintptr_t)addr) {
			*dev = makedev(maj, min);
			*ino = inode;
			rc = 0;
		}
	fclose(f);
	if (rc != 0)
		errno = ENOENT;
	return rc;
}

/*
 * The real file behind our mapping at addr, through /proc/self/map_files:
 * its fd, or -1 with v->real_why saying why there is none.
 */
static int
open_real(struct pc_view *v, const void *addr, size_t len)
{
	char path[96];
	bool overlay = true;
	int fd;

	snprintf(path, sizeof(path), "/proc/self/map_files/%" PRIxPTR "-%"
	    PRIxPTR, (uintptr_t)addr, (uintptr_t)addr + len);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0) {
		v->real_why = errno == EPERM || errno == EACCES ?
		    "/proc/self/map_files refused (it needs CAP_SYS_ADMIN)" :
		    "/proc/self/map_files could not be opened";
		return -1;
	}
	if (!on_overlay(fd, &overlay) || overlay) {
		v->real_why = "/proc/self/map_files opens the overlay file "
		    "itself on this kernel";
		close(fd);
		return -1;
	}
	return fd;
}

/*
 * Does cachestat through the overlay descriptor count what mincore counts
 * for the first page (the ELF header, read through it just before)?  A
 * page mincore does not see cached tells nothing: then mincore is used.
 */
static bool
cachestat_sees(int fd, const void *addr, uint64_t page)
{
	unsigned char in = 0;
	uint64_t pages = 0;

	if (mincore((void *)addr, (size_t)page, &in) != 0 || !(in & 1))
		return false;
	return pc_cachestat(fd, 0, page, &pages) == 0 && pages == 1;
}

/*
 * Does mincore tell this process the truth about fd?  Not where it may
 * neither own nor write the file: then it says every page is cached.  It
 * is asked about a page 8 MiB past the end, where no folio can be.
 */
static bool
mincore_truthful(int fd, off_t size, uint64_t page)
{
	off_t past = (size + (off_t)(UINT64_C(8) << 20)) & ~(off_t)(page - 1);
	void *at = mmap(NULL, (size_t)page, PROT_READ, MAP_SHARED, fd, past);
	unsigned char in = 1;

	if (at == MAP_FAILED)
		return false;
	if (mincore(at, (size_t)page, &in) != 0)
		in = 1;
	munmap(at, (size_t)page);
	return !(in & 1);
}

/* The overlay case: one page of fd mapped, looked at, and unmapped. */
static int
view_overlay(struct pc_view *v, off_t size, uint64_t page,
    const char **failed)
{
	void *at = mmap(NULL, (size_t)page, PROT_READ, MAP_SHARED, v->fd, 0);
	uint64_t dev, ino;
	struct stat st;

	*failed = "mmap";
	if (at == MAP_FAILED)
		return -1;
	*failed = "/proc/self/maps";
	if (self_maps_ident(at, &dev, &ino) != 0) {
		munmap(at, (size_t)page);
		return -1;
	}
	add_ident(v, dev, ino);
	v->real_fd = open_real(v, at, (size_t)page);
	if (v->real_fd >= 0 && fstat(v->real_fd, &st) == 0)
		add_ident(v, st.st_dev, st.st_ino);
	v->via_mapping = v->real_fd < 0 && !cachestat_sees(v->fd, at, page);
	munmap(at, (size_t)page);
	v->blind = v->via_mapping && !mincore_truthful(v->fd, size, page);
	v->how = v->real_fd >= 0 ? "overlayfs: the real file, opened through "
	    "/proc/self/map_files" : v->via_mapping ? "overlayfs: mappings of "
	    "the overlay file (mincore), as cachestat through it sees no page "
	    "cache" : "overlayfs: the overlay file (cachestat sees the real "
	    "file's page cache through it)";
	return 0;
}

/*
 * Fill v for the file open as fd (size at least one page, its first page
 * read just before).  Returns 0, or -1 with errno and *failed naming the
 * call.  pc_view_close() releases what a successful call opened.
 */
int
pc_view_open(int fd, uint64_t page, struct pc_view *v, const char **failed)
{
	struct stat st;

	*v = (struct pc_view){ .fd = fd, .real_fd = -1 };
	*failed = "fstat";
	if (fstat(fd, &st) != 0)
		return -1;
	add_ident(v, st.st_dev, st.st_ino);
	*failed = "fstatfs";
	if (!on_overlay(fd, &v->overlay))
		return -1;
	if (!v->overlay || st.st_size < (off_t)page)
		return 0;
	return view_overlay(v, st.st_size, page, failed);
}

void
pc_view_close(struct pc_view *v)
{
	if (v->real_fd >= 0)
		close(v->real_fd);
	v->real_fd = -1;
}

/* The descriptor cachestat, fdatasync and fadvise should be given. */
int
pc_view_cache_fd(const struct pc_view *v)
{
	return v->real_fd >= 0 ? v->real_fd : v->fd;
}

/* Cached pages of [off, off + len): see pc_cached. */
int
pc_view_cached(const struct pc_view *v, uint64_t off, uint64_t len,
    uint64_t pmd, uint64_t page, uint64_t *pages)
{
	return pc_cached(pc_view_cache_fd(v), v->via_mapping ? v->fd : -1,
	    off, len, pmd, page, pages);
}

/*
 * Dirty or under-writeback pages of [off, off + len), where cachestat can
 * see them: 0, or -1 with errno (ENOTSUP: it cannot, through overlayfs).
 */
int
pc_view_unclean(const struct pc_view *v, uint64_t off, uint64_t len,
    uint64_t *pages)
{
	if (v->via_mapping) {
		errno = ENOTSUP;
		return -1;
	}
	return pc_cachestat_unclean(pc_view_cache_fd(v), off, len, pages);
}
