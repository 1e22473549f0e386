/*
 * The read pass: the only place, with phdr_rewrite.c, that touches libelf.
 * Everything taken from the file is checked here, once, before the planner
 * sees it: the header fields that locate other tables are range-checked
 * against the file size without overflow, and the program header count is
 * worked out independently of libelf and compared with its answer (libelf
 * 0.188 clamps a count that runs past EOF, and makes one up for PN_XNUM
 * without section headers).
 */
#include <errno.h>
#include <gelf.h>
#include <libelf.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "elfthp.h"

/* The raw header facts, translated to host order, before libelf opens the file. */
struct raw_hdr {
	GElf_Ehdr eh;
	uint64_t size;
	uint64_t phnum;
	uint64_t shnum;
};

int
elf_lib_init(void)
{
	return elf_version(EV_CURRENT) == EV_NONE ? -1 : 0;
}

static enum read_status
say(char *err, size_t n, enum read_status st, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, n, fmt, ap);
	va_end(ap);
	return st;
}

static bool
range_ok(uint64_t off, uint64_t len, uint64_t size)
{
	return len <= size && off <= size - len;
}

/* Read `len` bytes at `off` and translate them with libelf. */
static int
read_xlate(int fd, uint64_t off, Elf_Type type, size_t len, int elfclass,
    int data, void *out)
{
	unsigned char raw[128];
	Elf_Data src = { .d_buf = raw, .d_type = type, .d_size = len,
	    .d_version = EV_CURRENT };
	Elf_Data dst = { .d_buf = out, .d_type = type, .d_size = len,
	    .d_version = EV_CURRENT };

	if (len > sizeof(raw) || pread(fd, raw, len, (off_t)off) != (ssize_t)len)
		return -1;
	if (elfclass == ELFCLASS32)
		return elf32_xlatetom(&dst, &src, data) == NULL ? -1 : 0;
	return elf64_xlatetom(&dst, &src, data) == NULL ? -1 : 0;
}

static int
read_ehdr(int fd, int elfclass, int data, GElf_Ehdr *eh)
{
	if (elfclass == ELFCLASS64)
		return read_xlate(fd, 0, ELF_T_EHDR, sizeof(Elf64_Ehdr),
		    elfclass, data, eh);

	Elf32_Ehdr e;

	if (read_xlate(fd, 0, ELF_T_EHDR, sizeof(e), elfclass, data, &e) != 0)
		return -1;
	memcpy(eh->e_ident, e.e_ident, EI_NIDENT);
	eh->e_type = e.e_type;
	eh->e_machine = e.e_machine;
	eh->e_version = e.e_version;
	eh->e_entry = e.e_entry;
	eh->e_phoff = e.e_phoff;
	eh->e_shoff = e.e_shoff;
	eh->e_flags = e.e_flags;
	eh->e_ehsize = e.e_ehsize;
	eh->e_phentsize = e.e_phentsize;
	eh->e_phnum = e.e_phnum;
	eh->e_shentsize = e.e_shentsize;
	eh->e_shnum = e.e_shnum;
	eh->e_shstrndx = e.e_shstrndx;
	return 0;
}

/* Section 0, which holds the real counts when they overflow the ELF header. */
static int
read_shdr0(int fd, const GElf_Ehdr *eh, GElf_Shdr *sh)
{
	int cls = eh->e_ident[EI_CLASS], data = eh->e_ident[EI_DATA];

	if (cls == ELFCLASS64)
		return read_xlate(fd, eh->e_shoff, ELF_T_SHDR,
		    sizeof(Elf64_Shdr), cls, data, sh);

	Elf32_Shdr s;

	if (read_xlate(fd, eh->e_shoff, ELF_T_SHDR, sizeof(s), cls, data,
	    &s) != 0)
		return -1;
	memset(sh, 0, sizeof(*sh));
	sh->sh_size = s.sh_size;
	sh->sh_link = s.sh_link;
	sh->sh_info = s.sh_info;
	return 0;
}

static enum read_status
check_ident(int fd, uint64_t size, unsigned char *ident, char *err, size_t n)
{
	ssize_t r = pread(fd, ident, EI_NIDENT, 0);

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
static enum read_status
check_shdrs(int fd, struct raw_hdr *h, char *err, size_t n)
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
	if (!range_ok(eh->e_shoff, entsize, h->size))
		return say(err, n, READ_MALFORMED, "section header table "
		    "(e_shoff 0x%llx) is past end of file",
		    (unsigned long long)eh->e_shoff);
	if (read_shdr0(fd, eh, &sh0) != 0)
		return say(err, n, READ_SYSERR, "cannot read section header 0");
	h->shnum = eh->e_shnum ? eh->e_shnum : sh0.sh_size;
	if (eh->e_phnum == PN_XNUM)
		h->phnum = sh0.sh_info;
	if (h->shnum > h->size / entsize ||
	    !range_ok(eh->e_shoff, h->shnum * entsize, h->size))
		return say(err, n, READ_MALFORMED, "section header table "
		    "(%llu entries) extends past end of file",
		    (unsigned long long)h->shnum);
	return READ_OK;
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
	if (h->phnum > h->size / entsize ||
	    !range_ok(eh->e_phoff, h->phnum * entsize, h->size))
		return say(err, n, READ_MALFORMED, "program header table "
		    "(%llu entries at 0x%llx) extends past end of file",
		    (unsigned long long)h->phnum,
		    (unsigned long long)eh->e_phoff);
	return READ_OK;
}

/* Everything about the headers that can be checked without libelf's reader. */
static enum read_status
read_raw(int fd, struct raw_hdr *h, char *err, size_t n)
{
	unsigned char ident[EI_NIDENT];
	enum read_status st;
	size_t ehsize;
	struct stat sb;

	if (fstat(fd, &sb) != 0)
		return say(err, n, READ_SYSERR, "stat: %s", strerror(errno));
	h->size = (uint64_t)sb.st_size;
	if ((st = check_ident(fd, h->size, ident, err, n)) != READ_OK)
		return st;
	ehsize = ident[EI_CLASS] == ELFCLASS64 ? sizeof(Elf64_Ehdr) :
	    sizeof(Elf32_Ehdr);
	if (h->size < ehsize)
		return say(err, n, READ_MALFORMED, "truncated ELF header "
		    "(%llu of %zu bytes)", (unsigned long long)h->size, ehsize);
	if (read_ehdr(fd, ident[EI_CLASS], ident[EI_DATA], &h->eh) != 0)
		return say(err, n, READ_SYSERR, "cannot read the ELF header");
	if ((st = check_type(&h->eh, err, n)) != READ_OK)
		return st;
	h->phnum = h->eh.e_phnum;
	if ((st = check_shdrs(fd, h, err, n)) != READ_OK)
		return st;
	return check_phdrs(h, err, n);
}

static enum read_status
libelf_fail(char *err, size_t n, const char *what)
{
	return say(err, n, READ_MALFORMED, "%s: %s", what, elf_errmsg(-1));
}

static enum read_status
copy_phdrs(Elf *elf, const struct raw_hdr *h, struct elf_layout *L,
    char *err, size_t n)
{
	size_t count, i;

	if (elf_getphdrnum(elf, &count) != 0)
		return libelf_fail(err, n, "program headers");
	if (count != h->phnum)
		return say(err, n, READ_MALFORMED, "program header count is "
		    "inconsistent (%zu against %llu)", count,
		    (unsigned long long)h->phnum);
	if ((L->segs = calloc(count, sizeof(*L->segs))) == NULL)
		return say(err, n, READ_SYSERR, "out of memory");
	for (i = 0; i < count; i++) {
		GElf_Phdr ph;

		if (gelf_getphdr(elf, (int)i, &ph) == NULL)
			return libelf_fail(err, n, "program header");
		L->segs[i] = (struct seg_desc){ ph.p_type, ph.p_flags,
		    ph.p_offset, ph.p_vaddr, ph.p_paddr, ph.p_filesz,
		    ph.p_memsz, ph.p_align };
	}
	L->nsegs = count;
	return READ_OK;
}

static enum read_status
copy_shdrs(Elf *elf, const struct raw_hdr *h, struct elf_layout *L,
    char *err, size_t n)
{
	size_t count, i;

	if (h->shnum == 0)
		return READ_OK;
	if (elf_getshdrnum(elf, &count) != 0)
		return libelf_fail(err, n, "section headers");
	if (count != h->shnum)
		return say(err, n, READ_MALFORMED, "section header count is "
		    "inconsistent (%zu against %llu)", count,
		    (unsigned long long)h->shnum);
	if ((L->secs = calloc(count, sizeof(*L->secs))) == NULL)
		return say(err, n, READ_SYSERR, "out of memory");
	for (i = 0; i < count; i++) {
		Elf_Scn *scn = elf_getscn(elf, i);
		GElf_Shdr sh;

		if (scn == NULL || gelf_getshdr(scn, &sh) == NULL)
			return libelf_fail(err, n, "section header");
		L->secs[i] = (struct sec_desc){ sh.sh_name, sh.sh_type,
		    sh.sh_flags, sh.sh_addr, sh.sh_offset, sh.sh_size,
		    sh.sh_link, sh.sh_info, sh.sh_addralign, sh.sh_entsize };
	}
	L->nsecs = count;
	return READ_OK;
}

/*
 * PIE or shared library?  DT_FLAGS_1 tells a static-pie from a DSO, and
 * DT_SONAME a runnable DSO (libc.so.6 has PT_INTERP) from an old PIE.
 */
static void
read_dynamic_flags(Elf *elf, struct elf_layout *L)
{
	size_t i, k, entsize;

	for (i = 0; i < L->nsegs; i++) {
		const struct seg_desc *s = &L->segs[i];
		Elf_Data *d;

		if (s->type == PT_INTERP)
			L->has_interp = true;
		if (s->type != PT_DYNAMIC || s->filesz == 0)
			continue;
		d = elf_getdata_rawchunk(elf, (int64_t)s->offset, s->filesz,
		    ELF_T_DYN);
		entsize = gelf_fsize(elf, ELF_T_DYN, 1, EV_CURRENT);
		if (d == NULL || entsize == 0)
			continue;
		for (k = 0; k < s->filesz / entsize; k++) {
			GElf_Dyn dyn;

			if (gelf_getdyn(d, (int)k, &dyn) == NULL ||
			    dyn.d_tag == DT_NULL)
				break;
			if (dyn.d_tag == DT_FLAGS_1 && (dyn.d_un.d_val & DF_1_PIE))
				L->flags1_pie = true;
			if (dyn.d_tag == DT_SONAME)
				L->has_soname = true;
		}
	}
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

enum read_status
layout_read(int fd, struct elf_layout *L, char *err, size_t n)
{
	struct raw_hdr h;
	enum read_status st;
	Elf *elf;

	memset(L, 0, sizeof(*L));
	if ((st = read_raw(fd, &h, err, n)) != READ_OK)
		return st;
	fill_layout(&h, L);
	/* ELF_C_READ, not mmap: a file truncated under us gives EOF, not SIGBUS. */
	if ((elf = elf_begin(fd, ELF_C_READ, NULL)) == NULL)
		return libelf_fail(err, n, "elf_begin");
	if (elf_kind(elf) != ELF_K_ELF)
		st = say(err, n, READ_NOT_ELF, "not an ELF file");
	if (st == READ_OK)
		st = copy_phdrs(elf, &h, L, err, n);
	if (st == READ_OK)
		st = copy_shdrs(elf, &h, L, err, n);
	if (st == READ_OK && L->type == ET_DYN)
		read_dynamic_flags(elf, L);
	elf_end(elf);
	if (st != READ_OK)
		layout_free(L);
	return st;
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
