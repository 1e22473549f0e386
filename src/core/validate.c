/* SPDX-License-Identifier: BSD-2-Clause */
/* SPDX-FileCopyrightText: 2026 the elfthp-align authors */
/*
 * The door: what the reader could not check, the relations between
 * headers, checked once for every file in every mode, before any mode's
 * own work.  The reader (elf_read.c) has already bounded the tables and
 * their entry sizes; here every segment and section must lie inside the
 * file, fit its class's address space, and PT_LOADs must not share file
 * bytes; last, each must load on the smallest page (offset and address
 * congruent modulo 4 KiB).  Before that last rule, what a strip of a split
 * file leaves is named (a table of zeros, a stale PT_PHDR, a table mapped
 * where a section's bytes were).  The planner, the findings,
 * --compat, --report and --warm then assume a valid layout; a refusal
 * here reads the same and exits 2 in all of them.  Pure.
 */
#include <elf.h>
#include <stdlib.h>

#include "elfthp_core.h"
#include "elfthp_util.h"

/* The largest address + size an ELF class can express: 2^32 or 2^64. */
static bool
fits_class(const struct elf_layout *L, uint64_t addr, uint64_t size)
{
	if (L->elfclass == ELFCLASS32)
		return addr <= UINT32_MAX && size <= (UINT64_C(1) << 32) - addr;
	return size <= UINT64_MAX - addr;
}

static int
check_one_load(const struct elf_layout *L, const struct seg_desc *s, size_t i,
    struct plan_error *e)
{
	if (s->filesz > s->memsz)
		return plan_fail(e, PLAN_FILESZ_GT_MEMSZ, i, 0, s->filesz);
	if (!fits_class(L, s->vaddr, s->memsz))
		return plan_fail(e, PLAN_OVERFLOW, i, 0, s->vaddr);
	if (s->align > 1 && !is_pow2(s->align))
		return plan_fail(e, PLAN_BAD_ALIGN, i, 0, s->align);
	return 0;
}

/*
 * Last, after every check of the file's shape: a PT_LOAD not congruent
 * even modulo the smallest page is a file Linux never maps as a program
 * (firmware for another machine, a linker's test data).  Checked last so
 * that this one code means "well formed, but not loadable": a walk skips
 * such a file (cli/process.c), while a malformed one is still an error.
 */
static int
check_loadable(const struct elf_layout *L, struct plan_error *e)
{
	size_t i;

	for (i = 0; i < L->nsegs; i++) {
		const struct seg_desc *s = &L->segs[i];

		if (s->type == PT_LOAD &&
		    !congruent(s->offset, s->vaddr, LAYOUT_MIN_PAGE))
			return plan_fail(e, PLAN_NOT_CONGRUENT, i, 0,
			    LAYOUT_MIN_PAGE);
	}
	return 0;
}

/*
 * Nor may the table share bytes with a section, unless it lies wholly
 * inside it (then it is that section's bytes and moves with them): the
 * write would overwrite the one with the other.
 */
static int
check_shdrs_vs_sections(const struct elf_layout *L, uint64_t len,
    struct plan_error *e)
{
	size_t i;

	for (i = 0; i < L->nsecs; i++) {
		const struct sec_desc *c = &L->secs[i];

		if (c->type != SHT_NOBITS && c->type != SHT_NULL &&
		    ranges_overlap(L->shoff, len, c->offset, c->size) &&
		    (L->shoff < c->offset ||
		    !range_within(L->shoff - c->offset, len, c->size)))
			return plan_fail(e, PLAN_SHDRS_OVER_SECTION, i, 0,
			    L->shoff);
	}
	return 0;
}

/*
 * The section header table is rewritten after the program headers and the
 * segments' bytes: sharing bytes with the headers, one write would undo
 * the other; refuse it.  Inside a PT_LOAD is legal (Go's linker puts it in
 * the first, after the program headers): there it is that segment's bytes
 * and moves with them, but only partly inside one is refused.
 */
static int
check_shdr_table(const struct elf_layout *L, struct plan_error *e)
{
	uint64_t len = L->nsecs * L->shentsize;
	size_t i;

	if (L->shoff == 0 || len == 0)
		return 0;
	if (ranges_overlap(L->shoff, len, 0, L->ehdr_size) ||
	    ranges_overlap(L->shoff, len, L->phoff, L->nsegs * L->phentsize))
		return plan_fail(e, PLAN_SHDRS_OVERLAP, SIZE_MAX, 0, L->shoff);
	for (i = 0; i < L->nsegs; i++) {
		const struct seg_desc *s = &L->segs[i];

		if (s->type == PT_LOAD &&
		    ranges_overlap(L->shoff, len, s->offset, s->filesz) &&
		    (L->shoff < s->offset ||
		    !range_within(L->shoff - s->offset, len, s->filesz)))
			return plan_fail(e, PLAN_SHDRS_OVERLAP, i, 0, L->shoff);
	}
	return check_shdrs_vs_sections(L, len, e);
}


/*
 * What a tool that rewrites a file without understanding its program
 * header table leaves (docs/rewrite.md, "What other tools make of a split
 * file"): each is named before the rules it also breaks, so that the
 * message says what happened instead of "no PT_LOAD" or "not congruent".
 * A table of nothing but zeros: eu-strip of a split file.
 */
static bool
seg_is_zero(const struct seg_desc *s)
{
	return s->type == 0 && s->flags == 0 && s->offset == 0 &&
	    s->vaddr == 0 && s->paddr == 0 && s->filesz == 0 &&
	    s->memsz == 0 && s->align == 0;
}

static int
check_table_zeroed(const struct elf_layout *L, struct plan_error *e)
{
	size_t i;

	for (i = 0; i < L->nsegs; i++)
		if (!seg_is_zero(&L->segs[i]))
			return 0;
	if (L->nsegs == 0)
		return 0;
	return plan_fail(e, PLAN_PHDRS_ZEROED, SIZE_MAX, L->nsegs, L->phoff);
}

/* PT_PHDR is where ld.so finds the table: it must name e_phoff. */
static int
check_pt_phdr(const struct elf_layout *L, struct plan_error *e)
{
	size_t i;

	for (i = 0; i < L->nsegs; i++)
		if (L->segs[i].type == PT_PHDR && L->segs[i].offset != L->phoff)
			return plan_fail(e, PLAN_PHDR_STALE, i, 0,
			    L->segs[i].offset);
	return 0;
}

/*
 * The program header table must not lie over the bytes a PT_LOAD maps at
 * a section's address, unless those are the section's own bytes: GNU
 * strip and objcopy of a split file put the longer table back at offset
 * 64 and shift the sections after it to other offsets, without changing
 * the PT_LOADs, so the loader maps the table where .interp or the notes
 * were.  (llvm-strip's copy of a section two PT_LOADs share, appended at
 * the end of the file, leaves the mapped bytes as they were: accepted.)
 * Only the PT_LOAD that holds the table's first byte is looked at, once
 * per section: O(segments + sections), whatever a hostile file holds.
 */
static bool
table_over_section(const struct elf_layout *L, const struct seg_desc *s,
    const struct sec_desc *c)
{
	uint64_t len = L->nsegs * L->phentsize, at, n;

	if (c->addr < s->vaddr || c->addr - s->vaddr >= s->filesz)
		return false;
	at = s->offset + (c->addr - s->vaddr);
	n = s->filesz - (c->addr - s->vaddr);
	return at != c->offset &&
	    ranges_overlap(L->phoff, len, at, c->size < n ? c->size : n);
}

static int
check_sections_mapped(const struct elf_layout *L, struct plan_error *e)
{
	size_t i, k;

	for (k = 0; k < L->nsegs; k++)
		if (L->segs[k].type == PT_LOAD && L->phoff >= L->segs[k].offset &&
		    L->phoff - L->segs[k].offset < L->segs[k].filesz)
			break;
	if (k == L->nsegs)
		return 0;	/* the table is not loaded: nothing maps it */
	for (i = 0; i < L->nsecs; i++) {
		const struct sec_desc *c = &L->secs[i];

		if (c->type == SHT_NOBITS || c->type == SHT_NULL ||
		    c->size == 0 || !(c->flags & SHF_ALLOC))
			continue;
		if (table_over_section(L, &L->segs[k], c))
			return plan_fail(e, PLAN_SEC_MISPLACED, i, k, L->phoff);
	}
	return 0;
}

/* Every header inside the file; PT_LOADs checked one by one. */
static int
check_segments(const struct elf_layout *L, struct plan_error *e)
{
	size_t i, nload = 0;

	for (i = 0; i < L->nsegs; i++) {
		const struct seg_desc *s = &L->segs[i];

		if (s->filesz > 0 && (s->filesz > L->file_size ||
		    s->offset > L->file_size - s->filesz))
			return plan_fail(e, PLAN_PAST_EOF, i, 0, s->offset);
		if (s->type != PT_LOAD)
			continue;
		nload++;
		if (check_one_load(L, s, i, e) != 0)
			return -1;
	}
	if (nload == 0)
		return plan_fail(e, PLAN_NO_LOAD, 0, 0, 0);
	return 0;
}

static int
check_sections(const struct elf_layout *L, struct plan_error *e)
{
	size_t i;

	for (i = 0; i < L->nsecs; i++) {
		const struct sec_desc *c = &L->secs[i];

		if (c->type != SHT_NULL && (c->flags & SHF_ALLOC) &&
		    !fits_class(L, c->addr, c->size))
			return plan_fail(e, PLAN_SEC_OVERFLOW, i, 0, c->addr);
		if (c->type == SHT_NOBITS || c->type == SHT_NULL || c->size == 0)
			continue;
		if (c->size > L->file_size || c->offset > L->file_size - c->size)
			return plan_fail(e, PLAN_SEC_PAST_EOF, i, 0, c->offset);
	}
	return 0;
}

/* No two PT_LOADs share file bytes: each moves as one piece. */
static int
check_no_overlap(const struct elf_layout *L, struct plan_error *e)
{
	struct load_ref *v;
	size_t i, k = 0, prev = 0;
	uint64_t end = 0;
	int rc = 0;

	if ((v = loads_sorted(L, false, &k)) == NULL)
		return plan_fail(e, PLAN_ENOMEM, 0, 0, 0);
	for (i = 0; i < k && rc == 0; i++) {
		const struct seg_desc *s = &L->segs[v[i].idx];

		if (s->filesz == 0)
			continue;
		if (end > s->offset)
			rc = plan_fail(e, PLAN_OVERLAP, prev, v[i].idx, 0);
		end = s->offset + s->filesz;
		prev = v[i].idx;
	}
	free(v);
	return rc;
}

int
layout_validate(const struct elf_layout *L, struct plan_error *e)
{
	*e = (struct plan_error){ .code = PLAN_OK };
	if (check_table_zeroed(L, e) != 0 ||
	    check_segments(L, e) != 0 || check_sections(L, e) != 0 ||
	    check_shdr_table(L, e) != 0 || check_no_overlap(L, e) != 0 ||
	    check_pt_phdr(L, e) != 0 || check_sections_mapped(L, e) != 0 ||
	    check_loadable(L, e) != 0)
		return -1;
	return 0;
}
