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

#include "elfthp_core.h"

#define PRINTF_LIKE(f, a) __attribute__((format(printf, f, a)))

/* error_text.c: a message in err[n], and -1. */
int error_text(char *err, size_t n, const char *fmt, ...) PRINTF_LIKE(3, 4);
int verror_text(char *err, size_t n, const char *fmt, va_list)
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
/* Temporary files open at once (one per worker: MAX_JOBS is this). */
#define ATOMIC_MAX_OPEN 64
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
/* Remove the temporary file and free: idempotent, and a no-op after
 * atomic_rename succeeded.  Every failing atomic_* call has called it. */
void atomic_abort(struct atomic_file *);

/* fs_info.c: reading those facts. */
int fs_identify(const char *path, struct fs_info *, const char **failed);
int host_kernel(char *release, size_t, struct kernel_version *);
int thp_setting(const char *name, char *, size_t);
enum tri kernel_config(const char *option, const char *release, char *where,
    size_t, int *error);
const char *host_glibc(void);
struct kernel_version host_kernel_version(void);
enum tri host_ro_thp_for_fs(void);
int host_ro_thp_error(const char **what);
int fs_expect_path(const char *path, struct fs_info *, struct fs_expect *);

/* pagecache.c: page-cache primitives. */
struct pc_map {
	void *reserve;
	size_t reserve_len;
	unsigned char *addr;	/* PMD-aligned */
	size_t len;
	const char *failed;	/* pc_map failed: the call ("mmap") */
};
int host_pmd_read(uint64_t *);
uint64_t host_pmd_size(void);
uint64_t host_page_size(void);
uint16_t host_machine(void);
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
int pc_can_look(const char **what);
struct stat;
int pc_find_mappers(const struct stat *, uint64_t off, uint64_t len,
    long *pids, size_t max, size_t *count, size_t *unreadable);
void pc_comm(long pid, char *, size_t);

/* warm.c: --warm, one file; fills a struct warm_result (elfthp_core.h). */
int warm_file(int fd, const char *path, const struct warm_plan *,
    const struct warm_request *, struct warm_result *, char *err, size_t);

#endif
