/* SPDX-License-Identifier: BSD-2-Clause */
/* SPDX-FileCopyrightText: 2026 the elfthp-align authors */
/*
 * Formatting of the rewrite's, --report's and --check's results, as text
 * or JSON lines: it takes what the core read and planned and prints it.
 * It parses no ELF and decides no verdict (process.c has them from the
 * core); --warm's and --host's output is in report_runtime.c.
 */
#include <elf.h>
#include <inttypes.h>
#include <stdio.h>

#include "elfthp_cli.h"
#include "elfthp_util.h"

static const char *
phdr_type_name(uint32_t type, char *buf, size_t len)
{
	switch (type) {
	case PT_NULL: return "NULL";
	case PT_LOAD: return "LOAD";
	case PT_DYNAMIC: return "DYNAMIC";
	case PT_INTERP: return "INTERP";
	case PT_NOTE: return "NOTE";
	case PT_PHDR: return "PHDR";
	case PT_TLS: return "TLS";
	case PT_GNU_EH_FRAME: return "GNU_EH_FRAME";
	case PT_GNU_STACK: return "GNU_STACK";
	case PT_GNU_RELRO: return "GNU_RELRO";
	case PT_GNU_PROPERTY: return "GNU_PROPERTY";
	default:
		snprintf(buf, len, "0x%" PRIx32, type);
		return buf;
	}
}

static void
flag_text(uint32_t flags, char buf[4])
{
	buf[0] = flags & PF_R ? 'R' : ' ';
	buf[1] = flags & PF_W ? 'W' : ' ';
	buf[2] = flags & PF_X ? 'E' : ' ';
	buf[3] = '\0';
}

static const char *
verdict_text(enum seg_verdict v)
{
	switch (v) {
	case SEG_ELIGIBLE: return "eligible";
	case SEG_WRITABLE: return "writable";
	case SEG_NO_WINDOW: return "no full window";
	case SEG_PINNED: return "holds the headers, incongruent";
	case SEG_NOT_LOAD: break;
	}
	return "-";
}

static const char *
plural(uint64_t n)
{
	return n == 1 ? "" : "s";
}

/* JSON flags: the letters only ("RE", "R", "RW"). */
static void
flag_json(uint32_t flags, char buf[4])
{
	size_t n = 0;

	if (flags & PF_R)
		buf[n++] = 'R';
	if (flags & PF_W)
		buf[n++] = 'W';
	if (flags & PF_X)
		buf[n++] = 'E';
	buf[n] = '\0';
}

static const char *
verdict_code(enum seg_verdict v)
{
	switch (v) {
	case SEG_ELIGIBLE: return "eligible";
	case SEG_WRITABLE: return "writable";
	case SEG_NO_WINDOW: return "no-window";
	case SEG_PINNED: return "headers-pinned";
	case SEG_NOT_LOAD: break;
	}
	return "not-load";
}

/* Why nothing changes: the reason code, and the sentence. */
static const char *
unchanged_reason(const struct plan *P)
{
	if (P->n_eligible == 0 && P->n_pinned > 0)
		return "headers-pinned";
	return P->n_eligible == 0 ? "no-window" : "already-aligned";
}

/*
 * What the rewrite did or would do (-n), and where there was a page-cache
 * step, what it left in the page cache: "2 segments aligned, 6 windows,
 * file +4096 bytes; 6 of 6 windows huge (...)", "already aligned; 13 of
 * 13 windows huge (0 already, 13 made huge); 26MiB read".
 */
static void
rewrite_text(FILE *f, const char *name, const struct elf_layout *L,
    const struct plan *P, bool dry_run, bool output,
    const struct warm_result *cache)
{
	char target[16], others[64] = "";
	int64_t growth = (int64_t)(P->new_size - L->file_size);
	const char *reason = unchanged_reason(P);

	format_size(target, sizeof(target), P->huge_align);
	/* Only --page-size changes PT_LOADs without aligning any: say so. */
	if (P->n_aligned == 0 && P->n_loads_changed > 0)
		snprintf(others, sizeof(others), "%zu PT_LOAD%s adjusted, ",
		    P->n_loads_changed, plural(P->n_loads_changed));
	if (!P->changed && reason[0] == 'h')
		fprintf(f, "%s: nothing to do: PT_LOAD %zu holds a full %s "
		    "window, but also the ELF and program headers, which "
		    "cannot move, and its offset is not congruent to its "
		    "address (only a relink aligns it, for example with "
		    "-z separate-code)", name, P->first_pinned, target);
	else if (!P->changed && reason[0] == 'n')
		fprintf(f, "%s: nothing to do (no read-only segment holds a "
		    "full %s window)", name, target);
	else if (!P->changed && cache != NULL)
		fprintf(f, "%s: already aligned", name);
	else if (!P->changed)
		fprintf(f, "%s: nothing to do (already aligned, %" PRIu64
		    " window%s)", name, P->windows_after,
		    plural(P->windows_after));
	else
		fprintf(f, dry_run ? "%s: would align %zu segment%s, %" PRIu64
		    " window%s, %sfile %+" PRId64 " bytes" : "%s: %zu "
		    "segment%s aligned, %" PRIu64 " window%s, %sfile %+" PRId64
		    " bytes", name, P->n_aligned, plural(P->n_aligned),
		    P->windows_after, plural(P->windows_after), others, growth);
	if (cache != NULL && cache->windows > 0) {
		fputs("; ", f);
		warm_outcome_text(f, cache, true, P->changed || output);
	}
	fputc('\n', f);
}

/* What --report's and -n's segment objects share: the header as it is. */
static void
segment_json(struct json *j, const struct seg_desc *s)
{
	char flags[4];

	flag_json(s->flags, flags);
	json_str(j, "flags", flags);
	json_u64(j, "offset", s->offset);
	json_u64(j, "vaddr", s->vaddr);
	json_u64(j, "filesz_bytes", s->filesz);
	json_u64(j, "align_bytes", s->align);
}

static void
plan_json(struct json *j, const struct elf_layout *L, const struct plan *P)
{
	char tbuf[16];
	size_t i;

	json_array(j, "segments");
	for (i = 0; i < L->nsegs; i++) {
		const struct seg_desc *s = &L->segs[i];
		const struct seg_plan *sp = &P->segs[i];

		json_object(j, NULL);
		json_u64(j, "index", i);
		json_str(j, "type", phdr_type_name(s->type, tbuf, sizeof(tbuf)));
		segment_json(j, s);
		json_u64(j, "new_offset", sp->new_offset);
		json_u64(j, "new_align_bytes", sp->new_align);
		json_u64(j, "windows_after", sp->windows_after);
		json_str(j, "verdict", verdict_code(sp->verdict));
		if (sp->split_at != 0)
			json_u64(j, "split_at", sp->split_at);
		json_close(j);
	}
	json_close(j);
	json_u64(j, "segments_split", P->nsplit);
	if (P->nsplit > 0)
		json_u64(j, "phdr_offset", P->table_off);
}

/* One line per file: what the rewrite did, or would do (-n). */
void
report_rewrite(FILE *f, const struct options *o, const char *name,
    const struct elf_layout *L, const struct plan *P,
    const struct warm_result *cache)
{
	struct json j;

	if (o->format == FORMAT_TEXT) {
		char shown[1024];

		if (o->output != NULL && !o->dry_run)
			snprintf(shown, sizeof(shown), "%s -> %s", name,
			    o->output);
		else
			snprintf(shown, sizeof(shown), "%s", name);
		rewrite_text(f, shown, L, P, o->dry_run, o->output != NULL,
		    cache);
		if ((o->dry_run || o->verbose > 0) && cache != NULL)
			cache_how_text(f, cache);
		if (o->dry_run || o->verbose > 0)
			report_plan_table(f, L, P);
		return;
	}
	json_begin(&j, f, mode_name(o));
	json_str(&j, "file", name);
	if (o->output != NULL && !o->dry_run)
		json_str(&j, "output", o->output);
	json_str(&j, "status", !P->changed ? "unchanged" : o->dry_run ?
	    "would-rewrite" : "rewritten");
	if (!P->changed)
		json_str(&j, "reason", unchanged_reason(P));
	json_u64(&j, "segments_aligned", P->n_aligned);
	json_u64(&j, "loads_changed", P->n_loads_changed);
	json_u64(&j, "windows_now", P->windows_now);
	json_u64(&j, "windows_after", P->windows_after);
	json_u64(&j, "size_bytes", L->file_size);
	json_u64(&j, "new_size_bytes", P->new_size);
	json_u64(&j, "alignment_bytes", P->huge_align);
	if (cache != NULL) {
		json_object(&j, "page_cache");
		warm_json_fields(&j, cache);
		json_close(&j);
	}
	if (o->dry_run || o->verbose > 0)
		plan_json(&j, L, P);
	json_end(&j);
}

/* Hexadecimal digits the widest of these takes, at least 8: columns line up. */
static int
hex_width(const struct elf_layout *L, const struct plan *P)
{
	uint64_t most = 0;
	int w = 8;
	size_t i;

	for (i = 0; i < L->nsegs; i++) {
		most = max_u64(most, max_u64(L->segs[i].vaddr,
		    max_u64(L->segs[i].offset, P->segs[i].new_offset)));
		most = max_u64(most, max_u64(L->segs[i].align,
		    P->segs[i].new_align));
	}
	while (w < 16 && (most >> (4 * w)) != 0)
		w++;
	return w;
}

/* The words for a split that did not happen (enum split_note). */
static const char *
split_note_text(enum split_note n)
{
	switch (n) {
	case SPLIT_NO_TABLE_LOAD:
		return "the program headers are not in the first PT_LOAD";
	case SPLIT_NO_ROOM:
		return "no room for a longer program header table in the last "
		    "page of the first PT_LOAD";
	case SPLIT_TOO_MANY:
		return "the program header table would reach 65535 entries";
	case SPLIT_NOT_ASKED:
	case SPLIT_DONE:
		break;
	}
	return "";
}

/* -v and -n: where each split falls, or why none does. */
static void
split_text(FILE *f, const struct elf_layout *L, const struct plan *P)
{
	size_t i;

	if (P->split_note != SPLIT_DONE && P->split_note != SPLIT_NOT_ASKED) {
		fprintf(f, "  not split (%zu segment%s would be; the layout "
		    "stays congruent): %s\n", P->split_wanted,
		    plural(P->split_wanted), split_note_text(P->split_note));
		return;
	}
	for (i = 0; i < L->nsegs; i++)
		if (P->segs[i].split_at != 0)
			fprintf(f, "  split PT_LOAD %zu at 0x%" PRIx64 ": head "
			    "0x%" PRIx64 "-0x%" PRIx64 " on base pages, body "
			    "from 0x%" PRIx64 " (offset 0x%" PRIx64 ")\n", i,
			    P->segs[i].split_at, L->segs[i].vaddr,
			    P->segs[i].split_at, P->segs[i].split_at,
			    P->segs[i].new_offset + P->segs[i].split_at -
			    L->segs[i].vaddr);
	if (P->nsplit > 0)
		fprintf(f, "  program headers: %zu entries, moved to offset "
		    "0x%" PRIx64 " (end of PT_LOAD %zu)\n", P->nphdrs_out,
		    P->table_off, P->table_load);
}

void
report_plan_table(FILE *f, const struct elf_layout *L, const struct plan *P)
{
	int w = hex_width(L, P);
	size_t i;

	fprintf(f, "  %-4s %-12s %-3s %-*s %-*s %-*s %10s %-*s %-*s %7s  %s\n",
	    "PH", "TYPE", "FLG", w + 2, "OFFSET", w + 2, "NEW OFFSET", w + 2,
	    "VADDR", "FILESZ", w + 2, "ALIGN", w + 2, "NEW ALIGN", "WINDOWS",
	    "VERDICT");
	for (i = 0; i < L->nsegs; i++) {
		const struct seg_desc *s = &L->segs[i];
		const struct seg_plan *sp = &P->segs[i];
		char tbuf[16], flags[4], size[16];

		flag_text(s->flags, flags);
		format_size(size, sizeof(size), s->filesz);
		fprintf(f, "  %-4zu %-12s %-3s 0x%0*" PRIx64 " 0x%0*" PRIx64
		    " 0x%0*" PRIx64 " %10s 0x%0*" PRIx64 " 0x%0*" PRIx64
		    " %7" PRIu64 "  %s\n", i,
		    phdr_type_name(s->type, tbuf, sizeof(tbuf)), flags,
		    w, s->offset, w, sp->new_offset, w, s->vaddr, size,
		    w, s->align, w, sp->new_align, sp->windows_after,
		    verdict_text(sp->verdict));
	}
	split_text(f, L, P);
}
/* --- --report ------------------------------------------------------------ */

static void
impact_text_segments(FILE *f, const struct elf_layout *L,
    const struct plan *P, uint64_t pmd)
{
	int w = hex_width(L, P);
	size_t i;

	fprintf(f, "  %-3s %-3s %-*s %-*s %8s %-*s %-8s %7s %7s  %-12s %-6s "
	    "%s\n", "PH", "FLG", w + 2, "OFFSET", w + 2, "VADDR", "FILESZ",
	    w + 2, "ALIGN", "ELIGIBLE", "WIN.NOW", "WIN.AFT", "KERNEL PATCH",
	    "GLIBC", "BIONIC");
	for (i = 0; i < L->nsegs; i++) {
		const struct seg_desc *s = &L->segs[i];
		const struct seg_plan *sp = &P->segs[i];
		char flags[4], size[16];
		struct load_takers t;
	const bool ld_so = layout_has_ld_so(L);

		if (s->type != PT_LOAD)
			continue;
		load_takers(L, s, pmd, LAYOUT_MIN_PAGE, ld_so, &t);
		flag_text(s->flags, flags);
		format_size(size, sizeof(size), s->filesz);
		fprintf(f, "  %-3zu %-3s 0x%0*" PRIx64 " 0x%0*" PRIx64 " %8s "
		    "0x%0*" PRIx64 " %-8s %7" PRIu64 " %7" PRIu64 "  %-12s "
		    "%-6s %s\n", i, flags, w, s->offset, w, s->vaddr, size, w,
		    s->align, sp->verdict == SEG_ELIGIBLE ? "yes" : "no",
		    sp->windows_now, sp->windows_after, t.kernel ? "aligns" :
		    "-", !t.has_ld_so ? "static" : t.glibc ? "takes" : "-",
		    t.bionic ? "takes" : "-");
	}
}

static void
impact_text_geometries(FILE *f, const struct geometry_impact *imp, size_t n)
{
	char a[16], b[16], c[16], d[16], e[16], g[16];
	size_t i;

	fprintf(f, "  %-16s %-8s %6s %6s %6s %12s %12s %8s %8s %8s %4s %8s\n",
	    "GEOMETRY", "BASIS", "PAGE", "PMD", "CONT", "TLB.NOW", "TLB.AFTER",
	    "HUGE.NOW", "HUGE.AFT", "RSS+MAX", "ASLR", "GROWTH");
	for (i = 0; i < n; i++) {
		const struct geometry_impact *m = &imp[i];

		format_size(a, sizeof(a), m->geometry->page);
		format_size(b, sizeof(b), m->geometry->pmd);
		format_size(c, sizeof(c), m->geometry->cont);
		if (m->error[0] != '\0') {
			fprintf(f, "  %-16s %-8s %6s %6s %6s  no plan: %s\n",
			    m->geometry->name, "model", a, b,
			    m->geometry->cont ? c : "-", m->error);
			continue;
		}
		format_size(d, sizeof(d), m->huge_bytes_now);
		format_size(e, sizeof(e), m->huge_bytes_after);
		format_size(g, sizeof(g), m->rss_increase_max);
		fprintf(f, "  %-16s %-8s %6s %6s %6s %12" PRIu64 " %12" PRIu64
		    " %8s %8s %8s %4u %8" PRId64 "\n", m->geometry->name,
		    m->measured ? "measured" : "model", a, b,
		    m->geometry->cont ? c : "-", m->translations_now,
		    m->translations_after, d, e, g, m->aslr_bits_lost,
		    m->file_growth);
	}
}

static void
impact_json_segments(struct json *j, const struct elf_layout *L,
    const struct plan *P, uint64_t pmd)
{
	struct load_takers t;
	const bool ld_so = layout_has_ld_so(L);
	size_t i;

	json_array(j, "segments");
	for (i = 0; i < L->nsegs; i++) {
		const struct seg_desc *s = &L->segs[i];
		const struct seg_plan *sp = &P->segs[i];

		if (s->type != PT_LOAD)
			continue;
		json_object(j, NULL);
		json_u64(j, "index", i);
		segment_json(j, s);
		json_str(j, "verdict", verdict_code(sp->verdict));
		json_u64(j, "windows_now", sp->windows_now);
		json_u64(j, "windows_after", sp->windows_after);
		load_takers(L, s, pmd, LAYOUT_MIN_PAGE, ld_so, &t);
		json_bool(j, "kernel_patch_aligns", t.kernel);
		json_bool(j, "glibc_elf_thp", t.glibc);
		json_bool(j, "has_ld_so", t.has_ld_so);
		json_bool(j, "bionic", t.bionic);
		json_close(j);
	}
	json_close(j);
}

static void
impact_json_geometries(struct json *j, const struct geometry_impact *imp,
    size_t n)
{
	size_t i;

	json_array(j, "geometries");
	for (i = 0; i < n; i++) {
		const struct geometry_impact *m = &imp[i];

		json_object(j, NULL);
		json_str(j, "name", m->geometry->name);
		json_u64(j, "page_bytes", m->geometry->page);
		json_u64(j, "pmd_bytes", m->geometry->pmd);
		json_u64(j, "cont_bytes", m->geometry->cont);
		if (m->error[0] != '\0') {
			json_str(j, "error", m->error);
			json_close(j);
			continue;
		}
		json_bool(j, "measured", m->measured);
		json_u64(j, "translations_now", m->translations_now);
		json_u64(j, "translations_after", m->translations_after);
		json_u64(j, "huge_bytes_now", m->huge_bytes_now);
		json_u64(j, "huge_bytes_after", m->huge_bytes_after);
		json_u64(j, "rss_increase_max_bytes", m->rss_increase_max);
		json_u64(j, "aslr_bits_lost", m->aslr_bits_lost);
		json_i64(j, "growth_bytes", m->file_growth);
		json_close(j);
	}
	json_close(j);
}

/*
 * --report: the segments, and one row per geometry.  cache: the look at
 * the page cache that measured the host's own geometry, or NULL (another
 * machine's file: every row is a model).
 */
void
report_impact(FILE *f, const struct options *o, const char *name,
    const struct elf_layout *L, const struct plan *P,
    const struct geometry *own, const struct geometry_impact *imp, size_t n,
    const struct warm_result *cache)
{
	struct json j;

	if (o->format == FORMAT_TEXT) {
		fprintf(f, "%s: %s %s, %s; load base PMD-aligned: now %s, "
		    "after %s", name, machine_name(L->machine), file_kind_name(file_kind(L)),
		    own->name, P->base_aligned_now ? "yes" : "no",
		    P->base_aligned_after ? "yes" : "no");
		if (cache != NULL && cache->cache_refused)
			fprintf(f, "; page cache: unknown (%s)",
			    PAGE_CACHE_REFUSED);
		else if (cache != NULL && cache->windows > 0)
			fprintf(f, "; page cache: %" PRIu64 " of %" PRIu64
			    " windows huge now%s%s%s", cache->huge_before,
			    cache->windows, cache->fs_type[0] ? " (" : "",
			    cache->fs_type, cache->fs_type[0] ? ")" : "");
		fputc('\n', f);
		impact_text_segments(f, L, P, own->pmd);
		impact_text_geometries(f, imp, n);
		if (n == 0)
			fprintf(f, "  no page geometry of %s is modelled (-v "
			    "shows the x86_64 and arm64 ones)\n",
			    machine_name(L->machine));
		return;
	}
	json_begin(&j, f, mode_name(o));
	json_str(&j, "file", name);
	json_str(&j, "status", "reported");
	json_str(&j, "machine", machine_name(L->machine));
	json_str(&j, "type", file_kind_name(file_kind(L)));
	json_str(&j, "geometry", own->name);
	json_u64(&j, "pmd_bytes", own->pmd);
	json_u64(&j, "alignment_bytes", P->huge_align);
	json_bool(&j, "base_aligned_now", P->base_aligned_now);
	json_bool(&j, "base_aligned_after", P->base_aligned_after);
	if (cache != NULL && cache->cache_refused)
		json_str(&j, "page_cache_unknown", PAGE_CACHE_REFUSED);
	else if (cache != NULL) {
		json_object(&j, "page_cache");
		warm_json_fields(&j, cache);
		json_close(&j);
	}
	impact_json_segments(&j, L, P, own->pmd);
	impact_json_geometries(&j, imp, n);
	json_end(&j);
}

/*
 * A file that ended without its mode's result: an error (already said on
 * stderr), or skipped: not ELF, or not a program.  Text: a skipped file's
 * line in every mode; JSON: one line for either in every mode.
 */
void
report_other(FILE *f, const struct options *o, const char *name,
    enum file_class cls, const char *message)
{
	struct json j;

	if (o->format == FORMAT_TEXT) {
		/* An error and a file not done are said on stderr (diag). */
		if (cls != FILE_ERROR && cls != FILE_NOT_DONE)
			fprintf(f, "%s: skipped: %s\n", name, message);
		return;
	}
	json_begin(&j, f, mode_name(o));
	json_str(&j, "file", name);
	json_str(&j, "status", class_text(cls));
	json_str(&j, "message", message);
	json_end(&j);
}

/*
 * Another name of a file the run rewrote through its first name, one file
 * with names names: FILE_LINKED, or FILE_NOT_DONE where the first name
 * failed (its own message says why).  Text: a line unless -q.
 */
void
report_linked(FILE *f, const struct options *o, const char *name,
    const char *first, size_t names, enum file_class cls)
{
	struct json j;

	if (o->format == FORMAT_TEXT) {
		if (cls == FILE_NOT_DONE)
			fprintf(f, "%s: not done: one file with %s, which was "
			    "not rewritten\n", name, first);
		else if (!o->quiet)
			fprintf(f, "%s: %s with %s (one file, %zu names)\n",
			    name, o->dry_run ? "as" : "done", first, names);
		return;
	}
	json_begin(&j, f, mode_name(o));
	json_str(&j, "file", name);
	json_str(&j, "status", class_text(cls));
	json_str(&j, "same_file_as", first);
	json_u64(&j, "names", names);
	json_end(&j);
}
