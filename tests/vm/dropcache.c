/* SPDX-License-Identifier: BSD-2-Clause */
/* SPDX-FileCopyrightText: 2026 the elfthp-align authors */
/* dropcache.c - dropcache FILE...: write each FILE back and drop its page
 * cache (fsync, then POSIX_FADV_DONTNEED), as memory pressure or a reboot
 * would; the guests of tests/vm/run.sh have no python3 to do it.  Exit 1,
 * naming the file, if a step fails.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static int drop(const char *path)
{
	int fd = open(path, O_RDONLY);
	int err;

	if (fd < 0) {
		fprintf(stderr, "dropcache: %s: %s\n", path, strerror(errno));
		return 1;
	}
	if (fsync(fd) != 0) {
		fprintf(stderr, "dropcache: %s: fsync: %s\n", path, strerror(errno));
		close(fd);
		return 1;
	}
	err = posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
	close(fd);
	if (err != 0) {
		fprintf(stderr, "dropcache: %s: fadvise: %s\n", path, strerror(err));
		return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	int i, status = 0;

	for (i = 1; i < argc; i++)
		status |= drop(argv[i]);
	return status;
}
