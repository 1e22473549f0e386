/* SPDX-License-Identifier: BSD-2-Clause */
/* SPDX-FileCopyrightText: 2026 the elfthp-align authors */
/*
 * thp_off COMMAND ARGS...: run COMMAND with transparent huge pages
 * disabled for it (prctl PR_SET_THP_DISABLE, which exec keeps), as a
 * parent process can set them for its children.  test_warmclaim.sh builds
 * it with cc.  Exit 126 if the prctl fails, 127 if the exec does.
 */
#include <stdio.h>
#include <sys/prctl.h>
#include <unistd.h>

int
main(int argc, char **argv)
{
	if (argc < 2) {
		fputs("usage: thp_off command [arg ...]\n", stderr);
		return 127;
	}
	if (prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0) != 0) {
		perror("thp_off: prctl(PR_SET_THP_DISABLE)");
		return 126;
	}
	execvp(argv[1], argv + 1);
	perror(argv[1]);
	return 127;
}
