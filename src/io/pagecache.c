/* SPDX-License-Identifier: BSD-2-Clause */
/* SPDX-FileCopyrightText: 2026 the elfthp-align authors */
/*
 * Page-cache primitives for --warm and --host: map a file range at a
 * PMD-aligned address, see which pages are cached (mincore), fault them in
 * without touching them from user space (MADV_POPULATE_READ: a truncated
 * file then gives an error, not SIGBUS), read how much of one mapping the
 * kernel mapped with PMDs (PAGEMAP_SCAN on our own /proc/self/pagemap, or
 * our own /proc/self/smaps before 6.7), collapse, drop, and
 * find the processes that map a range.
 *
 * The only reliable test of "is this range one PMD-sized folio" that needs
 * no privileges is to map it aligned and look at FilePmdMapped (or
 * ShmemPmdMapped on tmpfs; PAGEMAP_SCAN's PAGE_IS_HUGE is the same PMD
 * entries, counted per address range): a fault maps a PMD exactly when the cache
 * holds a PMD-sized folio there.  THPeligible is no use: it reads 0 on
 * kernels without CONFIG_READ_ONLY_THP_FOR_FS even while text is
 * PMD-mapped (docs/page-cache.md, 'Reading smaps').
 */
#include <ctype.h>
#include <dirent.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "elfthp_io.h"

#ifndef MADV_POPULATE_READ
#define MADV_POPULATE_READ 22
#endif
#ifndef MADV_COLLAPSE
#define MADV_COLLAPSE 25
#endif
/* cachestat(2), Linux 6.5; the number is the same on every architecture. */
#ifndef SYS_cachestat
#define SYS_cachestat 451
#endif

struct cachestat_range {
	uint64_t off;
	uint64_t len;
};

struct cachestat {
	uint64_t nr_cache;
	uint64_t nr_dirty;
	uint64_t nr_writeback;
	uint64_t nr_evicted;
	uint64_t nr_recently_evicted;
};

/*
 * The PMD size from sysfs: 0 with *pmd set, or -1 with errno where the
 * file is there but could not be read (EMFILE: a measurement that failed).
 * A kernel without THP has no such file: 2 MiB keeps the sums, and it maps
 * no PMD anyway.
 */
int
host_pmd_read(uint64_t *pmd)
{
	FILE *f = fopen("/sys/kernel/mm/transparent_hugepage/hpage_pmd_size",
	    "re");
	unsigned long long v = 0;
	int rc = 0;

	*pmd = UINT64_C(2) << 20;
	if (f == NULL)
		return errno == ENOENT ? 0 : -1;
	if (fscanf(f, "%llu", &v) != 1 || v == 0 || (v & (v - 1)) != 0) {
		errno = ferror(f) ? EIO : EINVAL;
		rc = -1;
	} else {
		*pmd = v;
	}
	fclose(f);
	return rc;
}

uint64_t
host_pmd_size(void)
{
	uint64_t pmd;

	(void)host_pmd_read(&pmd);
	return pmd;
}

/* The e_machine of the programs this host runs natively: the tool's own. */
uint16_t
host_machine(void)
{
#if defined(__x86_64__)
	return EM_X86_64;
#elif defined(__aarch64__)
	return EM_AARCH64;
#elif defined(__riscv) && __riscv_xlen == 64
	return EM_RISCV;
#elif defined(__powerpc64__)
	return EM_PPC64;
#elif defined(__loongarch64)
	return 258;	/* EM_LOONGARCH */
#else
	return EM_NONE;
#endif
}

uint64_t
host_page_size(void)
{
	long p = sysconf(_SC_PAGESIZE);

	return p > 0 ? (uint64_t)p : 4096;
}

/*
 * The advice for a pc_map mapping; 0, or -1 with errno set and *failed
 * naming the call.  Always MADV_RANDOM: a look must read nothing (a fault
 * on a cached page would start readahead beyond it), and a warm must read
 * only its window (without it, the fault of a MADV_HUGEPAGE mapping reads
 * two PMDs, the window and the one after it, which --warm -n never
 * announced: 2 MiB more past the last window, measured).  With hugepage,
 * MADV_HUGEPAGE too, so that the fault reads one whole PMD-sized folio.
 */
static int
map_advise(void *at, size_t len, bool hugepage, const char **failed)
{
	*failed = "madvise(MADV_RANDOM)";
	if (madvise(at, len, MADV_RANDOM) != 0)
		return -1;
	*failed = "madvise(MADV_HUGEPAGE)";
	return hugepage && madvise(at, len, MADV_HUGEPAGE) != 0 ? -1 : 0;
}

/*
 * Map [off, off + len) of fd read-only at a PMD-aligned address, inside a
 * reservation of its own so that no neighbour can merge with it.  With
 * hugepage, the mapping is MADV_HUGEPAGE, so that a fault reads one whole
 * PMD-sized folio (and no more: see map_advise).  Returns 0, or -1 with errno set, m->failed
 * naming the call that failed and nothing left mapped.  pc_unmap() undoes
 * a successful call.
 */
int
pc_map(int fd, uint64_t off, uint64_t len, uint64_t pmd, bool hugepage,
    struct pc_map *m)
{
	uintptr_t aligned;
	void *at;

	m->failed = "mmap";
	m->reserve_len = (size_t)(len + pmd);
	m->reserve = mmap(NULL, m->reserve_len, PROT_NONE,
	    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (m->reserve == MAP_FAILED) {
		m->reserve = NULL;
		return -1;
	}
	aligned = ((uintptr_t)m->reserve + pmd - 1) & ~(uintptr_t)(pmd - 1);
	at = mmap((void *)aligned, (size_t)len, PROT_READ, MAP_SHARED |
	    MAP_FIXED, fd, (off_t)off);
	if (at == MAP_FAILED ||
	    map_advise(at, (size_t)len, hugepage, &m->failed) != 0) {
		int e = errno;

		munmap(m->reserve, m->reserve_len);
		m->reserve = NULL;
		errno = e;
		return -1;
	}
	m->failed = NULL;
	m->addr = at;
	m->len = (size_t)len;
	return 0;
}

void
pc_unmap(struct pc_map *m)
{
	if (m->reserve != NULL && m->reserve != MAP_FAILED)
		munmap(m->reserve, m->reserve_len);
	m->reserve = NULL;
	m->addr = NULL;
}

/* Cached pages of [off, off + len) of the mapping, counted with mincore. */
int
pc_resident_at(const struct pc_map *m, uint64_t off, uint64_t len,
    uint64_t page, uint64_t *pages)
{
	unsigned char vec[4096];
	uint64_t done = 0, npages = len / page;

	*pages = 0;
	while (done < npages) {
		uint64_t n = npages - done < sizeof(vec) ? npages - done :
		    sizeof(vec);
		uint64_t i;

		if (mincore(m->addr + off + done * page, (size_t)(n * page),
		    vec) != 0)
			return -1;
		for (i = 0; i < n; i++)
			*pages += vec[i] & 1;
		done += n;
	}
	return 0;
}

/*
 * cachestat(2) of [off, off + len) of fd: its cached pages, or with
 * unclean its dirty and under-writeback ones.  0, or -1 with errno
 * (ENOSYS before Linux 6.5).
 */
static int
cachestat_of(int fd, uint64_t off, uint64_t len, bool unclean,
    uint64_t *pages)
{
	struct cachestat_range r = { off, len };
	struct cachestat cs;

	if (syscall(SYS_cachestat, fd, &r, &cs, 0) != 0)
		return -1;
	*pages = unclean ? cs.nr_dirty + cs.nr_writeback : cs.nr_cache;
	return 0;
}

int
pc_cachestat(int fd, uint64_t off, uint64_t len, uint64_t *pages)
{
	return cachestat_of(fd, off, len, false, pages);
}

int
pc_cachestat_unclean(int fd, uint64_t off, uint64_t len, uint64_t *pages)
{
	return cachestat_of(fd, off, len, true, pages);
}

/*
 * Cached pages of [off, off + len) of the file: cachestat(2) on fd counts
 * them folio by folio, where mincore looks up every page (a 300 MiB file
 * costs it milliseconds); mincore on a mapping of map_fd where that is
 * given (an overlay file, whose own descriptor cachestat cannot see
 * through: pc_view.c), or where the kernel has no cachestat.  Returns 0,
 * or -1 with errno.
 */
int
pc_cached(int fd, int map_fd, uint64_t off, uint64_t len, uint64_t pmd,
    uint64_t page, uint64_t *pages)
{
	struct pc_map m;
	int rc;

	if (map_fd < 0 && pc_cachestat(fd, off, len, pages) == 0)
		return 0;
	if (map_fd < 0 && errno != ENOSYS)
		return -1;
	if (pc_map(map_fd >= 0 ? map_fd : fd, off, len, pmd, false, &m) != 0)
		return -1;
	rc = pc_resident(&m, page, pages);
	pc_unmap(&m);
	return rc;
}

int
pc_resident(const struct pc_map *m, uint64_t page, uint64_t *pages)
{
	return pc_resident_at(m, 0, m->len, page, pages);
}

/*
 * Fault [off, off + len) of the mapping in; errno on failure (EFAULT: past
 * EOF, EIO).  Pages already cached are mapped without reading anything.
 */
int
pc_populate_at(const struct pc_map *m, uint64_t off, uint64_t len)
{
	return madvise(m->addr + off, (size_t)len, MADV_POPULATE_READ) == 0 ?
	    0 : errno;
}

int
pc_populate(const struct pc_map *m)
{
	return pc_populate_at(m, 0, m->len);
}

/*
 * Bytes this thread has made the kernel read from storage (read_bytes of
 * /proc/thread-self/io): what a fault read, where the page cache itself
 * cannot be counted.  0, or -1 with errno (EIO: the line was not there).
 */
int
pc_thread_read_bytes(uint64_t *bytes)
{
	FILE *f = fopen("/proc/thread-self/io", "re");
	char line[128];
	unsigned long long v;
	bool found = false;
	int e;

	if (f == NULL)
		return -1;
	while (!found && fgets(line, sizeof(line), f) != NULL)
		found = sscanf(line, "read_bytes: %llu", &v) == 1;
	e = ferror(f) ? (errno ? errno : EIO) : found ? 0 : EIO;
	fclose(f);
	if (e != 0) {
		errno = e;
		return -1;
	}
	*bytes = v;
	return 0;
}

/* 0, or errno: EINVAL where the kernel cannot collapse this file. */
int
pc_collapse(const struct pc_map *m)
{
	return madvise(m->addr, m->len, MADV_COLLAPSE) == 0 ? 0 : errno;
}

/* 0, or errno (posix_fadvise returns it). */
int
pc_drop(int fd, uint64_t off, uint64_t len)
{
	return posix_fadvise(fd, (off_t)off, (off_t)len, POSIX_FADV_DONTNEED);
}

/* "7f0c00000000-7f0c00200000 r--s ..." : is this a mapping's first line? */
static bool
smaps_header(const char *line, unsigned long long *start)
{
	unsigned long long end;
	const char *dash = strchr(line, '-');
	const char *space = strchr(line, ' ');

	return isxdigit((unsigned char)line[0]) && dash != NULL &&
	    space != NULL && dash < space &&
	    sscanf(line, "%llx-%llx ", start, &end) == 2;
}

/*
 * Can a mapping of ours show a PMD at all?  Not under PR_SET_THP_DISABLE,
 * which a parent's setting passes on: every look would then say "small"
 * while the page cache may hold huge folios that another process maps.
 * A prctl that fails (a filter that denies it, a kernel before 3.15)
 * says nothing either way: the looks themselves are then all there is.
 * 0, or -1 with errno EPERM and *what saying why.
 */
int
pc_can_look(const char **what)
{
	if (prctl(PR_GET_THP_DISABLE, 0, 0, 0, 0) <= 0)
		return 0;
	*what = "huge pages are disabled for this process (prctl "
	    "PR_SET_THP_DISABLE, from its parent)";
	errno = EPERM;
	return -1;
}

/*
 * From smaps: bytes of our own mapping at addr that the kernel mapped with PMDs
 * (FilePmdMapped, or ShmemPmdMapped on tmpfs).  0, or -1 with errno when
 * smaps could not be read (EMFILE, ENOMEM, a read error), does not show
 * the mapping (ENOENT) or ends before its FilePmdMapped line (EIO): that
 * is a failed look, never "no huge page".
 * A line longer than the buffer (a long path) is skipped whole, so that
 * its tail is never taken for a mapping's first line.
 */
static int
smaps_pmd_mapped(const void *addr, uint64_t *bytes)
{
	FILE *f = fopen("/proc/self/smaps", "re");
	char line[512];
	unsigned long long start, kb;
	bool in = false, found = false, field = false, whole = true, at_start;
	int e;

	*bytes = 0;
	if (f == NULL)
		return -1;
	while (fgets(line, sizeof(line), f) != NULL) {
		at_start = whole;
		whole = strchr(line, '\n') != NULL;
		if (!at_start)
			continue;
		if (smaps_header(line, &start)) {
			if (in)
				break;
			in = found = start == (uintptr_t)addr;
			continue;
		}
		if (in && sscanf(line, "FilePmdMapped: %llu kB", &kb) == 1) {
			*bytes += (uint64_t)kb * 1024;
			field = true;
		} else if (in && sscanf(line, "ShmemPmdMapped: %llu kB",
		    &kb) == 1) {
			*bytes += (uint64_t)kb * 1024;
		}
	}
	/* A read cut short inside the mapping's lines: EIO, not 0 bytes. */
	e = ferror(f) ? (errno ? errno : EIO) : !found ? ENOENT : field ? 0 :
	    EIO;
	fclose(f);
	if (e == 0)
		return 0;
	*bytes = 0;
	errno = e;
	return -1;
}


/*
 * PAGEMAP_SCAN (Linux 6.7, <linux/fs.h>; declared here because older
 * headers lack it): which pages of a range of our own address space
 * match a category.  PAGE_IS_HUGE is a PMD (or hugetlb) mapping.
 */
#define PM_PAGE_IS_HUGE	(UINT64_C(1) << 6)
#define PM_PAGEMAP_SCAN	_IOWR('f', 16, struct pm_scan_arg)
struct pm_page_region {
	uint64_t start;
	uint64_t end;
	uint64_t categories;
};
struct pm_scan_arg {
	uint64_t size;
	uint64_t flags;
	uint64_t start;
	uint64_t end;
	uint64_t walk_end;
	uint64_t vec;
	uint64_t vec_len;
	uint64_t max_pages;
	uint64_t category_inverted;
	uint64_t category_mask;
	uint64_t category_anyof_mask;
	uint64_t return_mask;
};

/*
 * From PAGEMAP_SCAN: bytes of [off, off + len) of the mapping m mapped
 * with PMDs.  One ioctl that walks the range's page table instead of a
 * read of smaps, which formats every mapping before ours: the look after
 * a rewrite of a 300 MiB file spent a third of the tool's time in smaps
 * (bench part 1).  0, or -1 with errno: pc_no_scan(errno) where the
 * kernel has no PAGEMAP_SCAN (before 6.7), else a failed look.
 */
int
pc_pmd_mapped_at(const struct pc_map *m, uint64_t off, uint64_t len,
    uint64_t *bytes)
{
	struct pm_page_region vec[16];
	struct pm_scan_arg a = {
		.size = sizeof(a), .start = (uintptr_t)(m->addr + off),
		.end = (uintptr_t)(m->addr + off + len), .vec = (uintptr_t)vec,
		.vec_len = sizeof(vec) / sizeof(vec[0]),
		.category_mask = PM_PAGE_IS_HUGE,
		.return_mask = PM_PAGE_IS_HUGE,
	};
	int fd = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC), e;
	long got, i;

	*bytes = 0;
	if (fd < 0)
		return -1;
	do {
		if ((got = ioctl(fd, PM_PAGEMAP_SCAN, &a)) < 0)
			break;
		for (i = 0; i < got; i++)
			*bytes += vec[i].end - vec[i].start;
		a.start = a.walk_end;
	} while (got == (long)a.vec_len && a.start < a.end);
	e = errno;
	close(fd);
	errno = e;
	if (got < 0)
		*bytes = 0;
	return got < 0 ? -1 : 0;
}

/* An ioctl the kernel does not know (ENOTTY), or a layout it does not take. */
bool
pc_no_scan(int e)
{
	return e == ENOTTY || e == EINVAL;
}

/*
 * Bytes of our own mapping m that the kernel mapped with PMDs: from
 * PAGEMAP_SCAN, or from smaps where the kernel has no PAGEMAP_SCAN.  0, or
 * -1 with errno and *what naming the file that could not be read: a
 * failed look, never "no huge page".
 */
int
pc_pmd_mapped(const struct pc_map *m, uint64_t *bytes, const char **what)
{
	*what = "/proc/self/pagemap";
	if (pc_pmd_mapped_at(m, 0, m->len, bytes) == 0)
		return 0;
	if (!pc_no_scan(errno))
		return -1;
	*what = "/proc/self/smaps";
	return smaps_pmd_mapped(m->addr, bytes);
}

/* Does a line of /proc/PID/maps map part of [off, off + len) of the file? */
static bool
maps_line_hits(const char *line, const struct pc_view *v, uint64_t off,
    uint64_t len)
{
	unsigned long long start, end, pgoff, inode;
	unsigned maj, min;
	char perms[8];
	size_t i;

	if (sscanf(line, "%llx-%llx %7s %llx %x:%x %llu", &start, &end, perms,
	    &pgoff, &maj, &min, &inode) != 7)
		return false;
	for (i = 0; i < v->nids; i++)
		if (inode == v->ids[i].ino && makedev(maj, min) == v->ids[i].dev)
			break;
	if (i == v->nids)
		return false;
	return pgoff < off + len && off < pgoff + (end - start);
}

/* 1: pid maps part of the range; 0: it does not, or is gone; -1: errno. */
static int
maps_file_hits(const char *pid, const struct pc_view *v, uint64_t off,
    uint64_t len)
{
	char path[64], line[4096];
	FILE *f;
	int hit = 0, e;

	snprintf(path, sizeof(path), "/proc/%s/maps", pid);
	if ((f = fopen(path, "re")) == NULL)
		return errno == ENOENT || errno == ESRCH ? 0 : -1;
	while (!hit && fgets(line, sizeof(line), f) != NULL)
		hit = maps_line_hits(line, v, off, len);
	e = ferror(f) ? (errno ? errno : EIO) : 0;
	fclose(f);
	/* A process that exits while we read has nothing mapped. */
	if (e != 0 && e != ESRCH) {
		errno = e;
		return -1;
	}
	return hit;
}

/*
 * The processes other than this one that map part of [off, off + len) of
 * the file v describes (under any of its dev:ino pairs): up to max PIDs in pids, their total count in
 * *count.  *unreadable counts the processes whose maps this user may not
 * read (EACCES, EPERM: reported as such).  Returns 0, or -1 with errno
 * when /proc or a process's maps could not be read for another reason
 * (EMFILE, ENOMEM): then nobody can say the range is unmapped.
 */
int
pc_find_mappers(const struct pc_view *v, uint64_t off, uint64_t len,
    long *pids, size_t max, size_t *count, size_t *unreadable)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	long self = (long)getpid();
	size_t n = 0;
	int err = 0;

	*unreadable = *count = 0;
	if (d == NULL)
		return -1;
	errno = 0;
	while (err == 0 && (e = readdir(d)) != NULL) {
		char *end;
		long pid = strtol(e->d_name, &end, 10);
		int hit;

		if (*end != '\0' || pid <= 0 || pid == self)
			continue;
		hit = maps_file_hits(e->d_name, v, off, len);
		if (hit < 0 && (errno == EACCES || errno == EPERM))
			(*unreadable)++;
		else if (hit < 0)
			err = errno;
		else if (hit > 0 && n++ < max)
			pids[n - 1] = pid;
		errno = 0;
	}
	if (err == 0)
		err = errno;	/* readdir's NULL: the end, or an error */
	closedir(d);
	*count = n;
	errno = err;
	return err == 0 ? 0 : -1;
}

/* The command name of a process, "?" if it cannot be read. */
void
pc_comm(long pid, char *buf, size_t len)
{
	char path[64];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%ld/comm", pid);
	snprintf(buf, len, "?");
	if ((f = fopen(path, "re")) == NULL)
		return;
	if (fgets(buf, (int)len, f) != NULL)
		buf[strcspn(buf, "\n")] = '\0';
	fclose(f);
}
