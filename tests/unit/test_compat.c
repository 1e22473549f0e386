/* SPDX-License-Identifier: BSD-2-Clause */
/* SPDX-FileCopyrightText: 2026 the elfthp-align authors */
/*
 * Unit tests of what --check finds: page-size compatibility (compat.c, and
 * the planner with --page-size) and huge-page readiness (findings.c).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <elf.h>
#include <stdlib.h>
#include <string.h>

#include "fixture.h"

/* --page-size 64k: two permissions on one 64 KiB page only a relink fixes. */
static void
test_page_size_refuses_shared_page(void **state)
{
	struct fixture *f = *state = new_file(ET_DYN, K(64));
	struct plan_params p = arm64;
	struct finding cf[8];
	enum file_class v;
	size_t n;

	f->L.machine = EM_AARCH64;
	load(f, PF_R | PF_X, 0, 0, 0x87c);
	load(f, PF_R | PF_W, 0xdc8, 0x1dc8, 0x270);
	p.min_p_align = K(64);
	assert_int_equal(plan_build(&f->L, &p, &f->P, &f->e), -1);
	assert_int_equal(f->e.code, PLAN_PAGE_SHARED);
	assert_int_equal(compat_report(&f->L, K(64), cf, 8, &n, &v), 0);
	/* The root cause first: the shared page, naming both segments. */
	assert_int_equal(v, FILE_NEEDS_RELINK);
	assert_true(n >= 2);
	assert_int_equal(cf[0].code, FINDING_PAGE_SHARED);
	assert_int_equal(cf[0].segment, 0);
	assert_int_equal(cf[0].other, 1);
	assert_int_equal(cf[0].modulus, K(64));
	/* The same file loads on 4 KiB pages. */
	assert_int_equal(compat_report(&f->L, K(4), cf, 8, &n, &v), 0);
	assert_int_equal(v, FILE_COMPATIBLE);
	assert_int_equal(n, 0);
}

/*
 * Fixable: p_align below the page and an offset that padding fixes; after
 * the plan with --page-size applied, compatible.  More findings than room:
 * the count says so.
 */
static void
test_compat_fixable_then_compatible(void **state)
{
	struct fixture *f = *state = new_file(ET_DYN, K(256));
	struct plan_params p = arm64;
	struct finding cf[8];
	enum file_class v;
	size_t n;

	f->L.machine = EM_AARCH64;
	load(f, PF_R | PF_X, 0, 0, K(60));
	load(f, PF_R | PF_W, K(60) + 0x100, K(128) + 0x100, K(4));
	assert_int_equal(compat_report(&f->L, K(16), cf, 8, &n, &v), 0);
	assert_int_equal(v, FILE_FIXABLE);
	assert_int_equal(n, 3);	/* two p_aligns, one offset */
	assert_int_equal(cf[0].code, FINDING_PAGE_ALIGN);
	assert_int_equal(cf[1].code, FINDING_PAGE_OFFSET);
	assert_int_equal(cf[1].segment, 1);
	assert_int_equal(compat_report(&f->L, K(16), cf, 1, &n, &v), 0);
	assert_int_equal(n, 3);
	p.min_p_align = K(16);
	plan_ok(f, &p);
	apply(f);
	assert_int_equal(compat_report(&f->L, K(16), cf, 8, &n, &v), 0);
	assert_int_equal(v, FILE_COMPATIBLE);
}

/*
 * PT_GNU_RELRO, at 16 KiB pages.  GNU ld puts RELRO (.data.rel.ro, .got) at
 * the start of the RW PT_LOAD and .data after it, aligning RELRO's end to
 * its common page (4 KiB): ld.so rounds the end down to the 16 KiB page,
 * so .got on that page stays writable.  A relink fixes it; padding cannot.
 */
static struct fixture *
relro_file(void **state, uint64_t relro_end, uint64_t rw_end)
{
	struct fixture *f = *state = new_file(ET_DYN, K(128));

	load(f, PF_R | PF_X, 0, 0, K(32));
	seg(f, PT_LOAD, PF_R | PF_W, K(32) + 0x100, K(64) + 0x100, 0x100,
	    rw_end - K(64) - 0x100, K(4));
	seg(f, PT_GNU_RELRO, PF_R, K(32) + 0x100, K(64) + 0x100,
	    relro_end - K(64) - 0x100, relro_end - K(64) - 0x100, 1);
	return f;
}

static void
test_relro_end_inside_a_page(void **state)
{
	struct fixture *f = relro_file(state, K(68), K(72));
	struct plan_params p = x86;
	struct finding cf[8];
	enum file_class v;
	size_t n;

	assert_int_equal(compat_report(&f->L, K(16), cf, 8, &n, &v), 0);
	assert_int_equal(v, FILE_NEEDS_RELINK);
	assert_int_equal(cf[0].code, FINDING_RELRO_END);
	assert_int_equal(cf[0].segment, 2);
	assert_int_equal(cf[0].other, 1);
	assert_int_equal(cf[0].have, K(68));
	assert_int_equal(finding_fix(cf[0].code), FIX_RELINK);
	/* Padding for 16 KiB pages moves no address: still there. */
	p.min_p_align = K(16);
	plan_ok(f, &p);
	apply(f);
	assert_int_equal(compat_report(&f->L, K(16), cf, 8, &n, &v), 0);
	assert_int_equal(v, FILE_NEEDS_RELINK);
	assert_int_equal(cf[0].code, FINDING_RELRO_END);
	/* On 4 KiB pages the end is aligned: nothing. */
	assert_int_equal(compat_report(&f->L, K(4), cf, 8, &n, &v), 0);
	assert_int_equal(v, FILE_COMPATIBLE);
}

static void
test_relro_end_aligned(void **state)
{
	struct fixture *f = relro_file(state, K(80), K(88));
	struct finding cf[8];
	enum file_class v;
	size_t n, i;

	assert_int_equal(compat_report(&f->L, K(16), cf, 8, &n, &v), 0);
	for (i = 0; i < n; i++)
		assert_int_not_equal(cf[i].code, FINDING_RELRO_END);
}

/* RELRO to the end of its PT_LOAD (lld's own RW segment): nothing lost. */
static void
test_relro_suffix_of_its_load(void **state)
{
	struct fixture *f = relro_file(state, K(68), K(66));
	struct finding cf[8];
	enum file_class v;
	size_t n, i;

	assert_int_equal(compat_report(&f->L, K(16), cf, 8, &n, &v), 0);
	for (i = 0; i < n; i++)
		assert_int_not_equal(cf[i].code, FINDING_RELRO_END);
}

/* RELRO ending exactly where its PT_LOAD ends: nothing after it to lose. */
static void
test_relro_ends_with_its_load(void **state)
{
	struct fixture *f = relro_file(state, K(68), K(68));
	struct finding cf[8];
	enum file_class v;
	size_t n, i;

	assert_int_equal(compat_report(&f->L, K(16), cf, 8, &n, &v), 0);
	for (i = 0; i < n; i++)
		assert_int_not_equal(cf[i].code, FINDING_RELRO_END);
	/* Control: one byte of .data after it, and the end is inside. */
	f->segs[1].memsz++;
	assert_int_equal(compat_report(&f->L, K(16), cf, 8, &n, &v), 0);
	assert_int_equal(v, FILE_NEEDS_RELINK);
	assert_int_equal(cf[0].code, FINDING_RELRO_END);
}

/*
 * More findings than room (70 p_aligns below the page, 64 stored, as
 * --check --compat does): every one counted, none written past the
 * array.  The entry after it, the caller's next variable, is a guard.
 */
static void
test_compat_findings_past_room(void **state)
{
	struct fixture *f = *state = new_file(ET_DYN, K(16) * 70);
	static struct seg_desc many[70];
	struct finding cf[65];
	enum file_class v;
	size_t n, i;

	for (i = 0; i < 70; i++)
		many[i] = (struct seg_desc){ .type = PT_LOAD, .flags = PF_R,
			.offset = K(16) * i, .vaddr = K(16) * i,
			.paddr = K(16) * i, .filesz = 0x100, .memsz = 0x100,
			.align = K(1) };
	f->L.segs = many;
	f->L.nsegs = 70;
	memset(cf, 0xa5, sizeof(cf));
	assert_int_equal(compat_report(&f->L, K(4), cf, 64, &n, &v), 0);
	assert_int_equal(v, FILE_FIXABLE);
	assert_int_equal(n, 70);
	assert_int_equal(cf[63].code, FINDING_PAGE_ALIGN);
	assert_int_equal(cf[63].segment, 63);
	for (i = 0; i < sizeof(cf[64]); i++)
		assert_int_equal(((unsigned char *)&cf[64])[i], 0xa5);
}

/* What fixes each finding: the rewrite, --page-size, or a relink. */
static void
test_finding_fixes(void **state)
{
	assert_int_equal(finding_fix(FINDING_OFFSET), FIX_REWRITE);
	assert_int_equal(finding_fix(FINDING_ALIGN), FIX_REWRITE);
	assert_int_equal(finding_fix(FINDING_PAGE_OFFSET), FIX_PAGE_SIZE);
	assert_int_equal(finding_fix(FINDING_PAGE_ALIGN), FIX_PAGE_SIZE);
	assert_int_equal(finding_fix(FINDING_PINNED), FIX_RELINK);
	assert_int_equal(finding_fix(FINDING_PAGE_SHARED), FIX_RELINK);
	assert_string_equal(finding_code_name(FINDING_RELRO_END), "relro-end");
}

/* Readiness: ready exactly when the plan changes nothing. */
static void
test_readiness_follows_the_plan(void **state)
{
	struct fixture *f = *state = new_file(ET_DYN, 0x5f0 + M(8) + K(8));
	struct finding fs[8];
	size_t n, text;

	load(f, PF_R, 0, 0, 0x5f0);
	text = load(f, PF_R | PF_X, 0x5f0, 0x5f0 + K(4), M(8));
	plan_ok(f, &x86);
	assert_int_equal(readiness_verdict(&f->P), FILE_NEEDS_REWRITE);
	n = readiness_findings(&f->L, &f->P, fs, 8);
	assert_int_equal(n, 1);		/* the text: its offset */
	assert_int_equal(fs[0].code, FINDING_OFFSET);
	assert_int_equal(fs[0].segment, text);
	assert_int_equal(fs[0].want, f->P.segs[text].new_offset);
	apply(f);
	plan_ok(f, &x86);
	assert_false(f->P.changed);
	assert_int_equal(readiness_verdict(&f->P), FILE_READY);
	assert_int_equal(readiness_findings(&f->L, &f->P, fs, 8), 0);
}

/* ET_EXEC: congruent as linked, p_align 4 KiB: nothing to find. */
static void
test_exec_align_is_no_finding(void **state)
{
	struct fixture *f = *state = new_file(ET_EXEC, M(5));
	struct finding fs[8];

	load(f, PF_R | PF_X, 0, M(4), M(3));
	plan_ok(f, &x86);
	assert_false(f->P.changed);
	assert_int_equal(f->P.windows_now, 1);
	assert_int_equal(readiness_verdict(&f->P), FILE_READY);
	assert_int_equal(readiness_findings(&f->L, &f->P, fs, 8), 0);
	/* The same layout as ET_DYN: the base needs p_align. */
	f->L.type = ET_DYN;
	plan_free(&f->P);
	plan_ok(f, &x86);
	assert_int_equal(readiness_findings(&f->L, &f->P, fs, 8), 1);
	assert_int_equal(fs[0].code, FINDING_ALIGN);
}

/* --page-size 64k on a fixable file: every PT_LOAD congruent, p_align raised. */
static void
test_page_size_fixes_alignment(void **state)
{
	struct fixture *f = *state = new_file(ET_DYN, K(256));
	struct plan_params p = arm64;
	size_t text, rw;

	f->L.machine = EM_AARCH64;
	text = load(f, PF_R | PF_X, 0, 0, K(60));
	rw = load(f, PF_R | PF_W, K(60) + 0x100, K(128) + 0x100, K(4));
	p.min_p_align = K(64);
	plan_ok(f, &p);
	assert_int_equal(f->P.segs[text].new_align, K(64));
	assert_int_equal(f->P.segs[rw].new_align, K(64));
	assert_true(congruent(f->P.segs[rw].new_offset, K(128) + 0x100, K(64)));
}

/*
 * An ET_EXEC text with p_align 4 MiB, congruent modulo 2 MiB but not 4 MiB:
 * the plan moves it to honour its p_align, and the finding says so (it
 * used to be a needs-rewrite with no finding at all).
 */
static void
test_finding_names_the_planners_modulus(void **state)
{
	struct fixture *f = *state = new_file(ET_EXEC, M(12));
	struct finding fs[8];
	size_t text;

	load(f, PF_R, 0, M(4), 0x608);
	text = seg(f, PT_LOAD, PF_R | PF_X, K(4), M(6) + K(4), M(8), M(8), M(4));
	plan_ok(f, &x86);
	assert_true(f->P.changed);
	assert_int_equal(readiness_verdict(&f->P), FILE_NEEDS_REWRITE);
	assert_int_equal(readiness_findings(&f->L, &f->P, fs, 8), 1);
	assert_int_equal(fs[0].code, FINDING_OFFSET);
	assert_int_equal(fs[0].segment, text);
	assert_int_equal(fs[0].modulus, M(4));
	assert_int_equal(fs[0].want, f->P.segs[text].new_offset);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_page_size_refuses_shared_page),
		T(test_page_size_fixes_alignment),
		T(test_compat_fixable_then_compatible),
		T(test_relro_end_inside_a_page),
		T(test_relro_end_aligned),
		T(test_relro_suffix_of_its_load),
		T(test_relro_ends_with_its_load),
		T(test_compat_findings_past_room),
		T(test_finding_fixes),
		T(test_readiness_follows_the_plan),
		T(test_exec_align_is_no_finding),
		T(test_finding_names_the_planners_modulus),
	};

	return cmocka_run_group_tests_name("compat", tests, NULL, NULL);
}
