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
int rewrite_to_fd(int in_fd, int out_fd, const struct elf_layout *,
    const struct plan *, char *, size_t);
int copy_whole(int in_fd, int out_fd, uint64_t size, char *, size_t);

/* atomic_file.c: temporary file, metadata, rename. */
struct atomic_file {
	char *final_path;
	char *tmp_path;
	int fd;
	bool durable;
};
int atomic_open(struct atomic_file *, const char *final_path, char *, size_t);
int atomic_copy_metadata(struct atomic_file *, int src_fd, bool owner_required,
    char *, size_t);
int atomic_sync(struct atomic_file *, bool durable, char *, size_t);
int atomic_rename(struct atomic_file *, char *, size_t);
void atomic_abort(struct atomic_file *);

/* main.c: every option lives here. */
enum mode { MODE_REWRITE, MODE_REPORT, MODE_CHECK, MODE_PID };
enum format { FORMAT_TEXT, FORMAT_JSON };

struct options {
	enum mode mode;
	enum format format;
	bool dry_run;
	bool quiet;
	bool recursive;
	bool one_fs;		/* -x: stay on the device of each argument */
	bool no_sync;		/* --no-sync: no fsync before the rename */
	int verbose;
	unsigned jobs;
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
	FILE_NOT_ELF,
	FILE_NOT_APPLICABLE,	/* ELF, but not an executable or shared object */
	FILE_ERROR,
};

/* process.c: one file through the passes. */
enum file_class process_file(const char *name, const struct options *,
    FILE *out, FILE *err, bool from_walk);

/* runner.c: walk the arguments, run the files (in parallel), print in order. */
int run_all(char **paths, size_t npaths, const struct options *);

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

#endif
