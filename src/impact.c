/* SPDX-License-Identifier: BSD-2-Clause */
/* SPDX-FileCopyrightText: 2026 the elfthp-align authors */
/*
 * The impact model behind --report: pure arithmetic over the layout and a
 * plan, per page geometry.  It counts translations (TLB entries needed to
 * map the executable segments) and bytes; it does not predict miss rates.
 *
 * A block of size B (a PMD window or a contiguous-PTE block) counts only
 * where the kernel could map it as one: the segment's offset and address
 * agree modulo B, and the load base is a multiple of B (always for
 * ET_EXEC; for ET_DYN, the largest power-of-two p_align must be >= B,
 * since that is what the kernel and glibc align the base to; docs/loading.md).
 */
#include <elf.h>
#include <string.h>

#include "elfthp_core.h"
#include "elfthp_util.h"

/* The program headers before or after the rewrite, as the loader sees them. */
struct phdr_view {
	const struct seg_desc *segs;	/* offsets and aligns of this view */
	size_t nsegs;
	uint16_t type;
	uint64_t max_align;	/* largest power-of-two PT_LOAD p_align */
};

static bool
usable(const struct phdr_view *s, const struct seg_desc *g, uint64_t b)
{
	if (b == 0 || (g->flags & PF_W))
		return false;
	if (!congruent(g->offset, g->vaddr, b))
		return false;
	return s->type != ET_DYN || s->max_align >= b;
}

static uint64_t
round_up(uint64_t x, uint64_t a)
{
	return (x + a - 1) / a * a;
}

/* Translations for one executable segment: windows, blocks, base pages. */
static uint64_t
translations(const struct phdr_view *s, const struct seg_desc *g,
    const struct geometry *geo)
{
	uint64_t start = g->vaddr / geo->page * geo->page;
	uint64_t len = round_up(g->vaddr + g->memsz, geo->page) - start;
	uint64_t w = 0, c = 0;

	if (geometry_pmd_counts(geo) && usable(s, g, geo->pmd))
		w = windows_in(g->vaddr, g->filesz, geo->pmd);
	if (geo->cont && usable(s, g, geo->cont))
		c = windows_in(g->vaddr, g->filesz, geo->cont) -
		    w * (geo->pmd / geo->cont);
	return w + c + (len - w * geo->pmd - c * geo->cont) / geo->page;
}

static void
measure(const struct phdr_view *s, const struct geometry *geo, uint64_t *trans,
    uint64_t *huge, uint64_t *windows)
{
	size_t i;

	*trans = *huge = *windows = 0;
	for (i = 0; i < s->nsegs; i++) {
		const struct seg_desc *g = &s->segs[i];
		uint64_t w = 0;

		if (g->type != PT_LOAD)
			continue;
		if (g->flags & PF_X)
			*trans += translations(s, g, geo);
		if (geometry_pmd_counts(geo) && usable(s, g, geo->pmd))
			w = windows_in(g->vaddr, g->filesz, geo->pmd);
		*windows += w;
		*huge += w * geo->pmd;
	}
}

static unsigned
log2_u64(uint64_t x)
{
	unsigned n = 0;

	while (x > 1) {
		x >>= 1;
		n++;
	}
	return n;
}

/*
 * `after` holds the program headers as the plan leaves them: a copy of the
 * input's with the plan's offsets and aligns.
 */
void
impact_compute(const struct elf_layout *L, const struct plan *P,
    const struct geometry *geo, struct seg_desc *after,
    struct geometry_impact *out)
{
	struct phdr_view now, then;
	uint64_t windows_now, before;
	size_t i;

	memcpy(after, L->segs, L->nsegs * sizeof(*after));
	for (i = 0; i < L->nsegs; i++) {
		after[i].offset = P->segs[i].new_offset;
		after[i].align = P->segs[i].new_align;
	}
	/* Once per view: asking per segment made --report quadratic. */
	now = (struct phdr_view){ .segs = L->segs, .nsegs = L->nsegs,
		.type = L->type, .max_align = max_load_align(L, NULL) };
	then = (struct phdr_view){ .segs = after, .nsegs = L->nsegs,
		.type = L->type, .max_align = max_load_align(L, P) };
	memset(out, 0, sizeof(*out));
	out->geometry = geo;	/* and error "": planned */
	out->target = geometry_target(geo);
	measure(&now, geo, &out->translations_now, &out->huge_bytes_now,
	    &windows_now);
	measure(&then, geo, &out->translations_after, &out->huge_bytes_after,
	    &out->windows_after);
	out->rss_increase_max = out->windows_after * (geo->pmd - geo->page);
	/*
	 * What the rewrite costs: the base's alignment after it, against the
	 * alignment it had (at least a page) before.
	 */
	before = now.max_align > geo->page ? now.max_align : geo->page;
	if (L->type == ET_DYN && then.max_align > before)
		out->aslr_bits_lost = log2_u64(then.max_align / before);
	out->file_growth = (int64_t)(P->new_size - L->file_size);
}

/*
 * The proposed kernel loader change (binfmt_elf, should_align_to_pmd): a
 * non-writable PT_LOAD whose address and offset are both PMD-aligned,
 * with p_filesz >= PMD and p_align < PMD, and a PMD of at most 32 MiB.
 * It applies to what the kernel loads, never to shared libraries.
 */
bool
kernel_patch_aligns(const struct elf_layout *L, const struct seg_desc *s,
    uint64_t pmd)
{
	if (strcmp(file_kind(L), "shared-library") == 0)
		return false;
	if (s->type != PT_LOAD || (s->flags & PF_W) || pmd > PMD_CAP)
		return false;
	return s->vaddr % pmd == 0 && s->offset % pmd == 0 &&
	    s->filesz >= pmd && s->align < pmd;
}

const char *
file_kind(const struct elf_layout *L)
{
	if (L->type == ET_EXEC)
		return "executable";
	if (L->flags1_pie)
		return L->has_interp ? "pie" : "static-pie";
	if (L->has_interp && !L->has_soname)
		return "pie";	/* linked before DF_1_PIE existed */
	return "shared-library";
}
