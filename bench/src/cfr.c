/* cfr.c - copy_file_range + fsync with a chosen shift and first chunk.
 *
 *   cfr IN OUT SRC DST LEN HEAD
 *
 * Like elfthp-align's write pass for an lld file: OUT is sized first
 * (ftruncate), bytes [0, DST) are filled from IN, then LEN bytes move from
 * IN at SRC to OUT at DST with copy_file_range, the first call limited to
 * HEAD bytes when HEAD > 0; then fsync.  Prints "copy S fsync S".
 * Part 1 uses it to show what the 4 KiB shift costs on ext4 and that a
 * first chunk ending at a 64 KiB output boundary removes the cost.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

static int copy(int in, loff_t *s, int out, loff_t *d, long long len)
{
	while (len > 0) {
		ssize_t r = copy_file_range(in, s, out, d, (size_t)len, 0);

		if (r <= 0) {
			perror("copy_file_range");
			return -1;
		}
		len -= r;
	}
	return 0;
}

int main(int argc, char **argv)
{
	if (argc != 7) {
		fprintf(stderr, "usage: cfr IN OUT SRC DST LEN HEAD\n");
		return 2;
	}
	int in = open(argv[1], O_RDONLY);
	int out = open(argv[2], O_RDWR | O_CREAT | O_TRUNC, 0644);
	loff_t s = atoll(argv[3]), d = atoll(argv[4]), z = 0, zd = 0;
	long long len = atoll(argv[5]), head = atoll(argv[6]);

	if (in < 0 || out < 0 || ftruncate(out, d + len) != 0)
		return perror("open/ftruncate"), 1;
	double t0 = now();
	if (d > 0 && copy(in, &z, out, &zd, d) != 0)
		return 1;
	if (head > 0 && head < len) {
		if (copy(in, &s, out, &d, head) != 0)
			return 1;
		len -= head;
	}
	if (copy(in, &s, out, &d, len) != 0)
		return 1;
	double t1 = now();
	if (fsync(out) != 0)
		return perror("fsync"), 1;
	printf("copy %.3f fsync %.3f\n", t1 - t0, now() - t1);
	return 0;
}
