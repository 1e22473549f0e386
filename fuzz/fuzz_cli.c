/* SPDX-License-Identifier: BSD-2-Clause */
/* SPDX-FileCopyrightText: 2026 the elfthp-align authors */
/*
 * fuzz_cli.c - libFuzzer harness over elfthp-align's per-file CLI paths:
 * process_file() (src/cli/process.c) in --check, --report, -n (the dry-run
 * rewrite) and --warm, in text and in JSON, and -o into a scratch file, so
 * that the formatting (report.c, report_runtime.c, the JSON writer), the
 * write pass (phdr_rewrite.c: large writes and the kernel copy) and
 * atomic_file.c see what the fuzzer makes.
 *
 * The first byte of an input picks the mode and options; the rest is the
 * file, written into a scratch directory under $TMPDIR (a real file: -o
 * resolves its input's name).  The output goes to memory streams that are
 * thrown away; -o writes beside the input, and is removed each time.
 * A crash, a sanitizer report, or an exit status that is not one of the
 * tool's (a file_class value) is a finding.
 *
 * Built by fuzz/run.sh (FUZZ_TARGET=cli) with clang
 * -fsanitize=fuzzer,address,undefined, linked with every module but
 * src/main.c.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "elfthp_cli.h"

static int in_fd = -1;
static char out_dir[256];
static char in_name[300];
static char out_path[300];

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static _Noreturn void
die(const char *what)
{
	fprintf(stderr, "fuzz_cli: %s: %s\n", what, strerror(errno));
	abort();
}

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char *tmp = getenv("TMPDIR");

	(void)argc;
	(void)argv;
	if (elf_lib_init() != 0)
		die("elf_lib_init");
	snprintf(out_dir, sizeof(out_dir), "%s/elfthp-fuzz-cli.XXXXXX",
	    tmp ? tmp : "/tmp");
	if (mkdtemp(out_dir) == NULL)
		die("mkdtemp");
	snprintf(in_name, sizeof(in_name), "%s/in", out_dir);
	snprintf(out_path, sizeof(out_path), "%s/out", out_dir);
	if ((in_fd = open(in_name, O_RDWR | O_CREAT | O_CLOEXEC, 0755)) < 0)
		die("open");
	return 0;
}

/* The options one selector byte stands for. */
static void
options_for(uint8_t sel, struct options *o)
{
	static const enum mode modes[] = { MODE_CHECK, MODE_REPORT,
		MODE_REWRITE, MODE_WARM, MODE_REWRITE, MODE_CHECK };
	static const uint64_t pages[] = { 0, 4096, 16384, 65536 };
	unsigned which = sel % 6;

	memset(o, 0, sizeof(*o));
	o->mode = modes[which];
	o->format = (sel & 0x08) ? FORMAT_JSON : FORMAT_TEXT;
	o->quiet = (sel & 0x10) != 0;
	o->verbose = (sel & 0x20) != 0;
	o->jobs = 1;
	if (o->mode == MODE_REWRITE) {
		o->format = FORMAT_TEXT;	/* the rewrite has no JSON */
		o->dry_run = which == 2;
		if (which == 4) {
			o->output = out_path;	/* a real write */
			o->no_sync = true;
		}
	}
	if (o->mode == MODE_REWRITE || o->mode == MODE_CHECK)
		o->page_size = pages[(sel >> 6) & 3];
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct options o;
	enum file_class c;
	char *obuf = NULL, *ebuf = NULL;
	size_t olen = 0, elen = 0;
	FILE *out, *err;

	if (size < 1)
		return 0;
	options_for(data[0], &o);
	if (ftruncate(in_fd, 0) != 0 ||
	    pwrite(in_fd, data + 1, size - 1, 0) != (ssize_t)(size - 1))
		die("memfd write");
	if ((out = open_memstream(&obuf, &olen)) == NULL ||
	    (err = open_memstream(&ebuf, &elen)) == NULL)
		die("open_memstream");
	c = process_file(in_name, &o, out, err, NULL);
	fclose(out);
	fclose(err);
	free(obuf);
	free(ebuf);
	if ((int)c < FILE_DONE || c > FILE_ERROR)
		abort();
	unlink(out_path);
	return 0;
}
