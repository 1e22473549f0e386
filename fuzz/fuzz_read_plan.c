/* SPDX-License-Identifier: BSD-2-Clause */
/* SPDX-FileCopyrightText: 2026 the elfthp-align authors */
/*
 * fuzz_read_plan.c - libFuzzer harness over elfthp-align's read and plan
 * passes, in memory.
 *
 * Each input is written into one memfd (created once; ftruncate + pwrite
 * per input) and taken through what the tool does before it writes
 * anything:
 *   layout_read                         the read pass (libelf, own checks)
 *   layout_validate                     the door
 *   plan_params_make, plan_build, plan_verify for the machine's own page size and
 *                                       for --page-size 4k, 16k and 64k,
 *                                       with and without min_p_align (--check)
 *   impact_compute                      for every geometry --report covers,
 *                                       with the plan that geometry calls for
 *   compat_report, readiness_findings   for 4k, 16k and 64k pages
 * then everything is freed.  A plan that plan_build accepted must pass
 * plan_verify again (it is pure), and its extents must stay inside both
 * files; anything else aborts, so the fuzzer reports it as a crash.
 *
 * Built by fuzz/run.sh with clang -fsanitize=fuzzer,address,undefined.
 * With -DFUZZ_WRITE (FUZZ_WRITE=1 fuzz/run.sh) it also links
 * src/phdr_rewrite.c and runs the write pass into a second memfd, then
 * reads the output back: it must read, and plan as already aligned.
 */
#include <elf.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "elfthp_io.h"

#define MAX_GEOMETRIES 8
#define MAX_FINDINGS 64

static int in_fd = -1;
#ifdef FUZZ_WRITE
static int out_fd = -1;
#endif

static _Noreturn void
die(const char *what, const char *detail)
{
	fprintf(stderr, "fuzz_read_plan: invariant broken: %s%s%s\n", what,
	    detail ? ": " : "", detail ? detail : "");
	abort();
}

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	if (elf_lib_init() != 0)
		die("elf_lib_init", NULL);
	if ((in_fd = memfd_create("fuzz-in", MFD_CLOEXEC)) < 0)
		die("memfd_create", NULL);
#ifdef FUZZ_WRITE
	if ((out_fd = memfd_create("fuzz-out", MFD_CLOEXEC)) < 0)
		die("memfd_create", NULL);
#endif
	return 0;
}

static int
load_fd(int fd, const uint8_t *data, size_t size)
{
	size_t done = 0;

	if (ftruncate(fd, 0) != 0 || ftruncate(fd, (off_t)size) != 0)
		return -1;
	while (done < size) {
		ssize_t w = pwrite(fd, data + done, size - done, (off_t)done);

		if (w <= 0)
			return -1;
		done += (size_t)w;
	}
	return 0;
}

/* What the plan promises, checked without trusting plan_verify alone. */
static void
check_plan(const struct elf_layout *L, const struct plan_params *p,
    const struct plan *P)
{
	struct plan_error e;
	char msg[512];
	size_t i;

	if (plan_verify(L, p, P, &e) != 0) {
		plan_strerror(&e, msg, sizeof(msg));
		die("plan_verify rejects a plan plan_build accepted", msg);
	}
	if (P->new_size < L->file_size)
		die("the file shrank", NULL);
	for (i = 0; i < P->nextents; i++) {
		const struct extent *x = &P->extents[i];

		if (x->len > L->file_size || x->src > L->file_size - x->len ||
		    x->len > P->new_size || x->dst > P->new_size - x->len)
			die("extent outside the files", NULL);
	}
	for (i = 0; i < L->nsegs; i++) {
		const struct seg_plan *sp = &P->segs[i];

		/* Its target: huge_align, or fallback_align without a window. */
		if (sp->verdict == SEG_ELIGIBLE &&
		    ((sp->target != P->huge_align &&
		    sp->target != p->fallback_align) ||
		    ((sp->new_offset - L->segs[i].vaddr) & (sp->target - 1)) != 0))
			die("eligible segment not congruent", NULL);
		if (sp->new_align < L->segs[i].align)
			die("p_align lowered", NULL);
	}
	if (P->n_aligned > P->n_eligible)
		die("more segments aligned than eligible", NULL);
}

/* --report: one plan per geometry and its impact. */
static void
impacts(const struct elf_layout *L, const struct plan *own)
{
	const struct geometry *geos[MAX_GEOMETRIES];
	struct geometry_impact imp;
	struct seg_desc *after;
	size_t i, n;

	if ((after = calloc(L->nsegs ? L->nsegs : 1, sizeof(*after))) == NULL)
		return;
	impact_compute(L, own, own_geometry(L->machine, 0), after, &imp);
	n = report_geometries(L->machine, 0, true, geos, MAX_GEOMETRIES);
	for (i = 0; i < n; i++) {
		/* The same constructor as the tool's --report. */
		const struct plan_request r = { .machine = L->machine,
			.geometry = geos[i] };
		struct plan_params params;
		struct plan P;
		struct plan_error e;
		char msg[512];

		(void)plan_params_make(&r, &params, NULL);
		if (plan_build(L, &params, &P, &e) != 0) {
			plan_strerror(&e, msg, sizeof(msg));
			continue;
		}
		check_plan(L, &params, &P);
		impact_compute(L, &P, geos[i], after, &imp);
		(void)geometry_pmd_counts(geos[i]);
		plan_free(&P);
	}
	free(after);
}

#ifdef FUZZ_WRITE
/* The write pass, then the output read back: it must already be aligned. */
static void
write_and_reread(const struct elf_layout *L, const struct plan_params *p,
    const struct plan *P)
{
	struct elf_layout L2;
	struct plan P2;
	struct plan_error e;
	char msg[512];
	enum read_status st;

	if (ftruncate(out_fd, 0) != 0)
		return;
	if (rewrite_to_fd(in_fd, out_fd, L, P, COPY_LARGE_WRITES, msg,
	    sizeof(msg)) != 0)
		return;
	st = layout_read(out_fd, &L2, msg, sizeof(msg));
	if (st != READ_OK)
		die("the rewritten file does not read back", msg);
	if (layout_validate(&L2, &e) != 0) {
		plan_strerror(&e, msg, sizeof(msg));
		die("the rewritten file does not pass the door", msg);
	}
	if (plan_build(&L2, p, &P2, &e) != 0) {
		plan_strerror(&e, msg, sizeof(msg));
		die("the rewritten file does not plan", msg);
	}
	if (P2.changed)
		die("a second run would change the rewritten file", NULL);
	plan_free(&P2);
	layout_free(&L2);
}
#endif

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const uint64_t pages[] = { 0, 4096, 16384, 65536 };
	struct elf_layout L;
	struct plan_error door;
	char msg[512];
	size_t i;

	if (load_fd(in_fd, data, size) != 0)
		return 0;
	if (layout_read(in_fd, &L, msg, sizeof(msg)) != READ_OK)
		return 0;
	/* The door, as the tool runs it before every mode. */
	if (layout_validate(&L, &door) != 0) {
		plan_strerror(&door, msg, sizeof(msg));
		layout_free(&L);
		return 0;
	}
	for (i = 0; i < sizeof(pages) / sizeof(pages[0]); i++) {
		/* --check plans with the rewrite's params: one plan each. */
		const struct plan_request r = { .machine = L.machine,
			.page_size = pages[i] };
		struct finding f[MAX_FINDINGS];
		struct plan_params params;
		struct plan P;
		struct plan_error e;
		enum file_class verdict;
		const char *why;
		size_t n;

		if (pages[i] != 0)
			(void)compat_report(&L, pages[i], f, MAX_FINDINGS, &n,
			    &verdict);
		if (plan_params_make(&r, &params, &why) != 0)
			continue;
		if (plan_build(&L, &params, &P, &e) != 0) {
			plan_strerror(&e, msg, sizeof(msg));
			continue;
		}
		check_plan(&L, &params, &P);
		(void)readiness_findings(&L, &P, f, MAX_FINDINGS);
		(void)readiness_verdict(&P);
		if (i == 0)
			impacts(&L, &P);
#ifdef FUZZ_WRITE
		write_and_reread(&L, &params, &P);
#endif
		plan_free(&P);
	}
	layout_free(&L);
	return 0;
}
