/* SPDX-License-Identifier: BSD-2-Clause */
/* SPDX-FileCopyrightText: 2026 the elfthp-align authors */
/*
 * The split, a step of the planner (pure, like it): an eligible PT_LOAD
 * whose first huge window begins after its p_vaddr becomes two PT_LOADs
 * with its flags, a head [p_vaddr, boundary) and a body [boundary, end).
 * The planner already made the segment's offset congruent to its address
 * modulo the target, so the body's p_vaddr and p_offset are both
 * multiples of it: what glibc's glibc.elf.thp, the proposed binfmt_elf
 * change and bionic look for (docs/rewrite.md).  No byte moves for it:
 * the pieces map the same file ranges at the same addresses.
 *
 * Each split needs one more program header.  The longer table goes
 * after the end of the PT_LOAD that holds the input's table (the first
 * one, from offset 0), inside that segment's last page, and the segment
 * grows over it: so the table is in memory where the first PT_LOAD's
 * offset-to-address rule puts it, which is where kernels before 5.18
 * look (AT_PHDR = load address + e_phoff) as well as later ones (the
 * PT_LOAD holding e_phoff), and PT_PHDR, which ld.so reads for the
 * program's load address, names it.  The mapped pages stay the same;
 * the table takes bytes that lie beyond every segment's image.  Where
 * that page has no room, nothing is split, and split_note says why.
 */
#include <elf.h>
#include <stdlib.h>

#include "elfthp_core.h"
#include "elfthp_util.h"

/* The body's p_vaddr, if the segment is split; 0 if not. */
static uint64_t
body_start(const struct seg_desc *s, const struct seg_plan *sp,
    uint64_t huge)
{
	uint64_t b;

	if (sp->verdict != SEG_ELIGIBLE || sp->target != huge ||
	    s->vaddr % huge == 0)
		return 0;
	b = (s->vaddr / huge + 1) * huge;
	/* Eligible: a whole window lies inside, so the body holds one. */
	if (b - s->vaddr >= s->filesz ||
	    windows_in(b, s->filesz - (b - s->vaddr), huge) == 0)
		return 0;
	return b;
}

/*
 * Where the file bytes that follow the body of s (placed at new_offset)
 * may begin, at the least: one window past the end of the body's last
 * whole window; 0 if s is not split.  ld.so's first faults on the
 * segments after the text (.dynamic, the GOT, relocations) read around
 * them, read_ahead_kb wide; adjacent to the body, that read-around puts
 * the body's last windows in the page cache as small folios before the
 * body faults (the last one at 128 KiB, the last two at 8 MiB).  A
 * window of file between them keeps a read-around of up to 4 MiB out of
 * the body (docs/rewrite.md).  The padding stays a hole.
 */
uint64_t
split_gap_end(const struct seg_desc *s, const struct seg_plan *sp,
    uint64_t huge, uint64_t new_offset)
{
	uint64_t b = body_start(s, sp, huge), last;

	if (b == 0)
		return 0;
	last = (s->vaddr + s->filesz) / huge * huge;
	return new_offset + (last - s->vaddr) + huge;
}

static size_t
mark_splits(const struct elf_layout *L, const struct plan_params *p,
    struct plan *P)
{
	size_t i, n = 0;

	for (i = 0; i < L->nsegs; i++) {
		P->segs[i].split_at = body_start(&L->segs[i], &P->segs[i],
		    p->huge_align);
		n += P->segs[i].split_at != 0;
	}
	return n;
}

static void
unmark_splits(const struct elf_layout *L, struct plan *P)
{
	size_t i;

	for (i = 0; i < L->nsegs; i++)
		P->segs[i].split_at = 0;
}

/*
 * The PT_LOAD that holds the input's program header table, if it is the
 * first with file bytes and has no zero-filled tail; SIZE_MAX otherwise.
 */
static size_t
table_holder(const struct elf_layout *L)
{
	uint64_t len = L->nsegs * L->phentsize;
	size_t i, first = SIZE_MAX;
	const struct seg_desc *s;

	for (i = 0; i < L->nsegs; i++)
		if (L->segs[i].type == PT_LOAD && L->segs[i].filesz > 0 &&
		    (first == SIZE_MAX ||
		    L->segs[i].offset < L->segs[first].offset))
			first = i;
	if (first == SIZE_MAX)
		return SIZE_MAX;
	s = &L->segs[first];
	if (L->phoff < s->offset || s->filesz != s->memsz ||
	    !range_within(L->phoff - s->offset, len, s->filesz))
		return SIZE_MAX;
	return first;
}

/* Does [at, at + len) of the output meet a segment, section or table? */
static bool
meets_file_bytes(const struct elf_layout *L, const struct plan *P, size_t h,
    uint64_t at, uint64_t len)
{
	size_t i;

	for (i = 0; i < L->nsegs; i++)
		if (i != h && L->segs[i].type == PT_LOAD &&
		    ranges_overlap(at, len, P->segs[i].new_offset,
		    L->segs[i].filesz))
			return true;
	for (i = 0; i < L->nsecs; i++)
		if (L->secs[i].type != SHT_NOBITS &&
		    L->secs[i].type != SHT_NULL &&
		    ranges_overlap(at, len, P->sec_offset[i], L->secs[i].size))
			return true;
	return L->shoff != 0 && ranges_overlap(at, len, P->new_shoff,
	    L->nsecs * L->shentsize);
}

/*
 * Room for len bytes at at, just past the holder's bytes: inside its last
 * page (of the smallest page the file may run with), inside the file,
 * over no other bytes the file is made of, and in memory below every
 * other PT_LOAD's image.
 */
static bool
table_fits(const struct elf_layout *L, const struct plan_params *p,
    const struct plan *P, size_t h, uint64_t at, uint64_t len)
{
	const struct seg_desc *s = &L->segs[h];
	uint64_t end = P->segs[h].new_offset + s->filesz, page = p->input_page;
	uint64_t grown = at + len - end, vend = s->vaddr + s->memsz;
	size_t i;

	if (at + len > (end + page - 1) / page * page || at + len > P->new_size)
		return false;
	if (meets_file_bytes(L, P, h, at, len))
		return false;
	for (i = 0; i < L->nsegs; i++)
		if (i != h && L->segs[i].type == PT_LOAD &&
		    ranges_overlap(vend, grown, L->segs[i].vaddr,
		    L->segs[i].memsz))
			return false;
	return true;
}

/* One input header as it is written: the plan's offset and p_align. */
static struct seg_desc
as_planned(const struct elf_layout *L, const struct plan *P, size_t i)
{
	struct seg_desc d = L->segs[i];

	d.offset = P->segs[i].new_offset;
	d.align = P->segs[i].new_align;
	return d;
}

/* The head and body of a split segment, at out[0] and out[1]. */
static void
cut(struct seg_desc d, uint64_t at, struct seg_desc *out)
{
	uint64_t head = at - d.vaddr;

	out[0] = d;
	out[0].filesz = out[0].memsz = head;
	out[1] = d;
	out[1].vaddr += head;
	out[1].paddr += head;
	out[1].offset += head;
	out[1].filesz -= head;
	out[1].memsz -= head;
}

/*
 * The table as written: every input header in order, a split one as head
 * then body; the holder's last piece grown over the table, and PT_PHDR
 * naming it.
 */
static void
fill_table(const struct elf_layout *L, struct plan *P, size_t h,
    uint64_t len)
{
	const struct seg_desc *s = &L->segs[h];
	uint64_t to_vaddr = s->vaddr - P->segs[h].new_offset;
	uint64_t to_paddr = s->paddr - P->segs[h].new_offset;
	size_t i, k = 0, last = 0;

	for (i = 0; i < L->nsegs; i++) {
		struct seg_desc d = as_planned(L, P, i);

		if (d.type == PT_PHDR) {
			d.offset = P->table_off;
			d.vaddr = P->table_off + to_vaddr;
			d.paddr = P->table_off + to_paddr;
			d.filesz = d.memsz = len;
		}
		if (P->segs[i].split_at != 0) {
			cut(d, P->segs[i].split_at, &P->phdrs_out[k]);
			k += 2;
		} else
			P->phdrs_out[k++] = d;
		if (i == h)
			last = k - 1;
	}
	P->phdrs_out[last].filesz = P->phdrs_out[last].memsz =
	    P->table_off + len - P->phdrs_out[last].offset;
	P->nphdrs_out = k;
}

/* Where the table goes, or why it cannot; 0 or a split_note. */
static enum split_note
place_table(const struct elf_layout *L, const struct plan_params *p,
    struct plan *P, size_t *holder, uint64_t len)
{
	uint64_t word = L->elfclass == ELFCLASS64 ? 8 : 4, end;
	size_t h = table_holder(L);

	if (L->nsegs + P->split_wanted >= PN_XNUM)
		return SPLIT_TOO_MANY;
	if (h == SIZE_MAX)
		return SPLIT_NO_TABLE_LOAD;
	end = P->segs[h].new_offset + L->segs[h].filesz;
	P->table_off = (end + word - 1) / word * word;
	if (!table_fits(L, p, P, h, P->table_off, len))
		return SPLIT_NO_ROOM;
	*holder = h;
	return SPLIT_DONE;
}

/*
 * Split what the layout asks to split, or nothing (with the reason in
 * split_note).  0, or -1 with e set (out of memory).  On success with a
 * split, P->phdrs_out holds the table to write at P->table_off.
 */
int
plan_split(const struct elf_layout *L, const struct plan_params *p,
    struct plan *P, struct plan_error *e)
{
	uint64_t len;
	size_t h = SIZE_MAX;

	P->split_note = SPLIT_NOT_ASKED;
	if (!p->split || (P->split_wanted = mark_splits(L, p, P)) == 0)
		return 0;
	len = (L->nsegs + P->split_wanted) * L->phentsize;
	P->split_note = place_table(L, p, P, &h, len);
	if (P->split_note != SPLIT_DONE) {
		unmark_splits(L, P);
		P->table_off = 0;
		return 0;
	}
	P->phdrs_out = calloc(L->nsegs + P->split_wanted,
	    sizeof(*P->phdrs_out));
	if (P->phdrs_out == NULL)
		return plan_fail(e, PLAN_ENOMEM, 0, 0, 0);
	P->nsplit = P->split_wanted;
	P->table_load = h;
	fill_table(L, P, h, len);
	return 0;
}
