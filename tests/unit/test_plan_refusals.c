/* SPDX-License-Identifier: BSD-2-Clause */
/* SPDX-FileCopyrightText: 2026 the elfthp-align authors */
/*
 * Unit tests of the planner's own refusals (segment_pad.c, plan_build):
 * every code it raises over a layout that passed the door, each as an
 * exact-boundary pair.  The accepted half sits right at the limit and
 * goes through the door, the planner and the check pass; the refused
 * half is one byte past it, or one step where the input moves in steps
 * (offsets move by whole 4 KiB pages, alignments are powers of two), so
 * that a bound off by one either way fails a test.  Each refusal also
 * checks its words (plan_strerror) and that they are no "internal error":
 * only PLAN_VERIFY, a plan the planner got wrong, says that.  PLAN_ENOMEM
 * needs a failing allocator and is not provoked here.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <elf.h>
#include <stdlib.h>
#include <string.h>

#include "elfthp_core.h"

#include "fixture.h"

#define G4 (UINT64_C(1) << 32)

/* The door, the planner and the check pass all take it. */
static void
accepted(struct fixture *f, const struct plan_params *p)
{
	plan_free(&f->P);
	plan_ok(f, p);
}

static void
says(const struct plan_error *e, const char *words)
{
	char msg[256];

	plan_strerror(e, msg, sizeof(msg));
	if (strstr(msg, words) == NULL)
		fail_msg("'%s' does not say '%s'", msg, words);
	assert_null(strstr(msg, "internal error"));
}

/* The door takes it, the planner refuses it with code and words. */
static void
refused(struct fixture *f, const struct plan_params *p, enum plan_err code,
    const char *words)
{
	char msg[256];

	plan_free(&f->P);
	if (layout_validate(&f->L, &f->e) != 0) {
		plan_strerror(&f->e, msg, sizeof(msg));
		fail_msg("the door refused it first: %s", msg);
	}
	assert_int_equal(plan_build(&f->L, p, &f->P, &f->e), -1);
	assert_int_equal(f->e.code, code);
	says(&f->e, words);
}

/* A PIE: R at 0, R E right after it that moves 4 KiB to meet 2 MiB. */
static struct fixture *
pie(void **state)
{
	struct fixture *f = *state = new_file(ET_DYN, 0x5f0 + M(4));

	load(f, PF_R, 0, 0, 0x5f0);
	load(f, PF_R | PF_X, 0x5f0, 0x15f0, M(4));
	return f;
}

/*
 * Every condition of params_sane, at its edge and one step past it.  The
 * words give huge_align's value whichever field is wrong, so where another
 * one is, only the shared words are asserted.
 */
static void
test_bad_params(void **state)
{
	struct fixture *f = pie(state);
	struct plan_params p = x86;
	const char *w = "is not a power of two at least the page size";

	accepted(f, &p);
	p.huge_align = M(2) + K(4);
	refused(f, &p, PLAN_BAD_PARAMS, "alignment 0x201000 is not a power");
	p.huge_align = 0;
	refused(f, &p, PLAN_BAD_PARAMS, w);
	p = x86;
	p.max_page = K(12);
	refused(f, &p, PLAN_BAD_PARAMS, w);
	p = x86;
	p.input_page = K(12);
	refused(f, &p, PLAN_BAD_PARAMS, w);
	p = x86;			/* input_page <= huge_align */
	p.huge_align = K(4);
	accepted(f, &p);
	p.huge_align = K(2);
	refused(f, &p, PLAN_BAD_PARAMS, "alignment 0x800 is not a power");
	p = x86;			/* input_page <= fallback <= huge */
	p.fallback_align = K(4);
	accepted(f, &p);
	p.fallback_align = K(2);
	refused(f, &p, PLAN_BAD_PARAMS, w);
	p.fallback_align = M(2);
	accepted(f, &p);
	p.fallback_align = M(4);
	refused(f, &p, PLAN_BAD_PARAMS, w);
	p.fallback_align = K(12);
	refused(f, &p, PLAN_BAD_PARAMS, w);
}

/*
 * --page-size 64k: R E whose memory ends exactly at a 64 KiB boundary and
 * R W on the next page is fixable; one byte more and they share a page.
 */
static void
test_page_shared(void **state)
{
	struct fixture *f = *state = new_file(ET_DYN, K(64));
	struct plan_params p = arm64;

	f->L.machine = EM_AARCH64;
	p.min_p_align = K(64);
	seg(f, PT_LOAD, PF_R | PF_X, 0, 0, 0x87c, K(64), K(4));
	load(f, PF_R | PF_W, 0xdc8, K(64) + 0xdc8, 0x270);
	accepted(f, &p);
	assert_int_equal(f->P.segs[1].new_align, K(64));
	f->segs[0].memsz = K(64) + 1;
	refused(f, &p, PLAN_PAGE_SHARED, "PT_LOAD 0 and PT_LOAD 1 have "
	    "different permissions on one 0x10000-byte page");
}

/*
 * --page-size 64k: the first PT_LOAD is pinned at offset 0, so its address
 * must already be a multiple of 64 KiB; 32 KiB (congruent modulo half the
 * page) and 4 KiB past one are refused.
 */
static void
test_not_congruent(void **state)
{
	struct fixture *f = *state = new_file(ET_EXEC, K(64));
	struct plan_params p = arm64;

	f->L.machine = EM_AARCH64;
	p.min_p_align = K(64);
	load(f, PF_R | PF_X, 0, M(4), 0x5f0);
	accepted(f, &p);
	f->segs[0].vaddr = M(4) + K(32);
	refused(f, &p, PLAN_NOT_CONGRUENT, "PT_LOAD 0: p_offset and p_vaddr "
	    "are not congruent modulo the page size (0x10000)");
	f->segs[0].vaddr = M(4) + K(4);
	refused(f, &p, PLAN_NOT_CONGRUENT, "not congruent");
}

/*
 * Growth limit: (PT_LOADs + 1) x 2 MiB on x86_64, here 6 MiB.  An R W
 * segment whose p_align (8 MiB) asks for exactly 6 MiB of padding is
 * planned; one page more (offsets move in pages) is refused, and named.
 */
static void
test_growth_limit(void **state)
{
	struct fixture *f = *state = new_file(ET_DYN, K(8));

	load(f, PF_R, 0, 0, K(4));
	seg(f, PT_LOAD, PF_R | PF_W, K(4), K(4) + M(6), 0x100, 0x100, M(8));
	accepted(f, &x86);
	assert_int_equal(f->P.new_size - f->L.file_size, M(6));
	f->segs[1].vaddr += K(4);
	refused(f, &x86, PLAN_GROWTH, "PT_LOAD 1: its alignment would grow "
	    "the file by 6295552 bytes, more than the 6291456 allowed");
	assert_int_equal(f->e.index, 1);
}

/*
 * The sections after the last PT_LOAD: their sh_addralign (a power of
 * two) rounds the tail's move up.  With three PT_LOADs the limit is 8 MiB:
 * 8 MiB alignment is planned, the next power of two is refused.
 */
static void
test_growth_limit_tail(void **state)
{
	struct fixture *f = *state = new_file(ET_DYN, K(12));
	size_t c;

	load(f, PF_R, 0, 0, K(4));
	seg(f, PT_LOAD, PF_R | PF_W, K(4), K(8), 0x100, 0x100, M(8));
	seg(f, PT_LOAD, PF_R | PF_W, K(4) + 0x100, K(8) + 0x100, 0, K(4),
	    K(4));
	sec(f, SHT_NULL, 0, 0, 0, 0, 0);
	c = sec(f, SHT_PROGBITS, 0, 0, K(8), 0x100, M(8));
	accepted(f, &x86);
	assert_int_equal(f->P.new_size - f->L.file_size, M(8));
	f->secs[c].addralign = M(16);
	refused(f, &x86, PLAN_GROWTH, "the alignment (sh_addralign) of the "
	    "sections after the last PT_LOAD would grow the file by 16777216 "
	    "bytes, more than the 8388608 allowed");
}

/*
 * ELFCLASS32: an R W segment moves 4 KiB, so a file 4 KiB + 1 byte short
 * of 4 GiB becomes exactly 2^32 - 1 bytes; one byte more is 2^32.
 */
static struct fixture *
file32(void **state, uint64_t size)
{
	struct fixture *f = *state = new_file(ET_EXEC, size);

	f->L.elfclass = ELFCLASS32;
	f->L.machine = EM_386;
	f->L.ehdr_size = 52;
	f->L.phoff = 52;
	f->L.phentsize = 32;
	load(f, PF_R, 0, 0x8000000, K(4));
	seg(f, PT_LOAD, PF_R | PF_W, K(4), 0x8000000 + K(8), 0x100, 0x100,
	    M(8));
	return f;
}

static void
test_class32_size(void **state)
{
	struct fixture *f = file32(state, G4 - 1 - K(4));

	accepted(f, &x86);
	assert_int_equal(f->P.new_size, G4 - 1);
	f->L.file_size++;
	refused(f, &x86, PLAN_TOO_BIG, "the rewritten file (4294967296 bytes) "
	    "would pass the 4 GiB limit of ELFCLASS32");
}

/* ELFCLASS32: a section's new offset (SHT_NOBITS, no bytes to hold it
 * inside the file) at 2^32 - 1, then 2^32. */
static void
test_class32_section_offset(void **state)
{
	struct fixture *f = file32(state, M(1));
	size_t c;

	sec(f, SHT_NULL, 0, 0, 0, 0, 0);
	c = sec(f, SHT_NOBITS, 0, 0, G4 - 1 - K(4), 0x10, 1);
	accepted(f, &x86);
	assert_int_equal(f->P.sec_offset[c], G4 - 1);
	f->secs[c].offset++;
	refused(f, &x86, PLAN_TOO_BIG, "would pass the 4 GiB limit of "
	    "ELFCLASS32");
}

/* ELFCLASS32: a PT_LOAD without file bytes, placed past the end of the
 * file by its p_align: its new offset 2^32 - 4 KiB, then 2^32. */
static void
test_class32_segment_offset(void **state)
{
	struct fixture *f = file32(state, G4 - M(8));
	size_t b;

	b = seg(f, PT_LOAD, PF_R | PF_W, G4 - M(8), 0xfffff000, 0, 0x100,
	    M(8));
	accepted(f, &x86);
	assert_int_equal(f->P.segs[b].new_offset, G4 - K(4));
	f->segs[b].vaddr = 0xff800000;
	refused(f, &x86, PLAN_TOO_BIG, "would pass the 4 GiB limit of "
	    "ELFCLASS32");
}

/*
 * A moved PT_LOAD's new offset overflows 2^64.  No file is that large
 * (off_t stops at 2^63), but the planner is pure and guards it.  The
 * file ends with an R W segment 12 KiB short of 2^64; its p_align (32 KiB)
 * moves it 8 KiB: planned, new end 2^64 - 4 KiB; 16 KiB: refused.  The
 * planner's guard is on the new start only: 12 KiB starts below 2^64 and
 * ends at it, and nothing may write that plan (today the check pass
 * refuses it).
 */
static void
test_offset_overflow_load(void **state)
{
	uint64_t at = UINT64_MAX - K(16) + 1;
	struct fixture *f = *state = new_file(ET_DYN, at + K(4));

	load(f, PF_R, 0, 0, K(4));
	seg(f, PT_LOAD, PF_R | PF_W, at, M(1) + K(24), K(4), K(4), K(32));
	accepted(f, &x86);
	assert_int_equal(f->P.segs[1].new_offset, at + K(8));
	f->segs[1].vaddr = M(1);
	refused(f, &x86, PLAN_OVERFLOW, "PT_LOAD 1: address or offset "
	    "overflows");
	f->segs[1].vaddr = M(1) + K(28);
	plan_free(&f->P);
	assert_true(plan_build(&f->L, &x86, &f->P, &f->e) != 0 ||
	    plan_verify(&f->L, &x86, &f->P, &f->e) != 0);
}

/* A PT_LOAD without file bytes placed at exactly 2^64 - 1, then one page
 * further (its offset and address move together in pages). */
static void
test_offset_overflow_bss(void **state)
{
	struct fixture *f = *state = new_file(ET_DYN, UINT64_MAX);

	load(f, PF_R, 0, 0, K(4));
	seg(f, PT_LOAD, PF_R | PF_W, UINT64_MAX - K(4), M(1) + 0x3fff, 0,
	    0x100, K(16));
	accepted(f, &x86);
	assert_int_equal(f->P.segs[1].new_offset, UINT64_MAX);
	f->segs[1].vaddr = M(1) + 0xfff;
	refused(f, &x86, PLAN_OVERFLOW, "PT_LOAD 1: address or offset "
	    "overflows");
}

/* pie() and a PT_NOTE that ends exactly where the moving R E begins, then
 * one byte into it. */
static void
test_split_segment(void **state)
{
	struct fixture *f = pie(state);
	size_t n = seg(f, PT_NOTE, PF_R, 0x500, 0x500, 0xf0, 0xf0, 4);

	accepted(f, &x86);
	assert_int_equal(f->P.segs[1].new_offset, 0x15f0);
	f->segs[n].filesz = f->segs[n].memsz = 0xf1;
	refused(f, &x86, PLAN_SPLIT_SEGMENT, "program header 2 spans PT_LOADs "
	    "that must move apart");
}

/* A section that ends exactly at the end of the first PT_LOAD (where the
 * moving one begins), then one byte past it. */
static void
test_split_section(void **state)
{
	struct fixture *f = pie(state);
	size_t c;

	sec(f, SHT_NULL, 0, 0, 0, 0, 0);
	c = sec(f, SHT_PROGBITS, SHF_ALLOC, 0x500, 0x500, 0xf0, 16);
	accepted(f, &x86);
	f->secs[c].size = 0xf1;
	refused(f, &x86, PLAN_SPLIT_SECTION, "section 1 spans PT_LOADs that "
	    "must move apart");
}

/*
 * The program header table after the second PT_LOAD (BOLT's place) moves
 * with its bytes: at the end of the R E it ends exactly where an R W that
 * moves further begins, then one byte into it.
 */
static void
test_split_phdrs(void **state)
{
	uint64_t rw = 0x5f0 + M(4);
	struct fixture *f = pie(state);

	f->L.file_size = rw + K(4);
	seg(f, PT_LOAD, PF_R | PF_W, rw, rw + K(8), 0x100, 0x100, K(64));
	f->L.phoff = rw - 3 * 56;
	accepted(f, &x86);
	assert_int_equal(f->P.new_phoff, f->L.phoff + K(4));
	assert_int_equal(f->P.segs[2].new_offset, rw + K(8));
	f->L.phoff++;
	refused(f, &x86, PLAN_SPLIT_PHDRS, "program header table (at 0x400549) "
	    "spans PT_LOADs that must move apart");
}

/*
 * The section header table between two PT_LOADs: it ends exactly where the
 * moving one begins.  One byte further it overlaps that PT_LOAD, which the
 * door refuses first; the planner, handed it anyway, refuses to split it.
 */
static void
test_split_shdrs(void **state)
{
	struct fixture *f = pie(state);

	f->segs[0].filesz = f->segs[0].memsz = 0x500;
	f->L.shoff = 0x5f0 - 2 * 64;
	f->L.shentsize = 64;
	sec(f, SHT_NULL, 0, 0, 0, 0, 0);
	sec(f, SHT_PROGBITS, SHF_ALLOC | SHF_EXECINSTR, 0x15f0, 0x5f0, M(4),
	    16);
	accepted(f, &x86);
	assert_int_equal(f->P.new_shoff, f->L.shoff);
	f->L.shoff++;
	assert_int_equal(layout_validate(&f->L, &f->e), -1);
	assert_int_equal(f->e.code, PLAN_SHDRS_OVERLAP);
	plan_free(&f->P);
	assert_int_equal(plan_build(&f->L, &x86, &f->P, &f->e), -1);
	assert_int_equal(f->e.code, PLAN_SPLIT_SHDRS);
	says(&f->e, "section header table spans PT_LOADs that must move "
	    "apart");
}

/*
 * The section header table inside the first PT_LOAD (Go) may stay only if
 * no section moves: a section on the last byte before the moving R E is
 * planned, one byte later (the R E's first byte) it would move.  A table
 * that ends exactly at its PT_LOAD's end is still inside it.
 */
static void
test_shdrs_in_load(void **state)
{
	struct fixture *f = pie(state);
	size_t c;

	f->L.shoff = 0x400;
	f->L.shentsize = 64;
	sec(f, SHT_NULL, 0, 0, 0, 0, 0);
	c = sec(f, SHT_PROGBITS, SHF_ALLOC, 0x5ef, 0x5ef, 1, 1);
	accepted(f, &x86);
	assert_int_equal(f->P.segs[1].new_offset, 0x15f0);
	f->secs[c].offset = f->secs[c].addr = 0x5f0;
	refused(f, &x86, PLAN_SHDRS_IN_LOAD, "the section header table (at "
	    "0x400) lies inside PT_LOAD 0, and section 1 would move");
	f->L.shoff = 0x5f0 - 2 * 64;
	refused(f, &x86, PLAN_SHDRS_IN_LOAD, "inside PT_LOAD 0");
}

/*
 * The check pass's refusal is the one that says "internal error": a plan
 * the planner got wrong, never a problem of the input.  (test_plan_check.c
 * holds each rule to its detail.)
 */
static void
test_verify_words(void **state)
{
	struct fixture *f = pie(state);
	char msg[256];

	accepted(f, &x86);
	f->P.segs[1].new_offset += K(4);
	assert_int_equal(plan_verify(&f->L, &x86, &f->P, &f->e), -1);
	assert_int_equal(f->e.code, PLAN_VERIFY);
	plan_strerror(&f->e, msg, sizeof(msg));
	assert_non_null(strstr(msg, "internal error: plan check failed"));
	assert_non_null(strstr(msg, "nothing written"));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_bad_params),
		T(test_page_shared),
		T(test_not_congruent),
		T(test_growth_limit),
		T(test_growth_limit_tail),
		T(test_class32_size),
		T(test_class32_section_offset),
		T(test_class32_segment_offset),
		T(test_offset_overflow_load),
		T(test_offset_overflow_bss),
		T(test_split_segment),
		T(test_split_section),
		T(test_split_phdrs),
		T(test_split_shdrs),
		T(test_shdrs_in_load),
		T(test_verify_words),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
