/* SPDX-License-Identifier: BSD-2-Clause */
/* SPDX-FileCopyrightText: 2026 the elfthp-align authors */
/*
 * main.c - a small program with 4 MiB of text.
 *
 * The .space below stands in for the code of a large program: it makes the
 * text segment span at least one whole 2 MiB window, so that the post-link
 * step (elfthp-align) has something to align.  It is never executed.
 */
#include <stdio.h>

__asm__(".text\n"
	".globl big_text_start\n"
	"big_text_start:\n"
	".space 4 * 1024 * 1024\n"
	".globl big_text_end\n"
	"big_text_end:\n");

extern const char big_text_start[], big_text_end[];

int
main(void)
{
	printf("hello from a program with %ld KiB of padding in its text\n",
	    (long)(big_text_end - big_text_start) / 1024);
	return 0;
}
