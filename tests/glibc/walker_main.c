/* SPDX-License-Identifier: BSD-2-Clause */
/* SPDX-FileCopyrightText: 2026 the elfthp-align authors */
/* The program that loads libwalker.so (walker.c -DWALKER_LIB). */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

unsigned long walk_text(void);

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
