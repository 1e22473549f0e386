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
 *
 * Nor can padding move PT_GNU_RELRO's end.  ld.so rounds it down to the
 * page before mprotect, so where it ends inside a page that its PT_LOAD
 * goes on filling (.data after .got), the RELRO bytes on that page stay
 * writable: Android's 16 KiB rule, which Play Console checks.  RELRO that
 * runs to its PT_LOAD's end (lld's own RW segment) loses nothing there.
 */
#include <elf.h>
#include <stdint.h>

#include "elfthp_core.h"
#include "elfthp_util.h"

/* PT_GNU_RELRO's finding for pages of `page` bytes, if it has one. */
static bool
relro_finding(const struct elf_layout *L, uint64_t page, struct finding *f)
{
	size_t i, k;

	for (i = 0; i < L->nsegs; i++) {
		const struct seg_desc *r = &L->segs[i];
		uint64_t end = r->vaddr + r->memsz;

		if (r->type != PT_GNU_RELRO || r->memsz == 0 ||
		    end < r->vaddr || end % page == 0)
			continue;
		for (k = 0; k < L->nsegs; k++) {
			const struct seg_desc *s = &L->segs[k];

			if (s->type != PT_LOAD || r->vaddr < s->vaddr ||
			    r->vaddr - s->vaddr >= s->memsz)
				continue;
			if (end >= s->vaddr + s->memsz)
				return false;	/* a suffix of it */
			*f = (struct finding){ .code = FINDING_RELRO_END,
				.segment = i, .other = k, .have = end,
				.modulus = page };
			return true;
		}
	}
	return false;
}

/*
 * Every finding for pages of `page` bytes, the ones only a relink fixes
 * first, then offsets and p_aligns by header; the count may exceed max
 * (only max are stored).  The verdict: compatible, fixable by padding, or
 * needs a relink.  -1 if out of memory.
 */
int
compat_report(const struct elf_layout *L, uint64_t page, struct finding *out,
    size_t max, size_t *n, enum file_class *verdict)
{
	struct finding relro;
	size_t i, a, b;
	int shared = find_shared_page(L, page, &a, &b);
	bool relink;

	*n = 0;
	if (shared < 0)
		return -1;
	if (shared)
		finding_add(out, max, n, (struct finding){
		    .code = FINDING_PAGE_SHARED, .segment = a, .other = b,
		    .modulus = page });
	if ((relink = relro_finding(L, page, &relro)))
		finding_add(out, max, n, relro);
	for (i = 0; i < L->nsegs; i++) {
		const struct seg_desc *s = &L->segs[i];

		if (s->type != PT_LOAD)
			continue;
		if (!congruent(s->offset, s->vaddr, page))
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
	*verdict = shared || relink ? FILE_NEEDS_RELINK : *n > 0 ?
	    FILE_FIXABLE : FILE_COMPATIBLE;
	return 0;
}
