/* SPDX-License-Identifier: BSD-2-Clause */
/* SPDX-FileCopyrightText: 2026 the elfthp-align authors */
/*
 * elfthp-align, the pure core: what a file's headers say (struct
 * elf_layout), what a rewrite would do to them (struct plan), and the
 * facts the verdicts rest on (page geometries, file systems, --warm's
 * windows).  Nothing here does I/O, touches libelf or keeps state, so the
 * unit tests drive all of it with plain structs.
 *
 * The passes over each file:
 *   read  (elf_read.c, elfthp_io.h)      file -> struct elf_layout
 *   plan  (segment_pad.c, here)          layout -> struct plan; pure
 *   check (plan_check.c, here)           a second opinion on the plan
 *   write (phdr_rewrite.c, atomic_file.c, elfthp_io.h)  plan -> new file
 * The CLI (elfthp_cli.h) drives them and formats what they found.
 */
#ifndef ELFTHP_CORE_H
#define ELFTHP_CORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct geometry;

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

/* Section header, copied out of libelf in host byte order. */
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

/*
 * Parameters of one plan: every alignment it works to, in bytes, each a
 * power of two.  Build them with plan_params_make (geometry.c).
 */
struct plan_params {
	uint64_t huge_align;	/* eligible segments become congruent modulo
				   this: the PMD, or --align */
	uint64_t fallback_align;	/* a smaller huge size for segments with
				   no huge_align window (a 2 MiB contiguous-PTE
				   block under 32 MiB PMDs); 0: none */
	uint64_t max_page;	/* the largest base page the machine may run:
				   every PT_LOAD stays congruent modulo it */
	uint64_t input_page;	/* the input is refused unless every PT_LOAD
				   is congruent modulo this (4 KiB) */
	uint64_t min_p_align;	/* --page-size: every PT_LOAD's p_align is
				   raised to at least this; 0: not asked */
	uint64_t page;		/* the base page the plan is for */
	bool placed_by_offset;	/* measured on this host for this file: a
				   mapping of a PMD or more lands at an address
				   congruent to its file offset (ext4, XFS,
				   btrfs, tmpfs huge=; not overlayfs), so ld.so
				   places a shared library PMD-aligned whatever
				   its p_align (io/placement.c) */
	bool split;		/* --layout start: an eligible PT_LOAD whose
				   first window starts after its p_vaddr is
				   split there, into a head and a body that
				   starts on the boundary (docs/rewrite.md) */
};

/*
 * What a plan is for.  The tool's own run names the machine and, if the
 * user gave them, --page-size and --align; the report names a geometry.
 */
struct plan_request {
	uint16_t machine;			/* e_machine */
	const struct geometry *geometry;	/* NULL: the machine's own */
	uint64_t page_size;	/* --page-size; 0: the machine's default */
	uint64_t align;		/* --align; 0: from the page size */
};

/* Why a PT_LOAD is or is not eligible. */
enum seg_verdict {
	SEG_NOT_LOAD = 0,
	SEG_ELIGIBLE,
	SEG_WRITABLE,
	SEG_NO_WINDOW,	/* no full window inside [vaddr, vaddr + filesz) */
	SEG_PINNED,	/* must stay at its offset (holds the ELF header, or
			   a program header table placed in front) but is
			   incongruent */
};

struct seg_plan {
	uint64_t new_offset;
	uint64_t new_align;
	uint64_t target;	/* alignment chosen for an eligible segment */
	enum seg_verdict verdict;
	bool congruent_now;	/* offset == vaddr (mod target) in the input */
	uint64_t windows_now;	/* huge-mappable windows with the input as it is */
	uint64_t windows_after;	/* ... after the rewrite (0 unless eligible) */
	uint64_t split_at;	/* p_vaddr of the body, a multiple of the
				   target; 0: not split */
};

/* Why a plan splits no segment, though the layout asked for it. */
enum split_note {
	SPLIT_NOT_ASKED = 0,	/* --layout congruent, or nothing to split */
	SPLIT_DONE,		/* every segment that needs it is split */
	SPLIT_NO_TABLE_LOAD,	/* the table is not in the first PT_LOAD */
	SPLIT_NO_ROOM,		/* no room for the longer table in the last
				   page of the first PT_LOAD */
	SPLIT_TOO_MANY,		/* the table would reach PN_XNUM entries */
};

/* A range of the input that moves as one piece by `delta` bytes. */
struct shift {
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
	struct shift *shifts;
	size_t nshifts;
	struct extent *extents;
	size_t nextents;
	uint64_t new_shoff;
	uint64_t new_phoff;	/* e_phoff: moves only with a table placed
				   after the segments (BOLT), with its PT_LOAD */
	uint64_t new_size;
	uint64_t huge_align;	/* the params' */
	uint64_t max_page;	/* the params' */
	size_t n_eligible;	/* eligible PT_LOADs */
	size_t n_aligned;	/* eligible PT_LOADs whose header changes */
	size_t n_loads_changed;	/* all PT_LOADs whose header changes */
	size_t n_pinned;	/* SEG_PINNED: windows, but cannot move */
	size_t first_pinned;	/* the first of them, by header index */
	uint64_t windows_now;
	uint64_t windows_now_host;	/* --check -v: plan_windows_now with
					   this host's placement */
	uint64_t windows_after;
	bool base_aligned_now;	/* load_base_aligned() as the file is */
	bool base_aligned_after;	/* the same, with the plan's p_align */
	bool changed;		/* the output differs from the input */
	/* The split (--layout start): the program header table written, at
	 * table_off, when nsplit > 0; NULL otherwise (the input's table,
	 * edited in place, is written). */
	size_t nsplit;		/* segments split in two */
	enum split_note split_note;
	size_t split_wanted;	/* segments that would be split */
	struct seg_desc *phdrs_out;
	size_t nphdrs_out;
	uint64_t table_off;	/* e_phoff of phdrs_out */
	size_t table_load;	/* the PT_LOAD (input index) that holds it */
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
	PLAN_SPLIT_PHDRS,
	PLAN_SHDRS_OVERLAP,
	PLAN_SHDRS_IN_LOAD,	/* in a PT_LOAD, and sections would move */
	PLAN_SHDRS_OVER_SECTION,	/* shares bytes with a section it is
				   not wholly inside */
	PLAN_TOO_BIG,
	PLAN_PAGE_SHARED,
	PLAN_GROWTH,		/* a header asks for padding beyond the limit */
	PLAN_VERIFY,
	PLAN_PHDRS_ZEROED,	/* every program header is zeros (eu-strip of
				   a split file) */
	PLAN_PHDR_STALE,	/* PT_PHDR names another place than e_phoff */
	PLAN_SEC_MISPLACED,	/* a section's bytes are not where its
				   PT_LOAD maps its address (GNU strip of a
				   split file) */
};

struct plan_error {
	enum plan_err code;
	size_t index;	/* program or section header index concerned */
	size_t other;	/* second index, for overlaps */
	uint64_t value;
	const char *detail;	/* PLAN_VERIFY: which rule failed */
};

/* core/layout.c: what the door, the planner and the reports ask of a layout. */
struct load_ref {
	uint64_t key;	/* p_vaddr or p_offset, as sorted */
	size_t idx;	/* program header index */
};
struct load_ref *loads_sorted(const struct elf_layout *, bool by_addr,
    size_t *n);
uint64_t load_align(const struct seg_desc *);
uint64_t windows_in(uint64_t vaddr, uint64_t filesz, uint64_t pmd);
int find_shared_page(const struct elf_layout *, uint64_t page, size_t *,
    size_t *);
uint64_t max_load_align(const struct elf_layout *, const struct plan *);
bool load_base_aligned(const struct elf_layout *, const struct plan *,
    uint64_t target, bool placed_by_offset);
uint64_t plan_modulus(const struct seg_desc *, const struct seg_plan *,
    uint64_t max_page);

/* core/validate.c: the door, once per file in every mode.  Congruence
 * modulo LAYOUT_MIN_PAGE is checked after every other rule, so that
 * PLAN_NOT_CONGRUENT from it means a well-formed file Linux cannot load. */
#define LAYOUT_MIN_PAGE 4096	/* every PT_LOAD congruent modulo it */
int layout_validate(const struct elf_layout *, struct plan_error *);

/* segment_pad.c: the planner, over a layout that passed the door. */
/* The windows a plan's file has at PMD-aligned addresses as it is, where
 * the host places it by offset (placed_by_offset) or not: --report's and
 * --check -v's one count. */
uint64_t plan_windows_now(const struct elf_layout *, const struct plan *,
    uint64_t target, bool placed_by_offset);
int plan_build(const struct elf_layout *, const struct plan_params *,
    struct plan *, struct plan_error *);
void plan_free(struct plan *);
/* core/split.c: the split of start-aligned bodies, a planner step. */
int plan_split(const struct elf_layout *, const struct plan_params *,
    struct plan *, struct plan_error *);
uint64_t split_gap_end(const struct seg_desc *, const struct seg_plan *,
    uint64_t, uint64_t);
/* core/plan_check.c: the check pass, between plan and write. */
int plan_verify(const struct elf_layout *, const struct plan_params *,
    const struct plan *, struct plan_error *);
/* core/plan_error.c: the words for every refusal of the door and planner. */
int plan_fail(struct plan_error *, enum plan_err, size_t index, size_t other,
    uint64_t value);
void plan_strerror(const struct plan_error *, char *, size_t);

/* What became of one file; the exit status and the --check summary use it. */
enum file_class {
	FILE_DONE,		/* rewritten, nothing to do, or reported */
	FILE_READY,		/* --check: huge-page ready */
	FILE_NEEDS_REWRITE,	/* --check: elfthp-align would change it */
	FILE_NEEDS_RELINK,	/* --check: only a relink helps */
	FILE_COMPATIBLE,	/* --compat: loads on pages of that size */
	FILE_FIXABLE,		/* --compat: elfthp-align --page-size fixes it */
	FILE_NOT_HUGE,		/* --warm: some window could not be made huge */
	FILE_NO_WINDOWS,	/* --warm: no window to warm */
	FILE_NOT_ELF,
	FILE_NOT_APPLICABLE,	/* ELF, but not an executable or shared object,
				   or not one Linux can load */
	FILE_NOT_DONE,		/* rewriting it would split its hard links:
				   a name of it is not in the run */
	FILE_LINKED,		/* another name of a file the run rewrote */
	FILE_CACHE_UNKNOWN,	/* --warm -n: the kernel would not show the
				   caller the page cache (not a writer) */
	FILE_ERROR,
};

/* findings.c and compat.c: what --check and --check --compat find; pure. */
enum finding_code {
	FINDING_PINNED,		/* windows in the PT_LOAD that holds the headers,
				   incongruent: only a relink helps */
	FINDING_OFFSET,		/* p_offset must move to be congruent */
	FINDING_ALIGN,		/* p_align must be raised */
	FINDING_PAGE_SHARED,	/* two permissions on one page: relink */
	FINDING_PAGE_OFFSET,	/* p_offset and p_vaddr differ modulo the page */
	FINDING_PAGE_ALIGN,	/* p_align below the page */
	FINDING_RELRO_END,	/* PT_GNU_RELRO ends inside a page of its
				   PT_LOAD: that page stays writable */
	FINDING_START,		/* congruent, but its first window starts
				   after p_vaddr: the rewrite splits it */
};
/* What fixes a finding: the report names the command. */
enum fix_kind {
	FIX_REWRITE,		/* elfthp-align FILE, with the same options */
	FIX_PAGE_SIZE,		/* elfthp-align --page-size SIZE FILE */
	FIX_RELINK,		/* only a relink, with the flags the code names */
};
struct finding {
	enum finding_code code;
	size_t segment;		/* program header index */
	size_t other;		/* the second one (FINDING_PAGE_SHARED), the
				   PT_LOAD (FINDING_RELRO_END), or SIZE_MAX */
	uint64_t have;		/* p_offset or p_align as it is (RELRO's end) */
	uint64_t want;		/* what the rewrite makes it, 0 if nothing */
	uint64_t modulus;	/* the congruence or page asked for */
};
const char *finding_code_name(enum finding_code);
enum fix_kind finding_fix(enum finding_code);
void finding_add(struct finding *, size_t max, size_t *n, struct finding);
size_t readiness_findings(const struct elf_layout *, const struct plan *,
    struct finding *, size_t max);
bool refusal_finding(const struct plan_error *, struct finding *,
    enum file_class *verdict);
int compat_report(const struct elf_layout *, uint64_t page, struct finding *,
    size_t max, size_t *n, enum file_class *verdict);

/*
 * archive.c: Android's rules for the native libraries in an APK, an app
 * bundle or a zip; pure, over what the io layer read from the central
 * directory and the local headers (docs/android.md).
 */
enum entry_kind {
	ENTRY_OTHER,		/* not a native library: not looked at */
	ENTRY_NATIVE_LIB,	/* lib/ABI/NAME.so (a bundle: MODULE/lib/...) */
	ENTRY_BAD_NAME,		/* a NUL, an absolute path or a .. component */
};
enum zip_verdict {
	ZIP_ALIGNED,		/* stored, its data at a multiple of the page */
	ZIP_UNALIGNED,		/* stored, its data not page-aligned */
	ZIP_COMPRESSED,		/* compressed: the installer must extract it */
	ZIP_BUNDLE,		/* in an app bundle: bundletool lays out the APKs */
};
struct archive_entry {
	char *name;		/* the name's bytes, and a NUL after them */
	size_t name_len;	/* as the central directory gives it */
	uint16_t method;	/* 0: stored */
	uint64_t header_offset;	/* of the local header */
	uint64_t data_offset;	/* of the data, after the local header */
	uint64_t comp_size;	/* bytes in the archive */
	uint64_t size;		/* bytes once inflated */
};
bool archive_is_bundle(const struct archive_entry *, size_t count);
enum entry_kind archive_entry_kind(const char *name, size_t len, bool bundle);
enum zip_verdict archive_zip_verdict(const struct archive_entry *,
    uint64_t page, bool bundle);
enum file_class archive_entry_class(enum zip_verdict, enum file_class elf);
enum file_class archive_class_fold(enum file_class archive,
    enum file_class entry);
const char *zip_verdict_name(enum zip_verdict);

/* geometry.c: page geometries and the alignment they call for. */
struct geometry {
	const char *name;
	uint16_t machine;	/* e_machine of the CPUs that have it */
	bool every_report;	/* reported for every file, not just its machine's */
	uint64_t page;
	uint64_t pmd;
	uint64_t cont;	/* contiguous-PTE block, 0 if none */
};
const char *machine_name(uint16_t machine);
int plan_params_make(const struct plan_request *, struct plan_params *,
    const char **why);
size_t report_geometries(uint16_t machine, uint64_t page, bool every,
    const struct geometry **, size_t);
const struct geometry *own_geometry(uint16_t machine, uint64_t page_size);
uint64_t geometry_target(const struct geometry *);
uint64_t geometry_fallback(const struct geometry *);
bool geometry_pmd_counts(const struct geometry *);
uint64_t machine_max_page(uint16_t machine);
bool machine_runs_page(uint16_t machine, uint64_t page);

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
	bool measured;		/* now: the page cache as looked at; after:
				   what `elfthp-align FILE` then makes of it */
	char error[192];	/* why no plan for this geometry; "" if one */
};
void impact_compute(const struct elf_layout *, const struct plan *,
    const struct geometry *, struct seg_desc *after, struct geometry_impact *);
/* What a look at the file's page cache found, per PMD range of the file. */
struct cache_view {
	const uint8_t *states;	/* enum window_state, from a look_only warm */
	uint64_t nranges;
	bool fs_keeps_huge;	/* a large write or MADV_HUGEPAGE readahead
				   makes PMD-sized folios where the file is */
};
void impact_measured(const struct elf_layout *, const struct plan *,
    const struct cache_view *, struct geometry_impact *,
    const struct seg_desc *after);


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
	const char *advice;	/* what would give huge folios for files there */
};
/* What a probe file measured there (--host); done false: no probe. */
struct fs_probe {
	bool done;
	int error;		/* why there was no probe (errno), or 0 */
	const char *failed;	/* a measurement failed: the call, else NULL */
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
const char *fs_move_advice(const char *fs_type);
/* pid_verdict.c: --pid, what a running process makes of one mapped
 * file's windows, and the step that makes the rest huge; pure. */
enum pid_status {
	PID_HUGE,		/* every window PMD-mapped */
	PID_PARTLY_HUGE,	/* some; pid_verdict.rest says why not the rest */
	PID_SMALL_FOLIOS,	/* resident windows on small page-cache folios */
	PID_NOT_TOUCHED,	/* placed right, but the process has not run them */
	PID_LAYOUT,		/* windows not at PMD-aligned addresses */
	PID_REPLACED,		/* the file was replaced since it was mapped */
	PID_THP_DISABLED,	/* cannot be huge here: THP off for the process */
	PID_NO_HUGE_FOLIOS,	/* cannot be huge here: the file system */
	PID_NOTHING_TO_GAIN,	/* no full window in its read-only PT_LOADs */
	PID_CACHE_HUGE,		/* windows it has not run since are PMD-sized
				   folios in the page cache (khugepaged or
				   --warm made them): its next run maps PMDs */
};
/* The command or act that makes the windows huge. */
enum pid_fix {
	FIX_NONE,
	FIX_REWRITE_RESTART,	/* elfthp-align FILE, then restart */
	FIX_STOP_WARM_START,	/* stop, elfthp-align --warm FILE, start */
	FIX_WARM,		/* elfthp-align --warm FILE, while it runs */
	FIX_RESTART,		/* restart: it maps the old file */
	FIX_ENABLE_THP,		/* run it without PR_SET_THP_DISABLE */
	FIX_OTHER_FS,		/* install it on ext4 or XFS */
	FIX_WARM_IN_PLACE,	/* elfthp-align --warm FILE while it runs:
				   MADV_COLLAPSE works there (7.2) */
};
#define FIX_LAST FIX_WARM_IN_PLACE
/* What was measured for one file in one process (pid_scan.c). */
struct pid_facts {
	bool windows_known;	/* false: the mapped file's headers could not
				   be read (replaced, and map_files refused) */
	uint64_t windows;	/* full windows of its read-only PT_LOADs */
	uint64_t placed;	/* of them, at PMD-aligned process addresses */
	uint64_t resident;	/* placed windows with a page present */
	uint64_t huge;		/* PMD-mapped windows (FilePmdMapped / PMD) */
	bool replaced;		/* the mapping names a deleted file */
	bool thp_disabled;	/* THP_enabled: 0 in /proc/PID/status */
	enum tri fs_keeps_huge;
	enum tri collapse;	/* MADV_COLLAPSE works on its file system */
	uint64_t cache_huge;	/* its windows that are PMD-sized folios in
				   the page cache (looked at only where some
				   placed window is not resident) */
	bool cache_unknown;	/* that look was refused: cache_huge is 0 */
	uint64_t pmd;
};
struct pid_verdict {
	enum pid_status status;
	enum pid_status rest;	/* PID_PARTLY_HUGE: what keeps the rest */
	enum pid_fix fix;
	uint64_t huge_bytes;	/* windows PMD-mapped */
	uint64_t missed_bytes;	/* windows that could be huge but are not */
};
/* One file mapping of a process, as /proc/PID/smaps lists it. */
struct pid_map {
	uint64_t start;
	uint64_t end;
	uint64_t offset;
	bool writable;
};
void pid_decide(const struct pid_facts *, struct pid_verdict *);
const char *pid_status_name(enum pid_status);
const char *pid_reason_name(enum pid_status);
uint64_t pid_file_windows(const struct elf_layout *, uint64_t pmd);
size_t pid_place_windows(const struct elf_layout *, const struct pid_map *,
    size_t nmaps, uint64_t pmd, uint64_t *addrs, size_t max);
enum tri collapse_on_files(struct kernel_version, enum tri ro_thp_for_fs);
bool kernel_config_path(const char *root, const char *release, size_t i,
    char *buf, size_t len);
bool glibc_aligns_libraries(const char *version);

/* glibc_thp.c: glibc 2.44's glibc.elf.thp on this host (--host); pure. */
struct tunconf_state {
	int value;		/* the last host-wide setting, or -1: none */
	bool locked;		/* ... nonoverridable: GLIBC_TUNABLES cannot */
	bool per_program;	/* set for one program or setuid ones only */
	bool bad_value;		/* a value glibc ignores (not 0 or 1) */
	bool filtered;		/* inside a [proc:NAME] section */
};
struct glibc_thp_facts {
	const char *version;	/* "2.44", or NULL: unknown */
	enum tri has_tunable;	/* ld.so names glibc.elf.thp */
	bool arch_on;		/* on by default on this architecture */
	int env;		/* GLIBC_TUNABLES' value, or -1: not set */
	bool conf_exists;	/* /etc/tunables.conf is there */
	struct tunconf_state conf;
	bool conf_cached;	/* ld.so.cache holds it, written after it */
};
enum glibc_thp_state { GTHP_ABSENT, GTHP_OFF, GTHP_ON };
enum glibc_thp_from {
	GTHP_FROM_DEFAULT, GTHP_FROM_ARCH, GTHP_FROM_CONF, GTHP_FROM_ENV,
};
struct glibc_thp_verdict {
	enum glibc_thp_state state;
	enum glibc_thp_from from;	/* what set the value in force */
	bool stale;		/* tunables.conf sets it; ldconfig has not run */
};
void tunconf_line(struct tunconf_state *, const char *line);
void tunconf_end_file(struct tunconf_state *);
int tunables_env_thp(const char *env);
bool glibc_has_thp_tunable(const char *version);
void glibc_thp_decide(const struct glibc_thp_facts *,
    struct glibc_thp_verdict *);
const char *glibc_thp_state_name(enum glibc_thp_state);
const char *glibc_thp_from_name(enum glibc_thp_from);
void glibc_thp_sentence(char *, size_t, const struct glibc_thp_facts *,
    const struct glibc_thp_verdict *, enum tri);

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

/* What --warm made of one file (warm.c fills it). */
enum warm_reason {
	WARM_NOT_ALIGNED,	/* incongruent: run elfthp-align first */
	WARM_BUSY,		/* a process maps the window's small folios */
	WARM_NO_HUGE_FOLIOS,	/* the file system keeps none */
	WARM_NO_HUGE_PAGE,	/* none could be allocated */
	WARM_STILL_CACHED,	/* small folios outlived the drop, mapped by
				   no process this user can see */
	WARM_NREASONS,
};
#define WARM_MAX_PIDS 8
/*
 * One window's page-cache state, as a look finds it (--warm -n,
 * --report, the rewrite's page-cache step), and what warming does to it.
 */
enum window_state {
	WINDOW_NONE = 0,	/* no window of a congruent read-only PT_LOAD */
	WINDOW_HUGE,		/* one PMD-mapped folio now */
	WINDOW_UNCACHED,	/* nothing cached: warming reads it */
	WINDOW_SMALL,		/* small folios, unmapped: dropped and read again */
	WINDOW_BUSY,		/* small folios mapped by a process: left alone */
	WINDOW_NO_FOLIOS,	/* the file system keeps no huge folios */
	WINDOW_MADE_HUGE,	/* warming made it huge */
	WINDOW_STILL_SMALL,	/* warming tried; not_huge says why */
	WINDOW_COLLAPSE,	/* small folios, mapped or not: collapsed in
				   place (MADV_COLLAPSE works there) */
	WINDOW_UNKNOWN,		/* the kernel would not show its page cache */
};
const char *window_state_name(enum window_state);
struct warm_request {
	bool look_only;		/* change nothing: say what warming would do */
	bool huge_only;		/* with look_only: count the huge windows
				   (huge_before) and stop there */
	uint8_t *states;	/* NULL, or one enum window_state per PMD
				   range of the file (warm_plan's nranges) */
};
struct warm_result {
	uint64_t pmd;		/* the window size */
	uint64_t windows;	/* warmable + misaligned */
	uint64_t huge_before;
	uint64_t made_huge;
	uint64_t not_huge[WARM_NREASONS];
	uint64_t read_bytes;	/* brought into the page cache (look_only:
				   at most this much would be) */
	bool look_only;		/* made_huge and read_bytes say "would" */
	bool base_aligned;
	long pids[WARM_MAX_PIDS];	/* WARM_BUSY: who maps them */
	char comms[WARM_MAX_PIDS][16];	/* and their names (/proc/PID/comm) */
	size_t npids;
	size_t unreadable;	/* processes whose maps could not be read */
	uint64_t unclean;	/* WARM_STILL_CACHED: dirty or writeback pages */
	bool unclean_unknown;	/* ... where cachestat could not count them */
	const char *cache_how;	/* overlayfs: how the page cache was reached */
	const char *cache_why;	/* overlayfs: why not the real file */
	char fs_type[32];
	const char *fs_why;	/* WARM_NO_HUGE_FOLIOS: the fact behind it */
	const char *fs_advice;	/* ... and what would help (fs_expect) */
	bool cache_refused;	/* the first cachestat refused (EPERM): the
				   caller may not write the file (the kernel
				   shows its page cache only to a user who
				   may); a later refusal is a failed look */
};
uint64_t warm_not_huge(const struct warm_result *);


enum file_class warm_verdict(const struct warm_result *);
enum file_class settle_verdict(const struct warm_result *);
uint64_t windows_in_state(const uint8_t *states, uint64_t nranges,
    enum window_state);
/* findings.c: ready exactly when the rewrite would change nothing. */
enum file_class readiness_verdict(const struct plan *);

/* impact.c, continued. */
/* Who makes a PT_LOAD huge when it is loaded (docs/rewrite.md). */
struct load_takers {
	bool has_ld_so;	/* false: a static program, which no ld.so loads */
	bool glibc;	/* glibc.elf.thp (2.44): ld.so's MADV_HUGEPAGE */
	bool kernel;	/* the proposed binfmt_elf change aligns it */
	bool bionic;	/* bionic's linker: PF_X, p_align exactly 2 MiB */
};
bool layout_has_ld_so(const struct elf_layout *);
void load_takers(const struct elf_layout *, const struct seg_desc *,
    uint64_t pmd, uint64_t page, bool has_ld_so, struct load_takers *);
bool kernel_patch_aligns(const struct elf_layout *, const struct seg_desc *,
    uint64_t pmd);
/* What the headers say the file is: the loader that places it follows. */
enum file_kind { KIND_EXECUTABLE, KIND_PIE, KIND_STATIC_PIE,
	KIND_SHARED_LIBRARY };
enum file_kind file_kind(const struct elf_layout *);
const char *file_kind_name(enum file_kind);

/* measure_stats.c: --measure's verdict on a round and its statistics. */
#define MEASURE_MAX_FILES 256
/* What the processes of a round mapped of each FILE, in kB with PMDs. */
struct round_files {
	uint64_t sum_kb[MEASURE_MAX_FILES];	/* over every process */
	uint64_t min_kb[MEASURE_MAX_FILES];	/* of a process mapping it */
	uint64_t max_kb[MEASURE_MAX_FILES];
	uint32_t nmap[MEASURE_MAX_FILES];	/* processes mapping it */
};
/* One process's look at its exit folded into the round's. */
void round_files_add(struct round_files *, const uint64_t *kb,
    const bool *maps, size_t nfiles);
/*
 * Is a round in the state it was run in?  A huge round: every FILE
 * mapped, and PMD-mapped at least as much as in the warm-up round
 * (expected_kb, > 0) by every process that maps it; a small round: none
 * of them PMD-mapped by any process.  *why says what failed.
 */
bool round_verified(bool huge, const struct round_files *,
    const uint64_t *expected_kb, size_t nfiles, size_t *bad_file,
    const char **why);
/*
 * A round of the before-after comparison: file [0] is the one it must
 * map (the original before, the rewritten file after), [1] the other,
 * which no process may map.  A before round: some process maps the
 * original (however the kernel maps it); an after round: as a huge round
 * of file [0] (round_verified).  *why says what failed.
 */
bool round_ba_verified(bool after, const struct round_files *,
    const uint64_t *expected_kb, const char **why);
/* Below this many pairs no 95 % interval exists: no difference. */
#define MEASURE_MIN_PAIRS 6
/*
 * The 95 % interval of a median of n values from their order
 * statistics: its ends are the k-th smallest and the k-th largest.  k,
 * or 0 when n is too small for any (n < MEASURE_MIN_PAIRS).
 */
size_t median_ci_rank(size_t n);
struct metric_summary {
	size_t pairs;		/* pairs given */
	size_t n;		/* of them, pairs that gave a ratio */
	double small_median, small_min, small_max;
	double huge_median, huge_min, huge_max;
	double ratio_median;	/* huge/small, pair by pair */
	double ratio_min, ratio_max;
	bool ci;		/* n >= MEASURE_MIN_PAIRS: an interval */
	double ci_low, ci_high;	/* the median ratio's 95 % interval */
	bool noise;		/* no interval, or one that holds 1 */
};
int metric_summarize(const double *small, const double *huge, size_t n,
    struct metric_summary *);

#endif
