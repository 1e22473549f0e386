/* text.c - a PIE with PAD bytes of .text, for the rewrite-cost benchmark.
 *
 *   gcc -O2 -fPIE -fno-toplevel-reorder -DPAD=N -c text.c
 *
 * Two real functions lie on either side of a top-level `.skip PAD` in
 * .text (zero bytes: cheap to assemble), so the linked text segment is
 * about PAD bytes and the program still runs and prints a checksum.
 */
#include <stdio.h>

#define STR(x) #x
#define XSTR(x) STR(x)

__attribute__((noinline)) unsigned first(unsigned x) { return x * 2654435761u + 1; }
__asm__("\t.text\n\t.skip " XSTR(PAD) "\n");
__attribute__((noinline)) unsigned last(unsigned x) { return (x >> 7) ^ (x * 40503u); }

int main(int argc, char **argv)
{
	(void)argv;
	printf("%u\n", last(first((unsigned)argc)));
	return 0;
}
