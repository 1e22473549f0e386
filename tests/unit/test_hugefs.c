/* SPDX-License-Identifier: BSD-2-Clause */
/* SPDX-FileCopyrightText: 2026 the elfthp-align authors */
/*
 * Unit tests of the run-time core: hugefs.c (what a file system does with
 * PMD-sized folios, the --host outcome and its advice)
 * and windows.c (which file ranges --warm works on, and its verdict).
 * The facts are those of docs/runtime.md (HUGE PAGES AT RUN TIME); the
 * layouts are those linkers make (GNU ld: offset == vaddr; lld: text at
 * offset + 0x1000).
 *
 * Build: make tests/unit/test_hugefs (links only the pure modules).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <elf.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "elfthp_core.h"

#define M(x) ((uint64_t)(x) << 20)

static const struct kernel_version k6_18 = { 6, 18 }, k6_6 = { 6, 6 },
    k7_2 = { 7, 2 };

static struct fs_info
fs_of(const char *type, const char *huge)
{
	struct fs_info fs;

	memset(&fs, 0, sizeof(fs));
	snprintf(fs.type, sizeof(fs.type), "%s", type);
	snprintf(fs.huge, sizeof(fs.huge), "%s", huge);
	return fs;
}

static void
test_kernel_version(void **state)
{
	struct kernel_version v;

	(void)state;
	assert_int_equal(kernel_version_parse("6.18.44-fc-v669", &v), 0);
	assert_int_equal(v.major, 6);
	assert_int_equal(v.minor, 18);
	assert_int_equal(kernel_version_parse("7.2", &v), 0);
	assert_int_equal(v.minor, 2);
	assert_int_equal(kernel_version_parse("linux", &v), -1);
	assert_int_equal(kernel_version_parse("6", &v), -1);
	assert_true(glibc_aligns_libraries("2.35"));
	assert_true(glibc_aligns_libraries("2.36"));
	assert_false(glibc_aligns_libraries("2.31"));
	assert_false(glibc_aligns_libraries(NULL));
}

/* ext4 has large folios from 6.16 only; XFS much longer; btrfs never. */
static void
test_expectations_by_type(void **state)
{
	struct fs_info ext4 = fs_of("ext4", ""), xfs = fs_of("xfs", ""),
	    btrfs = fs_of("btrfs", ""), sq = fs_of("squashfs", ""),
	    other = fs_of("overlay", ""),
	    journal = fs_of("ext4", ""), ordered = fs_of("ext4", "");
	struct fs_expect e;

	(void)state;
	snprintf(journal.options, sizeof(journal.options), "%s",
	    "rw,relatime,rw,nodelalloc,data=journal");
	snprintf(ordered.options, sizeof(ordered.options), "%s",
	    "rw,xdata=journal,data=ordered");
	fs_expect(&ext4, k6_18, TRI_NO, &e);
	assert_int_equal(e.write, TRI_YES);
	assert_int_equal(e.readahead, TRI_YES);
	assert_int_equal(e.collapse, TRI_NO);
	assert_null(e.why);
	fs_expect(&ext4, k6_6, TRI_NO, &e);
	assert_int_equal(e.write, TRI_NO);
	assert_non_null(strstr(e.why, "6.16"));
	/* Journalled data turns ext4's large folios off; "data=ordered" and
	 * an option that only ends in it do not. */
	fs_expect(&journal, k7_2, TRI_YES, &e);
	assert_int_equal(e.write, TRI_NO);
	assert_int_equal(e.readahead, TRI_NO);
	assert_int_equal(e.collapse, TRI_NO);
	assert_non_null(strstr(e.why, "data=journal"));
	fs_expect(&ordered, k6_18, TRI_NO, &e);
	assert_int_equal(e.readahead, TRI_YES);
	assert_null(e.why);
	fs_expect(&xfs, k6_6, TRI_UNKNOWN, &e);
	assert_int_equal(e.write, TRI_YES);
	assert_int_equal(e.collapse, TRI_UNKNOWN);
	fs_expect(&btrfs, k7_2, TRI_YES, &e);
	assert_int_equal(e.write, TRI_NO);
	assert_int_equal(e.collapse, TRI_NO);
	assert_non_null(strstr(e.why, "256 KiB"));
	fs_expect(&sq, k6_18, TRI_NO, &e);
	assert_int_equal(e.readahead, TRI_NO);
	fs_expect(&other, k6_18, TRI_NO, &e);
	assert_int_equal(e.write, TRI_UNKNOWN);
}

/*
 * MADV_COLLAPSE on files: the config option through 7.1; from 7.2 (no
 * such option) only a measurement of the file system tells: unknown, never
 * "yes" from the version alone, and btrfs stays "no".
 */
static void
test_collapse_on_files(void **state)
{
	struct fs_info ext4 = fs_of("ext4", "");
	struct fs_expect e;

	(void)state;
	assert_int_equal(collapse_on_files(k6_18, TRI_NO), TRI_NO);
	assert_int_equal(collapse_on_files(k6_18, TRI_YES), TRI_YES);
	assert_int_equal(collapse_on_files(k6_18, TRI_UNKNOWN), TRI_UNKNOWN);
	assert_int_equal(collapse_on_files(k7_2, TRI_NO), TRI_UNKNOWN);
	assert_int_equal(collapse_on_files(k7_2, TRI_UNKNOWN), TRI_UNKNOWN);
	fs_expect(&ext4, k7_2, TRI_NO, &e);
	assert_int_equal(e.collapse, TRI_UNKNOWN);
	ext4 = fs_of("btrfs", "");
	fs_expect(&ext4, k7_2, TRI_NO, &e);
	assert_int_equal(e.collapse, TRI_NO);
}

/* Every place Debian, Fedora and Arch put the config, in order, under root. */
static void
test_kernel_config_path(void **state)
{
	static const char *const want[] = { "/r/proc/config.gz",
		"/r/boot/config-7.2.13", "/r/usr/lib/modules/7.2.13/config",
		"/r/lib/modules/7.2.13/config",
		"/r/usr/lib/modules/7.2.13/build/.config",
		"/r/lib/modules/7.2.13/build/.config" };
	char buf[128];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		assert_true(kernel_config_path("/r", "7.2.13", i, buf,
		    sizeof(buf)));
		assert_string_equal(buf, want[i]);
	}
	assert_false(kernel_config_path("/r", "7.2.13", i, buf, sizeof(buf)));
}

/* tmpfs: writes follow huge=, and collapse works whatever it says. */
static void
test_tmpfs(void **state)
{
	struct fs_info always = fs_of("tmpfs", "always"),
	    within = fs_of("tmpfs", "within_size"),
	    never = fs_of("tmpfs", "never"), advise = fs_of("tmpfs", "advise"),
	    unknown;
	struct fs_expect e;

	(void)state;
	fs_expect(&always, k6_18, TRI_NO, &e);
	assert_int_equal(e.write, TRI_YES);
	assert_int_equal(e.readahead, TRI_NO);
	assert_int_equal(e.collapse, TRI_YES);
	fs_expect(&within, k6_18, TRI_NO, &e);
	assert_int_equal(e.write, TRI_YES);
	fs_expect(&never, k6_18, TRI_NO, &e);
	assert_int_equal(e.write, TRI_NO);
	assert_int_equal(e.collapse, TRI_YES);
	fs_expect(&advise, k6_18, TRI_NO, &e);
	assert_int_equal(e.write, TRI_NO);
	/* A mount outside this process's root: huge= unseen, no guess. */
	unknown = fs_of("tmpfs", "unknown");
	fs_expect(&unknown, k6_18, TRI_NO, &e);
	assert_int_equal(e.write, TRI_UNKNOWN);
	assert_null(e.why);
}

static enum fs_outcome
outcome(const char *type, const char *huge, struct kernel_version v,
    const struct fs_probe *p)
{
	struct fs_info fs = fs_of(type, huge);
	struct fs_expect e;

	fs_expect(&fs, v, TRI_NO, &e);
	return fs_outcome(&e, p);
}

/* The probe decides where there was one; the type where there was not. */
static void
test_outcomes(void **state)
{
	struct fs_probe none = { .done = false, .error = EROFS };
	struct fs_probe huge = { .done = true, .size = M(4), .write_pmd = M(4),
		.warm_pmd = M(4), .collapse_error = EINVAL };
	struct fs_probe small = { .done = true, .size = M(4),
		.collapse_error = EINVAL };
	struct fs_probe warm_only = { .done = true, .size = M(4),
		.collapse_pmd = M(4) };

	(void)state;
	assert_int_equal(outcome("ext4", "", k6_18, &huge),
	    FS_HUGE_AFTER_WRITE_AND_WARM);
	assert_int_equal(outcome("ext4", "", k6_18, &none),
	    FS_HUGE_AFTER_WRITE_AND_WARM);
	assert_int_equal(outcome("ext4", "", k6_6, &none), FS_NO_HUGE_FOLIOS);
	assert_int_equal(outcome("btrfs", "", k6_18, &small),
	    FS_NO_HUGE_FOLIOS);
	assert_int_equal(outcome("btrfs", "", k6_18, &none), FS_NO_HUGE_FOLIOS);
	/* Should have worked: the machine, not the file system. */
	assert_int_equal(outcome("xfs", "", k6_18, &small), FS_NO_HUGE_PAGE);
	assert_int_equal(outcome("tmpfs", "never", k6_18, &warm_only),
	    FS_HUGE_AFTER_WARM);
	assert_int_equal(outcome("tmpfs", "never", k6_18, &none),
	    FS_HUGE_AFTER_WARM);
	assert_int_equal(outcome("overlay", "", k6_18, &none), FS_UNKNOWN);
	assert_int_equal(outcome("overlay", "", k6_18, &huge),
	    FS_HUGE_AFTER_WRITE_AND_WARM);
}

static void
test_sentences(void **state)
{
	struct fs_info ext4 = fs_of("ext4", ""), btrfs = fs_of("btrfs", "");
	struct fs_expect e;
	char buf[384];

	(void)state;
	fs_expect(&ext4, k6_18, TRI_NO, &e);
	fs_outcome_sentence(buf, sizeof(buf), FS_HUGE_AFTER_WRITE_AND_WARM,
	    &ext4, &e);
	assert_non_null(strstr(buf, "after a reboot"));
	assert_non_null(strstr(buf, "--warm"));
	fs_expect(&btrfs, k6_18, TRI_NO, &e);
	fs_outcome_sentence(buf, sizeof(buf), FS_NO_HUGE_FOLIOS, &btrfs, &e);
	assert_non_null(strstr(buf, "keeps no huge folios"));
	assert_non_null(strstr(buf, "btrfs"));
	assert_string_equal(fs_outcome_name(FS_NO_HUGE_FOLIOS), "no-huge-folios");
}

/*
 * --host on a file system without huge folios says what would give them,
 * for the kernel it runs: on ext4 before 6.16, XFS, a tmpfs or a newer
 * kernel (not only that nothing will); on 6.16 or later no "newer kernel".
 */
static void
host_sentence(char *buf, size_t len, struct fs_info *fs,
    struct kernel_version v)
{
	struct fs_expect e;

	fs_expect(fs, v, TRI_NO, &e);
	fs_outcome_sentence(buf, len, FS_NO_HUGE_FOLIOS, fs, &e);
}

static void
test_advice(void **state)
{
	struct fs_info ext4 = fs_of("ext4", ""), btrfs = fs_of("btrfs", "");
	struct fs_info journal = fs_of("ext4", "");
	char buf[512];

	(void)state;
	snprintf(journal.options, sizeof(journal.options), "rw,data=journal");
	host_sentence(buf, sizeof(buf), &ext4, k6_6);
	assert_non_null(strstr(buf, "ext4 has large folios only from Linux 6.16"));
	assert_non_null(strstr(buf, "put the files on XFS or a tmpfs mounted "
	    "huge=always"));
	assert_non_null(strstr(buf, "boot Linux 6.16 or later"));
	assert_non_null(strstr(buf, "backports"));
	host_sentence(buf, sizeof(buf), &journal, k6_18);
	assert_non_null(strstr(buf, "mount it without data=journal"));
	assert_null(strstr(buf, "boot"));
	host_sentence(buf, sizeof(buf), &journal, k6_6);
	assert_non_null(strstr(buf, "put the files on XFS"));
	host_sentence(buf, sizeof(buf), &btrfs, k6_18);
	assert_non_null(strstr(buf, "put the files on ext4, XFS or a tmpfs"));
	host_sentence(buf, sizeof(buf), &btrfs, k6_6);
	assert_non_null(strstr(buf, "(ext4 only from Linux 6.16)"));
}

/* A file: headers and n PT_LOADs, as readelf would show them. */
struct layout {
	struct elf_layout L;
	struct seg_desc segs[8];
};

static void
load(struct layout *f, uint32_t flags, uint64_t off, uint64_t vaddr,
    uint64_t filesz)
{
	f->segs[f->L.nsegs++] = (struct seg_desc){ .type = PT_LOAD,
		.flags = flags, .offset = off, .vaddr = vaddr, .paddr = vaddr,
		.filesz = filesz, .memsz = filesz, .align = 0x1000 };
}

static void
new_layout(struct layout *f, uint16_t type, uint64_t size)
{
	memset(f, 0, sizeof(*f));
	f->L.type = type;
	f->L.file_size = size;
	f->L.segs = f->segs;
}

/* lld: R at 0 (2 windows), R E at offset + 0x1000 (incongruent: 3). */
static void
test_warm_plan_lld(void **state)
{
	struct layout f;
	struct warm_plan w;

	(void)state;
	new_layout(&f, ET_DYN, 0xc04800);
	load(&f, PF_R, 0, 0, 0x402914);
	load(&f, PF_R | PF_X, 0x403920, 0x404920, 0x800ca0);
	load(&f, PF_R | PF_W, 0xc045c0, 0xc065c0, 0x1e0);
	assert_int_equal(warm_plan_build(&f.L, M(2), false, &w), 0);
	assert_int_equal(w.nranges, 6);
	assert_int_equal(w.warmable, 2);
	assert_true(warm_range(&w, 0));
	assert_true(warm_range(&w, 1));
	assert_false(warm_range(&w, 2));
	assert_int_equal(w.misaligned, 3);
	assert_false(warm_range(&w, 99));
	warm_plan_free(&w);
}

/* Overlapping segments name a range once; writable ones never. */
static void
test_warm_plan_overlap(void **state)
{
	struct layout f;
	struct warm_plan w;

	(void)state;
	new_layout(&f, ET_EXEC, M(9));
	load(&f, PF_R | PF_X, 0, 0x400000, M(8));
	load(&f, PF_R, M(2), 0x600000, M(6));
	load(&f, PF_R | PF_W, M(4), 0xa00000, M(4));
	assert_int_equal(warm_plan_build(&f.L, M(2), true, &w), 0);
	assert_int_equal(w.warmable, 4);
	assert_int_equal(w.misaligned, 0);
	warm_plan_free(&w);
}

static void
test_warm_verdict(void **state)
{
	struct warm_result r = { .windows = 5, .huge_before = 2, .made_huge = 3,
		.base_aligned = true };

	(void)state;
	assert_int_equal(warm_verdict(&r), FILE_READY);
	r.made_huge = 2;
	r.not_huge[WARM_BUSY] = 1;
	assert_int_equal(warm_not_huge(&r), 1);
	assert_int_equal(warm_verdict(&r), FILE_NOT_HUGE);
	r.not_huge[WARM_NOT_ALIGNED] = 1;
	assert_int_equal(warm_verdict(&r), FILE_NEEDS_REWRITE);
	r = (struct warm_result){ .windows = 2, .made_huge = 2,
		.base_aligned = false };
	assert_int_equal(warm_verdict(&r), FILE_NEEDS_REWRITE);
	/* No window: nothing to warm, never "all huge". */
	r = (struct warm_result){ .windows = 0 };
	assert_int_equal(warm_verdict(&r), FILE_NO_WINDOWS);
	r.look_only = true;
	assert_int_equal(warm_verdict(&r), FILE_NO_WINDOWS);
	/* A look: 0 of 4 huge now, 4 it would make huge: not huge yet. */
	r = (struct warm_result){ .windows = 4, .made_huge = 4,
		.base_aligned = true, .look_only = true };
	assert_int_equal(warm_verdict(&r), FILE_NOT_HUGE);
	r.huge_before = 4;
	r.made_huge = 0;
	assert_int_equal(warm_verdict(&r), FILE_READY);
	/* A look the kernel refused (not a writer): unknown, never ready or
	 * not huge; what the layout alone says still stands. */
	r = (struct warm_result){ .windows = 4, .base_aligned = true,
		.look_only = true, .cache_refused = true };
	assert_int_equal(warm_verdict(&r), FILE_CACHE_UNKNOWN);
	r.base_aligned = false;
	assert_int_equal(warm_verdict(&r), FILE_NEEDS_REWRITE);
	r = (struct warm_result){ .windows = 0, .cache_refused = true };
	assert_int_equal(warm_verdict(&r), FILE_NO_WINDOWS);
}

/*
 * The rewrite's page-cache step fails the run (1) only where a window
 * that could be huge here is not: a process pins it, or no huge page.
 */
static void
test_settle_verdict(void **state)
{
	struct warm_result r = { .windows = 4, .huge_before = 4,
		.base_aligned = true };

	(void)state;
	assert_int_equal(settle_verdict(&r), FILE_DONE);
	r.not_huge[WARM_NO_HUGE_FOLIOS] = 4;	/* btrfs: said, not failed */
	assert_int_equal(settle_verdict(&r), FILE_DONE);
	r.not_huge[WARM_NOT_ALIGNED] = 2;	/* pinned: only a relink */
	assert_int_equal(settle_verdict(&r), FILE_DONE);
	r.not_huge[WARM_BUSY] = 1;
	assert_int_equal(settle_verdict(&r), FILE_NOT_HUGE);
	r.not_huge[WARM_BUSY] = 0;
	r.not_huge[WARM_NO_HUGE_PAGE] = 1;
	assert_int_equal(settle_verdict(&r), FILE_NOT_HUGE);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kernel_version),
		cmocka_unit_test(test_expectations_by_type),
		cmocka_unit_test(test_collapse_on_files),
		cmocka_unit_test(test_kernel_config_path),
		cmocka_unit_test(test_tmpfs),
		cmocka_unit_test(test_outcomes),
		cmocka_unit_test(test_sentences),
		cmocka_unit_test(test_advice),
		cmocka_unit_test(test_warm_plan_lld),
		cmocka_unit_test(test_warm_plan_overlap),
		cmocka_unit_test(test_settle_verdict),
		cmocka_unit_test(test_warm_verdict),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
