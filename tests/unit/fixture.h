/* SPDX-License-Identifier: BSD-2-Clause */
/* SPDX-FileCopyrightText: 2026 the elfthp-align authors */
/* fixture.c: hand-built files for the unit tests of the pure modules. */
#ifndef TEST_FIXTURE_H
#define TEST_FIXTURE_H

#include <stdbool.h>
#include <stdint.h>

#include "elfthp_core.h"

#define K(x) ((uint64_t)(x) << 10)
#define M(x) ((uint64_t)(x) << 20)
#define T(fn) cmocka_unit_test_teardown(fn, teardown)
/* For the tests that plan nothing (they link no planner). */
#define TF(fn) cmocka_unit_test_teardown(fn, teardown_file)

extern const struct plan_params x86;	/* x86_64, 4 KiB pages */
extern const struct plan_params arm64;	/* aarch64, 4 KiB pages */

/* A file: ELF header and program headers at the front, nothing else. */
struct fixture {
	struct elf_layout L;
	struct seg_desc segs[16];
	struct sec_desc secs[16];
	struct plan P;
	struct plan_error e;
};

/* plan_params_make, asserted to succeed. */
struct plan_params params_of(const struct plan_request *);
struct fixture *new_file(uint16_t type, uint64_t size);
size_t seg(struct fixture *, uint32_t type, uint32_t flags, uint64_t off,
    uint64_t vaddr, uint64_t filesz, uint64_t memsz, uint64_t align);
/* A PT_LOAD with p_filesz == p_memsz and p_align 4 KiB. */
size_t load(struct fixture *, uint32_t flags, uint64_t off, uint64_t vaddr,
    uint64_t filesz);
size_t sec(struct fixture *, uint32_t type, uint64_t flags, uint64_t addr,
    uint64_t off, uint64_t size, uint64_t align);
bool congruent(uint64_t off, uint64_t vaddr, uint64_t m);
int teardown_file(void **state);

/* fixture_plan.c: the passes over it. */
int teardown(void **state);
/* The door, plan_build with p into f->P and plan_verify, or fail the
 * test with the error. */
void plan_ok(struct fixture *, const struct plan_params *p);
/* The plan applied: the output's headers, to be planned again. */
void apply(struct fixture *);
/* The door, or else plan_build with x86, refuses with code. */
void expect_error(struct fixture *, enum plan_err code);

#endif
