/* SPDX-License-Identifier: BSD-2-Clause */
/* SPDX-FileCopyrightText: 2026 the elfthp-align authors */
/*
 * What a file system does with PMD-sized page-cache folios, and what that
 * means for the user: pure functions over facts gathered elsewhere
 * (fs_info.c reads them, host.c probes them).  The rules are those of the
 * docs/runtime.md, HUGE PAGES AT RUN TIME (measured on these machines, and read in
 * the kernel's mm/filemap.c and mm/readahead.c; docs/page-cache.md):
 *
 *   - a file-backed fault maps a PMD only where the page cache already
 *     holds a PMD-sized folio;
 *   - ext4 (6.16 and later) and XFS (5.18 and later) make such folios when
 *     one write() covers an aligned PMD range, and when readahead runs for
 *     a MADV_HUGEPAGE mapping;
 *   - btrfs caps folios at 256 KiB, squashfs has no large folios;
 *   - tmpfs follows its huge= option for writes, and MADV_COLLAPSE can
 *     collapse any tmpfs range;
 *   - MADV_COLLAPSE on other files needs CONFIG_READ_ONLY_THP_FOR_FS up to
 *     7.1; the option is gone in 7.2, where it works on a file system
 *     whose files may have PMD-sized folios (ext4, XFS; not btrfs): that
 *     is measured per file system (io/collapse_fs.c), never assumed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "elfthp_core.h"

/* "6.18.44-fc-v669" -> 6.18.  Returns -1 if it does not start "N.N". */
int
kernel_version_parse(const char *release, struct kernel_version *v)
{
	char *end;
	unsigned long major, minor;

	major = strtoul(release, &end, 10);
	if (end == release || *end != '.')
		return -1;
	release = end + 1;
	minor = strtoul(release, &end, 10);
	if (end == release || major > 1000 || minor > 1000)
		return -1;
	v->major = (unsigned)major;
	v->minor = (unsigned)minor;
	return 0;
}

static bool
kernel_at_least(struct kernel_version v, unsigned major, unsigned minor)
{
	return v.major > major || (v.major == major && v.minor >= minor);
}

static bool
is_tmpfs(const struct fs_info *fs)
{
	return strcmp(fs->type, "tmpfs") == 0 || strcmp(fs->type, "shmem") == 0;
}

/* opt is one of the comma-separated options of fs ("data=journal"). */
static bool
has_option(const struct fs_info *fs, const char *opt)
{
	size_t n = strlen(opt);
	const char *p;

	for (p = fs->options; (p = strstr(p, opt)) != NULL; p += n)
		if ((p == fs->options || p[-1] == ',') &&
		    (p[n] == ',' || p[n] == '\0'))
			return true;
	return false;
}

/*
 * MADV_COLLAPSE on a regular (not tmpfs) file, as far as the kernel's
 * version and config tell: up to 7.1 the option decides; from 7.2, which
 * has no such option, it depends on the file system (its largest folio
 * order), so only a measurement tells (collapse_fs.c): unknown.
 */
enum tri
collapse_on_files(struct kernel_version v, enum tri ro_thp_for_fs)
{
	if (ro_thp_for_fs == TRI_YES)
		return TRI_YES;
	if (kernel_at_least(v, 7, 2))
		return TRI_UNKNOWN;
	return ro_thp_for_fs == TRI_NO ? TRI_NO : TRI_UNKNOWN;
}

static void
expect_tmpfs(const struct fs_info *fs, struct kernel_version v,
    struct fs_expect *e)
{
	bool writes = strcmp(fs->huge, "always") == 0 ||
	    strcmp(fs->huge, "within_size") == 0;

	e->write = writes ? TRI_YES : TRI_NO;
	/* Its pages are the only copy: nothing to drop and read back. */
	e->readahead = TRI_NO;
	e->collapse = kernel_at_least(v, 6, 1) ? TRI_YES : TRI_NO;
	e->why = writes ? NULL : "tmpfs without huge=always or huge=within_size";
	/* Its mount is outside this process's root: huge= was not seen. */
	if (strcmp(fs->huge, "unknown") == 0) {
		e->write = TRI_UNKNOWN;
		e->why = NULL;
	}
}

/*
 * What would give files there huge folios, for this kernel: ext4 has them
 * from 6.16 only (make check-vm measured none on Debian's 6.1 and 6.12), so
 * before that a newer kernel helps as much as another file system does,
 * and on 6.16 or later "boot a newer kernel" would be no advice at all.
 */
static const char *
fs_advice(const struct fs_info *fs, struct kernel_version v)
{
	bool ext4_ok = kernel_at_least(v, 6, 16);

	if (is_tmpfs(fs))
		return "mount it with huge=always or huge=within_size";
	if (strcmp(fs->type, "ext4") == 0 && has_option(fs, "data=journal"))
		return ext4_ok ? "mount it without data=journal, or put the "
		    "files on XFS or a tmpfs mounted huge=always" :
		    "put the files on XFS or a tmpfs mounted huge=always (ext4 "
		    "keeps huge folios only from Linux 6.16, and not with "
		    "data=journal)";
	if (strcmp(fs->type, "ext4") == 0 && !ext4_ok)
		return "put the files on XFS or a tmpfs mounted huge=always, "
		    "or boot Linux 6.16 or later (a newer kernel, such as the "
		    "distribution's backports, where it is that new), where "
		    "ext4 keeps them";
	if (strcmp(fs->type, "xfs") == 0 && !kernel_at_least(v, 5, 18))
		return "put the files on a tmpfs mounted huge=always, or boot "
		    "Linux 5.18 or later, where XFS keeps them";
	return ext4_ok ? "put the files on ext4, XFS or a tmpfs mounted "
	    "huge=always" : "put the files on XFS or a tmpfs mounted "
	    "huge=always (ext4 only from Linux 6.16)";
}

void
fs_expect(const struct fs_info *fs, struct kernel_version v,
    enum tri ro_thp_for_fs, struct fs_expect *e)
{
	*e = (struct fs_expect){ .write = TRI_UNKNOWN,
		.readahead = TRI_UNKNOWN,
		.collapse = collapse_on_files(v, ro_thp_for_fs), .why = NULL };
	if (is_tmpfs(fs)) {
		expect_tmpfs(fs, v, e);
	} else if (strcmp(fs->type, "ext4") == 0) {
		e->write = e->readahead = kernel_at_least(v, 6, 16) ? TRI_YES :
		    TRI_NO;
		e->why = "ext4 has large folios only from Linux 6.16";
		/* Journalled data: ext4 turns large folios off for it. */
		if (has_option(fs, "data=journal")) {
			e->write = e->readahead = e->collapse = TRI_NO;
			e->why = "ext4 mounted data=journal keeps no large "
			    "folios";
		}
	} else if (strcmp(fs->type, "xfs") == 0) {
		e->write = e->readahead = kernel_at_least(v, 5, 18) ? TRI_YES :
		    TRI_NO;
		e->why = "XFS has large folios only from Linux 5.18";
	} else if (strcmp(fs->type, "btrfs") == 0) {
		e->write = e->readahead = e->collapse = TRI_NO;
		e->why = "btrfs caps page-cache folios at 256 KiB";
	} else if (strcmp(fs->type, "squashfs") == 0) {
		e->write = e->readahead = e->collapse = TRI_NO;
		e->why = "squashfs has no large folios";
	}
	if (e->write == TRI_YES && e->readahead != TRI_NO)
		e->why = NULL;
	e->advice = fs_advice(fs, v);
}

/* Files can be huge: from the probe where there was one, else expected. */
static enum tri
measured(bool probed, uint64_t pmd_bytes, enum tri expected)
{
	if (!probed)
		return expected;
	return pmd_bytes > 0 ? TRI_YES : TRI_NO;
}

enum fs_outcome
fs_outcome(const struct fs_expect *e, const struct fs_probe *p)
{
	enum tri write = measured(p->done, p->write_pmd, e->write);
	enum tri warm = measured(p->done, p->warm_pmd + p->collapse_pmd,
	    e->readahead == TRI_YES || e->collapse == TRI_YES ? TRI_YES :
	    e->readahead == TRI_NO && e->collapse == TRI_NO ? TRI_NO :
	    TRI_UNKNOWN);

	if (write == TRI_YES && warm == TRI_YES)
		return FS_HUGE_AFTER_WRITE_AND_WARM;
	if (write == TRI_YES)
		return FS_HUGE_AFTER_WRITE;
	if (warm == TRI_YES)
		return FS_HUGE_AFTER_WARM;
	if (write == TRI_UNKNOWN || warm == TRI_UNKNOWN)
		return FS_UNKNOWN;
	/* Measured none where the kernel should make them: memory. */
	if (p->done && (e->write == TRI_YES || e->readahead == TRI_YES))
		return FS_NO_HUGE_PAGE;
	return FS_NO_HUGE_FOLIOS;
}

const char *
fs_outcome_name(enum fs_outcome o)
{
	switch (o) {
	case FS_HUGE_AFTER_WRITE_AND_WARM: return "huge-after-rewrite-and-warm";
	case FS_HUGE_AFTER_WRITE: return "huge-after-rewrite";
	case FS_HUGE_AFTER_WARM: return "huge-after-warm";
	case FS_NO_HUGE_PAGE: return "no-huge-page";
	case FS_NO_HUGE_FOLIOS: return "no-huge-folios";
	case FS_UNKNOWN: break;
	}
	return "unknown";
}

/* The sentence --host prints for a path: what to do there. */
void
fs_outcome_sentence(char *buf, size_t len, enum fs_outcome o,
    const struct fs_info *fs, const struct fs_expect *e)
{
	bool tmp = is_tmpfs(fs);

	switch (o) {
	case FS_HUGE_AFTER_WRITE_AND_WARM:
		snprintf(buf, len, tmp ? "files written here get huge pages "
		    "at once and keep them while they stay in memory (tmpfs "
		    "loses them at reboot); after a cp onto it, run "
		    "elfthp-align --warm" : "rewritten files here get huge "
		    "text from the rewrite until the page cache is dropped; "
		    "after a reboot or a cp, run elfthp-align --warm; after "
		    "an upgrade, which replaces the file, run elfthp-align "
		    "on it again");
		break;
	case FS_HUGE_AFTER_WRITE:
		snprintf(buf, len, "rewritten files here get huge text from "
		    "the rewrite, but once the page cache is dropped nothing "
		    "brings it back: rewrite again, or copy the files to ext4 "
		    "or XFS");
		break;
	case FS_HUGE_AFTER_WARM:
		snprintf(buf, len, "%s leave small folios: run elfthp-align "
		    "--warm after each rewrite or copy%s",
		    tmp ? "writes to this tmpfs (no huge=always or "
		    "huge=within_size)" : "writes here",
		    tmp ? "" : ", and after a reboot");
		break;
	case FS_NO_HUGE_PAGE:
		snprintf(buf, len, "%s keeps huge folios, but the probe got no "
		    "huge page: memory may be too fragmented now (see "
		    "/proc/buddyinfo); try again later", fs->type);
		break;
	case FS_NO_HUGE_FOLIOS:
		snprintf(buf, len, "this file system keeps no huge folios (%s): "
		    "%s", e->why ? e->why : fs->type, e->advice);
		break;
	case FS_UNKNOWN:
		snprintf(buf, len, "unknown for %s: run elfthp-align --host on a "
		    "writable directory of this file system to probe it",
		    fs->type);
		break;
	}
}

const char *
tri_name(enum tri t)
{
	return t == TRI_YES ? "yes" : t == TRI_NO ? "no" : "unknown";
}

/*
 * The i-th place a kernel's config may be, under root ("" on a real
 * system): the running kernel's own (/proc/config.gz), then where Debian,
 * Fedora and Arch put it.  Debian 12 installs /boot/config-RELEASE;
 * Debian's 7.2 packages (linux-base-RELEASE) put it in
 * /usr/lib/modules/RELEASE/config, as Fedora and Arch do; a kernel built
 * here leaves build/.config.  false past the last.
 */
bool
kernel_config_path(const char *root, const char *release, size_t i,
    char *buf, size_t len)
{
	static const char *const dir[] = { "/boot/config-",
		"/usr/lib/modules/", "/lib/modules/", "/usr/lib/modules/",
		"/lib/modules/" };
	static const char *const file[] = { "", "/config", "/config",
		"/build/.config", "/build/.config" };

	if (i == 0)
		snprintf(buf, len, "%s/proc/config.gz", root);
	else if (i - 1 < sizeof(dir) / sizeof(dir[0]))
		snprintf(buf, len, "%s%s%s%s", root, dir[i - 1], release,
		    file[i - 1]);
	else
		return false;
	return true;
}

/* glibc 2.35 (BZ #28676) and later map a library at its largest p_align. */
bool
glibc_aligns_libraries(const char *version)
{
	struct kernel_version v;	/* the same "N.N" shape */

	return version != NULL && kernel_version_parse(version, &v) == 0 &&
	    (v.major > 2 || (v.major == 2 && v.minor >= 35));
}

/*
 * Where to put a file whose file system keeps no huge folios.  ext4 does
 * from Linux 6.16 only: on an older kernel "ext4" is no advice for a file
 * on ext4 (measured by make check-vm on Debian's 6.1 and 6.12); nor
 * is it mounted data=journal.
 */
const char *
fs_move_advice(const char *fs_type)
{
	if (strcmp(fs_type, "ext4") == 0)
		return "put it on XFS or a tmpfs mounted huge=always, or run "
		    "Linux 6.16 or later (and not data=journal)";
	return "put it on XFS, ext4 with Linux 6.16 or later, or a tmpfs "
	    "mounted huge=always";
}
