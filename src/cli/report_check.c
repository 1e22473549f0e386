/* SPDX-License-Identifier: BSD-2-Clause */
/* SPDX-FileCopyrightText: 2026 the elfthp-align authors */
/*
 * Formatting of --check and --check --compat: the verdict and the
 * findings that findings.c and compat.c computed, as text or JSON lines.
 * Only the wording is here.
 */
#include <elf.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "elfthp_cli.h"

static const char *
page_arg(uint64_t page)
{
	return page == 4096 ? "4k" : page == 16384 ? "16k" : page == 65536 ?
	    "64k" : "?";
}

/* The relink flags for what only a relink fixes. */
static void
relink_flags(char *buf, size_t len, const struct finding *f)
{
	unsigned long long m = f->modulus;

	if (f->code == FINDING_PAGE_SHARED)
		snprintf(buf, len, "relink with -z max-page-size=0x%llx", m);
	else if (f->code == FINDING_RELRO_END)
		snprintf(buf, len, "relink with -z max-page-size=0x%llx and, "
		    "with lld, -z separate-loadable-segments, or with GNU ld, "
		    "-z common-page-size=0x%llx", m, m);
	else
		snprintf(buf, len, "relink with -z separate-code (GNU ld) or "
		    "-z separate-loadable-segments (lld)");
}

/* A fix command: options, then a quoted name (SHELL_WORD_MAX). */
#define FIX_MAX (SHELL_WORD_MAX + 128)

/*
 * The command that fixes a finding: the rewrite with the options this
 * check was given, the rewrite with --page-size, or a relink's flags.
 * split: the file has hard links not in the run, which the rewrite would
 * refuse to split; the command that works then says --break-hardlinks.
 */
static void
fix_command(char *buf, size_t len, const struct options *o, const char *name,
    const struct finding *f, bool split)
{
	const char *links = split ? " --break-hardlinks" : "";
	char page[32] = "", align[48] = "", word[SHELL_WORD_MAX];

	/* Pasted into a shell: the name is one word, never an option. */
	shell_word(word, sizeof(word), name);

	switch (finding_fix(f->code)) {
	case FIX_REWRITE:
		if (o->page_size != 0)
			snprintf(page, sizeof(page), " --page-size %s",
			    page_arg(o->page_size));
		if (o->align != 0)
			snprintf(align, sizeof(align), " --align 0x%llx",
			    (unsigned long long)o->align);
		snprintf(buf, len, "elfthp-align%s%s%s%s -- %s", links,
		    o->start_layout ? " --layout start" : "", page, align,
		    word);
		break;
	case FIX_PAGE_SIZE:
		snprintf(buf, len, "elfthp-align%s --page-size %s -- %s", links,
		    page_arg(f->modulus), word);
		break;
	case FIX_RELINK:
		relink_flags(buf, len, f);
		break;
	}
}

/* Text: each distinct fix once, after the findings. */
static void
fixes_text(FILE *f, const struct options *o, const char *name,
    const struct finding *fs, size_t n, bool split)
{
	char cmd[FIX_MAX], seen[4][FIX_MAX];
	size_t i, k, nseen = 0;

	for (i = 0; i < n; i++) {
		fix_command(cmd, sizeof(cmd), o, name, &fs[i], split);
		for (k = 0; k < nseen && strcmp(seen[k], cmd) != 0; k++)
			;
		if (k < nseen)
			continue;
		fprintf(f, "%s: fix: %s\n", name, cmd);
		if (nseen < 4)
			memcpy(seen[nseen++], cmd, sizeof(cmd));
	}
}

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
	case FINDING_START:
		snprintf(buf, len, "PT_LOAD %zu: congruent, but starts at 0x%"
		    PRIx64 ", not on a 0x%" PRIx64 " boundary (the rewrite "
		    "splits it at 0x%" PRIx64 ")", i, f->have, f->modulus,
		    f->want);
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
	case FINDING_RELRO_END:
		snprintf(buf, len, "PT_GNU_RELRO (header %zu) ends at 0x%" PRIx64
		    ", inside a 0x%" PRIx64 "-byte page that PT_LOAD %zu goes on "
		    "filling: ld.so rounds the end down, so that part of RELRO "
		    "stays writable; padding cannot move an address: relink "
		    "with -z max-page-size=0x%" PRIx64, i, f->have, f->modulus,
		    f->other, f->modulus);
		break;
	}
}

/* The findings array of a check or compat line (also an archive entry's). */
static void
findings_json_split(struct json *j, const struct options *o, const char *name,
    const struct elf_layout *L, const struct finding *fs, size_t n,
    bool split)
{
	char msg[320], cmd[FIX_MAX];
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
		fix_command(cmd, sizeof(cmd), o, name, &fs[i], split);
		json_str(j, "fix", cmd);
		json_close(j);
	}
	json_close(j);
}

void
findings_json(struct json *j, const struct options *o, const char *name,
    const struct elf_layout *L, const struct finding *fs, size_t n)
{
	findings_json_split(j, o, name, L, fs, n, false);
}

/* The read-only PT_LOADs whose takers -v and JSON show. */
static bool
takers_shown(const struct seg_desc *s)
{
	return s->type == PT_LOAD && !(s->flags & PF_W) && s->filesz > 0;
}

/* -v: who makes each read-only PT_LOAD huge when it is loaded, as it is. */
static void
takers_text(FILE *f, const char *name, const struct elf_layout *L,
    const struct plan *P)
{
	struct load_takers t;
	const bool ld_so = layout_has_ld_so(L);
	size_t i;

	for (i = 0; i < L->nsegs; i++) {
		if (!takers_shown(&L->segs[i]))
			continue;
		load_takers(L, &L->segs[i], P->huge_align, LAYOUT_MIN_PAGE,
		    ld_so, &t);
		fprintf(f, "%s: PT_LOAD %zu at 0x%" PRIx64 ": glibc.elf.thp %s, "
		    "kernel patch %s, bionic %s\n", name, i, L->segs[i].vaddr,
		    !t.has_ld_so ? "n/a (static: no ld.so)" : t.glibc ? "yes" :
		    "no", t.kernel ? "yes" : "no", t.bionic ? "yes" : "no");
	}
}

static void
takers_json(struct json *j, const struct elf_layout *L, const struct plan *P)
{
	struct load_takers t;
	const bool ld_so = layout_has_ld_so(L);
	size_t i;

	json_array(j, "takers");
	for (i = 0; i < L->nsegs; i++) {
		if (!takers_shown(&L->segs[i]))
			continue;
		load_takers(L, &L->segs[i], P->huge_align, LAYOUT_MIN_PAGE,
		    ld_so, &t);
		json_object(j, NULL);
		json_u64(j, "segment", i);
		json_u64(j, "vaddr", L->segs[i].vaddr);
		json_bool(j, "has_ld_so", t.has_ld_so);
		json_bool(j, "glibc_elf_thp", t.glibc);
		json_bool(j, "kernel_patch", t.kernel);
		json_bool(j, "bionic", t.bionic);
		json_close(j);
	}
	json_close(j);
}

/* --check: a line per finding, and with -v the verdict (text); or one
 * object (JSON). */
void
report_check(FILE *f, const struct options *o, const char *name,
    const struct elf_layout *L, const struct plan *P,
    const struct finding *fs, size_t n, size_t total, enum file_class cls)
{
	struct json j;
	char msg[320];
	size_t i;

	if (o->format == FORMAT_TEXT) {
		/* -v: a verdict for every file, as --compat gives. */
		if (o->verbose > 0 && P->windows_now_host != P->windows_now)
			fprintf(f, "%s: %s (windows: %ju now, %ju on this host, "
			    "whose file system aligns its base; %ju after the "
			    "rewrite)\n", name, class_text(cls),
			    (uintmax_t)P->windows_now,
			    (uintmax_t)P->windows_now_host,
			    (uintmax_t)P->windows_after);
		else if (o->verbose > 0)
			fprintf(f, "%s: %s (windows: %ju now, %ju after the "
			    "rewrite)\n", name, class_text(cls),
			    (uintmax_t)P->windows_now,
			    (uintmax_t)P->windows_after);
		for (i = 0; i < n; i++) {
			finding_message(msg, sizeof(msg), L, &fs[i]);
			fprintf(f, "%s: %s\n", name, msg);
		}
		if (total > n)
			fprintf(f, "%s: and %zu more findings\n", name, total - n);
		if (o->verbose > 0)
			takers_text(f, name, L, P);
		fixes_text(f, o, name, fs, n, cls == FILE_NOT_DONE);
		return;
	}
	json_begin(&j, f, mode_name(o));
	json_str(&j, "file", name);
	json_str(&j, "status", class_text(cls));
	findings_json_split(&j, o, name, L, fs, n, cls == FILE_NOT_DONE);
	json_u64(&j, "findings_total", total);
	json_u64(&j, "windows_now", P->windows_now);
	json_u64(&j, "windows_after", P->windows_after);
	takers_json(&j, L, P);
	json_end(&j);
}

/*
 * --check, a file the rewrite of this run would leave (FILE_NOT_DONE): a
 * name of it is not in the run.  JSON says it in the file's "status".
 */
void
report_check_not_done(FILE *f, const struct options *o, const char *name,
    uintmax_t links, size_t found)
{
	if (o->format == FORMAT_TEXT)
		fprintf(f, "%s: not done by a rewrite of this run: it has %ju "
		    "hard links, %zu of them in the run (give every name, or "
		    "--break-hardlinks)\n", name, links, found);
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
		findings_json(&j, o, name, L, fs, n);
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
	/* The verdict line names the fix already; -v spells out each. */
	if (o->verbose > 0)
		fixes_text(f, o, name, fs, n, false);
}
