/* SPDX-License-Identifier: BSD-2-Clause */
/* SPDX-FileCopyrightText: 2026 the elfthp-align authors */
/*
 * big.c - libbig, a shared library with 4 MiB of text.
 *
 * The .space below stands in for the code of a large library: it makes the
 * text segment span at least one whole 2 MiB window, so that the post-link
 * step (elfthp-align) has something to align.  It is never executed.
 */
#include "big.h"

__asm__(".text\n"
	".globl big_text_start\n"
	".hidden big_text_start\n"
	"big_text_start:\n"
	".space 4 * 1024 * 1024\n"
	".globl big_text_end\n"
	".hidden big_text_end\n"
	"big_text_end:\n");

extern const char big_text_start[], big_text_end[];

long
big_text_kib(void)
{
	return (long)(big_text_end - big_text_start) / 1024;
}
