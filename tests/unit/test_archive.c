/* SPDX-License-Identifier: BSD-2-Clause */
/* SPDX-FileCopyrightText: 2026 the elfthp-align authors */
/*
 * Unit tests of archive.c on hand-built entries: which names are native
 * libraries in an APK and in an app bundle, which are refused (a NUL, an
 * absolute path, a .. component), the zip rule (stored at a multiple of
 * the page or not, compressed, in a bundle), an entry's verdict from the
 * two rules, and the archive's, the worst of its entries'.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <setjmp.h>
#include <cmocka.h>

#include "elfthp_core.h"

#define KIND(s, bundle) archive_entry_kind(s, sizeof(s) - 1, bundle)

static void
test_apk_native_libs(void **state)
{
	(void)state;
	assert_int_equal(KIND("lib/arm64-v8a/libfoo.so", false),
	    ENTRY_NATIVE_LIB);
	assert_int_equal(KIND("lib/x86_64/a.so", false), ENTRY_NATIVE_LIB);
	/* Not where the package manager looks, or not a .so. */
	assert_int_equal(KIND("lib/arm64-v8a/libfoo.so.1", false), ENTRY_OTHER);
	assert_int_equal(KIND("lib/arm64-v8a/sub/libfoo.so", false),
	    ENTRY_OTHER);
	assert_int_equal(KIND("lib/libfoo.so", false), ENTRY_OTHER);
	assert_int_equal(KIND("lib//libfoo.so", false), ENTRY_OTHER);
	assert_int_equal(KIND("lib/arm64-v8a/.so", false), ENTRY_OTHER);
	assert_int_equal(KIND("assets/lib/arm64-v8a/libfoo.so", false),
	    ENTRY_OTHER);
	assert_int_equal(KIND("classes.dex", false), ENTRY_OTHER);
	/* An APK's lib/ in a bundle's module is base/lib/. */
	assert_int_equal(KIND("base/lib/arm64-v8a/libfoo.so", false),
	    ENTRY_OTHER);
}

static void
test_bundle_native_libs(void **state)
{
	(void)state;
	assert_int_equal(KIND("base/lib/arm64-v8a/libfoo.so", true),
	    ENTRY_NATIVE_LIB);
	assert_int_equal(KIND("feature1/lib/x86_64/libbar.so", true),
	    ENTRY_NATIVE_LIB);
	assert_int_equal(KIND("lib/arm64-v8a/libfoo.so", true), ENTRY_OTHER);
	assert_int_equal(KIND("base/assets/lib/arm64-v8a/x.so", true),
	    ENTRY_OTHER);
	assert_int_equal(KIND("BundleConfig.pb", true), ENTRY_OTHER);
}

static void
test_unsafe_names(void **state)
{
	(void)state;
	assert_int_equal(KIND("lib/arm64-v8a/../../x.so", false),
	    ENTRY_BAD_NAME);
	assert_int_equal(KIND("../lib/arm64-v8a/x.so", false), ENTRY_BAD_NAME);
	assert_int_equal(KIND("lib/arm64-v8a/..", false), ENTRY_BAD_NAME);
	assert_int_equal(KIND("/lib/arm64-v8a/x.so", false), ENTRY_BAD_NAME);
	assert_int_equal(KIND("lib/arm64-v8a/x\0.so", false), ENTRY_BAD_NAME);
	assert_int_equal(KIND("", false), ENTRY_BAD_NAME);
	/* Dots that are not a .. component are names like any other. */
	assert_int_equal(KIND("lib/arm64-v8a/..x.so", false),
	    ENTRY_NATIVE_LIB);
	assert_int_equal(KIND("res/.../a", false), ENTRY_OTHER);
}

static void
test_bundle_detected_by_its_config(void **state)
{
	struct archive_entry e[2] = {
		{ .name = "base/manifest/AndroidManifest.xml", .name_len = 33 },
		{ .name = "BundleConfig.pb", .name_len = 15 },
	};

	(void)state;
	assert_true(archive_is_bundle(e, 2));
	assert_false(archive_is_bundle(e, 1));
	e[1] = (struct archive_entry){ .name = "base/BundleConfig.pb",
		.name_len = 20 };
	assert_false(archive_is_bundle(e, 2));
}

static void
test_zip_rule(void **state)
{
	struct archive_entry e = { .method = 0, .data_offset = 0x4000 };

	(void)state;
	assert_int_equal(archive_zip_verdict(&e, 16384, false), ZIP_ALIGNED);
	e.data_offset = 0x1000;
	assert_int_equal(archive_zip_verdict(&e, 16384, false), ZIP_UNALIGNED);
	assert_int_equal(archive_zip_verdict(&e, 4096, false), ZIP_ALIGNED);
	e.data_offset = 0x4000 + 62;	/* a local header's worth after */
	assert_int_equal(archive_zip_verdict(&e, 16384, false), ZIP_UNALIGNED);
	e.data_offset = 0;
	assert_int_equal(archive_zip_verdict(&e, 65536, false), ZIP_ALIGNED);
	/* Deflated: nothing to align, the installer extracts it. */
	e.method = 8;
	e.data_offset = 0x4000;
	assert_int_equal(archive_zip_verdict(&e, 16384, false), ZIP_COMPRESSED);
	/* In a bundle the APKs bundletool writes are what count. */
	e.method = 0;
	e.data_offset = 0x1001;
	assert_int_equal(archive_zip_verdict(&e, 16384, true), ZIP_BUNDLE);
	assert_string_equal(zip_verdict_name(ZIP_UNALIGNED), "unaligned");
	assert_string_equal(zip_verdict_name(ZIP_COMPRESSED), "compressed");
}

static void
test_entry_verdicts(void **state)
{
	(void)state;
	assert_int_equal(archive_entry_class(ZIP_ALIGNED, FILE_COMPATIBLE),
	    FILE_COMPATIBLE);
	/* Unaligned in the archive: zipalign fixes it. */
	assert_int_equal(archive_entry_class(ZIP_UNALIGNED, FILE_COMPATIBLE),
	    FILE_FIXABLE);
	assert_int_equal(archive_entry_class(ZIP_UNALIGNED, FILE_FIXABLE),
	    FILE_FIXABLE);
	/* What only a relink fixes comes first. */
	assert_int_equal(archive_entry_class(ZIP_UNALIGNED, FILE_NEEDS_RELINK),
	    FILE_NEEDS_RELINK);
	/* Compressed fails nothing; the ELF rule still does. */
	assert_int_equal(archive_entry_class(ZIP_COMPRESSED, FILE_COMPATIBLE),
	    FILE_COMPATIBLE);
	assert_int_equal(archive_entry_class(ZIP_COMPRESSED, FILE_FIXABLE),
	    FILE_FIXABLE);
	assert_int_equal(archive_entry_class(ZIP_BUNDLE, FILE_COMPATIBLE),
	    FILE_COMPATIBLE);
	/* An error stays one; a 32-bit ABI is not Android's 16 KiB question. */
	assert_int_equal(archive_entry_class(ZIP_ALIGNED, FILE_ERROR),
	    FILE_ERROR);
	assert_int_equal(archive_entry_class(ZIP_UNALIGNED,
	    FILE_NOT_APPLICABLE), FILE_NOT_APPLICABLE);
	assert_int_equal(archive_entry_class(ZIP_UNALIGNED, FILE_NOT_ELF),
	    FILE_NOT_ELF);
}

static void
test_archive_is_its_worst_entry(void **state)
{
	enum file_class c = FILE_COMPATIBLE;

	(void)state;
	c = archive_class_fold(c, FILE_NOT_ELF);
	assert_int_equal(c, FILE_COMPATIBLE);
	c = archive_class_fold(c, FILE_FIXABLE);
	assert_int_equal(c, FILE_FIXABLE);
	c = archive_class_fold(c, FILE_COMPATIBLE);
	assert_int_equal(c, FILE_FIXABLE);
	c = archive_class_fold(c, FILE_NEEDS_RELINK);
	assert_int_equal(c, FILE_NEEDS_RELINK);
	c = archive_class_fold(c, FILE_FIXABLE);
	assert_int_equal(c, FILE_NEEDS_RELINK);
	c = archive_class_fold(c, FILE_ERROR);
	assert_int_equal(c, FILE_ERROR);
	assert_int_equal(archive_class_fold(FILE_ERROR, FILE_NEEDS_RELINK),
	    FILE_ERROR);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_apk_native_libs),
		cmocka_unit_test(test_bundle_native_libs),
		cmocka_unit_test(test_unsafe_names),
		cmocka_unit_test(test_bundle_detected_by_its_config),
		cmocka_unit_test(test_zip_rule),
		cmocka_unit_test(test_entry_verdicts),
		cmocka_unit_test(test_archive_is_its_worst_entry),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
