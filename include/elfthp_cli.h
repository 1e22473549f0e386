/* SPDX-License-Identifier: BSD-2-Clause */
/* SPDX-FileCopyrightText: 2026 the elfthp-align authors */
/*
 * elfthp-align, the command line: options, the per-file driver
 * (process.c), the walk and its workers (runner.c), --host, --pid, and
 * the formatting of every mode's output (report.c, report_runtime.c).
 * Verdicts are made by the core; this layer only carries and prints them.
 */
#ifndef ELFTHP_CLI_H
#define ELFTHP_CLI_H

#include <stdio.h>

#include "elfthp_io.h"

/* main.c: every option lives here. */
#define MAX_JOBS ATOMIC_MAX_OPEN	/* -j: each worker holds one temp file */
/* --report's page-cache columns where the kernel would not show the cache. */
#define PAGE_CACHE_REFUSED "the kernel shows a file's page cache only to " \
	"a user who may write it: HUGE.NOW and HUGE.AFT are the model's"
/* --pid, where the windows a process has not run could be huge there. */
#define PID_CACHE_REFUSED "the kernel shows a file's page cache only to " \
	"a user who may write it, so whether the windows the process has " \
	"not run are huge there cannot be told"
/* --warm -n's page-cache verdicts where the kernel would not show the cache. */
#define WARM_CACHE_REFUSED "the kernel shows a file's page cache only to " \
	"a user who may write it: which windows are huge now, and what " \
	"--warm would read, cannot be seen; run as its owner or as root"
#define MAX_JOBS_ASKED 65536	/* -j takes up to this; above MAX_JOBS runs MAX_JOBS */
enum mode { MODE_REWRITE, MODE_REPORT, MODE_CHECK, MODE_PID, MODE_WARM,
	MODE_HOST, MODE_MEASURE };
enum format { FORMAT_TEXT, FORMAT_JSON };

struct options {
	enum mode mode;
	enum format format;
	bool dry_run;
	bool quiet;
	bool recursive;
	bool one_fs;		/* -x: stay on the device of each argument */
	bool no_sync;		/* --no-sync: in place, no fsync before the rename */
	bool break_hardlinks;	/* in place: replace this name of several */
	bool compat;		/* --check --compat: page-size compatibility */
	bool sync;		/* --sync: -o too fsyncs before the rename */
	bool no_warm;		/* --no-warm: the rewrite skips the page cache */
	bool start_layout;	/* --layout start: split (docs/rewrite.md);
				   false, the default: --layout congruent,
				   because GNU strip after a split breaks
				   the file */
	bool nul_lists;		/* -0: -f lists are NUL-separated */
	int verbose;
	unsigned jobs;
	unsigned lock_timeout;	/* seconds to wait for another run's lock */
	long *pids;		/* --pid, in the order given */
	size_t npids;
	bool pid_all;		/* --pid all: every user process */
	const char *output;
	const char **excludes;	/* --exclude patterns (fnmatch) */
	size_t nexcludes;
	uint64_t page_size;	/* 0: the machine's default */
	uint64_t align;		/* 0: from machine and page size */
	char **lists;		/* -f FILE ..., in the order given */
	size_t nlists;
	size_t pairs;		/* --measure: pairs of counted rounds */
	bool pairs_auto;	/* --pairs auto: up to pairs, until the
				   interval is narrow (measure.c) */
	bool keep_output;	/* --measure: COMMAND's output in every round */
	const char *before;	/* --measure --before ORIG: the original of
				   the one FILE, for the before-after rounds */
	char **command;		/* --measure: after "--" */
};

/* path_list.c: -f FILE and -0, paths read from a list. */
struct path_list {
	char **v;
	size_t n;
	size_t cap;
};
int path_list_add(struct path_list *, const char *path);
int path_list_read(struct path_list *, const char *file,
    const struct options *, char *err, size_t errlen);
void path_list_free(struct path_list *);

/* process.c: one file through the passes.  A file a walk found (-r) is
 * worked on below the directory the walk opened for the argument root
 * (checked to be the same directory, by device and inode), at rel. */
struct walk_ref {
	const char *root;	/* the argument, as given */
	dev_t dev;
	ino_t ino;
	const char *rel;	/* below it: "sub/prog" */
};
enum file_class process_file(const char *name, const struct options *,
    FILE *out, FILE *err, const struct walk_ref *walk);

/*
 * A file of several hard links, as the run found it (runner.c groups the
 * run's names by st_dev and st_ino before any work starts).  found ==
 * st_nlink: every name is in the run, and its first name rewrites the
 * file once for all of them (others: the rest); found < st_nlink: a name
 * is elsewhere, and no name of it is replaced.
 */
struct link_name {
	const char *name;		/* as shown */
	const struct walk_ref *walk;	/* walked, or NULL: named or listed */
};
struct link_group {
	size_t found;			/* distinct names of the file in the run */
	const struct link_name *others;	/* for the first name: the others */
	size_t nothers;
};
/* How the run came to a file: named, from a -f list, or walked. */
struct file_ref {
	const char *name;
	const struct walk_ref *walk;	/* walked (-r), or NULL */
	bool listed;			/* from a -f list */
	const struct link_group *links;	/* several names, or NULL */
};
enum file_class process_file_ref(const struct file_ref *,
    const struct options *, FILE *out, FILE *err);
void report_linked(FILE *, const struct options *, const char *name,
    const char *first, size_t names, enum file_class);

/* runner.c: walk the arguments, run the files (in parallel), print in order. */
/* paths[0..nnamed) were named on the command line, the rest came from
 * -f lists. */
int run_all(char **paths, size_t npaths, size_t nnamed,
    const struct options *);

/* measure.c: --measure. */
int measure_report(char **paths, size_t npaths, char **cmd,
    const struct options *);

/* host.c: --host. */
int host_report(char **paths, size_t npaths, const struct options *);

/* cli/pid_mode.c: --pid, the scan's rows grouped by file and printed. */
struct pid_summary {
	size_t processes;	/* measured */
	size_t files;		/* distinct files in the rows */
	uint64_t huge_bytes;	/* per file, once */
	uint64_t missed_bytes;
	size_t fixes[FIX_LAST + 1];	/* files, by their fix */
	size_t kernel_threads;	/* skipped by --pid all */
	size_t zombies;
	const struct pid_unread *unread;
	size_t nunread;
	bool all;
};
int pid_report(const struct options *);


/* json_out.c: one JSON object per line, a member at a time. */
#define JSON_SCHEMA 1		/* the "schema" of every line (man page) */
#define JSON_MAX_DEPTH 8
struct json {
	FILE *f;
	unsigned depth;
	bool first[JSON_MAX_DEPTH];
	char closer[JSON_MAX_DEPTH];
};
void json_begin(struct json *, FILE *, const char *mode);
void json_end(struct json *);
void json_object(struct json *, const char *key);	/* key NULL in arrays */
void json_array(struct json *, const char *key);
void json_close(struct json *);
void json_str(struct json *, const char *key, const char *);
void json_u64(struct json *, const char *key, uint64_t);
void json_i64(struct json *, const char *key, int64_t);
void json_bool(struct json *, const char *key, bool);
void json_double(struct json *, const char *key, double);
void json_string(FILE *, const char *);

/* cli/format.c: the words the formatters share. */
const char *mode_name(const struct options *);
const char *class_text(enum file_class);
void format_size(char *, size_t, uint64_t);
/* The longest path shell_word quotes: every byte a ' (4 bytes), quotes. */
#define SHELL_WORD_MAX (4 * 4096 + 3)
int shell_word(char *, size_t, const char *);
/* report.c, cli/report_check.c, cli/report_runtime.c: formatting only. */
void report_rewrite(FILE *, const struct options *, const char *name,
    const struct elf_layout *, const struct plan *,
    const struct warm_result *cache);
void report_plan_table(FILE *, const struct elf_layout *, const struct plan *);
void report_impact(FILE *, const struct options *, const char *name,
    const struct elf_layout *, const struct plan *,
    const struct geometry *own, const struct geometry_impact *, size_t n,
    const struct warm_result *cache);
void report_other(FILE *, const struct options *, const char *name,
    enum file_class, const char *message);
void finding_message(char *, size_t, const struct elf_layout *,
    const struct finding *);
void report_check(FILE *, const struct options *, const char *name,
    const struct elf_layout *, const struct plan *, const struct finding *,
    size_t n, size_t total, enum file_class);
void report_check_not_done(FILE *, const struct options *, const char *name,
    uintmax_t links, size_t found);
void findings_json(struct json *, const struct options *, const char *name,
    const struct elf_layout *, const struct finding *, size_t n);
void report_compat(FILE *, const struct options *, const char *name,
    const struct elf_layout *, uint64_t page, const struct finding *,
    size_t n, size_t total, enum file_class);
void report_warm(FILE *, const struct options *, const char *name,
    const struct warm_result *, enum file_class, const uint8_t *states,
    uint64_t nranges);
void warm_outcome_text(FILE *, const struct warm_result *, bool rewriting,
    bool written);
void cache_how_text(FILE *, const struct warm_result *);
void warm_json_fields(struct json *, const struct warm_result *);
void report_pid_file(FILE *, const struct options *, const struct pid_row *,
    size_t n);
void report_pid_summary(FILE *, const struct options *,
    const struct pid_summary *);
void report_pid_message(FILE *, const struct options *, long pid,
    const char *status, const char *message);
/* cli/archive_check.c: --check --compat on an APK, app bundle or zip. */
bool archive_named(const char *name, int fd, bool walked);
enum file_class archive_check(int fd, const char *name,
    const struct options *, FILE *out, FILE *err);
struct host_facts;
void report_host(FILE *, const struct options *, const struct host_facts *);

#endif
