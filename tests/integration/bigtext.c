/* SPDX-License-Identifier: BSD-2-Clause */
/* SPDX-FileCopyrightText: 2026 the elfthp-align authors */
/*
 * The packaged program of test_debhelper.sh and test_rpm.sh: 5 MiB of text
 * (two full 2 MiB windows) that it reads and sums, so that a packaging
 * step that changed a byte of it would change what it prints.
 */
#include <stdio.h>
__asm__(".text\n.globl pad_start\n.balign 4096\npad_start:\n"
        ".skip 5242880, 0\n.globl pad_end\npad_end:\n.previous\n");
extern const unsigned char pad_start[], pad_end[];
int main(void)
{
	unsigned long sum = 0;
	for (const unsigned char *p = pad_start; p < pad_end; p++)
		sum = sum * 31 + *p + 1;
	printf("%lu bytes of text, sum %lx\n", (unsigned long)(pad_end - pad_start), sum);
	return 0;
}
