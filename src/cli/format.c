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
#include <string.h>

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
	case MODE_MEASURE: return "measure";
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
	case FILE_NOT_DONE: return "not-done";
	case FILE_LINKED: return "linked";
	case FILE_CACHE_UNKNOWN: return "unknown";
	case FILE_ERROR: return "error";
	case FILE_DONE: break;
	}
	return "done";
}

/*
 * s as one shell word, to be pasted: as it is where every byte is safe
 * (and it cannot be taken for an option: the commands put "--" before
 * it), else in single quotes, each ' as '\''.  A word that does not fit
 * is "''" and a -1: never half a name.
 */
int
shell_word(char *buf, size_t len, const char *s)
{
	size_t used = 1;
	const char *c;

	if (s[0] != '\0' && s[strspn(s, "abcdefghijklmnopqrstuvwxyz"
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_./+-:@,=%")] == '\0' &&
	    strlen(s) < len) {
		memcpy(buf, s, strlen(s) + 1);
		return 0;
	}
	if (len < 3)
		return -1;
	buf[0] = '\'';
	for (c = s; *c != '\0'; c++) {
		const char *piece = *c == '\'' ? "'\\''" : NULL;
		size_t plen = piece ? 4 : 1;

		if (used + plen + 2 > len) {
			snprintf(buf, len, "''");
			return -1;
		}
		if (piece)
			memcpy(buf + used, piece, plen);
		else
			buf[used] = *c;
		used += plen;
	}
	buf[used++] = '\'';
	buf[used] = '\0';
	return 0;
}
