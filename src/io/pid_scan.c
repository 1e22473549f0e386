/* SPDX-License-Identifier: BSD-2-Clause */
/* SPDX-FileCopyrightText: 2026 the elfthp-align authors */
/*
 * --pid: what running processes make of their ELF files' windows.  Per
 * process it reads /proc/PID/status (kernel thread, zombie, THP disabled),
 * /proc/PID/comm, /proc/PID/smaps (file mappings, Rss, FilePmdMapped,
 * ShmemPmdMapped) and /proc/PID/pagemap (pages present in a window); per
 * mapped file, its program headers, through its path or, where the path
 * no longer names the mapped inode, /proc/PID/map_files.  All of these
 * are readable by the process's owner, so no root is needed for one's own
 * processes (map_files excepted: replaced files then have no window count).
 *
 * A read that failed is an error naming the call, the file and errno, and
 * exit status 2; it never becomes a status.  pid_verdict.c decides what
 * the facts mean; report_runtime.c prints them.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "elfthp_io.h"

#define PAGEMAP_PRESENT (UINT64_C(1) << 63)

/* What could not be read: the call, the file, errno (0: a short read),
 * or, for a mapped file the reader refused, libelf's or our reason. */
struct proc_error {
	const char *call;
	char file[PATH_MAX + 64];
	int err;
	char detail[256];
};

/* One file mapping, as smaps lists it. */
struct smap {
	struct pid_map m;
	bool exec;
	uint64_t rss;
	uint64_t pmd_mapped;
	char dev[16];
	uint64_t inode;
	char *path;
};

/* A file some process maps: its headers are read once. */
struct known_file {
	char dev[16];
	uint64_t inode;
	char *path;
	char *here;		/* names the mapped file from here, or NULL
				   (here_path) */
	bool replaced;
	bool is_elf;
	bool windows_known;
	struct elf_layout layout;
	enum tri fs_keeps_huge;
	enum tri collapse;	/* MADV_COLLAPSE works on its file system */
	bool collapse_looked;	/* collapse is measured (or expected) */
	bool cache_looked;	/* cache_huge is measured */
	bool cache_refused;	/* the kernel would not show the cache */
	uint64_t cache_huge;	/* windows that are PMD folios in the cache */
	char fs_type[32];
};

struct proc {
	long pid;
	char comm[20];
	bool kthread;
	bool zombie;
	bool thp_disabled;
	struct smap *maps;
	size_t nmaps;
	int pagemap;
};

struct scan {
	struct pid_scan *out;	/* rows, notes and counts, for the CLI */
	uint64_t pmd;
	uint64_t page;
	struct known_file *known;
	size_t nknown;
};

/* A message for the CLI to print, in the order the scan met it. */
static void
note(struct scan *s, long pid, const char *kind, const char *message)
{
	struct pid_scan *o = s->out;
	struct pid_note *n;

	if (strcmp(kind, "error") == 0)
		o->rc = 2;
	if (o->nnotes == o->notes_cap) {
		size_t cap = o->notes_cap ? 2 * o->notes_cap : 8;

		if ((n = reallocarray(o->notes, cap, sizeof(*n))) == NULL) {
			o->notes_lost++;	/* said by the CLI: out of memory */
			return;
		}
		o->notes = n;
		o->notes_cap = cap;
	}
	n = &o->notes[o->nnotes++];
	n->pid = pid;
	n->kind = kind;
	snprintf(n->message, sizeof(n->message), "%s", message);
}

static int
fail(struct proc_error *pe, const char *call, const char *file, int err)
{
	pe->call = call;
	snprintf(pe->file, sizeof(pe->file), "%s", file);
	pe->err = err;
	pe->detail[0] = '\0';
	return -1;
}

static int
proc_open(long pid, const char *what, struct proc_error *pe)
{
	char path[96];
	int fd;

	snprintf(path, sizeof(path), "/proc/%ld/%s", pid, what);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return fail(pe, "open", path, errno);
	return fd;
}

/* The whole of /proc/PID/what, NUL-terminated, in *out (the caller frees). */
static int
proc_slurp(long pid, const char *what, char **out, struct proc_error *pe)
{
	char path[96], *data = NULL, *v;
	size_t len = 0, cap = 0;
	ssize_t r;
	int fd;

	*out = NULL;
	if ((fd = proc_open(pid, what, pe)) < 0)
		return -1;
	snprintf(path, sizeof(path), "/proc/%ld/%s", pid, what);
	for (;;) {
		if (cap - len < 4096) {
			if ((v = realloc(data, cap + 65536)) == NULL) {
				fail(pe, "malloc", path, ENOMEM);
				goto bad;
			}
			data = v;
			cap += 65536;
		}
		if ((r = read(fd, data + len, cap - len - 1)) < 0) {
			if (errno == EINTR)
				continue;
			fail(pe, "read", path, errno);
			goto bad;
		}
		if (r == 0)
			break;
		len += (size_t)r;
	}
	close(fd);
	data[len] = '\0';
	*out = data;
	return 0;
bad:
	close(fd);
	free(data);
	return -1;
}

/*
 * Kernel thread (Kthread: 1; before 6.2, a status with no VmSize), zombie
 * (State: Z, or X), THP disabled (THP_enabled: 0, prctl).
 */
static int
read_status(struct proc *p, struct proc_error *pe)
{
	char *text, *line, *save = NULL;
	bool has_kthread = false, has_vm = false;
	int v;

	if (proc_slurp(p->pid, "status", &text, pe) != 0)
		return -1;
	for (line = strtok_r(text, "\n", &save); line != NULL;
	    line = strtok_r(NULL, "\n", &save)) {
		if (strncmp(line, "State:", 6) == 0)
			p->zombie = strpbrk(line + 6, "ZX") != NULL;
		else if (sscanf(line, "Kthread: %d", &v) == 1) {
			has_kthread = true;
			p->kthread = v == 1;
		} else if (sscanf(line, "THP_enabled: %d", &v) == 1)
			p->thp_disabled = v == 0;
		else if (strncmp(line, "VmSize:", 7) == 0)
			has_vm = true;
	}
	if (!has_kthread && !has_vm && !p->zombie)
		p->kthread = true;
	free(text);
	return 0;
}

static int
read_comm(struct proc *p, struct proc_error *pe)
{
	char *text;

	if (proc_slurp(p->pid, "comm", &text, pe) != 0)
		return -1;
	text[strcspn(text, "\n")] = '\0';
	snprintf(p->comm, sizeof(p->comm), "%s", text);
	free(text);
	return 0;
}

/* Is path (seen from pid's root) the file with this inode? */
static bool
names_inode(long pid, const char *path, uint64_t inode)
{
	char full[PATH_MAX + 64];
	struct stat st;

	snprintf(full, sizeof(full), "/proc/%ld/root%s", pid, path);
	return stat(full, &st) == 0 && (uint64_t)st.st_ino == inode;
}

/*
 * /proc/PID/maps writes a newline in a path as "\012" (seq_path's escape)
 * and a backslash as itself, so "\012" is a newline or those four bytes.
 * The real name, in place of m->path: map_files' link (root only), else
 * the reading that names the mapped inode, else the one with newlines (a
 * file now gone; a name with a literal "\012" is the rarer).  0, or -1 on
 * ENOMEM.
 */
static int
unescape_maps_path(const struct proc *p, struct smap *m)
{
	char link[128], *real, *w;
	const char *r;
	ssize_t n;

	if ((real = malloc(PATH_MAX + 1)) == NULL)
		return -1;
	snprintf(link, sizeof(link), "/proc/%ld/map_files/%" PRIx64 "-%"
	    PRIx64, p->pid, m->m.start, m->m.end);
	if ((n = readlink(link, real, PATH_MAX)) > 0 && real[0] == '/') {
		real[n] = '\0';
	} else if (names_inode(p->pid, m->path, m->inode)) {
		free(real);
		return 0;
	} else {
		for (r = m->path, w = real; *r != '\0' && w < real + PATH_MAX;)
			if (strncmp(r, "\\012", 4) == 0) {
				*w++ = '\n';
				r += 4;
			} else
				*w++ = *r++;
		*w = '\0';
	}
	free(m->path);
	m->path = real;
	return 0;
}

/* A mapping header: "start-end perms offset dev inode path". */
static int
parse_header(struct proc *p, const char *line)
{
	unsigned long long start, end, off, inode;
	char perms[8], dev[16];
	struct smap *v, *m;
	int pos = 0;

	if (sscanf(line, "%llx-%llx %7s %llx %15s %llu %n", &start, &end, perms,
	    &off, dev, &inode, &pos) < 6 || inode == 0 || pos == 0 ||
	    line[pos] != '/')
		return 1;	/* not a file mapping */
	if ((v = reallocarray(p->maps, p->nmaps + 1, sizeof(*v))) == NULL)
		return -1;
	p->maps = v;
	m = &p->maps[p->nmaps];
	*m = (struct smap){ .m = { .start = start, .end = end, .offset = off,
	    .writable = perms[1] == 'w' }, .exec = perms[2] == 'x',
	    .inode = inode, .path = strdup(line + pos) };
	snprintf(m->dev, sizeof(m->dev), "%s", dev);
	if (m->path == NULL)
		return -1;
	p->nmaps++;
	if (strstr(m->path, "\\012") != NULL)
		return unescape_maps_path(p, m);
	return 0;
}

static bool
is_header(const char *line)
{
	return strcspn(line, "0123456789abcdef") == 0 &&
	    strchr(line, '-') != NULL && strchr(line, ' ') != NULL &&
	    strchr(line, '-') < strchr(line, ' ');
}

static int
parse_smaps(struct proc *p, char *text, struct proc_error *pe)
{
	char *line, *save = NULL;
	struct smap *cur = NULL;
	unsigned long long kb;
	int r;

	for (line = strtok_r(text, "\n", &save); line != NULL;
	    line = strtok_r(NULL, "\n", &save)) {
		if (is_header(line)) {
			if ((r = parse_header(p, line)) < 0)
				return fail(pe, "malloc", "smaps", ENOMEM);
			cur = r == 0 ? &p->maps[p->nmaps - 1] : NULL;
		} else if (cur == NULL)
			continue;
		else if (sscanf(line, "Rss: %llu kB", &kb) == 1)
			cur->rss = kb * 1024;
		else if (sscanf(line, "FilePmdMapped: %llu kB", &kb) == 1 ||
		    sscanf(line, "ShmemPmdMapped: %llu kB", &kb) == 1)
			cur->pmd_mapped += kb * 1024;
	}
	return 0;
}

static void
proc_free(struct proc *p)
{
	size_t i;

	for (i = 0; i < p->nmaps; i++)
		free(p->maps[i].path);
	free(p->maps);
	if (p->pagemap >= 0)
		close(p->pagemap);
}

/*
 * Does the file system of the file open as fd (the mapped file, whatever
 * names it) keep huge folios?  From type and kernel; kf->collapse: does
 * MADV_COLLAPSE work there, as the kernel is expected to (measured later,
 * and only for a file whose small folios are mapped: see collapse_looked).
 * A file system that cannot be found is an error: the step printed
 * depends on it.
 */
static int
fs_keeps_huge(struct known_file *kf, int fd, struct proc_error *pe)
{
	struct fs_expect e;
	struct fs_info fs;
	const char *failed;

	kf->collapse = TRI_UNKNOWN;
	kf->fs_keeps_huge = TRI_UNKNOWN;
	if (fs_identify_fd(fd, &fs, &failed) != 0) {
		fail(pe, "find the file system of", kf->path, errno);
		snprintf(pe->detail, sizeof(pe->detail), "its file system: "
		    "%s: %s", failed, strerror(pe->err));
		return -1;
	}
	fs_expect(&fs, host_kernel_version(), host_ro_thp_for_fs(), &e);
	snprintf(kf->fs_type, sizeof(kf->fs_type), "%s", fs.type);
	kf->collapse = e.collapse;
	if (e.write == TRI_YES || e.readahead == TRI_YES ||
	    e.collapse == TRI_YES)
		kf->fs_keeps_huge = TRI_YES;
	else if (e.write == TRI_NO && e.readahead == TRI_NO &&
	    e.collapse == TRI_NO)
		kf->fs_keeps_huge = TRI_NO;
	return 0;
}

/*
 * The mapped inode itself: its path, seen from the process's root (a
 * container's, a chroot's), if that still names it; else
 * /proc/PID/map_files/START-END.  Returns the fd, -1 with pe filled on an
 * error, or -2 for a replaced file where map_files is refused (it needs
 * CAP_SYS_ADMIN or CAP_CHECKPOINT_RESTORE): its windows are then unknown.
 */
static int
open_mapped(const struct proc *p, const struct smap *m, bool replaced,
    struct proc_error *pe)
{
	char path[PATH_MAX + 64], mapped[128];
	struct stat st;
	int fd, err = 0;

	snprintf(path, sizeof(path), "/proc/%ld/root%s", p->pid, m->path);
	if (!replaced) {
		if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0 &&
		    errno != ENOENT && errno != EACCES && errno != EPERM)
			return fail(pe, "open", path, errno);
		if (fd < 0)
			err = errno;
		else if (fstat(fd, &st) != 0) {
			err = errno;
			close(fd);
			return fail(pe, "fstat", path, err);
		} else if ((uint64_t)st.st_ino == m->inode)
			return fd;
		else {
			close(fd);
			err = ESTALE;	/* the path names another file now */
		}
	}
	snprintf(mapped, sizeof(mapped), "/proc/%ld/map_files/%" PRIx64 "-%"
	    PRIx64, p->pid, m->m.start, m->m.end);
	if ((fd = open(mapped, O_RDONLY | O_CLOEXEC)) >= 0)
		return fd;
	if (!replaced)		/* the path refused, and map_files too */
		return fail(pe, "open", path, err);
	if (errno == EPERM || errno == EACCES)
		return -2;
	return fail(pe, "open", mapped, errno);
}

/* Does path, from here, name the file *id (its dev and inode)? */
static bool
names_file(const char *path, const struct stat *id)
{
	struct stat st;

	return stat(path, &st) == 0 && st.st_ino == id->st_ino &&
	    st.st_dev == id->st_dev;
}

/*
 * The path that names, from this process's root and mount namespace, the
 * file open as fd (the one the process maps: open_mapped), or NULL: the
 * file cannot be named from here, and no command may be printed for it.
 * The mapping's path is written from the reader's root where the reader
 * can reach the file (a chroot below this root), else from the process's
 * own root (another mount namespace: a container), where the same path
 * here may name another file: so it is taken only where it names this
 * one (dev and inode), else /proc/PID/root and it, where that does.
 * 0, or -1 with pe filled (fstat failed, no memory).
 */
static int
here_path(struct known_file *kf, const struct proc *p, int fd,
    struct proc_error *pe)
{
	struct stat id;
	char *alt = NULL;

	kf->here = NULL;
	if (fstat(fd, &id) != 0)
		return fail(pe, "fstat", kf->path, errno);
	if (names_file(kf->path, &id))
		alt = strdup(kf->path);
	else if (asprintf(&alt, "/proc/%ld/root%s", p->pid, kf->path) < 0)
		alt = NULL;
	else if (!names_file(alt, &id)) {
		free(alt);
		return 0;
	}
	if (alt == NULL)
		return fail(pe, "malloc", kf->path, ENOMEM);
	kf->here = alt;
	return 0;
}

/* Read the headers of the file m maps into kf; see open_mapped. */
static int
read_known(struct known_file *kf, const struct proc *p, const struct smap *m,
    struct proc_error *pe)
{
	struct plan_error door = { .code = PLAN_OK };
	enum read_status st;
	int fd;

	if ((fd = open_mapped(p, m, kf->replaced, pe)) == -1)
		return -1;
	if (fd == -2) {
		/* Replaced, and map_files refused: its windows are not known,
		 * but it is mapped executable, so it is listed, as replaced. */
		kf->is_elf = true;
		return 0;
	}
	if (!kf->replaced && here_path(kf, p, fd, pe) != 0) {
		close(fd);
		return -1;
	}
	st = layout_read(fd, &kf->layout, pe->detail, sizeof(pe->detail));
	if (st == READ_OK && !kf->replaced && fs_keeps_huge(kf, fd, pe) != 0) {
		close(fd);
		return -1;
	}
	close(fd);
	if (st == READ_NOT_ELF || st == READ_NOT_APPLICABLE)
		return 0;
	/* The same door as every other mode: a mapped file whose headers
	 * lie is named with the same words, and its windows are not counted. */
	if (st == READ_OK && layout_validate(&kf->layout, &door) != 0)
		plan_strerror(&door, pe->detail, sizeof(pe->detail));
	if (st != READ_OK || door.code != PLAN_OK) {
		pe->call = "read";
		snprintf(pe->file, sizeof(pe->file), "%s", kf->path);
		return -1;
	}
	kf->is_elf = kf->windows_known = true;
	return 0;
}

/* The known_file for m, its headers read the first time; NULL on error. */
static struct known_file *
known(struct scan *s, const struct proc *p, const struct smap *m,
    struct proc_error *pe)
{
	static const char deleted[] = " (deleted)";
	struct known_file *v, *kf;
	size_t i, n;

	for (i = 0; i < s->nknown; i++)
		if (s->known[i].inode == m->inode &&
		    strcmp(s->known[i].dev, m->dev) == 0)
			return &s->known[i];
	if ((v = reallocarray(s->known, s->nknown + 1, sizeof(*v))) == NULL) {
		fail(pe, "malloc", m->path, ENOMEM);
		return NULL;
	}
	s->known = v;
	kf = &s->known[s->nknown++];
	*kf = (struct known_file){ .inode = m->inode, .path = strdup(m->path) };
	snprintf(kf->dev, sizeof(kf->dev), "%s", m->dev);
	if (kf->path == NULL) {
		s->nknown--;
		fail(pe, "malloc", m->path, ENOMEM);
		return NULL;
	}
	n = strlen(kf->path);
	if (n > sizeof(deleted) - 1 &&
	    strcmp(kf->path + n - (sizeof(deleted) - 1), deleted) == 0) {
		kf->path[n - (sizeof(deleted) - 1)] = '\0';
		kf->replaced = true;
	}
	if (read_known(kf, p, m, pe) == 0)
		return kf;
	/* Not kept: the next process that maps it tries again. */
	free(kf->path);
	free(kf->here);
	layout_free(&kf->layout);
	s->nknown--;
	return NULL;
}

/* Pages present in the window at va, from pagemap. */
static int
present_pages(const struct proc *p, const struct scan *s, uint64_t va,
    uint64_t *n, struct proc_error *pe)
{
	uint64_t entries[512], count = s->pmd / s->page, done = 0, i;
	char path[64];

	snprintf(path, sizeof(path), "/proc/%ld/pagemap", p->pid);
	*n = 0;
	while (done < count) {
		size_t want = count - done < 512 ? (size_t)(count - done) : 512;
		off_t at = (off_t)((va / s->page + done) * 8);
		ssize_t r = pread(p->pagemap, entries, want * 8, at);

		if (r < 0)
			return fail(pe, "pread", path, errno);
		if (r != (ssize_t)(want * 8))
			return fail(pe, "pread", path, 0);
		for (i = 0; i < want; i++)
			*n += (entries[i] & PAGEMAP_PRESENT) != 0;
		done += want;
	}
	return 0;
}

/*
 * Windows of the file that are one PMD-sized folio each in the page cache
 * now (a look that reads nothing: warm_file's look_only), once per file:
 * a process that has not run them since khugepaged or --warm made them
 * huge maps PMDs at its next run.  Where the kernel shows the cache only
 * to a writer, cache_refused says so (the verdict says it is unknown);
 * any other failed look is an error, never "nothing huge in the cache".
 */
static int
look_cache(struct known_file *kf, const struct proc *p, const struct smap *m,
    uint64_t pmd, struct proc_error *pe)
{
	struct warm_request q = { .look_only = true, .huge_only = true };
	struct warm_result r = { 0 };
	struct warm_plan w;
	int fd, rc;

	if (kf->cache_looked || kf->replaced || !kf->windows_known)
		return 0;
	kf->cache_looked = true;
	if ((fd = open_mapped(p, m, false, pe)) < 0)
		return -1;
	if (warm_plan_build(&kf->layout, pmd, true, &w) != 0) {
		close(fd);
		return fail(pe, "malloc", kf->path, ENOMEM);
	}
	rc = warm_file(fd, kf->path, &w, &q, &r, pe->detail,
	    sizeof(pe->detail));
	warm_plan_free(&w);
	close(fd);
	if (rc == 0)
		kf->cache_huge = r.huge_before;
	else if (r.cache_refused) {
		kf->cache_refused = true;
		pe->detail[0] = '\0';
	} else {
		pe->call = "look at the page cache of";
		snprintf(pe->file, sizeof(pe->file), "%s", kf->path);
		pe->err = 0;
		return -1;
	}
	return 0;
}

/*
 * MADV_COLLAPSE on a file whose small folios a process maps: asked of the
 * file itself (collapse_fs.c, which writes nothing), where the kernel may
 * do it at all, once per file.
 */
static enum tri
file_collapse(struct known_file *kf, const struct proc *p,
    const struct smap *m, uint64_t pmd)
{
	struct stat st;
	int fd = -1;

	(void)p;
	(void)m;
	/* Where the kernel refuses anyway, the file is not even opened; a
	 * path that names another file now is not asked. */
	if (!kf->collapse_looked && !kf->replaced && kf->here != NULL &&
	    strcmp(kf->fs_type, "tmpfs") != 0 && (kf->collapse == TRI_NO ||
	    ((fd = open(kf->here, O_RDONLY | O_CLOEXEC | O_NOCTTY)) >= 0 &&
	    fstat(fd, &st) == 0 && (uint64_t)st.st_ino == kf->inode))) {
		kf->collapse = collapse_fs_expect(fd, pmd, kf->collapse);
	}
	if (fd >= 0)
		close(fd);
	kf->collapse_looked = true;
	return kf->collapse;
}

/*
 * The facts of one file in one process.  ms: the process's mappings of
 * the file (n).  Windows at PMD-aligned addresses are looked up in
 * pagemap; PMD-mapped bytes count only in read-only mappings, where the
 * windows are.
 */
static int
measure(const struct scan *s, const struct proc *p,
    struct known_file *kf, const struct smap *ms, size_t n,
    struct pid_row *row, struct proc_error *pe)
{
	uint64_t *at = NULL, present, ro_pmd = 0;
	struct pid_map *maps;
	size_t i, k, placed;

	if ((maps = calloc(n, sizeof(*maps))) == NULL)
		return fail(pe, "malloc", kf->path, ENOMEM);
	row->facts = (struct pid_facts){ .windows_known = kf->windows_known,
		.replaced = kf->replaced, .thp_disabled = p->thp_disabled,
		.fs_keeps_huge = kf->fs_keeps_huge, .pmd = s->pmd };
	for (i = 0; i < n; i++) {
		row->pmd_mapped += ms[i].pmd_mapped;
		row->resident += ms[i].rss;
		if (!ms[i].m.writable)
			ro_pmd += ms[i].pmd_mapped;
		maps[i] = ms[i].m;
	}
	row->facts.huge = ro_pmd / s->pmd;
	if (kf->windows_known)
		row->facts.windows = pid_file_windows(&kf->layout, s->pmd);
	if (row->facts.windows > 0 &&
	    (at = calloc(row->facts.windows, sizeof(*at))) == NULL) {
		free(maps);
		return fail(pe, "malloc", kf->path, ENOMEM);
	}
	placed = row->facts.windows == 0 ? 0 : pid_place_windows(&kf->layout,
	    maps, n, s->pmd, at, row->facts.windows);
	free(maps);
	row->facts.placed = placed;
	for (k = 0; k < placed; k++) {
		if (present_pages(p, s, at[k], &present, pe) != 0)
			break;
		if (present == 0)
			continue;
		row->facts.resident++;
		row->rss_if_huge += s->pmd - present * s->page;
	}
	free(at);
	if (k < placed)
		return -1;
	if (row->facts.resident < placed) {
		if (look_cache(kf, p, &ms[0], s->pmd, pe) != 0)
			return -1;
		row->facts.cache_huge = kf->cache_huge;
		row->facts.cache_unknown = kf->cache_refused;
	}
	if (row->facts.resident > row->facts.huge)
		row->facts.collapse = file_collapse(kf, p, &ms[0], s->pmd);
	return 0;
}

/* The mappings of one file are adjacent once sorted by inode and dev. */
static int
by_file(const void *a, const void *b)
{
	const struct smap *x = a, *y = b;
	int c = strcmp(x->dev, y->dev);

	if (c != 0)
		return c;
	if (x->inode != y->inode)
		return x->inode < y->inode ? -1 : 1;
	return x->m.start < y->m.start ? -1 : x->m.start > y->m.start;
}

static int
add_row(struct scan *s, const struct pid_row *row, struct proc_error *pe)
{
	struct pid_row *v;
	struct pid_scan *o = s->out;

	if ((v = reallocarray(o->rows, o->nrows + 1, sizeof(*v))) == NULL)
		return fail(pe, "malloc", "rows", ENOMEM);
	o->rows = v;
	o->rows[o->nrows++] = *row;
	return 0;
}

/* One row per ELF file the process maps executable. */
static int
measure_files(struct scan *s, struct proc *p, struct proc_error *pe)
{
	size_t i, j, k;

	if (p->nmaps > 1)	/* qsort's array must not be NULL, even empty */
		qsort(p->maps, p->nmaps, sizeof(*p->maps), by_file);
	for (i = 0; i < p->nmaps; i = j) {
		struct known_file *kf;
		struct pid_row row = { .pid = p->pid };
		bool exec = false;

		for (j = i + 1; j < p->nmaps && p->maps[j].inode ==
		    p->maps[i].inode && !strcmp(p->maps[j].dev, p->maps[i].dev);
		    j++)
			;
		for (k = i; k < j; k++)
			exec |= p->maps[k].exec;
		if (!exec)
			continue;
		if ((kf = known(s, p, &p->maps[i], pe)) == NULL)
			return -1;
		if (!kf->is_elf)
			continue;
		snprintf(row.comm, sizeof(row.comm), "%s", p->comm);
		snprintf(row.dev, sizeof(row.dev), "%s", kf->dev);
		row.path = kf->path;	/* its own allocation: stays put */
		row.here = kf->here;
		row.inode = kf->inode;
		snprintf(row.fs_type, sizeof(row.fs_type), "%s", kf->fs_type);
		if (measure(s, p, kf, &p->maps[i], j - i, &row, pe) != 0)
			return -1;
		pid_decide(&row.facts, &row.verdict);
		if (add_row(s, &row, pe) != 0)
			return -1;
	}
	return 0;
}

/* The first line of a small file under /proc or /sys, or "" */
static void
read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "re");

	buf[0] = '\0';
	if (f != NULL) {
		if (fgets(buf, (int)len, f) == NULL)
			buf[0] = '\0';
		fclose(f);
	}
	buf[strcspn(buf, "\n")] = '\0';
}

/*
 * Why the kernel refused to show /proc/PID/FILE: to anyone but root, the
 * owner rule; to root, what the kernel's own settings say (Yama's
 * ptrace_scope 3, another user namespace), else that the cause is not
 * known here (a security module, lockdown).
 */
static void
denied_why(const char *file, char *buf, size_t len)
{
	char ours[64], theirs[64], path[64], scope[16], map[96];
	long pid = strtol(file + strlen("/proc/"), NULL, 10);
	unsigned long in, out, count;
	ssize_t n, m;

	if (geteuid() != 0) {
		snprintf(buf, len, "only the process's owner or root can "
		    "read it");
		return;
	}
	read_line("/proc/sys/kernel/yama/ptrace_scope", scope, sizeof(scope));
	if (strcmp(scope, "3") == 0) {
		snprintf(buf, len, "refused to root too: Yama's "
		    "kernel.yama.ptrace_scope is 3, no process may read "
		    "another's memory map");
		return;
	}
	snprintf(path, sizeof(path), "/proc/%ld/ns/user", pid);
	n = readlink("/proc/self/ns/user", ours, sizeof(ours) - 1);
	m = readlink(path, theirs, sizeof(theirs) - 1);
	read_line("/proc/self/uid_map", map, sizeof(map));
	if (sscanf(map, "%lu %lu %lu", &in, &out, &count) == 3 &&
	    !(in == 0 && out == 0 && count == 4294967295UL)) {
		snprintf(buf, len, "refused to root too: this root is a user "
		    "namespace's (uid_map %lu %lu %lu), with no rights over a "
		    "process outside it", in, out, count);
		return;
	}
	if (n > 0 && m > 0 && (n != m || memcmp(ours, theirs, (size_t)n))) {
		snprintf(buf, len, "refused to root too: the process is in "
		    "another user namespace (%.*s)", (int)m, theirs);
		return;
	}
	snprintf(buf, len, "refused to root too, for a cause not known "
	    "here: a security module (AppArmor, SELinux), kernel lockdown "
	    "or a user namespace");
}

static void
error_message(char *buf, size_t len, const struct proc_error *pe)
{
	char why[160] = "";

	if (pe->err == EACCES || pe->err == EPERM)
		denied_why(pe->file, why, sizeof(why));
	if (pe->detail[0] != '\0')
		snprintf(buf, len, "%s: %s", pe->file, pe->detail);
	else if (pe->err == 0)
		snprintf(buf, len, "%s %s: short read", pe->call, pe->file);
	else
		snprintf(buf, len, "%s %s: %s%s%s%s", pe->call, pe->file,
		    strerror(pe->err), why[0] ? " (" : "", why,
		    why[0] ? ")" : "");
}

/* PF_EXITING (include/linux/sched.h), in /proc/PID/stat's flags: the
 * process is in exit(), and may have dropped its mappings already. */
#define PROC_PF_EXITING 0x4u

/*
 * Has pid ended (gone from /proc, a zombie, or exiting: its mappings are
 * gone or going)?  Asked after a failed read, so that a process that exits
 * mid-scan is told from a read that failed for the tool's own reasons.
 * false when that cannot be told (EMFILE on this open, say): the failure
 * stays one.
 */
static bool
proc_ended(long pid)
{
	char path[64], stat[512], *state, st;
	unsigned flags;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return errno == ENOENT || errno == ESRCH;
	n = read(fd, stat, sizeof(stat) - 1);
	close(fd);
	if (n <= 0)
		return n == 0 || errno == ESRCH;
	stat[n] = '\0';
	/* "pid (comm) S ...": comm may hold ')', the state follows the last. */
	if ((state = strrchr(stat, ')')) == NULL || sscanf(state + 1,
	    " %c %*d %*d %*d %*d %*d %u", &st, &flags) != 2)
		return false;
	return st == 'Z' || st == 'X' || (flags & PROC_PF_EXITING) != 0;
}

/*
 * Did the failure pe come from pid's exit?  What an exit makes a read of
 * /proc/PID/... or of a mapped file through /proc/PID/root or map_files
 * fail with: ENOENT, ESRCH, ESTALE (the path, then map_files), or an
 * empty or short read (err 0: pagemap and smaps of an exited process read
 * as empty); and only if the process has indeed ended.  A file's own
 * problem (detail) or EMFILE, ENOMEM, EACCES, EIO never are.
 */
static bool
proc_vanished(long pid, const struct proc_error *pe)
{
	bool exit_errno = pe->err == ENOENT || pe->err == ESRCH ||
	    pe->err == ESTALE || pe->err == 0;

	return pe->detail[0] == '\0' && exit_errno && proc_ended(pid);
}

/*
 * A process that could not be read.  Given by number, that is an error
 * (exit 2).  In --pid all, one that vanished (at any step) or is another
 * user's is counted and named in the summary; anything else (EMFILE,
 * ENOMEM, a short read of a live process, a mapped file that cannot be
 * read) is an error there too.
 */
static void
proc_failed(struct scan *s, long pid, bool named, const struct proc_error *pe)
{
	bool gone = proc_vanished(pid, pe);
	bool denied = (pe->err == EACCES || pe->err == EPERM) &&
	    strncmp(pe->file, "/proc/", 6) == 0 &&
	    strstr(pe->file, "/map_files/") == NULL &&
	    strstr(pe->file, "/root/") == NULL && pe->detail[0] == '\0';
	char msg[PATH_MAX + 512];

	error_message(msg, sizeof(msg), pe);
	if (!named && (gone || denied)) {
		struct pid_scan *o = s->out;

		if (o->nunread < PID_MAX_UNREAD) {
			o->unread[o->nunread].pid = pid;
			snprintf(o->unread[o->nunread].message,
			    sizeof(o->unread[0].message), "%s", gone ?
			    "vanished" : strerror(pe->err));
		}
		o->nunread++;
		return;
	}
	if (named && gone && strcmp(pe->call, "open") == 0 &&
	    strstr(pe->file, "/status") != NULL)
		snprintf(msg, sizeof(msg), "no such process");
	else if (gone)
		snprintf(msg + strlen(msg), sizeof(msg) - strlen(msg),
		    " (the process ended while being read)");
	note(s, pid, "error", msg);
}

static int
read_process(struct scan *s, struct proc *p, struct proc_error *pe)
{
	char *text;
	int r;

	if (read_status(p, pe) != 0)
		return -1;
	if (p->kthread || p->zombie)
		return 0;
	if (read_comm(p, pe) != 0)
		return -1;
	if ((p->pagemap = proc_open(p->pid, "pagemap", pe)) < 0)
		return -1;
	if (proc_slurp(p->pid, "smaps", &text, pe) != 0)
		return -1;
	/*
	 * A live process always maps something (its stack, the vdso): an
	 * empty smaps is one that exited after its status was read, and is
	 * told as such (or as a short read) rather than counted as a process
	 * that maps no file.
	 */
	if (text[0] == '\0') {
		char path[96];

		free(text);
		snprintf(path, sizeof(path), "/proc/%ld/smaps", p->pid);
		return fail(pe, "read", path, 0);
	}
	r = parse_smaps(p, text, pe);
	free(text);
	return r != 0 ? -1 : measure_files(s, p, pe);
}

/* One process: rows for its files, or a message; never half of them. */
static void
scan_process(struct scan *s, long pid, bool named)
{
	struct proc p = { .pid = pid, .pagemap = -1 };
	struct proc_error pe = { .call = "" };
	size_t mark = s->out->nrows;
	char msg[128];

	if (read_process(s, &p, &pe) != 0) {
		s->out->nrows = mark;
		proc_failed(s, pid, named, &pe);
	} else if (p.kthread || p.zombie) {
		if (p.kthread)
			s->out->kthreads++;
		else
			s->out->zombies++;
		snprintf(msg, sizeof(msg), "pid %ld is %s", pid, p.kthread ?
		    "a kernel thread: no user mappings" :
		    "a zombie: no mappings");
		if (named)
			note(s, pid, p.kthread ? "kernel-thread" : "zombie",
			    msg);
	} else
		s->out->processes++;
	proc_free(&p);
}

/* --pid all: every process but this one; kernel threads and zombies
 * skipped and counted. */
static void
scan_all(struct scan *s)
{
	long self = (long)getpid(), pid;
	char msg[128];
	struct dirent *e;
	char *end;
	DIR *d;

	if ((d = opendir("/proc")) == NULL) {
		snprintf(msg, sizeof(msg), "opendir /proc: %s", strerror(errno));
		note(s, 0, "error", msg);
		return;
	}
	while ((errno = 0, e = readdir(d)) != NULL) {
		pid = strtol(e->d_name, &end, 10);
		if (*end == '\0' && pid > 0 && pid != self)
			scan_process(s, pid, false);
	}
	if (errno != 0) {
		snprintf(msg, sizeof(msg), "readdir /proc: %s", strerror(errno));
		note(s, 0, "error", msg);
	}
	closedir(d);
}

void
pid_scan_free(struct pid_scan *out)
{
	struct known_file *known = out->known;
	size_t i;

	for (i = 0; i < out->nknown; i++) {
		free(known[i].path);
		free(known[i].here);
		layout_free(&known[i].layout);
	}
	free(known);
	free(out->rows);
	free(out->notes);
}

/*
 * Every process given (pids) or, with all, every one but this; the rows,
 * the counts and the notes land in out, which pid_scan_free releases.
 */
void
pid_scan(const long *pids, size_t npids, bool all, struct pid_scan *out)
{
	struct scan s = { .out = out, .page = host_page_size() };
	char msg[160];
	size_t i;

	/* Every window is counted in PMDs: without the size, no row. */
	if (host_pmd_read(&s.pmd) != 0) {
		snprintf(msg, sizeof(msg), "read /sys/kernel/mm/"
		    "transparent_hugepage/hpage_pmd_size: %s", strerror(errno));
		note(&s, 0, "error", msg);
		return;
	}
	if (all)
		scan_all(&s);
	for (i = 0; i < npids; i++)
		scan_process(&s, pids[i], true);
	out->known = s.known;
	out->nknown = s.nknown;
}
