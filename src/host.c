/* SPDX-License-Identifier: BSD-2-Clause */
/* SPDX-FileCopyrightText: 2026 the elfthp-align authors */
/*
 * --host: what this machine will do with huge text, changing nothing.
 * Host facts come from /proc and /sys (fs_info.c); for each path, the file
 * system is probed where the directory is writable: a 2-window file is
 * written with one write(), mapped at a PMD-aligned address and its
 * FilePmdMapped read; then dropped and read back through MADV_HUGEPAGE
 * readahead (what --warm does); then dropped, read back in small folios
 * and collapsed with MADV_COLLAPSE.  The file is made with O_TMPFILE, so
 * it never has a name and vanishes with its descriptor.  Elsewhere the
 * answer comes from the file system type and the kernel version
 * (hugefs.c), which also words the outcome.
 */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "elfthp_cli.h"

/* A nameless file in dir: O_TMPFILE, else a temporary name unlinked at once. */
static int
probe_file(const char *dir)
{
	char path[PATH_MAX];
	int fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);

	if (fd >= 0 || (errno != EOPNOTSUPP && errno != EISDIR &&
	    errno != EINVAL))
		return fd;
	if (snprintf(path, sizeof(path), "%s/.elfthp-probe-XXXXXX", dir) >=
	    (int)sizeof(path)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	if ((fd = mkostemp(path, O_CLOEXEC)) >= 0)
		unlink(path);
	return fd;
}

/* Bytes PMD-mapped when the whole file is mapped aligned and populated. */
static uint64_t
pmd_now(int fd, uint64_t size, uint64_t pmd, bool hugepage)
{
	struct pc_map m;
	uint64_t bytes = 0;

	if (pc_map(fd, 0, size, pmd, hugepage, &m) != 0)
		return 0;
	if (pc_populate(&m) != 0 || pc_pmd_mapped(m.addr, &bytes) != 0)
		bytes = 0;
	pc_unmap(&m);
	return bytes;
}

/* Read the file back in small pieces, as ordinary readahead does. */
static void
read_small(int fd, uint64_t size)
{
	char buf[4096];
	uint64_t off;

	for (off = 0; off < size; off += sizeof(buf))
		if (pread(fd, buf, sizeof(buf), (off_t)off) <= 0)
			break;
}

static void
probe_collapse(int fd, uint64_t size, uint64_t pmd, struct fs_probe *p)
{
	struct pc_map m;

	pc_drop(fd, 0, size);
	read_small(fd, size);
	p->collapse_error = EINVAL;
	if (pc_map(fd, 0, size, pmd, true, &m) != 0)
		return;
	p->collapse_error = pc_collapse(&m);
	pc_unmap(&m);
	p->collapse_pmd = p->collapse_error == 0 ? pmd_now(fd, size, pmd,
	    false) : 0;
}

/* The three measurements of the top comment, in dir. */
static void
probe_dir(const char *dir, uint64_t pmd, struct fs_probe *p)
{
	uint64_t size = 2 * pmd;
	char *buf;
	int fd;

	memset(p, 0, sizeof(*p));
	if ((fd = probe_file(dir)) < 0) {
		p->error = errno;
		return;
	}
	if ((buf = malloc((size_t)size)) == NULL) {
		p->error = ENOMEM;
		close(fd);
		return;
	}
	memset(buf, 0x5a, (size_t)size);
	if (pwrite(fd, buf, (size_t)size, 0) == (ssize_t)size) {
		p->done = true;
		p->size = size;
		p->write_pmd = pmd_now(fd, size, pmd, false);
		fdatasync(fd);
		pc_drop(fd, 0, size);
		p->warm_pmd = pmd_now(fd, size, pmd, true);
		probe_collapse(fd, size, pmd, p);
	} else {
		p->error = errno ? errno : ENOSPC;
	}
	free(buf);
	close(fd);
}

/* The directory to probe for a path: itself, or the one holding it. */
static void
probe_path(struct host_path *h, const struct host_facts *hf, uint64_t pmd)
{
	struct stat st;
	char *copy = NULL;
	const char *dir = h->path;

	if (stat(h->path, &st) != 0 || fs_identify(h->path, &h->fs) != 0) {
		h->error = errno;
		return;
	}
	if (!S_ISDIR(st.st_mode) && (copy = strdup(h->path)) != NULL)
		dir = dirname(copy);
	probe_dir(dir, pmd, &h->probe);
	free(copy);
	fs_expect(&h->fs, hf->version, hf->ro_thp_for_fs, &h->expect);
	h->outcome = fs_outcome(&h->expect, &h->probe);
	fs_outcome_sentence(h->sentence, sizeof(h->sentence), h->outcome,
	    &h->fs, &h->expect);
}

static void
host_basics(struct host_facts *hf)
{
	host_kernel(hf->kernel, sizeof(hf->kernel), &hf->version);
	thp_setting("enabled", hf->thp_enabled, sizeof(hf->thp_enabled));
	thp_setting("defrag", hf->thp_defrag, sizeof(hf->thp_defrag));
	thp_setting("shmem_enabled", hf->thp_shmem, sizeof(hf->thp_shmem));
	hf->ro_thp_for_fs = kernel_config("CONFIG_READ_ONLY_THP_FOR_FS",
	    hf->kernel, hf->config_where, sizeof(hf->config_where));
	hf->collapse_files = collapse_on_files(hf->version, hf->ro_thp_for_fs);
	hf->glibc = host_glibc();
	hf->glibc_aligns = glibc_aligns_libraries(hf->glibc);
}

/* A probe of a regular file (not tmpfs) says what MADV_COLLAPSE does. */
static void
collapse_measured(struct host_facts *hf, const struct host_path *h)
{
	if (hf->collapse_where != NULL || !h->probe.done ||
	    strcmp(h->fs.type, "tmpfs") == 0)
		return;
	if (h->probe.collapse_error == 0)
		hf->collapse_files = TRI_YES;
	else if (h->probe.collapse_error == EINVAL)
		hf->collapse_files = TRI_NO;
	else
		return;
	hf->collapse_where = h->path;
}

int
host_report(char **paths, size_t npaths, const struct options *o)
{
	struct host_facts hf = { .npaths = npaths };
	uint64_t pmd = host_pmd_size();
	int rc = 0;
	size_t i;

	host_basics(&hf);
	if (npaths > 0 && (hf.paths = calloc(npaths, sizeof(*hf.paths))) ==
	    NULL) {
		fprintf(stderr, "elfthp-align: out of memory\n");
		return 2;
	}
	for (i = 0; i < npaths; i++) {
		hf.paths[i].path = paths[i];
		probe_path(&hf.paths[i], &hf, pmd);
		if (hf.paths[i].error != 0) {
			fprintf(stderr, "elfthp-align: %s: %s\n", paths[i],
			    strerror(hf.paths[i].error));
			rc = 2;
		}
		collapse_measured(&hf, &hf.paths[i]);
	}
	report_host(stdout, o, &hf);
	free(hf.paths);
	return rc;
}
