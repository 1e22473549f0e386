/* SPDX-License-Identifier: BSD-2-Clause */
/* SPDX-FileCopyrightText: 2026 the elfthp-align authors */
/*
 * The passes over a hand-built file, as the tool runs them: the door
 * (layout_validate), the planner (plan_build), the check (plan_verify).
 * Only the tests that plan link this, and with it the planner's objects.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdlib.h>

#include "fixture.h"

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

	if (layout_validate(&f->L, &f->e) != 0 ||
	    plan_build(&f->L, p, &f->P, &f->e) != 0 ||
	    plan_verify(&f->L, p, &f->P, &f->e) != 0) {
		plan_strerror(&f->e, msg, sizeof(msg));
		fail_msg("plan failed: %s", msg);
	}
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
	if (layout_validate(&f->L, &f->e) == 0)
		assert_int_equal(plan_build(&f->L, &x86, &f->P, &f->e), -1);
	assert_int_equal(f->e.code, code);
}
