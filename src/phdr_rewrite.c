/* SPDX-License-Identifier: BSD-2-Clause */
/* SPDX-FileCopyrightText: 2026 the elfthp-align authors */
/*
 * The write pass: bytes first, then headers.
 *
 * Bytes reach the output by write() calls through a buffer of one PMD,
 * one write() per PMD-aligned range of the output, starting on its
 * boundary: that is what makes ext4 (6.16 and later) and XFS put it in
 * the page cache as one PMD-sized folio, so the next run maps the text
 * huge (docs/runtime.md, HUGE PAGES AT RUN TIME).
 * copy_file_range and FICLONE leave small folios or none at all; they are
 * kept for file systems that keep no huge folios anyway (btrfs), where
 * they are cheaper.  Memory use is one PMD, whatever the file's size.
 * Holes the plan opens are left as holes by ftruncate.
 *
 * Headers are re-read from the input, translated with libelf, edited field
 * by field, and translated back, so every field the plan does not change
 * keeps its exact bytes.  They are written last: a small write into an
 * empty page cache would leave a small folio where the first window
 * (GNU ld -z noseparate-code puts the text there) must be one folio.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <linux/fs.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "elfthp_io.h"

#define COPY_CHUNK	(UINT64_C(1) << 30)
#define TABLE_CHUNK	256
#define ALIGN_CHUNK	(UINT64_C(64) << 10)
#define SHRANK		"input shrank while being copied"

/*
 * One pass's large writes: the descriptors, the host's PMD (read from
 * sysfs once, not once a piece), and a window of address space, PMD
 * aligned, in which a piece of the input is mapped for write() to copy
 * from.
 *
 * Measured on ext4 (300 MiB lld program, bench part 1, 2026-12-06):
 * write() from a mapping of the input, populated before the write, costs
 * 0.85x cp; read() into a buffer of one huge page and write() from it,
 * two copies, cost 1.08 to 1.20x cp.  A window of 4 MiB is mapped at a
 * time: 2 MiB windows cost 0.98x (an mmap for every write), 8 MiB ones
 * 0.85 to 0.89x, but a window's pages count in the RSS while mapped.
 * The mapping is only ever read by the kernel, inside write(): an input
 * truncated meanwhile makes write() fail with EFAULT, never a SIGBUS.
 * Where the input cannot be mapped (a file system without mmap), the
 * window becomes a buffer of one PMD and each piece is read into it.
 */
struct copier {
	int in;
	int out;
	uint64_t pmd;
	uint64_t page;
	unsigned char *base;	/* PMD-aligned, span + pmd long */
	uint64_t span;		/* bytes of input one mapping holds */
	uint64_t from;		/* input offset mapped at base + from % pmd */
	uint64_t mapped;	/* bytes mapped there; 0: none */
	bool buffered;		/* base is a buffer of one PMD, not a mapping */
};

#define WINDOW	(UINT64_C(4) << 20)

/* 0, or -1 with err set.  The caller frees it with copier_end. */
static int
copier_begin(struct copier *c, int in, int out, char *err, size_t n)
{
	uint64_t pmd = host_pmd_size(), room;
	void *m;

	*c = (struct copier){ .in = in, .out = out, .pmd = pmd,
	    .page = (uint64_t)sysconf(_SC_PAGESIZE) };
	/* Room for a whole PMD piece however it lies against the pages. */
	c->span = (WINDOW > pmd ? WINDOW : pmd) + c->page;
	room = c->span + pmd;	/* and for any offset of it within a PMD */
	m = mmap(NULL, (size_t)(room + pmd), PROT_NONE,
	    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (m == MAP_FAILED)
		return error_text(err, n, "out of memory: %s", strerror(errno));
	c->base = (unsigned char *)(((uintptr_t)m + pmd - 1) &
	    ~(uintptr_t)(pmd - 1));
	if (c->base > (unsigned char *)m)
		munmap(m, (size_t)(c->base - (unsigned char *)m));
	munmap(c->base + room, (size_t)((unsigned char *)m + room + pmd -
	    (c->base + room)));
	/* Read ahead far, as cp's reads do, for the faults of a cold input. */
	(void)posix_fadvise(in, 0, 0, POSIX_FADV_SEQUENTIAL);
	return 0;
}

static void
copier_end(struct copier *c)
{
	if (c->base != NULL)
		munmap(c->base, (size_t)(c->span + c->pmd));
	c->base = NULL;
}

/*
 * The window as a buffer of one PMD, once the input could not be mapped.
 * 0, or -1 with err set.
 */
static int
copier_buffer(struct copier *c, char *err, size_t n)
{
	void *m = mmap(c->base, (size_t)c->pmd, PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);

	if (m == MAP_FAILED)
		return error_text(err, n, "out of memory: %s", strerror(errno));
	(void)madvise(c->base, (size_t)c->pmd, MADV_HUGEPAGE);
	c->buffered = true;
	c->mapped = 0;
	return 0;
}

/*
 * Map the input from src on, at an address congruent to src mod the PMD
 * (so a huge folio of the input maps as one), populated now: write()
 * then copies without a fault.  0, or -1 with errno set.
 */
static int
copier_map(struct copier *c, uint64_t src)
{
	uint64_t from = src & ~(c->page - 1);
	void *m = mmap(c->base + from % c->pmd, (size_t)c->span, PROT_READ,
	    MAP_SHARED | MAP_FIXED | MAP_POPULATE, c->in, (off_t)from);

	if (m == MAP_FAILED) {
		c->mapped = 0;
		return -1;
	}
	c->from = from;
	c->mapped = c->span;
	return 0;
}

/*
 * How long the next piece may be: a head up to the output's next PMD
 * boundary, then whole PMDs.  So each PMD-aligned range of the output is
 * exactly one write() that starts on its boundary: ext4 and XFS make
 * such a write one PMD folio (XFS less reliably for a range inside a
 * longer write that starts off a boundary: one window of 149 stayed
 * small, every time, for the 300 MiB lld binary).
 */
static uint64_t
piece_len(const struct copier *c, uint64_t dst, uint64_t len)
{
	uint64_t room = dst % c->pmd ? c->pmd - dst % c->pmd : c->pmd;

	return len < room ? len : room;
}

/* All of buf to the output at dst. */
static int
write_all(int out, const unsigned char *buf, uint64_t len, uint64_t dst,
    char *err, size_t n)
{
	while (len > 0) {
		ssize_t r = pwrite(out, buf, (size_t)len, (off_t)dst);

		if (r < 0 && errno == EINTR)
			continue;
		/* Only a mapped input that lost pages faults in write(). */
		if (r < 0 && errno == EFAULT)
			return error_text(err, n, SHRANK);
		if (r <= 0)
			return error_text(err, n, "write: %s", r < 0 ?
			    strerror(errno) : "no progress");
		buf += r;
		dst += (uint64_t)r;
		len -= (uint64_t)r;
	}
	return 0;
}

/* All of one piece into the buffer: a short read is an input that shrank. */
static int
read_piece(const struct copier *c, uint64_t src, size_t len, char *err,
    size_t n)
{
	size_t got = 0;

	while (got < len) {
		ssize_t r = pread(c->in, c->base + got, len - got,
		    (off_t)(src + got));

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return error_text(err, n, "read: %s", strerror(errno));
		if (r == 0)
			return error_text(err, n, SHRANK);
		got += (size_t)r;
	}
	return 0;
}

/*
 * Where the piece [src, src + len) of the input is to be copied from: the
 * mapped window, mapped afresh where the piece is not inside it, or the
 * buffer, read into.  NULL with err set.
 */
static const unsigned char *
piece_at(struct copier *c, uint64_t src, size_t len, char *err, size_t n)
{
	if (!c->buffered) {
		if ((c->mapped != 0 && src >= c->from &&
		    src + len <= c->from + c->mapped) || copier_map(c, src) == 0)
			return c->base + c->from % c->pmd + (src - c->from);
		if (copier_buffer(c, err, n) != 0)
			return NULL;
	}
	return read_piece(c, src, len, err, n) == 0 ? c->base : NULL;
}

/* [src, src + len) of the input to dst, one piece at a time. */
static int
piece_copy(struct copier *c, uint64_t src, uint64_t dst, uint64_t len,
    char *err, size_t n)
{
	while (len > 0) {
		size_t piece = (size_t)piece_len(c, dst, len);
		const unsigned char *from = piece_at(c, src, piece, err, n);

		if (from == NULL ||
		    write_all(c->out, from, piece, dst, err, n) != 0)
			return -1;
		src += piece;
		dst += piece;
		len -= piece;
	}
	return 0;
}

/*
 * The data of [from, limit) of the input, from SEEK_DATA and SEEK_HOLE:
 * [*start, *end), or *start == limit if only a hole is left.  Where the
 * file system cannot say, all of it is data.  No data left is a hole
 * only if the file still reaches limit; otherwise it shrank, and what
 * is missing must not be copied as a hole.  0, or -1 with err set.
 */
static int
next_data(int in, uint64_t from, uint64_t limit, uint64_t *start,
    uint64_t *end, char *err, size_t n)
{
	off_t d = lseek(in, (off_t)from, SEEK_DATA), h;
	struct stat st;

	*start = from;
	*end = limit;
	if (d < 0) {
		if (errno != ENXIO)
			return 0;
		if (fstat(in, &st) == 0 && (uint64_t)st.st_size < limit)
			return error_text(err, n, SHRANK);
		*start = limit;
		return 0;
	}
	*start = (uint64_t)d < limit ? (uint64_t)d : limit;
	h = lseek(in, d, SEEK_HOLE);
	if (h >= 0 && (uint64_t)h < limit)
		*end = (uint64_t)h;
	return 0;
}

/*
 * Holes of the input stay holes (the output was truncated to its size):
 * a sparse file is not made dense, and costs what its data costs.
 */
static int
write_range(struct copier *c, uint64_t src, uint64_t dst, uint64_t len,
    char *err, size_t n)
{
	uint64_t end = src + len, start, stop;

	while (src < end) {
		if (next_data(c->in, src, end, &start, &stop, err, n) != 0)
			return -1;
		dst += start - src;
		src = start;
		if (src < stop && piece_copy(c, src, dst, stop - src, err,
		    n) != 0)
			return -1;
		dst += stop - src;
		src = stop;
	}
	return 0;
}

static int
copy_range(struct copier *c, uint64_t src, uint64_t dst, uint64_t len,
    char *err, size_t n)
{
	while (len > 0) {
		loff_t s = (loff_t)src, d = (loff_t)dst;
		size_t want = len < COPY_CHUNK ? (size_t)len : COPY_CHUNK;

		/*
		 * Reach an output boundary of ALIGN_CHUNK first: the kernel
		 * copies in chunks of that size from where it starts, and
		 * chunks straddling output blocks cost ext4 a third more
		 * (bench/RESULTS.md, part 1b).
		 */
		if (dst % ALIGN_CHUNK != 0 && want > ALIGN_CHUNK - dst % ALIGN_CHUNK)
			want = (size_t)(ALIGN_CHUNK - dst % ALIGN_CHUNK);
		ssize_t r = copy_file_range(c->in, &s, c->out, &d, want, 0);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0 && (errno == EXDEV || errno == ENOSYS ||
		    errno == EINVAL || errno == EOPNOTSUPP))
			return piece_copy(c, src, dst, len, err, n);
		if (r < 0)
			return error_text(err, n, "copy: %s", strerror(errno));
		if (r == 0)
			return error_text(err, n, SHRANK);
		src += (uint64_t)r;
		dst += (uint64_t)r;
		len -= (uint64_t)r;
	}
	return 0;
}

static int
move_range(struct copier *c, uint64_t src, uint64_t dst, uint64_t len,
    enum copy_how how, char *err, size_t n)
{
	if (how == COPY_IN_KERNEL)
		return copy_range(c, src, dst, len, err, n);
	return write_range(c, src, dst, len, err, n);
}

int
copy_whole(int in, int out, uint64_t size, enum copy_how how, char *err,
    size_t n)
{
	struct copier c;
	int rc;

	if (how == COPY_IN_KERNEL && ioctl(out, FICLONE, in) == 0)
		return 0;
	if (ftruncate(out, 0) != 0 || ftruncate(out, (off_t)size) != 0)
		return error_text(err, n, "cannot size the output: %s",
		    strerror(errno));
	if (copier_begin(&c, in, out, err, n) != 0)
		return -1;
	rc = move_range(&c, 0, 0, size, how, err, n);
	copier_end(&c);
	return rc;
}

static bool
layout_unchanged(const struct elf_layout *L, const struct plan *P)
{
	size_t i;

	for (i = 0; i < P->nextents; i++)
		if (P->extents[i].src != P->extents[i].dst)
			return false;
	return P->new_size == L->file_size;
}

static int
copy_bytes(int in, int out, const struct elf_layout *L, const struct plan *P,
    enum copy_how how, char *err, size_t n)
{
	struct copier c;
	size_t i;
	int rc = 0;

	/* A header-only change can share every data block with the input. */
	if (how == COPY_IN_KERNEL && layout_unchanged(L, P) &&
	    ioctl(out, FICLONE, in) == 0)
		return 0;
	if (ftruncate(out, (off_t)P->new_size) != 0)
		return error_text(err, n, "cannot size the output: %s", strerror(errno));
	if (copier_begin(&c, in, out, err, n) != 0)
		return -1;
	for (i = 0; i < P->nextents && rc == 0; i++) {
		const struct extent *x = &P->extents[i];

		rc = move_range(&c, x->src, x->dst, x->len, how, err, n);
	}
	copier_end(&c);
	return rc;
}

/* Translate `count` table entries between file and memory order. */
static int
xlate(const struct elf_layout *L, Elf_Type type, void *file, void *mem,
    size_t bytes, bool to_file)
{
	Elf_Data f = { .d_buf = file, .d_type = type, .d_size = bytes,
	    .d_version = EV_CURRENT };
	Elf_Data m = { .d_buf = mem, .d_type = type, .d_size = bytes,
	    .d_version = EV_CURRENT };
	Elf_Data *r;

	if (L->elfclass == ELFCLASS32)
		r = to_file ? elf32_xlatetof(&f, &m, L->elfdata) :
		    elf32_xlatetom(&m, &f, L->elfdata);
	else
		r = to_file ? elf64_xlatetof(&f, &m, L->elfdata) :
		    elf64_xlatetom(&m, &f, L->elfdata);
	return r == NULL ? -1 : 0;
}

static void
edit_phdr(const struct elf_layout *L, const struct plan *P, void *mem,
    size_t k, size_t i)
{
	if (L->elfclass == ELFCLASS32) {
		Elf32_Phdr *ph = (Elf32_Phdr *)mem + k;

		ph->p_offset = (Elf32_Off)P->segs[i].new_offset;
		ph->p_align = (Elf32_Word)P->segs[i].new_align;
	} else {
		Elf64_Phdr *ph = (Elf64_Phdr *)mem + k;

		ph->p_offset = P->segs[i].new_offset;
		ph->p_align = P->segs[i].new_align;
	}
}

static void
edit_shdr(const struct elf_layout *L, const struct plan *P, void *mem,
    size_t k, size_t i)
{
	if (L->elfclass == ELFCLASS32)
		((Elf32_Shdr *)mem)[k].sh_offset = (Elf32_Off)P->sec_offset[i];
	else
		((Elf64_Shdr *)mem)[k].sh_offset = P->sec_offset[i];
}

typedef void edit_fn(const struct elf_layout *, const struct plan *, void *,
    size_t, size_t);

/* Read a header table from the input, edit each entry, write it out. */
static int
patch_table(int in, uint64_t from, int out, uint64_t to, size_t count,
    size_t entsize, Elf_Type type, edit_fn *edit, const struct elf_layout *L,
    const struct plan *P, char *err, size_t n)
{
	_Alignas(8) unsigned char file[TABLE_CHUNK * sizeof(Elf64_Shdr)];
	_Alignas(8) unsigned char mem[TABLE_CHUNK * sizeof(Elf64_Shdr)];
	size_t first, k;

	for (first = 0; first < count; first += TABLE_CHUNK) {
		size_t num = count - first < TABLE_CHUNK ? count - first :
		    TABLE_CHUNK;
		size_t bytes = num * entsize;
		off_t at = (off_t)(from + first * entsize);

		if (pread(in, file, bytes, at) != (ssize_t)bytes)
			return error_text(err, n, "cannot re-read the headers");
		if (xlate(L, type, file, mem, bytes, false) != 0)
			return error_text(err, n, "libelf: %s", elf_errmsg(-1));
		for (k = 0; k < num; k++)
			edit(L, P, mem, k, first + k);
		if (xlate(L, type, file, mem, bytes, true) != 0)
			return error_text(err, n, "libelf: %s", elf_errmsg(-1));
		if (write_all(out, file, bytes, to + first * entsize, err,
		    n) != 0)
			return -1;
	}
	return 0;
}

static int
patch_ehdr(int in, int out, const struct elf_layout *L, const struct plan *P,
    char *err, size_t n)
{
	_Alignas(8) unsigned char file[sizeof(Elf64_Ehdr)];
	_Alignas(8) unsigned char mem[sizeof(Elf64_Ehdr)];
	size_t bytes = L->ehdr_size;

	if (pread(in, file, bytes, 0) != (ssize_t)bytes ||
	    xlate(L, ELF_T_EHDR, file, mem, bytes, false) != 0)
		return error_text(err, n, "cannot re-read the ELF header");
	uint64_t phoff = P->nsplit > 0 ? P->table_off : P->new_phoff;

	if (L->elfclass == ELFCLASS32) {
		((Elf32_Ehdr *)mem)->e_shoff = (Elf32_Off)P->new_shoff;
		((Elf32_Ehdr *)mem)->e_phoff = (Elf32_Off)phoff;
		if (P->nsplit > 0)
			((Elf32_Ehdr *)mem)->e_phnum = (Elf32_Half)P->nphdrs_out;
	} else {
		((Elf64_Ehdr *)mem)->e_shoff = P->new_shoff;
		((Elf64_Ehdr *)mem)->e_phoff = phoff;
		if (P->nsplit > 0)
			((Elf64_Ehdr *)mem)->e_phnum = (Elf64_Half)P->nphdrs_out;
	}
	if (xlate(L, ELF_T_EHDR, file, mem, bytes, true) != 0)
		return error_text(err, n, "libelf: %s", elf_errmsg(-1));
	return write_all(out, file, bytes, 0, err, n);
}

/* One header of the split's table, in memory order, at mem[k]. */
static void
put_phdr(const struct elf_layout *L, const struct seg_desc *d, void *mem,
    size_t k)
{
	if (L->elfclass == ELFCLASS32)
		((Elf32_Phdr *)mem)[k] = (Elf32_Phdr){ .p_type = d->type,
		    .p_flags = d->flags, .p_offset = (Elf32_Off)d->offset,
		    .p_vaddr = (Elf32_Addr)d->vaddr,
		    .p_paddr = (Elf32_Addr)d->paddr,
		    .p_filesz = (Elf32_Word)d->filesz,
		    .p_memsz = (Elf32_Word)d->memsz,
		    .p_align = (Elf32_Word)d->align };
	else
		((Elf64_Phdr *)mem)[k] = (Elf64_Phdr){ .p_type = d->type,
		    .p_flags = d->flags, .p_offset = d->offset,
		    .p_vaddr = d->vaddr, .p_paddr = d->paddr,
		    .p_filesz = d->filesz, .p_memsz = d->memsz,
		    .p_align = d->align };
}

/*
 * The split's program header table, every entry from the plan, at
 * table_off.  Its entries are the plan's copies of the input's fields,
 * so a field the plan does not change keeps its value.
 */
static int
write_split_table(int out, const struct elf_layout *L, const struct plan *P,
    char *err, size_t n)
{
	_Alignas(8) unsigned char file[TABLE_CHUNK * sizeof(Elf64_Phdr)];
	_Alignas(8) unsigned char mem[TABLE_CHUNK * sizeof(Elf64_Phdr)];
	size_t first, k;

	for (first = 0; first < P->nphdrs_out; first += TABLE_CHUNK) {
		size_t num = P->nphdrs_out - first < TABLE_CHUNK ?
		    P->nphdrs_out - first : TABLE_CHUNK;
		size_t bytes = num * L->phentsize;

		for (k = 0; k < num; k++)
			put_phdr(L, &P->phdrs_out[first + k], mem, k);
		if (xlate(L, ELF_T_PHDR, file, mem, bytes, true) != 0)
			return error_text(err, n, "libelf: %s", elf_errmsg(-1));
		if (write_all(out, file, bytes, P->table_off +
		    first * L->phentsize, err, n) != 0)
			return -1;
	}
	return 0;
}

int
rewrite_to_fd(int in, int out, const struct elf_layout *L,
    const struct plan *P, enum copy_how how, char *err, size_t n)
{
	if (copy_bytes(in, out, L, P, how, err, n) != 0)
		return -1;
	if (patch_ehdr(in, out, L, P, err, n) != 0)
		return -1;
	if (P->nsplit > 0 ? write_split_table(out, L, P, err, n) != 0 :
	    patch_table(in, L->phoff, out, P->new_phoff, L->nsegs,
	    L->phentsize, ELF_T_PHDR, edit_phdr, L, P, err, n) != 0)
		return -1;
	if (L->nsecs > 0 && patch_table(in, L->shoff, out, P->new_shoff,
	    L->nsecs, L->shentsize, ELF_T_SHDR, edit_shdr, L, P, err, n) != 0)
		return -1;
	return 0;
}
