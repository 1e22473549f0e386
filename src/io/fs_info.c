/* SPDX-License-Identifier: BSD-2-Clause */
/* SPDX-FileCopyrightText: 2026 the elfthp-align authors */
/*
 * Facts about this host and its file systems, read from /proc and /sys:
 * which file system holds a path (and its mount options), the kernel
 * version, the THP settings, CONFIG_READ_ONLY_THP_FOR_FS, the glibc
 * version.  hugefs.c turns them into expectations; this file only reads.
 */
#include <errno.h>
#include <gnu/libc-version.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/utsname.h>
#include <zlib.h>

#include "elfthp_io.h"

/* statfs magic numbers, for when /proc/self/mountinfo cannot be read. */
static const struct {
	unsigned long magic;
	const char *name;
} magics[] = {
	{ 0xEF53, "ext4" }, { 0x58465342, "xfs" }, { 0x9123683E, "btrfs" },
	{ 0x01021994, "tmpfs" }, { 0x73717368, "squashfs" },
	{ 0x794c7630, "overlay" }, { 0x6969, "nfs" }, { 0xE0F5E1E2, "erofs" },
	{ 0xF2F52010, "f2fs" }, { 0x65735546, "fuse" },
};

/* mountinfo writes ' ', '\t', '\n' and '\\' as octal escapes. */
static void
unescape(char *s)
{
	char *out = s;

	while (*s != '\0') {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] >= '0' &&
		    s[2] <= '7' && s[3] >= '0' && s[3] <= '7') {
			*out++ = (char)((s[1] - '0') * 64 + (s[2] - '0') * 8 +
			    (s[3] - '0'));
			s += 4;
		} else {
			*out++ = *s++;
		}
	}
	*out = '\0';
}

/* Is mount point mp a path prefix of path ("/" of everything)? */
static size_t
prefix_len(const char *mp, const char *path)
{
	size_t n = strlen(mp);

	if (strcmp(mp, "/") == 0)
		return 1;
	if (strncmp(mp, path, n) != 0 || (path[n] != '/' && path[n] != '\0'))
		return 0;
	return n;
}

/* "super options" of tmpfs carry huge=; the default is never. */
static void
huge_option(struct fs_info *fs)
{
	const char *h = strstr(fs->options, "huge=");
	size_t n;

	fs->huge[0] = '\0';
	if (strcmp(fs->type, "tmpfs") != 0)
		return;
	if (fs->options[0] == '\0') {
		snprintf(fs->huge, sizeof(fs->huge), "unknown");
		return;
	}
	if (h == NULL) {
		snprintf(fs->huge, sizeof(fs->huge), "never");
		return;
	}
	h += 5;
	n = strcspn(h, ",");
	snprintf(fs->huge, sizeof(fs->huge), "%.*s", (int)n, h);
}

/* The mount IDs of the file and of this process's root, where known. */
struct mount_ids {
	uint64_t file, root;
	bool known;		/* statx gave both (Linux 5.8 and later) */
	bool file_seen, root_seen;	/* a mountinfo line has each ID */
};

static void
mount_ids(const char *real, struct mount_ids *ids)
{
	struct statx a, b;

	*ids = (struct mount_ids){ 0 };
	if (statx(AT_FDCWD, real, 0, STATX_MNT_ID, &a) == 0 &&
	    statx(AT_FDCWD, "/", 0, STATX_MNT_ID, &b) == 0 &&
	    (a.stx_mask & b.stx_mask & STATX_MNT_ID)) {
		ids->file = a.stx_mnt_id;
		ids->root = b.stx_mnt_id;
		ids->known = true;
	}
}

static void
take_mount(struct fs_info *fs, const char *type, const char *mp,
    const char *opts, const char *super)
{
	snprintf(fs->type, sizeof(fs->type), "%s", type);
	snprintf(fs->mount_point, sizeof(fs->mount_point), "%s", mp);
	snprintf(fs->options, sizeof(fs->options), "%s%s%s", opts,
	    super ? "," : "", super ? super : "");
}

/*
 * One mountinfo line: the file's own mount by its ID where statx gave
 * one (exact, whatever paths say), else the longest mount point that is a
 * prefix of the path (kernels before 5.8).  *best: the match's length,
 * SIZE_MAX once the ID matched.
 */
static void
consider_mount(char *line, const char *path, size_t *best,
    struct mount_ids *ids, struct fs_info *fs)
{
	char *sep = strstr(line, " - "), *f[6], *save = NULL, *type,
	    *super;
	unsigned long long id;
	size_t i, n;

	if (sep == NULL)
		return;
	*sep = '\0';
	for (i = 0; i < 6; i++)
		if ((f[i] = strtok_r(i ? NULL : line, " ", &save)) == NULL)
			return;
	type = strtok_r(sep + 3, " ", &save);
	(void)strtok_r(NULL, " ", &save);	/* source */
	super = strtok_r(NULL, " \n", &save);
	unescape(f[4]);
	if (type == NULL || sscanf(f[0], "%llu", &id) != 1)
		return;
	ids->root_seen |= ids->known && id == ids->root;
	if (ids->known && id == ids->file) {
		ids->file_seen = true;
		*best = SIZE_MAX;
		take_mount(fs, type, f[4], f[5], super);
		return;
	}
	if (*best == SIZE_MAX || (n = prefix_len(f[4], path)) == 0 ||
	    n < *best)
		return;
	*best = n;
	take_mount(fs, type, f[4], f[5], super);
}

static void
type_from_magic(const char *path, struct fs_info *fs)
{
	struct statfs sf;
	size_t i;

	snprintf(fs->type, sizeof(fs->type), "unknown");
	if (statfs(path, &sf) != 0)
		return;
	for (i = 0; i < sizeof(magics) / sizeof(magics[0]); i++)
		if ((unsigned long)sf.f_type == magics[i].magic)
			snprintf(fs->type, sizeof(fs->type), "%s",
			    magics[i].name);
}

/*
 * A chroot (or a mount namespace) whose root is no mount point of its
 * own: mountinfo lists only the mounts inside the root, so neither the
 * file's mount nor the root's is there.  Then the type comes from statfs
 * and the options are unknown (tmpfs: huge= "unknown").  A read of
 * mountinfo cut short is told apart from that by the root's mount, which
 * a complete read lists wherever it is visible at all.
 */
static bool
mount_outside_root(const struct mount_ids *ids)
{
	return ids->known && !ids->file_seen && !ids->root_seen;
}

/* at: a name statx and statfs reach the file by; real: its path, for the
 * longest-prefix match where no mount ID is known. */
static int
mount_of(const char *at, const char *real, struct fs_info *fs, FILE *f)
{
	struct mount_ids ids;
	char line[8192];
	size_t best = 0;

	mount_ids(at, &ids);
	while (fgets(line, sizeof(line), f) != NULL)
		consider_mount(line, real, &best, &ids, fs);
	if (ferror(f))
		return errno ? errno : EIO;
	if (mount_outside_root(&ids)) {
		*fs = (struct fs_info){ 0 };
		type_from_magic(at, fs);
		snprintf(fs->mount_point, sizeof(fs->mount_point),
		    "(a mount outside this process's root)");
		return 0;
	}
	/* A read that matched no mount, not even "/", was cut short. */
	return best == 0 ? EIO : 0;
}

static int
identify(const char *at, const char *real, struct fs_info *fs,
    const char **failed)
{
	FILE *f;
	int e = 0;

	*failed = "/proc/self/mountinfo";
	/*
	 * Without mountinfo, tmpfs's huge= is unknown: an error, not "never";
	 * only where /proc is not mounted at all does the type come from
	 * statfs.
	 */
	if ((f = fopen("/proc/self/mountinfo", "re")) == NULL) {
		e = errno;
		if (e == ENOENT) {
			type_from_magic(at, fs);
			e = 0;
		}
	} else {
		e = mount_of(at, real, fs, f);
		fclose(f);
	}
	if (e == 0)
		huge_option(fs);
	errno = e;
	return e != 0 ? -1 : 0;
}

/*
 * The file system that holds path: its mount by mount ID, or by the
 * longest mount point that is a prefix of its real path (devices do not
 * do: btrfs gives each subvolume a device number of its own).  Returns -1
 * with errno if path cannot be resolved or /proc/self/mountinfo cannot be
 * read (*failed names which).
 */
int
fs_identify(const char *path, struct fs_info *fs, const char **failed)
{
	char *real = realpath(path, NULL);
	int rc, e;

	memset(fs, 0, sizeof(*fs));
	*failed = "realpath";
	if (real == NULL)
		return -1;
	rc = identify(real, real, fs, failed);
	e = errno;
	free(real);
	errno = e;
	return rc;
}

/*
 * The same for an open file, never looked up again by its name (a walked
 * file deeper than PATH_MAX has none realpath takes): statx and statfs
 * reach it through /proc/self/fd; its path is needed only by kernels
 * without mount IDs (before 5.8), and then only when the kernel can say it
 * (ENAMETOOLONG: it cannot; any other failure is an error).
 */
int
fs_identify_fd(int fd, struct fs_info *fs, const char **failed)
{
	char at[64], *real;
	int rc, e;

	memset(fs, 0, sizeof(*fs));
	snprintf(at, sizeof(at), "/proc/self/fd/%d", fd);
	*failed = "realpath";
	/* A path too long to say is the one failure that is no error. */
	if ((real = realpath(at, NULL)) == NULL && errno != ENAMETOOLONG)
		return -1;
	rc = identify(at, real != NULL ? real : at, fs, failed);
	e = errno;
	free(real);
	errno = e;
	return rc;
}

int
host_kernel(char *release, size_t len, struct kernel_version *v)
{
	struct utsname u;

	if (uname(&u) != 0)
		return -1;
	snprintf(release, len, "%s", u.release);
	return kernel_version_parse(u.release, v);
}

/*
 * The bracketed choice of a sysfs setting: "always [madvise] never";
 * "unknown" where the kernel has none (0).  -1 with errno where it is
 * there but could not be read.
 */
int
thp_setting(const char *name, char *buf, size_t len)
{
	char path[128], line[256], *open, *close;
	FILE *f;
	int e = 0;

	snprintf(path, sizeof(path), "/sys/kernel/mm/transparent_hugepage/%s",
	    name);
	snprintf(buf, len, "unknown");
	if ((f = fopen(path, "re")) == NULL)
		return errno == ENOENT ? 0 : -1;
	if (fgets(line, sizeof(line), f) != NULL &&
	    (open = strchr(line, '[')) != NULL &&
	    (close = strchr(open, ']')) != NULL)
		snprintf(buf, len, "%.*s", (int)(close - open - 1), open + 1);
	else	/* a read error, or cut short: every setting has a choice */
		e = ferror(f) && errno ? errno : EIO;
	fclose(f);
	errno = e;
	return e ? -1 : 0;
}

/* "# CONFIG_X is not set" */
static bool
not_set_line(const char *line, const char *option, size_t n)
{
	return strncmp(line, "# ", 2) == 0 && strncmp(line + 2, option, n) == 0 &&
	    strncmp(line + 2 + n, " is not set", 11) == 0;
}

/*
 * One kernel config option from a gzip'd or plain config file.  *found
 * false: no such file.  *error: it is there but could not be read
 * (EMFILE, EACCES, a read error), and the answer is unknown.  *absent:
 * read, and the option is not in it at all (this kernel has no such
 * option), where "# ... is not set" is a plain no.
 */
static enum tri
config_lookup(const char *file, const char *option, bool *found_file,
    int *error, bool *absent)
{
	char line[512];
	size_t n = strlen(option);
	enum tri t = TRI_NO;
	bool seen = false;
	gzFile gz;
	int zerr;

	errno = 0;
	gz = gzopen(file, "rb");	/* reads plain files as they are */
	*error = 0;
	*found_file = gz != NULL || errno != ENOENT;
	if (gz == NULL) {
		*error = errno == ENOENT ? 0 : errno != 0 ? errno : ENOMEM;
		return TRI_UNKNOWN;
	}
	while (!seen && gzgets(gz, line, sizeof(line)) != NULL)
		if (strncmp(line, option, n) == 0 && line[n] == '=') {
			t = line[n + 1] == 'y' || line[n + 1] == 'm' ? TRI_YES :
			    TRI_NO;
			seen = true;
		} else {
			seen = not_set_line(line, option, n);
		}
	(void)gzerror(gz, &zerr);
	if (zerr != Z_OK && zerr != Z_BUF_ERROR) {
		*error = zerr == Z_ERRNO && errno != 0 ? errno : EIO;
		t = TRI_UNKNOWN;
	}
	gzclose(gz);
	*absent = *error == 0 && !seen;
	return t;
}

#ifdef ELFTHP_TEST_HOOKS
/*
 * Test builds only: ELFTHP_TEST_CONFIG_ROOT=DIR looks for the config
 * under DIR (DIR/proc/config.gz, DIR/boot/config-RELEASE, ...), so that a
 * test never reads the host's own by accident.
 */
static const char *
config_root(void)
{
	const char *r = getenv("ELFTHP_TEST_CONFIG_ROOT");

	return r != NULL ? r : "";
}
#else
static const char *
config_root(void)
{
	return "";
}
#endif

/*
 * From the first config file there is of kernel_config_path()'s list
 * (/proc/config.gz, /boot/config-RELEASE, /usr/lib/modules/RELEASE/config,
 * ...); where names it.  *error is the errno of a config file that is
 * there but could not be read (where names it), else 0.  *absent: the
 * config was read and has no such option.
 */
enum tri
kernel_config(const char *option, const char *release, char *where,
    size_t len, int *error, bool *absent)
{
	char path[PATH_MAX];
	bool found = false;
	enum tri t = TRI_UNKNOWN;
	size_t i;

	*error = 0;
	*absent = false;
	for (i = 0; !found && kernel_config_path(config_root(), release, i,
	    path, sizeof(path)); i++)
		t = config_lookup(path, option, &found, error, absent);
	if (found)
		snprintf(where, len, "%s", path);
	else
		snprintf(where, len, "no config in /proc/config.gz, "
		    "/boot/config-%s or /usr/lib/modules/%s", release, release);
	return t;
}

const char *
host_glibc(void)
{
	return gnu_get_libc_version();
}

/* Read once per run: --warm asks for every file, from several threads. */
static struct kernel_version cached_version;
static enum tri cached_ro_thp = TRI_UNKNOWN;
static int cached_error;
static char cached_where[PATH_MAX];
static pthread_once_t cached_once = PTHREAD_ONCE_INIT;

static void
cache_host(void)
{
	char release[256];
	bool absent;

	if (host_kernel(release, sizeof(release), &cached_version) != 0) {
		cached_error = errno;
		snprintf(cached_where, sizeof(cached_where), "uname");
		return;
	}
	cached_ro_thp = kernel_config("CONFIG_READ_ONLY_THP_FOR_FS", release,
	    cached_where, sizeof(cached_where), &cached_error, &absent);
}

struct kernel_version
host_kernel_version(void)
{
	pthread_once(&cached_once, cache_host);
	return cached_version;
}

enum tri
host_ro_thp_for_fs(void)
{
	pthread_once(&cached_once, cache_host);
	return cached_ro_thp;
}

/* The errno of a failed read behind those two (*what names it), or 0. */
int
host_ro_thp_error(const char **what)
{
	pthread_once(&cached_once, cache_host);
	*what = cached_where;
	return cached_error;
}

/*
 * What the kernel is expected to do with huge folios on the file system
 * of path (fs_expect() for this host).  Returns -1 with errno if path
 * cannot be resolved; fs may be NULL.
 */
int
fs_expect_fd(int fd, struct fs_expect *e)
{
	struct fs_info fs;
	const char *failed;

	if (fs_identify_fd(fd, &fs, &failed) != 0)
		return -1;
	fs_expect(&fs, host_kernel_version(), host_ro_thp_for_fs(), e);
	return 0;
}

int
fs_expect_path(const char *path, struct fs_info *fs, struct fs_expect *e)
{
	struct fs_info local;
	const char *failed;

	if (fs == NULL)
		fs = &local;
	if (fs_identify(path, fs, &failed) != 0)
		return -1;
	fs_expect(fs, host_kernel_version(), host_ro_thp_for_fs(), e);
	return 0;
}
