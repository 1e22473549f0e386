/*
 * Formatting of the rewrite's, --report's and --check's results, as text
 * or JSON lines: it takes what the core read and planned and prints it.
 * It parses no ELF and decides no verdict (process.c has them from the
 * core); --warm's and --host's output is in report_runtime.c.
 */
#include <bsd/libutil.h>
#include <elf.h>
#include <inttypes.h>
#include <stdio.h>

#include "elfthp_cli.h"

void
format_size(char *buf, size_t len, uint64_t bytes)
{
	/* Three significant digits: "5.9MiB", not "6026KiB" or "6170537B". */
	if (humanize_number(buf, len < 7 ? len : 7, (int64_t)bytes, "B", HN_AUTOSCALE,
	    HN_NOSPACE | HN_DECIMAL | HN_IEC_PREFIXES) < 0)
		snprintf(buf, len, "%" PRIu64 "B", bytes);
}

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

void
report_result(FILE *f, const char *name, const struct elf_layout *L,
    const struct plan *P, bool dry_run)
{
	char target[16], others[64] = "";
	int64_t growth = (int64_t)(P->new_size - L->file_size);

	format_size(target, sizeof(target), P->huge_align);
	/* Only --page-size changes PT_LOADs without aligning any: say so. */
	if (P->n_aligned == 0 && P->n_loads_changed > 0)
		snprintf(others, sizeof(others), "%zu PT_LOAD%s adjusted, ",
		    P->n_loads_changed, plural(P->n_loads_changed));
	if (!P->changed && P->n_eligible == 0 && P->n_pinned > 0)
		fprintf(f, "%s: nothing to do: PT_LOAD %zu holds a full %s "
		    "window, but also the ELF and program headers, which "
		    "cannot move, and its offset is not congruent to its "
		    "address (only a relink aligns it, for example with "
		    "-z separate-code)\n", name, P->first_pinned, target);
	else if (!P->changed && P->n_eligible == 0)
		fprintf(f, "%s: nothing to do (no read-only segment holds a "
		    "full %s window)\n", name, target);
	else if (!P->changed)
		fprintf(f, "%s: nothing to do (already aligned, %" PRIu64
		    " window%s)\n", name, P->windows_after,
		    plural(P->windows_after));
	else if (dry_run)
		fprintf(f, "%s: would align %zu segment%s, %" PRIu64 " window%s, "
		    "%sfile %+" PRId64 " bytes\n", name, P->n_aligned,
		    plural(P->n_aligned), P->windows_after,
		    plural(P->windows_after), others, growth);
	else
		fprintf(f, "%s: %zu segment%s aligned, %" PRIu64 " window%s, "
		    "%sfile %+" PRId64 " bytes\n", name, P->n_aligned,
		    plural(P->n_aligned), P->windows_after,
		    plural(P->windows_after), others, growth);
}

void
report_plan_table(FILE *f, const struct elf_layout *L, const struct plan *P)
{
	size_t i;

	fprintf(f, "  %-4s %-12s %-3s %-10s %-10s %-10s %10s %-10s %-10s %7s  %s\n",
	    "PH", "TYPE", "FLG", "OFFSET", "NEW OFFSET", "VADDR", "FILESZ",
	    "ALIGN", "NEW ALIGN", "WINDOWS", "VERDICT");
	for (i = 0; i < L->nsegs; i++) {
		const struct seg_desc *s = &L->segs[i];
		const struct seg_plan *sp = &P->segs[i];
		char tbuf[16], flags[4], size[16];

		flag_text(s->flags, flags);
		format_size(size, sizeof(size), s->filesz);
			fprintf(f, "  %-4zu %-12s %-3s 0x%08" PRIx64 " 0x%08" PRIx64
		    " 0x%08" PRIx64 " %10s 0x%08" PRIx64 " 0x%08" PRIx64
		    " %7" PRIu64 "  %s\n", i,
		    phdr_type_name(s->type, tbuf, sizeof(tbuf)), flags,
		    s->offset, sp->new_offset, s->vaddr, size, s->align,
		    sp->new_align, sp->windows_after, verdict_text(sp->verdict));
	}
}

/* Length of the valid UTF-8 sequence at p, or 0 if it is not one. */
static size_t
utf8_len(const unsigned char *p)
{
	size_t n, i;

	if (*p < 0x80)
		return 1;
	if (*p >= 0xc2 && *p <= 0xdf)
		n = 2;
	else if (*p >= 0xe0 && *p <= 0xef)
		n = 3;
	else if (*p >= 0xf0 && *p <= 0xf4)
		n = 4;
	else
		return 0;
	for (i = 1; i < n; i++)
		if ((p[i] & 0xc0) != 0x80)
			return 0;
	/* Overlong forms, UTF-16 surrogates, and past U+10FFFF. */
	if ((p[0] == 0xe0 && p[1] < 0xa0) || (p[0] == 0xed && p[1] >= 0xa0) ||
	    (p[0] == 0xf0 && p[1] < 0x90) || (p[0] == 0xf4 && p[1] >= 0x90))
		return 0;
	return n;
}

/*
 * A JSON string.  JSON is UTF-8: a byte of a file name that is not valid
 * UTF-8 becomes U+FFFD, so the line still parses.
 */
void
json_string(FILE *f, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n;

	fputc('"', f);
	while (*p) {
		if (*p == '"' || *p == '\\')
			fprintf(f, "\\%c", *p);
		else if (*p < 0x20 || *p == 0x7f)
			fprintf(f, "\\u%04x", *p);
		else if ((n = utf8_len(p)) == 0)
			fputs("\\ufffd", f);
		else {
			fwrite(p, 1, n, f);
			p += n;
			continue;
		}
		p++;
	}
	fputc('"', f);
}

const char *
class_text(enum file_class c)
{
	switch (c) {
	case FILE_READY: return "ready";
	case FILE_NOT_HUGE: return "not-huge";
	case FILE_NEEDS_REWRITE: return "needs-rewrite";
	case FILE_NEEDS_RELINK: return "needs-relink";
	case FILE_NOT_ELF:
	case FILE_NOT_APPLICABLE: return "not-applicable";
	case FILE_ERROR: return "error";
	case FILE_DONE: break;
	}
	return "done";
}

/* --- --report ------------------------------------------------------------ */

static void
impact_text_segments(FILE *f, const struct elf_layout *L,
    const struct plan *P, uint64_t pmd)
{
	size_t i;

	fprintf(f, "  %-3s %-3s %-10s %-10s %8s %-10s %-8s %7s %7s  %s\n",
	    "PH", "FLG", "OFFSET", "VADDR", "FILESZ", "ALIGN", "ELIGIBLE",
	    "WIN.NOW", "WIN.AFT", "SEED PATCH");
	for (i = 0; i < L->nsegs; i++) {
		const struct seg_desc *s = &L->segs[i];
		const struct seg_plan *sp = &P->segs[i];
		char flags[4], size[16];

		if (s->type != PT_LOAD)
			continue;
		flag_text(s->flags, flags);
		format_size(size, sizeof(size), s->filesz);
		fprintf(f, "  %-3zu %-3s 0x%08" PRIx64 " 0x%08" PRIx64 " %8s "
		    "0x%08" PRIx64 " %-8s %7" PRIu64 " %7" PRIu64 "  %s\n", i,
		    flags, s->offset, s->vaddr, size, s->align,
		    sp->verdict == SEG_ELIGIBLE ? "yes" : "no", sp->windows_now,
		    sp->windows_after, seed_patch_aligns(L, s, pmd) ?
		    "aligns" : "-");
	}
}

static void
impact_text_geometries(FILE *f, const struct geometry_impact *imp, size_t n)
{
	char a[16], b[16], c[16], d[16], e[16], g[16];
	size_t i;

	fprintf(f, "  %-16s %6s %6s %6s %12s %12s %8s %8s %8s %4s %8s\n",
	    "GEOMETRY", "PAGE", "PMD", "CONT", "TLB.NOW", "TLB.AFTER",
	    "HUGE.NOW", "HUGE.AFT", "RSS+MAX", "ASLR", "GROWTH");
	for (i = 0; i < n; i++) {
		const struct geometry_impact *m = &imp[i];

		format_size(a, sizeof(a), m->geometry->page);
		format_size(b, sizeof(b), m->geometry->pmd);
		format_size(c, sizeof(c), m->geometry->cont);
		if (m->error[0] != '\0') {
			fprintf(f, "  %-16s %6s %6s %6s  no plan: %s\n",
			    m->geometry->name, a, b, m->geometry->cont ? c : "-",
			    m->error);
			continue;
		}
		format_size(d, sizeof(d), m->huge_bytes_now);
		format_size(e, sizeof(e), m->huge_bytes_after);
		format_size(g, sizeof(g), m->rss_increase_max);
		fprintf(f, "  %-16s %6s %6s %6s %12" PRIu64 " %12" PRIu64
		    " %8s %8s %8s %4u %8" PRId64 "\n", m->geometry->name, a, b,
		    m->geometry->cont ? c : "-", m->translations_now,
		    m->translations_after, d, e, g, m->aslr_bits_lost,
		    m->file_growth);
	}
}

static void
impact_json_segments(FILE *f, const struct elf_layout *L,
    const struct plan *P, uint64_t pmd)
{
	const char *sep = "";
	size_t i;

	fputs("\"segments\":[", f);
	for (i = 0; i < L->nsegs; i++) {
		const struct seg_desc *s = &L->segs[i];
		const struct seg_plan *sp = &P->segs[i];
		char flags[4];

		if (s->type != PT_LOAD)
			continue;
		flag_text(s->flags, flags);
		fprintf(f, "%s{\"index\":%zu,\"flags\":\"%s\",\"offset\":%" PRIu64
		    ",\"vaddr\":%" PRIu64 ",\"filesz\":%" PRIu64 ",\"align\":%"
		    PRIu64 ",\"eligible\":%s,\"windows_now\":%" PRIu64
		    ",\"windows_after\":%" PRIu64 ",\"seed_patch\":%s}", sep, i,
		    flags, s->offset, s->vaddr, s->filesz, s->align,
		    sp->verdict == SEG_ELIGIBLE ? "true" : "false",
		    sp->windows_now, sp->windows_after,
		    seed_patch_aligns(L, s, pmd) ? "true" : "false");
		sep = ",";
	}
	fputs("]", f);
}

static void
impact_json_geometries(FILE *f, const struct geometry_impact *imp, size_t n)
{
	size_t i;

	fputs("\"geometries\":[", f);
	for (i = 0; i < n; i++) {
		const struct geometry_impact *m = &imp[i];

		if (m->error[0] != '\0') {
			fprintf(f, "%s{\"name\":\"%s\",\"page\":%" PRIu64
			    ",\"pmd\":%" PRIu64 ",\"cont\":%" PRIu64
			    ",\"error\":", i ? "," : "", m->geometry->name,
			    m->geometry->page, m->geometry->pmd,
			    m->geometry->cont);
			json_string(f, m->error);
			fputc('}', f);
			continue;
		}
		fprintf(f, "%s{\"name\":\"%s\",\"page\":%" PRIu64 ",\"pmd\":%"
		    PRIu64 ",\"cont\":%" PRIu64 ",\"translations_now\":%" PRIu64
		    ",\"translations_after\":%" PRIu64 ",\"huge_bytes_now\":%"
		    PRIu64 ",\"huge_bytes_after\":%" PRIu64
		    ",\"rss_increase_max\":%" PRIu64 ",\"aslr_bits_lost\":%u,"
		    "\"file_growth\":%" PRId64 "}", i ? "," : "",
		    m->geometry->name, m->geometry->page, m->geometry->pmd,
		    m->geometry->cont, m->translations_now,
		    m->translations_after, m->huge_bytes_now,
		    m->huge_bytes_after, m->rss_increase_max, m->aslr_bits_lost,
		    m->file_growth);
	}
	fputs("]", f);
}

void
report_impact(FILE *f, enum format fmt, const char *name,
    const struct elf_layout *L, const struct plan *P,
    const struct geometry *own, const struct geometry_impact *imp, size_t n)
{
	bool after = P->base_aligned_after;

	if (fmt == FORMAT_JSON) {
		fputs("{\"file\":", f);
		json_string(f, name);
		fprintf(f, ",\"machine\":\"%s\",\"type\":\"%s\",\"geometry\":"
		    "\"%s\",\"pmd\":%" PRIu64 ",\"alignment\":%" PRIu64
		    ",\"base_aligned_now\":%s,\"base_aligned_after\":%s,",
		    machine_name(L->machine), file_kind(L), own->name, own->pmd,
		    P->huge_align,
		    P->base_aligned_now ? "true" : "false",
		    after ? "true" : "false");
		impact_json_segments(f, L, P, own->pmd);
		fputc(',', f);
		impact_json_geometries(f, imp, n);
		fputs("}\n", f);
		return;
	}
	fprintf(f, "%s: %s %s, %s; load base PMD-aligned: now %s, after %s\n",
	    name, machine_name(L->machine), file_kind(L), own->name,
	    P->base_aligned_now ? "yes" : "no", after ? "yes" : "no");
	impact_text_segments(f, L, P, own->pmd);
	impact_text_geometries(f, imp, n);
}

/* --- --check ------------------------------------------------------------- */

/*
 * Why a PT_LOAD must change.  A segment that only moves because one before
 * it moved has no finding of its own.
 */
static uint64_t
required_modulus(const struct elf_layout *L, const struct plan *P, size_t i)
{
	const struct seg_desc *s = &L->segs[i];

	if (P->segs[i].verdict == SEG_ELIGIBLE)
		return P->segs[i].target;
	return s->align > P->max_page ? s->align : P->max_page;
}

static bool
offset_finding(const struct elf_layout *L, const struct plan *P, size_t i)
{
	const struct seg_desc *s = &L->segs[i];

	return ((s->offset - s->vaddr) & (required_modulus(L, P, i) - 1)) != 0;
}

static bool
load_finding(const struct elf_layout *L, const struct plan *P, size_t i,
    char *text, size_t len)
{
	const struct seg_desc *s = &L->segs[i];
	const struct seg_plan *sp = &P->segs[i];
	uint64_t m = required_modulus(L, P, i);

	if (sp->verdict == SEG_PINNED) {
		snprintf(text, len, "PT_LOAD %zu: holds a full window and the "
		    "ELF and program headers, which cannot move, and p_offset "
		    "0x%" PRIx64 " is not congruent to p_vaddr 0x%" PRIx64
		    " modulo 0x%" PRIx64 " (not fixable: relink, for example "
		    "with -z separate-code)", i, s->offset, s->vaddr, sp->target);
		return true;
	}
	/* Only what the rewrite would change is a finding. */
	if (sp->new_offset == s->offset && sp->new_align == s->align)
		return false;
	if (offset_finding(L, P, i))
		snprintf(text, len, "PT_LOAD %zu: p_offset 0x%" PRIx64 " is not "
		    "congruent to p_vaddr 0x%" PRIx64 " modulo 0x%" PRIx64
		    " (needs 0x%" PRIx64 ")", i, s->offset, s->vaddr, m,
		    sp->new_offset);
	else if (sp->new_align != s->align)
		snprintf(text, len, "PT_LOAD %zu: p_align 0x%" PRIx64
		    " is below 0x%" PRIx64, i, s->align, sp->new_align);
	else
		return false;
	return true;
}

static void
finding(FILE *f, enum format fmt, const char *name, const char *text,
    bool *first)
{
	if (fmt == FORMAT_TEXT) {
		fprintf(f, "%s: %s\n", name, text);
		return;
	}
	fputs(*first ? "" : ",", f);
	json_string(f, text);
	*first = false;
}

static void
compat_text(const struct compat_finding *c, char *text, size_t len)
{
	switch (c->kind) {
	case COMPAT_OFFSET:
		snprintf(text, len, "PT_LOAD %zu: p_offset and p_vaddr differ "
		    "modulo the 0x%" PRIx64 " page (fixable: pad with "
		    "--page-size)", c->index, c->page);
		break;
	case COMPAT_ALIGN:
		snprintf(text, len, "PT_LOAD %zu: p_align 0x%" PRIx64 " is below "
		    "the 0x%" PRIx64 " page (fixable: raise with --page-size)",
		    c->index, c->align, c->page);
		break;
	case COMPAT_SHARED:
		snprintf(text, len, "PT_LOAD %zu: shares a 0x%" PRIx64 " page "
		    "with PT_LOAD %zu, which has other permissions (not "
		    "fixable: relink with -z max-page-size=0x%" PRIx64 ")",
		    c->index, c->page, c->other, c->page);
		break;
	}
}

/*
 * A page-size finding says the same as the plan's offset finding where the
 * plan asks for no more than the page; the page-size one, which says
 * whether padding fixes it, is kept.
 */
static bool
said_by_compat(const struct elf_layout *L, const struct plan *P,
    const struct compat_finding *cf, size_t ncf, size_t i)
{
	size_t k;

	for (k = 0; k < ncf; k++)
		if (cf[k].kind == COMPAT_OFFSET && cf[k].index == i &&
		    offset_finding(L, P, i) &&
		    required_modulus(L, P, i) <= cf[k].page)
			return true;
	return false;
}

void
report_check(FILE *f, enum format fmt, const char *name,
    const struct elf_layout *L, const struct plan *P,
    const struct compat_finding *cf, size_t ncf, enum file_class cls)
{
	bool first = true;
	char text[256];
	size_t i;

	if (fmt == FORMAT_JSON) {
		fputs("{\"file\":", f);
		json_string(f, name);
		fprintf(f, ",\"status\":\"%s\",\"findings\":[", class_text(cls));
	}
	for (i = 0; i < L->nsegs; i++)
		if (L->segs[i].type == PT_LOAD &&
		    !said_by_compat(L, P, cf, ncf, i) &&
		    load_finding(L, P, i, text, sizeof(text)))
			finding(f, fmt, name, text, &first);
	for (i = 0; i < ncf; i++) {
		compat_text(&cf[i], text, sizeof(text));
		finding(f, fmt, name, text, &first);
	}
	if (fmt == FORMAT_JSON)
		fprintf(f, "],\"windows_now\":%" PRIu64 ",\"windows_after\":%"
		    PRIu64 "}\n", P->windows_now, P->windows_after);
}

void
report_check_other(FILE *f, enum format fmt, const char *name,
    enum file_class cls, const char *why)
{
	if (fmt == FORMAT_TEXT) {
		if (cls != FILE_ERROR)	/* errors already went to stderr */
			fprintf(f, "%s: %s\n", name, why);
		return;
	}
	fputs("{\"file\":", f);
	json_string(f, name);
	fprintf(f, ",\"status\":\"%s\",\"findings\":[", class_text(cls));
	json_string(f, why);
	fputs("],\"windows_now\":0,\"windows_after\":0}\n", f);
}
