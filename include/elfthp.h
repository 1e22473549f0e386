/*
 * elfthp-align: shared types and prototypes.
 *
 * The tool works in three passes over each file:
 *   read  (elf_read.c)    libelf -> plain descriptors (struct elf_layout)
 *   plan  (segment_pad.c) descriptors -> new offsets (struct plan); pure
 *   write (phdr_rewrite.c, atomic_file.c) plan -> new file, atomically
 * report.c only formats what the first two produced.  Only the read and
 * write passes include <libelf.h>; this header does not.
 */
#ifndef ELFTHP_H
#define ELFTHP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define ELFTHP_VERSION "0.1.0"

/* Program header, copied out of libelf in host byte order. */
struct seg_desc {
	uint32_t type;
	uint32_t flags;
	uint64_t offset;
	uint64_t vaddr;
	uint64_t paddr;
	uint64_t filesz;
	uint64_t memsz;
	uint64_t align;
};

/* Section header: only what the layout needs, plus the whole header for writing. */
struct sec_desc {
	uint32_t name;
	uint32_t type;
	uint64_t flags;
	uint64_t addr;
	uint64_t offset;
	uint64_t size;
	uint32_t link;
	uint32_t info;
	uint64_t addralign;
	uint64_t entsize;
};

/* Everything the planner and the report need to know about one file. */
struct elf_layout {
	uint64_t file_size;
	uint8_t elfclass;	/* ELFCLASS32 or ELFCLASS64 */
	uint8_t elfdata;	/* ELFDATA2LSB or ELFDATA2MSB */
	uint16_t type;		/* e_type */
	uint16_t machine;	/* e_machine */
	uint64_t entry;
	uint64_t ehdr_size;
	uint64_t phoff;
	uint64_t phentsize;
	uint64_t shoff;		/* 0: no section header table */
	uint64_t shentsize;
	bool has_interp;	/* PT_INTERP present: an executable */
	bool flags1_pie;	/* DT_FLAGS_1 has DF_1_PIE */
	bool has_soname;	/* DT_SONAME present */
	struct seg_desc *segs;	/* every program header, in table order */
	size_t nsegs;
	struct sec_desc *secs;	/* every section header, in table order */
	size_t nsecs;
};

/* Parameters of one plan; see geometry.c for where they come from. */
struct plan_params {
	uint64_t target;	/* alignment for eligible segments (the PMD) */
	uint64_t min_page;	/* every PT_LOAD stays congruent at least modulo this */
	uint64_t base_page;	/* input must be congruent modulo this to be valid */
	uint64_t min_align;	/* --page-size: every PT_LOAD's p_align at least this */
	uint64_t fallback;	/* for segments without a target window, 0: none */
	uint64_t page;		/* base page of the geometry: every PT_LOAD
				   must be congruent modulo it to load */
};

/* Why a PT_LOAD is or is not eligible. */
enum seg_verdict {
	SEG_NOT_LOAD = 0,
	SEG_ELIGIBLE,
	SEG_WRITABLE,
	SEG_NO_WINDOW,	/* no full window inside [vaddr, vaddr + filesz) */
	SEG_PINNED,	/* must stay at its offset (holds the headers) but is incongruent */
};

struct seg_plan {
	uint64_t new_offset;
	uint64_t new_align;
	uint64_t target;	/* alignment chosen for an eligible segment */
	enum seg_verdict verdict;
	bool congruent_now;	/* offset == vaddr (mod target) in the input */
	uint64_t windows_now;	/* huge-mappable windows with the input as it is */
	uint64_t windows_after;	/* ... after the rewrite (0 unless eligible) */
};

/* A range of the input that moves as one piece by `delta` bytes. */
struct block {
	uint64_t start;
	uint64_t end;
	uint64_t delta;
};

/* One copy of input bytes [src, src + len) to output offset dst. */
struct extent {
	uint64_t src;
	uint64_t dst;
	uint64_t len;
};

struct plan {
	struct seg_plan *segs;	/* parallel to layout->segs */
	uint64_t *sec_offset;	/* new sh_offset, parallel to layout->secs */
	struct block *blocks;
	size_t nblocks;
	struct extent *extents;
	size_t nextents;
	uint64_t new_shoff;
	uint64_t new_size;
	uint64_t target;
	uint64_t min_page;
	size_t n_eligible;	/* eligible PT_LOADs */
	size_t n_aligned;	/* eligible PT_LOADs whose header changes */
	size_t n_loads_changed;	/* all PT_LOADs whose header changes */
	size_t n_pinned;	/* SEG_PINNED: windows, but cannot move */
	size_t first_pinned;	/* the first of them, by header index */
	uint64_t windows_now;
	uint64_t windows_after;
	bool base_aligned_now;	/* ET_DYN: largest p_align >= target; ET_EXEC: true */
	bool base_aligned_after;	/* the same, with the plan's p_align */
	bool changed;		/* the output differs from the input */
};

enum plan_err {
	PLAN_OK = 0,
	PLAN_ENOMEM,
	PLAN_BAD_PARAMS,
	PLAN_NO_LOAD,
	PLAN_PAST_EOF,
	PLAN_SEC_PAST_EOF,
	PLAN_SEC_OVERFLOW,
	PLAN_OVERFLOW,
	PLAN_FILESZ_GT_MEMSZ,
	PLAN_BAD_ALIGN,
	PLAN_NOT_CONGRUENT,
	PLAN_OVERLAP,
	PLAN_SPLIT_SEGMENT,
	PLAN_SPLIT_SECTION,
	PLAN_SPLIT_SHDRS,
	PLAN_SHDRS_OVERLAP,
	PLAN_TOO_BIG,
	PLAN_PAGE_SHARED,
	PLAN_GROWTH,		/* a header asks for padding beyond the limit */
	PLAN_VERIFY,
};

struct plan_error {
	enum plan_err code;
	size_t index;	/* program or section header index concerned */
	size_t other;	/* second index, for overlaps */
	uint64_t value;
	const char *detail;	/* PLAN_VERIFY: which rule failed */
};

/* segment_pad.c: the pure planner. */
struct load_by_addr {
	uint64_t vaddr;
	size_t idx;	/* program header index */
};
struct load_by_addr *loads_by_addr(const struct elf_layout *, size_t *n);
uint64_t windows_in(uint64_t vaddr, uint64_t filesz, uint64_t pmd);
int plan_build(const struct elf_layout *, const struct plan_params *,
    struct plan *, struct plan_error *);
int plan_verify(const struct elf_layout *, const struct plan_params *,
    const struct plan *, struct plan_error *);
void plan_free(struct plan *);
void plan_strerror(const struct plan_error *, char *, size_t);

/* compat.c: page-size compatibility; pure. */
enum compat_kind {
	COMPAT_OFFSET,	/* offset and address disagree modulo the page: pad */
	COMPAT_ALIGN,	/* p_align below the page: raise */
	COMPAT_SHARED,	/* two permissions on one page: relink */
};
struct compat_finding {
	enum compat_kind kind;
	size_t index;
	size_t other;
	uint64_t page;
	uint64_t align;
};
int find_shared_page(const struct elf_layout *, uint64_t page, size_t *,
    size_t *);
size_t compat_findings(const struct elf_layout *, uint64_t page,
    struct compat_finding *, size_t max);

/* geometry.c: page geometries and the alignment they call for. */
struct geometry {
	const char *name;
	uint64_t page;
	uint64_t pmd;
	uint64_t cont;	/* contiguous-PTE block, 0 if none */
};
const char *machine_name(uint16_t machine);
int params_for(uint16_t machine, uint64_t page_size, uint64_t align,
    struct plan_params *, const char **why);
size_t report_geometries(uint16_t machine, const struct geometry **, size_t);
const struct geometry *own_geometry(uint16_t machine, uint64_t page_size);
uint64_t geometry_target(const struct geometry *);
uint64_t geometry_fallback(const struct geometry *);
bool geometry_pmd_counts(const struct geometry *);
uint64_t machine_max_page(uint16_t machine);

/* impact.c: the --report model, per geometry; pure. */
struct geometry_impact {
	const struct geometry *geometry;
	uint64_t target;
	uint64_t translations_now;
	uint64_t translations_after;
	uint64_t huge_bytes_now;
	uint64_t huge_bytes_after;
	uint64_t windows_after;
	uint64_t rss_increase_max;
	unsigned aslr_bits_lost;
	int64_t file_growth;
	char error[192];	/* why no plan for this geometry; "" if one */
};
void impact_compute(const struct elf_layout *, const struct plan *,
    const struct geometry *, struct seg_desc *after, struct geometry_impact *);

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
void layout_free(struct elf_layout *);

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
struct atomic_file {
	char *final_path;
	char *tmp_path;
	int fd;
	bool durable;
	FILE *notes;		/* warnings that do not stop the write */
};
int atomic_open(struct atomic_file *, const char *final_path, FILE *notes,
    char *, size_t);
bool is_temp_name(const char *);
int atomic_copy_metadata(struct atomic_file *, int src_fd, bool owner_required,
    char *, size_t);
int atomic_sync(struct atomic_file *, bool durable, char *, size_t);
int atomic_rename(struct atomic_file *, char *, size_t);
void atomic_abort(struct atomic_file *);

/* hugefs.c: what a file system does with PMD-sized folios; pure. */
/* Zero is "unknown": a fact nobody filled in says nothing. */
enum tri { TRI_UNKNOWN, TRI_NO, TRI_YES };
struct kernel_version {
	unsigned major;
	unsigned minor;
};
struct fs_info {
	char type[32];		/* as /proc/self/mountinfo names it */
	char mount_point[256];
	char options[512];	/* mount options, then the file system's own */
	char huge[16];		/* tmpfs: its huge= option ("never" if unset) */
};
/* What the kernel is expected to do there, by type and version. */
struct fs_expect {
	enum tri write;		/* a large aligned write() makes PMD folios */
	enum tri readahead;	/* MADV_HUGEPAGE readahead makes them */
	enum tri collapse;	/* MADV_COLLAPSE works on its files */
	const char *why;	/* the fact behind a "no", or NULL */
};
/* What a probe file measured there (--host); done false: no probe. */
struct fs_probe {
	bool done;
	int error;		/* why there was no probe (errno), or 0 */
	uint64_t size;		/* bytes of PMD windows in the probe file */
	uint64_t write_pmd;	/* PMD-mapped after one large write() */
	uint64_t warm_pmd;	/* after a drop and MADV_HUGEPAGE readahead */
	uint64_t collapse_pmd;	/* after small folios and MADV_COLLAPSE */
	int collapse_error;	/* 0: MADV_COLLAPSE succeeded, else errno */
};
enum fs_outcome {
	FS_HUGE_AFTER_WRITE_AND_WARM,
	FS_HUGE_AFTER_WRITE,
	FS_HUGE_AFTER_WARM,
	FS_NO_HUGE_PAGE,	/* should work, but no huge page was had */
	FS_NO_HUGE_FOLIOS,
	FS_UNKNOWN,
};
int kernel_version_parse(const char *, struct kernel_version *);
void fs_expect(const struct fs_info *, struct kernel_version,
    enum tri ro_thp_for_fs, struct fs_expect *);
enum fs_outcome fs_outcome(const struct fs_expect *, const struct fs_probe *);
const char *fs_outcome_name(enum fs_outcome);
void fs_outcome_sentence(char *, size_t, enum fs_outcome,
    const struct fs_info *, const struct fs_expect *);
const char *tri_name(enum tri);
/* --pid: why an eligible mapped file is not (all) PMD-mapped. */
enum map_why {
	WHY_NONE,		/* every resident window is PMD-mapped */
	WHY_THP_DISABLED,	/* the process has THP disabled (prctl) */
	WHY_REPLACED,		/* the file was replaced since it was mapped */
	WHY_NO_HUGE_FOLIOS,	/* its file system keeps none */
	WHY_SMALL_FOLIOS,	/* the page cache holds small folios there */
	WHY_NOT_TOUCHED,	/* no window resident yet */
};
struct map_facts {
	bool eligible;
	bool thp_disabled;
	bool deleted;
	enum tri fs_keeps_huge;
	uint64_t windows_resident;
	uint64_t pmd_mapped;
	uint64_t pmd;
};
enum map_why map_why(const struct map_facts *);
const char *map_why_name(enum map_why);
enum tri collapse_on_files(struct kernel_version, enum tri ro_thp_for_fs);
bool glibc_aligns_libraries(const char *version);

/* fs_info.c: reading those facts. */
int fs_identify(const char *path, struct fs_info *);
int host_kernel(char *release, size_t, struct kernel_version *);
void thp_setting(const char *name, char *, size_t);
enum tri kernel_config(const char *option, const char *release, char *where,
    size_t);
const char *host_glibc(void);
struct kernel_version host_kernel_version(void);
enum tri host_ro_thp_for_fs(void);
int fs_expect_path(const char *path, struct fs_info *, struct fs_expect *);

/* windows.c: the file ranges --warm works on; pure. */
struct warm_plan {
	uint64_t pmd;
	uint64_t nranges;	/* PMD-aligned ranges in the file */
	uint8_t *bits;		/* range k lies in a congruent read-only PT_LOAD */
	uint64_t warmable;	/* bits set */
	uint64_t misaligned;	/* windows of incongruent read-only PT_LOADs */
	bool base_aligned;	/* the load base is PMD-aligned as the file is */
};
int warm_plan_build(const struct elf_layout *, uint64_t pmd,
    bool base_aligned, struct warm_plan *);
bool warm_range(const struct warm_plan *, uint64_t k);

void warm_plan_free(struct warm_plan *);

/* pagecache.c: page-cache primitives. */
struct pc_map {
	void *reserve;
	size_t reserve_len;
	unsigned char *addr;	/* PMD-aligned */
	size_t len;
};
uint64_t host_pmd_size(void);
uint64_t host_page_size(void);
int pc_map(int fd, uint64_t off, uint64_t len, uint64_t pmd, bool hugepage,
    struct pc_map *);
void pc_unmap(struct pc_map *);
int pc_resident(const struct pc_map *, uint64_t page, uint64_t *pages);
int pc_resident_at(const struct pc_map *, uint64_t off, uint64_t len,
    uint64_t page, uint64_t *pages);
int pc_cached(int fd, uint64_t off, uint64_t len, uint64_t pmd,
    uint64_t page, uint64_t *pages);
int pc_populate(const struct pc_map *);
int pc_populate_at(const struct pc_map *, uint64_t off, uint64_t len);
int pc_collapse(const struct pc_map *);
int pc_drop(int fd, uint64_t off, uint64_t len);
int pc_pmd_mapped(const void *addr, uint64_t *bytes);
struct stat;
size_t pc_find_mappers(const struct stat *, uint64_t off, uint64_t len,
    long *pids, size_t max, size_t *unreadable);
void pc_comm(long pid, char *, size_t);

/* host.c: --host. */
struct host_path {
	const char *path;
	int error;		/* the path cannot be looked at: errno */
	struct fs_info fs;
	struct fs_expect expect;
	struct fs_probe probe;
	enum fs_outcome outcome;
	char sentence[384];
};
struct host_facts {
	char kernel[128];
	struct kernel_version version;
	char thp_enabled[32];
	char thp_defrag[32];
	char thp_shmem[32];
	enum tri ro_thp_for_fs;
	char config_where[320];
	enum tri collapse_files;	/* MADV_COLLAPSE on regular files */
	const char *collapse_where;	/* the path that measured it, or NULL */
	const char *glibc;
	bool glibc_aligns;	/* 2.35 or later: p_align places libraries */
	struct host_path *paths;
	size_t npaths;
};

/* warm.c: --warm, one file. */
enum warm_reason {
	WARM_NOT_ALIGNED,	/* incongruent: run elfthp-align first */
	WARM_BUSY,		/* a process maps the window's small folios */
	WARM_NO_HUGE_FOLIOS,	/* the file system keeps none */
	WARM_NO_HUGE_PAGE,	/* none could be allocated */
	WARM_IO_ERROR,		/* the window could not be read */
	WARM_NREASONS,
};
#define WARM_MAX_PIDS 8
struct warm_result {
	uint64_t windows;	/* warmable + misaligned */
	uint64_t huge_before;
	uint64_t made_huge;
	uint64_t not_huge[WARM_NREASONS];
	uint64_t read_bytes;	/* brought into the page cache */
	bool base_aligned;
	long pids[WARM_MAX_PIDS];	/* WARM_BUSY: who maps them */
	size_t npids;
	size_t unreadable;	/* processes whose maps could not be read */
	int io_error;		/* WARM_IO_ERROR: errno */
	char fs_type[32];
	const char *fs_why;	/* WARM_NO_HUGE_FOLIOS: the fact behind it */
};
int warm_file(int fd, const char *path, const struct warm_plan *,
    struct warm_result *, char *err, size_t);
uint64_t warm_not_huge(const struct warm_result *);

/* main.c: every option lives here. */
enum mode { MODE_REWRITE, MODE_REPORT, MODE_CHECK, MODE_PID, MODE_WARM,
	MODE_HOST };
enum format { FORMAT_TEXT, FORMAT_JSON };

struct options {
	enum mode mode;
	enum format format;
	bool dry_run;
	bool quiet;
	bool recursive;
	bool one_fs;		/* -x: stay on the device of each argument */
	bool no_sync;		/* --no-sync: in place, no fsync before the rename */
	bool sync;		/* --sync: -o too fsyncs before the rename */
	int verbose;
	unsigned jobs;
	unsigned lock_timeout;	/* seconds to wait for another run's lock */
	long pid;
	const char *output;
	uint64_t page_size;	/* 0: the machine's default */
	uint64_t align;		/* 0: from machine and page size */
};

/* What became of one file; the exit status and the --check summary use it. */
enum file_class {
	FILE_DONE,		/* rewritten, nothing to do, or reported */
	FILE_READY,		/* --check: huge-page ready */
	FILE_NEEDS_REWRITE,	/* --check: elfthp-align would change it */
	FILE_NEEDS_RELINK,	/* --check --page-size: only a relink helps */
	FILE_NOT_HUGE,		/* --warm: some window could not be made huge */
	FILE_NOT_ELF,
	FILE_NOT_APPLICABLE,	/* ELF, but not an executable or shared object */
	FILE_ERROR,
};

/* windows.c: a warmed file's verdict. */
enum file_class warm_verdict(const struct warm_result *);

/* process.c: one file through the passes. */
enum file_class process_file(const char *name, const struct options *,
    FILE *out, FILE *err, bool from_walk);

/* runner.c: walk the arguments, run the files (in parallel), print in order. */
int run_all(char **paths, size_t npaths, const struct options *);

/* host.c: --host. */
int host_report(char **paths, size_t npaths, const struct options *);

/* pid_scan.c: --pid. */
int pid_report(long pid, const struct options *);

/* impact.c, continued. */
bool seed_patch_aligns(const struct elf_layout *, const struct seg_desc *,
    uint64_t pmd);
const char *file_kind(const struct elf_layout *);

/* report.c: formatting only. */
void report_result(FILE *, const char *name, const struct elf_layout *,
    const struct plan *, bool dry_run);
void report_plan_table(FILE *, const struct elf_layout *, const struct plan *);
void format_size(char *, size_t, uint64_t);
void json_string(FILE *, const char *);
void report_impact(FILE *, enum format, const char *name,
    const struct elf_layout *, const struct plan *,
    const struct geometry *own, const struct geometry_impact *, size_t n);
void report_check(FILE *, enum format, const char *name,
    const struct elf_layout *, const struct plan *,
    const struct compat_finding *, size_t nfind, enum file_class);
void report_check_other(FILE *, enum format, const char *name,
    enum file_class, const char *why);
const char *class_text(enum file_class);

/* report_runtime.c: formatting of --warm and --host. */
void report_warm(FILE *, enum format, const char *name,
    const struct warm_result *, enum file_class);
struct host_facts;
void report_host(FILE *, enum format, const struct host_facts *);

#endif
