/* SPDX-License-Identifier: BSD-2-Clause */
/* SPDX-FileCopyrightText: 2026 the elfthp-align authors */
/* main.c - a small program that calls libbig. */
#include <stdio.h>

#include "big.h"

int
main(void)
{
	printf("hello from a library with %ld KiB of padding in its text\n",
	    big_text_kib());
	return 0;
}
