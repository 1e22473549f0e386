/* SPDX-License-Identifier: BSD-2-Clause */
/* SPDX-FileCopyrightText: 2026 the elfthp-align authors */
/*
 * Unit tests of the door (core/validate.c): every refusal code, each as an
 * exact-boundary pair.  The accepted half sits right at the limit (a
 * segment that ends at EOF, an address range that ends at 2^32), the
 * refused half one byte or one step past it, so that a bound off by one
 * either way fails a test.  Each refusal also checks its words
 * (plan_strerror) and that none of them is an "internal error".
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

#define SIZE M(4)

/* A small valid PIE: R at 0, R E at 16 KiB, with the file SIZE long. */
static struct fixture *
base(void **state)
{
	struct fixture *f = *state = new_file(ET_DYN, SIZE);

	load(f, PF_R, 0, 0, K(4));
	load(f, PF_R | PF_X, K(16), K(16), K(64));
	return f;
}

static void
accepted(struct fixture *f)
{
	char msg[256];

	if (layout_validate(&f->L, &f->e) != 0) {
		plan_strerror(&f->e, msg, sizeof(msg));
		fail_msg("the door refused a valid layout: %s", msg);
	}
}

static void
refused(struct fixture *f, enum plan_err code, const char *words)
{
	char msg[256];

	assert_int_equal(layout_validate(&f->L, &f->e), -1);
	assert_int_equal(f->e.code, code);
	plan_strerror(&f->e, msg, sizeof(msg));
	if (strstr(msg, words) == NULL)
		fail_msg("'%s' does not say '%s'", msg, words);
	assert_null(strstr(msg, "internal error"));
}

static void
test_past_eof(void **state)
{
	struct fixture *f = base(state);
	size_t i = seg(f, PT_NOTE, PF_R, SIZE - 100, SIZE - 100, 100, 100, 4);

	accepted(f);			/* ends at EOF */
	f->segs[i].filesz = 101;	/* one byte past */
	f->segs[i].memsz = 101;
	refused(f, PLAN_PAST_EOF, "past end of file");
	f->segs[i].filesz = UINT64_MAX;	/* offset + size wraps */
	refused(f, PLAN_PAST_EOF, "past end of file");
}

static void
test_load_past_eof(void **state)
{
	struct fixture *f = base(state);

	f->segs[1].filesz = f->segs[1].memsz = SIZE - K(16);
	accepted(f);
	f->segs[1].filesz = f->segs[1].memsz = SIZE - K(16) + 1;
	refused(f, PLAN_PAST_EOF, "program header 1 extends past end of file");
}

static void
test_filesz_above_memsz(void **state)
{
	struct fixture *f = base(state);

	f->segs[1].memsz = f->segs[1].filesz;
	accepted(f);
	f->segs[1].memsz = f->segs[1].filesz - 1;
	refused(f, PLAN_FILESZ_GT_MEMSZ, "p_filesz");
}

static void
test_address_overflow_64(void **state)
{
	struct fixture *f = base(state);

	f->segs[1].vaddr = (UINT64_MAX - K(64) + 1) & ~(K(4) - 1);
	f->segs[1].memsz = UINT64_MAX - f->segs[1].vaddr;
	f->segs[1].filesz = K(4);
	accepted(f);			/* ends at 2^64 - 1 */
	f->segs[1].memsz++;		/* ends at 2^64: wraps */
	refused(f, PLAN_OVERFLOW, "PT_LOAD 1: address or offset overflows");
}

static void
test_address_overflow_32(void **state)
{
	struct fixture *f = base(state);

	f->L.elfclass = ELFCLASS32;
	f->segs[1].vaddr = (UINT64_C(1) << 32) - M(1);
	f->segs[1].memsz = M(1);	/* ends at 2^32 exactly */
	f->segs[1].filesz = K(64);
	accepted(f);
	f->segs[1].memsz = M(1) + 1;
	refused(f, PLAN_OVERFLOW, "PT_LOAD 1: address or offset overflows");
}

static void
test_bad_align(void **state)
{
	struct fixture *f = base(state);

	f->segs[1].align = M(2);	/* a power of two */
	accepted(f);
	f->segs[1].align = M(2) + K(4);
	refused(f, PLAN_BAD_ALIGN, "power of two");
	f->segs[1].align = 0;		/* 0 and 1: no constraint */
	accepted(f);
	f->segs[1].align = 1;
	accepted(f);
	f->segs[1].align = 3;
	refused(f, PLAN_BAD_ALIGN, "power of two");
}

static void
test_not_congruent(void **state)
{
	struct fixture *f = base(state);

	f->segs[1].vaddr = K(16) + K(4);	/* off by a whole page: fine */
	accepted(f);
	f->segs[1].vaddr = K(16) + K(4) - 1;	/* off by a byte */
	refused(f, PLAN_NOT_CONGRUENT, "congruent");
}

/*
 * Congruence is the door's last rule: a file that breaks it and another
 * rule is refused for the other (malformed), so that PLAN_NOT_CONGRUENT
 * alone means "well formed, but Linux never loads it" (a walk skips it).
 */
static void
test_not_congruent_is_last(void **state)
{
	struct fixture *f = base(state);

	f->segs[0].vaddr += 1;				/* incongruent, first */
	refused(f, PLAN_NOT_CONGRUENT, "congruent");
	f->segs[1].filesz = f->segs[1].memsz = SIZE;	/* and past EOF */
	refused(f, PLAN_PAST_EOF, "end of file");
	f->segs[1].filesz = f->segs[1].memsz = K(4);
	f->segs[0].filesz = f->segs[0].memsz = K(16) + 1;	/* and overlapping */
	refused(f, PLAN_OVERLAP, "overlap");
}

static void
test_no_load(void **state)
{
	struct fixture *f = *state = new_file(ET_DYN, SIZE);

	seg(f, PT_NOTE, PF_R, 0x200, 0x200, 0x20, 0x20, 4);
	refused(f, PLAN_NO_LOAD, "PT_LOAD");
	load(f, PF_R, 0, 0, K(4));
	accepted(f);
}

static void
test_overlapping_loads(void **state)
{
	struct fixture *f = base(state);

	f->segs[0].filesz = f->segs[0].memsz = K(16);	/* touches, no overlap */
	accepted(f);
	f->segs[0].filesz = f->segs[0].memsz = K(16) + 1;
	refused(f, PLAN_OVERLAP, "overlap");
}

static void
test_section_past_eof(void **state)
{
	struct fixture *f = base(state);
	size_t s = sec(f, SHT_PROGBITS, 0, 0, SIZE - 64, 64, 1);

	accepted(f);
	f->secs[s].size = 65;
	refused(f, PLAN_SEC_PAST_EOF, "section 0");
	f->secs[s].type = SHT_NOBITS;	/* no file bytes: no bound */
	accepted(f);
}

static void
test_section_overflow(void **state)
{
	struct fixture *f = base(state);
	size_t s = sec(f, SHT_PROGBITS, SHF_ALLOC, 0, K(16), 0, 1);

	f->secs[s].addr = UINT64_MAX - 15;
	f->secs[s].size = 15;
	f->secs[s].offset = K(16);
	accepted(f);
	f->secs[s].size = 16;
	refused(f, PLAN_SEC_OVERFLOW, "section 0");
	f->secs[s].flags = 0;		/* not loaded: its address is a label */
	accepted(f);
}

static void
test_shdrs_overlap(void **state)
{
	struct fixture *f = base(state);

	sec(f, SHT_NULL, 0, 0, 0, 0, 0);
	sec(f, SHT_PROGBITS, 0, 0, SIZE - K(64), 16, 1);
	f->L.shentsize = 64;
	f->L.shoff = f->L.phoff + f->L.nsegs * f->L.phentsize;
	accepted(f);			/* right after the program headers */
	f->L.shoff--;			/* one byte into them */
	refused(f, PLAN_SHDRS_OVERLAP, "section header table");
	/* Partly inside a PT_LOAD's bytes: ends one byte past it. */
	f->L.shoff = K(16) + K(64) - 2 * 64 + 1;
	refused(f, PLAN_SHDRS_OVERLAP, "section header table");
	f->L.shoff = K(16) + K(64) - 2 * 64;	/* wholly inside: legal */
	accepted(f);
}

static void
test_shdrs_over_a_section(void **state)
{
	struct fixture *f = base(state);
	size_t s;

	sec(f, SHT_NULL, 0, 0, 0, 0, 0);
	s = sec(f, SHT_PROGBITS, 0, 0, SIZE - K(64), 16, 1);
	f->L.shentsize = 64;
	f->L.shoff = SIZE - K(64) + 16;	/* right after the section */
	accepted(f);
	f->L.shoff--;			/* its last byte */
	refused(f, PLAN_SHDRS_OVER_SECTION, "overlaps section 1");
	/* Wholly inside a section, it is that section's bytes: legal. */
	f->secs[s].size = K(4);
	f->L.shoff = SIZE - K(64) + 64;
	accepted(f);
	/* An SHT_NULL entry is inactive: its range means nothing. */
	f->secs[s].type = SHT_NULL;
	f->secs[s].size = 16;
	f->L.shoff = SIZE - K(64) + 8;
	accepted(f);
}

/*
 * What eu-strip leaves of a split file: every program header zeros.  Named
 * before "no PT_LOAD"; one field that is not zero (even p_paddr) makes it
 * an ordinary table again.
 */
static void
test_table_zeroed(void **state)
{
	struct fixture *f = *state = new_file(ET_DYN, SIZE);
	size_t i;

	for (i = 0; i < 3; i++)
		seg(f, PT_NULL, 0, 0, 0, 0, 0, 0);
	refused(f, PLAN_PHDRS_ZEROED, "program header table (3 entries at "
	    "0x40) is all zeros (what eu-strip leaves");
	f->segs[2].paddr = 1;
	refused(f, PLAN_NO_LOAD, "no PT_LOAD");
	f->segs[2].paddr = 0;
	f->segs[1].align = 1;
	refused(f, PLAN_NO_LOAD, "no PT_LOAD");
	f->L.nsegs = 0;			/* no table at all: not "zeros" */
	refused(f, PLAN_NO_LOAD, "no PT_LOAD");
}

/* PT_PHDR, where ld.so finds the table, names e_phoff or is refused. */
static void
test_stale_pt_phdr(void **state)
{
	struct fixture *f = base(state);
	size_t p = seg(f, PT_PHDR, PF_R, 64, 64, 3 * 56, 3 * 56, 8);

	accepted(f);
	f->segs[p].offset = 64 + 56;
	refused(f, PLAN_PHDR_STALE, "PT_PHDR 2 (at 0x78) does not describe");
	f->segs[1].vaddr += 1;		/* and incongruent: named first */
	refused(f, PLAN_PHDR_STALE, "strip before elfthp-align");
}

/*
 * What GNU strip and objcopy leave of a split file: the longer table at
 * offset 64, over the bytes the first PT_LOAD maps at .interp's address,
 * and .interp shifted after it.  The table's last byte against the
 * section's first, both ways; a section that holds its own mapped bytes
 * (the table inside it), one outside every PT_LOAD's file image and
 * llvm-strip's appended copy of a cut section are accepted.
 */
static void
test_table_over_section(void **state)
{
	struct fixture *f = base(state);
	uint64_t end = 64 + 2 * 56;	/* the table: [64, 176) */
	size_t s = sec(f, SHT_PROGBITS, SHF_ALLOC, end, end, 0x1c, 1);

	accepted(f);			/* .interp right after the table */
	f->secs[s].offset = end + 8;	/* shifted, the table short of it */
	accepted(f);
	f->secs[s].addr = end - 1;	/* its address under the table */
	f->secs[s].offset = end + 7;
	refused(f, PLAN_SEC_MISPLACED, "the program header table (at 0x40) "
	    "lies over the bytes PT_LOAD 0 maps at section 0's address");
	f->segs[1].vaddr += 1;		/* and incongruent: named first */
	refused(f, PLAN_SEC_MISPLACED, "what GNU strip or objcopy leaves");
	f->segs[1].vaddr -= 1;
	f->secs[s].offset = end - 1;	/* its own bytes: fine */
	accepted(f);
	f->secs[s].offset = end + 7;
	f->secs[s].flags = 0;		/* not allocated: no address */
	accepted(f);
	f->secs[s].flags = SHF_ALLOC;
	f->secs[s].type = SHT_NOBITS;	/* no bytes */
	accepted(f);
	f->secs[s].type = SHT_PROGBITS;
	f->secs[s].addr = K(16) + 0x100;	/* in the text, copied away */
	f->secs[s].offset = SIZE - K(4);
	accepted(f);
	f->secs[s].addr = K(8);		/* in no PT_LOAD's file image */
	accepted(f);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_past_eof),
		T(test_load_past_eof),
		T(test_filesz_above_memsz),
		T(test_address_overflow_64),
		T(test_address_overflow_32),
		T(test_bad_align),
		T(test_not_congruent),
		T(test_not_congruent_is_last),
		T(test_no_load),
		T(test_overlapping_loads),
		T(test_section_past_eof),
		T(test_section_overflow),
		T(test_shdrs_overlap),
		T(test_shdrs_over_a_section),
		T(test_table_zeroed),
		T(test_stale_pt_phdr),
		T(test_table_over_section),
	};

	return cmocka_run_group_tests_name("layout_validate", tests, NULL,
	    NULL);
}
