/* SPDX-License-Identifier: BSD-2-Clause */
/* SPDX-FileCopyrightText: 2026 the elfthp-align authors */
/*
 * The planner: a pure function from segment and section descriptors to a
 * new file layout.  It never prints, exits, or does I/O, so the unit tests
 * drive it with hand-built tables.
 *
 * Model.  The input file is cut into shifts (struct shift: a run of bytes
 * moved as one) at the start of every PT_LOAD that has file bytes.  Each
 * shift moves by one delta; deltas never shrink from one shift to the
 * next, so shifts keep their order and nothing overlaps.  A PT_LOAD's delta is the smallest that makes its offset
 * congruent to its address modulo what it needs (the target for eligible
 * segments, its own p_align and the architecture's largest page for the
 * rest).  Bytes between PT_LOADs travel with the shift before them, so
 * nothing in the file is dropped; the holes opened between shifts become
 * padding.  Every other header offset is translated through the shifts.
 */
#include <elf.h>
#include <stdlib.h>
#include <string.h>

#include "elfthp_core.h"
#include "elfthp_util.h"

/* Smallest x >= from with x == want (mod m), m a power of two. */
static int
next_congruent(uint64_t from, uint64_t want, uint64_t m, uint64_t *x)
{
	uint64_t add = (want - from) & (m - 1);

	if (from > UINT64_MAX - add)
		return -1;
	*x = from + add;
	return 0;
}

/* The PT_LOAD whose file bytes hold the section header table, or SIZE_MAX. */
static size_t
load_holding_shdrs(const struct elf_layout *L)
{
	uint64_t len = L->nsecs * L->shentsize;
	size_t i;

	for (i = 0; L->shoff != 0 && len != 0 && i < L->nsegs; i++)
		if (L->segs[i].type == PT_LOAD && L->shoff >= L->segs[i].offset &&
		    range_within(L->shoff - L->segs[i].offset, len,
		    L->segs[i].filesz))
			return i;
	return SIZE_MAX;
}

/*
 * A table inside a segment is that segment's bytes, which the rewrite never
 * changes: so no section may move, or its sh_offset would.
 */
static int
check_shdrs_kept(const struct elf_layout *L, const struct plan *P,
    struct plan_error *e)
{
	size_t k = load_holding_shdrs(L), i;

	if (k == SIZE_MAX)
		return 0;
	for (i = 0; i < L->nsecs; i++)
		if (P->sec_offset[i] != L->secs[i].offset)
			return plan_fail(e, PLAN_SHDRS_IN_LOAD, k, i, L->shoff);
	return 0;
}

/*
 * The end of what must stay where it is: the ELF header, and the program
 * header table where it comes before the second PT_LOAD with file bytes
 * (every linker puts it after the ELF header, in the first PT_LOAD).  A
 * table placed after that (BOLT appends one in a last PT_LOAD, with its
 * PT_PHDR) is a segment's bytes like any other, and moves with them: it
 * pins nothing, and e_phoff follows it.
 */
/*
 * The first PT_LOAD with file bytes, by offset: it never moves (the check
 * pass holds the planner to that), even where an empty PT_LOAD sorts
 * before it.  Its index in order, or nload.
 */
static size_t
first_with_bytes(const struct elf_layout *L, const struct load_ref *order,
    size_t nload)
{
	size_t k;

	for (k = 0; k < nload && L->segs[order[k].idx].filesz == 0; k++)
		;
	return k;
}

static uint64_t
pinned_end(const struct elf_layout *L, const struct load_ref *order,
    size_t nload)
{
	uint64_t second = UINT64_MAX;
	size_t k, with_bytes = 0;

	for (k = 0; k < nload && second == UINT64_MAX; k++)
		if (L->segs[order[k].idx].filesz > 0 && with_bytes++ == 1)
			second = L->segs[order[k].idx].offset;
	if (L->phoff < second)
		return max_u64(L->ehdr_size, L->phoff + L->nsegs * L->phentsize);
	return L->ehdr_size;
}
static enum seg_verdict
verdict_for(const struct seg_desc *s, bool pinned, uint64_t target)
{
	if (s->type != PT_LOAD)
		return SEG_NOT_LOAD;
	if (s->flags & PF_W)
		return SEG_WRITABLE;
	if (windows_in(s->vaddr, s->filesz, target) == 0)
		return SEG_NO_WINDOW;
	if (pinned && !congruent(s->offset, s->vaddr,
	    max_u64(target, load_align(s))))
		return SEG_PINNED;
	return SEG_ELIGIBLE;
}

/*
 * The target, or where the geometry has one and the segment holds no full
 * target window, the fallback (arm64 with 16 KiB pages: 32 MiB PMDs, else
 * 2 MiB contiguous-PTE blocks).
 */
static void
choose_target(const struct seg_desc *s, bool pinned,
    const struct plan_params *p, struct seg_plan *sp)
{
	sp->target = p->huge_align;
	sp->verdict = verdict_for(s, pinned, p->huge_align);
	if (sp->verdict != SEG_NO_WINDOW || p->fallback_align == 0)
		return;
	sp->verdict = verdict_for(s, pinned, p->fallback_align);
	sp->target = p->fallback_align;
}

uint64_t
plan_windows_now(const struct elf_layout *L, const struct plan *P,
    uint64_t target, bool placed_by_offset)
{
	uint64_t n = 0;
	size_t i;

	if (!load_base_aligned(L, NULL, target, placed_by_offset))
		return 0;
	for (i = 0; i < L->nsegs; i++)
		if (L->segs[i].type == PT_LOAD && !(L->segs[i].flags & PF_W) &&
		    P->segs[i].congruent_now)
			n += windows_in(L->segs[i].vaddr, L->segs[i].filesz,
			    target);
	return n;
}

/* Decide eligibility and count windows before anything moves. */
static void
judge_loads(const struct elf_layout *L, const struct plan_params *p,
    const struct load_ref *order, size_t nload, struct plan *P)
{
	uint64_t hdr_end = pinned_end(L, order, nload);
	size_t k, first = first_with_bytes(L, order, nload);

	P->base_aligned_now = load_base_aligned(L, NULL, p->huge_align,
	    p->placed_by_offset);
	for (k = 0; k < nload; k++) {
		const struct seg_desc *s = &L->segs[order[k].idx];
		struct seg_plan *sp = &P->segs[order[k].idx];
		bool pinned = k <= first || s->offset < hdr_end;
		uint64_t w = windows_in(s->vaddr, s->filesz, p->huge_align);

		choose_target(s, pinned, p, sp);
		sp->congruent_now = congruent(s->offset, s->vaddr, p->huge_align);
		if (!(s->flags & PF_W) && sp->congruent_now && P->base_aligned_now)
			sp->windows_now = w;
		if (sp->verdict == SEG_ELIGIBLE) {
			sp->windows_after = w;
			P->n_eligible++;
		}
		if (sp->verdict == SEG_PINNED && P->n_pinned++ == 0)
			P->first_pinned = order[k].idx;
		P->windows_now += sp->windows_now;
		P->windows_after += sp->windows_after;
	}
}

/*
 * Arrays grow by doubling, their capacity implied by the count (the next
 * power of two): one slot more each time made 65534 PT_LOADs quadratic.
 */
static void *
with_room(void *v, size_t n, size_t size)
{
	if ((n & (n - 1)) != 0)	/* 0, 1, 2, 4, ...: full */
		return v;
	return realloc(v, (n ? 2 * n : 1) * size);
}

static int
add_shift(struct plan *P, uint64_t start, uint64_t delta)
{
	struct shift *b;

	if (P->nshifts > 0 && P->shifts[P->nshifts - 1].delta == delta)
		return 0;
	if (P->nshifts > 0 && P->shifts[P->nshifts - 1].start == start) {
		P->shifts[P->nshifts - 1].delta = delta;
		return 0;
	}
	if ((b = with_room(P->shifts, P->nshifts, sizeof(*b))) == NULL)
		return -1;
	P->shifts = b;
	P->shifts[P->nshifts++] = (struct shift){ start, 0, delta };
	return 0;
}

static uint64_t
modulus_for(const struct seg_desc *s, const struct seg_plan *sp,
    const struct plan_params *p)
{
	return plan_modulus(s, sp, p->max_page);
}

/*
 * *x moved on by whole windows (and whole moduli m of its own, a power
 * of two) until it is at least need: congruence is kept.
 */
static int
past_gap(uint64_t need, uint64_t huge, uint64_t m, uint64_t *x)
{
	uint64_t step = m > huge ? m : huge, n;

	if (*x >= need)
		return 0;
	n = (need - *x + step - 1) / step;
	if (n > (UINT64_MAX - *x) / step)
		return -1;
	*x += n * step;
	return 0;
}

/*
 * Give each PT_LOAD with file bytes its new offset, in file order; with
 * the split, what follows a body starts a window after its last window
 * (split_gap_end).
 */
static int
place_loads(const struct elf_layout *L, const struct plan_params *p,
    const struct load_ref *order, size_t nload, struct plan *P,
    struct plan_error *e)
{
	uint64_t hdr_end = pinned_end(L, order, nload), delta = 0, next;
	uint64_t need = 0;
	size_t k, first = first_with_bytes(L, order, nload);

	if (add_shift(P, 0, 0) != 0)
		return plan_fail(e, PLAN_ENOMEM, 0, 0, 0);
	for (k = 0; k < nload; k++) {
		size_t i = order[k].idx;
		const struct seg_desc *s = &L->segs[i];
		struct seg_plan *sp = &P->segs[i];

		if (s->filesz == 0)
			continue;
		next = s->offset;
		if (k > first && s->offset >= hdr_end && (next_congruent(
		    s->offset + delta, s->vaddr, modulus_for(s, sp, p),
		    &next) != 0 || past_gap(need, p->huge_align,
		    modulus_for(s, sp, p), &next) != 0))
			return plan_fail(e, PLAN_OVERFLOW, i, 0, s->offset);
		delta = next - s->offset;
		sp->new_offset = next;
		need = p->split ? split_gap_end(s, sp, p->huge_align, next) : 0;
		if (add_shift(P, s->offset, delta) != 0)
			return plan_fail(e, PLAN_ENOMEM, 0, 0, 0);
	}
	return 0;
}

static size_t
shift_of(const struct plan *P, uint64_t off)
{
	size_t lo = 0, hi = P->nshifts;

	/* Last shift whose start is <= off; shift 0 starts at 0. */
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;

		if (P->shifts[mid].start <= off)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

static uint64_t
map_offset(const struct plan *P, uint64_t off)
{
	return off + P->shifts[shift_of(P, off)].delta;
}

/* Does [off, off + len) stay in one piece? */
static bool
stays_whole(const struct plan *P, uint64_t off, uint64_t len)
{
	return len == 0 || shift_of(P, off) == shift_of(P, off + len - 1);
}

/*
 * Sections and the section header table after the last PT_LOAD keep their
 * alignment: every delta so far is a multiple of a page, so only an
 * alignment above that needs the tail to move further.
 */
static int
place_tail(const struct elf_layout *L, struct plan *P)
{
	uint64_t tail = 0, align = L->elfclass == ELFCLASS64 ? 8 : 4, delta;
	size_t i;

	for (i = 0; i < L->nsegs; i++)
		if (L->segs[i].type == PT_LOAD && L->segs[i].filesz > 0)
			tail = max_u64(tail, L->segs[i].offset + L->segs[i].filesz);
	for (i = 0; i < L->nsecs; i++) {
		const struct sec_desc *c = &L->secs[i];

		if (c->type != SHT_NOBITS && c->offset >= tail &&
		    is_pow2(c->addralign) && c->addralign <= (1u << 30))
			align = max_u64(align, c->addralign);
	}
	delta = P->shifts[P->nshifts - 1].delta;
	if (tail >= L->file_size || delta % align == 0)
		return 0;
	return add_shift(P, tail, delta + align - delta % align);
}

static void
finish_shifts(const struct elf_layout *L, struct plan *P)
{
	size_t b;

	for (b = 0; b + 1 < P->nshifts; b++)
		P->shifts[b].end = P->shifts[b + 1].start;
	P->shifts[P->nshifts - 1].end = L->file_size;
	P->new_size = L->file_size + P->shifts[P->nshifts - 1].delta;
}

/* PT_LOADs without file bytes and every other program header. */
static int
place_others(const struct elf_layout *L, const struct plan_params *p,
    struct plan *P, struct plan_error *e)
{
	size_t i;

	for (i = 0; i < L->nsegs; i++) {
		const struct seg_desc *s = &L->segs[i];
		struct seg_plan *sp = &P->segs[i];

		if (s->type == PT_LOAD && s->filesz > 0)
			continue;
		sp->new_offset = map_offset(P, s->offset);
		if (s->type == PT_LOAD && next_congruent(sp->new_offset,
		    s->vaddr, modulus_for(s, sp, p), &sp->new_offset) != 0)
			return plan_fail(e, PLAN_OVERFLOW, i, 0, s->offset);
		if (!stays_whole(P, s->offset, s->filesz))
			return plan_fail(e, PLAN_SPLIT_SEGMENT, i, 0, s->offset);
	}
	for (i = 0; i < L->nsegs; i++) {
		const struct seg_desc *s = &L->segs[i];
		struct seg_plan *sp = &P->segs[i];

		sp->new_align = s->align;
		if (s->type == PT_LOAD && p->min_p_align > 1) {
			sp->new_align = max_u64(s->align, p->min_p_align);
			if (!congruent(sp->new_offset, s->vaddr, p->min_p_align))
				return plan_fail(e, PLAN_NOT_CONGRUENT, i, 0,
				    p->min_p_align);
		}
		/* ET_EXEC loads at its linked addresses, so p_align places
		 * nothing: a segment congruent as it is keeps its own. */
		if (sp->verdict == SEG_ELIGIBLE && !(L->type == ET_EXEC &&
		    congruent(s->offset, s->vaddr, sp->target)))
			sp->new_align = max_u64(sp->new_align, sp->target);
	}
	return 0;
}


/*
 * The PT_LOAD whose memory image holds addr: the last one starting at or
 * below it, or, where images overlap (no linker makes them), one of the
 * few before that.
 */
#define HOLDER_LOOKBACK 16

static const struct seg_desc *
load_holding(const struct elf_layout *L, const struct load_ref *v,
    size_t n, uint64_t addr, size_t *idx)
{
	size_t lo = 0, hi = n, k;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (v[mid].key <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (k = 0; k < HOLDER_LOOKBACK && lo > k; k++) {
		const struct seg_desc *s = &L->segs[v[lo - 1 - k].idx];

		if (addr - s->vaddr <= s->memsz) {
			*idx = v[lo - 1 - k].idx;
			return s;
		}
	}
	return NULL;
}

static int
place_sections(const struct elf_layout *L, struct plan *P,
    struct plan_error *e)
{
	size_t i, j, n;
	struct load_ref *v = loads_sorted(L, true, &n);

	if (v == NULL)
		return plan_fail(e, PLAN_ENOMEM, 0, 0, 0);
	for (i = 0; i < L->nsecs; i++) {
		const struct sec_desc *c = &L->secs[i];
		const struct seg_desc *s;

		P->sec_offset[i] = c->offset;
		if (c->type == SHT_NULL)
			continue;
		if (c->type == SHT_NOBITS && (c->flags & SHF_ALLOC) &&
		    (s = load_holding(L, v, n, c->addr, &j)) != NULL) {
			/* No bytes: keep its place relative to its segment. */
			P->sec_offset[i] = c->offset +
			    (P->segs[j].new_offset - s->offset);
			continue;
		}
		P->sec_offset[i] = map_offset(P, c->offset);
		if (c->type != SHT_NOBITS && !stays_whole(P, c->offset, c->size)) {
			free(v);
			return plan_fail(e, PLAN_SPLIT_SECTION, i, 0, c->offset);
		}
	}
	free(v);
	P->new_shoff = 0;
	if (L->shoff != 0) {
		P->new_shoff = map_offset(P, L->shoff);
		if (!stays_whole(P, L->shoff, L->nsecs * L->shentsize))
			return plan_fail(e, PLAN_SPLIT_SHDRS, 0, 0, L->shoff);
	}
	return check_shdrs_kept(L, P, e);
}

/*
 * The program header table goes where its bytes go: in front it stays
 * (pinned_end), after the segments it moves with its PT_LOAD, whole.
 */
static int
place_phdrs(const struct elf_layout *L, struct plan *P, struct plan_error *e)
{
	P->new_phoff = map_offset(P, L->phoff);
	if (!stays_whole(P, L->phoff, L->nsegs * L->phentsize))
		return plan_fail(e, PLAN_SPLIT_PHDRS, 0, 0, L->phoff);
	return 0;
}

static int
add_extent(struct plan *P, uint64_t src, uint64_t dst, uint64_t len)
{
	struct extent *x;

	if (len == 0)
		return 0;
	if ((x = with_room(P->extents, P->nextents, sizeof(*x))) == NULL)
		return -1;
	P->extents = x;
	P->extents[P->nextents++] = (struct extent){ src, dst, len };
	return 0;
}

/*
 * Copy each shift, and around each new hole repeat the bytes that shared a
 * page with the moved edge, so that every page the loader maps holds what
 * it held before, not only the bytes inside the segment.
 */
static int
build_extents(const struct elf_layout *L, const struct plan_params *p,
    struct plan *P)
{
	uint64_t g = p->max_page;
	size_t b;

	for (b = 0; b < P->nshifts; b++) {
		const struct shift *k = &P->shifts[b];
		uint64_t hole, s, suffix, prefix;

		if (add_extent(P, k->start, k->start + k->delta,
		    k->end - k->start) != 0)
			return -1;
		if (b + 1 == P->nshifts)
			break;
		s = k->end;
		hole = P->shifts[b + 1].delta - k->delta;
		suffix = min_u64(min_u64((s + g - 1) / g * g - s, hole),
		    L->file_size - s);
		prefix = min_u64(s % g, hole - suffix);
		if (add_extent(P, s, s + k->delta, suffix) != 0 ||
		    add_extent(P, s - prefix, s - prefix +
		    P->shifts[b + 1].delta, prefix) != 0)
			return -1;
	}
	return 0;
}

static bool
offsets_fit_class32(const struct elf_layout *L, const struct plan *P)
{
	size_t i;

	if (L->elfclass != ELFCLASS32)
		return true;
	if (P->new_size > UINT32_MAX)
		return false;
	for (i = 0; i < L->nsegs; i++)
		if (P->segs[i].new_offset > UINT32_MAX)
			return false;
	for (i = 0; i < L->nsecs; i++)
		if (P->sec_offset[i] > UINT32_MAX)
			return false;
	return true;
}

static void
summarise(const struct elf_layout *L, const struct plan_params *p,
    struct plan *P)
{
	size_t i;

	P->base_aligned_after = load_base_aligned(L, P, P->huge_align,
	    p->placed_by_offset);
	P->changed = P->new_size != L->file_size || P->new_shoff != L->shoff ||
	    P->new_phoff != L->phoff || P->nsplit > 0;
	for (i = 0; i < L->nsegs; i++) {
		const struct seg_desc *s = &L->segs[i];
		const struct seg_plan *sp = &P->segs[i];
		bool moved = sp->new_offset != s->offset ||
		    sp->new_align != s->align || sp->split_at != 0;

		P->changed |= moved;
		if (moved && s->type == PT_LOAD)
			P->n_loads_changed++;
		if (moved && sp->verdict == SEG_ELIGIBLE)
			P->n_aligned++;
	}
	for (i = 0; i < L->nsecs; i++)
		P->changed |= P->sec_offset[i] != L->secs[i].offset;
}

/*
 * Padding is bounded: each PT_LOAD with bytes may add less than one
 * alignment, the target or the machine's page floor, and the sections
 * after the last one as much again.  A header that asks for more (a
 * p_align of 2^36 its offset does not meet, a section aligned to 1 GiB)
 * would make the output gigabytes larger; it is refused and named.
 */
static int
check_growth(const struct elf_layout *L, const struct plan_params *p,
    const struct plan *P, size_t nload, struct plan_error *e)
{
	uint64_t unit = max_u64(p->huge_align, p->max_page), limit, most = 0;
	uint64_t growth = P->new_size - L->file_size, at = 0;
	size_t b, i;

	limit = (uint64_t)(nload + 1) * unit;
	if (growth <= limit)
		return 0;
	for (b = 1; b < P->nshifts; b++)
		if (P->shifts[b].delta - P->shifts[b - 1].delta > most) {
			most = P->shifts[b].delta - P->shifts[b - 1].delta;
			at = P->shifts[b].start;
		}
	for (i = 0; i < L->nsegs; i++)
		if (L->segs[i].type == PT_LOAD && L->segs[i].filesz > 0 &&
		    L->segs[i].offset == at)
			return plan_fail(e, PLAN_GROWTH, i, (size_t)limit, growth);
	return plan_fail(e, PLAN_GROWTH, SIZE_MAX, (size_t)limit, growth);
}

static int
plan_steps(const struct elf_layout *L, const struct plan_params *p,
    struct plan *P, struct plan_error *e)
{
	struct load_ref *order;
	size_t nload = 0;
	int rc;

	if ((order = loads_sorted(L, false, &nload)) == NULL)
		return plan_fail(e, PLAN_ENOMEM, 0, 0, 0);
	judge_loads(L, p, order, nload, P);
	rc = place_loads(L, p, order, nload, P, e);
	free(order);
	if (rc != 0)
		return -1;
	if (place_tail(L, P) != 0)
		return plan_fail(e, PLAN_ENOMEM, 0, 0, 0);
	finish_shifts(L, P);
	if (check_growth(L, p, P, nload, e) != 0)
		return -1;
	if (place_others(L, p, P, e) != 0 || place_sections(L, P, e) != 0 ||
	    place_phdrs(L, P, e) != 0)
		return -1;
	if (build_extents(L, p, P) != 0)
		return plan_fail(e, PLAN_ENOMEM, 0, 0, 0);
	if (!offsets_fit_class32(L, P))
		return plan_fail(e, PLAN_TOO_BIG, 0, 0, P->new_size);
	if (plan_split(L, p, P, e) != 0)
		return -1;
	summarise(L, p, P);
	return 0;
}

static int
plan_once(const struct elf_layout *L, const struct plan_params *p,
    struct plan *P, struct plan_error *e)
{
	memset(P, 0, sizeof(*P));
	P->huge_align = p->huge_align;
	P->max_page = p->max_page;
	P->segs = calloc(L->nsegs ? L->nsegs : 1, sizeof(*P->segs));
	P->sec_offset = calloc(L->nsecs ? L->nsecs : 1, sizeof(*P->sec_offset));
	if (P->segs == NULL || P->sec_offset == NULL) {
		plan_free(P);
		return plan_fail(e, PLAN_ENOMEM, 0, 0, 0);
	}
	if (plan_steps(L, p, P, e) != 0) {
		plan_free(P);
		return -1;
	}
	return 0;
}

/*
 * A split asked for but refused (no room for the longer table, ...) is
 * planned again without it, so that no gap is left after a body that was
 * not made; the plan keeps the reason for -v.
 */
static int
plan_or_unsplit(const struct elf_layout *L, const struct plan_params *p,
    struct plan *P, struct plan_error *e)
{
	struct plan_params unsplit = *p;
	enum split_note note;
	size_t wanted;

	if (plan_once(L, p, P, e) != 0)
		return -1;
	if (!p->split || P->split_note == SPLIT_NOT_ASKED ||
	    P->split_note == SPLIT_DONE)
		return 0;
	note = P->split_note;
	wanted = P->split_wanted;
	plan_free(P);
	unsplit.split = false;
	if (plan_once(L, &unsplit, P, e) != 0)
		return -1;
	P->split_note = note;
	P->split_wanted = wanted;
	return 0;
}

/* --page-size asks for pages two permissions would share: no padding helps. */
static int
check_page_shared(const struct elf_layout *L, const struct plan_params *p,
    struct plan_error *e)
{
	size_t a, b;
	int shared;

	if (p->min_p_align <= 1)
		return 0;
	if ((shared = find_shared_page(L, p->min_p_align, &a, &b)) < 0)
		return plan_fail(e, PLAN_ENOMEM, 0, 0, 0);
	if (shared > 0)
		return plan_fail(e, PLAN_PAGE_SHARED, a, b, p->min_p_align);
	return 0;
}

static bool
params_sane(const struct plan_params *p)
{
	return is_pow2(p->huge_align) && is_pow2(p->max_page) &&
	    is_pow2(p->input_page) && p->input_page <= p->huge_align &&
	    (p->fallback_align == 0 || (is_pow2(p->fallback_align) &&
	    p->fallback_align >= p->input_page &&
	    p->fallback_align <= p->huge_align));
}

/*
 * The layout passed layout_validate.  Planning is two steps: the
 * machine's largest page is a floor for files the tool rewrites anyway,
 * so a rewritten file loads with any page size the machine has.  It alone
 * is no reason to rewrite: a file whose eligible segments are aligned,
 * and that loads with the geometry's own page, is left alone, even if it
 * was linked for small pages only.  So the first plan keeps only the
 * page floor; where it changes the file, the second adds the largest
 * page.  An explicit --page-size (min_p_align) always applies.  The plan
 * is not yet checked: the caller runs plan_verify before writing.
 */
int
plan_build(const struct elf_layout *L, const struct plan_params *p,
    struct plan *P, struct plan_error *e)
{
	struct plan_params bare = *p;

	memset(P, 0, sizeof(*P));
	memset(e, 0, sizeof(*e));
	if (!params_sane(p))
		return plan_fail(e, PLAN_BAD_PARAMS, 0, 0, p->huge_align);
	if (check_page_shared(L, p, e) != 0)
		return -1;
	if (p->min_p_align == 0)
		bare.max_page = p->page > p->input_page ? p->page : p->input_page;
	if (plan_or_unsplit(L, &bare, P, e) != 0)
		return -1;
	if (!P->changed || bare.max_page == p->max_page)
		return 0;
	plan_free(P);
	return plan_or_unsplit(L, p, P, e);
}

void
plan_free(struct plan *P)
{
	free(P->segs);
	free(P->sec_offset);
	free(P->shifts);
	free(P->extents);
	free(P->phdrs_out);
	memset(P, 0, sizeof(*P));
}
