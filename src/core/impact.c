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

/*
 * Translations for one executable segment of which w windows are mapped
 * with PMDs: windows, blocks, base pages.
 */
static uint64_t
translations_with(const struct phdr_view *s, const struct seg_desc *g,
    const struct geometry *geo, uint64_t w)
{
	uint64_t start = g->vaddr / geo->page * geo->page;
	uint64_t len = round_up(g->vaddr + g->memsz, geo->page) - start;
	uint64_t c = 0;

	if (geo->cont && usable(s, g, geo->cont))
		c = windows_in(g->vaddr, g->filesz, geo->cont) -
		    w * (geo->pmd / geo->cont);
	return w + c + (len - w * geo->pmd - c * geo->cont) / geo->page;
}

/* The windows of a segment the layout lets the kernel map with PMDs. */
static uint64_t
layout_windows(const struct phdr_view *s, const struct seg_desc *g,
    const struct geometry *geo)
{
	if (!geometry_pmd_counts(geo) || !usable(s, g, geo->pmd))
		return 0;
	return windows_in(g->vaddr, g->filesz, geo->pmd);
}

static uint64_t
translations(const struct phdr_view *s, const struct seg_desc *g,
    const struct geometry *geo)
{
	return translations_with(s, g, geo, layout_windows(s, g, geo));
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
		w = layout_windows(s, g, geo);
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
 * Windows of segment g (usable as laid out) whose file range is in a
 * state `counts` accepts.  A congruent segment's window at address a is
 * the file's PMD range (offset + a - vaddr) / pmd.
 */
static uint64_t
windows_cached(const struct phdr_view *s, const struct seg_desc *g,
    const struct geometry *geo, const struct cache_view *cv, bool after)
{
	uint64_t a, n = 0, pmd = geo->pmd;

	if (layout_windows(s, g, geo) == 0)
		return 0;
	for (a = round_up(g->vaddr, pmd); a + pmd <= g->vaddr + g->filesz;
	    a += pmd) {
		uint64_t k = (g->offset + (a - g->vaddr)) / pmd;
		uint8_t st = k < cv->nranges ? cv->states[k] : WINDOW_NONE;

		/* After the page-cache step: what it makes huge too (also
		 * small folios it collapses in place, mapped or not). */
		n += st == WINDOW_HUGE || (after && (st == WINDOW_SMALL ||
		    st == WINDOW_UNCACHED || st == WINDOW_COLLAPSE));
	}
	return n;
}

/* One view's translations and huge windows, from the page cache. */
static void
measure_cached(const struct phdr_view *s, const struct geometry *geo,
    const struct cache_view *cv, bool after, uint64_t *trans,
    uint64_t *windows)
{
	size_t i;

	*trans = *windows = 0;
	for (i = 0; i < s->nsegs; i++) {
		const struct seg_desc *g = &s->segs[i];
		uint64_t w;

		if (g->type != PT_LOAD)
			continue;
		w = windows_cached(s, g, geo, cv, after);
		if (g->flags & PF_X)
			*trans += translations_with(s, g, geo, w);
		*windows += w;
	}
}

/*
 * The alignment the host's base has: the largest p_align, or the PMD
 * where the planner's one rule (load_base_aligned) says this host aligns
 * it anyway (a shared library on a file system that places mappings by
 * their offset).
 */
static uint64_t
host_base_align(const struct elf_layout *L, const struct plan *P,
    bool base_aligned, const struct geometry *geo)
{
	uint64_t a = max_load_align(L, P);

	return base_aligned && a < geo->pmd ? geo->pmd : a;
}

/*
 * The host's own geometry, measured: NOW counts only the windows that are
 * huge in the page cache now (and usable: congruent, base aligned).
 * AFTER is what `elfthp-align FILE` leaves: a rewritten file is written
 * with large writes, so all its windows where the file system keeps huge
 * folios; an unchanged one, those huge now and those the page-cache step
 * makes huge (not those a process pins, nor where no folio can be huge).
 * `out` holds impact_compute's model for the geometry, and `after` its
 * program headers as the plan leaves them.
 */
void
impact_measured(const struct elf_layout *L, const struct plan *P,
    const struct cache_view *cv, struct geometry_impact *out,
    const struct seg_desc *after)
{
	const struct geometry *geo = out->geometry;
	struct phdr_view now = { .segs = L->segs, .nsegs = L->nsegs,
		.type = L->type, .max_align = host_base_align(L, NULL,
		P->base_aligned_now, geo) };
	uint64_t w_now, w_after;

	measure_cached(&now, geo, cv, false, &out->translations_now, &w_now);
	if (P->changed) {
		if (!cv->fs_keeps_huge) {
			struct phdr_view then = now;

			then.segs = after;
			then.max_align = host_base_align(L, P,
			    P->base_aligned_after, geo);
			measure_cached(&then, geo, &(struct cache_view){ 0 },
			    false, &out->translations_after, &w_after);
		} else {
			w_after = out->windows_after;
		}
	} else {
		measure_cached(&now, geo, cv, true, &out->translations_after,
		    &w_after);
	}
	out->huge_bytes_now = w_now * geo->pmd;
	out->huge_bytes_after = w_after * geo->pmd;
	out->windows_after = w_after;
	out->rss_increase_max = (w_after > w_now ? w_after - w_now : 0) *
	    (geo->pmd - geo->page);
	/* A base this host aligns already loses no more ASLR to the rewrite. */
	if (now.max_align >= geo->pmd)
		out->aslr_bits_lost = 0;
	out->measured = true;
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
	if (file_kind(L) == KIND_SHARED_LIBRARY)
		return false;
	if (s->type != PT_LOAD || (s->flags & PF_W) || pmd > PMD_CAP)
		return false;
	return s->vaddr % pmd == 0 && s->offset % pmd == 0 &&
	    s->filesz >= pmd && s->align < pmd;
}

/*
 * glibc 2.44's glibc.elf.thp (_dl_segment_thp_eligible): a PT_LOAD mapped
 * read-only (executable or not) whose page-rounded start and file offset
 * are multiples of the THP size and whose page-rounded extent holds at
 * least one; ld.so then asks MADV_HUGEPAGE for it.  A static program has
 * no ld.so to ask (load_takers says so apart).
 */
static bool
glibc_thp_takes(const struct seg_desc *s, uint64_t thp, uint64_t page)
{
	uint64_t start = s->vaddr / page * page, off = s->offset / page * page;
	uint64_t end = (s->vaddr + s->filesz + page - 1) / page * page;

	if (s->type != PT_LOAD || (s->flags & PF_W) || !(s->flags & PF_R))
		return false;
	return end - start >= thp && ((start | off) & (thp - 1)) == 0;
}

/*
 * Whether an ld.so loads the file: not a static PIE, not an ET_EXEC
 * without PT_INTERP (the reader notes PT_INTERP for ET_DYN only).  Once
 * per file, not per segment: the table may hold 65535 entries.
 */
bool
layout_has_ld_so(const struct elf_layout *L)
{
	enum file_kind k = file_kind(L);
	size_t i;

	if (k == KIND_STATIC_PIE)
		return false;
	if (k != KIND_EXECUTABLE)
		return true;
	for (i = 0; i < L->nsegs; i++)
		if (L->segs[i].type == PT_INTERP)
			return true;
	return false;
}

/*
 * Who makes one PT_LOAD huge at load time, computed once for every report;
 * has_ld_so is layout_has_ld_so's answer for the file.
 */
void
load_takers(const struct elf_layout *L, const struct seg_desc *s,
    uint64_t pmd, uint64_t page, bool has_ld_so, struct load_takers *t)
{
	t->has_ld_so = has_ld_so;
	/* No plan (a refused file): no PMD to judge by, nobody takes it. */
	t->glibc = pmd != 0 && t->has_ld_so && glibc_thp_takes(s, pmd, page);
	t->kernel = pmd != 0 && kernel_patch_aligns(L, s, pmd);
	/* bionic: PF_X segments whose p_align is exactly 2 MiB. */
	t->bionic = s->type == PT_LOAD && (s->flags & PF_X) &&
	    s->align == 2 * MiB;
}

/* The words the report and JSON use for each kind. */
const char *
file_kind_name(enum file_kind k)
{
	switch (k) {
	case KIND_EXECUTABLE: return "executable";
	case KIND_PIE: return "pie";
	case KIND_STATIC_PIE: return "static-pie";
	case KIND_SHARED_LIBRARY: break;
	}
	return "shared-library";
}
