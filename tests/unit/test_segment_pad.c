/* SPDX-License-Identifier: BSD-2-Clause */
/* SPDX-FileCopyrightText: 2026 the elfthp-align authors */
/*
 * Unit tests of the planner (segment_pad.c) on hand-built segment tables.  The tables copy the shapes real linkers
 * produce on Debian 12 (docs/loading.md, 'Linker layouts (Debian 12)'):
 * GNU ld with and without -z separate-code, lld, and aarch64 GNU ld with
 * 64 KiB pages.
 *
 * Build: make tests/unit/test_segment_pad (links only the pure modules).
 * The fixture helpers are in fixture.c; the other pure modules have their
 * own test_*.c beside this one.
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

static void
test_windows_arithmetic(void **state)
{
	assert_int_equal(windows_in(0, M(2), M(2)), 1);
	assert_int_equal(windows_in(0, M(2) - 1, M(2)), 0);
	assert_int_equal(windows_in(K(4), M(4), M(2)), 1);
	assert_int_equal(windows_in(K(4), M(4) - K(4), M(2)), 1);
	assert_int_equal(windows_in(K(4), M(4) - K(8), M(2)), 0);
	assert_int_equal(windows_in(M(1), M(7), M(2)), 3);
	assert_int_equal(windows_in(UINT64_MAX - 10, 100, M(2)), 0);
}

/* GNU ld -z separate-code: R | R E | R | RW, p_offset == p_vaddr. */
static void
test_gnu_ld_layout_changes_only_p_align(void **state)
{
	struct fixture *f = *state = new_file(ET_DYN, M(13));
	size_t r, text, ro, rw;

	r = load(f, PF_R, 0, 0, 0x628);
	text = load(f, PF_R | PF_X, K(4), K(4), M(8));
	ro = load(f, PF_R, K(4) + M(8), K(4) + M(8), M(4) + K(1));
	rw = load(f, PF_R | PF_W, M(12) + K(12) + 0xdd8, M(12) + K(16) + 0xdd8,
	    K(2));
	plan_ok(f, &x86);
	assert_int_equal(f->P.segs[r].verdict, SEG_NO_WINDOW);
	assert_int_equal(f->P.segs[text].verdict, SEG_ELIGIBLE);
	assert_int_equal(f->P.segs[ro].verdict, SEG_ELIGIBLE);
	assert_int_equal(f->P.segs[rw].verdict, SEG_WRITABLE);
	assert_int_equal(f->P.segs[text].new_offset, K(4));
	assert_int_equal(f->P.segs[text].new_align, M(2));
	assert_int_equal(f->P.segs[ro].new_offset, K(4) + M(8));
	assert_int_equal(f->P.segs[ro].new_align, M(2));
	assert_int_equal(f->P.segs[rw].new_align, K(4));
	assert_int_equal(f->P.new_size, M(13));
	assert_int_equal(f->P.n_aligned, 2);
	assert_int_equal(f->P.windows_after, 3 + 1);
	/* PIE with p_align 4 KiB: the kernel picks a base that is not PMD-aligned. */
	assert_false(f->P.base_aligned_now);
	assert_int_equal(f->P.windows_now, 0);
	assert_true(f->P.changed);
}

/* lld: R (headers, rodata) at 0, then R E at p_vaddr = p_offset + 0x1000. */
static void
test_lld_layout_pads_text(void **state)
{
	struct fixture *f = *state = new_file(ET_DYN, 0x5f0 + M(8) + K(8));
	size_t r, text, rw, s_text, s_data;
	uint64_t text_off = 0x5f0, rw_off = 0x5f0 + M(8);

	r = load(f, PF_R, 0, 0, text_off);
	text = load(f, PF_R | PF_X, text_off, text_off + K(4), M(8));
	rw = load(f, PF_R | PF_W, rw_off, rw_off + K(8), K(8));
	s_text = sec(f, SHT_PROGBITS, SHF_ALLOC | SHF_EXECINSTR,
	    text_off + K(4), text_off, M(8), 16);
	s_data = sec(f, SHT_PROGBITS, SHF_ALLOC | SHF_WRITE, rw_off + K(8),
	    rw_off, K(8), 8);
	plan_ok(f, &x86);
	assert_int_equal(f->P.segs[r].new_offset, 0);
	assert_int_equal(f->P.segs[text].new_offset, text_off + K(4));
	assert_true(congruent(f->P.segs[text].new_offset,
	    f->segs[text].vaddr, M(2)));
	/* The RW segment moves by the same 4 KiB and stays page-congruent. */
	assert_int_equal(f->P.segs[rw].new_offset, rw_off + K(4));
	assert_int_equal(f->P.sec_offset[s_text], text_off + K(4));
	assert_int_equal(f->P.sec_offset[s_data], rw_off + K(4));
	assert_int_equal(f->P.new_size, f->L.file_size + K(4));
	assert_int_equal(f->P.windows_now, 0);
	assert_int_equal(f->P.windows_after, 3);
}

/*
 * The text shares its first page with the R segment.  After the move the
 * new page holds the same bytes: the R tail is repeated in front of it.
 */
static void
test_shared_page_is_repeated(void **state)
{
	struct fixture *f = *state = new_file(ET_DYN, 0x5f0 + M(8));
	size_t i;
	bool prefix = false, suffix = false;

	load(f, PF_R, 0, 0, 0x5f0);
	load(f, PF_R | PF_X, 0x5f0, 0x15f0, M(8));
	plan_ok(f, &x86);
	for (i = 0; i < f->P.nextents; i++) {
		const struct extent *x = &f->P.extents[i];

		if (x->src == 0 && x->dst == K(4) && x->len == 0x5f0)
			prefix = true;
		if (x->src == 0x5f0 && x->dst == 0x5f0 && x->len == K(4) - 0x5f0)
			suffix = true;
	}
	assert_true(prefix);
	assert_true(suffix);
}

/* Text ends and RW begins inside one file page (GNU ld noseparate-code). */
static void
test_segments_sharing_a_page_stay_apart(void **state)
{
	struct fixture *f = *state = new_file(ET_DYN, M(9));
	uint64_t text_end = 0x5f0 + M(8) + 0x200;
	size_t text, rw;

	load(f, PF_R, 0, 0, 0x5f0);
	text = load(f, PF_R | PF_X, 0x5f0, 0x15f0, M(8) + 0x200);
	rw = load(f, PF_R | PF_W, text_end + 0x100, text_end + 0x100 + K(8),
	    K(4));
	plan_ok(f, &x86);
	assert_true(f->P.segs[rw].new_offset >=
	    f->P.segs[text].new_offset + f->segs[text].filesz);
	assert_true(congruent(f->P.segs[rw].new_offset, f->segs[rw].vaddr,
	    K(4)));
	/* Same delta as the text: nothing more than needed was added. */
	assert_int_equal(f->P.segs[rw].new_offset - f->segs[rw].offset,
	    f->P.segs[text].new_offset - f->segs[text].offset);
}

/* aarch64 GNU ld: one R E from offset 0, p_align 64 KiB. */
static void
test_aarch64_64k_layout(void **state)
{
	struct fixture *f = *state = new_file(ET_DYN, M(9));
	size_t text, rw;

	f->L.machine = EM_AARCH64;
	text = seg(f, PT_LOAD, PF_R | PF_X, 0, 0, M(8) + 0x300, M(8) + 0x300,
	    K(64));
	rw = seg(f, PT_LOAD, PF_R | PF_W, M(8) + K(64) - 0x100,
	    M(8) + K(128) - 0x100, K(4), K(8), K(64));
	plan_ok(f, &arm64);
	assert_int_equal(f->P.segs[text].new_offset, 0);
	assert_int_equal(f->P.segs[text].new_align, M(2));
	assert_int_equal(f->P.segs[rw].new_offset, f->segs[rw].offset);
	assert_int_equal(f->P.segs[rw].new_align, K(64));
	assert_int_equal(f->P.new_size, M(9));
	assert_int_equal(f->P.windows_after, 4);
}

/* aarch64 linked for 4 KiB pages: later segments are raised to 64 KiB. */
static void
test_aarch64_raises_congruence_to_64k(void **state)
{
	struct fixture *f = *state = new_file(ET_DYN, M(9));
	size_t text, rw;

	f->L.machine = EM_AARCH64;
	load(f, PF_R, 0, 0, 0x700);
	text = load(f, PF_R | PF_X, 0x700, 0x10700, M(8));
	rw = load(f, PF_R | PF_W, M(8) + 0x700, M(8) + 0x20700, K(4));
	plan_ok(f, &arm64);
	assert_true(congruent(f->P.segs[text].new_offset, 0x10700, M(2)));
	assert_true(congruent(f->P.segs[rw].new_offset, M(8) + 0x20700,
	    K(64)));
	assert_int_equal(f->P.segs[rw].new_align, K(4));
}

static void
test_already_aligned_gives_empty_plan(void **state)
{
	struct fixture *f = *state = new_file(ET_DYN, M(12));
	size_t i;

	seg(f, PT_LOAD, PF_R, 0, 0, 0x628, 0x628, M(2));
	seg(f, PT_LOAD, PF_R | PF_X, K(4), K(4), M(8), M(8), M(2));
	seg(f, PT_LOAD, PF_R | PF_W, M(8) + K(8), M(10) + K(8), K(4), K(4),
	    K(4));
	plan_ok(f, &x86);
	assert_false(f->P.changed);
	assert_int_equal(f->P.n_aligned, 0);
	assert_int_equal(f->P.windows_now, 3);
	assert_int_equal(f->P.windows_after, 3);
	for (i = 0; i < f->P.nextents; i++)
		assert_int_equal(f->P.extents[i].src, f->P.extents[i].dst);
}

static void
test_segment_too_small_for_a_window(void **state)
{
	struct fixture *f = *state = new_file(ET_DYN, M(3));
	size_t text;

	load(f, PF_R, 0, 0, 0x5f0);
	text = load(f, PF_R | PF_X, 0x5f0, 0x15f0, M(2));
	plan_ok(f, &x86);
	assert_int_equal(f->P.segs[text].verdict, SEG_NO_WINDOW);
	assert_false(f->P.changed);
	assert_int_equal(f->P.n_eligible, 0);
}

/* The first PT_LOAD holds the headers; it cannot move to become congruent. */
static void
test_incongruent_header_segment_is_pinned(void **state)
{
	struct fixture *f = *state = new_file(ET_DYN, M(9));
	size_t text;

	text = load(f, PF_R | PF_X, 0, K(4), M(8));
	plan_ok(f, &x86);
	assert_int_equal(f->P.segs[text].verdict, SEG_PINNED);
	assert_int_equal(f->P.segs[text].new_offset, 0);
	assert_false(f->P.changed);
}

/*
 * BOLT's layout: the program headers in a last PT_LOAD at the end of the
 * file, with PT_PHDR.  The original text holds neither header: it is
 * eligible and moves, and the table moves with its PT_LOAD (e_phoff and
 * PT_PHDR with it).  Planned again, the output needs nothing.
 */
static void
test_bolt_phdrs_at_end_pin_nothing(void **state)
{
	uint64_t phoff = M(10), len = 7 * 56;
	struct fixture *f = *state = new_file(ET_DYN, phoff + len);
	size_t text, phdr, last;

	f->L.phoff = phoff;
	phdr = seg(f, PT_PHDR, PF_R, phoff, phoff, len, len, 8);
	load(f, PF_R, 0, 0, 0x5f0);
	text = load(f, PF_R | PF_X, 0x5f0, 0x15f0, M(8));
	load(f, PF_R | PF_W, 0x5f0 + M(8), 0x25f0 + M(8), K(4));
	last = seg(f, PT_LOAD, PF_R, phoff, phoff, len, len, M(2));
	plan_ok(f, &x86);
	assert_int_equal(f->P.segs[text].verdict, SEG_ELIGIBLE);
	assert_int_equal(f->P.n_pinned, 0);
	assert_true(congruent(f->P.segs[text].new_offset, f->segs[text].vaddr,
	    M(2)));
	assert_int_equal(f->P.new_phoff, f->P.segs[last].new_offset);
	assert_int_equal(f->P.segs[phdr].new_offset, f->P.new_phoff);
	assert_true(congruent(f->P.new_phoff, phoff, M(2)));
	apply(f);
	plan_ok(f, &x86);
	assert_false(f->P.changed);
}

/* In front, the table pins what starts inside it, as before. */
static void
test_phdrs_in_front_pin_the_first_load(void **state)
{
	struct fixture *f = *state = new_file(ET_DYN, M(9));
	size_t text;

	/* The table is 64 to 176: the text starts inside it. */
	load(f, PF_R, 0, 0, 0x80);
	text = load(f, PF_R | PF_X, 0x80, 0x1080, M(8));
	plan_ok(f, &x86);
	assert_int_equal(f->P.segs[text].verdict, SEG_PINNED);
	assert_int_equal(f->P.new_phoff, f->L.phoff);
}

static void
test_sections_outside_segments_follow(void **state)
{
	uint64_t end = 0x5f0 + M(8);
	struct fixture *f = *state = new_file(ET_DYN, end + K(64) + 64 * 5);
	size_t comment, symtab, bss;

	load(f, PF_R, 0, 0, 0x5f0);
	load(f, PF_R | PF_X, 0x5f0, 0x15f0, M(8));
	seg(f, PT_LOAD, PF_R | PF_W, end, end + K(4), 0, K(16), K(4));
	bss = sec(f, SHT_NOBITS, SHF_ALLOC | SHF_WRITE, end + K(4), end, K(16),
	    32);
	comment = sec(f, SHT_PROGBITS, 0, 0, end, 0x40, 1);
	symtab = sec(f, SHT_SYMTAB, 0, 0, end + 0x40, K(64) - 0x40, 8);
	f->L.shoff = end + K(64);
	f->L.shentsize = 64;
	plan_ok(f, &x86);
	assert_int_equal(f->P.sec_offset[comment], end + K(4));
	assert_int_equal(f->P.sec_offset[symtab], end + 0x40 + K(4));
	assert_int_equal(f->P.sec_offset[bss], end + K(4));
	assert_int_equal(f->P.new_shoff, f->L.shoff + K(4));
	assert_int_equal(f->P.new_size, f->L.file_size + K(4));
}

/* Rewriting the output again changes nothing. */
static void
test_second_plan_is_empty(void **state)
{
	struct fixture *f = *state = new_file(ET_DYN, 0x5f0 + M(12) + K(8));

	load(f, PF_R, 0, 0, 0x5f0);
	load(f, PF_R | PF_X, 0x5f0, 0x15f0, M(8));
	load(f, PF_R, 0x5f0 + M(8), 0x25f0 + M(8), M(4));
	load(f, PF_R | PF_W, 0x5f0 + M(12), 0x35f0 + M(12), K(8));
	plan_ok(f, &x86);
	assert_true(f->P.changed);
	apply(f);
	plan_ok(f, &x86);
	assert_false(f->P.changed);
}

static void
test_rejects_overlapping_loads(void **state)
{
	struct fixture *f = *state = new_file(ET_DYN, M(9));

	load(f, PF_R, 0, 0, K(8));
	load(f, PF_R | PF_X, K(4), K(4), M(8));
	expect_error(f, PLAN_OVERLAP);
}

static void
test_rejects_filesz_above_memsz(void **state)
{
	struct fixture *f = *state = new_file(ET_DYN, M(9));

	seg(f, PT_LOAD, PF_R, 0, 0, K(8), K(4), K(4));
	expect_error(f, PLAN_FILESZ_GT_MEMSZ);
}

static void
test_rejects_page_incongruent_load(void **state)
{
	struct fixture *f = *state = new_file(ET_DYN, M(9));

	load(f, PF_R, 0, 0, 0x100);
	load(f, PF_R | PF_X, 0x100, 0x2200, M(8));
	expect_error(f, PLAN_NOT_CONGRUENT);
}

static void
test_rejects_load_past_eof(void **state)
{
	struct fixture *f = *state = new_file(ET_DYN, M(1));

	load(f, PF_R, 0, 0, K(4));
	load(f, PF_R | PF_X, K(4), K(4), UINT64_MAX - K(2));
	expect_error(f, PLAN_PAST_EOF);
}

static void
test_rejects_align_not_power_of_two(void **state)
{
	struct fixture *f = *state = new_file(ET_DYN, M(1));

	seg(f, PT_LOAD, PF_R, 0, 0, K(4), K(4), 0x3000);
	expect_error(f, PLAN_BAD_ALIGN);
}

static void
test_rejects_no_load(void **state)
{
	struct fixture *f = *state = new_file(ET_DYN, M(1));

	seg(f, PT_NOTE, PF_R, 0x100, 0x100, 0x20, 0x20, 4);
	expect_error(f, PLAN_NO_LOAD);
}

static void
test_class32_limit(void **state)
{
	/* Text 4 KiB short of 2 MiB off: the padding takes the file past 4 GiB. */
	struct fixture *f = *state = new_file(ET_EXEC, 0xfff00000);

	f->L.elfclass = ELFCLASS32;
	f->L.machine = EM_386;
	load(f, PF_R, 0, 0, 0x5f0);
	load(f, PF_R | PF_X, 0x5f0, 0x1ff5f0, 0xffe00000 - 0x5f0);
	expect_error(f, PLAN_TOO_BIG);
}

/* ELFCLASS32: an address plus a size past 2^32 is refused (it fits 2^64). */
static void
test_class32_address_wraps(void **state)
{
	struct fixture *f = *state = new_file(ET_EXEC, M(8));

	f->L.elfclass = ELFCLASS32;
	f->L.machine = EM_386;
	load(f, PF_R, 0, 0x8048000, 0x5f0);
	load(f, PF_R | PF_X, 0x5f0, 0x80495f0, M(4));
	load(f, PF_R | PF_W, M(5), 0x10000000 + M(5), 0x100);
	f->segs[2].memsz = 0xffffffff;
	expect_error(f, PLAN_OVERFLOW);
	assert_int_equal(f->e.index, 2);
}

/* ELFCLASS64: an address plus a size past 2^64 is refused, not wrapped. */
static void
test_class64_address_wraps(void **state)
{
	struct fixture *f = *state = new_file(ET_DYN, M(8));

	load(f, PF_R, 0, 0, 0x5f0);
	load(f, PF_R | PF_X, 0x5f0, 0x15f0, M(4));
	load(f, PF_R | PF_W, M(5), UINT64_MAX - K(64) + 1, 0x100);
	f->segs[2].memsz = K(64);
	expect_error(f, PLAN_OVERFLOW);
	assert_int_equal(f->e.index, 2);
}

/*
 * Two p_aligns of 2^63, both at addresses 0 modulo 2^63: the first moves
 * its segment 2^63 - 4 KiB on, the second asks for as much again, to 2^64.
 * Refused, not wrapped to a small offset inside the file.
 */
static void
test_new_offset_past_2_64(void **state)
{
	struct fixture *f = *state = new_file(ET_DYN, M(8));
	uint64_t half = UINT64_C(1) << 63;

	load(f, PF_R, 0, M(1), 0x5f0);
	load(f, PF_R | PF_X, K(4), half, K(4));
	load(f, PF_R, K(8), 0, K(4));
	f->segs[1].align = half;
	f->segs[2].align = half;
	expect_error(f, PLAN_OVERFLOW);
	assert_int_equal(f->e.index, 2);
}

/* A p_align of 2^36 the offset does not meet: refused, and named. */
static void
test_growth_is_bounded(void **state)
{
	struct fixture *f = *state = new_file(ET_DYN, M(8));

	load(f, PF_R, 0, 0, 0x5f0);
	load(f, PF_R | PF_X, 0x5f0, 0x15f0, M(4));
	load(f, PF_R | PF_W, M(5), (UINT64_C(1) << 40) + K(4), 0x100);
	f->segs[2].align = UINT64_C(1) << 36;
	expect_error(f, PLAN_GROWTH);
	assert_int_equal(f->e.index, 2);
	assert_true(f->e.value > (UINT64_C(1) << 35));
}

/* arm64 16 KiB: 32 MiB PMDs where a window exists, else 2 MiB blocks. */
static void
test_fallback_target_for_small_segments(void **state)
{
	struct fixture *f = *state = new_file(ET_DYN, M(80));
	struct plan_params p = params_of(&(struct plan_request){
	    .machine = EM_AARCH64, .page_size = K(16) });
	size_t big, small;

	f->L.machine = EM_AARCH64;
	load(f, PF_R, 0, 0, 0x700);
	big = load(f, PF_R | PF_X, 0x700, 0x10700, M(70));
	small = load(f, PF_R, M(70) + 0x700, M(70) + 0x20700, M(5));
	plan_ok(f, &p);
	assert_int_equal(f->P.segs[big].target, M(32));
	assert_int_equal(f->P.segs[big].new_align, M(32));
	assert_true(congruent(f->P.segs[big].new_offset, 0x10700, M(32)));
	assert_int_equal(f->P.segs[small].verdict, SEG_ELIGIBLE);
	assert_int_equal(f->P.segs[small].target, M(2));
	assert_int_equal(f->P.segs[small].new_align, M(2));
	assert_true(congruent(f->P.segs[small].new_offset,
	    M(70) + 0x20700, M(2)));
}

/* aarch64 linked for 4 KiB pages, nothing eligible: the 64 KiB floor alone
 * is no reason to rewrite. */
static void
test_floor_alone_changes_nothing(void **state)
{
	struct fixture *f = *state = new_file(ET_DYN, M(1));

	f->L.machine = EM_AARCH64;
	load(f, PF_R | PF_X, 0, 0, 0x87c);
	load(f, PF_R | PF_W, 0xdc8, 0x1dc8, 0x270);
	plan_ok(f, &arm64);
	assert_false(f->P.changed);
}

/* Found by the fuzzer: section headers over the program headers. */
static void
test_rejects_shdrs_over_headers(void **state)
{
	struct fixture *f = *state = new_file(ET_DYN, M(9));

	load(f, PF_R, 0, 0, K(4));
	load(f, PF_R | PF_X, K(4), K(4), M(8));
	f->L.nsegs = 2;
	f->L.shoff = 0x98;	/* inside the program header table */
	f->L.shentsize = 64;
	sec(f, SHT_NULL, 0, 0, 0, 0, 0);
	expect_error(f, PLAN_SHDRS_OVERLAP);
}

/*
 * Go's linker: the section header table inside the first PT_LOAD, after the
 * program headers.  Legal: it is that segment's bytes, so the plan keeps it
 * there and the verifier accepts it, as long as no section moves.
 */
static void
test_go_shdrs_inside_first_load(void **state)
{
	struct fixture *f = *state = new_file(ET_DYN, M(5));
	size_t text;
	char msg[256];

	text = load(f, PF_R | PF_X, 0, M(4), M(3));
	load(f, PF_R, M(3), M(7), M(1));
	f->L.shoff = 0x200;
	f->L.shentsize = 64;
	sec(f, SHT_NULL, 0, 0, 0, 0, 0);
	sec(f, SHT_PROGBITS, SHF_ALLOC | SHF_EXECINSTR, M(4) + K(4), K(4),
	    M(3) - K(4), 16);
	plan_ok(f, &x86);
	assert_int_equal(f->P.new_shoff, 0x200);
	assert_int_equal(f->P.segs[text].new_offset, 0);
	assert_int_equal(f->P.segs[text].new_align, M(2));	/* header only */
	assert_int_equal(f->P.new_size, f->L.file_size);
	if (plan_verify(&f->L, &x86, &f->P, &f->e) != 0) {
		plan_strerror(&f->e, msg, sizeof(msg));
		fail_msg("verify: %s", msg);
	}
}

/* Inside a PT_LOAD whose sections must move: its bytes would change. */
static void
test_shdrs_inside_a_moving_load(void **state)
{
	struct fixture *f = *state = new_file(ET_DYN, 0x5f0 + M(8) + K(8));
	uint64_t text_off = 0x5f0;

	load(f, PF_R, 0, 0, text_off);
	load(f, PF_R | PF_X, text_off, text_off + K(4), M(8));
	f->L.shoff = text_off + M(4);	/* in the middle of the text */
	f->L.shentsize = 64;
	sec(f, SHT_NULL, 0, 0, 0, 0, 0);
	sec(f, SHT_PROGBITS, SHF_ALLOC | SHF_EXECINSTR, text_off + K(4),
	    text_off, M(4), 16);
	expect_error(f, PLAN_SHDRS_IN_LOAD);
	assert_int_equal(f->e.index, 1);
	assert_int_equal(f->e.other, 1);
}

/* Partly inside a PT_LOAD: across its end. */
static void
test_shdrs_across_a_load_end(void **state)
{
	struct fixture *f = *state = new_file(ET_DYN, M(5));

	load(f, PF_R | PF_X, 0, 0, M(3));
	f->L.shoff = M(3) - 64;
	f->L.shentsize = 64;
	sec(f, SHT_NULL, 0, 0, 0, 0, 0);
	sec(f, SHT_PROGBITS, 0, 0, M(4), 16, 1);
	expect_error(f, PLAN_SHDRS_OVERLAP);
	assert_int_equal(f->e.index, 0);
}

/*
 * An empty PT_LOAD at offset 0 sorts first; the first PT_LOAD with file
 * bytes still never moves (the check pass refuses a plan that moves it).
 * A fuzzer's aarch64 file: with --page-size 4k the planner moved it to
 * be congruent modulo 64 KiB, and the check pass said "internal error".
 */
static void
test_first_load_with_bytes_stays(void **state)
{
	struct fixture *f = *state = new_file(ET_DYN, M(8));
	struct plan_params p = arm64;	/* 64 KiB pages: 0x620 would move */
	size_t empty, text;

	f->L.machine = EM_AARCH64;
	empty = seg(f, PT_LOAD, PF_R, 0, 0, 0, 0, UINT64_C(1) << 35);
	text = load(f, PF_R | PF_X, 0x620, 0x1620, M(4));
	load(f, PF_R, M(5), M(5) + K(4), K(16));
	p.min_p_align = K(4);
	plan_ok(f, &p);
	assert_int_equal(f->P.segs[text].new_offset, 0x620);
	assert_int_equal(f->P.segs[empty].new_offset, 0);
}

/*
 * --layout start, GNU ld -z separate-code: R (headers) at 0, R E from
 * 0x1000, congruent as linked.  The text is split at 2 MiB: a head
 * [0x1000, 2M) and a body from 2M in address and offset; the table, one
 * entry longer, goes after the first PT_LOAD, which grows over it, and
 * PT_PHDR names it.  Nothing moves: the file keeps its size.
 */
static void
test_split_gnu_ld_text(void **state)
{
	struct fixture *f = *state = new_file(ET_DYN, K(4) + M(8));
	struct plan_params p = x86;
	size_t phdr, r, text;
	const struct seg_desc *o;

	phdr = seg(f, PT_PHDR, PF_R, 64, 64, 3 * 56, 3 * 56, 8);
	r = load(f, PF_R, 0, 0, 0x400);
	text = load(f, PF_R | PF_X, K(4), K(4), M(8));
	p.split = true;
	plan_ok(f, &p);
	assert_int_equal(f->P.nsplit, 1);
	assert_int_equal(f->P.segs[text].split_at, M(2));
	assert_int_equal(f->P.nphdrs_out, 4);
	assert_int_equal(f->P.new_size, f->L.file_size);
	assert_int_equal(f->P.table_off, 0x400);
	o = f->P.phdrs_out;
	assert_int_equal(o[phdr].offset, 0x400);
	assert_int_equal(o[phdr].vaddr, 0x400);
	assert_int_equal(o[phdr].filesz, 4 * 56);
	assert_int_equal(o[r].filesz, 0x400 + 4 * 56);
	assert_int_equal(o[2].vaddr, K(4));
	assert_int_equal(o[2].memsz, M(2) - K(4));
	assert_int_equal(o[3].vaddr, M(2));
	assert_int_equal(o[3].offset, M(2));
	assert_int_equal(o[3].filesz, M(8) + K(4) - M(2));
	assert_true(f->P.changed);
}

/* Without --layout start the same file only has its p_align raised. */
static void
test_split_not_asked(void **state)
{
	struct fixture *f = *state = new_file(ET_DYN, K(4) + M(8));

	seg(f, PT_PHDR, PF_R, 64, 64, 3 * 56, 3 * 56, 8);
	load(f, PF_R, 0, 0, 0x400);
	load(f, PF_R | PF_X, K(4), K(4), M(8));
	plan_ok(f, &x86);
	assert_int_equal(f->P.nsplit, 0);
	assert_null(f->P.phdrs_out);
	assert_int_equal(f->P.split_note, SPLIT_NOT_ASKED);
}

/*
 * No room: the first PT_LOAD fills its last page up to the next one's
 * bytes.  Nothing is split, the plan says why, and the file stays
 * congruent.
 */
static void
test_split_no_room(void **state)
{
	struct fixture *f = *state = new_file(ET_DYN, K(4) + M(8));
	struct plan_params p = x86;
	size_t text;

	seg(f, PT_PHDR, PF_R, 64, 64, 3 * 56, 3 * 56, 8);
	load(f, PF_R, 0, 0, K(4) - 8);
	text = load(f, PF_R | PF_X, K(4), K(4), M(8));
	p.split = true;
	plan_ok(f, &p);
	assert_int_equal(f->P.nsplit, 0);
	assert_int_equal(f->P.split_wanted, 1);
	assert_int_equal(f->P.split_note, SPLIT_NO_ROOM);
	assert_int_equal(f->P.segs[text].split_at, 0);
	assert_int_equal(f->P.segs[text].new_align, M(2));
}

/* The check pass refuses a body one byte off the boundary. */
static void
test_split_off_boundary_refused(void **state)
{
	struct fixture *f = *state = new_file(ET_DYN, K(4) + M(8));
	struct plan_params p = x86;
	struct plan_error e;

	seg(f, PT_PHDR, PF_R, 64, 64, 3 * 56, 3 * 56, 8);
	load(f, PF_R, 0, 0, 0x400);
	load(f, PF_R | PF_X, K(4), K(4), M(8));
	p.split = true;
	plan_ok(f, &p);
	f->P.phdrs_out[2].filesz++;
	f->P.phdrs_out[2].memsz++;
	f->P.phdrs_out[3].vaddr++;
	f->P.phdrs_out[3].paddr++;
	f->P.phdrs_out[3].offset++;
	f->P.phdrs_out[3].filesz--;
	f->P.phdrs_out[3].memsz--;
	assert_int_equal(plan_verify(&f->L, &p, &f->P, &e), -1);
	assert_string_equal(e.detail, "split body not on the first window");
}

/*
 * --layout start with segments after the text (GNU ld: .rodata, then
 * .data): the body [2M, 7M + 4K) has its last whole window at [4M, 6M),
 * so what follows it starts at 8M in the file at the least: .rodata
 * (7M + 8K) and .data move by one window, each congruent as before, and
 * the file grows by 2 MiB of hole.
 */
static size_t gap_ro, gap_rw;

static struct fixture *
gap_file(struct plan_params *p)
{
	struct fixture *f = new_file(ET_DYN, M(7) + K(88));

	seg(f, PT_PHDR, PF_R, 64, 64, 4 * 56, 4 * 56, 8);
	load(f, PF_R, 0, 0, 0x400);
	load(f, PF_R | PF_X, K(4), K(4), M(7));
	gap_ro = load(f, PF_R, M(7) + K(8), M(7) + K(8), K(64));
	gap_rw = load(f, PF_R | PF_W, M(7) + K(72), M(7) + K(76), K(16));
	*p = x86;
	p->split = true;
	plan_ok(f, p);
	return f;
}

static void
test_split_gap_after_body(void **state)
{
	struct plan_params p;
	struct fixture *f = *state = gap_file(&p);

	assert_int_equal(f->P.nsplit, 1);
	assert_int_equal(f->P.segs[gap_ro].new_offset, M(9) + K(8));
	assert_int_equal(f->P.segs[gap_rw].new_offset, M(9) + K(72));
	assert_int_equal(f->P.new_size, f->L.file_size + M(2));
}

/* Without the split nothing moves for it: the gap is the split's. */
static void
test_split_gap_not_without_split(void **state)
{
	struct fixture *f = *state = new_file(ET_DYN, M(7) + K(88));

	seg(f, PT_PHDR, PF_R, 64, 64, 4 * 56, 4 * 56, 8);
	load(f, PF_R, 0, 0, 0x400);
	load(f, PF_R | PF_X, K(4), K(4), M(7));
	gap_ro = load(f, PF_R, M(7) + K(8), M(7) + K(8), K(64));
	plan_ok(f, &x86);
	assert_int_equal(f->P.segs[gap_ro].new_offset, M(7) + K(8));
	assert_int_equal(f->P.new_size, f->L.file_size);
}

/*
 * A split refused for want of room leaves no gap either: the gap is the
 * body's, and there is no body (the same file as gap_file, with the first
 * PT_LOAD filling its last page).
 */
static void
test_split_no_room_no_gap(void **state)
{
	struct fixture *f = *state = new_file(ET_DYN, M(7) + K(88));
	struct plan_params p = x86;

	seg(f, PT_PHDR, PF_R, 64, 64, 4 * 56, 4 * 56, 8);
	load(f, PF_R, 0, 0, K(4) - 8);
	load(f, PF_R | PF_X, K(4), K(4), M(7));
	gap_ro = load(f, PF_R, M(7) + K(8), M(7) + K(8), K(64));
	p.split = true;
	plan_ok(f, &p);
	assert_int_equal(f->P.split_note, SPLIT_NO_ROOM);
	assert_int_equal(f->P.split_wanted, 1);
	assert_int_equal(f->P.segs[gap_ro].new_offset, M(7) + K(8));
	assert_int_equal(f->P.new_size, f->L.file_size);
}

/* The check pass refuses the same plan with the gap taken out. */
static void
test_split_gap_refused(void **state)
{
	struct plan_params p;
	struct fixture *f = *state = gap_file(&p);
	struct plan_error e;
	size_t i;

	for (i = 0; i < f->P.nextents; i++)
		if (f->P.extents[i].dst >= M(8))
			f->P.extents[i].dst -= M(2);
	f->P.segs[gap_ro].new_offset -= M(2);
	f->P.segs[gap_rw].new_offset -= M(2);
	f->P.new_size -= M(2);
	for (i = 0; i < f->P.nphdrs_out; i++)
		if (f->P.phdrs_out[i].offset >= M(8))
			f->P.phdrs_out[i].offset -= M(2);
	assert_int_equal(plan_verify(&f->L, &p, &f->P, &e), -1);
	assert_string_equal(e.detail, "no window of file after the split body");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_first_load_with_bytes_stays),
		cmocka_unit_test(test_windows_arithmetic),
		T(test_gnu_ld_layout_changes_only_p_align),
		T(test_lld_layout_pads_text),
		T(test_split_gnu_ld_text),
		T(test_split_not_asked),
		T(test_split_no_room),
		T(test_split_off_boundary_refused),
		T(test_split_gap_after_body),
		T(test_split_gap_not_without_split),
		T(test_split_gap_refused),
		T(test_split_no_room_no_gap),
		T(test_shared_page_is_repeated),
		T(test_segments_sharing_a_page_stay_apart),
		T(test_aarch64_64k_layout),
		T(test_aarch64_raises_congruence_to_64k),
		T(test_already_aligned_gives_empty_plan),
		T(test_segment_too_small_for_a_window),
		T(test_incongruent_header_segment_is_pinned),
		T(test_bolt_phdrs_at_end_pin_nothing),
		T(test_phdrs_in_front_pin_the_first_load),
		T(test_sections_outside_segments_follow),
		T(test_second_plan_is_empty),
		T(test_rejects_overlapping_loads),
		T(test_rejects_filesz_above_memsz),
		T(test_rejects_page_incongruent_load),
		T(test_rejects_load_past_eof),
		T(test_rejects_align_not_power_of_two),
		T(test_rejects_no_load),
		T(test_class32_limit),
		T(test_class32_address_wraps),
		T(test_class64_address_wraps),
		T(test_new_offset_past_2_64),
		T(test_growth_is_bounded),
		T(test_fallback_target_for_small_segments),
		T(test_floor_alone_changes_nothing),
		T(test_rejects_shdrs_over_headers),
		T(test_go_shdrs_inside_first_load),
		T(test_shdrs_inside_a_moving_load),
		T(test_shdrs_across_a_load_end),
	};

	return cmocka_run_group_tests_name("planner", tests, NULL, NULL);
}
