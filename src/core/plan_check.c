/* SPDX-License-Identifier: BSD-2-Clause */
/* SPDX-FileCopyrightText: 2026 the elfthp-align authors */
/*
 * Second opinion on a plan, run before any byte is written.  It shares no
 * code with the planner on purpose: it checks the result against the rules
 * (congruence, nothing overlaps, everything inside the file, every byte
 * of every segment and section copied unchanged), not the method.
 *
 * Its range tests (within, ranges_meet) are its own copies of
 * range_within and ranges_overlap, kept apart deliberately, so that a
 * slip in the planner's cannot make both agree on a wrong answer; the one
 * congruence test is shared (elfthp_util.h), and the tests check
 * congruence with arithmetic of their own.
 */
#include <elf.h>
#include <stdlib.h>
#include <string.h>

#include "elfthp_core.h"
#include "elfthp_util.h"

static int
bad(struct plan_error *e, const char *detail, size_t index)
{
	e->code = PLAN_VERIFY;
	e->detail = detail;
	e->index = index;
	return -1;
}

static bool
within(uint64_t off, uint64_t len, uint64_t size)
{
	return len <= size && off <= size - len;
}

/* Extents must be in output order, disjoint, and inside both files. */
static bool
extents_sane(const struct elf_layout *L, const struct plan *P)
{
	uint64_t end = 0;
	size_t i;

	for (i = 0; i < P->nextents; i++) {
		const struct extent *x = &P->extents[i];

		if (!within(x->src, x->len, L->file_size) ||
		    !within(x->dst, x->len, P->new_size) || x->dst < end)
			return false;
		end = x->dst + x->len;
	}
	return true;
}

/* Are input bytes [old, old + len) copied unchanged to new? */
static bool
copied(const struct plan *P, uint64_t old, uint64_t new, uint64_t len)
{
	size_t lo = 0, hi = P->nextents;

	if (len == 0)
		return true;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (P->extents[mid].dst <= new)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return false;
	const struct extent *x = &P->extents[lo - 1];
	return old >= x->src && new - x->dst == old - x->src &&
	    new - x->dst <= x->len && len <= x->len - (new - x->dst);
}

static int
check_load(const struct elf_layout *L, const struct plan_params *p,
    const struct plan *P, size_t i, struct plan_error *e)
{
	const struct seg_desc *s = &L->segs[i];
	const struct seg_plan *sp = &P->segs[i];
	bool touched = sp->new_offset != s->offset || sp->new_align != s->align;

	if (!congruent(sp->new_offset, s->vaddr, p->input_page))
		return bad(e, "PT_LOAD not page-congruent", i);
	if (touched && !congruent(sp->new_offset, s->vaddr, sp->new_align))
		return bad(e, "PT_LOAD not congruent modulo its p_align", i);
	/* p_align places an ET_DYN's base; an ET_EXEC loads where linked. */
	if (sp->verdict == SEG_ELIGIBLE && (sp->target < (p->fallback_align ?
	    p->fallback_align : p->huge_align) ||
	    (sp->new_align < sp->target && L->type != ET_EXEC) ||
	    !congruent(sp->new_offset, s->vaddr, sp->target)))
		return bad(e, "eligible PT_LOAD not aligned to the target", i);
	if (s->filesz > 0 && !within(sp->new_offset, s->filesz, P->new_size))
		return bad(e, "PT_LOAD past the end of the new file", i);
	return 0;
}

struct range {
	uint64_t start;
	uint64_t end;
	size_t idx;	/* program header index */
};

static int
cmp_range(const void *a, const void *b)
{
	const struct range *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

/* New PT_LOAD file ranges are disjoint; the first one has not moved. */
static int
check_load_ranges(const struct elf_layout *L, const struct plan *P,
    struct plan_error *e)
{
	struct range *r;
	uint64_t first_old = UINT64_MAX, first_new = 0;
	size_t i, n = 0;
	int rc = 0;

	if ((r = calloc(L->nsegs ? L->nsegs : 1, sizeof(*r))) == NULL)
		return bad(e, "out of memory", 0);
	for (i = 0; i < L->nsegs; i++) {
		const struct seg_desc *s = &L->segs[i];

		if (s->type != PT_LOAD || s->filesz == 0)
			continue;
		if (s->offset < first_old) {
			first_old = s->offset;
			first_new = P->segs[i].new_offset;
		}
		r[n++] = (struct range){ P->segs[i].new_offset,
		    P->segs[i].new_offset + s->filesz, i };
	}
	qsort(r, n, sizeof(*r), cmp_range);
	for (i = 1; i < n && rc == 0; i++)
		if (r[i].start < r[i - 1].end)
			rc = bad(e, "PT_LOAD file ranges overlap", r[i].idx);
	if (rc == 0 && n > 0 && first_old != first_new)
		rc = bad(e, "the first PT_LOAD moved", 0);
	free(r);
	return rc;
}

static bool
ranges_meet(uint64_t a, uint64_t alen, uint64_t b, uint64_t blen)
{
	return alen > 0 && blen > 0 && a < b + blen && b < a + alen;
}

/*
 * The new section header table must not be written over other headers or
 * segment bytes, except where it is a segment's own bytes: inside the same
 * PT_LOAD as in the input, at the same place in it, with every entry the
 * same (no section moved), so that writing it changes nothing there.
 */
static bool
shdrs_inside_as_before(const struct elf_layout *L, const struct plan *P,
    size_t i, uint64_t len)
{
	const struct seg_desc *s = &L->segs[i];
	size_t k;

	if (L->shoff < s->offset || !within(L->shoff - s->offset, len,
	    s->filesz) || P->new_shoff - P->segs[i].new_offset !=
	    L->shoff - s->offset)
		return false;
	for (k = 0; k < L->nsecs; k++)
		if (P->sec_offset[k] != L->secs[k].offset)
			return false;
	return true;
}

static int
check_shdrs_apart(const struct elf_layout *L, const struct plan *P,
    struct plan_error *e)
{
	uint64_t len = L->nsecs * L->shentsize;
	size_t i;

	/* The program headers may come after the section headers: apart. */
	if (ranges_meet(P->new_shoff, len, 0, L->ehdr_size) ||
	    ranges_meet(P->new_shoff, len, P->new_phoff,
	    L->nsegs * L->phentsize))
		return bad(e, "section headers over the program headers", 0);
	for (i = 0; i < L->nsegs; i++)
		if (L->segs[i].type == PT_LOAD && ranges_meet(P->new_shoff, len,
		    P->segs[i].new_offset, L->segs[i].filesz) &&
		    !shdrs_inside_as_before(L, P, i, len))
			return bad(e, "section headers over a PT_LOAD", i);
	/* SHT_NULL entries are inactive (gABI): their fields mean nothing,
	 * as check_sections treats them. */
	for (i = 0; i < L->nsecs; i++)
		if (L->secs[i].type != SHT_NOBITS &&
		    L->secs[i].type != SHT_NULL && ranges_meet(P->new_shoff,
		    len, P->sec_offset[i], L->secs[i].size) &&
		    !(L->shoff >= L->secs[i].offset && P->new_shoff -
		    P->sec_offset[i] == L->shoff - L->secs[i].offset))
			return bad(e, "section headers over a section", i);
	return 0;
}

static int
check_sections(const struct elf_layout *L, const struct plan *P,
    struct plan_error *e)
{
	uint64_t align = L->elfclass == ELFCLASS64 ? 8 : 4;
	size_t i;

	for (i = 0; i < L->nsecs; i++) {
		const struct sec_desc *c = &L->secs[i];

		if (c->type == SHT_NOBITS || c->type == SHT_NULL)
			continue;
		if (!copied(P, c->offset, P->sec_offset[i], c->size))
			return bad(e, "section bytes not preserved", i);
	}
	if (L->shoff == 0)	/* and the ELF header must say so still */
		return P->new_shoff == 0 ? 0 :
		    bad(e, "section header table made up", 0);
	/* It keeps its alignment (whatever it was): it moves by whole words. */
	if (P->new_shoff < L->shoff || (P->new_shoff - L->shoff) % align != 0 ||
	    !within(P->new_shoff, L->nsecs * L->shentsize, P->new_size))
		return bad(e, "section header table misplaced", 0);
	return check_shdrs_apart(L, P, e);
}

/* ELFCLASS32 fields hold 32 bits: every new offset must fit in them. */
static int
check_class32(const struct elf_layout *L, const struct plan *P,
    struct plan_error *e)
{
	size_t i;

	if (L->elfclass != ELFCLASS32)
		return 0;
	if (P->new_size > (UINT64_C(1) << 32) || P->new_shoff > UINT32_MAX)
		return bad(e, "ELFCLASS32 file past 4 GiB", 0);
	for (i = 0; i < L->nsegs; i++)
		if (P->segs[i].new_offset > UINT32_MAX ||
		    P->segs[i].new_align > UINT32_MAX)
			return bad(e, "ELFCLASS32 offset past 4 GiB", i);
	for (i = 0; i < L->nsecs; i++)
		if (P->sec_offset[i] > UINT32_MAX)
			return bad(e, "ELFCLASS32 section offset past 4 GiB", i);
	return 0;
}

/*
 * The ELF header stays at 0.  The program header table may move (a table
 * after the segments, as BOLT writes it, goes with its PT_LOAD), but its
 * bytes are copied whole, off the ELF header, at the same place inside
 * every PT_LOAD that held it, and a PT_PHDR that named it names it still:
 * the kernel and ld.so find the table in memory from PT_PHDR or from
 * that PT_LOAD.
 */
static int
check_headers(const struct elf_layout *L, const struct plan *P,
    struct plan_error *e)
{
	uint64_t len = L->nsegs * L->phentsize;
	size_t i;

	if (!copied(P, 0, 0, L->ehdr_size))
		return bad(e, "the ELF header moved", 0);
	if (!copied(P, L->phoff, P->new_phoff, len) ||
	    ranges_meet(P->new_phoff, len, 0, L->ehdr_size))
		return bad(e, "the program headers not preserved", 0);
	for (i = 0; i < L->nsegs; i++) {
		const struct seg_desc *s = &L->segs[i];
		uint64_t now = P->segs[i].new_offset;

		if (s->type == PT_PHDR && s->offset == L->phoff &&
		    now != P->new_phoff)
			return bad(e, "PT_PHDR left the program headers", i);
		if (s->type == PT_LOAD && L->phoff >= s->offset &&
		    within(L->phoff - s->offset, len, s->filesz) &&
		    P->new_phoff - now != L->phoff - s->offset)
			return bad(e, "the program headers left their PT_LOAD", i);
	}
	return 0;
}

/*
 * What follows a body in the file begins one window past its last whole
 * window at the least, so that a read-around of the next segment's first
 * faults (up to 4 MiB of read_ahead_kb) stays out of the body.
 */
static int
check_gap(const struct elf_layout *L, const struct plan *P, size_t i,
    const struct seg_desc *b, struct plan_error *e)
{
	uint64_t t = P->huge_align, last = (b->vaddr + b->filesz) / t * t;
	uint64_t least = b->offset + (last - b->vaddr) + t;
	size_t j;

	for (j = 0; j < L->nsegs; j++)
		if (j != i && L->segs[j].type == PT_LOAD &&
		    L->segs[j].filesz > 0 && P->segs[j].new_offset > b->offset &&
		    P->segs[j].new_offset < least)
			return bad(e, "no window of file after the split body",
			    j);
	return 0;
}

/*
 * The split's table, checked against the input's headers, not against
 * the planner's method: every input header comes out once, in order, as
 * planned; a split PT_LOAD as two with its flags whose ranges cover
 * exactly its own, the second starting on the target in both address
 * and offset; the table itself inside the PT_LOAD that held it, in its
 * last page, over no segment or section, and PT_PHDR naming it.
 */
static bool
same_but_ranges(const struct seg_desc *a, const struct seg_desc *b)
{
	return a->type == b->type && a->flags == b->flags &&
	    a->align == b->align && a->vaddr - a->offset == b->vaddr - b->offset;
}

static int
check_pieces(const struct elf_layout *L, const struct plan *P, size_t i,
    const struct seg_desc *out, struct plan_error *e)
{
	const struct seg_desc *s = &L->segs[i];
	const struct seg_desc *h = &out[0], *b = &out[1];
	uint64_t off = P->segs[i].new_offset, t = P->huge_align;

	if (!same_but_ranges(h, b) || h->type != PT_LOAD ||
	    h->flags != s->flags || h->vaddr != s->vaddr ||
	    h->offset != off || h->filesz != h->memsz ||
	    h->vaddr + h->memsz != b->vaddr || h->offset + h->filesz != b->offset)
		return bad(e, "split pieces do not join", i);
	if (h->filesz + b->filesz != s->filesz || h->memsz + b->memsz !=
	    s->memsz || b->paddr - h->paddr != h->memsz)
		return bad(e, "split pieces do not cover the segment", i);
	if (b->vaddr % t != 0 || b->offset % t != 0 || h->memsz == 0 ||
	    h->memsz >= t)
		return bad(e, "split body not on the first window", i);
	return check_gap(L, P, i, b, e);
}

static bool
table_apart(const struct elf_layout *L, const struct plan *P, uint64_t len)
{
	size_t i;

	for (i = 0; i < L->nsegs; i++)
		if (L->segs[i].type == PT_LOAD && i != P->table_load &&
		    ranges_meet(P->table_off, len, P->segs[i].new_offset,
		    L->segs[i].filesz))
			return false;
	for (i = 0; i < L->nsecs; i++)
		if (L->secs[i].type != SHT_NOBITS &&
		    L->secs[i].type != SHT_NULL && ranges_meet(P->table_off,
		    len, P->sec_offset[i], L->secs[i].size))
			return false;
	return !ranges_meet(P->table_off, len, P->new_shoff,
	    L->nsecs * L->shentsize) && !ranges_meet(P->table_off, len,
	    P->new_phoff, L->nsegs * L->phentsize) &&
	    within(P->table_off, len, P->new_size);
}

/* The holder grew over the table, in its last page, and nothing else. */
static int
check_table_home(const struct elf_layout *L, const struct plan_params *p,
    const struct plan *P, const struct seg_desc *grown, uint64_t len,
    struct plan_error *e)
{
	const struct seg_desc *s = &L->segs[P->table_load];
	uint64_t end = P->segs[P->table_load].new_offset + s->filesz;
	uint64_t pg = p->input_page, k;

	if (P->table_off < end || P->table_off + len >
	    (end + pg - 1) / pg * pg || !table_apart(L, P, len))
		return bad(e, "program headers not in the last page of their "
		    "PT_LOAD", P->table_load);
	if (grown->offset + grown->filesz != P->table_off + len ||
	    grown->filesz != grown->memsz)
		return bad(e, "PT_LOAD does not end with the program headers",
		    P->table_load);
	for (k = 0; k < P->nphdrs_out; k++)
		if (P->phdrs_out[k].type == PT_PHDR &&
		    (P->phdrs_out[k].offset != P->table_off ||
		    P->phdrs_out[k].filesz != len ||
		    P->phdrs_out[k].vaddr - P->table_off !=
		    s->vaddr - P->segs[P->table_load].new_offset))
			return bad(e, "PT_PHDR does not name the program "
			    "headers", k);
	return 0;
}

/* One input header's entries in the split's table; *k moves past them. */
static int
check_entry(const struct elf_layout *L, const struct plan *P, size_t i,
    size_t *k, const struct seg_desc **grown, struct plan_error *e)
{
	const struct seg_desc *o = &P->phdrs_out[*k];
	struct seg_desc want = L->segs[i];
	bool split = P->segs[i].split_at != 0;

	want.offset = P->segs[i].new_offset;
	want.align = P->segs[i].new_align;
	if (*k + 1 + split > P->nphdrs_out)
		return bad(e, "split table too short", i);
	if (split && check_pieces(L, P, i, o, e) != 0)
		return -1;
	*k += 1 + split;
	if (i == P->table_load) {
		*grown = &P->phdrs_out[*k - 1];
		want.filesz = o->filesz;	/* grown: check_table_home */
		want.memsz = o->memsz;
	}
	if (split || want.type == PT_PHDR)
		return 0;
	if (memcmp(&want, o, sizeof(want)) != 0)
		return bad(e, "split table changed a header", i);
	return 0;
}

static int
check_split(const struct elf_layout *L, const struct plan_params *p,
    const struct plan *P, struct plan_error *e)
{
	const struct seg_desc *grown = NULL;
	size_t i, k = 0, n = 0;

	if (P->nsplit == 0)
		return P->phdrs_out == NULL ? 0 :
		    bad(e, "split table without a split", 0);
	if (!p->split || P->table_load >= L->nsegs ||
	    L->segs[P->table_load].type != PT_LOAD)
		return bad(e, "split not asked for", 0);
	for (i = 0; i < L->nsegs; i++) {
		n += P->segs[i].split_at != 0;
		if (check_entry(L, P, i, &k, &grown, e) != 0)
			return -1;
	}
	if (k != P->nphdrs_out || n != P->nsplit || k >= PN_XNUM)
		return bad(e, "split table has entries of its own", 0);
	return check_table_home(L, p, P, grown,
	    (uint64_t)P->nphdrs_out * L->phentsize, e);
}

int
plan_verify(const struct elf_layout *L, const struct plan_params *p,
    const struct plan *P, struct plan_error *e)
{
	size_t i;

	if (!extents_sane(L, P))
		return bad(e, "copy extents overlap or leave the file", 0);
	if (check_headers(L, P, e) != 0)
		return -1;
	for (i = 0; i < L->nsegs; i++) {
		const struct seg_desc *s = &L->segs[i];

		if (s->filesz > 0 &&
		    !copied(P, s->offset, P->segs[i].new_offset, s->filesz))
			return bad(e, "segment bytes not preserved", i);
		if (s->type == PT_LOAD && check_load(L, p, P, i, e) != 0)
			return -1;
	}
	if (check_load_ranges(L, P, e) != 0 || check_class32(L, P, e) != 0 ||
	    check_split(L, p, P, e) != 0)
		return -1;
	return check_sections(L, P, e);
}
