/* SPDX-License-Identifier: BSD-2-Clause */
/* SPDX-FileCopyrightText: 2026 the elfthp-align authors */
/*
 * Which PMD windows of a file --warm works on; pure.
 *
 * A window of a read-only PT_LOAD whose offset and address agree modulo
 * the PMD is also a PMD-aligned range of the file, and the page cache
 * indexes the file: that range is what must become one PMD-sized folio.
 * Windows of incongruent segments have no such range; they only count
 * (a rewrite would make them usable).  Overlapping segments name a range
 * once: the ranges are kept as a bitmap over the file's PMD ranges, so the
 * work stays in proportion to the file, whatever the header tables say.
 */
#include <elf.h>
#include <stdlib.h>
#include <string.h>

#include "elfthp_core.h"
#include "elfthp_util.h"

static void
mark(struct warm_plan *w, uint64_t k)
{
	if (k < w->nranges && !(w->bits[k / 8] & (1u << (k % 8)))) {
		w->bits[k / 8] |= (uint8_t)(1u << (k % 8));
		w->warmable++;
	}
}

bool
warm_range(const struct warm_plan *w, uint64_t k)
{
	return k < w->nranges && (w->bits[k / 8] & (1u << (k % 8)));
}

/* Mark the PMD-aligned file ranges inside [offset, offset + filesz). */
static void
mark_segment(struct warm_plan *w, const struct seg_desc *s)
{
	uint64_t first = (s->offset + w->pmd - 1) / w->pmd;
	uint64_t end = (s->offset + s->filesz) / w->pmd;
	uint64_t k;

	if (end > w->nranges)
		end = w->nranges;
	for (k = first; k < end; k++)
		mark(w, k);
}

/*
 * Fills w for layout L and PMD size pmd (a power of two).  base_aligned is
 * the plan's base_aligned_now.  Returns -1 if out of memory; the caller
 * frees w with warm_plan_free() in every case.
 */
int
warm_plan_build(const struct elf_layout *L, uint64_t pmd, bool base_aligned,
    struct warm_plan *w)
{
	size_t i;

	*w = (struct warm_plan){ .pmd = pmd, .nranges = L->file_size / pmd,
		.base_aligned = base_aligned };
	if ((w->bits = calloc(w->nranges / 8 + 1, 1)) == NULL)
		return -1;
	for (i = 0; i < L->nsegs; i++) {
		const struct seg_desc *s = &L->segs[i];
		uint64_t n = windows_in(s->vaddr, s->filesz, pmd);

		if (s->type != PT_LOAD || (s->flags & PF_W) || n == 0)
			continue;
		if (congruent(s->offset, s->vaddr, pmd))
			mark_segment(w, s);
		else
			w->misaligned += n;
	}
	return 0;
}

void
warm_plan_free(struct warm_plan *w)
{
	free(w->bits);
	w->bits = NULL;
}

uint64_t
warm_not_huge(const struct warm_result *r)
{
	uint64_t n = 0;
	int i;

	for (i = 0; i < WARM_NREASONS; i++)
		n += r->not_huge[i];
	return n;
}

/*
 * No window: nothing to warm (never "all huge").  All of the file's
 * windows huge: ready.  A look (--warm -n) judges what is huge now: a
 * window it would make huge is not huge yet, so that file is not huge
 * (exit 1), not ready.  A file that cannot be mapped
 * huge as it is (incongruent segments, or a base the loader need not
 * align) needs a rewrite, however much of it was warmed.  A look the
 * kernel refused (r->cache_refused: not a writer) says only what the
 * layout says: unknown, not a verdict on huge pages.
 */
enum file_class
warm_verdict(const struct warm_result *r)
{
	if (r->windows == 0)
		return FILE_NO_WINDOWS;
	if (r->not_huge[WARM_NOT_ALIGNED] > 0 ||
	    (r->windows > 0 && !r->base_aligned))
		return FILE_NEEDS_REWRITE;
	/* The layout is known; which windows are huge is not. */
	if (r->cache_refused)
		return FILE_CACHE_UNKNOWN;
	if (warm_not_huge(r) > 0 || (r->look_only && r->made_huge > 0))
		return FILE_NOT_HUGE;
	return FILE_READY;
}

const char *
window_state_name(enum window_state s)
{
	switch (s) {
	case WINDOW_HUGE: return "huge";
	case WINDOW_UNCACHED: return "not-cached";
	case WINDOW_SMALL: return "small-folios";
	case WINDOW_BUSY: return "small-folios-mapped";
	case WINDOW_NO_FOLIOS: return "no-huge-folios";
	case WINDOW_MADE_HUGE: return "made-huge";
	case WINDOW_STILL_SMALL: return "still-small";
	case WINDOW_COLLAPSE: return "small-folios-collapse";
	case WINDOW_UNKNOWN: return "unknown";
	case WINDOW_NONE: break;
	}
	return "none";
}

uint64_t
windows_in_state(const uint8_t *states, uint64_t nranges,
    enum window_state which)
{
	uint64_t k, n = 0;

	for (k = 0; states != NULL && k < nranges; k++)
		n += states[k] == which;
	return n;
}

/*
 * The rewrite's page-cache step: not huge where a window that could be
 * huge on this host is not (a process maps its small folios, no huge
 * page could be had; a read that failed is an error, not a verdict).  A file system that keeps no huge
 * folios, or windows only a relink aligns, are said but not failed:
 * nothing this host can run does better.
 */
enum file_class
settle_verdict(const struct warm_result *r)
{
	if (r->not_huge[WARM_BUSY] + r->not_huge[WARM_NO_HUGE_PAGE] +
	    r->not_huge[WARM_STILL_CACHED] > 0)
		return FILE_NOT_HUGE;
	return FILE_DONE;
}
