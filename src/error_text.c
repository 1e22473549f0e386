/* SPDX-License-Identifier: BSD-2-Clause */
/* SPDX-FileCopyrightText: 2026 the elfthp-align authors */
/*
 * The one way a failure below the CLI is described: a message in the
 * caller's buffer (never overflowing it), and -1.  The CLI adds the file's
 * name and prints it; nothing below main() prints or exits.
 */
#include <stdarg.h>
#include <stdio.h>

#include "elfthp_io.h"

int
verror_text(char *err, size_t n, const char *fmt, va_list ap)
{
	if (n > 0)
		vsnprintf(err, n, fmt, ap);
	return -1;
}

int
error_text(char *err, size_t n, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	verror_text(err, n, fmt, ap);
	va_end(ap);
	return -1;
}
