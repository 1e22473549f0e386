/* SPDX-License-Identifier: BSD-2-Clause */
/* SPDX-FileCopyrightText: 2026 the elfthp-align authors */
/*
 * The packaged program of test_debhelper.sh and test_rpm.sh, and the
 * input of test_copier.sh: TEXT_BYTES of text (default 5 MiB, two full
 * 2 MiB windows) that it reads and sums, so that a step that changed a
 * byte of it would change what it prints.  With --hold it then prints
 * "ready" and waits, so that a test can read its mappings (lib.sh
 * run_pmd).
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#ifndef TEXT_BYTES
#define TEXT_BYTES 5242880
#endif
#define STR(x) #x
#define XSTR(x) STR(x)

__asm__(".text\n.globl pad_start\n.balign 4096\npad_start:\n"
        ".skip " XSTR(TEXT_BYTES) ", 0\n.globl pad_end\npad_end:\n.previous\n");
extern const unsigned char pad_start[], pad_end[];
int main(int argc, char **argv)
{
	unsigned long sum = 0;
	for (const unsigned char *p = pad_start; p < pad_end; p++)
		sum = sum * 31 + *p + 1;
	printf("%lu bytes of text, sum %lx\n", (unsigned long)(pad_end - pad_start), sum);
	if (argc > 1 && strcmp(argv[1], "--hold") == 0) {
		printf("ready\n");
		fflush(stdout);
		pause();
	}
	return 0;
}
