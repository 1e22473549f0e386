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
#include <stdlib.h>

#include "elfthp.h"

struct by_vaddr {
	uint64_t vaddr;
	size_t idx;
};

static int
cmp_vaddr(const void *a, const void *b)
{
	const struct by_vaddr *x = a, *y = b;

	if (x->vaddr != y->vaddr)
		return x->vaddr < y->vaddr ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/* First pair of PT_LOADs with different flags on one page; 0 if none, -1 on ENOMEM. */
int
find_shared_page(const struct elf_layout *L, uint64_t page, size_t *a,
    size_t *b)
{
	struct by_vaddr *v = calloc(L->nsegs ? L->nsegs : 1, sizeof(*v));
	size_t i, n = 0;
	int found = 0;

	if (v == NULL)
		return -1;
	for (i = 0; i < L->nsegs; i++)
		if (L->segs[i].type == PT_LOAD && L->segs[i].memsz > 0)
			v[n++] = (struct by_vaddr){ L->segs[i].vaddr, i };
	qsort(v, n, sizeof(*v), cmp_vaddr);
	for (i = 1; i < n && !found; i++) {
		const struct seg_desc *p = &L->segs[v[i - 1].idx];
		const struct seg_desc *q = &L->segs[v[i].idx];

		if (p->flags != q->flags &&
		    (p->vaddr + p->memsz - 1) / page >= q->vaddr / page) {
			*a = v[i - 1].idx;
			*b = v[i].idx;
			found = 1;
		}
	}
	free(v);
	return found;
}

size_t
compat_findings(const struct elf_layout *L, uint64_t page,
    struct compat_finding *out, size_t max)
{
	size_t i, n = 0, a, b;

	for (i = 0; i < L->nsegs && n < max; i++) {
		const struct seg_desc *s = &L->segs[i];

		if (s->type != PT_LOAD)
			continue;
		if (((s->offset - s->vaddr) & (page - 1)) != 0)
			out[n++] = (struct compat_finding){ COMPAT_OFFSET, i, 0,
			    page, s->align };
		if (s->align < page && n < max)
			out[n++] = (struct compat_finding){ COMPAT_ALIGN, i, 0,
			    page, s->align };
	}
	if (n < max && find_shared_page(L, page, &a, &b) == 1)
		out[n++] = (struct compat_finding){ COMPAT_SHARED, a, b, page,
		    L->segs[a].align };
	return n;
}
