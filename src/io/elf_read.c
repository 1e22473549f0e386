/* SPDX-License-Identifier: BSD-2-Clause */
/* SPDX-FileCopyrightText: 2026 the elfthp-align authors */
/*
 * The read pass: the only place, with phdr_rewrite.c, that touches libelf.
 * Everything taken from the file is checked here, once, before the planner
 * sees it: the header fields that locate other tables are range-checked
 * against the file size without overflow, the program and section header
 * counts are worked out from the ELF header and section 0 (libelf 0.188
 * clamps a count that runs past EOF, and makes one up for PN_XNUM without
 * section headers), and both tables, and PT_DYNAMIC, are read in bounded
 * pieces and translated with libelf's xlate functions.  Nothing is sized
 * by what a header claims beyond the limits below: memory and time stay
 * in proportion to the tables really read.
 */
#include <errno.h>
#include <gelf.h>
#include <libelf.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "elfthp_io.h"
#include "elfthp_util.h"

/*
 * Limits on what one file may make the tool read.  A kernel loads at most
 * 64 KiB of program headers; real executables and libraries have tens of
 * thousands of sections at most (object files, which are not inputs, up to
 * about 30000 here).  Sections cost 80 bytes each in the layout and plan.
 */
#define MAX_PHDRS	65535u
#define MAX_SHDRS	(1u << 18)
#define MAX_DYN_BYTES	(UINT64_C(1) << 20)	/* of PT_DYNAMIC, per segment */
#define TABLE_PIECE	256			/* entries per read */

/* The raw header facts, translated to host order. */
struct raw_hdr {
	GElf_Ehdr eh;
	uint64_t size;
	uint64_t phnum;
	uint64_t shnum;
};

/*
 * Where the bytes of the ELF file are: a whole file (fd), a range of a
 * file (an archive's stored entry: base, size) or memory (an entry
 * inflated: mem, size).  With ranged, a read never goes past size; a
 * whole file is read as it is now, so a file that grows is not cut short.
 */
struct elf_src {
	int fd;
	uint64_t base;
	uint64_t size;
	const unsigned char *mem;
	bool ranged;
};

/* pread(2) on the source: bytes read, 0 at its end, -1 with errno. */
static ssize_t
src_pread(const struct elf_src *in, void *buf, size_t len, uint64_t off)
{
	if (in->ranged) {
		if (off >= in->size)
			return 0;
		if (len > in->size - off)
			len = (size_t)(in->size - off);
	}
	if (in->mem != NULL) {
		memcpy(buf, in->mem + off, len);
		return (ssize_t)len;
	}
	if (in->base > (uint64_t)INT64_MAX - off) {
		errno = EOVERFLOW;
		return -1;
	}
	return pread(in->fd, buf, len, (off_t)(in->base + off));
}

int
elf_lib_init(void)
{
	return elf_version(EV_CURRENT) == EV_NONE ? -1 : 0;
}

/* A message in err, and the status st. */
#define say(err, n, st, ...) (error_text(err, n, __VA_ARGS__), (st))

/*
 * Why a read of the headers failed: pread's errno, or (errno 0, set so
 * before the read) a file that ended early.  The message says which.
 */
static const char *
read_why(void)
{
	return errno != 0 ? strerror(errno) : "the file ended early (it "
	    "changed while being read?)";
}

/* Read `len` bytes at `off` and translate them with libelf. */
static int
read_xlate(const struct elf_src *in, uint64_t off, Elf_Type type, size_t len,
    int elfclass, int data, void *out)
{
	unsigned char raw[128];
	Elf_Data src = { .d_buf = raw, .d_type = type, .d_size = len,
	    .d_version = EV_CURRENT };
	Elf_Data dst = { .d_buf = out, .d_type = type, .d_size = len,
	    .d_version = EV_CURRENT };

	errno = 0;
	if (len > sizeof(raw) || src_pread(in, raw, len, off) != (ssize_t)len)
		return -1;
	if (elfclass == ELFCLASS32)
		return elf32_xlatetom(&dst, &src, data) == NULL ? -1 : 0;
	return elf64_xlatetom(&dst, &src, data) == NULL ? -1 : 0;
}

static int
read_ehdr(const struct elf_src *in, int elfclass, int data, GElf_Ehdr *eh)
{
	if (elfclass == ELFCLASS64)
		return read_xlate(in, 0, ELF_T_EHDR, sizeof(Elf64_Ehdr),
		    elfclass, data, eh);

	Elf32_Ehdr e;

	if (read_xlate(in, 0, ELF_T_EHDR, sizeof(e), elfclass, data, &e) != 0)
		return -1;
	*eh = (GElf_Ehdr){ .e_type = e.e_type, .e_machine = e.e_machine,
		.e_version = e.e_version, .e_entry = e.e_entry,
		.e_phoff = e.e_phoff, .e_shoff = e.e_shoff, .e_flags = e.e_flags,
		.e_ehsize = e.e_ehsize, .e_phentsize = e.e_phentsize,
		.e_phnum = e.e_phnum, .e_shentsize = e.e_shentsize,
		.e_shnum = e.e_shnum, .e_shstrndx = e.e_shstrndx };
	memcpy(eh->e_ident, e.e_ident, EI_NIDENT);
	return 0;
}

/* Section 0, which holds the real counts when they overflow the ELF header. */
static int
read_shdr0(const struct elf_src *in, const GElf_Ehdr *eh, GElf_Shdr *sh)
{
	int cls = eh->e_ident[EI_CLASS], data = eh->e_ident[EI_DATA];

	if (cls == ELFCLASS64)
		return read_xlate(in, eh->e_shoff, ELF_T_SHDR,
		    sizeof(Elf64_Shdr), cls, data, sh);

	Elf32_Shdr s;

	if (read_xlate(in, eh->e_shoff, ELF_T_SHDR, sizeof(s), cls, data,
	    &s) != 0)
		return -1;
	memset(sh, 0, sizeof(*sh));
	sh->sh_size = s.sh_size;
	sh->sh_link = s.sh_link;
	sh->sh_info = s.sh_info;
	return 0;
}

static enum read_status
check_ident(const struct elf_src *in, uint64_t size, unsigned char *ident,
    char *err, size_t n)
{
	ssize_t r = src_pread(in, ident, EI_NIDENT, 0);

	if (r < 0)
		return say(err, n, READ_SYSERR, "read: %s", strerror(errno));
	if (r < SELFMAG || memcmp(ident, ELFMAG, SELFMAG) != 0)
		return say(err, n, READ_NOT_ELF, "not an ELF file");
	if (r < EI_NIDENT)
		return say(err, n, READ_MALFORMED, "truncated ELF header "
		    "(%llu bytes)", (unsigned long long)size);
	if (ident[EI_CLASS] != ELFCLASS32 && ident[EI_CLASS] != ELFCLASS64)
		return say(err, n, READ_MALFORMED, "unknown ELF class %u",
		    ident[EI_CLASS]);
	if (ident[EI_DATA] != ELFDATA2LSB && ident[EI_DATA] != ELFDATA2MSB)
		return say(err, n, READ_MALFORMED, "unknown ELF data encoding %u",
		    ident[EI_DATA]);
	if (ident[EI_VERSION] != EV_CURRENT)
		return say(err, n, READ_MALFORMED, "unknown ELF version %u",
		    ident[EI_VERSION]);
	return READ_OK;
}

static enum read_status
check_type(const GElf_Ehdr *eh, char *err, size_t n)
{
	static const char *names[] = { "ET_NONE", "ET_REL", "ET_EXEC",
	    "ET_DYN", "ET_CORE" };

	if (eh->e_type == ET_EXEC || eh->e_type == ET_DYN)
		return READ_OK;
	if (eh->e_type < 5)
		return say(err, n, READ_NOT_APPLICABLE, "not an executable or "
		    "shared object (%s)", names[eh->e_type]);
	return say(err, n, READ_NOT_APPLICABLE, "not an executable or "
	    "shared object (e_type 0x%x)", eh->e_type);
}

/* Section header table: entry size, place, and the real count. */
/* A table of count entries at off: at most max of them, all in the file. */
static enum read_status
check_table(const struct raw_hdr *h, const char *what, uint64_t off,
    uint64_t count, size_t entsize, unsigned max, char *err, size_t n)
{
	if (count > max)
		return say(err, n, READ_MALFORMED, "%llu %s headers: more than "
		    "the %u this tool reads", (unsigned long long)count, what,
		    max);
	if (count > h->size / entsize || !range_within(off, count * entsize,
	    h->size))
		return say(err, n, READ_MALFORMED, "%s header table (%llu "
		    "entries at 0x%llx) extends past end of file", what,
		    (unsigned long long)count, (unsigned long long)off);
	return READ_OK;
}

static enum read_status
check_shdrs(const struct elf_src *in, struct raw_hdr *h, char *err, size_t n)
{
	GElf_Ehdr *eh = &h->eh;
	size_t entsize = eh->e_ident[EI_CLASS] == ELFCLASS64 ?
	    sizeof(Elf64_Shdr) : sizeof(Elf32_Shdr);
	GElf_Shdr sh0;

	h->shnum = 0;
	if (eh->e_shoff == 0)
		return READ_OK;
	if (eh->e_shentsize != entsize)
		return say(err, n, READ_MALFORMED, "e_shentsize %u is wrong "
		    "(expected %zu)", eh->e_shentsize, entsize);
	if (!range_within(eh->e_shoff, entsize, h->size))
		return say(err, n, READ_MALFORMED, "section header table "
		    "(e_shoff 0x%llx) is past end of file",
		    (unsigned long long)eh->e_shoff);
	if (read_shdr0(in, eh, &sh0) != 0)
		return say(err, n, READ_SYSERR, "cannot read section header 0: "
		    "%s", read_why());
	h->shnum = eh->e_shnum ? eh->e_shnum : sh0.sh_size;
	if (eh->e_phnum == PN_XNUM)
		h->phnum = sh0.sh_info;
	return check_table(h, "section", eh->e_shoff, h->shnum, entsize,
	    MAX_SHDRS, err, n);
}

static enum read_status
check_phdrs(struct raw_hdr *h, char *err, size_t n)
{
	GElf_Ehdr *eh = &h->eh;
	size_t entsize = eh->e_ident[EI_CLASS] == ELFCLASS64 ?
	    sizeof(Elf64_Phdr) : sizeof(Elf32_Phdr);

	if (eh->e_phnum == PN_XNUM && eh->e_shoff == 0)
		return say(err, n, READ_MALFORMED, "e_phnum is PN_XNUM but "
		    "there are no section headers to hold the count");
	if (eh->e_phoff == 0 || h->phnum == 0)
		return say(err, n, READ_MALFORMED, "no program headers");
	if (eh->e_phentsize != entsize)
		return say(err, n, READ_MALFORMED, "e_phentsize %u is wrong "
		    "(expected %zu)", eh->e_phentsize, entsize);
	return check_table(h, "program", eh->e_phoff, h->phnum, entsize,
	    MAX_PHDRS, err, n);
}

/* Everything about the headers that can be checked without libelf's reader. */
static enum read_status
read_raw(const struct elf_src *in, struct raw_hdr *h, char *err, size_t n)
{
	unsigned char ident[EI_NIDENT];
	enum read_status st;
	size_t ehsize;

	h->size = in->size;
	if ((st = check_ident(in, h->size, ident, err, n)) != READ_OK)
		return st;
	ehsize = ident[EI_CLASS] == ELFCLASS64 ? sizeof(Elf64_Ehdr) :
	    sizeof(Elf32_Ehdr);
	if (h->size < ehsize)
		return say(err, n, READ_MALFORMED, "truncated ELF header "
		    "(%llu of %zu bytes)", (unsigned long long)h->size, ehsize);
	if (read_ehdr(in, ident[EI_CLASS], ident[EI_DATA], &h->eh) != 0)
		return say(err, n, READ_SYSERR, "cannot read the ELF header: %s",
		    read_why());
	if ((st = check_type(&h->eh, err, n)) != READ_OK)
		return st;
	h->phnum = h->eh.e_phnum;
	if ((st = check_shdrs(in, h, err, n)) != READ_OK)
		return st;
	return check_phdrs(h, err, n);
}

/* The same fields in both classes: one initializer for either. */
#define SEG_DESC(p) ((struct seg_desc){ (p)->p_type, (p)->p_flags, \
	(p)->p_offset, (p)->p_vaddr, (p)->p_paddr, (p)->p_filesz, \
	(p)->p_memsz, (p)->p_align })
#define SEC_DESC(c) ((struct sec_desc){ (c)->sh_name, (c)->sh_type, \
	(c)->sh_flags, (c)->sh_addr, (c)->sh_offset, (c)->sh_size, \
	(c)->sh_link, (c)->sh_info, (c)->sh_addralign, (c)->sh_entsize })

/* Translated entries [first, first + num) of a table into the layout. */
static void
take(struct elf_layout *L, Elf_Type type, const void *mem, size_t first,
    size_t num)
{
	bool is64 = L->elfclass == ELFCLASS64;
	size_t k;

	for (k = 0; k < num; k++)
		if (type == ELF_T_PHDR)
			L->segs[first + k] = is64 ?
			    SEG_DESC((const Elf64_Phdr *)mem + k) :
			    SEG_DESC((const Elf32_Phdr *)mem + k);
		else
			L->secs[first + k] = is64 ?
			    SEC_DESC((const Elf64_Shdr *)mem + k) :
			    SEC_DESC((const Elf32_Shdr *)mem + k);
}

/*
 * Read `count` entries of `entsize` bytes at `off` in pieces, translated to
 * host order by libelf, into the layout.
 */
static enum read_status
read_table(const struct elf_src *in, const struct raw_hdr *h, uint64_t off,
    size_t count, size_t entsize, Elf_Type type, struct elf_layout *L,
    char *err, size_t n)
{
	_Alignas(8) unsigned char file[TABLE_PIECE * sizeof(Elf64_Shdr)];
	_Alignas(8) unsigned char mem[TABLE_PIECE * sizeof(Elf64_Shdr)];
	int cls = h->eh.e_ident[EI_CLASS], data = h->eh.e_ident[EI_DATA];
	size_t first;

	for (first = 0; first < count; first += TABLE_PIECE) {
		size_t num = count - first < TABLE_PIECE ? count - first :
		    TABLE_PIECE;
		size_t bytes = num * entsize;
		Elf_Data src = { .d_buf = file, .d_type = type,
		    .d_size = bytes, .d_version = EV_CURRENT };
		Elf_Data dst = { .d_buf = mem, .d_type = type,
		    .d_size = bytes, .d_version = EV_CURRENT };

		errno = 0;
		if (src_pread(in, file, bytes, off + first * entsize) !=
		    (ssize_t)bytes)
			return say(err, n, READ_SYSERR, "cannot read the "
			    "headers at 0x%llx: %s", (unsigned long long)off,
			    read_why());
		if ((cls == ELFCLASS64 ? elf64_xlatetom(&dst, &src, data) :
		    elf32_xlatetom(&dst, &src, data)) == NULL)
			return say(err, n, READ_MALFORMED, "libelf: %s",
			    elf_errmsg(-1));
		take(L, type, mem, first, num);
	}
	return READ_OK;
}

static enum read_status
copy_tables(const struct elf_src *in, const struct raw_hdr *h,
    struct elf_layout *L, char *err, size_t n)
{
	enum read_status st;

	L->segs = calloc(h->phnum, sizeof(*L->segs));
	L->secs = calloc(h->shnum ? h->shnum : 1, sizeof(*L->secs));
	if (L->segs == NULL || L->secs == NULL)
		return say(err, n, READ_SYSERR, "out of memory");
	L->nsegs = h->phnum;
	st = read_table(in, h, h->eh.e_phoff, h->phnum, h->eh.e_phentsize,
	    ELF_T_PHDR, L, err, n);
	if (st != READ_OK || h->shnum == 0)
		return st;
	L->nsecs = h->shnum;
	return read_table(in, h, h->eh.e_shoff, h->shnum, h->eh.e_shentsize,
	    ELF_T_SHDR, L, err, n);
}

/* DT_FLAGS_1 and DT_SONAME, from one piece of a dynamic section. */
static bool
scan_dynamic(struct elf_layout *L, const void *mem, size_t num)
{
	size_t k;

	for (k = 0; k < num; k++) {
		int64_t tag;
		uint64_t val;

		if (L->elfclass == ELFCLASS64) {
			tag = ((const Elf64_Dyn *)mem)[k].d_tag;
			val = ((const Elf64_Dyn *)mem)[k].d_un.d_val;
		} else {
			tag = ((const Elf32_Dyn *)mem)[k].d_tag;
			val = ((const Elf32_Dyn *)mem)[k].d_un.d_val;
		}
		if (tag == DT_NULL)
			return false;
		if (tag == DT_FLAGS_1 && (val & DF_1_PIE))
			L->flags1_pie = true;
		if (tag == DT_SONAME)
			L->has_soname = true;
	}
	return true;
}

/*
 * PIE or shared library?  DT_FLAGS_1 tells a static-pie from a DSO, and
 * DT_SONAME a runnable DSO (libc.so.6 has PT_INTERP) from an old PIE.
 * The first PT_DYNAMIC is read in pieces up to DT_NULL, and never more
 * than MAX_DYN_BYTES of it, whatever p_filesz claims or however many
 * there are.  A read that fails is an error: the kind of file decides
 * what every mode says of it.
 */
static enum read_status
read_dynamic_flags(const struct elf_src *in, const struct raw_hdr *h,
    struct elf_layout *L, char *err, size_t n)
{
	int cls = L->elfclass, data = L->elfdata;
	size_t entsize = cls == ELFCLASS64 ? sizeof(Elf64_Dyn) :
	    sizeof(Elf32_Dyn), i;
	_Alignas(8) unsigned char file[4096];
	_Alignas(8) unsigned char mem[4096];

	bool read_one = false;

	for (i = 0; i < L->nsegs; i++) {
		const struct seg_desc *s = &L->segs[i];
		uint64_t off, end;

		if (s->type == PT_INTERP)
			L->has_interp = true;
		/* The first PT_DYNAMIC is the one ld.so reads; so do we. */
		if (s->type != PT_DYNAMIC || read_one || s->filesz == 0 ||
		    !range_within(s->offset, s->filesz, h->size))
			continue;
		read_one = true;
		end = s->offset + (s->filesz < MAX_DYN_BYTES ? s->filesz :
		    MAX_DYN_BYTES);
		for (off = s->offset; off + entsize <= end;) {
			size_t want = (size_t)(end - off) < sizeof(file) ?
			    (size_t)(end - off) / entsize * entsize :
			    sizeof(file);
			Elf_Data src = { .d_buf = file, .d_type = ELF_T_DYN,
			    .d_size = want, .d_version = EV_CURRENT };
			Elf_Data dst = { .d_buf = mem, .d_type = ELF_T_DYN,
			    .d_size = want, .d_version = EV_CURRENT };

			errno = 0;
			if (src_pread(in, file, want, off) != (ssize_t)want)
				return say(err, n, READ_SYSERR, "cannot read "
				    "the dynamic section at 0x%llx: %s",
				    (unsigned long long)off, read_why());
			if ((cls == ELFCLASS64 ? elf64_xlatetom(&dst, &src, data) :
			    elf32_xlatetom(&dst, &src, data)) == NULL ||
			    !scan_dynamic(L, mem, want / entsize))
				break;
			off += want;
		}
	}
	return READ_OK;
}

static void
fill_layout(const struct raw_hdr *h, struct elf_layout *L)
{
	L->file_size = h->size;
	L->elfclass = h->eh.e_ident[EI_CLASS];
	L->elfdata = h->eh.e_ident[EI_DATA];
	L->type = h->eh.e_type;
	L->machine = h->eh.e_machine;
	L->entry = h->eh.e_entry;
	L->ehdr_size = L->elfclass == ELFCLASS64 ? sizeof(Elf64_Ehdr) :
	    sizeof(Elf32_Ehdr);
	L->phoff = h->eh.e_phoff;
	L->phentsize = h->eh.e_phentsize;
	L->shoff = h->eh.e_shoff;
	L->shentsize = h->eh.e_shentsize;
}

/* The read pass over any source: a file, a range of one, or memory. */
static enum read_status
read_src(const struct elf_src *in, struct elf_layout *L, char *err, size_t n)
{
	struct raw_hdr h;
	enum read_status st;

	memset(L, 0, sizeof(*L));
	if ((st = read_raw(in, &h, err, n)) != READ_OK)
		return st;
	fill_layout(&h, L);
	/* pread, never mmap: a file truncated under us gives EOF, not SIGBUS. */
	st = copy_tables(in, &h, L, err, n);
	if (st == READ_OK && L->type == ET_DYN)
		st = read_dynamic_flags(in, &h, L, err, n);
	if (st != READ_OK)
		layout_free(L);
	return st;
}

enum read_status
layout_read(int fd, struct elf_layout *L, char *err, size_t n)
{
	struct elf_src src = { .fd = fd };
	struct stat sb;

	memset(L, 0, sizeof(*L));
	if (fstat(fd, &sb) != 0)
		return say(err, n, READ_SYSERR, "stat: %s", strerror(errno));
	src.size = (uint64_t)sb.st_size;
	return read_src(&src, L, err, n);
}

/*
 * The ELF file that is bytes [off, off + size) of fd (an archive's stored
 * entry, read in place): offsets in it are relative to off, and nothing
 * outside the range is ever read.
 */
enum read_status
layout_read_range(int fd, uint64_t off, uint64_t size, struct elf_layout *L,
    char *err, size_t n)
{
	const struct elf_src src = { .fd = fd, .base = off, .size = size,
		.ranged = true };

	return read_src(&src, L, err, n);
}

/* The ELF file that is the `size` bytes at mem (the caller's to free). */
enum read_status
layout_read_mem(const void *mem, size_t size, struct elf_layout *L,
    char *err, size_t n)
{
	const struct elf_src src = { .fd = -1, .mem = mem, .size = size,
		.ranged = true };

	return read_src(&src, L, err, n);
}

void
layout_free(struct elf_layout *L)
{
	free(L->segs);
	free(L->secs);
	L->segs = NULL;
	L->secs = NULL;
	L->nsegs = L->nsecs = 0;
}
