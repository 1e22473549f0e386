/* SPDX-License-Identifier: BSD-2-Clause */
/* SPDX-FileCopyrightText: 2026 the elfthp-align authors */
/*
 * --host: what this machine will do with huge text, changing nothing.
 * The facts and the probes are io/host_probe.c's; here they are asked
 * for, what could not be read is said, and report_runtime.c prints them.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "elfthp_cli.h"

/* A host fact that could not be read: said, and the run fails.  -1. */
static int
fact_failed(const char *what, int e)
{
	diag(stderr, NULL, "could not read %s: %s", what, strerror(e));
	return -1;
}

/* A path that could not be looked at, or a probe that broke: said.  2. */
static int
path_failed(const struct host_path *h)
{
	if (h->error != 0)
		diag(stderr, h->path, "%s: %s", h->what, strerror(h->error));
	else
		diag(stderr, h->path, "not probed: %s%s%s",
		    h->probe.failed ? h->probe.failed : "",
		    h->probe.failed ? ": " : "", strerror(h->probe.error));
	return 2;
}

int
host_report(char **paths, size_t npaths, const struct options *o)
{
	struct host_facts hf = { .npaths = npaths };
	uint64_t pmd;
	int rc = 0;
	size_t i;

	if (host_pmd_read(&pmd) != 0) {
		fact_failed("/sys/kernel/mm/transparent_hugepage/"
		    "hpage_pmd_size", errno);
		rc = 2;
	}
	if (host_facts_read(&hf) != 0) {
		for (i = 0; i < hf.nunread; i++)
			fact_failed(hf.unread[i].where, hf.unread[i].error);
		rc = 2;
	}
	if (npaths > 0 && (hf.paths = calloc(npaths, sizeof(*hf.paths))) ==
	    NULL) {
		diag(stderr, NULL, "out of memory");
		return 2;
	}
	for (i = 0; i < npaths; i++) {
		hf.paths[i].path = paths[i];
		host_probe_path(&hf.paths[i], &hf, pmd);
		if (hf.paths[i].error != 0 ||
		    host_probe_broke(&hf.paths[i].probe))
			rc = path_failed(&hf.paths[i]);
		host_collapse_measured(&hf, &hf.paths[i]);
	}
	host_thp_advice(&hf);
	report_host(stdout, o, &hf);
	free(hf.paths);
	return rc;
}
