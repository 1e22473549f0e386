/* SPDX-License-Identifier: BSD-2-Clause */
/* SPDX-FileCopyrightText: 2026 the elfthp-align authors */
/*
 * Page-size compatibility: can this file load on a kernel whose base page
 * is `page`?  Pure functions over the layout.
 *
 * A PT_LOAD whose offset and address disagree modulo the page, or whose
 * p_align is below it, is fixable by padding (elfthp-align --page-size).
 * Two PT_LOADs with different permissions whose memory images touch the
 * same page are not: one page cannot have two protections, and no file
 * offset can change that.  Only a relink with -z max-page-size helps.
 */
#include <elf.h>
#include <stdint.h>
#include <stdlib.h>

#include "elfthp_core.h"

/* First pair of PT_LOADs with different flags on one page; 0 if none, -1 on ENOMEM. */
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
 * Every finding for pages of `page` bytes, the one only a relink fixes
 * first, then offsets and p_aligns by header; the count may exceed max
 * (only max are stored).  The verdict: compatible, fixable by padding, or
 * needs a relink.  -1 if out of memory.
 */
int
compat_report(const struct elf_layout *L, uint64_t page, struct finding *out,
    size_t max, size_t *n, enum file_class *verdict)
{
	size_t i, a, b;
	int shared = find_shared_page(L, page, &a, &b);

	*n = 0;
	if (shared < 0)
		return -1;
	if (shared)
		finding_add(out, max, n, (struct finding){
		    .code = FINDING_PAGE_SHARED, .segment = a, .other = b,
		    .modulus = page });
	for (i = 0; i < L->nsegs; i++) {
		const struct seg_desc *s = &L->segs[i];

		if (s->type != PT_LOAD)
			continue;
		if (((s->offset - s->vaddr) & (page - 1)) != 0)
			finding_add(out, max, n, (struct finding){
			    .code = FINDING_PAGE_OFFSET, .segment = i,
			    .other = SIZE_MAX, .have = s->offset,
			    .modulus = page });
		if (s->align < page)
			finding_add(out, max, n, (struct finding){
			    .code = FINDING_PAGE_ALIGN, .segment = i,
			    .other = SIZE_MAX, .have = s->align, .want = page,
			    .modulus = page });
	}
	*verdict = shared ? FILE_NEEDS_RELINK : *n > 0 ? FILE_FIXABLE :
	    FILE_COMPATIBLE;
	return 0;
}
