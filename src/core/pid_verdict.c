/* SPDX-License-Identifier: BSD-2-Clause */
/* SPDX-FileCopyrightText: 2026 the elfthp-align authors */
/*
 * --pid's verdict: which windows of a mapped file a running process has
 * PMD-mapped, why not the others, and the step that fixes them.  Pure:
 * pid_scan.c measures, this decides, report_runtime.c words it.
 *
 * The windows are the ones --report counts: full PMD ranges inside
 * [p_vaddr, p_vaddr + p_filesz) of each read-only PT_LOAD, read from the
 * file's own program headers.  The RELRO part of the writable PT_LOAD is
 * mapped read-only too (r--p), but it is written by ld.so before the
 * mprotect, so its pages are anonymous copies: it never counts.
 */
#include <elf.h>

#include "elfthp_core.h"
#include "elfthp_util.h"

static bool
read_only_load(const struct seg_desc *s)
{
	return s->type == PT_LOAD && (s->flags & PF_W) == 0;
}

uint64_t
pid_file_windows(const struct elf_layout *L, uint64_t pmd)
{
	uint64_t n = 0;
	size_t i;

	for (i = 0; i < L->nsegs; i++)
		if (read_only_load(&L->segs[i]))
			n += windows_in(L->segs[i].vaddr, L->segs[i].filesz, pmd);
	return n;
}

/*
 * The process address of the window that starts at file offset off, or 0
 * if no read-only mapping holds all of it, or the address or the offset
 * is not PMD-aligned: the kernel maps a PMD only where both are
 * (thp_vma_suitable_order), so the window gets base pages.
 */
static uint64_t
window_address(const struct pid_map *maps, size_t n, uint64_t off,
    uint64_t pmd)
{
	size_t i;

	for (i = 0; i < n; i++) {
		const struct pid_map *m = &maps[i];
		uint64_t len = m->end - m->start, at;

		if (m->writable || off < m->offset || off - m->offset > len ||
		    len - (off - m->offset) < pmd)
			continue;
		at = m->start + (off - m->offset);
		return at % pmd == 0 && off % pmd == 0 ? at : 0;
	}
	return 0;
}

/*
 * The windows the process has at PMD-aligned addresses: their addresses
 * in addrs (at most max), and how many.  A window of a congruent PT_LOAD
 * in a library or PIE whose base is not PMD-aligned is not placed.
 */
size_t
pid_place_windows(const struct elf_layout *L, const struct pid_map *maps,
    size_t nmaps, uint64_t pmd, uint64_t *addrs, size_t max)
{
	size_t i, placed = 0;
	uint64_t va, at;

	for (i = 0; i < L->nsegs; i++) {
		const struct seg_desc *s = &L->segs[i];

		if (!read_only_load(s) || windows_in(s->vaddr, s->filesz,
		    pmd) == 0)
			continue;
		for (va = (s->vaddr + pmd - 1) / pmd * pmd;
		    va + pmd <= s->vaddr + s->filesz; va += pmd) {
			at = window_address(maps, nmaps,
			    s->offset + (va - s->vaddr), pmd);
			if (at != 0 && placed < max)
				addrs[placed++] = at;
		}
	}
	return placed;
}

/* What keeps the windows that are not huge from being huge, with THP
 * allowed and the file system able: the first of these that applies. */
static enum pid_status
not_huge_cause(const struct pid_facts *f)
{
	if (f->placed < f->windows)
		return PID_LAYOUT;
	if (f->resident > f->huge)
		return PID_SMALL_FOLIOS;
	/* Every window it has not run is one PMD folio in the cache already. */
	if (f->resident < f->placed &&
	    f->cache_huge >= f->huge + (f->placed - f->resident))
		return PID_CACHE_HUGE;
	return PID_NOT_TOUCHED;
}

/* Small folios it maps: collapsed in place where MADV_COLLAPSE works. */
static enum pid_fix
fix_for(enum pid_status s, const struct pid_facts *f)
{
	switch (s) {
	case PID_LAYOUT: return FIX_REWRITE_RESTART;
	case PID_SMALL_FOLIOS: return f->collapse == TRI_YES ?
	    FIX_WARM_IN_PLACE : FIX_STOP_WARM_START;
	case PID_NOT_TOUCHED: return FIX_WARM;
	case PID_REPLACED: return FIX_RESTART;
	case PID_THP_DISABLED: return FIX_ENABLE_THP;
	case PID_NO_HUGE_FOLIOS: return FIX_OTHER_FS;
	case PID_HUGE: case PID_PARTLY_HUGE: case PID_NOTHING_TO_GAIN:
	case PID_CACHE_HUGE: break;
	}
	return FIX_NONE;
}

/*
 * Most decisive first: a file with no window has nothing to gain, one
 * with every window PMD-mapped is huge (replaced or not); a replaced file's old inode keeps its old cache and layout, so only a
 * restart helps; a process with THP disabled and a file system without
 * huge folios get no PMD whatever the layout and the cache.
 */
void
pid_decide(const struct pid_facts *f, struct pid_verdict *v)
{
	uint64_t huge = f->windows_known ? min_u64(f->huge, f->windows) : 0;

	*v = (struct pid_verdict){ .status = PID_HUGE, .rest = PID_HUGE,
		.huge_bytes = huge * f->pmd };
	if (f->windows_known && f->windows == 0)
		v->status = PID_NOTHING_TO_GAIN;
	else if (f->windows_known && huge == f->windows)
		v->status = PID_HUGE;
	else if (f->replaced || !f->windows_known)
		v->status = PID_REPLACED;
	else if (f->thp_disabled)
		v->status = PID_THP_DISABLED;
	else if (f->fs_keeps_huge == TRI_NO)
		v->status = PID_NO_HUGE_FOLIOS;
	else
		v->status = not_huge_cause(f);
	if (huge > 0 && v->status != PID_HUGE) {
		v->rest = v->status;
		v->status = PID_PARTLY_HUGE;
	}
	v->fix = fix_for(v->status == PID_PARTLY_HUGE ? v->rest : v->status, f);
	if (f->windows_known)
		v->missed_bytes = (f->windows - huge) * f->pmd;
}

/* The JSON codes: the two reasons a file cannot be huge here share one. */
const char *
pid_status_name(enum pid_status s)
{
	switch (s) {
	case PID_HUGE: return "huge";
	case PID_PARTLY_HUGE: return "partly-huge";
	case PID_SMALL_FOLIOS: return "small-folios";
	case PID_NOT_TOUCHED: return "not-touched";
	case PID_CACHE_HUGE: return "huge-in-cache";
	case PID_LAYOUT: return "layout";
	case PID_REPLACED: return "replaced";
	case PID_THP_DISABLED: return "cannot-be-huge";
	case PID_NO_HUGE_FOLIOS: return "cannot-be-huge";
	case PID_NOTHING_TO_GAIN: return "nothing-to-gain";
	}
	return "unknown";
}

/* The reason under a status: what keeps the rest of a partly huge file,
 * or which of the two a file that cannot be huge here is. */
const char *
pid_reason_name(enum pid_status s)
{
	if (s == PID_THP_DISABLED)
		return "thp-disabled";
	if (s == PID_NO_HUGE_FOLIOS)
		return "no-huge-folios";
	return pid_status_name(s);
}
