/* SPDX-License-Identifier: BSD-2-Clause */
/* SPDX-FileCopyrightText: 2026 the elfthp-align authors */
/*
 * The words for every refusal of the door (validate.c), the planner
 * (segment_pad.c) and the check pass (plan_check.c): one sentence per
 * enum plan_err, naming the header and the value concerned.  The CLI
 * puts the program and the file's name in front.  Pure.
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>

#include "elfthp_core.h"

/* A refusal, filled in; -1, so that a check can return it. */
int
plan_fail(struct plan_error *e, enum plan_err code, size_t index, size_t other,
    uint64_t value)
{
	e->code = code;
	e->index = index;
	e->other = other;
	e->value = value;
	return -1;
}


/* What is wrong with the input's headers. */
static bool
input_error(const struct plan_error *e, char *buf, size_t len)
{
	unsigned long long v = e->value;

	switch (e->code) {
	case PLAN_OK:
		snprintf(buf, len, "no error");
		break;
	case PLAN_ENOMEM:
		snprintf(buf, len, "out of memory");
		break;
	case PLAN_BAD_PARAMS:
		snprintf(buf, len, "alignment 0x%llx is not a power of two "
		    "at least the page size", v);
		break;
	case PLAN_NO_LOAD:
		snprintf(buf, len, "no PT_LOAD segment");
		break;
	case PLAN_PAST_EOF:
		snprintf(buf, len, "program header %zu extends past end of "
		    "file", e->index);
		break;
	case PLAN_SEC_PAST_EOF:
		snprintf(buf, len, "section %zu extends past end of file",
		    e->index);
		break;
	case PLAN_OVERFLOW:
		snprintf(buf, len, "PT_LOAD %zu: address or offset overflows "
		    "the ELF class", e->index);
		break;
	case PLAN_SEC_OVERFLOW:
		snprintf(buf, len, "section %zu: address 0x%llx plus its size "
		    "overflows the ELF class", e->index, v);
		break;
	case PLAN_FILESZ_GT_MEMSZ:
		snprintf(buf, len, "PT_LOAD %zu: p_filesz 0x%llx exceeds "
		    "p_memsz", e->index, v);
		break;
	case PLAN_BAD_ALIGN:
		snprintf(buf, len, "PT_LOAD %zu: p_align 0x%llx is not a power "
		    "of two", e->index, v);
		break;
	case PLAN_NOT_CONGRUENT:
		snprintf(buf, len, "PT_LOAD %zu: p_offset and p_vaddr are not "
		    "congruent modulo the page size (0x%llx)", e->index, v);
		break;
	default:
		return false;
	}
	return true;
}

/*
 * What a strip after a split (--layout start) leaves: the file does not
 * run; the rewrite cannot repair it, only what made it can.
 */
#define STRIPPED_SPLIT " (what %s leaves of a file split by --layout " \
	"start): it cannot run as it is; strip before elfthp-align, use " \
	"llvm-strip, or relink"

static bool
stripped_error(const struct plan_error *e, char *buf, size_t len)
{
	unsigned long long v = e->value;

	switch (e->code) {
	case PLAN_PHDRS_ZEROED:
		snprintf(buf, len, "the program header table (%zu entries at "
		    "0x%llx) is all zeros" STRIPPED_SPLIT, e->other, v,
		    "eu-strip");
		break;
	case PLAN_PHDR_STALE:
		snprintf(buf, len, "PT_PHDR %zu (at 0x%llx) does not describe "
		    "the program header table" STRIPPED_SPLIT, e->index, v,
		    "a strip");
		break;
	case PLAN_SEC_MISPLACED:
		snprintf(buf, len, "the program header table (at 0x%llx) lies "
		    "over the bytes PT_LOAD %zu maps at section %zu's address: "
		    "the program headers no longer describe the sections"
		    STRIPPED_SPLIT, v, e->other, e->index, "GNU strip or objcopy");
		break;
	default:
		return false;
	}
	return true;
}

/* A limit the rewrite would pass, or the plan check's refusal. */
static bool
limit_error(const struct plan_error *e, char *buf, size_t len)
{
	unsigned long long v = e->value;

	switch (e->code) {
	case PLAN_TOO_BIG:
		snprintf(buf, len, "the rewritten file (%llu bytes) would pass "
		    "the 4 GiB limit of ELFCLASS32", v);
		break;
	case PLAN_PAGE_SHARED:
		snprintf(buf, len, "PT_LOAD %zu and PT_LOAD %zu have different "
		    "permissions on one 0x%llx-byte page; only a relink with "
		    "-z max-page-size=0x%llx fixes that", e->index, e->other, v, v);
		break;
	case PLAN_GROWTH:
		if (e->index == SIZE_MAX)
			snprintf(buf, len, "the alignment (sh_addralign) of the "
			    "sections after the last PT_LOAD would grow the file "
			    "by %llu bytes, more than the %zu allowed", v,
			    e->other);
		else
			snprintf(buf, len, "PT_LOAD %zu: its alignment would grow "
			    "the file by %llu bytes, more than the %zu allowed",
			    e->index, v, e->other);
		break;
	case PLAN_VERIFY:
		snprintf(buf, len, "internal error: plan check failed: %s "
		    "(header %zu); nothing written", e->detail, e->index);
		break;
	default:
		return false;
	}
	return true;
}

/* Why no layout can be planned. */
static void
layout_error(const struct plan_error *e, char *buf, size_t len)
{
	unsigned long long v = e->value;

	switch (e->code) {
	case PLAN_OVERLAP:
		snprintf(buf, len, "PT_LOAD %zu and PT_LOAD %zu overlap in the "
		    "file", e->index, e->other);
		break;
	case PLAN_SPLIT_SEGMENT:
		snprintf(buf, len, "program header %zu spans PT_LOADs that "
		    "must move apart", e->index);
		break;
	case PLAN_SPLIT_SECTION:
		snprintf(buf, len, "section %zu spans PT_LOADs that must move "
		    "apart", e->index);
		break;
	case PLAN_SPLIT_SHDRS:
		snprintf(buf, len, "section header table spans PT_LOADs that "
		    "must move apart");
		break;
	case PLAN_SPLIT_PHDRS:
		snprintf(buf, len, "program header table (at 0x%llx) spans "
		    "PT_LOADs that must move apart", v);
		break;
	case PLAN_SHDRS_OVERLAP:
		if (e->index == SIZE_MAX)
			snprintf(buf, len, "section header table (at 0x%llx) "
			    "overlaps the ELF or program headers", v);
		else
			snprintf(buf, len, "section header table (at 0x%llx) "
			    "overlaps PT_LOAD %zu", v, e->index);
		break;
	case PLAN_SHDRS_OVER_SECTION:
		snprintf(buf, len, "section header table (at 0x%llx) overlaps "
		    "section %zu", v, e->index);
		break;
	case PLAN_SHDRS_IN_LOAD:
		snprintf(buf, len, "the section header table (at 0x%llx) lies "
		    "inside PT_LOAD %zu, and section %zu would move: its entry "
		    "would change that segment's bytes", v, e->index, e->other);
		break;
	default:
		snprintf(buf, len, "unknown plan error %d", (int)e->code);
		break;
	}
}

void
plan_strerror(const struct plan_error *e, char *buf, size_t len)
{
	if (!input_error(e, buf, len) && !stripped_error(e, buf, len) &&
	    !limit_error(e, buf, len))
		layout_error(e, buf, len);
}
