/* SPDX-License-Identifier: BSD-2-Clause */
/* SPDX-FileCopyrightText: 2026 the elfthp-align authors */
/*
 * The write pass on ELF images this test builds itself with libelf
 * (ELF_F_LAYOUT, so it places every byte): ELFCLASS32 and ELFCLASS64,
 * ELFDATA2LSB and ELFDATA2MSB, with and without section headers.  Each
 * has an R, an R E and an RW PT_LOAD, lld-style: the text (4.5 MiB of
 * pattern bytes) is incongruent modulo 2 MiB, so the plan must move it.
 *
 * The real passes run: layout_read, plan_params_make, plan_build, plan_verify
 * give the plan the output is checked against, and process_file (the
 * tool's own path: open, lock, plan, write_new with atomic_file.c) does
 * the writing.  The output is then read back twice, with libelf and with
 * this file's own byte-order-aware parsing, and compared with the input:
 * every segment's and section's bytes at their new offsets, every header
 * field the plan does not change byte for byte, the ones it changes as
 * planned, and a second run that changes nothing.
 *
 * Failures are injected by wrapping pwrite64/pwrite and copy_file_range
 * (-Wl,--wrap=...): the Nth output write fails with ENOSPC, for every N
 * a rewrite makes.  Then -o leaves no destination, in place leaves the
 * original byte for byte, and neither leaves a temporary file behind.
 * RLIMIT_FSIZE below the output's size (SIGXFSZ ignored) makes the
 * kernel refuse too: EFBIG, at the ftruncate that sizes the output first.
 *
 * Build: make tests/test_rewrite (links every object but src/main.o).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <dirent.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "elfthp_cli.h"

#define K(x) ((uint64_t)(x) << 10)
#define M(x) ((uint64_t)(x) << 20)
#define PMD M(2)

/* Paths: a directory, an image in it, names derived from the image's. */
#define DIRLEN 1024
#define IMGLEN (DIRLEN + 64)
#define PATHLEN (IMGLEN + 64)

/* ---- injected write failures: every output write of the tool ---- */

ssize_t __real_pwrite64(int, const void *, size_t, off_t);
ssize_t __wrap_pwrite64(int, const void *, size_t, off_t);
ssize_t __real_pwrite(int, const void *, size_t, off_t);
ssize_t __wrap_pwrite(int, const void *, size_t, off_t);
ssize_t __real_copy_file_range(int, off_t *, int, off_t *, size_t,
    unsigned);
ssize_t __wrap_copy_file_range(int, off_t *, int, off_t *, size_t,
    unsigned);

static unsigned long writes;	/* output writes since the last reset */
static unsigned long fail_at;	/* 0: none; else the one that fails */
static size_t short_above;	/* 0: none; else writes longer are halved */

static bool
inject(void)
{
	if (fail_at != 0 && ++writes == fail_at) {
		errno = ENOSPC;
		return true;
	}
	if (fail_at == 0)
		writes++;
	return false;
}

static size_t
shortened(size_t len)
{
	return short_above != 0 && len > short_above ? len / 2 : len;
}

ssize_t
__wrap_pwrite64(int fd, const void *buf, size_t len, off_t off)
{
	if (inject())
		return -1;
	return __real_pwrite64(fd, buf, shortened(len), off);
}

ssize_t
__wrap_pwrite(int fd, const void *buf, size_t len, off_t off)
{
	if (inject())
		return -1;
	return __real_pwrite(fd, buf, shortened(len), off);
}

ssize_t
__wrap_copy_file_range(int in, off_t *inoff, int out, off_t *outoff,
    size_t len, unsigned flags)
{
	if (inject())
		return -1;
	return __real_copy_file_range(in, inoff, out, outoff, shortened(len),
	    flags);
}

static void
no_injection(void)
{
	writes = 0;
	fail_at = 0;
	short_above = 0;
}

/* ---- byte-order-aware encoding, independent of libelf ---- */

struct fmt {
	bool c64;
	bool msb;
};

static uint64_t
get(struct fmt f, const unsigned char *b, size_t size)
{
	uint64_t v = 0;
	size_t k;

	for (k = 0; k < size; k++)
		v |= (uint64_t)b[f.msb ? size - 1 - k : k] << (8 * k);
	return v;
}

static void
put(struct fmt f, unsigned char *b, size_t size, uint64_t v)
{
	size_t k;

	for (k = 0; k < size; k++)
		b[f.msb ? size - 1 - k : k] = (unsigned char)(v >> (8 * k));
}

/* A header field: where it lies in its class's struct, and its size. */
struct field {
	size_t off;
	size_t size;
};
#define F(type, m) { offsetof(type, m), sizeof(((type *)0)->m) }
#define FIELD(f, name, m) ((f).c64 ? (struct field)F(Elf64_##name, m) : \
	(struct field)F(Elf32_##name, m))

static uint64_t
rd(struct fmt f, const unsigned char *base, struct field x)
{
	return get(f, base + x.off, x.size);
}

static void
wr(struct fmt f, unsigned char *base, struct field x, uint64_t v)
{
	put(f, base + x.off, x.size, v);
}

/* ---- the images ---- */

struct spec {
	const char *name;
	uint8_t elfclass;
	uint8_t elfdata;
	uint16_t machine;
	bool shdrs;
};

/* Where the builder put things, in the input. */
struct image {
	struct spec s;
	struct fmt f;
	char path[IMGLEN];
	uint64_t size;
	uint64_t ehsize, phentsize, shentsize;
	uint64_t text_off, text_vaddr, text_size;
	uint64_t rw_off, rw_vaddr, rw_filesz;
	size_t nphdr, nsec;
	size_t text_idx;	/* program header index of the text */
};

#define TEXT_SIZE (M(4) + K(512) + 0x2a0)
#define NPHDR 6
#define NSEC 8

static uint8_t
pattern(uint64_t i, uint32_t seed)
{
	uint64_t x = (i + 1) * UINT64_C(0x9E3779B97F4A7C15) ^
	    (uint64_t)seed * UINT64_C(0xD1B54A32D192ED03);

	x ^= x >> 29;
	x *= UINT64_C(0xBF58476D1CE4E5B9);
	x ^= x >> 32;
	return (uint8_t)x;
}

static unsigned char *
patterned(uint64_t len, uint32_t seed)
{
	unsigned char *b = malloc(len ? len : 1);
	uint64_t i;

	assert_non_null(b);
	for (i = 0; i < len; i++)
		b[i] = pattern(i, seed);
	return b;
}

static uint64_t
up(uint64_t x, uint64_t a)
{
	return (x + a - 1) / a * a;
}

struct sec_spec {
	const char *name;
	uint32_t type;
	uint64_t flags, addr, off, size, align;
	unsigned char *bytes;	/* NULL for SHT_NULL and SHT_NOBITS */
};

static void
set_phdr(const struct image *im, void *table, size_t i, uint32_t type,
    uint32_t flags, uint64_t off, uint64_t vaddr, uint64_t filesz,
    uint64_t memsz, uint64_t align)
{
	if (im->f.c64) {
		((Elf64_Phdr *)table)[i] = (Elf64_Phdr){ type, flags, off,
		    vaddr, vaddr, filesz, memsz, align };
	} else {
		Elf32_Phdr *q = (Elf32_Phdr *)table + i;

		q->p_type = type;
		q->p_flags = flags;
		q->p_offset = (Elf32_Off)off;
		q->p_vaddr = q->p_paddr = (Elf32_Addr)vaddr;
		q->p_filesz = (Elf32_Word)filesz;
		q->p_memsz = (Elf32_Word)memsz;
		q->p_align = (Elf32_Word)align;
	}
}

static void
add_section(const struct image *im, Elf *e, const struct sec_spec *c,
    uint32_t name)
{
	Elf_Scn *scn = elf_newscn(e);
	Elf_Data *d;

	assert_non_null(scn);
	if (im->f.c64) {
		Elf64_Shdr *sh = elf64_getshdr(scn);

		*sh = (Elf64_Shdr){ .sh_name = name, .sh_type = c->type,
		    .sh_flags = c->flags, .sh_addr = c->addr,
		    .sh_offset = c->off, .sh_size = c->size,
		    .sh_addralign = c->align };
	} else {
		Elf32_Shdr *sh = elf32_getshdr(scn);

		*sh = (Elf32_Shdr){ .sh_name = name, .sh_type = c->type,
		    .sh_flags = (Elf32_Word)c->flags,
		    .sh_addr = (Elf32_Addr)c->addr,
		    .sh_offset = (Elf32_Off)c->off,
		    .sh_size = (Elf32_Word)c->size,
		    .sh_addralign = (Elf32_Word)c->align };
	}
	if (c->bytes == NULL)
		return;
	d = elf_newdata(scn);
	assert_non_null(d);
	d->d_buf = c->bytes;
	d->d_size = c->size;
	d->d_type = ELF_T_BYTE;
	d->d_align = 1;
	d->d_off = 0;
	d->d_version = EV_CURRENT;
}

/* Strip the section header table: e_shoff, e_shnum, e_shstrndx 0. */
static void
strip_shdrs(struct image *im, uint64_t shoff)
{
	unsigned char eh[sizeof(Elf64_Ehdr)];
	int fd = open(im->path, O_RDWR);

	assert_true(fd >= 0);
	assert_int_equal(pread(fd, eh, im->ehsize, 0), (ssize_t)im->ehsize);
	wr(im->f, eh, FIELD(im->f, Ehdr, e_shoff), 0);
	wr(im->f, eh, FIELD(im->f, Ehdr, e_shnum), 0);
	wr(im->f, eh, FIELD(im->f, Ehdr, e_shstrndx), 0);
	/* The test's own writes go to the real pwrite, never counted. */
	assert_int_equal(__real_pwrite64(fd, eh, im->ehsize, 0),
	    (ssize_t)im->ehsize);
	assert_int_equal(ftruncate(fd, (off_t)shoff), 0);
	close(fd);
	im->size = shoff;
}

/*
 * R from 0 (headers and .rodata), R E with p_vaddr = p_offset + 4 KiB,
 * RW 64 KiB further on (congruent for every machine's largest page),
 * then .comment, .shstrtab and the section header table.
 */
static void
build_image(struct image *im, const struct spec *s, const char *dir)
{
	static const char strtab[] = "\0.rodata\0.text\0.dynamic\0.data\0"
	    ".bss\0.comment\0.shstrtab";
	uint32_t names[NSEC] = { 0, 1, 9, 15, 24, 30, 35, 44 };
	struct sec_spec c[NSEC];
	uint64_t word, rodata_off = 0x200, rodata_size = 0x5f0, dyn_size,
	    data_size = 0x200, comment_off, strtab_off, shoff, entry;
	unsigned char *dyn;
	void *ph;
	Elf *e;
	int fd;
	size_t i;

	memset(im, 0, sizeof(*im));
	im->s = *s;
	im->f = (struct fmt){ s->elfclass == ELFCLASS64,
	    s->elfdata == ELFDATA2MSB };
	snprintf(im->path, sizeof(im->path), "%s/%s", dir, s->name);
	word = im->f.c64 ? 8 : 4;
	im->ehsize = im->f.c64 ? sizeof(Elf64_Ehdr) : sizeof(Elf32_Ehdr);
	im->phentsize = im->f.c64 ? sizeof(Elf64_Phdr) : sizeof(Elf32_Phdr);
	im->shentsize = im->f.c64 ? sizeof(Elf64_Shdr) : sizeof(Elf32_Shdr);
	im->nphdr = NPHDR;
	im->nsec = NSEC;
	im->text_off = rodata_off + rodata_size;
	im->text_vaddr = im->text_off + K(4);
	im->text_size = TEXT_SIZE;
	im->rw_off = up(im->text_off + im->text_size, 16);
	im->rw_vaddr = im->rw_off + K(64);
	dyn_size = 3 * 2 * word;
	im->rw_filesz = dyn_size + data_size;
	comment_off = im->rw_off + im->rw_filesz;
	strtab_off = comment_off + 0x41;
	shoff = up(strtab_off + sizeof(strtab), word);
	im->size = shoff + NSEC * im->shentsize;
	assert_true(im->ehsize + NPHDR * im->phentsize <= rodata_off);

	/* .dynamic: DT_FLAGS_1 = DF_1_PIE, DT_DEBUG, DT_NULL, in file order. */
	dyn = calloc(1, dyn_size);
	assert_non_null(dyn);
	put(im->f, dyn, word, DT_FLAGS_1);
	put(im->f, dyn + word, word, DF_1_PIE);
	put(im->f, dyn + 2 * word, word, DT_DEBUG);

	c[0] = (struct sec_spec){ "", SHT_NULL, 0, 0, 0, 0, 0, NULL };
	c[1] = (struct sec_spec){ ".rodata", SHT_PROGBITS, SHF_ALLOC,
	    rodata_off, rodata_off, rodata_size, 16,
	    patterned(rodata_size, 1) };
	c[2] = (struct sec_spec){ ".text", SHT_PROGBITS,
	    SHF_ALLOC | SHF_EXECINSTR, im->text_vaddr, im->text_off,
	    im->text_size, 16, patterned(im->text_size, 2) };
	c[3] = (struct sec_spec){ ".dynamic", SHT_DYNAMIC,
	    SHF_ALLOC | SHF_WRITE, im->rw_vaddr, im->rw_off, dyn_size, word,
	    dyn };
	c[4] = (struct sec_spec){ ".data", SHT_PROGBITS, SHF_ALLOC | SHF_WRITE,
	    im->rw_vaddr + dyn_size, im->rw_off + dyn_size, data_size, word,
	    patterned(data_size, 4) };
	c[5] = (struct sec_spec){ ".bss", SHT_NOBITS, SHF_ALLOC | SHF_WRITE,
	    im->rw_vaddr + im->rw_filesz, comment_off, 0x100, 16, NULL };
	c[6] = (struct sec_spec){ ".comment", SHT_PROGBITS, 0, 0, comment_off,
	    0x41, 1, patterned(0x41, 6) };
	c[7] = (struct sec_spec){ ".shstrtab", SHT_STRTAB, 0, 0, strtab_off,
	    sizeof(strtab), 1, (unsigned char *)strtab };

	fd = open(im->path, O_RDWR | O_CREAT | O_TRUNC, 0755);
	assert_true(fd >= 0);
	e = elf_begin(fd, ELF_C_WRITE, NULL);
	assert_non_null(e);
	entry = im->text_vaddr + 0x40;
	if (im->f.c64) {
		Elf64_Ehdr *eh = elf64_newehdr(e);

		assert_non_null(eh);
		eh->e_ident[EI_DATA] = s->elfdata;
		eh->e_type = ET_DYN;
		eh->e_machine = s->machine;
		eh->e_version = EV_CURRENT;
		eh->e_entry = entry;
		eh->e_phoff = im->ehsize;
		eh->e_shoff = shoff;
		eh->e_flags = 0;
		eh->e_shstrndx = NSEC - 1;
		ph = elf64_newphdr(e, NPHDR);
	} else {
		Elf32_Ehdr *eh = elf32_newehdr(e);

		assert_non_null(eh);
		eh->e_ident[EI_DATA] = s->elfdata;
		eh->e_type = ET_DYN;
		eh->e_machine = s->machine;
		eh->e_version = EV_CURRENT;
		eh->e_entry = (Elf32_Addr)entry;
		eh->e_phoff = (Elf32_Off)im->ehsize;
		eh->e_shoff = (Elf32_Off)shoff;
		eh->e_flags = 0;
		eh->e_shstrndx = NSEC - 1;
		ph = elf32_newphdr(e, NPHDR);
	}
	assert_non_null(ph);
	set_phdr(im, ph, 0, PT_PHDR, PF_R, im->ehsize, im->ehsize,
	    NPHDR * im->phentsize, NPHDR * im->phentsize, word);
	set_phdr(im, ph, 1, PT_LOAD, PF_R, 0, 0, im->text_off, im->text_off,
	    K(4));
	set_phdr(im, ph, 2, PT_LOAD, PF_R | PF_X, im->text_off,
	    im->text_vaddr, im->text_size, im->text_size, K(4));
	set_phdr(im, ph, 3, PT_LOAD, PF_R | PF_W, im->rw_off, im->rw_vaddr,
	    im->rw_filesz, im->rw_filesz + 0x100, K(64));
	set_phdr(im, ph, 4, PT_DYNAMIC, PF_R | PF_W, im->rw_off, im->rw_vaddr,
	    dyn_size, dyn_size, word);
	set_phdr(im, ph, 5, PT_GNU_STACK, PF_R | PF_W, 0, 0, 0, 0, 16);
	im->text_idx = 2;
	for (i = 0; i < NSEC; i++)
		if (i > 0)
			add_section(im, e, &c[i], names[i]);
	elf_flagelf(e, ELF_C_SET, ELF_F_LAYOUT);
	if (elf_update(e, ELF_C_WRITE) < 0)
		fail_msg("elf_update: %s", elf_errmsg(-1));
	elf_end(e);
	close(fd);
	for (i = 0; i < NSEC; i++)
		if (c[i].bytes != (unsigned char *)strtab)
			free(c[i].bytes);
	if (!s->shdrs)
		strip_shdrs(im, shoff);
}

/* ---- files ---- */

struct file {
	unsigned char *b;
	size_t n;
};

static struct file
slurp(const char *path)
{
	struct file f = { NULL, 0 };
	struct stat st;
	int fd = open(path, O_RDONLY);
	size_t got = 0;

	assert_true(fd >= 0);
	assert_int_equal(fstat(fd, &st), 0);
	f.n = (size_t)st.st_size;
	f.b = malloc(f.n ? f.n : 1);
	assert_non_null(f.b);
	while (got < f.n) {
		ssize_t r = read(fd, f.b + got, f.n - got);

		assert_true(r > 0);
		got += (size_t)r;
	}
	close(fd);
	return f;
}

static void
copy_file(const char *from, const char *to)
{
	struct file f = slurp(from);
	int fd = open(to, O_WRONLY | O_CREAT | O_TRUNC, 0755);
	size_t done = 0;

	assert_true(fd >= 0);
	while (done < f.n) {
		ssize_t r = write(fd, f.b + done, f.n - done);

		assert_true(r > 0);
		done += (size_t)r;
	}
	close(fd);
	free(f.b);
}

static bool
same_bytes(const char *a, const char *b)
{
	struct file x = slurp(a), y = slurp(b);
	bool same = x.n == y.n && memcmp(x.b, y.b, x.n) == 0;

	free(x.b);
	free(y.b);
	return same;
}

static bool
exists(const char *path)
{
	struct stat st;

	return lstat(path, &st) == 0;
}

/* Temporary files of ours in dir: NAME.elfthp-XXXXXX, .elfthp-XXXXXX. */
static size_t
temp_files(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	size_t n = 0;

	assert_non_null(d);
	while ((e = readdir(d)) != NULL)
		if (is_temp_name(e->d_name) || strstr(e->d_name, ".elfthp-"))
			n++;
	closedir(d);
	return n;
}

/* ---- the passes ---- */

struct planned {
	struct elf_layout L;
	struct plan_params p;
	struct plan P;
};

static void
plan_file(const char *path, struct planned *x)
{
	char msg[512];
	struct plan_error e;
	const char *why = NULL;
	int fd = open(path, O_RDONLY);

	assert_true(fd >= 0);
	if (layout_read(fd, &x->L, msg, sizeof(msg)) != READ_OK)
		fail_msg("layout_read %s: %s", path, msg);
	close(fd);
	if (plan_params_make(&(struct plan_request){ .machine = x->L.machine },
	    &x->p, &why) != 0)
		fail_msg("plan_params_make: %s", why);
	if (plan_build(&x->L, &x->p, &x->P, &e) != 0) {
		plan_strerror(&e, msg, sizeof(msg));
		fail_msg("plan_build %s: %s", path, msg);
	}
	memset(&e, 0, sizeof(e));
	assert_int_equal(plan_verify(&x->L, &x->p, &x->P, &e), 0);
}

static void
planned_free(struct planned *x)
{
	plan_free(&x->P);
	layout_free(&x->L);
}

/* The tool on one file: -o output, or in place if output is NULL. */
static enum file_class
run_tool(const char *input, const char *output, char *err, size_t errlen)
{
	struct options o = { .mode = MODE_REWRITE, .quiet = true,
	    .lock_timeout = 5, .output = output };
	char *text = NULL;
	size_t len = 0;
	FILE *out = fopen("/dev/null", "w"), *es = open_memstream(&text, &len);
	enum file_class c;

	assert_non_null(out);
	assert_non_null(es);
	c = process_file(input, &o, out, es, NULL);
	fclose(out);
	fclose(es);
	if (err != NULL)
		snprintf(err, errlen, "%s", text ? text : "");
	free(text);
	return c;
}

/* ---- the state every test gets: a directory of its own ---- */

struct state {
	char dir[DIRLEN];
	char buf[PATHLEN];
};

static int
setup(void **state)
{
	struct state *t = calloc(1, sizeof(*t));
	const char *tmp = getenv("TMPDIR");

	if (t == NULL)
		return -1;
	snprintf(t->dir, sizeof(t->dir), "%s/test_rewrite.XXXXXX",
	    tmp && *tmp ? tmp : "/tmp");
	if (mkdtemp(t->dir) == NULL) {
		free(t);
		return -1;
	}
	no_injection();
	*state = t;
	return 0;
}

static int
teardown(void **state)
{
	struct state *t = *state;
	struct dirent *e;
	DIR *d;

	no_injection();
	if (t == NULL)
		return 0;
	if ((d = opendir(t->dir)) != NULL) {
		while ((e = readdir(d)) != NULL)
			if (strcmp(e->d_name, ".") != 0 &&
			    strcmp(e->d_name, "..") != 0)
				unlinkat(dirfd(d), e->d_name, 0);
		closedir(d);
	}
	rmdir(t->dir);
	free(t);
	return 0;
}

static const char *
in_dir(struct state *t, const char *name)
{
	snprintf(t->buf, sizeof(t->buf), "%s/%s", t->dir, name);
	return t->buf;
}

/* ---- what the output must be ---- */

static bool
congruent(uint64_t off, uint64_t vaddr, uint64_t m)
{
	return ((off - vaddr) & (m - 1)) == 0;
}

/* The input as this test sees it, from its own parsing. */
static void
check_input_parse(const struct image *im, const struct file *in,
    const struct elf_layout *L)
{
	struct fmt f = im->f;
	const unsigned char *eh = in->b;
	size_t i;

	assert_int_equal(in->n, im->size);
	assert_int_equal(L->elfclass, im->s.elfclass);
	assert_int_equal(L->elfdata, im->s.elfdata);
	assert_int_equal(L->machine, im->s.machine);
	assert_int_equal(L->nsegs, im->nphdr);
	assert_int_equal(L->nsecs, im->s.shdrs ? im->nsec : 0);
	assert_int_equal(rd(f, eh, FIELD(f, Ehdr, e_phoff)), L->phoff);
	assert_int_equal(rd(f, eh, FIELD(f, Ehdr, e_shoff)), L->shoff);
	for (i = 0; i < L->nsegs; i++) {
		const unsigned char *ph = in->b + L->phoff + i * L->phentsize;

		assert_int_equal(rd(f, ph, FIELD(f, Phdr, p_offset)),
		    L->segs[i].offset);
		assert_int_equal(rd(f, ph, FIELD(f, Phdr, p_vaddr)),
		    L->segs[i].vaddr);
		assert_int_equal(rd(f, ph, FIELD(f, Phdr, p_filesz)),
		    L->segs[i].filesz);
	}
	assert_int_equal(L->segs[im->text_idx].offset, im->text_off);
	assert_false(congruent(im->text_off, im->text_vaddr, PMD));
}

/* The output, byte for byte, from the input and the plan's headers. */
static void
check_headers(const struct image *im, const struct file *in,
    const struct file *out, const struct planned *x)
{
	const struct elf_layout *L = &x->L;
	const struct plan *P = &x->P;
	struct fmt f = im->f;
	unsigned char want[sizeof(Elf64_Shdr)];
	size_t i;

	/* ELF header: identical but for e_shoff. */
	assert_true(out->n >= im->ehsize);
	assert_memory_equal(out->b, ELFMAG, SELFMAG);
	assert_int_equal(out->b[EI_CLASS], im->s.elfclass);
	assert_int_equal(out->b[EI_DATA], im->s.elfdata);
	memcpy(want, in->b, im->ehsize);
	wr(f, want, FIELD(f, Ehdr, e_shoff), P->new_shoff);
	assert_memory_equal(out->b, want, im->ehsize);
	assert_int_equal(rd(f, out->b, FIELD(f, Ehdr, e_phoff)), L->phoff);
	assert_int_equal(rd(f, out->b, FIELD(f, Ehdr, e_shoff)), P->new_shoff);

	/* Each program header: identical but for p_offset and p_align. */
	for (i = 0; i < L->nsegs; i++) {
		const unsigned char *ph = out->b + L->phoff + i * L->phentsize;

		memcpy(want, in->b + L->phoff + i * L->phentsize,
		    L->phentsize);
		wr(f, want, FIELD(f, Phdr, p_offset), P->segs[i].new_offset);
		wr(f, want, FIELD(f, Phdr, p_align), P->segs[i].new_align);
		assert_memory_equal(ph, want, L->phentsize);
		assert_int_equal(rd(f, ph, FIELD(f, Phdr, p_offset)),
		    P->segs[i].new_offset);
		assert_int_equal(rd(f, ph, FIELD(f, Phdr, p_vaddr)),
		    L->segs[i].vaddr);
	}

	/* Each section header: identical but for sh_offset. */
	if (!im->s.shdrs) {
		assert_int_equal(P->new_shoff, 0);
		return;
	}
	assert_true(P->new_shoff + L->nsecs * L->shentsize <= out->n);
	for (i = 0; i < L->nsecs; i++) {
		const unsigned char *sh = out->b + P->new_shoff +
		    i * L->shentsize;

		memcpy(want, in->b + L->shoff + i * L->shentsize,
		    L->shentsize);
		wr(f, want, FIELD(f, Shdr, sh_offset), P->sec_offset[i]);
		assert_memory_equal(sh, want, L->shentsize);
	}
}

/* Every segment's and every section's bytes, at their new offsets. */
static void
check_bytes(const struct file *in, const struct file *out,
    const struct planned *x)
{
	const struct elf_layout *L = &x->L;
	const struct plan *P = &x->P;
	size_t i;

	assert_int_equal(out->n, P->new_size);
	for (i = 0; i < L->nsegs; i++) {
		const struct seg_desc *s = &L->segs[i];
		uint64_t to = P->segs[i].new_offset;

		if (s->filesz == 0)
			continue;
		assert_true(to + s->filesz <= out->n);
		/* The headers' own bytes were checked field by field. */
		if (s->type == PT_PHDR)
			continue;
		if (s->offset == 0) {
			uint64_t hdr = L->phoff + L->nsegs * L->phentsize;

			assert_memory_equal(out->b + to + hdr, in->b + hdr,
			    s->filesz - hdr);
			continue;
		}
		assert_memory_equal(out->b + to, in->b + s->offset, s->filesz);
	}
	for (i = 0; i < L->nsecs; i++) {
		const struct sec_desc *c = &L->secs[i];

		if (c->type == SHT_NOBITS || c->type == SHT_NULL)
			continue;
		assert_true(P->sec_offset[i] + c->size <= out->n);
		assert_memory_equal(out->b + P->sec_offset[i],
		    in->b + c->offset, c->size);
	}
}

/* Everything, as the plan's extents say, over zeros; headers patched. */
static void
check_whole(const struct file *in, const struct file *out,
    const struct planned *x)
{
	const struct plan *P = &x->P;
	const struct elf_layout *L = &x->L;
	unsigned char *want = calloc(1, P->new_size);
	uint64_t hdr = L->phoff + L->nsegs * L->phentsize;
	size_t i;

	assert_non_null(want);
	for (i = 0; i < P->nextents; i++)
		memcpy(want + P->extents[i].dst, in->b + P->extents[i].src,
		    P->extents[i].len);
	/* Header tables, already compared: take them from the output. */
	memcpy(want, out->b, hdr);
	if (L->nsecs > 0)
		memcpy(want + P->new_shoff, out->b + P->new_shoff,
		    L->nsecs * L->shentsize);
	assert_int_equal(out->n, P->new_size);
	assert_memory_equal(out->b, want, P->new_size);
	free(want);
}

/* The output read back by libelf, apart from this file's parsing. */
static void
check_with_libelf(const struct image *im, const char *path,
    const struct planned *x)
{
	const struct elf_layout *L = &x->L;
	const struct plan *P = &x->P;
	int fd = open(path, O_RDONLY);
	size_t n, i, shnum = 0;
	GElf_Ehdr eh;
	Elf *e;
	char *id;

	assert_true(fd >= 0);
	e = elf_begin(fd, ELF_C_READ, NULL);
	assert_non_null(e);
	assert_int_equal(elf_kind(e), ELF_K_ELF);
	assert_int_equal(gelf_getclass(e), im->s.elfclass);
	id = elf_getident(e, NULL);
	assert_non_null(id);
	assert_int_equal((unsigned char)id[EI_DATA], im->s.elfdata);
	assert_non_null(gelf_getehdr(e, &eh));
	assert_int_equal(eh.e_type, ET_DYN);
	assert_int_equal(eh.e_machine, im->s.machine);
	assert_int_equal(eh.e_entry, L->entry);
	assert_int_equal(eh.e_phoff, L->phoff);
	assert_int_equal(eh.e_shoff, P->new_shoff);
	assert_int_equal(elf_getphdrnum(e, &n), 0);
	assert_int_equal(n, L->nsegs);
	for (i = 0; i < n; i++) {
		const struct seg_desc *s = &L->segs[i];
		GElf_Phdr ph;

		assert_non_null(gelf_getphdr(e, (int)i, &ph));
		assert_int_equal(ph.p_type, s->type);
		assert_int_equal(ph.p_flags, s->flags);
		assert_int_equal(ph.p_offset, P->segs[i].new_offset);
		assert_int_equal(ph.p_vaddr, s->vaddr);
		assert_int_equal(ph.p_paddr, s->paddr);
		assert_int_equal(ph.p_filesz, s->filesz);
		assert_int_equal(ph.p_memsz, s->memsz);
		assert_int_equal(ph.p_align, P->segs[i].new_align);
		if (i == im->text_idx) {
			/* The point of it all. */
			assert_true(congruent(ph.p_offset, ph.p_vaddr, PMD));
			assert_true(ph.p_align >= PMD);
			assert_int_not_equal(ph.p_offset, s->offset);
		}
		if (ph.p_type == PT_LOAD)
			assert_true(congruent(ph.p_offset, ph.p_vaddr, K(4)));
	}
	assert_int_equal(elf_getshdrnum(e, &shnum), 0);
	assert_int_equal(shnum, L->nsecs);
	for (i = 1; i < shnum; i++) {
		Elf_Scn *scn = elf_getscn(e, i);
		GElf_Shdr sh;

		assert_non_null(scn);
		assert_non_null(gelf_getshdr(scn, &sh));
		assert_int_equal(sh.sh_offset, P->sec_offset[i]);
		assert_int_equal(sh.sh_type, L->secs[i].type);
		assert_int_equal(sh.sh_size, L->secs[i].size);
		assert_int_equal(sh.sh_addr, L->secs[i].addr);
	}
	if (shnum > 0) {
		size_t strndx;
		Elf_Scn *scn = elf_getscn(e, 2);
		GElf_Shdr sh;

		assert_int_equal(elf_getshdrstrndx(e, &strndx), 0);
		assert_non_null(gelf_getshdr(scn, &sh));
		assert_string_equal(elf_strptr(e, strndx, sh.sh_name), ".text");
	}
	elf_end(e);
	close(fd);
}

/* ---- the tests ---- */

static const struct spec specs[] = {
	{ "x86_64", ELFCLASS64, ELFDATA2LSB, EM_X86_64, true },
	{ "x86_64-noshdr", ELFCLASS64, ELFDATA2LSB, EM_X86_64, false },
	{ "s390x", ELFCLASS64, ELFDATA2MSB, EM_S390, true },
	{ "s390x-noshdr", ELFCLASS64, ELFDATA2MSB, EM_S390, false },
	{ "i386", ELFCLASS32, ELFDATA2LSB, EM_386, true },
	{ "i386-noshdr", ELFCLASS32, ELFDATA2LSB, EM_386, false },
	{ "ppc", ELFCLASS32, ELFDATA2MSB, EM_PPC, true },
	{ "ppc-noshdr", ELFCLASS32, ELFDATA2MSB, EM_PPC, false },
};

/* One image through -o, checked every way; then again, and in place. */
static void
rewrite_one(struct state *t, const struct spec *s)
{
	struct image im;
	struct planned x, again;
	struct file in, out;
	char out_path[PATHLEN], copy_path[PATHLEN], err[1024];
	struct stat before, after;

	build_image(&im, s, t->dir);
	snprintf(out_path, sizeof(out_path), "%s.out", im.path);
	snprintf(copy_path, sizeof(copy_path), "%s.again", im.path);
	plan_file(im.path, &x);
	in = slurp(im.path);
	check_input_parse(&im, &in, &x.L);
	assert_true(x.P.changed);
	assert_int_equal(x.P.segs[im.text_idx].verdict, SEG_ELIGIBLE);

	if (run_tool(im.path, out_path, err, sizeof(err)) != FILE_DONE)
		fail_msg("%s: %s", s->name, err);
	/* -o leaves the input as it was. */
	assert_false(same_bytes(im.path, out_path));
	out = slurp(out_path);
	assert_int_equal(in.n, im.size);
	check_headers(&im, &in, &out, &x);
	check_bytes(&in, &out, &x);
	check_whole(&in, &out, &x);
	check_with_libelf(&im, out_path, &x);
	assert_int_equal(temp_files(t->dir), 0);

	/* A second rewrite changes nothing: no plan, and bytes unchanged. */
	plan_file(out_path, &again);
	assert_false(again.P.changed);
	assert_int_equal(again.P.new_size, out.n);
	planned_free(&again);
	assert_int_equal(stat(out_path, &before), 0);
	assert_int_equal(run_tool(out_path, NULL, err, sizeof(err)),
	    FILE_DONE);
	assert_int_equal(stat(out_path, &after), 0);
	assert_int_equal(before.st_ino, after.st_ino);
	assert_int_equal(before.st_mtim.tv_nsec, after.st_mtim.tv_nsec);
	assert_int_equal(run_tool(out_path, copy_path, err, sizeof(err)),
	    FILE_DONE);
	assert_true(same_bytes(out_path, copy_path));

	/* In place gives the same bytes as -o, and keeps the mode. */
	assert_int_equal(chmod(im.path, 0751), 0);
	assert_int_equal(run_tool(im.path, NULL, err, sizeof(err)), FILE_DONE);
	assert_true(same_bytes(im.path, out_path));
	assert_int_equal(stat(im.path, &after), 0);
	assert_int_equal(after.st_mode & 07777, 0751);
	assert_int_equal(temp_files(t->dir), 0);

	free(in.b);
	free(out.b);
	planned_free(&x);
}

#define SPEC_TEST(fn, k) \
	static void fn(void **state) { rewrite_one(*state, &specs[k]); }
SPEC_TEST(test_rewrite_elf64_lsb, 0)
SPEC_TEST(test_rewrite_elf64_lsb_no_shdrs, 1)
SPEC_TEST(test_rewrite_elf64_msb, 2)
SPEC_TEST(test_rewrite_elf64_msb_no_shdrs, 3)
SPEC_TEST(test_rewrite_elf32_lsb, 4)
SPEC_TEST(test_rewrite_elf32_lsb_no_shdrs, 5)
SPEC_TEST(test_rewrite_elf32_msb, 6)
SPEC_TEST(test_rewrite_elf32_msb_no_shdrs, 7)

/* The other copy path, the kernel's (btrfs gets it): the same bytes. */
static void
test_rewrite_in_kernel_copy(void **state)
{
	struct state *t = *state;
	struct image im;
	struct planned x;
	struct atomic_file a;
	char out_path[PATHLEN], ref_path[PATHLEN], err[512];
	unsigned long cfr;
	int in, dfd;

	build_image(&im, &specs[2], t->dir);
	snprintf(out_path, sizeof(out_path), "%s.kernel", im.path);
	snprintf(ref_path, sizeof(ref_path), "%s.ref", im.path);
	plan_file(im.path, &x);
	in = open(im.path, O_RDONLY);
	assert_true(in >= 0);
	dfd = open(t->dir, O_RDONLY | O_DIRECTORY);
	assert_true(dfd >= 0);
	assert_int_equal(atomic_open(&a, dfd, strrchr(out_path, '/') + 1,
	    out_path, NULL, err, sizeof(err)), 0);
	writes = 0;
	if (rewrite_to_fd(in, a.fd, &x.L, &x.P, COPY_IN_KERNEL, err,
	    sizeof(err)) != 0)
		fail_msg("rewrite_to_fd: %s", err);
	cfr = writes;
	assert_int_equal(atomic_copy_metadata(&a, in, false, err, sizeof(err)),
	    0);
	assert_int_equal(atomic_sync(&a, true, err, sizeof(err)), 0);
	assert_int_equal(atomic_rename(&a, err, sizeof(err)), 0);
	close(dfd);
	close(in);
	assert_true(cfr > 2);
	assert_int_equal(run_tool(im.path, ref_path, err, sizeof(err)),
	    FILE_DONE);
	assert_true(same_bytes(out_path, ref_path));
	assert_int_equal(temp_files(t->dir), 0);
	planned_free(&x);
}

/* How many output writes one clean rewrite of the image makes. */
static unsigned long
count_writes(struct state *t, const char *input)
{
	const char *probe = in_dir(t, "count.out");
	char err[512];
	unsigned long n;

	no_injection();
	assert_int_equal(run_tool(input, probe, err, sizeof(err)), FILE_DONE);
	n = writes;
	unlink(probe);
	assert_true(n >= 4);	/* data pieces, ELF header, two tables */
	return n;
}

/* -o: the Nth write fails, for every N: no output, no temporary file. */
static void
test_output_write_fails(void **state)
{
	struct state *t = *state;
	struct image im;
	char out_path[PATHLEN], err[1024];
	unsigned long n, total;

	build_image(&im, &specs[0], t->dir);
	snprintf(out_path, sizeof(out_path), "%s.out", im.path);
	total = count_writes(t, im.path);
	for (n = 1; n <= total; n++) {
		no_injection();
		fail_at = n;
		assert_int_equal(run_tool(im.path, out_path, err, sizeof(err)),
		    FILE_ERROR);
		if (strstr(err, strerror(ENOSPC)) == NULL)
			fail_msg("write %lu of %lu: %s", n, total, err);
		assert_false(exists(out_path));
		assert_int_equal(temp_files(t->dir), 0);
	}
	/* And without the fault, the same call succeeds. */
	no_injection();
	assert_int_equal(run_tool(im.path, out_path, err, sizeof(err)),
	    FILE_DONE);
	assert_int_equal(writes, total);
}

/* -o over an existing file: a failed write leaves the old one alone. */
static void
test_output_write_fails_keeps_old_output(void **state)
{
	struct state *t = *state;
	struct image im;
	char out_path[PATHLEN], err[1024];
	unsigned long total;

	build_image(&im, &specs[6], t->dir);
	snprintf(out_path, sizeof(out_path), "%s.out", im.path);
	total = count_writes(t, im.path);
	copy_file(im.path, out_path);
	no_injection();
	fail_at = total / 2 + 1;
	assert_int_equal(run_tool(im.path, out_path, err, sizeof(err)),
	    FILE_ERROR);
	assert_true(same_bytes(im.path, out_path));
	assert_int_equal(temp_files(t->dir), 0);
}

/* In place: the Nth write fails, for every N: the original intact. */
static void
test_in_place_write_fails(void **state)
{
	struct state *t = *state;
	struct image im;
	char keep[PATHLEN], err[1024];
	struct stat before, after;
	unsigned long n, total;

	build_image(&im, &specs[4], t->dir);
	snprintf(keep, sizeof(keep), "%s.orig", im.path);
	copy_file(im.path, keep);
	total = count_writes(t, im.path);
	assert_int_equal(stat(im.path, &before), 0);
	for (n = 1; n <= total; n++) {
		no_injection();
		fail_at = n;
		assert_int_equal(run_tool(im.path, NULL, err, sizeof(err)),
		    FILE_ERROR);
		if (strstr(err, strerror(ENOSPC)) == NULL)
			fail_msg("write %lu of %lu: %s", n, total, err);
		assert_int_equal(stat(im.path, &after), 0);
		assert_int_equal(after.st_ino, before.st_ino);
		assert_true(same_bytes(im.path, keep));
		assert_int_equal(temp_files(t->dir), 0);
	}
	no_injection();
	assert_int_equal(run_tool(im.path, NULL, err, sizeof(err)), FILE_DONE);
	assert_false(same_bytes(im.path, keep));
}

/*
 * The kernel refuses: RLIMIT_FSIZE below the output's size.  The write
 * pass sizes the output before it writes a byte, so it is that ftruncate
 * which fails (EFBIG, SIGXFSZ ignored), for -o and in place alike.
 */
static void
test_file_size_limit(void **state)
{
	struct state *t = *state;
	struct image im;
	char keep[PATHLEN], out_path[PATHLEN], err[1024];
	struct rlimit old, low;
	void (*was)(int);
	enum file_class c1, c2;

	build_image(&im, &specs[2], t->dir);
	snprintf(keep, sizeof(keep), "%s.orig", im.path);
	snprintf(out_path, sizeof(out_path), "%s.out", im.path);
	copy_file(im.path, keep);
	assert_int_equal(getrlimit(RLIMIT_FSIZE, &old), 0);
	low = old;
	low.rlim_cur = M(3);
	was = signal(SIGXFSZ, SIG_IGN);
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &low), 0);
	c1 = run_tool(im.path, out_path, err, sizeof(err));
	c2 = run_tool(im.path, NULL, NULL, 0);
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &old), 0);
	signal(SIGXFSZ, was);
	assert_int_equal(c1, FILE_ERROR);
	assert_non_null(strstr(err, strerror(EFBIG)));
	assert_int_equal(c2, FILE_ERROR);
	assert_false(exists(out_path));
	assert_true(same_bytes(im.path, keep));
	assert_int_equal(temp_files(t->dir), 0);
}

/* Short data writes are resumed where they stopped: the same output. */
static void
test_short_writes_resumed(void **state)
{
	struct state *t = *state;
	struct image im;
	char ref[PATHLEN], out_path[PATHLEN], err[1024];
	unsigned long total;

	build_image(&im, &specs[0], t->dir);
	snprintf(ref, sizeof(ref), "%s.ref", im.path);
	snprintf(out_path, sizeof(out_path), "%s.out", im.path);
	total = count_writes(t, im.path);
	assert_int_equal(run_tool(im.path, ref, err, sizeof(err)), FILE_DONE);
	no_injection();
	short_above = K(64);
	if (run_tool(im.path, out_path, err, sizeof(err)) != FILE_DONE)
		fail_msg("%s", err);
	assert_true(writes > total);
	no_injection();
	assert_true(same_bytes(ref, out_path));
}

/*
 * main() reopens a closed standard descriptor; where one is free anyway
 * (a library caller), atomic_open refuses a temporary file that got it,
 * since output printed to that stream would land in the new file.
 */
static void
test_temp_never_a_standard_descriptor(void **state)
{
	struct state *t = *state;
	struct atomic_file a;
	char err[256];
	int saved = dup(STDIN_FILENO), dfd = open(t->dir, O_RDONLY |
	    O_DIRECTORY), rc;

	assert_true(saved > STDERR_FILENO);
	assert_true(dfd > STDERR_FILENO);
	close(STDIN_FILENO);
	rc = atomic_open(&a, dfd, "target", in_dir(t, "target"), NULL, err,
	    sizeof(err));
	assert_int_equal(dup2(saved, STDIN_FILENO), STDIN_FILENO);
	close(saved);
	close(dfd);
	assert_int_equal(rc, -1);
	assert_non_null(strstr(err, "descriptor 0"));
	assert_int_equal(temp_files(t->dir), 0);
	assert_false(exists(in_dir(t, "target")));
}

#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)

int
main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_rewrite_elf64_lsb),
		T(test_rewrite_elf64_lsb_no_shdrs),
		T(test_rewrite_elf64_msb),
		T(test_rewrite_elf64_msb_no_shdrs),
		T(test_rewrite_elf32_lsb),
		T(test_rewrite_elf32_lsb_no_shdrs),
		T(test_rewrite_elf32_msb),
		T(test_rewrite_elf32_msb_no_shdrs),
		T(test_rewrite_in_kernel_copy),
		T(test_output_write_fails),
		T(test_output_write_fails_keeps_old_output),
		T(test_in_place_write_fails),
		T(test_file_size_limit),
		T(test_short_writes_resumed),
		T(test_temp_never_a_standard_descriptor),
	};

	if (elf_lib_init() != 0)
		return 1;
	return cmocka_run_group_tests_name("rewrite", tests, NULL, NULL);
}
