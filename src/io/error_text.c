/* SPDX-License-Identifier: BSD-2-Clause */
/* SPDX-FileCopyrightText: 2026 the elfthp-align authors */
/*
 * The one way a failure below the CLI is described: a message in the
 * caller's buffer (never overflowing it), and -1.  The CLI adds the file's
 * name and prints it, through diag below, as every diagnostic is.
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

/*
 * The one way a diagnostic reaches the user: "elfthp-align: FILE: text"
 * (or without FILE where none is concerned), one line, on the stream
 * given: stderr, or a worker's buffer that the runner prints in order.
 */
void
vdiag(FILE *f, const char *file, const char *fmt, va_list ap)
{
	char text[4096];

	vsnprintf(text, sizeof(text), fmt, ap);
	if (file != NULL)
		fprintf(f, "%s: %s: %s\n", PROGRAM_NAME, file, text);
	else
		fprintf(f, "%s: %s\n", PROGRAM_NAME, text);
}

void
diag(FILE *f, const char *file, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vdiag(f, file, fmt, ap);
	va_end(ap);
}
