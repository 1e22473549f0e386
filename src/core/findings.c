/* SPDX-License-Identifier: BSD-2-Clause */
/* SPDX-FileCopyrightText: 2026 the elfthp-align authors */
/*
 * What --check finds, as data: computed once here from
 * the plan the rewrite would apply (or from the page-size facts), never
 * again by the report.  Pure.
 *
 * Huge-page readiness: a file is ready exactly when the rewrite with the
 * same options would change nothing, and no window is out of the
 * rewrite's reach.  Each finding names the segment whose header the
 * rewrite changes, and why; a segment that only moves because one before
 * it moved has no finding of its own.
 *
 * Page-size compatibility is compat.c's.
 */
#include <elf.h>

#include "elfthp_core.h"
#include "elfthp_util.h"

static const char *const code_names[] = {
	[FINDING_PINNED] = "headers-pinned",
	[FINDING_OFFSET] = "offset-incongruent",
	[FINDING_ALIGN] = "align-below-target",
	[FINDING_PAGE_SHARED] = "page-shared",
	[FINDING_PAGE_OFFSET] = "page-offset",
	[FINDING_PAGE_ALIGN] = "page-align",
	[FINDING_RELRO_END] = "relro-end",
	[FINDING_START] = "start-unaligned",
};

const char *
finding_code_name(enum finding_code c)
{
	return (size_t)c < sizeof(code_names) / sizeof(code_names[0]) ?
	    code_names[c] : "unknown";
}

/*
 * Padding moves file offsets and raises p_align; it never moves an
 * address.  What an address causes (headers pinned in an incongruent
 * segment, two permissions on one page, RELRO's end inside a page) only a
 * relink fixes.
 */
enum fix_kind
finding_fix(enum finding_code c)
{
	switch (c) {
	case FINDING_OFFSET:
	case FINDING_ALIGN:
	case FINDING_START:
		return FIX_REWRITE;
	case FINDING_PAGE_OFFSET:
	case FINDING_PAGE_ALIGN:
		return FIX_PAGE_SIZE;
	case FINDING_PINNED:
	case FINDING_PAGE_SHARED:
	case FINDING_RELRO_END:
		break;
	}
	return FIX_RELINK;
}

/* Store f if there is room; count it either way. */
void
finding_add(struct finding *out, size_t max, size_t *n, struct finding f)
{
	if (*n < max)
		out[*n] = f;
	(*n)++;
}

/* One PT_LOAD's finding, if the plan changes its header for a reason of its own. */
static bool
load_finding(const struct elf_layout *L, const struct plan *P, size_t i,
    struct finding *f)
{
	const struct seg_desc *s = &L->segs[i];
	const struct seg_plan *sp = &P->segs[i];
	uint64_t m = plan_modulus(s, sp, P->max_page);

	*f = (struct finding){ .segment = i, .other = SIZE_MAX };
	if (sp->verdict == SEG_PINNED) {
		f->code = FINDING_PINNED;
		f->have = s->offset;
		f->modulus = sp->target;
		return true;
	}
	if (sp->new_offset == s->offset && sp->new_align == s->align &&
	    sp->split_at != 0) {
		f->code = FINDING_START;
		f->have = s->vaddr;
		f->want = sp->split_at;
		f->modulus = sp->target;
		return true;
	}
	if (sp->new_offset == s->offset && sp->new_align == s->align)
		return false;
	if (!congruent(s->offset, s->vaddr, m)) {
		f->code = FINDING_OFFSET;
		f->have = s->offset;
		f->want = sp->new_offset;
		f->modulus = m;
		return true;
	}
	if (sp->new_align != s->align) {
		f->code = FINDING_ALIGN;
		f->have = s->align;
		f->want = sp->new_align;
		return true;
	}
	return false;	/* moved along with a segment before it */
}

size_t
readiness_findings(const struct elf_layout *L, const struct plan *P,
    struct finding *out, size_t max)
{
	struct finding f;
	size_t i, n = 0;

	/* What only a relink fixes comes first. */
	for (i = 0; i < L->nsegs; i++)
		if (L->segs[i].type == PT_LOAD && load_finding(L, P, i, &f) &&
		    f.code == FINDING_PINNED)
			finding_add(out, max, &n, f);
	for (i = 0; i < L->nsegs; i++)
		if (L->segs[i].type == PT_LOAD && load_finding(L, P, i, &f) &&
		    f.code != FINDING_PINNED)
			finding_add(out, max, &n, f);
	return n;
}

enum file_class
readiness_verdict(const struct plan *P)
{
	if (P->n_pinned > 0)
		return FILE_NEEDS_RELINK;
	return P->changed ? FILE_NEEDS_REWRITE : FILE_READY;
}

/*
 * A plan the rewrite refuses can still be a verdict: with --page-size, two
 * permissions on one page need a relink.  True (and the finding) for that
 * refusal; false for an error.
 */
bool
refusal_finding(const struct plan_error *e, struct finding *f,
    enum file_class *verdict)
{
	if (e->code != PLAN_PAGE_SHARED)
		return false;
	*f = (struct finding){ .code = FINDING_PAGE_SHARED, .segment = e->index,
		.other = e->other, .modulus = e->value };
	*verdict = FILE_NEEDS_RELINK;
	return true;
}
