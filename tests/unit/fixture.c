/* SPDX-License-Identifier: BSD-2-Clause */
/* SPDX-FileCopyrightText: 2026 the elfthp-align authors */
/*
 * Hand-built files for the unit tests of the pure modules: an ELF header
 * and program headers at the front, segments and sections as a test adds
 * them, and the planner run over them.
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

/* What plan_params_make gives x86_64 and aarch64 with 4 KiB pages
 * (test_geometry.c holds them to it). */
const struct plan_params x86 = { .huge_align = M(2),
	.max_page = K(4), .input_page = K(4), .page = K(4) };
const struct plan_params arm64 = { .huge_align = M(2),
	.max_page = K(64), .input_page = K(4), .page = K(4) };

struct plan_params
params_of(const struct plan_request *r)
{
	struct plan_params p;
	const char *why = NULL;

	assert_int_equal(plan_params_make(r, &p, &why), 0);
	assert_null(why);
	return p;
}

struct fixture *
new_file(uint16_t type, uint64_t size)
{
	struct fixture *f = calloc(1, sizeof(*f));

	f->L.file_size = size;
	f->L.elfclass = ELFCLASS64;
	f->L.elfdata = ELFDATA2LSB;
	f->L.type = type;
	f->L.machine = EM_X86_64;
	f->L.ehdr_size = 64;
	f->L.phoff = 64;
	f->L.phentsize = 56;
	f->L.segs = f->segs;
	f->L.secs = f->secs;
	return f;
}

size_t
seg(struct fixture *f, uint32_t type, uint32_t flags, uint64_t off,
    uint64_t vaddr, uint64_t filesz, uint64_t memsz, uint64_t align)
{
	size_t i = f->L.nsegs++;

	f->segs[i] = (struct seg_desc){ type, flags, off, vaddr, vaddr,
	    filesz, memsz, align };
	return i;
}

size_t
load(struct fixture *f, uint32_t flags, uint64_t off, uint64_t vaddr,
    uint64_t filesz)
{
	return seg(f, PT_LOAD, flags, off, vaddr, filesz, filesz, K(4));
}

size_t
sec(struct fixture *f, uint32_t type, uint64_t flags, uint64_t addr,
    uint64_t off, uint64_t size, uint64_t align)
{
	size_t i = f->L.nsecs++;

	f->secs[i] = (struct sec_desc){ .type = type, .flags = flags,
	    .addr = addr, .offset = off, .size = size, .addralign = align };
	return i;
}

int
teardown(void **state)
{
	struct fixture *f = *state;

	if (f != NULL) {
		plan_free(&f->P);
		free(f);
	}
	return 0;
}

void
plan_ok(struct fixture *f, const struct plan_params *p)
{
	char msg[256];

	if (plan_build(&f->L, p, &f->P, &f->e) != 0) {
		plan_strerror(&f->e, msg, sizeof(msg));
		fail_msg("plan failed: %s", msg);
	}
}

bool
congruent(uint64_t off, uint64_t vaddr, uint64_t m)
{
	return ((off - vaddr) & (m - 1)) == 0;
}

/* The plan applied: the output's headers, to be planned again. */
void
apply(struct fixture *f)
{
	size_t i;

	for (i = 0; i < f->L.nsegs; i++) {
		f->segs[i].offset = f->P.segs[i].new_offset;
		f->segs[i].align = f->P.segs[i].new_align;
	}
	for (i = 0; i < f->L.nsecs; i++)
		f->secs[i].offset = f->P.sec_offset[i];
	f->L.shoff = f->P.new_shoff;
	f->L.phoff = f->P.new_phoff;
	f->L.file_size = f->P.new_size;
	plan_free(&f->P);
}

void
expect_error(struct fixture *f, enum plan_err code)
{
	assert_int_equal(plan_build(&f->L, &x86, &f->P, &f->e), -1);
	assert_int_equal(f->e.code, code);
}
