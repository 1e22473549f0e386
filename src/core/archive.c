/* SPDX-License-Identifier: BSD-2-Clause */
/* SPDX-FileCopyrightText: 2026 the elfthp-align authors */
/*
 * The native libraries of an APK, an app bundle or a zip: which entries
 * are ones, and Android's zip rule for them.  Pure functions over what
 * io/zip_read.c read from the central directory and the local headers.
 *
 * Android maps a library that is stored (not compressed) straight out of
 * the APK (extractNativeLibs=false, the default since Android Gradle
 * Plugin 3.6 for minSdk 23 and up), so its data must start at a multiple
 * of the page in the file, as every segment's offset must: Play's 16 KiB
 * rule (zipalign -P 16).  A compressed library cannot be mapped from the
 * APK at all: the installer extracts it (extractNativeLibs=true), and only
 * the ELF rule then matters; it is reported, and fails nothing, because
 * which of the two the app asks for is in its binary manifest, which this
 * tool does not read.  In an app bundle bundletool writes the APKs and
 * aligns what it stores, so the zip rule is not the bundle's to keep.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "elfthp_core.h"

/* Does [p, p + len) hold a NUL, begin with '/' or have a ".." component? */
static bool
name_unsafe(const char *p, size_t len)
{
	size_t i, start = 0;

	if (len == 0 || p[0] == '/')
		return true;
	for (i = 0; i <= len; i++) {
		if (i < len && p[i] == '\0')
			return true;
		if (i < len && p[i] != '/')
			continue;
		if (i - start == 2 && p[start] == '.' && p[start + 1] == '.')
			return true;
		start = i + 1;
	}
	return false;
}

/*
 * Is [p, p + len) "lib/ABI/NAME.so", with ABI and NAME not empty and no
 * further '/'?
 */
static bool
lib_path(const char *p, size_t len)
{
	size_t i, abi_end = 0;

	if (len < 4 || p[0] != 'l' || p[1] != 'i' || p[2] != 'b' ||
	    p[3] != '/')
		return false;
	for (i = 4; i < len; i++) {
		if (p[i] != '/')
			continue;
		if (abi_end != 0)
			return false;
		abi_end = i;
	}
	/* An ABI of one byte at least, then NAME.so with NAME not empty. */
	return abi_end > 4 && len - abi_end - 1 > 3 && p[len - 3] == '.' &&
	    p[len - 2] == 's' && p[len - 1] == 'o';
}

/*
 * What an entry of that name is.  In an APK (or a zip) a native library
 * is lib/ABI/NAME.so, as the package manager looks for it; in an app
 * bundle it is MODULE/lib/ABI/NAME.so (base/lib/arm64-v8a/libx.so).  A
 * name that could step out of the directory it is extracted to, or that
 * hides bytes behind a NUL, is refused whatever it names.
 */
enum entry_kind
archive_entry_kind(const char *name, size_t len, bool bundle)
{
	size_t i;

	if (name_unsafe(name, len))
		return ENTRY_BAD_NAME;
	if (!bundle)
		return lib_path(name, len) ? ENTRY_NATIVE_LIB : ENTRY_OTHER;
	for (i = 0; i < len && name[i] != '/'; i++)
		;
	if (i == 0 || i == len)
		return ENTRY_OTHER;
	return lib_path(name + i + 1, len - i - 1) ? ENTRY_NATIVE_LIB :
	    ENTRY_OTHER;
}

/* An app bundle has its BundleConfig.pb at the root (bundletool's format). */
bool
archive_is_bundle(const struct archive_entry *e, size_t count)
{
	static const char config[] = "BundleConfig.pb";
	size_t i;

	for (i = 0; i < count; i++)
		if (e[i].name_len == sizeof(config) - 1 &&
		    memcmp(e[i].name, config, sizeof(config) - 1) == 0)
			return true;
	return false;
}

/* The zip rule for a native library, for pages of `page` bytes. */
enum zip_verdict
archive_zip_verdict(const struct archive_entry *e, uint64_t page, bool bundle)
{
	if (bundle)
		return ZIP_BUNDLE;
	if (e->method != 0)
		return ZIP_COMPRESSED;
	return e->data_offset % page == 0 ? ZIP_ALIGNED : ZIP_UNALIGNED;
}

/*
 * One entry's verdict, from the ELF rule's (compat.c, or how its read
 * ended) and the zip rule's: what only a relink fixes first, then what a
 * rewrite or a realignment (zipalign) fixes.  A compressed library fails
 * nothing (see above).  A library that is not ELF, or not for a machine
 * with such pages (a 32-bit ABI), keeps its own status: Android's rule
 * is for arm64 and x86_64 only.
 */
enum file_class
archive_entry_class(enum zip_verdict zip, enum file_class elf)
{
	if (elf == FILE_ERROR || elf == FILE_NEEDS_RELINK ||
	    elf == FILE_NOT_ELF || elf == FILE_NOT_APPLICABLE)
		return elf;
	if (zip == ZIP_UNALIGNED)
		return FILE_FIXABLE;
	return elf;
}

/* Rank of a class in an archive's verdict: the worst entry's. */
static int
rank(enum file_class c)
{
	switch (c) {
	case FILE_ERROR:
		return 3;
	case FILE_NEEDS_RELINK:
		return 2;
	case FILE_FIXABLE:
		return 1;
	default:
		return 0;
	}
}

/*
 * The archive's verdict so far, with one more entry's: an error, else a
 * relink, else something fixable, else compatible (an archive with no
 * native library loads on any page size).
 */
enum file_class
archive_class_fold(enum file_class archive, enum file_class entry)
{
	return rank(entry) > rank(archive) ? entry : archive;
}

const char *
zip_verdict_name(enum zip_verdict v)
{
	switch (v) {
	case ZIP_ALIGNED:
		return "aligned";
	case ZIP_UNALIGNED:
		return "unaligned";
	case ZIP_COMPRESSED:
		return "compressed";
	case ZIP_BUNDLE:
		return "bundle";
	}
	return "?";
}
