/*
 * Page geometries, and the alignment each machine's huge pages call for.
 * The numbers come from docs/geometry.md, 'The geometries'.
 */
#include <elf.h>
#include <stddef.h>

#include "elfthp.h"

#ifndef EM_LOONGARCH
#define EM_LOONGARCH 258
#endif

#define KiB (UINT64_C(1) << 10)
#define MiB (UINT64_C(1) << 20)

/* A PMD above this is not a target (the seed patch draws the same line). */
#define PMD_CAP (32 * MiB)

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
	{ EM_X86_64, "x86_64", 4 * KiB, 4 * KiB, { 4 * KiB } },
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

	/* Radix ppc64 maps 2 MiB PMDs with 64 KiB pages too. */
	if (machine == EM_PPC64)
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

int
params_for(uint16_t machine, uint64_t page_size, uint64_t align,
    struct plan_params *p, const char **why)
{
	const struct machine_info *m = machine_lookup(machine);
	uint64_t page = page_size ? page_size : m->default_page;

	if (!supports_page(m, page)) {
		*why = "page size not supported by this machine";
		return -1;
	}
	p->base_page = 4 * KiB;
	p->page = page;
	/* An explicit page size asks for a file that loads on such pages. */
	p->min_align = page_size;
	p->min_page = m->max_page > page ? m->max_page : page;
	p->target = align ? align : target_for(machine, page);
	p->fallback = align ? 0 : geometry_fallback(own_geometry(machine, page));
	if (p->target == 0) {
		*why = "no huge-page size of at most 32 MiB for this page size; "
		    "give --align";
		return -1;
	}
	if (p->target < p->min_page) {
		*why = "alignment is below the machine's largest page size";
		return -1;
	}
	return 0;
}

/* The geometries every report covers, then the ones only their machine gets. */
static const struct geometry standard[] = {
	{ "x86_64-4k", 4 * KiB, 2 * MiB, 0 },
	{ "arm64-4k", 4 * KiB, 2 * MiB, 64 * KiB },
	{ "arm64-16k", 16 * KiB, 32 * MiB, 2 * MiB },
	{ "arm64-64k", 64 * KiB, 512 * MiB, 2 * MiB },
};
static const struct geometry riscv64_4k = { "riscv64-4k", 4 * KiB, 2 * MiB,
	64 * KiB };
static const struct geometry loongarch64_16k = { "loongarch64-16k", 16 * KiB,
	32 * MiB, 0 };

size_t
report_geometries(uint16_t machine, const struct geometry **out, size_t max)
{
	size_t i, n = 0;

	for (i = 0; i < sizeof(standard) / sizeof(standard[0]) && n < max; i++)
		out[n++] = &standard[i];
	if (machine == EM_RISCV && n < max)
		out[n++] = &riscv64_4k;
	if (machine == EM_LOONGARCH && n < max)
		out[n++] = &loongarch64_16k;
	return n;
}

/* The geometry a file runs on by default, or with --page-size. */
const struct geometry *
own_geometry(uint16_t machine, uint64_t page_size)
{
	const struct machine_info *m = machine_lookup(machine);
	uint64_t page = page_size ? page_size : m->default_page;
	size_t i;

	if (machine == EM_RISCV)
		return &riscv64_4k;
	if (machine == EM_LOONGARCH && page == 16 * KiB)
		return &loongarch64_16k;
	if (machine == EM_AARCH64)
		for (i = 1; i < 4; i++)
			if (standard[i].page == page)
				return &standard[i];
	return &standard[0];
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
