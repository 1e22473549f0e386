/* SPDX-License-Identifier: BSD-2-Clause */
/* SPDX-FileCopyrightText: 2026 the elfthp-align authors */
/*
 * Hand-built files for the unit tests of the pure modules: an ELF header
 * and program headers at the front, segments and sections as a test adds
 * them.  fixture_plan.c runs the door and the planner over them.
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

bool
congruent(uint64_t off, uint64_t vaddr, uint64_t m)
{
	return ((off - vaddr) & (m - 1)) == 0;
}

int
teardown_file(void **state)
{
	free(*state);
	return 0;
}
