/* SPDX-License-Identifier: BSD-2-Clause */
/* SPDX-FileCopyrightText: 2026 the elfthp-align authors */
/*
 * elfthp-align, the I/O layer: reading headers (the only code that
 * touches libelf, and it keeps <libelf.h> to itself), writing the new
 * file atomically, and the page-cache and file-system primitives that
 * --warm and --host use.
 */
#ifndef ELFTHP_IO_H
#define ELFTHP_IO_H

#include <stdarg.h>
#include <stdio.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "elfthp_core.h"

#define PRINTF_LIKE(f, a) __attribute__((format(printf, f, a)))

/* error_text.c: a message in err[n], and -1; diag prints one. */
#define PROGRAM_NAME "elfthp-align"
int error_text(char *err, size_t n, const char *fmt, ...) PRINTF_LIKE(3, 4);
int verror_text(char *err, size_t n, const char *fmt, va_list)
    PRINTF_LIKE(3, 0);
void diag(FILE *, const char *file, const char *fmt, ...) PRINTF_LIKE(3, 4);
void vdiag(FILE *, const char *file, const char *fmt, va_list)
    PRINTF_LIKE(3, 0);

/* elf_read.c: the read pass. */
enum read_status {
	READ_OK = 0,
	READ_NOT_ELF,		/* not an ELF file at all */
	READ_NOT_APPLICABLE,	/* ELF, but not ET_EXEC or ET_DYN */
	READ_MALFORMED,
	READ_SYSERR,
};
int elf_lib_init(void);
enum read_status layout_read(int fd, struct elf_layout *, char *, size_t);
enum read_status layout_read_range(int fd, uint64_t off, uint64_t size,
    struct elf_layout *, char *, size_t);
enum read_status layout_read_mem(const void *, size_t, struct elf_layout *,
    char *, size_t);
void layout_free(struct elf_layout *);

/*
 * zip_read.c: an APK, app bundle or zip (libzip, and the central
 * directory read here for the data offsets).  Built with -DELFTHP_NO_ZIP
 * (make WITH_LIBZIP=0), zip_listing_read refuses every archive.
 */
/* The most bytes one compressed entry is inflated to (docs/android.md). */
#define ZIP_INFLATE_MAX	(UINT64_C(256) << 20)
struct zip_listing {
	struct archive_entry *entries;	/* in central-directory order */
	size_t count;
	bool bundle;		/* an app bundle: BundleConfig.pb at its root */
	int fd;			/* the archive, not owned */
	uint64_t size;		/* its size */
	void *za;		/* libzip's handle, or NULL */
};
bool zip_magic(int fd);
enum read_status zip_listing_read(int fd, struct zip_listing *, char *,
    size_t);
enum read_status zip_entry_layout(struct zip_listing *, size_t i,
    struct elf_layout *, char *, size_t);
void zip_listing_free(struct zip_listing *);

/* phdr_rewrite.c: the write pass (bytes and headers). */
enum copy_how {
	COPY_LARGE_WRITES,	/* write()s of whole PMD ranges: huge folios */
	COPY_IN_KERNEL,		/* FICLONE, copy_file_range: no huge folios */
};
int rewrite_to_fd(int in_fd, int out_fd, const struct elf_layout *,
    const struct plan *, enum copy_how, char *, size_t);
int copy_whole(int in_fd, int out_fd, uint64_t size, enum copy_how, char *,
    size_t);

/* atomic_file.c: temporary file, metadata, rename. */
/* Temporary files open at once (one per worker: MAX_JOBS is this). */
#define ATOMIC_MAX_OPEN 64
struct atomic_file {
	int dfd;		/* the directory: the caller's, not closed here */
	char *final_name;	/* names in dfd */
	char *tmp_name;
	char *shown;		/* the final file, as messages name it */
	dev_t dev;		/* the temporary file: its name is removed or */
	ino_t ino;		/* renamed only while it is still this file */
	int fd;
	bool durable;
	FILE *notes;		/* warnings that do not stop the write */
};
int atomic_open(struct atomic_file *, int dfd, const char *final_name,
    const char *shown, FILE *notes, char *, size_t);
bool is_temp_name(const char *);
int atomic_copy_metadata(struct atomic_file *, int src_fd, bool owner_required,
    char *, size_t);
int atomic_sync(struct atomic_file *, bool durable, char *, size_t);
int atomic_reopen_read(const struct atomic_file *, char *, size_t);
int atomic_rename(struct atomic_file *, char *, size_t);
/* Remove the temporary file and free: idempotent, and a no-op after
 * atomic_rename succeeded.  Every failing atomic_* call has called it. */
void atomic_abort(struct atomic_file *);

/* For atomic_links.c: the pieces of atomic_file.c it shares. */
struct atomic_links;
struct signal_hold {
	sigset_t old;
	bool on;
};
void atomic_hold_signals(struct signal_hold *);
void atomic_release_signals(struct signal_hold *);
int atomic_links_publish(struct atomic_links *);
void atomic_links_unpublish(struct atomic_links *);
int atomic_link_temp(const struct atomic_file *, int dfd, char *name);
char *atomic_temp_name(const char *final_name);
void atomic_sweep(int dfd, const char *shown, FILE *notes);
void atomic_dir_sync(int dfd);

/*
 * atomic_links.c: one new file for every name of a file with hard links.
 * The new file (first, from atomic_open, synced) gets a temporary name
 * beside each other name (atomic_links_add), then every temporary name is
 * renamed over its name in one phase that signals wait for
 * (atomic_links_rename).  Each name must still be the old file (old_dev,
 * old_ino) when it is linked and when it is renamed.  Every failing call
 * has removed every temporary name and aborted first, as atomic_* calls
 * do; atomic_links_abort does that (idempotent).
 */
struct atomic_link {
	int dfd;		/* the name's directory: taken, closed here */
	char *final_name;
	char *tmp_name;
	char *shown;		/* the name, as messages give it */
};
struct atomic_links {
	struct atomic_file *first;
	dev_t old_dev;		/* the file every name must still be */
	ino_t old_ino;
	dev_t new_dev;		/* the new file: a temporary name is removed */
	ino_t new_ino;		/* only while it is still this one */
	struct atomic_link *v;
	size_t n;		/* v[0..n) linked (the signal handler reads it) */
	size_t cap;
	FILE *notes;
};
int atomic_links_begin(struct atomic_links *, struct atomic_file *first,
    const struct stat *old, size_t others, char *, size_t);
int atomic_links_add(struct atomic_links *, int dfd, const char *final_name,
    const char *shown, char *, size_t);
int atomic_links_rename(struct atomic_links *, char *, size_t);
void atomic_links_abort(struct atomic_links *);

/* fs_info.c: reading those facts. */
int fs_identify(const char *path, struct fs_info *, const char **failed);
int fs_identify_fd(int fd, struct fs_info *, const char **failed);
int host_kernel(char *release, size_t, struct kernel_version *);
int thp_setting(const char *name, char *, size_t);
enum tri kernel_config(const char *option, const char *release, char *where,
    size_t, int *error, bool *absent);
const char *host_glibc(void);
struct kernel_version host_kernel_version(void);
enum tri host_ro_thp_for_fs(void);
/* collapse_fs.c: MADV_COLLAPSE on a read-only mapping of a regular file,
 * asked of the open file itself, writing nothing. */
enum tri collapse_fs_measure(int fd, uint64_t pmd, const char **failed);
enum tri collapse_fs_expect(int fd, uint64_t pmd, enum tri expected);
int host_ro_thp_error(const char **what);
int fs_expect_path(const char *path, struct fs_info *, struct fs_expect *);
int fs_expect_fd(int fd, struct fs_expect *);

/* pagecache.c: page-cache primitives. */
struct pc_map {
	void *reserve;
	size_t reserve_len;
	unsigned char *addr;	/* PMD-aligned */
	size_t len;
	const char *failed;	/* pc_map failed: the call ("mmap") */
};
int host_pmd_read(uint64_t *);
int placement_by_offset(int fd, uint64_t pmd, uint64_t page, bool *placed);
uint64_t host_pmd_size(void);
uint64_t host_page_size(void);
uint16_t host_machine(void);
int pc_map(int fd, uint64_t off, uint64_t len, uint64_t pmd, bool hugepage,
    struct pc_map *);
void pc_unmap(struct pc_map *);
int pc_resident(const struct pc_map *, uint64_t page, uint64_t *pages);
int pc_resident_at(const struct pc_map *, uint64_t off, uint64_t len,
    uint64_t page, uint64_t *pages);
int pc_cached(int fd, int map_fd, uint64_t off, uint64_t len, uint64_t pmd,
    uint64_t page, uint64_t *pages);
int pc_cachestat(int fd, uint64_t off, uint64_t len, uint64_t *pages);
int pc_cachestat_unclean(int fd, uint64_t off, uint64_t len,
    uint64_t *pages);
int pc_populate(const struct pc_map *);
int pc_populate_at(const struct pc_map *, uint64_t off, uint64_t len);
int pc_collapse(const struct pc_map *);
int pc_drop(int fd, uint64_t off, uint64_t len);
int pc_pmd_mapped(const struct pc_map *, uint64_t *bytes, const char **what);
bool pc_no_scan(int e);
int pc_pmd_mapped_at(const struct pc_map *, uint64_t off, uint64_t len,
    uint64_t *bytes);
int pc_can_look(const char **what);
int pc_thread_read_bytes(uint64_t *bytes);
void pc_comm(long pid, char *, size_t);
struct stat;

/*
 * pc_view.c: where an open file's page cache is (overlayfs keeps none of
 * its own), and the dev:ino pairs its mappers show in /proc/PID/maps.
 */
#define PC_MAX_IDENTS 3
struct pc_ident {
	uint64_t dev;
	uint64_t ino;
};
struct pc_view {
	int fd;			/* the file as opened: mmap goes through it */
	int real_fd;		/* overlayfs: the real file, or -1 */
	bool overlay;		/* fd is on overlayfs */
	bool via_mapping;	/* count the cache with mincore on mappings */
	bool blind;		/* ... which lies to this user: no count */
	struct pc_ident ids[PC_MAX_IDENTS];
	size_t nids;
	const char *how;	/* overlayfs: which way was used (-v) */
	const char *real_why;	/* overlayfs, real_fd -1: why */
};
int pc_view_open(int fd, uint64_t page, struct pc_view *, const char **failed);
void pc_view_close(struct pc_view *);
int pc_view_cache_fd(const struct pc_view *);
int pc_view_cached(const struct pc_view *, uint64_t off, uint64_t len,
    uint64_t pmd, uint64_t page, uint64_t *pages);
int pc_view_unclean(const struct pc_view *, uint64_t off, uint64_t len,
    uint64_t *pages);
int pc_find_mappers(const struct pc_view *, uint64_t off, uint64_t len,
    long *pids, size_t max, size_t *count, size_t *unreadable);

/* warm.c: --warm, one file; fills a struct warm_result (elfthp_core.h). */
int warm_file(int fd, const char *path, const struct warm_plan *,
    const struct warm_request *, struct warm_result *, char *err, size_t);

/* host_probe.c: --host's facts and probes; cli/host.c says what failed. */
#define HOST_MAX_UNREAD 8
struct host_path {
	const char *path;
	int error;		/* the path cannot be looked at: errno */
	const char *what;	/* and what failed ("stat") */
	struct fs_info fs;
	struct fs_expect expect;
	struct fs_probe probe;
	enum fs_outcome outcome;
	char sentence[384];
	enum tri collapse;	/* MADV_COLLAPSE of a read-only mapping of a
				   file here (collapse_fs.c, measured) */
	enum tri khugepaged;	/* khugepaged collapses program text here
				   (host_khugepaged's rule) */
};
struct host_facts {
	char kernel[128];
	struct kernel_version version;
	char thp_enabled[32];
	char thp_defrag[32];
	char thp_shmem[32];
	enum tri ro_thp_for_fs;
	bool ro_thp_absent;	/* the config has no such option at all */
	char config_where[320];
	enum tri collapse_files;	/* MADV_COLLAPSE on regular files */
	const char *collapse_where;	/* the path that measured it, or NULL */
	const char *glibc;
	bool glibc_aligns;	/* 2.35 or later: p_align places libraries */
	char thp_version[32];	/* glibc's version (ELFTHP_GLIBC_ROOT's) */
	struct glibc_thp_facts thp;	/* glibc.elf.thp (glibc_probe.c) */
	struct glibc_thp_verdict thp_verdict;
	char thp_sentence[512];
	long khp_pages;		/* khugepaged/pages_to_scan, -1 unread */
	long khp_sleep_ms;	/* khugepaged/scan_sleep_millisecs, -1 */
	struct host_path *paths;
	size_t npaths;
	struct {
		char where[320];	/* a fact that could not be read */
		int error;
	} unread[HOST_MAX_UNREAD];
	size_t nunread;
};
int host_facts_read(struct host_facts *);
void host_probe_path(struct host_path *, const struct host_facts *,
    uint64_t pmd);
bool host_probe_broke(const struct fs_probe *);
void host_collapse_measured(struct host_facts *, const struct host_path *);
void host_thp_advice(struct host_facts *);
enum tri host_khugepaged(const struct host_facts *, enum tri collapse);

/* glibc_probe.c: glibc.elf.thp's facts (ELFTHP_GLIBC_ROOT: another root). */
int glibc_thp_read(struct glibc_thp_facts *, char *version, size_t,
    char *where, size_t);

/* pid_scan.c: --pid's measurements.  One row per file a process maps,
 * measured and decided (pid_verdict.c); cli/pid_mode.c groups and prints. */
struct pid_row {
	long pid;
	char comm[20];		/* /proc/PID/comm */
	const char *path;	/* as the mapping names it, " (deleted)" cut */
	const char *here;	/* what names that file from this process's
				   root and mount namespace: path, or
				   /proc/PID/root and path; NULL: nothing */
	char dev[16];
	uint64_t inode;
	char fs_type[32];	/* its file system's type; "" unknown */
	struct pid_facts facts;
	struct pid_verdict verdict;
	uint64_t pmd_mapped;	/* FilePmdMapped + ShmemPmdMapped, bytes */
	uint64_t resident;	/* Rss of its mappings, bytes */
	uint64_t rss_if_huge;	/* more Rss if the resident windows were huge */
};
/* A process --pid could not read (vanished, EACCES), or skipped. */
struct pid_unread {
	long pid;
	char message[160];
};
/* Something the scan met that the CLI prints, in order. */
struct pid_note {
	long pid;		/* 0: no process concerned */
	const char *kind;	/* "error" (stderr, exit 2), "kernel-thread",
				   "zombie" */
	char message[4608];
};
#define PID_MAX_UNREAD 16
struct pid_scan {
	struct pid_row *rows;
	size_t nrows;
	struct pid_note *notes;
	size_t nnotes;
	size_t notes_cap;
	size_t notes_lost;	/* notes that found no memory */
	struct pid_unread unread[PID_MAX_UNREAD];
	size_t nunread;		/* counted; the first PID_MAX_UNREAD named */
	size_t processes;
	size_t kthreads;
	size_t zombies;
	int rc;			/* 2: some note is an error */
	void *known;		/* the scan's own: the files read, freed */
	size_t nknown;
};
void pid_scan(const long *pids, size_t npids, bool all, struct pid_scan *);
void pid_scan_free(struct pid_scan *);

/* A long path as messages quote it: its tail after *dots ("..." or ""). */
const char *path_shown(const char *s, const char **dots);

/* dirfd.c: the directory a file is worked on through (a new descriptor,
 * or -1 with the reason in err). */
int dir_open_beneath(int start, const char *rel, size_t len, char *err,
    size_t n);
int dir_open_walked(const char *root, dev_t dev, ino_t ino,
    const char *rel_dir, size_t len, char *err, size_t n);
/* A path the tool is given, resolved: symlinks followed only when root's
 * or the caller's (dirfd.c has the rule). */
struct resolved {
	int fd;		/* O_PATH: the file's directory, or (whole) the file */
	char *path;	/* every symlink resolved */
	const char *base;	/* path_parent: the file's name in fd */
};
int path_parent(const char *path, struct resolved *, char *err, size_t n);
int path_whole(const char *path, struct resolved *, char *err, size_t n);
void resolved_free(struct resolved *);

/* dest.c: the in-place lock and the rules for where -o writes. */
struct open_request {
	const char *name;	/* as the user gave it, for the notes */
	int dfd;		/* the directory it is in (dirfd.c) */
	const char *base;	/* its name there */
	bool nofollow;		/* walked or resolved: a symlink is refused */
	bool lock;		/* in place: take turns with other runs */
	unsigned lock_timeout;	/* seconds */
	FILE *notes;		/* "waiting for another elfthp-align" */
};
int dest_open_input(const struct open_request *, int *fd, struct stat *,
    char *err, size_t);
int dest_output_path(const char *output, const struct stat *input,
    struct resolved *final, char *err, size_t);

/* measure_run.c: one round of --measure (COMMAND, traced, measured). */
#define MEASURE_GRACE_S 2	/* after COMMAND's exit, then its tree is killed */
enum counter { CTR_ITLB, CTR_INSTRUCTIONS, CTR_CYCLES, CTR_DTLB, CTR_N };
extern const char *const counter_names[CTR_N];
struct measure_file {
	dev_t dev;
	ino_t ino;
	char *path;		/* as the mapping names it */
};
struct round_request {
	char **argv;		/* COMMAND */
	bool thp_disable;	/* the small state: PR_SET_THP_DISABLE */
	const char *audit;	/* or the text-only toggle: this LD_AUDIT
				   module (elfthp-audit.so), or NULL */
	const char *audit_files;	/* its ELFTHP_AUDIT_FILES: "dev:ino,..." */
	bool small;		/* with audit: the small state */
	bool keep_output;	/* else COMMAND's stdout and stderr: /dev/null */
	bool stdout_to_stderr;	/* keep it apart from our JSON */
	bool discover;		/* add every file a process maps */
	bool counters;		/* open the hardware counters */
	const uint64_t *expected;	/* per file: a huge process's PMD kB,
					   or NULL (then any PMD is huge) */
	const char *bind_from;	/* a "before" round: this file (ORIG) */
	const char *bind_over;	/* bind-mounted over this path, in a
				   private mount namespace; else NULL */
};
struct round_result {
	int status;		/* COMMAND's wait status */
	double wall_s, user_s, sys_s;
	uint64_t minflt, majflt, maxrss_kb;
	bool counted[CTR_N];
	uint64_t counter[CTR_N];
	struct round_files pf;	/* per file, over the processes */
	size_t processes;	/* whose smaps were read */
	size_t mappers;		/* of them, mapping a FILE */
	size_t huge_procs;	/* of those, with each FILE it maps as
				   PMD-mapped as expected */
	uint64_t anon_huge_kb;	/* AnonHugePages + ShmemPmdMapped of other
				   files, summed over the processes */
	uint64_t read_bytes;	/* /proc/PID/io read_bytes, summed */
	double look_s;		/* the tool's own looks at exiting processes */
	size_t unadvised;	/* processes mapping a FILE's text without
				   the audit module's MADV_NOHUGEPAGE ("nh") */
	size_t thp_changed;	/* processes seen (at an exec or their exit)
				   in the other THP state than the round's */
	size_t untraced;	/* reaped, never traced: escaped the trace */
	size_t killed;		/* still running MEASURE_GRACE_S after the
				   command: killed */
	char unread[256];	/* a look that failed, or "" */
};
void counter_probe(enum counter, char *why, size_t n);
/*
 * same_program.c: is orig the program file was rewritten from (the same
 * bytes at every address, another layout)?  0, or -1 with why; *orig_bad
 * says whether why is about orig (else about file).
 */
int same_program(int orig, int file, char *why, size_t n, bool *orig_bad);
/* Can ORIG be bind-mounted over PATH in a private mount namespace (in a
 * child, which then exits)?  0, or -1 with why in err. */
int measure_bind_probe(const char *orig, const char *path, char *err,
    size_t n);
int measure_round(const struct round_request *, struct measure_file *,
    size_t *nfiles, size_t max_files, struct round_result *, char *err,
    size_t n);

#endif
