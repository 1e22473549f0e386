/*
 * Formatting only: takes what was read and planned, writes text.  No ELF
 * parsing and no arithmetic beyond what is needed to print.
 */
#include <bsd/libutil.h>
#include <elf.h>
#include <inttypes.h>
#include <stdio.h>

#include "elfthp.h"

void
format_size(char *buf, size_t len, uint64_t bytes)
{
	/* Four significant digits at most: "7.1MiB", not "7439664B". */
	if (humanize_number(buf, len < 8 ? len : 8, (int64_t)bytes, "B", HN_AUTOSCALE,
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
	char target[16];
	int64_t growth = (int64_t)(P->new_size - L->file_size);

	format_size(target, sizeof(target), P->target);
	if (!P->changed && P->n_eligible == 0)
		fprintf(f, "%s: nothing to do (no read-only segment holds a "
		    "full %s window)\n", name, target);
	else if (!P->changed)
		fprintf(f, "%s: nothing to do (already aligned, %" PRIu64
		    " window%s)\n", name, P->windows_after,
		    plural(P->windows_after));
	else if (dry_run)
		fprintf(f, "%s: would align %zu segment%s, %" PRIu64 " window%s, "
		    "file %+" PRId64 " bytes\n", name, P->n_aligned,
		    plural(P->n_aligned), P->windows_after,
		    plural(P->windows_after), growth);
	else
		fprintf(f, "%s: %zu segment%s aligned, %" PRIu64 " window%s, "
		    "file %+" PRId64 " bytes\n", name, P->n_aligned,
		    plural(P->n_aligned), P->windows_after,
		    plural(P->windows_after), growth);
}

static void
flag_text(uint32_t flags, char buf[4])
{
	buf[0] = flags & PF_R ? 'R' : ' ';
	buf[1] = flags & PF_W ? 'W' : ' ';
	buf[2] = flags & PF_X ? 'E' : ' ';
	buf[3] = '\0';
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
