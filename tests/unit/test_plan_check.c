/* SPDX-License-Identifier: BSD-2-Clause */
/* SPDX-FileCopyrightText: 2026 the elfthp-align authors */
/*
 * Unit tests of plan_verify (plan_check.c), the second opinion the write
 * pass relies on: a plan that breaks one rule must be refused, with
 * PLAN_VERIFY and the rule's own detail string.
 *
 * Each test starts from a good plan that plan_build made for a realistic
 * layout (an lld PIE with R, R E, RW, RW PT_LOADs, the usual non-LOAD
 * headers, sections and a section header table), checks that plan_verify
 * accepts it, breaks exactly one thing (in the plan, or in the layout the
 * plan is checked against), checks the refusal, then puts the one thing
 * back and checks that the plan is accepted again: so each refusal is due
 * to that one break and nothing else.
 *
 * `make mutation` builds this with plan_verify stubbed to `return 0`: then
 * every refusal test here must fail.
 *
 * Build: make tests/unit/test_plan_check (links only the pure modules).
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

#define K(x) ((uint64_t)(x) << 10)
#define M(x) ((uint64_t)(x) << 20)

#define MAXSEG 16
#define MAXSEC 24

struct fixture {
	struct elf_layout L;
	struct seg_desc segs[MAXSEG];
	struct sec_desc secs[MAXSEC];
	struct plan_params p;
	struct plan P;
	struct plan_error e;
	/* A copy of the good layout and plan, to put a break back. */
	struct elf_layout L0;
	struct seg_desc segs0[MAXSEG];
	struct sec_desc secs0[MAXSEC];
	struct plan P0;
	/* Header and section indexes of the lld layout. */
	size_t phdr, interp, r, text, relro, data, dynamic, gnu_relro, eh,
	    stack, note;
	size_t s_interp, s_note, s_rodata, s_text, s_dynamic, s_data, s_bss,
	    s_comment, s_symtab, s_shstrtab;
};

static size_t
seg(struct fixture *f, uint32_t type, uint32_t flags, uint64_t off,
    uint64_t vaddr, uint64_t filesz, uint64_t memsz, uint64_t align)
{
	size_t i = f->L.nsegs++;

	assert_true(i < MAXSEG);
	f->segs[i] = (struct seg_desc){ type, flags, off, vaddr, vaddr,
	    filesz, memsz, align };
	return i;
}

static size_t
sec(struct fixture *f, uint32_t type, uint64_t flags, uint64_t addr,
    uint64_t off, uint64_t size, uint64_t align)
{
	size_t i = f->L.nsecs++;

	assert_true(i < MAXSEC);
	f->secs[i] = (struct sec_desc){ .type = type, .flags = flags,
	    .addr = addr, .offset = off, .size = size, .addralign = align };
	return i;
}

static struct fixture *
new_fixture(uint8_t elfclass, uint16_t machine)
{
	struct fixture *f = calloc(1, sizeof(*f));
	const char *why = NULL;

	assert_non_null(f);
	f->L.elfclass = elfclass;
	f->L.elfdata = ELFDATA2LSB;
	f->L.type = ET_DYN;
	f->L.machine = machine;
	f->L.ehdr_size = elfclass == ELFCLASS64 ? 64 : 52;
	f->L.phoff = f->L.ehdr_size;
	f->L.phentsize = elfclass == ELFCLASS64 ? 56 : 32;
	f->L.shentsize = elfclass == ELFCLASS64 ? 64 : 40;
	f->L.has_interp = true;
	f->L.flags1_pie = true;
	f->L.segs = f->segs;
	f->L.secs = f->secs;
	if (plan_params_make(&(struct plan_request){ .machine = machine },
	    &f->p, &why) != 0)
		fail_msg("plan_params_make: %s", why);
	return f;
}

static uint64_t
up(uint64_t x, uint64_t a)
{
	return (x + a - 1) / a * a;
}

/*
 * ld.lld's PIE on x86_64 (Debian 12, lld 14): R (headers, .rodata,
 * .eh_frame) from 0; R E with p_vaddr = p_offset + 0x1000; RW relro and RW
 * data one page further each; non-alloc sections and the section header
 * table at the end.  The text (8 MiB) holds full 2 MiB windows but is
 * incongruent modulo 2 MiB, so the plan moves it and all that follows.
 */
static void
lld_layout(struct fixture *f)
{
	uint64_t ent = f->L.phentsize, hdr_end, text_off, text_len, a, b, end;
	uint64_t word = f->L.elfclass == ELFCLASS64 ? 8 : 4;
	const size_t nphdr = 11;

	hdr_end = f->L.phoff + nphdr * ent;
	text_off = 0x3c10;
	text_len = M(8) + 0x123;
	a = up(text_off + text_len, 8);		/* .data.rel.ro */
	b = a + 0x1e0;				/* .data */
	f->phdr = seg(f, PT_PHDR, PF_R, f->L.phoff, f->L.phoff, nphdr * ent,
	    nphdr * ent, 8);
	f->interp = seg(f, PT_INTERP, PF_R, hdr_end, hdr_end, 0x1c, 0x1c, 1);
	f->r = seg(f, PT_LOAD, PF_R, 0, 0, text_off, text_off, K(4));
	f->text = seg(f, PT_LOAD, PF_R | PF_X, text_off, text_off + K(4),
	    text_len, text_len, K(4));
	f->relro = seg(f, PT_LOAD, PF_R | PF_W, a, a + K(8), 0x1e0, 0x1e0,
	    K(4));
	f->data = seg(f, PT_LOAD, PF_R | PF_W, b, b + K(12), 0x40, 0x100,
	    K(4));
	f->dynamic = seg(f, PT_DYNAMIC, PF_R | PF_W, a + 0x100, a + K(8) +
	    0x100, 0xd0, 0xd0, 8);
	f->gnu_relro = seg(f, PT_GNU_RELRO, PF_R, a, a + K(8), 0x1e0, 0xe20,
	    1);
	f->eh = seg(f, PT_GNU_EH_FRAME, PF_R, 0x3000, 0x3000, 0x100, 0x100, 4);
	f->stack = seg(f, PT_GNU_STACK, PF_R | PF_W, 0, 0, 0, 0, 0);
	f->note = seg(f, PT_NOTE, PF_R, hdr_end + 0x1c, hdr_end + 0x1c, 0x24,
	    0x24, 4);
	assert_int_equal(f->L.nsegs, nphdr);

	sec(f, SHT_NULL, 0, 0, 0, 0, 0);
	f->s_interp = sec(f, SHT_PROGBITS, SHF_ALLOC, hdr_end, hdr_end, 0x1c,
	    1);
	f->s_note = sec(f, SHT_NOTE, SHF_ALLOC, hdr_end + 0x1c, hdr_end + 0x1c,
	    0x24, 4);
	sec(f, SHT_DYNSYM, SHF_ALLOC, hdr_end + 0x40, hdr_end + 0x40, 0x300,
	    8);
	f->s_rodata = sec(f, SHT_PROGBITS, SHF_ALLOC, 0x600, 0x600, 0x2a00,
	    16);
	sec(f, SHT_PROGBITS, SHF_ALLOC, 0x3000, 0x3000, 0x100, 4);
	sec(f, SHT_PROGBITS, SHF_ALLOC, 0x3100, 0x3100, 0xb10, 8);
	f->s_text = sec(f, SHT_PROGBITS, SHF_ALLOC | SHF_EXECINSTR,
	    text_off + K(4), text_off, text_len, 16);
	sec(f, SHT_PROGBITS, SHF_ALLOC | SHF_WRITE, a + K(8), a, 0x100, 8);
	f->s_dynamic = sec(f, SHT_DYNAMIC, SHF_ALLOC | SHF_WRITE, a + K(8) +
	    0x100, a + 0x100, 0xd0, 8);
	sec(f, SHT_PROGBITS, SHF_ALLOC | SHF_WRITE, a + K(8) + 0x1d0, a + 0x1d0,
	    0x10, 8);
	f->s_data = sec(f, SHT_PROGBITS, SHF_ALLOC | SHF_WRITE, b + K(12), b,
	    0x40, 8);
	f->s_bss = sec(f, SHT_NOBITS, SHF_ALLOC | SHF_WRITE, b + K(12) + 0x40,
	    b + 0x40, 0xc0, 16);
	f->s_comment = sec(f, SHT_PROGBITS, 0, 0, b + 0x40, 0x30, 1);
	f->s_symtab = sec(f, SHT_SYMTAB, 0, 0, up(b + 0x70, 8), 0x180, 8);
	f->s_shstrtab = sec(f, SHT_STRTAB, 0, 0, up(b + 0x70, 8) + 0x180, 0x8a,
	    1);
	/* A little padding before the table, as linkers leave. */
	end = up(up(b + 0x70, 8) + 0x180 + 0x8a + word, word);
	f->L.shoff = end;
	f->L.file_size = end + f->L.nsecs * f->L.shentsize;
}

static void
snapshot(struct fixture *f)
{
	struct plan *Q = &f->P0;

	f->L0 = f->L;
	memcpy(f->segs0, f->segs, sizeof(f->segs));
	memcpy(f->secs0, f->secs, sizeof(f->secs));
	*Q = f->P;
	Q->segs = malloc(f->L.nsegs * sizeof(*Q->segs));
	Q->sec_offset = malloc((f->L.nsecs ? f->L.nsecs : 1) *
	    sizeof(*Q->sec_offset));
	Q->shifts = malloc((f->P.nshifts ? f->P.nshifts : 1) *
	    sizeof(*Q->shifts));
	Q->extents = malloc((f->P.nextents ? f->P.nextents : 1) *
	    sizeof(*Q->extents));
	assert_true(Q->segs && Q->sec_offset && Q->shifts && Q->extents);
	memcpy(Q->segs, f->P.segs, f->L.nsegs * sizeof(*Q->segs));
	memcpy(Q->sec_offset, f->P.sec_offset, f->L.nsecs *
	    sizeof(*Q->sec_offset));
	memcpy(Q->shifts, f->P.shifts, f->P.nshifts * sizeof(*Q->shifts));
	memcpy(Q->extents, f->P.extents, f->P.nextents * sizeof(*Q->extents));
}

/* Undo whatever a test broke: layout and plan as plan_build left them. */
static void
restore(struct fixture *f)
{
	struct plan *Q = &f->P0;

	f->L = f->L0;
	f->L.segs = f->segs;
	f->L.secs = f->secs;
	memcpy(f->segs, f->segs0, sizeof(f->segs));
	memcpy(f->secs, f->secs0, sizeof(f->secs));
	plan_free(&f->P);
	f->P = *Q;
	/* The copies now belong to P; rebuild P0 from them. */
	memset(Q, 0, sizeof(*Q));
	snapshot(f);
}

static int
teardown(void **state)
{
	struct fixture *f = *state;

	if (f != NULL) {
		plan_free(&f->P);
		plan_free(&f->P0);
		free(f);
	}
	return 0;
}

static void
accepted(struct fixture *f)
{
	char msg[256];

	memset(&f->e, 0, sizeof(f->e));
	if (plan_verify(&f->L, &f->p, &f->P, &f->e) != 0) {
		plan_strerror(&f->e, msg, sizeof(msg));
		fail_msg("plan_verify refused a good plan: %s", msg);
	}
}

/* The plan is refused for `detail`, at `index` unless SIZE_MAX. */
static void
refused(struct fixture *f, const char *detail, size_t index)
{
	memset(&f->e, 0, sizeof(f->e));
	f->e.index = SIZE_MAX - 1;
	assert_int_equal(plan_verify(&f->L, &f->p, &f->P, &f->e), -1);
	assert_int_equal(f->e.code, PLAN_VERIFY);
	assert_non_null(f->e.detail);
	assert_string_equal(f->e.detail, detail);
	if (index != SIZE_MAX)
		assert_int_equal(f->e.index, index);
}

/* Planned, accepted, and a copy kept to put breaks back. */
static struct fixture *
planned(struct fixture *f)
{
	char msg[256];

	if (plan_build(&f->L, &f->p, &f->P, &f->e) != 0) {
		plan_strerror(&f->e, msg, sizeof(msg));
		fail_msg("plan failed: %s", msg);
	}
	accepted(f);
	snapshot(f);
	return f;
}

static struct fixture *
lld_plan(void **state)
{
	struct fixture *f = *state = new_fixture(ELFCLASS64, EM_X86_64);

	lld_layout(f);
	return planned(f);
}

/* After the refusal: the same plan with the break undone passes. */
static void
put_back(struct fixture *f)
{
	restore(f);
	accepted(f);
}

static size_t
find_extent(const struct plan *P, uint64_t dst)
{
	size_t i;

	for (i = 0; i < P->nextents; i++)
		if (P->extents[i].dst <= dst && dst - P->extents[i].dst <
		    P->extents[i].len)
			return i;
	fail_msg("no extent holds output offset 0x%llx",
	    (unsigned long long)dst);
	return 0;
}

static bool
congruent(uint64_t off, uint64_t vaddr, uint64_t m)
{
	return ((off - vaddr) & (m - 1)) == 0;
}

/* ---- the good plans ---- */

/* The lld plan is not trivial: the text moves to a 2 MiB-congruent offset,
 * everything after it follows, and plan_verify says yes. */
static void
test_lld_plan_accepted(void **state)
{
	struct fixture *f = lld_plan(state);
	const struct seg_plan *t = &f->P.segs[f->text];

	assert_true(f->P.changed);
	assert_int_equal(t->verdict, SEG_ELIGIBLE);
	assert_int_equal(t->target, M(2));
	assert_int_equal(t->new_align, M(2));
	assert_int_not_equal(t->new_offset, f->segs[f->text].offset);
	assert_true(congruent(t->new_offset, f->segs[f->text].vaddr, M(2)));
	assert_int_equal(f->P.segs[f->r].new_offset, 0);
	assert_true(f->P.new_shoff > f->L.shoff);
	assert_true(f->P.new_size > f->L.file_size);
	assert_true(f->P.nextents >= 3);
	assert_int_equal(f->e.code, PLAN_OK);
}

/* The same shape in ELFCLASS32 (i386): accepted too. */
static void
test_class32_plan_accepted(void **state)
{
	struct fixture *f = *state = new_fixture(ELFCLASS32, EM_386);

	lld_layout(f);
	planned(f);
	assert_true(f->P.changed);
	assert_true(congruent(f->P.segs[f->text].new_offset,
	    f->segs[f->text].vaddr, M(2)));
}

/* ---- copy extents ---- */

static void
test_extent_src_past_input_eof(void **state)
{
	struct fixture *f = lld_plan(state);
	struct extent *x = &f->P.extents[f->P.nextents - 1];

	/* Read one byte past the input's end; the output side is unchanged. */
	x->src = f->L.file_size - x->len + 1;
	refused(f, "copy extents overlap or leave the file", 0);
	put_back(f);
}

static void
test_extent_src_wraps(void **state)
{
	struct fixture *f = lld_plan(state);

	/* src + len overflows: within() must not be fooled by the wrap. */
	f->P.extents[1].src = UINT64_MAX - f->P.extents[1].len / 2;
	refused(f, "copy extents overlap or leave the file", 0);
	put_back(f);
}

static void
test_extent_dst_past_new_size(void **state)
{
	struct fixture *f = lld_plan(state);
	const struct extent *x = &f->P.extents[f->P.nextents - 1];

	assert_int_equal(x->dst + x->len, f->P.new_size);
	f->P.new_size -= 1;
	refused(f, "copy extents overlap or leave the file", 0);
	put_back(f);
}

static void
test_extents_overlap_in_output(void **state)
{
	struct fixture *f = lld_plan(state);
	struct extent *x = &f->P.extents[1];

	/* Extent 1 starts one byte inside extent 0's output. */
	assert_int_equal(x->dst, f->P.extents[0].dst + f->P.extents[0].len);
	x->dst -= 1;
	refused(f, "copy extents overlap or leave the file", 0);
	put_back(f);
}

static void
test_extents_out_of_order(void **state)
{
	struct fixture *f = lld_plan(state);
	struct extent t = f->P.extents[1];

	f->P.extents[1] = f->P.extents[2];
	f->P.extents[2] = t;
	refused(f, "copy extents overlap or leave the file", 0);
	put_back(f);
}

/* ---- headers ---- */

static void
test_headers_not_at_offset_0(void **state)
{
	struct fixture *f = lld_plan(state);
	struct extent *x = &f->P.extents[0];

	/* The first extent (headers and the R segment) lands 16 bytes in. */
	assert_int_equal(x->src, 0);
	assert_int_equal(x->dst, 0);
	x->dst += 16;
	x->len -= 16;
	refused(f, "the ELF header moved", 0);
	put_back(f);
}

static void
test_headers_from_elsewhere(void **state)
{
	struct fixture *f = lld_plan(state);
	struct extent *x = &f->P.extents[0];

	/* Offset 0 of the output filled from input offset 16. */
	x->src += 16;
	refused(f, "the ELF header moved", 0);
	put_back(f);
}

static void
test_program_headers_not_copied(void **state)
{
	struct fixture *f = lld_plan(state);
	struct extent *x = &f->P.extents[0];

	/* The ELF header is copied, the program header table's end is not. */
	x->len = f->L.phoff + f->L.nsegs * f->L.phentsize - 1;
	assert_true(x->len > f->L.ehdr_size);
	refused(f, "the program headers not preserved", 0);
	put_back(f);
}

/* ---- segment and section bytes ---- */

static void
test_load_bytes_not_copied(void **state)
{
	struct fixture *f = lld_plan(state);
	size_t k = find_extent(&f->P, f->P.segs[f->text].new_offset);

	/* The text's extent reads from 16 bytes before where it should. */
	f->P.extents[k].src -= 16;
	refused(f, "segment bytes not preserved", f->text);
	put_back(f);
}

static void
test_load_placed_off_its_bytes(void **state)
{
	struct fixture *f = lld_plan(state);

	/* The header says the text is 4 KiB further on than its bytes. */
	f->P.segs[f->text].new_offset += K(4);
	refused(f, "segment bytes not preserved", f->text);
	put_back(f);
}

static void
test_other_segment_bytes_not_copied(void **state)
{
	struct fixture *f = lld_plan(state);

	/* PT_DYNAMIC pointing 8 bytes past the .dynamic section's copy. */
	f->P.segs[f->dynamic].new_offset += 8;
	refused(f, "segment bytes not preserved", f->dynamic);
	put_back(f);
}

static void
test_section_bytes_not_copied(void **state)
{
	struct fixture *f = lld_plan(state);

	f->P.sec_offset[f->s_rodata] += 1;
	refused(f, "section bytes not preserved", f->s_rodata);
	put_back(f);
}

static void
test_nonalloc_section_bytes_not_copied(void **state)
{
	struct fixture *f = lld_plan(state);

	/* .symtab lies in no segment: it is checked all the same. */
	f->P.sec_offset[f->s_symtab] -= 8;
	refused(f, "section bytes not preserved", f->s_symtab);
	put_back(f);
}

static void
test_section_past_new_eof(void **state)
{
	struct fixture *f = lld_plan(state);

	f->P.sec_offset[f->s_comment] = f->P.new_size;
	refused(f, "section bytes not preserved", f->s_comment);
	put_back(f);
}

/* Not a refusal: SHT_NOBITS and SHT_NULL have no bytes to preserve. */
static void
test_nobits_and_null_sections_not_checked(void **state)
{
	struct fixture *f = lld_plan(state);

	f->P.sec_offset[f->s_bss] += 0x10;
	f->P.sec_offset[0] = 0x40;
	accepted(f);
}

/* ---- each PT_LOAD ---- */

static void
test_load_not_page_congruent(void **state)
{
	struct fixture *f = lld_plan(state);

	f->segs[f->r].vaddr += 0x10;
	f->segs[f->r].paddr += 0x10;
	refused(f, "PT_LOAD not page-congruent", f->r);
	put_back(f);
}

static void
test_load_not_congruent_modulo_new_align(void **state)
{
	struct fixture *f = lld_plan(state);

	/* The RW segment, not eligible, given a 2 MiB p_align it does not meet. */
	assert_int_equal(f->P.segs[f->relro].verdict, SEG_WRITABLE);
	assert_false(congruent(f->P.segs[f->relro].new_offset,
	    f->segs[f->relro].vaddr, M(2)));
	f->P.segs[f->relro].new_align = M(2);
	refused(f, "PT_LOAD not congruent modulo its p_align", f->relro);
	put_back(f);
}

static void
test_eligible_moved_off_target(void **state)
{
	struct fixture *f = lld_plan(state);

	/* The text's address 4 KiB on: its new offset, still page-congruent,
	 * is no longer congruent modulo the 2 MiB the plan gives it. */
	f->segs[f->text].vaddr += K(4);
	f->segs[f->text].paddr += K(4);
	refused(f, "PT_LOAD not congruent modulo its p_align", f->text);
	put_back(f);
}

static void
test_eligible_align_below_target(void **state)
{
	struct fixture *f = lld_plan(state);

	f->P.segs[f->text].new_align = K(4);
	refused(f, "eligible PT_LOAD not aligned to the target", f->text);
	put_back(f);
}

static void
test_eligible_target_below_params(void **state)
{
	struct fixture *f = lld_plan(state);

	/* A target of 64 KiB where the parameters ask 2 MiB (no fallback). */
	assert_int_equal(f->p.fallback_align, 0);
	f->P.segs[f->text].target = K(64);
	refused(f, "eligible PT_LOAD not aligned to the target", f->text);
	put_back(f);
}

/*
 * GNU ld: p_offset == p_vaddr, and here the text's p_align is already
 * 2 MiB, so the plan leaves its header untouched.  Untouched is no pass:
 * an eligible segment must be congruent to its target all the same.
 */
static void
test_untouched_eligible_off_target(void **state)
{
	struct fixture *f = *state = new_fixture(ELFCLASS64, EM_X86_64);
	size_t text;

	f->L.phoff = 64;
	seg(f, PT_LOAD, PF_R, 0, 0, 0x628, 0x628, K(4));
	text = seg(f, PT_LOAD, PF_R | PF_X, K(4), K(4), M(8), M(8), M(2));
	seg(f, PT_LOAD, PF_R, K(4) + M(8), K(4) + M(8), K(20), K(20), K(4));
	seg(f, PT_LOAD, PF_R | PF_W, M(8) + K(28), M(8) + K(32), K(2), K(2),
	    K(4));
	f->L.file_size = M(8) + K(32);
	planned(f);
	assert_int_equal(f->P.segs[text].verdict, SEG_ELIGIBLE);
	assert_int_equal(f->P.segs[text].new_offset, K(4));
	assert_int_equal(f->P.segs[text].new_align, M(2));
	f->segs[text].vaddr += K(4);
	f->segs[text].paddr += K(4);
	refused(f, "eligible PT_LOAD not aligned to the target", text);
	put_back(f);
}

/* arm64 16 KiB: a segment too small for a 32 MiB window gets the 2 MiB
 * fallback; below the fallback is refused. */
static void
test_eligible_target_below_fallback(void **state)
{
	struct fixture *f = *state = new_fixture(ELFCLASS64, EM_AARCH64);
	size_t small;
	const char *why;

	assert_int_equal(plan_params_make(&(struct plan_request){
	    .machine = EM_AARCH64, .page_size = K(16) }, &f->p, &why), 0);
	assert_int_equal(f->p.huge_align, M(32));
	assert_int_equal(f->p.fallback_align, M(2));
	seg(f, PT_LOAD, PF_R, 0, 0, 0x700, 0x700, K(64));
	seg(f, PT_LOAD, PF_R | PF_X, 0x700, 0x10700, M(70), M(70), K(64));
	small = seg(f, PT_LOAD, PF_R, M(70) + 0x700, M(70) + 0x20700, M(5),
	    M(5), K(64));
	f->L.file_size = M(75) + 0x700;
	planned(f);
	assert_int_equal(f->P.segs[small].verdict, SEG_ELIGIBLE);
	assert_int_equal(f->P.segs[small].target, M(2));
	f->P.segs[small].target = M(1);
	refused(f, "eligible PT_LOAD not aligned to the target", small);
	put_back(f);
}

/*
 * "PT_LOAD past the end of the new file" cannot fire on its own: a
 * segment's bytes must first be copied, and every extent lies inside the
 * new file.  A PT_LOAD placed past the end is refused all the same, by
 * the copy rule.
 */
static void
test_load_past_new_eof(void **state)
{
	struct fixture *f = lld_plan(state);

	f->P.segs[f->data].new_offset = f->P.new_size;
	refused(f, "segment bytes not preserved", f->data);
	put_back(f);
}

/* ---- PT_LOADs together ---- */

static void
test_load_ranges_overlap(void **state)
{
	struct fixture *f = lld_plan(state);

	/* The note, inside the R segment, made a PT_LOAD of its own: its
	 * bytes are copied and congruent, but it shares them with R. */
	f->segs[f->note].type = PT_LOAD;
	refused(f, "PT_LOAD file ranges overlap", f->note);
	put_back(f);
}

static void
test_first_load_moved(void **state)
{
	struct fixture *f = lld_plan(state);

	/* Without R, the first PT_LOAD is the text, which the plan moves. */
	assert_int_not_equal(f->P.segs[f->text].new_offset,
	    f->segs[f->text].offset);
	f->segs[f->r].type = PT_NULL;
	refused(f, "the first PT_LOAD moved", 0);
	put_back(f);
}

/* ---- the section header table ---- */

static void
test_shdrs_moved_backwards(void **state)
{
	struct fixture *f = lld_plan(state);

	f->P.new_shoff = f->L.shoff - 8;
	refused(f, "section header table misplaced", 0);
	put_back(f);
}

static void
test_shdrs_moved_by_part_of_a_word(void **state)
{
	struct fixture *f = lld_plan(state);

	/* Still after the old place, still inside the file, but 4 bytes off
	 * the 8-byte words of ELFCLASS64. */
	f->P.new_shoff -= 4;
	assert_true(f->P.new_shoff > f->L.shoff);
	refused(f, "section header table misplaced", 0);
	put_back(f);
}

static void
test_shdrs_past_new_eof(void **state)
{
	struct fixture *f = lld_plan(state);

	f->P.new_shoff += 8;
	refused(f, "section header table misplaced", 0);
	put_back(f);
}

/* ELFCLASS32 moves the table by 4-byte words: 4 is fine, 2 is not. */
static void
test_class32_shdrs_move_by_4(void **state)
{
	struct fixture *f = *state = new_fixture(ELFCLASS32, EM_386);

	lld_layout(f);
	planned(f);
	/* Into the padding before the table, which holds no section. */
	f->P.new_shoff -= 4;
	accepted(f);
	f->P.new_shoff += 2;
	refused(f, "section header table misplaced", 0);
	put_back(f);
}

static void
test_shdrs_over_program_headers(void **state)
{
	struct fixture *f = lld_plan(state);

	/* A table that was, and stays, inside the program header table. */
	f->L.shoff = f->P.new_shoff = f->L.phoff + 8 * f->L.phentsize;
	refused(f, "section headers over the program headers", 0);
	put_back(f);
}

static void
test_shdrs_over_a_load(void **state)
{
	struct fixture *f = lld_plan(state);

	/* A table that was, and stays, inside the text. */
	f->L.shoff = f->P.new_shoff = f->P.segs[f->text].new_offset + K(4);
	refused(f, "section headers over a PT_LOAD", f->text);
	put_back(f);
}

/* The lld layout without its section header table (e_shoff 0), planned. */
static struct fixture *
no_shdr_plan(void **state)
{
	struct fixture *f = *state = new_fixture(ELFCLASS64, EM_X86_64);

	lld_layout(f);
	f->L.nsecs = 0;
	f->L.file_size = f->L.shoff;
	f->L.shoff = 0;
	return planned(f);
}

/* No section header table (e_shoff 0): the plan keeps none, and passes. */
static void
test_no_shdr_table_plan_accepted(void **state)
{
	struct fixture *f = no_shdr_plan(state);

	assert_true(f->P.changed);
	assert_int_equal(f->P.new_shoff, 0);
}

/* The section header table over a section that lies in no segment. */
static void
test_shdrs_over_a_section(void **state)
{
	struct fixture *f = lld_plan(state);

	/* Planned onto .symtab from a place before it, moved by whole words. */
	f->P.new_shoff = f->P.sec_offset[f->s_symtab];
	f->L.shoff = f->secs[f->s_symtab].offset - f->L.nsecs * 64 - 8;
	refused(f, "section headers over a section", f->s_symtab);
	put_back(f);
}

/* No section header table in the input: the plan may not invent one. */
static void
test_shdr_table_made_up(void **state)
{
	struct fixture *f = no_shdr_plan(state);

	f->P.new_shoff = f->P.new_size - 64;
	refused(f, "section header table made up", 0);
	put_back(f);
}

/* ELFCLASS32 offsets are 32 bits: a plan past 4 GiB cannot be written. */
static void
test_class32_past_4g(void **state)
{
	struct fixture *f = *state = new_fixture(ELFCLASS32, EM_386);

	lld_layout(f);
	planned(f);
	f->P.segs[f->stack].new_offset = UINT64_C(1) << 32;
	refused(f, "ELFCLASS32 offset past 4 GiB", f->stack);
	put_back(f);
	f->P.new_size = (UINT64_C(1) << 32) + 1;
	refused(f, "ELFCLASS32 file past 4 GiB", 0);
	put_back(f);
}

/*
 * Program headers after the section headers (some post-link tools move
 * them to the end): the ELF header and the program headers are two ranges,
 * and a table between them is not over either.  Placed after the
 * segments, the table pins nothing: the text moves, and the table with
 * the tail of the file.
 */
static void
test_phdrs_after_shdrs_accepted(void **state)
{
	struct fixture *f = *state = new_fixture(ELFCLASS64, EM_X86_64);
	uint64_t phoff;

	lld_layout(f);
	phoff = f->L.file_size;
	f->L.phoff = phoff;
	f->L.file_size += f->L.nsegs * f->L.phentsize;
	f->segs[f->phdr].offset = phoff;
	planned(f);
	assert_int_equal(f->P.segs[f->text].verdict, SEG_ELIGIBLE);
	assert_int_equal(f->P.segs[f->text].new_offset,
	    f->segs[f->text].offset + K(4));
	assert_int_equal(f->P.new_shoff, f->L.shoff + K(4));
	assert_int_equal(f->P.new_phoff, phoff + K(4));
	assert_int_equal(f->P.segs[f->phdr].new_offset, phoff + K(4));
}

/* The table after the segments, in a last PT_LOAD (BOLT's layout). */
static struct fixture *
bolt_plan(void **state)
{
	struct fixture *f = *state = new_fixture(ELFCLASS64, EM_X86_64);
	uint64_t phoff, len;

	lld_layout(f);
	phoff = up(f->L.file_size, M(2));
	len = f->L.nsegs * f->L.phentsize + 56;
	f->L.phoff = phoff;
	f->segs[f->phdr].offset = f->segs[f->phdr].vaddr = phoff;
	f->segs[f->phdr].filesz = f->segs[f->phdr].memsz = len;
	seg(f, PT_LOAD, PF_R, phoff, phoff, len, len, M(2));
	f->L.file_size = phoff + len;
	planned(f);
	return f;
}

static void
test_bolt_plan_accepted(void **state)
{
	struct fixture *f = bolt_plan(state);

	assert_true(f->P.new_phoff > f->L.phoff);
	assert_int_equal(f->P.new_phoff % M(2), 0);
	assert_int_equal(f->P.segs[f->phdr].new_offset, f->P.new_phoff);
	put_back(f);
}

static void
test_phdr_segment_left_behind(void **state)
{
	struct fixture *f = bolt_plan(state);

	f->P.segs[f->phdr].new_offset = f->L.phoff;
	refused(f, "PT_PHDR left the program headers", f->phdr);
	put_back(f);
}

static void
test_phdrs_left_their_load(void **state)
{
	struct fixture *f = bolt_plan(state);
	size_t last = f->L.nsegs - 1;
	struct extent *x = &f->P.extents[f->P.nextents - 1];

	/* The table copied 8 bytes further than its PT_LOAD says. */
	assert_int_equal(x->src, f->L.phoff);
	f->P.new_phoff += 8;
	f->P.segs[f->phdr].new_offset += 8;
	f->P.new_size += 8;
	x->dst += 8;
	refused(f, "the program headers left their PT_LOAD", last);
	put_back(f);
}

#define T(fn) cmocka_unit_test_teardown(fn, teardown)

int
main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_lld_plan_accepted),
		T(test_class32_plan_accepted),
		T(test_extent_src_past_input_eof),
		T(test_extent_src_wraps),
		T(test_extent_dst_past_new_size),
		T(test_extents_overlap_in_output),
		T(test_extents_out_of_order),
		T(test_headers_not_at_offset_0),
		T(test_headers_from_elsewhere),
		T(test_program_headers_not_copied),
		T(test_load_bytes_not_copied),
		T(test_load_placed_off_its_bytes),
		T(test_other_segment_bytes_not_copied),
		T(test_section_bytes_not_copied),
		T(test_nonalloc_section_bytes_not_copied),
		T(test_section_past_new_eof),
		T(test_nobits_and_null_sections_not_checked),
		T(test_load_not_page_congruent),
		T(test_load_not_congruent_modulo_new_align),
		T(test_eligible_moved_off_target),
		T(test_eligible_align_below_target),
		T(test_eligible_target_below_params),
		T(test_untouched_eligible_off_target),
		T(test_eligible_target_below_fallback),
		T(test_load_past_new_eof),
		T(test_load_ranges_overlap),
		T(test_first_load_moved),
		T(test_shdrs_moved_backwards),
		T(test_shdrs_moved_by_part_of_a_word),
		T(test_shdrs_past_new_eof),
		T(test_class32_shdrs_move_by_4),
		T(test_shdrs_over_program_headers),
		T(test_shdrs_over_a_load),
		T(test_no_shdr_table_plan_accepted),
		T(test_shdrs_over_a_section),
		T(test_shdr_table_made_up),
		T(test_class32_past_4g),
		T(test_phdrs_after_shdrs_accepted),
		T(test_bolt_plan_accepted),
		T(test_phdr_segment_left_behind),
		T(test_phdrs_left_their_load),
	};

	return cmocka_run_group_tests_name("plan_verify", tests, NULL, NULL);
}
