/* SPDX-License-Identifier: BSD-2-Clause */
/* SPDX-FileCopyrightText: 2026 the elfthp-align authors */
/*
 * The text walker of make check-glibc (tests/glibc/run.sh): TEXT_BYTES of
 * text (default 24 MiB) that it first touches once per 2 MiB window, from
 * the first to the last, as a program whose calls jump about its text
 * does, then reads and sums, so that a changed byte changes what it
 * prints.  With --hold it then prints "ready" and waits to be killed, so
 * that the test can read its smaps.  -DWALKER_LIB: the walk is
 * walk_text() of a shared library, and walker_main.c the program.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#ifndef TEXT_BYTES
#define TEXT_BYTES 25165824
#endif
#define STR(x) #x
#define XSTR(x) STR(x)

__asm__(".text\n.balign 4096\nwalk_pad_start:\n"
        ".skip " XSTR(TEXT_BYTES) ", 0x90\nwalk_pad_end:\n.previous\n");

unsigned long walk_text(void);

unsigned long
walk_text(void)
{
	const volatile unsigned char *start, *end, *p;
	unsigned long sum = 0;

	__asm__("lea walk_pad_start(%%rip), %0" : "=r"(start));
	__asm__("lea walk_pad_end(%%rip), %0" : "=r"(end));
	for (p = start; p < end; p += 2097152)
		sum += *p;
	for (p = start; p < end; p++)
		sum = sum * 31 + *p + 1;
	return sum + (unsigned long)(end - start);
}

#ifndef WALKER_LIB
int
main(int argc, char **argv)
{
	printf("walked, sum %lx\n", walk_text());
	if (argc > 1 && strcmp(argv[1], "--hold") == 0) {
		printf("ready\n");
		fflush(stdout);
		pause();
	}
	return 0;
}
#endif
