/* SPDX-License-Identifier: BSD-2-Clause */
/* SPDX-FileCopyrightText: 2026 the elfthp-align authors */
/*
 * Questions about a layout that the door (validate.c), the planner, the
 * findings, the compat check and the window counts all ask: the PT_LOADs
 * in order, how many huge windows a range holds, which two PT_LOADs share
 * a page, what a segment must stay congruent to.  Pure, and below all of
 * them, so that none of them has to reach into another for it.
 */
#include <elf.h>
#include <stdlib.h>

#include "elfthp_core.h"
#include "elfthp_util.h"

/* p_align of 0 and 1 both mean "no constraint". */
uint64_t
load_align(const struct seg_desc *s)
{
	return s->align > 1 ? s->align : 1;
}

uint64_t
windows_in(uint64_t vaddr, uint64_t filesz, uint64_t pmd)
{
	uint64_t first, last;

	if (pmd == 0 || filesz == 0 || filesz > UINT64_MAX - vaddr)
		return 0;
	first = vaddr / pmd + (vaddr % pmd != 0);
	last = (vaddr + filesz) / pmd;
	return last > first ? last - first : 0;
}

/* Ties keep header order, so that every caller sees one order. */
static int
cmp_load_ref(const void *a, const void *b)
{
	const struct load_ref *x = a, *y = b;

	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/*
 * PT_LOADs sorted by file offset, or by address (to find the one whose
 * memory image holds a SHT_NOBITS section: one sort, then a binary search
 * per section, where a scan per section made planning sections x headers).
 * The caller frees; NULL if out of memory.
 */
struct load_ref *
loads_sorted(const struct elf_layout *L, bool by_addr, size_t *n)
{
	struct load_ref *v = calloc(L->nsegs ? L->nsegs : 1, sizeof(*v));
	size_t i;

	*n = 0;
	if (v == NULL)
		return NULL;
	for (i = 0; i < L->nsegs; i++)
		if (L->segs[i].type == PT_LOAD)
			v[(*n)++] = (struct load_ref){ by_addr ?
			    L->segs[i].vaddr : L->segs[i].offset, i };
	qsort(v, *n, sizeof(*v), cmp_load_ref);
	return v;
}

/*
 * First pair of PT_LOADs, by address, with different flags whose memory
 * images touch one page of `page` bytes: 1 and the pair, 0 if none, -1
 * if out of memory.  One page cannot have two protections.
 */
int
find_shared_page(const struct elf_layout *L, uint64_t page, size_t *a,
    size_t *b)
{
	size_t i, n = 0, prev = SIZE_MAX;
	struct load_ref *v = loads_sorted(L, true, &n);
	int found = 0;

	if (v == NULL)
		return -1;
	for (i = 0; i < n && !found; i++) {
		const struct seg_desc *q = &L->segs[v[i].idx];
		const struct seg_desc *p;

		if (q->memsz == 0)
			continue;
		p = prev == SIZE_MAX ? NULL : &L->segs[prev];
		if (p != NULL && p->flags != q->flags &&
		    (p->vaddr + p->memsz - 1) / page >= q->vaddr / page) {
			*a = prev;
			*b = v[i].idx;
			found = 1;
		}
		prev = v[i].idx;
	}
	free(v);
	return found;
}

/*
 * The largest power-of-two p_align of the PT_LOADs: the input's, or with P
 * the plan's.  The kernel (ET_DYN executables) and glibc (libraries) align
 * the load base to it.
 */
uint64_t
max_load_align(const struct elf_layout *L, const struct plan *P)
{
	uint64_t maxalign = 0, a;
	size_t i;

	for (i = 0; i < L->nsegs; i++) {
		a = P ? P->segs[i].new_align : L->segs[i].align;
		if (L->segs[i].type == PT_LOAD && is_pow2(a))
			maxalign = max_u64(maxalign, a);
	}
	return maxalign;
}

enum file_kind
file_kind(const struct elf_layout *L)
{
	if (L->type == ET_EXEC)
		return KIND_EXECUTABLE;
	if (L->flags1_pie)
		return L->has_interp ? KIND_PIE : KIND_STATIC_PIE;
	if (L->has_interp && !L->has_soname)
		return KIND_PIE;	/* linked before DF_1_PIE existed */
	return KIND_SHARED_LIBRARY;
}

/*
 * The span ld.so maps first: from the lowest PT_LOAD's address to the end
 * of the highest.  Its offset is the lowest PT_LOAD's (*first).
 */
static uint64_t
load_span(const struct elf_layout *L, const struct seg_desc **first)
{
	uint64_t end = 0;
	size_t i;

	*first = NULL;
	for (i = 0; i < L->nsegs; i++) {
		const struct seg_desc *s = &L->segs[i];

		if (s->type != PT_LOAD)
			continue;
		if (*first == NULL || s->vaddr < (*first)->vaddr)
			*first = s;
		end = max_u64(end, s->vaddr + s->memsz);
	}
	return *first == NULL ? 0 : end - (*first)->vaddr;
}

/*
 * Is the load base a multiple of target?  The one rule every mode asks.
 * ET_EXEC loads where it was linked.  The kernel aligns a PIE's base to
 * its largest p_align, and so does glibc >= 2.35 a shared library's.  A
 * shared library's base is aligned all the same where the host places a
 * file mapping of a PMD or more at an address congruent to its offset
 * (placed_by_offset, measured: ext4, XFS, tmpfs huge=; not overlayfs):
 * ld.so's first mapping of it, glibc's or musl's, covers its whole span
 * from the lowest PT_LOAD's offset.  P: with the plan's p_align, else
 * as the file is.
 */
bool
load_base_aligned(const struct elf_layout *L, const struct plan *P,
    uint64_t target, bool placed_by_offset)
{
	const struct seg_desc *first;

	if (L->type != ET_DYN || max_load_align(L, P) >= target)
		return true;
	if (!placed_by_offset || file_kind(L) != KIND_SHARED_LIBRARY)
		return false;
	return load_span(L, &first) >= target &&
	    congruent(first->offset, first->vaddr, target);
}

/*
 * What a PT_LOAD's offset must be congruent to its address modulo: its own
 * p_align and the machine's largest page, and for an eligible one its
 * target too.  The planner places by it and the findings name it, so
 * --check names the reason the planner acted on.
 */
uint64_t
plan_modulus(const struct seg_desc *s, const struct seg_plan *sp,
    uint64_t max_page)
{
	uint64_t m = max_u64(load_align(s), max_page);

	return sp->verdict == SEG_ELIGIBLE ? max_u64(m, sp->target) : m;
}
