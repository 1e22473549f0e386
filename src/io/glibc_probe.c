/* SPDX-License-Identifier: BSD-2-Clause */
/* SPDX-FileCopyrightText: 2026 the elfthp-align authors */
/*
 * --host's glibc.elf.thp facts (core/glibc_thp.c decides): the glibc
 * version, whether ld.so names the tunable, GLIBC_TUNABLES, and
 * /etc/tunables.conf (with its includes) and whether /etc/ld.so.cache,
 * where ldconfig copies it, is newer and holds it.
 *
 * ELFTHP_GLIBC_ROOT names another root to read all of that from (the
 * tests' fake and real glibc roots): its ld.so and libc are found at the
 * paths this process's own loader and libc have, and every path is
 * resolved inside it (openat2 RESOLVE_IN_ROOT), so that an absolute
 * symbolic link in the root never reaches the host's files.
 */
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <gnu/libc-version.h>
#include <libgen.h>
#include <limits.h>
#include <link.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "elfthp_io.h"

#define TUNCONF_DEPTH 8

struct glibc_root {
	int fd;			/* the root directory */
	const char *prefix;	/* its path, or NULL: "/" */
};

/* path (absolute) inside the root; -1 and errno. */
static int
root_open(const struct glibc_root *r, const char *path, int flags)
{
	struct open_how how = { .flags = (uint64_t)(flags | O_CLOEXEC),
	    .resolve = RESOLVE_IN_ROOT };
	long fd;

	if (r->prefix == NULL)
		return open(path, flags | O_CLOEXEC);
	fd = syscall(SYS_openat2, r->fd, path, &how, sizeof(how));
	return (int)fd;
}

/* The call that last failed in file_holds, for the message. */
static __thread const char *holds_call = "open";

/* Does the file at path hold needle?  TRI_UNKNOWN: unreadable (errno). */
static enum tri
file_holds(const struct glibc_root *r, const char *path, const char *needle,
    size_t nlen, struct stat *st)
{
	enum tri t = TRI_UNKNOWN;
	void *m;
	int e, fd = root_open(r, path, O_RDONLY);

	holds_call = "open";
	if (fd < 0)
		return TRI_UNKNOWN;
	holds_call = "fstat";
	if (fstat(fd, st) == 0) {
		holds_call = "mmap";
		t = TRI_NO;
		if (st->st_size > 0 && (m = mmap(NULL, (size_t)st->st_size,
		    PROT_READ, MAP_PRIVATE, fd, 0)) != MAP_FAILED) {
			if (memmem(m, (size_t)st->st_size, needle, nlen) != NULL)
				t = TRI_YES;
			munmap(m, (size_t)st->st_size);
		} else if (st->st_size > 0) {
			t = TRI_UNKNOWN;
		}
	}
	e = errno;
	close(fd);
	errno = e;
	return t;
}

/* The paths of this process's ld.so and libc (dl_iterate_phdr). */
struct own_objects {
	char ldso[PATH_MAX];
	char libc[PATH_MAX];
};

static int
own_object(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct own_objects *o = arg;
	const char *base;

	(void)size;
	if (info->dlpi_name == NULL || info->dlpi_name[0] != '/')
		return 0;
	base = strrchr(info->dlpi_name, '/') + 1;
	if (info->dlpi_addr == getauxval(AT_BASE))
		snprintf(o->ldso, sizeof(o->ldso), "%s", info->dlpi_name);
	else if (strncmp(base, "libc.so.", 8) == 0)
		snprintf(o->libc, sizeof(o->libc), "%s", info->dlpi_name);
	return 0;
}

/* "2.44" from libc's "release version 2.44." in buf; 0, or -1. */
static int
libc_version(const struct glibc_root *r, const char *path, char *buf,
    size_t len)
{
	static const char key[] = "release version ";
	struct stat st;
	char *m;
	int fd = root_open(r, path, O_RDONLY);
	int rc = -1;

	if (fd < 0)
		return -1;
	if (fstat(fd, &st) == 0 && st.st_size > 0 &&
	    (m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd,
	    0)) != MAP_FAILED) {
		const char *hit = memmem(m, (size_t)st.st_size, key,
		    sizeof(key) - 1);
		size_t n = 0;

		if (hit != NULL) {
			hit += sizeof(key) - 1;
			while (hit + n < m + st.st_size && n + 1 < len &&
			    (hit[n] == '.' || (hit[n] >= '0' && hit[n] <= '9')))
				n++;
			while (n > 0 && hit[n - 1] == '.')
				n--;
			memcpy(buf, hit, n);
			buf[n] = '\0';
			rc = n > 0 ? 0 : -1;
		}
		munmap(m, (size_t)st.st_size);
		errno = rc == 0 ? 0 : ENOEXEC;
	}
	close(fd);
	return rc;
}

static int tunconf_file(const struct glibc_root *, const char *,
    struct tunconf_state *, int depth);

/* "include PATTERN": each file it names, relative to the including one. */
static int
tunconf_include(const struct glibc_root *r, const char *from,
    const char *pattern, struct tunconf_state *st, int depth)
{
	char pat[PATH_MAX], copy[PATH_MAX];
	glob_t g;
	size_t i, skip = r->prefix != NULL ? strlen(r->prefix) : 0;
	int rc = 0;

	snprintf(copy, sizeof(copy), "%s", from);
	if (pattern[0] == '/')
		snprintf(pat, sizeof(pat), "%s%s", r->prefix ? r->prefix : "",
		    pattern);
	else
		snprintf(pat, sizeof(pat), "%s%s/%s", r->prefix ? r->prefix :
		    "", dirname(copy), pattern);
	if (glob(pat, 0, NULL, &g) != 0)
		return 0;	/* ldconfig: nothing matched, nothing read */
	for (i = 0; i < g.gl_pathc && rc == 0; i++)
		rc = tunconf_file(r, g.gl_pathv[i] + skip, st, depth + 1);
	globfree(&g);
	return rc;
}

/* One tunables.conf; 0, or -1 and errno (ENOENT of the top file: 0). */
static int
tunconf_file(const struct glibc_root *r, const char *path,
    struct tunconf_state *st, int depth)
{
	char *line = NULL, *p, *hash;
	size_t cap = 0;
	FILE *f;
	int fd, rc = 0;

	if (depth > TUNCONF_DEPTH)
		return 0;
	if ((fd = root_open(r, path, O_RDONLY)) < 0 ||
	    (f = fdopen(fd, "r")) == NULL) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	while (getline(&line, &cap, f) > 0) {
		if ((hash = strchr(line, '#')) != NULL)
			*hash = '\0';
		line[strcspn(line, "\r\n")] = '\0';
		for (p = line; *p == ' ' || *p == '\t'; p++)
			;
		if (*p == '\0')
			continue;
		if (strncmp(p, "include", 7) == 0 && (p[7] == ' ' || p[7] == '\t'))
			rc = tunconf_include(r, path, p + 8 + strspn(p + 8, " \t"),
			    st, depth);
		else
			tunconf_line(st, p);
	}
	tunconf_end_file(st);
	if (ferror(f))
		rc = -1;
	free(line);
	fclose(f);
	return rc;
}

/* tunables.conf, then whether ld.so.cache is newer and holds it. */
static int
read_tunconf(const struct glibc_root *r, struct glibc_thp_facts *f,
    char *where, size_t len)
{
	struct stat conf, cache;
	enum tri holds;
	int fd;

	f->conf.value = -1;
	if ((fd = root_open(r, "/etc/tunables.conf", O_RDONLY)) < 0) {
		if (errno == ENOENT)
			return 0;
		snprintf(where, len, "/etc/tunables.conf");
		return -1;
	}
	f->conf_exists = fstat(fd, &conf) == 0;
	close(fd);
	if (tunconf_file(r, "/etc/tunables.conf", &f->conf, 0) != 0) {
		snprintf(where, len, "/etc/tunables.conf (or a file it "
		    "includes)");
		return -1;
	}
	holds = file_holds(r, "/etc/ld.so.cache", "glibc.elf.thp", 14, &cache);
	if (holds == TRI_UNKNOWN && errno != ENOENT) {
		snprintf(where, len, "/etc/ld.so.cache");
		return -1;
	}
	f->conf_cached = holds == TRI_YES &&
	    (cache.st_mtim.tv_sec > conf.st_mtim.tv_sec ||
	    (cache.st_mtim.tv_sec == conf.st_mtim.tv_sec &&
	    cache.st_mtim.tv_nsec >= conf.st_mtim.tv_nsec));
	return 0;
}

/* The version: this process's libc, or the root's libc file. */
static int
read_version(const struct glibc_root *r, const struct own_objects *own,
    char *version, size_t vlen, char *where, size_t len)
{
	if (r->prefix == NULL) {
		snprintf(version, vlen, "%s", gnu_get_libc_version());
		return 0;
	}
	if (own->libc[0] == '\0' ||
	    libc_version(r, own->libc, version, vlen) != 0) {
		snprintf(where, len, "%s%s (the glibc version)", r->prefix,
		    own->libc);
		return -1;
	}
	return 0;
}

/*
 * The facts of glibc.elf.thp (f->version points into version).  0, or -1
 * with errno and where naming what could not be read.
 */
int
glibc_thp_read(struct glibc_thp_facts *f, char *version, size_t vlen,
    char *where, size_t len)
{
	struct glibc_root r = { .fd = -1, .prefix = getenv("ELFTHP_GLIBC_ROOT") };
	struct own_objects own = { "", "" };
	struct stat st;
	const char *env = getenv("GLIBC_TUNABLES");
	int rc = 0, e = 0;

	memset(f, 0, sizeof(*f));
	f->env = env != NULL ? tunables_env_thp(env) : -1;
#ifdef __loongarch__
	f->arch_on = true;	/* glibc's default there (elf/dl-tunables.list) */
#endif
	if (r.prefix != NULL && r.prefix[0] == '\0')
		r.prefix = NULL;
	if (r.prefix != NULL &&
	    (r.fd = open(r.prefix, O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0) {
		snprintf(where, len, "%s (ELFTHP_GLIBC_ROOT)", r.prefix);
		return -1;
	}
	dl_iterate_phdr(own_object, &own);
	if (read_version(&r, &own, version, vlen, where, len) != 0) {
		e = errno;
		rc = -1;
	} else {
		f->version = version;
	}
	f->has_tunable = own.ldso[0] == '\0' ? TRI_UNKNOWN : file_holds(&r,
	    own.ldso, "glibc.elf.thp", 14, &st);
	/* An ld.so that is there but could not be read (EMFILE, ENOMEM) is
	 * an error, never "no tunable". */
	if (rc == 0 && f->has_tunable == TRI_UNKNOWN && own.ldso[0] != '\0' &&
	    errno != ENOENT) {
		snprintf(where, len, "%s%s (ld.so): %s", r.prefix != NULL ?
		    r.prefix : "", own.ldso, holds_call);
		e = errno;
		rc = -1;
	}
	if (rc == 0 && read_tunconf(&r, f, where, len) != 0) {
		e = errno;
		rc = -1;
	}
	if (r.fd >= 0)
		close(r.fd);
	errno = e;
	return rc;
}
