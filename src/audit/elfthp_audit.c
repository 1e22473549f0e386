/* SPDX-License-Identifier: BSD-2-Clause */
/* SPDX-FileCopyrightText: 2026 the elfthp-align authors */
/*
 * elfthp-audit.so: --measure's text-only toggle, an LD_AUDIT module.
 *
 * ELFTHP_AUDIT_FILES names files as "dev:ino" pairs (decimal, the
 * st_dev and st_ino of stat(2)), separated by commas.  Each time ld.so
 * has mapped an object (la_objopen: the program, which the kernel mapped
 * before ld.so ran, then each library, at start and at each dlopen),
 * the process's new read-only mappings of those files get
 * MADV_NOHUGEPAGE, so that no fault maps them with a PMD, and
 * MADV_DONTNEED, so that a PMD mapped already is zapped: their pages are
 * the file's, unmodified, and fault back in with PTEs.  A mapping is
 * handled once, when it first appears, before ld.so relocates anything
 * in it: a RELRO range made read-only after its relocation holds written
 * pages that MADV_DONTNEED would throw away.  Anonymous memory and every
 * other file are left alone.
 *
 * ELFTHP_AUDIT_MODE=huge does the same looks and advises nothing: the
 * huge rounds load the module too, so that both states pay for it.
 *
 * The advice shows as "nh" in the mapping's VmFlags (smaps): that is
 * how --measure knows the module ran in a process.  The module uses
 * only system calls on a stack buffer: ld.so calls it before the
 * program's allocator is ready.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <link.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#define MAX_FILES 64

struct named {
	unsigned long long dev, ino;
};

static struct named files[MAX_FILES];
static size_t nfiles;
static int advise = 1;
static struct {
	unsigned long long lo, hi;
} seen[4096];			/* every mapping handled already */
static size_t nseen;

static unsigned long long
number(const char **s, int base)
{
	unsigned long long v = 0;
	int d;

	for (;; (*s)++) {
		if (**s >= '0' && **s <= '9')
			d = **s - '0';
		else if (base == 16 && **s >= 'a' && **s <= 'f')
			d = **s - 'a' + 10;
		else
			return v;
		v = v * (unsigned)base + (unsigned)d;
	}
}

static void
parse_files(const char *s)
{
	while (s != NULL && *s != '\0' && nfiles < MAX_FILES) {
		files[nfiles].dev = number(&s, 10);
		if (*s++ != ':')
			return;
		files[nfiles].ino = number(&s, 10);
		nfiles++;
		if (*s != ',')
			return;
		s++;
	}
}

unsigned int
la_version(unsigned int version)
{
	const char *mode = getenv("ELFTHP_AUDIT_MODE");

	parse_files(getenv("ELFTHP_AUDIT_FILES"));
	advise = !(mode != NULL && strcmp(mode, "huge") == 0);
	return version < LAV_CURRENT ? version : LAV_CURRENT;
}

static int
is_named(unsigned long long dev, unsigned long long ino)
{
	size_t i;

	for (i = 0; i < nfiles; i++)
		if (files[i].dev == dev && files[i].ino == ino)
			return 1;
	return 0;
}

/* Was [lo, hi) inside a mapping seen before?  Else remember it. */
static int
seen_before(unsigned long long lo, unsigned long long hi)
{
	size_t i;

	for (i = 0; i < nseen; i++)
		if (seen[i].lo <= lo && hi <= seen[i].hi)
			return 1;
	if (nseen < sizeof(seen) / sizeof(seen[0])) {
		seen[nseen].lo = lo;
		seen[nseen++].hi = hi;
		return 0;
	}
	return 1;	/* no room: no zap that could not be undone */
}

/* One line of /proc/self/maps: advise it if it is a named file's, read-only. */
static void
maps_line(const char *s)
{
	unsigned long long lo, hi, maj, min, ino;
	char w;

	lo = number(&s, 16);
	if (*s++ != '-')
		return;
	hi = number(&s, 16);
	if (*s++ != ' ' || s[0] == '\0' || s[1] == '\0')
		return;
	w = s[1];
	s += 4;
	if (*s++ != ' ')
		return;
	(void)number(&s, 16);	/* offset */
	if (*s++ != ' ')
		return;
	maj = number(&s, 16);
	if (*s++ != ':')
		return;
	min = number(&s, 16);
	if (*s++ != ' ')
		return;
	ino = number(&s, 10);
	if (seen_before(lo, hi) || w != '-' || ino == 0 ||
	    !is_named(makedev(maj, min), ino) || !advise)
		return;
	madvise((void *)(uintptr_t)lo, hi - lo, MADV_NOHUGEPAGE);
	madvise((void *)(uintptr_t)lo, hi - lo, MADV_DONTNEED);
}

/* Every mapping of the process, line by line, through a stack buffer. */
static void
apply(void)
{
	char buf[8192], line[512];
	size_t len = 0;
	ssize_t got, i;
	int fd;

	if (nfiles == 0 ||
	    (fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC)) < 0)
		return;
	while ((got = read(fd, buf, sizeof(buf))) > 0)
		for (i = 0; i < got; i++) {
			if (buf[i] != '\n') {
				if (len + 1 < sizeof(line))
					line[len++] = buf[i];
				continue;
			}
			line[len] = '\0';
			maps_line(line);
			len = 0;
		}
	close(fd);
}

unsigned int
la_objopen(struct link_map *map __attribute__((unused)),
    Lmid_t lmid __attribute__((unused)),
    uintptr_t *cookie __attribute__((unused)))
{
	apply();
	return 0;
}
