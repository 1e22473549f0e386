/* SPDX-License-Identifier: BSD-2-Clause */
/* SPDX-FileCopyrightText: 2026 the elfthp-align authors */
/*
 * --check --compat on an APK, an app bundle or a zip: every native
 * library in it (core/archive.c says which entries those are) through the
 * ELF rule that files get (the door, then compat.c) and Android's zip
 * rule (archive.c), one verdict per entry, text or JSON; the archive's is
 * its worst entry's, and the runner counts it as one file.  The entries
 * are read by io/zip_read.c; only the wording is here.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "elfthp_cli.h"

#define MAX_FINDINGS 64

/* One native library's verdicts. */
struct entry_result {
	const struct archive_entry *e;
	char *shown;			/* ARCHIVE!/ENTRY, for messages */
	struct elf_layout L;
	enum file_class elf;		/* the ELF rule's, or how its read ended */
	enum zip_verdict zip;
	enum file_class cls;		/* the two together */
	struct finding f[MAX_FINDINGS];
	size_t total;			/* findings, of which MAX_FINDINGS kept */
	char msg[512];
};

static bool
ends_with(const char *s, const char *tail)
{
	size_t n = strlen(s), t = strlen(tail);

	return n >= t && strcmp(s + n - t, tail) == 0;
}

/*
 * Is this an archive to look inside?  Named by the user: anything that
 * starts as a zip does, and a name ending in .apk, .aab or .zip that
 * does not is a damaged archive (an error, not "not ELF").  Found by a
 * walk: only an .apk or .aab that starts as a zip, so that the jars and
 * wheels of a tree stay what they were, files that are not ELF.
 */
bool
archive_named(const char *name, int fd, bool walked)
{
	bool suffix = ends_with(name, ".apk") || ends_with(name, ".aab");

	if (walked)
		return suffix && zip_magic(fd);
	return suffix || ends_with(name, ".zip") || zip_magic(fd);
}

/* The ELF rule for the entry's bytes: read, the door, then compat.c. */
static void
elf_rule(struct zip_listing *zl, size_t i, uint64_t page,
    struct entry_result *r)
{
	enum read_status st;
	struct plan_error perr;

	st = zip_entry_layout(zl, i, &r->L, r->msg, sizeof(r->msg));
	if (st != READ_OK) {
		r->elf = st == READ_NOT_ELF ? FILE_NOT_ELF :
		    st == READ_NOT_APPLICABLE ? FILE_NOT_APPLICABLE : FILE_ERROR;
		return;
	}
	if (layout_validate(&r->L, &perr) != 0) {
		plan_strerror(&perr, r->msg, sizeof(r->msg));
		r->elf = FILE_ERROR;
	} else if (!machine_runs_page(r->L.machine, page)) {
		snprintf(r->msg, sizeof(r->msg), "%s: no kernel of this "
		    "machine runs pages of %" PRIu64 " bytes (Android's rule is "
		    "for arm64 and x86_64)", machine_name(r->L.machine), page);
		r->elf = FILE_NOT_APPLICABLE;
	} else if (compat_report(&r->L, page, r->f, MAX_FINDINGS, &r->total,
	    &r->elf) != 0) {
		snprintf(r->msg, sizeof(r->msg), "out of memory");
		r->elf = FILE_ERROR;
	}
}

/* The ELF rule's words for the text line. */
static void
elf_words(char *buf, size_t len, const struct entry_result *r,
    const char *size, uint64_t page)
{
	char msg[320] = "";

	if (r->total > 0)
		finding_message(msg, sizeof(msg), &r->L, &r->f[0]);
	if (r->elf == FILE_COMPATIBLE)
		snprintf(buf, len, "loads on %s pages", size);
	else if (r->elf == FILE_FIXABLE)
		snprintf(buf, len, "fixable for %s pages (elfthp-align "
		    "--page-size %s on the library, before packaging): %s%s",
		    size, page == 4096 ? "4k" : page == 16384 ? "16k" : "64k",
		    msg, r->total > 1 ? ", and more (-v)" : "");
	else if (r->elf == FILE_NEEDS_RELINK)
		snprintf(buf, len, "needs a relink for %s pages: %s", size, msg);
	else
		snprintf(buf, len, "%s", r->msg);
}

/* The zip rule's words for the text line. */
static void
zip_words(char *buf, size_t len, const struct entry_result *r,
    const char *size, uint64_t page)
{
	unsigned long long off = r->e->data_offset;

	switch (r->zip) {
	case ZIP_ALIGNED:
		snprintf(buf, len, "stored at 0x%llx, aligned to the %s page",
		    off, size);
		break;
	case ZIP_UNALIGNED:
		snprintf(buf, len, "stored at 0x%llx, not aligned to the %s "
		    "page: Android cannot map it from the APK (zipalign -P %u "
		    "-f 4 realigns it)", off, size, (unsigned)(page >> 10));
		break;
	case ZIP_COMPRESSED:
		snprintf(buf, len, "compressed: the installer must extract it "
		    "(extractNativeLibs=true); to be mapped from the APK it must "
		    "be stored, page-aligned");
		break;
	case ZIP_BUNDLE:
		snprintf(buf, len, "in an app bundle (bundletool aligns what "
		    "it stores in the APKs it writes)");
		break;
	}
}

static void
entry_text(FILE *out, FILE *err, const struct options *o,
    const struct entry_result *r, uint64_t page)
{
	char size[16], elf[640], zip[200], msg[320];
	size_t i;

	if (r->cls == FILE_ERROR) {
		diag(err, r->shown, "%s", r->msg);
		return;
	}
	if (o->quiet && r->cls == FILE_COMPATIBLE)
		return;
	format_size(size, sizeof(size), page);
	elf_words(elf, sizeof(elf), r, size, page);
	zip_words(zip, sizeof(zip), r, size, page);
	fprintf(out, "%s: %s; %s\n", r->shown, elf, zip);
	for (i = 1; o->verbose > 0 && i < r->total && i < MAX_FINDINGS; i++) {
		finding_message(msg, sizeof(msg), &r->L, &r->f[i]);
		fprintf(out, "%s:   %s\n", r->shown, msg);
	}
}

static void
entry_json(FILE *out, const struct options *o, const char *archive,
    const struct entry_result *r, uint64_t page)
{
	struct json j;
	bool has_elf = r->elf == FILE_COMPATIBLE || r->elf == FILE_FIXABLE ||
	    r->elf == FILE_NEEDS_RELINK;

	json_begin(&j, out, mode_name(o));
	json_str(&j, "file", archive);
	json_str(&j, "entry", r->e->name);
	json_str(&j, "status", class_text(r->cls));
	json_str(&j, "zip", zip_verdict_name(r->zip));
	json_u64(&j, "data_offset", r->e->data_offset);
	json_u64(&j, "page_bytes", page);
	if (has_elf) {
		findings_json(&j, o, r->e->name, &r->L, r->f,
		    r->total < MAX_FINDINGS ? r->total : MAX_FINDINGS);
		json_u64(&j, "findings_total", r->total);
	} else {
		json_str(&j, "message", r->msg);
	}
	json_end(&j);
}

/* ARCHIVE!/ENTRY, as Android's linker names a library in an APK. */
static char *
shown_name(const char *archive, const char *entry)
{
	size_t len = strlen(archive) + strlen(entry) + 3;
	char *s = malloc(len);

	if (s != NULL)
		snprintf(s, len, "%s!/%s", archive, entry);
	return s;
}

/* One native library, judged and reported: its verdict. */
static enum file_class
check_entry(struct zip_listing *zl, size_t i, const char *archive,
    const struct options *o, FILE *out, FILE *err)
{
	struct entry_result *r = calloc(1, sizeof(*r));
	uint64_t page = o->page_size;
	enum file_class cls;

	if (r == NULL || (r->shown = shown_name(archive,
	    zl->entries[i].name)) == NULL) {
		free(r);
		diag(err, archive, "out of memory");
		return FILE_ERROR;
	}
	r->e = &zl->entries[i];
	if (archive_entry_kind(r->e->name, r->e->name_len, zl->bundle) ==
	    ENTRY_BAD_NAME) {
		snprintf(r->msg, sizeof(r->msg), "entry %zu: an unsafe name (a "
		    "NUL byte, an absolute path or a .. component)", i);
		r->elf = FILE_ERROR;
	} else {
		elf_rule(zl, i, page, r);
	}
	r->zip = archive_zip_verdict(r->e, page, zl->bundle);
	r->cls = cls = archive_entry_class(r->zip, r->elf);
	if (o->format == FORMAT_JSON)
		entry_json(out, o, archive, r, page);
	if (o->format == FORMAT_JSON && cls == FILE_ERROR)
		diag(err, r->shown, "%s", r->msg);
	else if (o->format != FORMAT_JSON)
		entry_text(out, err, o, r, page);
	layout_free(&r->L);
	free(r->shown);
	free(r);
	return cls;
}

/* The archive's own line: its verdict and how many libraries it has. */
static void
archive_line(FILE *out, const struct options *o, const char *name,
    const struct zip_listing *zl, size_t libs, enum file_class cls)
{
	struct json j;

	if (o->format == FORMAT_TEXT) {
		if (libs == 0 && !o->quiet)
			fprintf(out, "%s: no native libraries (lib/ABI/*.so%s)\n",
			    name, zl->bundle ? " in a module" : "");
		return;
	}
	json_begin(&j, out, mode_name(o));
	json_str(&j, "file", name);
	json_str(&j, "status", class_text(cls));
	json_u64(&j, "page_bytes", o->page_size);
	json_str(&j, "archive", zl->bundle ? "bundle" : "apk");
	json_u64(&j, "native_libs", libs);
	json_end(&j);
}

/*
 * The archive open in fd: every native library in it, one verdict each,
 * then the archive's line (JSON; text only when it has none).  A damaged
 * archive is an error that says what is wrong with it.
 */
enum file_class
archive_check(int fd, const char *name, const struct options *o, FILE *out,
    FILE *err)
{
	struct zip_listing zl;
	enum file_class cls = FILE_COMPATIBLE;
	char msg[512];
	size_t i, libs = 0;

	if (zip_listing_read(fd, &zl, msg, sizeof(msg)) != READ_OK) {
		diag(err, name, "%s", msg);
		report_other(out, o, name, FILE_ERROR, msg);
		zip_listing_free(&zl);
		return FILE_ERROR;
	}
	for (i = 0; i < zl.count; i++) {
		enum entry_kind k = archive_entry_kind(zl.entries[i].name,
		    zl.entries[i].name_len, zl.bundle);

		if (k == ENTRY_OTHER)
			continue;
		libs += k == ENTRY_NATIVE_LIB;
		cls = archive_class_fold(cls, check_entry(&zl, i, name, o, out,
		    err));
	}
	archive_line(out, o, name, &zl, libs, cls);
	zip_listing_free(&zl);
	return cls;
}
