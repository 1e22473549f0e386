/* SPDX-License-Identifier: BSD-2-Clause */
/* SPDX-FileCopyrightText: 2026 the elfthp-align authors */
/*
 * elfthp-align: make large read-only PT_LOAD segments eligible for
 * PMD-sized transparent huge pages, in the file, for unmodified kernels.
 *
 * main parses options into one struct, checks them, then dispatches:
 * --pid to pid_scan.c, everything else to the runner, which hands each
 * file to process_file() (process.c): open, read, plan, then rewrite,
 * report or check.
 */
#include <bsd/stdlib.h>
#include <stdarg.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "elfthp_cli.h"

#define EXIT_USAGE 2

enum {
	OPT_PAGE_SIZE = 256,
	OPT_ALIGN,
	OPT_REPORT,
	OPT_CHECK,
	OPT_PID,
	OPT_FORMAT,
	OPT_NO_SYNC,
	OPT_SYNC,
	OPT_WARM,
	OPT_HOST,
	OPT_LOCK_TIMEOUT,
	OPT_BREAK_HARDLINKS,
	OPT_COMPAT,
	OPT_NO_WARM,
	OPT_EXCLUDE,
	OPT_MEASURE,
	OPT_PAIRS,
	OPT_KEEP_OUTPUT,
	OPT_LAYOUT,
	OPT_BEFORE,
};

static const struct option longopts[] = {
	{ "dry-run", no_argument, NULL, 'n' },
	{ "output", required_argument, NULL, 'o' },
	{ "quiet", no_argument, NULL, 'q' },
	{ "verbose", no_argument, NULL, 'v' },
	{ "recursive", no_argument, NULL, 'r' },
	{ "one-file-system", no_argument, NULL, 'x' },
	{ "jobs", required_argument, NULL, 'j' },
	{ "files-from", required_argument, NULL, 'f' },
	{ "null", no_argument, NULL, '0' },
	{ "page-size", required_argument, NULL, OPT_PAGE_SIZE },
	{ "align", required_argument, NULL, OPT_ALIGN },
	{ "report", no_argument, NULL, OPT_REPORT },
	{ "check", no_argument, NULL, OPT_CHECK },
	{ "pid", required_argument, NULL, OPT_PID },
	{ "format", required_argument, NULL, OPT_FORMAT },
	{ "no-sync", no_argument, NULL, OPT_NO_SYNC },
	{ "sync", no_argument, NULL, OPT_SYNC },
	{ "warm", no_argument, NULL, OPT_WARM },
	{ "host", no_argument, NULL, OPT_HOST },
	{ "lock-timeout", required_argument, NULL, OPT_LOCK_TIMEOUT },
	{ "break-hardlinks", no_argument, NULL, OPT_BREAK_HARDLINKS },
	{ "compat", no_argument, NULL, OPT_COMPAT },
	{ "no-warm", no_argument, NULL, OPT_NO_WARM },
	{ "exclude", required_argument, NULL, OPT_EXCLUDE },
	{ "measure", no_argument, NULL, OPT_MEASURE },
	{ "pairs", required_argument, NULL, OPT_PAIRS },
	{ "keep-output", no_argument, NULL, OPT_KEEP_OUTPUT },
	{ "layout", required_argument, NULL, OPT_LAYOUT },
	{ "before", required_argument, NULL, OPT_BEFORE },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	{ NULL, 0, NULL, 0 },
};

/*
 * Output nobody received is a failure: a full disk or a closed pipe under
 * a CI step must not look like success.  (A reader that went away gives
 * SIGPIPE, which ends the process as it always has.)
 */
/* A command line the tool cannot run: said, and exit status 2. */
static void usage_error(const char *, ...) PRINTF_LIKE(1, 2)
    __attribute__((noreturn));

static void
usage_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vdiag(stderr, NULL, fmt, ap);
	va_end(ap);
	exit(EXIT_USAGE);
}

static int
output_written(int rc)
{
	if (fflush(stdout) == 0 && !ferror(stdout))
		return rc;
	diag(stderr, "standard output", "%s", strerror(errno ? errno : EIO));
	return 2;
}

static void
usage(FILE *f)
{
	fprintf(f,
	    "usage: elfthp-align [-nqrvx] [-j N] [-o output] "
	    "[--page-size 4k|16k|64k]\n"
	    "                    [--align size] [--sync | --no-sync] "
	    "[--lock-timeout s]\n"
	    "                    [--break-hardlinks] [--no-warm] "
	    "[--exclude pattern]\n"
	    "                    [--layout start|congruent] "
	    "[--format text|json] [-0]\n"
	    "                    [-f list] path ...\n"
	    "       elfthp-align --report [-rx] [--exclude pattern] "
	    "[--format text|json]\n"
	    "                    [--page-size 4k|16k|64k] [-0] [-f list] "
	    "path ...\n"
	    "       elfthp-align --check [-qrvx] [-j N] [--exclude pattern]\n"
	    "                    [--format text|json] [--page-size 4k|16k|64k]\n"
	    "                    [--layout start|congruent]\n"
	    "                    [-0] [-f list] path ...\n"
	    "       elfthp-align --check --compat --page-size 4k|16k|64k [-qrvx] "
	    "[-j N]\n"
	    "                    [--exclude pattern] [--format text|json] "
	    "[-0] [-f list]\n"
	    "                    path ...\n"
	    "       elfthp-align --warm [-nqrvx] [-j N] [--exclude pattern]\n"
	    "                    [--format text|json] [-0] [-f list] path ...\n"
	    "       elfthp-align --host [--format text|json] [-0] [-f list] "
	    "[path ...]\n"
	    "       elfthp-align --pid PID|all [--pid PID ...] [-v] "
	    "[--format text|json]\n"
	    "       elfthp-align --measure [--pairs N] [--keep-output] "
	    "[--format text|json]\n"
	    "                    [--before orig file | file ...] -- command "
	    "[arg ...]\n");
}

/* --help: the options that shape a run, then the modes and the exit status. */
static void
help_options(void)
{
	printf("\nMake the large read-only segments of ELF executables and "
	    "shared libraries\nhuge at their next run: pad the file where its "
	    "layout needs it, then put\nthe windows in the page cache as huge "
	    "folios.\n\n"
	    "  -n, --dry-run          print the plan, write nothing; --warm -n: "
	    "per window,\n"
	    "                         what warming would do\n"
	    "  -o, --output FILE      write to FILE, leave the input alone "
	    "(one input only)\n"
	    "  -q, --quiet            print nothing for files that succeed\n"
	    "  -v, --verbose          print the segment table of each file; "
	    "--check: a\n"
	    "                         verdict for every file\n"
	    "  -r, --recursive        walk directories (links are not "
	    "followed)\n"
	    "  -x, --one-file-system  stay on the file system of each "
	    "argument\n"
	    "      --exclude PATTERN  leave out paths matching the glob "
	    "(repeatable; a\n"
	    "                         pattern without '/' matches the last "
	    "name)\n"
	    "  -j, --jobs N           run N files at once (default: the "
	    "number of CPUs)\n"
	    "  -f, --files-from LIST  also the paths in LIST, one a line "
	    "(# comments);\n"
	    "                         - reads standard input; may be given "
	    "more than once\n"
	    "  -0, --null             -f lists are NUL-separated "
	    "(find -print0)\n"
	    "      --page-size SIZE   base page of the target machine: 4k, "
	    "16k or 64k\n"
	    "      --align SIZE       alignment for eligible segments "
	    "(default: the PMD)\n"
	    "      --layout LAYOUT    congruent (default): pad and raise p_align; "
	    "start: also\n"
	    "                         split a segment so that a part starts "
	    "on a window\n"
	    "      --sync             -o: fsync the new file before the rename\n"
	    "      --no-sync          in place: no fsync before the rename "
	    "(build outputs)\n"
	    "      --lock-timeout S   in place: wait S seconds for another run "
	    "(default 60)\n"
	    "      --break-hardlinks  in place: replace this name only; other "
	    "links keep\n"
	    "                         the old file (Cargo's target/release)\n"
	    "      --no-warm          rewrite only, no page-cache step (for "
	    "files that will\n"
	    "                         be copied or packaged)\n");
}

static void
help_modes(void)
{
	printf(
	    "      --report           print the expected iTLB and RSS impact, "
	    "write nothing\n"
	    "      --check            audit: exit 1 if a file would be "
	    "changed, write nothing\n"
	    "      --compat           with --check: does it load on "
	    "--page-size pages? exit\n"
	    "                         1 if fixable (padding), 3 if only a "
	    "relink helps\n"
	    "      --warm             put the huge windows of files in the page "
	    "cache as huge\n"
	    "                         folios (after a reboot or a cp; after an "
	    "upgrade,\n"
	    "                         rewrite first)\n"
	    "      --host             say what this host and the file systems "
	    "of the paths do\n"
	    "                         with huge text; changes nothing\n"
	    "      --pid PID|all      is a running process's text huge, and if "
	    "not, what\n"
	    "                         makes it so (repeat it, or all: every "
	    "process)\n"
	    "      --measure          run the command after -- in pairs of "
	    "rounds, its text\n"
	    "                         small and huge, each verified; print "
	    "the difference\n"
	    "      --pairs N|auto     --measure: N pairs of rounds (default 5); auto:\n"
	    "                         until wall_s's 95 %% interval is 5 points wide\n"
	    "      --before ORIG      --measure FILE: also rounds of ORIG, the "
	    "original FILE\n"
	    "                         was rewritten from, bind-mounted over it, "
	    "against FILE\n"
	    "      --keep-output      --measure: show the command's output in "
	    "every round\n"
	    "      --format FORMAT    text (default) or json: one object a line, "
	    "any mode\n"
	    "  -h, --help             print this help\n"
	    "  -V, --version          print the version\n\n"
	    "Exit status: 0 on success (also when there is nothing to do); "
	    "with --check, 1 if\nany file would be changed; with --compat, 1 "
	    "if one is fixable, 3 if one\nneeds a relink; rewriting and "
	    "--warm, 1 if a window that could be huge is\nnot; 2 if any file "
	    "failed, or a process given to --pid could not be read.  A\nnamed "
	    "file that is not ELF (or not a program) is skipped with a line "
	    "saying so,\nin every mode.\n");
}

static void
help(void)
{
	usage(stdout);
	help_options();
	help_modes();
}

/* "2M", "2MiB", "64k", "0x200000", "2097152". */
static int
parse_size(const char *arg, uint64_t *out)
{
	char buf[64];
	size_t len = strlen(arg);
	int64_t v;

	if (len == 0 || len >= sizeof(buf))
		return -1;
	memcpy(buf, arg, len + 1);
	if (len > 3 && strcasecmp(buf + len - 3, "iB") == 0)
		buf[len - 2] = '\0';
	if (dehumanize_number(buf, &v) != 0 || v <= 0)
		return -1;
	*out = (uint64_t)v;
	return 0;
}

/* --exclude PATTERN, repeatable: the patterns stay in argv. */
static void
add_exclude(struct options *o, const char *pattern)
{
	const char **v;

	if (*pattern == '\0')
		usage_error("--exclude: empty pattern");
	v = reallocarray(o->excludes, o->nexcludes + 1, sizeof(*v));
	if (v == NULL)
		usage_error("--exclude: %s", strerror(errno));
	v[o->nexcludes++] = pattern;
	o->excludes = v;
}

static void
set_mode(struct options *o, enum mode m)
{
	if (o->mode != MODE_REWRITE && o->mode != m)
		usage_error("--report, --check, --warm, --host, --pid and "
		    "--measure exclude each other");
	o->mode = m;
}

/* --pid all, or one more PID: every --pid counts, none replaces another. */
static void
add_pid(struct options *o, const char *arg)
{
	const char *errstr;
	long pid, *v;

	if (strcmp(arg, "all") == 0) {
		o->pid_all = true;
		return;
	}
	pid = (long)strtonum(arg, 1, INT32_MAX, &errstr);
	if (errstr != NULL)
		usage_error("--pid: '%s' is %s (a process id, or all)", arg,
		    errstr);
	if ((v = reallocarray(o->pids, o->npids + 1, sizeof(*v))) == NULL)
		usage_error("--pid: %s", strerror(errno));
	o->pids = v;
	o->pids[o->npids++] = pid;
}

static void
set_pairs(struct options *o, const char *arg)
{
	const char *errstr;

	if ((o->pairs_auto = strcmp(arg, "auto") == 0)) {
		o->pairs = 1000;
		return;
	}
	o->pairs = (size_t)strtonum(arg, 1, 1000, &errstr);
	if (errstr != NULL)
		usage_error("--pairs: '%s' is %s (1 to 1000, or auto)", arg,
		    errstr);
}

/* --layout: start splits, congruent (the default) only pads. */
static void
set_layout(struct options *o, const char *arg)
{
	if (strcmp(arg, "start") == 0)
		o->start_layout = true;
	else if (strcmp(arg, "congruent") == 0)
		o->start_layout = false;
	else
		usage_error("--layout: '%s' is not start or congruent", arg);
}

static void
parse_long(struct options *o, int ch, const char *arg)
{
	const char *errstr;

	switch (ch) {
	case OPT_PAGE_SIZE:
		if (parse_size(arg, &o->page_size) != 0 ||
		    (o->page_size != 4096 && o->page_size != 16384 &&
		    o->page_size != 65536))
			usage_error("--page-size: '%s' is not 4k, 16k or "
			    "64k", arg);
		break;
	case OPT_ALIGN:
		if (parse_size(arg, &o->align) != 0 || o->align < 4096 ||
		    (o->align & (o->align - 1)) != 0 ||
		    o->align > (UINT64_C(1) << 30))
			usage_error("--align: '%s' is not a power of two "
			    "from 4k to 1G", arg);
		break;
	case OPT_NO_SYNC: o->no_sync = true; break;
	case OPT_SYNC: o->sync = true; break;
	case OPT_WARM: set_mode(o, MODE_WARM); break;
	case OPT_HOST: set_mode(o, MODE_HOST); break;
	case OPT_LOCK_TIMEOUT:
		o->lock_timeout = (unsigned)strtonum(arg, 0, 86400, &errstr);
		if (errstr != NULL)
			usage_error("--lock-timeout: '%s' is %s (0 to 86400 "
			    "seconds)", arg, errstr);
		break;
	case OPT_BREAK_HARDLINKS: o->break_hardlinks = true; break;
	case OPT_COMPAT: o->compat = true; break;
	case OPT_NO_WARM: o->no_warm = true; break;
	case OPT_EXCLUDE: add_exclude(o, arg); break;
	case OPT_MEASURE: set_mode(o, MODE_MEASURE); break;
	case OPT_KEEP_OUTPUT: o->keep_output = true; break;
	case OPT_BEFORE: o->before = arg; break;
	case OPT_LAYOUT: set_layout(o, arg); break;
	case OPT_PAIRS: set_pairs(o, arg); break;
	case OPT_REPORT: set_mode(o, MODE_REPORT); break;
	case OPT_CHECK: set_mode(o, MODE_CHECK); break;
	case OPT_PID:
		set_mode(o, MODE_PID);
		add_pid(o, arg);
		break;
	case OPT_FORMAT:
		if (strcmp(arg, "text") == 0)
			o->format = FORMAT_TEXT;
		else if (strcmp(arg, "json") == 0)
			o->format = FORMAT_JSON;
		else
			usage_error("--format: '%s' is not text or json",
			    arg);
		break;
	}
}

/* -f LIST: kept in order; read once every option is known (-0). */
static void
add_list(struct options *o, char *list)
{
	char **v = reallocarray(o->lists, o->nlists + 1, sizeof(*v));
	size_t i;

	if (v == NULL)
		usage_error("-f %s: %s", list, strerror(errno));
	for (i = 0; i < o->nlists; i++)
		if (strcmp(list, "-") == 0 && strcmp(v[i], "-") == 0)
			usage_error("-f - is given twice: standard input "
			    "can be read only once");
	v[o->nlists++] = list;
	o->lists = v;
}

static void
parse_options(int argc, char **argv, struct options *o)
{
	const char *errstr;
	int ch;

	while ((ch = getopt_long(argc, argv, "0f:hj:no:qrvVx", longopts,
	    NULL)) != -1) {
		switch (ch) {
		case '0': o->nul_lists = true; break;
		case 'f': add_list(o, optarg); break;
		case 'n': o->dry_run = true; break;
		case 'o': o->output = optarg; break;
		case 'q': o->quiet = true; break;
		case 'r': o->recursive = true; break;
		case 'v': o->verbose++; break;
		case 'x': o->one_fs = true; break;
		case 'j':
			/*
			 * A build's parallelism, passed through by a package
			 * helper, may exceed the workers: more run MAX_JOBS,
			 * as the default does on a machine with more CPUs.
			 */
			o->jobs = (unsigned)strtonum(optarg, 1, MAX_JOBS_ASKED,
			    &errstr);
			if (errstr != NULL)
				usage_error("-j: '%s' is %s (1 to %d)",
				    optarg, errstr, MAX_JOBS_ASKED);
			break;
		case 'h': help(); exit(output_written(0));
		case 'V':
			printf("elfthp-align %s\n", ELFTHP_VERSION);
			exit(output_written(0));
		case '?':
			usage(stderr);
			exit(EXIT_USAGE);
		default:
			parse_long(o, ch, optarg);
		}
	}
}

/*
 * --measure [FILE ...] -- COMMAND: COMMAND is everything after the first
 * "--", cut off before the options are parsed, so that its own options
 * are never taken for ours.  *argc becomes the part before it.
 */
static void
split_command(int *argc, char **argv, struct options *o)
{
	bool measure = false;
	int i;

	for (i = 1; i < *argc && strcmp(argv[i], "--") != 0; i++)
		measure = measure || strcmp(argv[i], "--measure") == 0;
	if (!measure || i == *argc)
		return;
	o->command = argv + i + 1;
	argv[i] = NULL;
	*argc = i;
}

static void
validate_measure(const struct options *o, int nargs)
{
	if (o->command == NULL || o->command[0] == NULL)
		usage_error("--measure needs the command to run: elfthp-align "
		    "--measure [file ...] -- command [arg ...]");
	if (o->recursive || o->output || o->dry_run || o->nlists ||
	    o->nexcludes || o->page_size || o->align || o->jobs ||
	    o->no_sync || o->sync || o->no_warm)
		usage_error("--measure takes files and a command; -r, -o, -n, "
		    "-f, -j, --exclude, --page-size, --align and the write "
		    "options do not apply");
	if (o->before != NULL && nargs != 1)
		usage_error("--before ORIG compares ORIG with one file, the "
		    "one rewritten from it: elfthp-align --measure --before "
		    "ORIG FILE -- command [arg ...]");
}

/* Combinations that make no sense are refused before any file is read. */
static void
validate(const struct options *o, int nargs)
{
	bool rewriting = o->mode == MODE_REWRITE;

	if ((o->pairs || o->keep_output || o->before) &&
	    o->mode != MODE_MEASURE)
		usage_error("--pairs, --keep-output and --before go with "
		    "--measure");
	if (o->mode == MODE_MEASURE)
		return validate_measure(o, nargs);

	if (o->nexcludes > 0 && (o->mode == MODE_HOST || o->mode == MODE_PID))
		usage_error("--exclude applies to the modes that take files");
	if (o->mode == MODE_PID) {
		if (nargs != 0 || o->nlists != 0)
			usage_error("--pid takes no file arguments");
		if (o->pid_all && o->npids > 0)
			usage_error("--pid all already names every process");
		return;
	}
	if (o->nul_lists && o->nlists == 0)
		usage_error("-0 says how -f lists are separated: "
		    "find ... -print0 | elfthp-align -0 -f -");
	if (nargs == 0 && o->nlists == 0 && o->mode != MODE_HOST) {
		usage(stderr);
		exit(EXIT_USAGE);
	}
	if (!rewriting && (o->output != NULL || o->no_sync || o->sync ||
	    o->no_warm))
		usage_error("-o, --sync, --no-sync and --no-warm only apply "
		    "to rewriting");
	if (o->dry_run && !rewriting && o->mode != MODE_WARM)
		usage_error("-n applies to rewriting and --warm");
	if ((o->mode == MODE_WARM || o->mode == MODE_HOST) &&
	    (o->page_size != 0 || o->align != 0))
		usage_error("--page-size and --align do not apply to --warm "
		    "and --host: they use this host's PMD");
	if (o->sync && o->no_sync)
		usage_error("--sync and --no-sync exclude each other");
	if (o->mode == MODE_HOST && o->recursive)
		usage_error("--host takes files, not -r");
	if (o->output != NULL && (nargs != 1 || o->recursive || o->nlists))
		usage_error("-o takes exactly one input file");
	if (o->output != NULL && strcmp(o->output, "-") == 0)
		usage_error("-o -: the output is renamed into place, so it "
		    "must be a file, not standard output");
	if (o->break_hardlinks && (!rewriting || o->output != NULL))
		usage_error("--break-hardlinks applies to rewriting in "
		    "place");
	if (o->compat && (o->mode != MODE_CHECK || o->page_size == 0))
		usage_error("--compat goes with --check and --page-size: "
		    "elfthp-align --check --compat --page-size 16k path ...");
}

/*
 * The paths to run: the operands, then those of each -f list in order.
 * A list that cannot be read ends the run before any file is touched.
 */
static void
collect_paths(struct path_list *l, char **operands, size_t n,
    const struct options *o)
{
	char msg[PATH_MAX + 128];
	size_t i;

	for (i = 0; i < n; i++)
		if (path_list_add(l, operands[i]) != 0)
			usage_error("%s: %s", operands[i], strerror(errno));
	for (i = 0; i < o->nlists; i++)
		if (path_list_read(l, o->lists[i], o, msg, sizeof(msg)) != 0)
			usage_error("%s", msg);
}

/*
 * A closed descriptor 0, 1 or 2 would be handed to the next file opened,
 * and output printed to it would land in that file (an input, or the
 * temporary file renamed over a user's program).  Each closed one is
 * reopened onto /dev/null, as coreutils and OpenSSH do, so no file the
 * tool opens can be one of them (atomic_open checks).  The access mode is
 * the one its use cannot have: a write to a closed standard output still
 * fails with EBADF, and output nobody received stays a failure.
 */
static void
standard_fds_open(void)
{
	static const int unusable[] = { O_WRONLY, O_RDONLY, O_RDONLY };
	int fd;

	for (fd = STDIN_FILENO; fd <= STDERR_FILENO; fd++) {
		if (fcntl(fd, F_GETFD) != -1 || errno != EBADF)
			continue;
		/* The lowest free descriptor: fd itself. */
		if (open("/dev/null", unusable[fd]) != fd) {
			/* stdio cannot be trusted yet: no diag here. */
			dprintf(STDERR_FILENO, PROGRAM_NAME ": /dev/null: %s\n",
			    strerror(errno));
			_exit(EXIT_USAGE);
		}
	}
}

int
main(int argc, char **argv)
{
	struct options o = { .lock_timeout = 60 };
	struct path_list paths = { .v = NULL };
	int rc;

	standard_fds_open();
	/* err(3), errx(3) and getopt(3) name the program as invoked (a
	 * symlink, a path); every message names the tool. */
	program_invocation_name = program_invocation_short_name =
	    (char *)"elfthp-align";
	if (argc > 0)
		argv[0] = program_invocation_name;

	split_command(&argc, argv, &o);
	parse_options(argc, argv, &o);
	validate(&o, argc - optind);
	if (o.mode == MODE_MEASURE && o.pairs == 0)
		o.pairs = 5;
	if (elf_lib_init() != 0)
		usage_error("libelf is out of date");
	collect_paths(&paths, argv + optind, (size_t)(argc - optind), &o);
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (o.mode == MODE_PID)
		rc = pid_report(&o);
	else if (o.mode == MODE_MEASURE)
		rc = measure_report(paths.v, paths.n, o.command, &o);
	else if (o.mode == MODE_HOST)
		rc = host_report(paths.v, paths.n, &o);
	else
		rc = run_all(paths.v, paths.n, (size_t)(argc - optind), &o);
	path_list_free(&paths);
	free(o.lists);
	free(o.excludes);
	free(o.pids);
	return output_written(rc);
}
