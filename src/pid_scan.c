/* SPDX-License-Identifier: BSD-2-Clause */
/* SPDX-FileCopyrightText: 2026 the elfthp-align authors */
/*
 * --pid: how a running process's ELF files are mapped now.  Reads
 * /proc/PID/smaps (mappings, Rss, FilePmdMapped, ShmemPmdMapped),
 * /proc/PID/mem (is a mapping an ELF file?) and /proc/PID/pagemap (which
 * pages of each PMD window are present).  All three are readable by the
 * process's owner, so no root is needed for one's own processes.
 */
#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "elfthp_cli.h"

#define PAGEMAP_PRESENT (UINT64_C(1) << 63)

struct mapping {
	uint64_t start;
	uint64_t end;
	uint64_t offset;
	bool writable;
	uint64_t rss;
	uint64_t pmd_mapped;
};

struct mapped_file {
	char dev[16];
	uint64_t inode;
	char *path;
	struct mapping *maps;
	size_t nmaps;
	bool is_elf;
	/* results */
	uint64_t pmd_mapped, resident, windows, windows_resident, rss_if_huge;
	bool eligible;
	enum map_why why;
};

struct scan {
	long pid;
	bool thp_disabled;	/* THP_enabled: 0 in /proc/PID/status */
	uint64_t pmd;
	uint64_t page;
	struct mapped_file *files;
	size_t nfiles;
};

static struct mapped_file *
file_for(struct scan *s, const char *dev, uint64_t inode, const char *path)
{
	struct mapped_file *v;
	char *copy;
	size_t i;

	for (i = 0; i < s->nfiles; i++)
		if (s->files[i].inode == inode && !strcmp(s->files[i].dev, dev))
			return &s->files[i];
	if ((copy = strdup(path)) == NULL)
		return NULL;
	if ((v = realloc(s->files, (s->nfiles + 1) * sizeof(*v))) == NULL) {
		free(copy);
		return NULL;
	}
	s->files = v;
	v = &s->files[s->nfiles++];
	memset(v, 0, sizeof(*v));
	snprintf(v->dev, sizeof(v->dev), "%s", dev);
	v->inode = inode;
	v->path = copy;
	return v;
}

static struct mapping *
add_mapping(struct mapped_file *f, const struct mapping *m)
{
	struct mapping *v = realloc(f->maps, (f->nmaps + 1) * sizeof(*v));

	if (v == NULL)
		return NULL;
	f->maps = v;
	f->maps[f->nmaps] = *m;
	return &f->maps[f->nmaps++];
}

/* A mapping header: "start-end perms offset dev inode path". */
static struct mapping *
parse_header(struct scan *s, const char *line)
{
	unsigned long long start, end, off, inode;
	char perms[8], dev[16];
	int pos = 0;
	struct mapping m = { 0 };
	struct mapped_file *f;
	const char *path;

	if (sscanf(line, "%llx-%llx %7s %llx %15s %llu %n", &start, &end, perms,
	    &off, dev, &inode, &pos) < 6 || inode == 0 || pos == 0)
		return NULL;
	path = line + pos;
	if (path[0] != '/')
		return NULL;
	m = (struct mapping){ start, end, off, perms[1] == 'w', 0, 0 };
	if ((f = file_for(s, dev, inode, path)) == NULL)
		return NULL;
	return add_mapping(f, &m);
}

static int
parse_smaps(struct scan *s, FILE *in)
{
	char line[4096];
	struct mapping *cur = NULL;
	unsigned long long kb;

	while (fgets(line, sizeof(line), in) != NULL) {
		line[strcspn(line, "\n")] = '\0';
		if (strchr(line, '-') != NULL && strchr(line, ':') != NULL &&
		    line[0] != ' ' && strchr(line, ' ') < strchr(line, ':') &&
		    strcspn(line, "0123456789abcdef") == 0) {
			cur = parse_header(s, line);
			continue;
		}
		if (cur == NULL)
			continue;
		if (sscanf(line, "Rss: %llu kB", &kb) == 1)
			cur->rss = kb * 1024;
		else if (sscanf(line, "FilePmdMapped: %llu kB", &kb) == 1 ||
		    sscanf(line, "ShmemPmdMapped: %llu kB", &kb) == 1)
			cur->pmd_mapped += kb * 1024;
	}
	return ferror(in) ? -1 : 0;
}

/* Is the file an ELF?  Its header is mapped at file offset 0. */
static void
detect_elf(struct mapped_file *f, int mem)
{
	unsigned char magic[4];
	size_t i;

	for (i = 0; i < f->nmaps; i++) {
		if (f->maps[i].offset != 0)
			continue;
		if (pread(mem, magic, 4, (off_t)f->maps[i].start) == 4 &&
		    memcmp(magic, "\177ELF", 4) == 0)
			f->is_elf = true;
		return;
	}
}

/* Present pages among the PMD window at va, from pagemap. */
static int
present_pages(int pagemap, uint64_t va, const struct scan *s, uint64_t *n)
{
	uint64_t entries[512];
	uint64_t count = s->pmd / s->page, done = 0, i;

	*n = 0;
	while (done < count) {
		size_t want = count - done < 512 ? (size_t)(count - done) : 512;
		off_t at = (off_t)((va / s->page + done) * 8);
		ssize_t r = pread(pagemap, entries, want * 8, at);

		if (r != (ssize_t)(want * 8))
			return -1;
		for (i = 0; i < want; i++)
			*n += (entries[i] & PAGEMAP_PRESENT) != 0;
		done += want;
	}
	return 0;
}

static int
measure_file(struct mapped_file *f, const struct scan *s, int pagemap)
{
	bool all_congruent = true;
	uint64_t va, present;
	size_t i;

	for (i = 0; i < f->nmaps; i++) {
		const struct mapping *m = &f->maps[i];
		uint64_t first = (m->start + s->pmd - 1) / s->pmd * s->pmd;

		f->pmd_mapped += m->pmd_mapped;
		f->resident += m->rss;
		if (m->writable)
			continue;
		if (first + s->pmd <= m->end &&
		    ((m->start - m->offset) & (s->pmd - 1)) != 0)
			all_congruent = false;
		for (va = first; va + s->pmd <= m->end; va += s->pmd) {
			f->windows++;
			if (present_pages(pagemap, va, s, &present) != 0)
				return -1;
			if (present == 0)
				continue;
			f->windows_resident++;
			f->rss_if_huge += s->pmd - present * s->page;
		}
	}
	f->eligible = f->windows > 0 && all_congruent;
	return 0;
}

/* THP_enabled: 0 in /proc/PID/status: prctl(PR_SET_THP_DISABLE) or the like. */
static bool
thp_disabled(long pid)
{
	char path[64], line[256];
	bool off = false;
	int v;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%ld/status", pid);
	if ((f = fopen(path, "re")) == NULL)
		return false;
	while (fgets(line, sizeof(line), f) != NULL)
		if (sscanf(line, "THP_enabled: %d", &v) == 1)
			off = v == 0;
	fclose(f);
	return off;
}

/* Does the file system of path keep huge folios?  From type and kernel. */
static enum tri
fs_keeps_huge(const char *path)
{
	struct fs_expect e;

	if (fs_expect_path(path, NULL, &e) != 0)
		return TRI_UNKNOWN;
	if (e.write == TRI_YES || e.readahead == TRI_YES ||
	    e.collapse == TRI_YES)
		return TRI_YES;
	if (e.write == TRI_NO && e.readahead == TRI_NO && e.collapse == TRI_NO)
		return TRI_NO;
	return TRI_UNKNOWN;
}

static void
explain(struct mapped_file *f, const struct scan *s)
{
	size_t n = strlen(f->path);
	bool deleted = n > 10 && strcmp(f->path + n - 10, " (deleted)") == 0;
	struct map_facts m = { .eligible = f->eligible,
		.thp_disabled = s->thp_disabled, .deleted = deleted,
		.fs_keeps_huge = TRI_UNKNOWN,
		.windows_resident = f->windows_resident,
		.pmd_mapped = f->pmd_mapped, .pmd = s->pmd };

	if (f->eligible && !deleted)
		m.fs_keeps_huge = fs_keeps_huge(f->path);
	f->why = map_why(&m);
}

/* What to do about it, for the text and the JSON alike. */
static const char *
why_text(enum map_why w)
{
	switch (w) {
	case WHY_THP_DISABLED:
		return "THP is disabled for this process (prctl "
		    "PR_SET_THP_DISABLE, or its service manager): nothing in "
		    "the page cache helps";
	case WHY_REPLACED:
		return "the file was replaced since the process mapped it: "
		    "restart the process";
	case WHY_NO_HUGE_FOLIOS:
		return "its file system keeps no huge folios: copy it to ext4 "
		    "or XFS";
	case WHY_SMALL_FOLIOS:
		return "the page cache holds small folios there: stop the "
		    "process, run elfthp-align --warm on the file, start it "
		    "again";
	case WHY_NOT_TOUCHED:
		return "no window is resident yet: the process has not run "
		    "that code";
	case WHY_NONE: break;
	}
	return "";
}

static void
print_text(const struct scan *s)
{
	char a[16], b[16], c[16];
	size_t i;

	printf("%10s %8s %7s %8s %10s %11s  %s\n", "PMD-MAPPED", "MAPPABLE",
	    "WINDOWS", "RES.WIN", "RESIDENT", "RSS+IF-HUGE", "FILE");
	for (i = 0; i < s->nfiles; i++) {
		const struct mapped_file *f = &s->files[i];

		if (!f->is_elf)
			continue;
		format_size(a, sizeof(a), f->pmd_mapped);
		format_size(b, sizeof(b), f->resident);
		format_size(c, sizeof(c), f->rss_if_huge);
		printf("%10s %8s %7" PRIu64 " %8" PRIu64 " %10s %11s  %s\n", a,
		    f->eligible ? "yes" : "no", f->windows, f->windows_resident,
		    b, c, f->path);
		if (f->why != WHY_NONE)
			printf("%10s why: %s\n", "", why_text(f->why));
	}
}

static const char *
pid_status(const struct mapped_file *f)
{
	if (!f->eligible)
		return "not-mappable";
	return f->why == WHY_NONE ? "huge" : "not-huge";
}

static void
print_json(const struct scan *s, const struct options *o)
{
	struct json j;
	size_t i;

	for (i = 0; i < s->nfiles; i++) {
		const struct mapped_file *f = &s->files[i];

		if (!f->is_elf)
			continue;
		json_begin(&j, stdout, mode_name(o));
		json_u64(&j, "pid", (uint64_t)s->pid);
		json_str(&j, "file", f->path);
		json_str(&j, "status", pid_status(f));
		json_str(&j, "dev", f->dev);
		json_u64(&j, "inode", f->inode);
		json_u64(&j, "pmd_mapped_bytes", f->pmd_mapped);
		json_bool(&j, "huge_mappable", f->eligible);
		json_u64(&j, "windows", f->windows);
		json_u64(&j, "windows_resident", f->windows_resident);
		json_u64(&j, "resident_bytes", f->resident);
		json_u64(&j, "rss_increase_if_huge_bytes", f->rss_if_huge);
		json_str(&j, "why", map_why_name(f->why));
		json_str(&j, "why_message", why_text(f->why));
		json_end(&j);
	}
}

/* Said on stderr, and as a JSON line where JSON was asked for. */
static void pid_error(const struct options *, long pid, const char *fmt, ...)
    PRINTF_LIKE(3, 4);

static void
pid_error(const struct options *o, long pid, const char *fmt, ...)
{
	char text[512];
	struct json j;
	va_list ap;

	va_start(ap, fmt);
	verror_text(text, sizeof(text), fmt, ap);
	va_end(ap);
	fprintf(stderr, "elfthp-align: pid %ld: %s\n", pid, text);
	if (o->format != FORMAT_JSON)
		return;
	json_begin(&j, stdout, mode_name(o));
	json_u64(&j, "pid", (uint64_t)pid);
	json_str(&j, "status", "error");
	json_str(&j, "message", text);
	json_end(&j);
}

static int
open_proc(const struct options *o, long pid, const char *what, int *fd,
    FILE **fp)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%ld/%s", pid, what);
	if (fp != NULL)
		*fp = fopen(path, "re");
	else
		*fd = open(path, O_RDONLY | O_CLOEXEC);
	if ((fp != NULL && *fp != NULL) || (fp == NULL && *fd >= 0))
		return 0;
	if (errno == ENOENT)
		pid_error(o, pid, "no such process");
	else if (errno == EACCES || errno == EPERM)
		pid_error(o, pid, "cannot read %s: %s (only the process's owner "
		    "or root can)", path, strerror(errno));
	else
		pid_error(o, pid, "%s: %s", path, strerror(errno));
	return -1;
}

static void
scan_free(struct scan *s)
{
	size_t i;

	for (i = 0; i < s->nfiles; i++) {
		free(s->files[i].path);
		free(s->files[i].maps);
	}
	free(s->files);
}

int
pid_report(long pid, const struct options *o)
{
	struct scan s = { .pid = pid, .pmd = host_pmd_size(),
		.page = host_page_size() };
	int mem = -1, pagemap = -1, rc = 2;
	FILE *smaps = NULL;
	size_t i;

	if (open_proc(o, pid, "smaps", NULL, &smaps) != 0 ||
	    open_proc(o, pid, "mem", &mem, NULL) != 0 ||
	    open_proc(o, pid, "pagemap", &pagemap, NULL) != 0)
		goto out;
	if (parse_smaps(&s, smaps) != 0) {
		pid_error(o, pid, "cannot read smaps: %s", strerror(errno));
		goto out;
	}
	s.thp_disabled = thp_disabled(pid);
	for (i = 0; i < s.nfiles; i++) {
		detect_elf(&s.files[i], mem);
		if (s.files[i].is_elf &&
		    measure_file(&s.files[i], &s, pagemap) != 0) {
			pid_error(o, pid, "cannot read pagemap: %s",
			    strerror(errno));
			goto out;
		}
		if (s.files[i].is_elf)
			explain(&s.files[i], &s);
	}
	if (o->format == FORMAT_JSON)
		print_json(&s, o);
	else
		print_text(&s);
	rc = 0;
out:
	if (smaps != NULL)
		fclose(smaps);
	if (mem >= 0)
		close(mem);
	if (pagemap >= 0)
		close(pagemap);
	scan_free(&s);
	return rc;
}
