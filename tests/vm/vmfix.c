/* SPDX-License-Identifier: BSD-2-Clause */
/* SPDX-FileCopyrightText: 2026 the elfthp-align authors */
/* vmfix.c - the program the VM harness (tests/vm/run.sh) rewrites and runs
 * in each guest: statically linked (the guest has no libc), PAD bytes of
 * .text, and a loop that reads one byte of every 4 KiB of that text, so
 * that every window is faulted in and FilePmdMapped counts all of them.
 *
 *   CC -O2 -static -fuse-ld=lld -DPAD=N vmfix.c
 *
 * lld links it at 0x200000 with the text at p_vaddr = p_offset + 0x201000
 * (x86_64) or + 0x210000 (aarch64): not congruent modulo the PMD, so the
 * original is a negative control and the rewrite has to move the text.
 * PAD is 16 MiB for 2 MiB PMDs and 128 MiB for arm64 16K pages (32 MiB
 * PMDs, 3 windows).  With --hold it prints "ready" and waits until killed;
 * with --loop it prints "ready" and reads its text again every 200 ms
 * until killed, so that a window collapsed while it runs is faulted in
 * again (as a PMD where the page cache now holds one).
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define STR(x) #x
#define XSTR(x) STR(x)

extern const unsigned char pad_start[], pad_end[];
__asm__("\t.text\n\t.globl pad_start\npad_start:\n\t.skip " XSTR(PAD)
	"\n\t.globl pad_end\npad_end:\n");

static unsigned long touch(void)
{
	const volatile unsigned char *p;
	unsigned long sum = 0;

	for (p = pad_start; p < pad_end; p += 4096)
		sum += *p;
	return sum;
}

int main(int argc, char **argv)
{
	unsigned long sum = touch();

	printf("vmfix: %lu bytes of text read, sum %lu\n",
	       (unsigned long)(pad_end - pad_start), sum);
	if (argc > 1 && strcmp(argv[1], "--hold") == 0) {
		printf("ready\n");
		fflush(stdout);
		for (;;)
			pause();
	}
	if (argc > 1 && strcmp(argv[1], "--loop") == 0) {
		printf("ready\n");
		fflush(stdout);
		for (;;) {
			usleep(200000);
			sum += touch();
		}
	}
	return 0;
}
