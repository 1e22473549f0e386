/* SPDX-License-Identifier: BSD-2-Clause */
/* SPDX-FileCopyrightText: 2026 the elfthp-align authors */
/*
 * Page geometries, and the alignment each machine's huge pages call for.
 * The numbers come from docs/geometry.md, 'The geometries'.
 */
#include <elf.h>
#include <stddef.h>

#include "elfthp_core.h"
#include "elfthp_util.h"

#ifndef EM_LOONGARCH
#define EM_LOONGARCH 258
#endif


struct machine_info {
	uint16_t machine;
	const char *name;
	uint64_t default_page;
	/*
	 * The largest page the machine's linkers plan for (ld's
	 * max-page-size): every PT_LOAD stays congruent modulo at least
	 * this, so the output loads wherever the input did.
	 */
	uint64_t max_page;
	uint64_t pages[3];	/* base pages the machine supports */
};

static const struct machine_info machines[] = {
	/* 16 KiB: Android's page-size emulation on x86_64. */
	{ EM_X86_64, "x86_64", 4 * KiB, 4 * KiB, { 4 * KiB, 16 * KiB } },
	{ EM_386, "i386", 4 * KiB, 4 * KiB, { 4 * KiB } },
	{ EM_AARCH64, "aarch64", 4 * KiB, 64 * KiB,
	    { 4 * KiB, 16 * KiB, 64 * KiB } },
	{ EM_RISCV, "riscv64", 4 * KiB, 4 * KiB, { 4 * KiB } },
	{ EM_LOONGARCH, "loongarch64", 16 * KiB, 64 * KiB,
	    { 4 * KiB, 16 * KiB } },
	{ EM_PPC64, "ppc64", 64 * KiB, 64 * KiB, { 4 * KiB, 64 * KiB } },
	{ EM_PPC, "ppc", 4 * KiB, 64 * KiB, { 4 * KiB } },
	{ EM_ARM, "arm", 4 * KiB, 64 * KiB, { 4 * KiB } },
	{ EM_S390, "s390x", 4 * KiB, 4 * KiB, { 4 * KiB } },
};

/* Unknown machines: 4 KiB pages, and the widest congruence ld uses anywhere. */
static const struct machine_info unknown = {
	0, "unknown", 4 * KiB, 64 * KiB, { 4 * KiB }
};

static const struct machine_info *
machine_lookup(uint16_t machine)
{
	size_t i;

	for (i = 0; i < sizeof(machines) / sizeof(machines[0]); i++)
		if (machines[i].machine == machine)
			return &machines[i];
	return &unknown;
}

const char *
machine_name(uint16_t machine)
{
	return machine_lookup(machine)->name;
}

/*
 * The PMD for a base page of `page` bytes, on page-table formats where a
 * page-table page is one base page of 8-byte entries (x86_64, arm64,
 * riscv64, loongarch64).
 */
static uint64_t
pmd_for(uint64_t page)
{
	return page * (page / 8);
}

/*
 * Huge-page target for a base page: the PMD where it is at most 32 MiB,
 * else a 2 MiB contiguous-PTE block (arm64 with 64 KiB pages).
 */
static uint64_t
target_for(uint16_t machine, uint64_t page)
{
	uint64_t pmd = pmd_for(page);

	/* Radix ppc64 maps 2 MiB PMDs with 64 KiB pages too; x86_64's
	 * hardware pages are 4 KiB whatever page size the kernel emulates. */
	if (machine == EM_PPC64 || machine == EM_X86_64)
		return 2 * MiB;
	if (pmd <= PMD_CAP)
		return pmd;
	return machine == EM_AARCH64 ? 2 * MiB : 0;
}

static bool
supports_page(const struct machine_info *m, uint64_t page)
{
	size_t i;

	for (i = 0; i < 3; i++)
		if (m->pages[i] == page)
			return true;
	return false;
}

/* The tool's own run: the machine, --page-size and --align. */
static int
own_params(const struct plan_request *r, struct plan_params *p,
    const char **why)
{
	const struct machine_info *m = machine_lookup(r->machine);
	uint64_t page = r->page_size ? r->page_size : m->default_page;

	if (!supports_page(m, page)) {
		*why = "page size not supported by this machine";
		return -1;
	}
	*p = (struct plan_params){
		.huge_align = r->align ? r->align : target_for(r->machine, page),
		.fallback_align = r->align ? 0 :
		    geometry_fallback(own_geometry(r->machine, page)),
		.max_page = max_u64(m->max_page, page),
		.input_page = 4 * KiB,
		/* An explicit page size asks for a file that loads on them. */
		.min_p_align = r->page_size,
		.page = page,
	};
	if (p->huge_align == 0) {
		*why = "no huge-page size of at most 32 MiB for this page size; "
		    "give --align";
		return -1;
	}
	if (p->huge_align < p->max_page) {
		*why = "alignment is below the machine's largest page size";
		return -1;
	}
	return 0;
}

/*
 * A plan for a report geometry: what a rewrite for such pages would do,
 * on this file's machine.
 */
static void
geometry_params(const struct plan_request *r, struct plan_params *p)
{
	const struct geometry *g = r->geometry;

	*p = (struct plan_params){
		.huge_align = geometry_target(g),
		.fallback_align = geometry_fallback(g),
		.max_page = max_u64(machine_max_page(r->machine), g->page),
		.input_page = 4 * KiB,
		.page = g->page,
	};
}

int
plan_params_make(const struct plan_request *r, struct plan_params *p,
    const char **why)
{
	if (r->geometry == NULL)
		return own_params(r, p, why);
	geometry_params(r, p);
	return 0;
}

/*
 * Every geometry the tool knows.  Reports cover those of the file's
 * machine; every_report marks the ones -v adds for comparison (x86_64 and
 * arm64).  The first is the default geometry.
 */
static const struct geometry geometries[] = {
	{ "x86_64-4k", EM_X86_64, true, 4 * KiB, 2 * MiB, 0 },
	{ "arm64-4k", EM_AARCH64, true, 4 * KiB, 2 * MiB, 64 * KiB },
	{ "arm64-16k", EM_AARCH64, true, 16 * KiB, 32 * MiB, 2 * MiB },
	{ "arm64-64k", EM_AARCH64, true, 64 * KiB, 512 * MiB, 2 * MiB },
	{ "riscv64-4k", EM_RISCV, false, 4 * KiB, 2 * MiB, 64 * KiB },
	{ "loongarch64-16k", EM_LOONGARCH, false, 16 * KiB, 32 * MiB, 0 },
};
#define NGEOMETRIES (sizeof(geometries) / sizeof(geometries[0]))

/*
 * The geometries a report shows: those of the file's own machine (an
 * x86_64 file never runs on arm64 pages); of the x86_64 and arm64 ones
 * (every_report), those of base page `page` (a --page-size asked for; 0:
 * none), and with `every` all of them, for comparison.
 */
size_t
report_geometries(uint16_t machine, uint64_t page, bool every,
    const struct geometry **out, size_t max)
{
	size_t i, n = 0;

	for (i = 0; i < NGEOMETRIES && n < max; i++)
		if (geometries[i].machine == machine ||
		    (geometries[i].every_report && (every ||
		    (page != 0 && geometries[i].page == page))))
			out[n++] = &geometries[i];
	return n;
}

/*
 * The geometry a file runs on by default, or with --page-size: its own
 * machine's for that page, else the default one.
 */
const struct geometry *
own_geometry(uint16_t machine, uint64_t page_size)
{
	const struct machine_info *m = machine_lookup(machine);
	uint64_t page = page_size ? page_size : m->default_page;
	size_t i;

	for (i = 0; i < NGEOMETRIES; i++)
		if (geometries[i].machine == machine && geometries[i].page == page)
			return &geometries[i];
	return &geometries[0];
}

/* What a geometry aligns to: its PMD up to 32 MiB, else its contiguous block. */
uint64_t
geometry_target(const struct geometry *g)
{
	return g->pmd <= PMD_CAP ? g->pmd : g->cont;
}

/*
 * Where the PMD is a target but large (32 MiB with arm64 16 KiB pages), a
 * segment without a full PMD window is still worth aligning to a 2 MiB
 * contiguous-PTE block.
 */
uint64_t
geometry_fallback(const struct geometry *g)
{
	return g->pmd <= PMD_CAP && g->cont >= 2 * MiB ? g->cont : 0;
}

bool
geometry_pmd_counts(const struct geometry *g)
{
	return g->pmd <= PMD_CAP;
}

uint64_t
machine_max_page(uint16_t machine)
{
	return machine_lookup(machine)->max_page;
}

/* Pages of this size exist on kernels for this machine (--compat, --page-size). */
bool
machine_runs_page(uint16_t machine, uint64_t page)
{
	return supports_page(machine_lookup(machine), page);
}
