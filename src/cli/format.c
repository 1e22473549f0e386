/* SPDX-License-Identifier: BSD-2-Clause */
/* SPDX-FileCopyrightText: 2026 the elfthp-align authors */
/*
 * The words every formatter shares: sizes, the mode's name and a file's
 * class.  Below report.c, report_check.c and report_runtime.c, so that
 * none of them reaches into another.
 */
#include <bsd/libutil.h>
#include <inttypes.h>
#include <stdio.h>

#include "elfthp_cli.h"

void
format_size(char *buf, size_t len, uint64_t bytes)
{
	/* Three significant digits: "5.9MiB", not "6026KiB" or "6170537B". */
	if (humanize_number(buf, len < 7 ? len : 7, (int64_t)bytes, "B", HN_AUTOSCALE,
	    HN_NOSPACE | HN_DECIMAL | HN_IEC_PREFIXES) < 0)
		snprintf(buf, len, "%" PRIu64 "B", bytes);
}

const char *
mode_name(const struct options *o)
{
	switch (o->mode) {
	case MODE_REWRITE: return o->dry_run ? "dry-run" : "rewrite";
	case MODE_REPORT: return "report";
	case MODE_CHECK: return o->compat ? "compat" : "check";
	case MODE_WARM: return "warm";
	case MODE_HOST: return "host";
	case MODE_PID: return "pid";
	}
	return "?";
}

const char *
class_text(enum file_class c)
{
	switch (c) {
	case FILE_READY: return "ready";
	case FILE_NOT_HUGE: return "not-huge";
	case FILE_NO_WINDOWS: return "no-windows";
	case FILE_NEEDS_REWRITE: return "needs-rewrite";
	case FILE_NEEDS_RELINK: return "needs-relink";
	case FILE_COMPATIBLE: return "compatible";
	case FILE_FIXABLE: return "fixable";
	case FILE_NOT_ELF: return "not-elf";
	case FILE_NOT_APPLICABLE: return "not-applicable";
	case FILE_ERROR: return "error";
	case FILE_DONE: break;
	}
	return "done";
}
