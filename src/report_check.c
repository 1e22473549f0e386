/* SPDX-License-Identifier: BSD-2-Clause */
/* SPDX-FileCopyrightText: 2026 the elfthp-align authors */
/*
 * Formatting of --check and --check --compat: the verdict and the
 * findings that findings.c and compat.c computed, as text or JSON lines.
 * Only the wording is here.
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>

#include "elfthp_cli.h"

/* The sentence for one finding. */
void
finding_message(char *buf, size_t len, const struct elf_layout *L,
    const struct finding *f)
{
	const struct seg_desc *s = &L->segs[f->segment];
	size_t i = f->segment;

	switch (f->code) {
	case FINDING_PINNED:
		snprintf(buf, len, "PT_LOAD %zu: holds a full window and the ELF "
		    "and program headers, which cannot move, and p_offset 0x%"
		    PRIx64 " is not congruent to p_vaddr 0x%" PRIx64 " modulo "
		    "0x%" PRIx64 ": only a relink aligns it (for example with "
		    "-z separate-code)", i, s->offset, s->vaddr, f->modulus);
		break;
	case FINDING_OFFSET:
		snprintf(buf, len, "PT_LOAD %zu: p_offset 0x%" PRIx64 " is not "
		    "congruent to p_vaddr 0x%" PRIx64 " modulo 0x%" PRIx64
		    " (the rewrite moves it to 0x%" PRIx64 ")", i, f->have,
		    s->vaddr, f->modulus, f->want);
		break;
	case FINDING_ALIGN:
		snprintf(buf, len, "PT_LOAD %zu: p_align 0x%" PRIx64 " is below "
		    "0x%" PRIx64 " (the rewrite raises it)", i, f->have, f->want);
		break;
	case FINDING_PAGE_SHARED:
		snprintf(buf, len, "PT_LOAD %zu: shares a 0x%" PRIx64 "-byte "
		    "page with PT_LOAD %zu, which has other permissions: only "
		    "a relink fixes that, with -z max-page-size=0x%" PRIx64, i,
		    f->modulus, f->other, f->modulus);
		break;
	case FINDING_PAGE_OFFSET:
		snprintf(buf, len, "PT_LOAD %zu: p_offset 0x%" PRIx64 " and "
		    "p_vaddr 0x%" PRIx64 " differ modulo the 0x%" PRIx64 " page "
		    "(elfthp-align --page-size pads it)", i, f->have, s->vaddr,
		    f->modulus);
		break;
	case FINDING_PAGE_ALIGN:
		snprintf(buf, len, "PT_LOAD %zu: p_align 0x%" PRIx64 " is below "
		    "the 0x%" PRIx64 " page (elfthp-align --page-size raises "
		    "it)", i, f->have, f->modulus);
		break;
	}
}

static void
findings_json(struct json *j, const struct elf_layout *L,
    const struct finding *fs, size_t n)
{
	char msg[320];
	size_t i;

	json_array(j, "findings");
	for (i = 0; i < n; i++) {
		finding_message(msg, sizeof(msg), L, &fs[i]);
		json_object(j, NULL);
		json_u64(j, "segment", fs[i].segment);
		if (fs[i].other != SIZE_MAX)
			json_u64(j, "other_segment", fs[i].other);
		json_str(j, "code", finding_code_name(fs[i].code));
		json_str(j, "message", msg);
		json_close(j);
	}
	json_close(j);
}

/* --check: a line per finding (text), or one object (JSON). */
void
report_check(FILE *f, const struct options *o, const char *name,
    const struct elf_layout *L, const struct plan *P,
    const struct finding *fs, size_t n, size_t total, enum file_class cls)
{
	struct json j;
	char msg[320];
	size_t i;

	if (o->format == FORMAT_TEXT) {
		for (i = 0; i < n; i++) {
			finding_message(msg, sizeof(msg), L, &fs[i]);
			fprintf(f, "%s: %s\n", name, msg);
		}
		if (total > n)
			fprintf(f, "%s: and %zu more findings\n", name, total - n);
		return;
	}
	json_begin(&j, f, mode_name(o));
	json_str(&j, "file", name);
	json_str(&j, "status", class_text(cls));
	findings_json(&j, L, fs, n);
	json_u64(&j, "findings_total", total);
	json_u64(&j, "windows_now", P->windows_now);
	json_u64(&j, "windows_after", P->windows_after);
	json_end(&j);
}

/* --check --compat: one verdict, its root cause; every finding with -v. */
void
report_compat(FILE *f, const struct options *o, const char *name,
    const struct elf_layout *L, uint64_t page, const struct finding *fs,
    size_t n, size_t total, enum file_class cls)
{
	char msg[320] = "", size[16];
	struct json j;
	size_t i;

	format_size(size, sizeof(size), page);
	if (n > 0)
		finding_message(msg, sizeof(msg), L, &fs[0]);
	if (o->format == FORMAT_JSON) {
		json_begin(&j, f, mode_name(o));
		json_str(&j, "file", name);
		json_str(&j, "status", class_text(cls));
		json_u64(&j, "page_bytes", page);
		findings_json(&j, L, fs, n);
		json_u64(&j, "findings_total", total);
		json_end(&j);
		return;
	}
	if (cls == FILE_COMPATIBLE) {
		if (!o->quiet)
			fprintf(f, "%s: loads on %s pages\n", name, size);
	} else if (cls == FILE_FIXABLE) {
		fprintf(f, "%s: fixable for %s pages (elfthp-align --page-size "
		    "%s): %s%s\n", name, size, page == 4096 ? "4k" : page ==
		    16384 ? "16k" : "64k", msg, total > 1 ? ", and more (-v)" :
		    "");
	} else {
		fprintf(f, "%s: needs a relink for %s pages: %s\n", name, size,
		    msg);
	}
	for (i = 1; o->verbose > 0 && i < n; i++) {
		finding_message(msg, sizeof(msg), L, &fs[i]);
		fprintf(f, "%s:   %s\n", name, msg);
	}
}
