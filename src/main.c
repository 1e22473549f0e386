/*
 * elfthp-align: make large read-only PT_LOAD segments eligible for
 * PMD-sized transparent huge pages, in the file, for unmodified kernels.
 *
 * main parses options into one struct, then hands each file to
 * process_file(), which runs the passes in order: open, read, plan, write.
 * Each file's status is combined into the exit status, so one bad file
 * neither stops nor hides the others.
 */
#include <bsd/stdlib.h>
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "elfthp.h"

#define EXIT_FAILED 2
#define LOCK_TRIES 10

enum { OPT_PAGE_SIZE = 256, OPT_ALIGN };

static const struct option longopts[] = {
	{ "dry-run", no_argument, NULL, 'n' },
	{ "output", required_argument, NULL, 'o' },
	{ "quiet", no_argument, NULL, 'q' },
	{ "verbose", no_argument, NULL, 'v' },
	{ "page-size", required_argument, NULL, OPT_PAGE_SIZE },
	{ "align", required_argument, NULL, OPT_ALIGN },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	{ NULL, 0, NULL, 0 },
};

/* One file on its way through the passes. */
struct job {
	const char *name;	/* as the user gave it, for messages */
	char *path;		/* symlinks resolved: the file we replace */
	int fd;
	struct stat st;
	struct elf_layout layout;
	struct plan plan;
	char err[512];
};

static void
usage(FILE *f)
{
	fprintf(f, "usage: elfthp-align [-nqv] [-o output] "
	    "[--page-size 4k|16k|64k] [--align size] file ...\n");
}

static void
help(void)
{
	usage(stdout);
	printf("\nPad ELF executables and shared libraries so that large "
	    "read-only segments\ncan be mapped with huge pages.\n\n"
	    "  -n, --dry-run          print the plan, write nothing\n"
	    "  -o, --output FILE      write to FILE, leave the input alone "
	    "(one input only)\n"
	    "  -q, --quiet            print nothing for files that succeed\n"
	    "  -v, --verbose          print the segment table of each file\n"
	    "      --page-size SIZE   base page of the target machine: 4k, "
	    "16k or 64k\n"
	    "      --align SIZE       alignment for eligible segments "
	    "(default: the PMD)\n"
	    "  -h, --help             print this help\n"
	    "  -V, --version          print the version\n\n"
	    "Exit status: 0 on success (also when there is nothing to do), "
	    "2 if any file failed.\n");
}

static int
file_error(struct job *j, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "elfthp-align: %s: ", j->name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return EXIT_FAILED;
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

static bool
is_pow2(uint64_t x)
{
	return x != 0 && (x & (x - 1)) == 0;
}

static void
parse_options(int argc, char **argv, struct options *o)
{
	int ch;

	while ((ch = getopt_long(argc, argv, "hno:qvV", longopts, NULL)) != -1) {
		switch (ch) {
		case 'n': o->dry_run = true; break;
		case 'o': o->output = optarg; break;
		case 'q': o->quiet = true; break;
		case 'v': o->verbose++; break;
		case 'h': help(); exit(0);
		case 'V': printf("elfthp-align %s\n", ELFTHP_VERSION); exit(0);
		case OPT_PAGE_SIZE:
			if (parse_size(optarg, &o->page_size) != 0 ||
			    (o->page_size != 4096 && o->page_size != 16384 &&
			    o->page_size != 65536))
				errx(EXIT_FAILED, "--page-size: '%s' is not 4k, "
				    "16k or 64k", optarg);
			break;
		case OPT_ALIGN:
			if (parse_size(optarg, &o->align) != 0 ||
			    !is_pow2(o->align) || o->align < 4096 ||
			    o->align > (UINT64_C(1) << 30))
				errx(EXIT_FAILED, "--align: '%s' is not a power "
				    "of two from 4k to 1G", optarg);
			break;
		default:
			usage(stderr);
			exit(EXIT_FAILED);
		}
	}
}

static bool
same_file(const struct stat *a, const struct stat *b)
{
	return a->st_dev == b->st_dev && a->st_ino == b->st_ino;
}

/*
 * Open the input.  For an in-place rewrite, take an exclusive lock and make
 * sure the name still points at the locked file, so that two runs on one
 * file take turns and the second finds the first one's result.
 */
static int
open_input(struct job *j, bool lock)
{
	struct stat now;
	int tries;

	if ((j->path = realpath(j->name, NULL)) == NULL)
		return file_error(j, "%s", strerror(errno));
	for (tries = 0; tries < LOCK_TRIES; tries++) {
		/* Refuse devices and FIFOs before open() can act on them. */
		if (stat(j->path, &now) != 0)
			return file_error(j, "%s", strerror(errno));
		if (!S_ISREG(now.st_mode))
			return file_error(j, "not a regular file");
		j->fd = open(j->path, O_RDONLY | O_NONBLOCK | O_NOCTTY |
		    O_CLOEXEC);
		if (j->fd < 0)
			return file_error(j, "%s", strerror(errno));
		if (lock && flock(j->fd, LOCK_EX) != 0)
			return file_error(j, "lock: %s", strerror(errno));
		if (fstat(j->fd, &j->st) != 0)
			return file_error(j, "%s", strerror(errno));
		if (!S_ISREG(j->st.st_mode))
			return file_error(j, "not a regular file");
		if (stat(j->path, &now) == 0 && same_file(&now, &j->st))
			return 0;
		close(j->fd);
		j->fd = -1;
	}
	return file_error(j, "keeps being replaced by another process");
}

static int
read_and_plan(struct job *j, const struct options *o)
{
	struct plan_params params;
	struct plan_error perr;
	const char *why;

	if (layout_read(j->fd, &j->layout, j->err, sizeof(j->err)) != READ_OK)
		return file_error(j, "%s", j->err);
	if (params_for(j->layout.machine, o->page_size, o->align, &params,
	    &why) != 0)
		return file_error(j, "%s: %s", machine_name(j->layout.machine),
		    why);
	if (plan_build(&j->layout, &params, &j->plan, &perr) != 0) {
		plan_strerror(&perr, j->err, sizeof(j->err));
		return file_error(j, "%s", j->err);
	}
	return 0;
}

/* Nothing may have touched the input between reading and renaming. */
static bool
input_unchanged(const struct job *j, bool in_place)
{
	struct stat now;

	if (fstat(j->fd, &now) != 0 || now.st_size != j->st.st_size ||
	    now.st_mtim.tv_sec != j->st.st_mtim.tv_sec ||
	    now.st_mtim.tv_nsec != j->st.st_mtim.tv_nsec ||
	    now.st_ctim.tv_sec != j->st.st_ctim.tv_sec ||
	    now.st_ctim.tv_nsec != j->st.st_ctim.tv_nsec)
		return false;
	return !in_place || (stat(j->path, &now) == 0 &&
	    same_file(&now, &j->st));
}

static int
write_new(struct job *j, const char *final, bool in_place)
{
	struct atomic_file a;

	if (atomic_open(&a, final, j->err, sizeof(j->err)) != 0)
		return file_error(j, "%s", j->err);
	if ((j->plan.changed ? rewrite_to_fd(j->fd, a.fd, &j->layout,
	    &j->plan, j->err, sizeof(j->err)) : copy_whole(j->fd, a.fd,
	    j->layout.file_size, j->err, sizeof(j->err))) != 0 ||
	    atomic_copy_metadata(&a, j->fd, in_place, j->err,
	    sizeof(j->err)) != 0) {
		atomic_abort(&a);
		return file_error(j, "%s", j->err);
	}
	if (!input_unchanged(j, in_place)) {
		atomic_abort(&a);
		return file_error(j, "changed while being rewritten; left as "
		    "it was");
	}
	if (atomic_commit(&a, j->err, sizeof(j->err)) != 0)
		return file_error(j, "%s", j->err);
	return 0;
}

/* Where -o writes: through a symlink, never over the input itself. */
static int
output_path(struct job *j, const char *output, char **final)
{
	struct stat st;

	*final = NULL;
	if (stat(output, &st) != 0) {
		if (errno != ENOENT)
			return file_error(j, "%s: %s", output, strerror(errno));
		*final = strdup(output);
	} else if (!S_ISREG(st.st_mode)) {
		return file_error(j, "%s: not a regular file", output);
	} else if (same_file(&st, &j->st)) {
		return file_error(j, "%s is the input itself; leave out -o "
		    "to rewrite in place", output);
	} else {
		*final = realpath(output, NULL);
	}
	if (*final == NULL)
		return file_error(j, "%s: %s", output, strerror(errno));
	return 0;
}

static int
write_result(struct job *j, const struct options *o)
{
	char *final = NULL;
	int rc;

	if (o->output == NULL && j->st.st_nlink > 1)
		return file_error(j, "has %ju hard links; replacing it would "
		    "split them (write elsewhere with -o)",
		    (uintmax_t)j->st.st_nlink);
	if (o->output != NULL && output_path(j, o->output, &final) != 0)
		return EXIT_FAILED;
	rc = write_new(j, final ? final : j->path, o->output == NULL);
	free(final);
	return rc;
}

static void
show(const struct job *j, const struct options *o, bool dry_run)
{
	char name[1024];

	if (o->quiet && !dry_run)
		return;
	if (o->output != NULL && !dry_run)
		snprintf(name, sizeof(name), "%s -> %s", j->name, o->output);
	else
		snprintf(name, sizeof(name), "%s", j->name);
	report_result(stdout, name, &j->layout, &j->plan, dry_run);
	if (dry_run || o->verbose > 0)
		report_plan_table(stdout, &j->layout, &j->plan);
}

static int
process_file(const char *name, const struct options *o)
{
	struct job j = { .name = name, .fd = -1 };
	bool in_place = !o->dry_run && o->output == NULL;
	int rc;

	rc = open_input(&j, in_place);
	if (rc == 0)
		rc = read_and_plan(&j, o);
	if (rc == 0 && !o->dry_run && (j.plan.changed || o->output != NULL))
		rc = write_result(&j, o);
	if (rc == 0)
		show(&j, o, o->dry_run);
	plan_free(&j.plan);
	layout_free(&j.layout);
	if (j.fd >= 0)
		close(j.fd);	/* also drops the lock */
	free(j.path);
	return rc;
}

int
main(int argc, char **argv)
{
	struct options o = { 0 };
	int i, result = 0;

	parse_options(argc, argv, &o);
	if (optind == argc) {
		usage(stderr);
		return EXIT_FAILED;
	}
	if (o.output != NULL && argc - optind != 1)
		errx(EXIT_FAILED, "-o takes exactly one input file");
	if (elf_lib_init() != 0)
		errx(EXIT_FAILED, "libelf is out of date");
	setvbuf(stdout, NULL, _IOLBF, 0);
	for (i = optind; i < argc; i++)
		result |= process_file(argv[i], &o);
	return result ? EXIT_FAILED : 0;
}
