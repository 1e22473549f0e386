/* SPDX-License-Identifier: BSD-2-Clause */
/* SPDX-FileCopyrightText: 2026 the elfthp-align authors */
/*
 * The read pass for an APK, an app bundle or a zip: the only place that
 * touches libzip.  libzip opens the archive and checks it (ZIP_CHECKCONS:
 * every local header against the central directory, no two entries of one
 * name), and inflates what is compressed.  It does not say where an
 * entry's data starts, which is what Android's zip rule is about, so the
 * central directory is also walked here, in bounded reads, for each
 * entry's local header offset, and the local header read for the length
 * of its name and extra field; the walk must agree with libzip entry by
 * entry (name, sizes, method), or the archive is refused.
 *
 * Memory and time follow the central directory: an entry costs its name
 * and one struct, and an entry is inflated only when it is a native
 * library, never past ZIP_INFLATE_MAX, and never past the size it claims.
 * A stored library is read in place (elf_read.c's layout_read_range).
 *
 * libzip is opened with dlopen on the first archive, not linked: linked,
 * it brings libcrypto and libbz2 into every run (about 5 MiB more address
 * space before main), which every run would pay for a rare mode, and which
 * broke the tool's own bounds under ulimit -v (docs/limits.md).
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef ELFTHP_NO_ZIP
#include <dlfcn.h>
#include <pthread.h>
#include <zip.h>
#endif

#include "elfthp_io.h"
#include "elfthp_util.h"

/* A message in err, and the status st. */
#define say(err, n, st, ...) (error_text(err, n, __VA_ARGS__), (st))

/* An archive's first bytes: a local header, or an empty archive's end. */
bool
zip_magic(int fd)
{
	unsigned char m[4];

	return pread(fd, m, sizeof(m), 0) == (ssize_t)sizeof(m) &&
	    m[0] == 'P' && m[1] == 'K' && ((m[2] == 3 && m[3] == 4) ||
	    (m[2] == 5 && m[3] == 6));
}

#ifndef ELFTHP_NO_ZIP
/* The libzip calls this file makes, found by libzip_load. */
static struct {
	zip_t *(*fdopen)(int, int, int *);
	void (*discard)(zip_t *);
	zip_int64_t (*get_num_entries)(zip_t *, zip_flags_t);
	const char *(*get_name)(zip_t *, zip_uint64_t, zip_flags_t);
	int (*stat_index)(zip_t *, zip_uint64_t, zip_flags_t, zip_stat_t *);
	zip_file_t *(*fopen_index)(zip_t *, zip_uint64_t, zip_flags_t);
	zip_int64_t (*fread)(zip_file_t *, void *, zip_uint64_t);
	int (*fclose)(zip_file_t *);
	const char *(*strerror)(zip_t *);
	const char *(*file_strerror)(zip_file_t *);
	void (*error_init_with_code)(zip_error_t *, int);
	const char *(*error_strerror)(zip_error_t *);
	void (*error_fini)(zip_error_t *);
} Z;
static char z_failed[256];	/* why libzip could not be loaded, or "" */
static pthread_once_t z_once = PTHREAD_ONCE_INIT;

static void
libzip_open(void)
{
	/* Newest first: libzip.so.5 (libzip 1.10 and later), then .4. */
	static const char *const sonames[] = { "libzip.so.5", "libzip.so.4" };
	static const struct { const char *name; size_t at; } fn[] = {
#define F(f) { "zip_" #f, offsetof(__typeof__(Z), f) }
		F(fdopen), F(discard), F(get_num_entries), F(get_name),
		F(stat_index), F(fopen_index), F(fread), F(fclose), F(strerror),
		F(file_strerror), F(error_init_with_code), F(error_strerror),
		F(error_fini),
#undef F
	};
	void *h = NULL, *f;
	size_t i;

	for (i = 0; i < sizeof(sonames) / sizeof(sonames[0]) && h == NULL; i++)
		h = dlopen(sonames[i], RTLD_NOW | RTLD_LOCAL);
	if (h == NULL) {
		snprintf(z_failed, sizeof(z_failed), "archives need libzip "
		    "(libzip.so.5 or .4), which could not be loaded: %s",
		    dlerror());
		return;
	}
	for (i = 0; i < sizeof(fn) / sizeof(fn[0]); i++) {
		if ((f = dlsym(h, fn[i].name)) == NULL) {
			snprintf(z_failed, sizeof(z_failed), "the libzip found "
			    "has no %s", fn[i].name);
			return;
		}
		memcpy((char *)&Z + fn[i].at, &f, sizeof(f));
	}
}

/* 0 once libzip's calls are in Z (any thread), or -1 with why in err. */
static int
libzip_load(char *err, size_t n)
{
	pthread_once(&z_once, libzip_open);
	if (z_failed[0] == '\0')
		return 0;
	error_text(err, n, "%s", z_failed);
	return -1;
}
#endif

void
zip_listing_free(struct zip_listing *zl)
{
	size_t i;

	for (i = 0; i < zl->count; i++)
		free(zl->entries[i].name);
	free(zl->entries);
#ifndef ELFTHP_NO_ZIP
	if (zl->za != NULL)
		Z.discard(zl->za);
#endif
	memset(zl, 0, sizeof(*zl));
	zl->fd = -1;
}

#ifdef ELFTHP_NO_ZIP

enum read_status
zip_listing_read(int fd, struct zip_listing *zl, char *err, size_t n)
{
	memset(zl, 0, sizeof(*zl));
	zl->fd = -1;
	return say(err, n, READ_SYSERR, "a zip archive, and this elfthp-align "
	    "was built without archive support (make WITH_LIBZIP=0)");
}

enum read_status
zip_entry_layout(struct zip_listing *zl, size_t i, struct elf_layout *L,
    char *err, size_t n)
{
	return say(err, n, READ_SYSERR, "built without archive support");
}

#else /* !ELFTHP_NO_ZIP */

#define SIG_LOCAL	UINT32_C(0x04034b50)
#define SIG_CENTRAL	UINT32_C(0x02014b50)
#define SIG_END		UINT32_C(0x06054b50)
#define SIG_END64	UINT32_C(0x06064b50)
#define SIG_LOCATOR64	UINT32_C(0x07064b50)
#define LOCAL_SIZE	30	/* a local header before its name and extra */
#define CENTRAL_SIZE	46
#define END_SIZE	22
#define END64_SIZE	56
#define LOCATOR64_SIZE	20
#define COMMENT_MAX	65535

static uint16_t
le16(const unsigned char *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static uint32_t
le32(const unsigned char *p)
{
	return (uint32_t)le16(p) | (uint32_t)le16(p + 2) << 16;
}

static uint64_t
le64(const unsigned char *p)
{
	return (uint64_t)le32(p) | (uint64_t)le32(p + 4) << 32;
}

/* All of [off, off + len) of fd, or false. */
static bool
read_at(int fd, void *buf, size_t len, uint64_t off)
{
	return off <= INT64_MAX && pread(fd, buf, len, (off_t)off) ==
	    (ssize_t)len;
}

/* Where the central directory is, and how many entries it has. */
struct cdir {
	uint64_t offset;
	uint64_t size;
	uint64_t count;
};

/* The zip64 end record, where the classic one says its fields overflow. */
static enum read_status
read_end64(int fd, uint64_t end_at, struct cdir *cd, char *err, size_t n)
{
	unsigned char loc[LOCATOR64_SIZE], rec[END64_SIZE];

	if (end_at < LOCATOR64_SIZE || !read_at(fd, loc, sizeof(loc),
	    end_at - LOCATOR64_SIZE) || le32(loc) != SIG_LOCATOR64)
		return say(err, n, READ_MALFORMED, "the end of central "
		    "directory says zip64, and there is no zip64 locator");
	if (!read_at(fd, rec, sizeof(rec), le64(loc + 8)) ||
	    le32(rec) != SIG_END64)
		return say(err, n, READ_MALFORMED, "the zip64 end of central "
		    "directory record is missing or past the end");
	cd->count = le64(rec + 32);
	cd->size = le64(rec + 40);
	cd->offset = le64(rec + 48);
	return READ_OK;
}

/* The last end-of-central-directory record whose comment fits the file. */
static enum read_status
find_end(int fd, uint64_t size, struct cdir *cd, char *err, size_t n)
{
	size_t len = size < END_SIZE + COMMENT_MAX ? (size_t)size :
	    END_SIZE + COMMENT_MAX, i;
	unsigned char *tail = malloc(len ? len : 1);
	enum read_status st = READ_MALFORMED;

	if (tail == NULL)
		return say(err, n, READ_SYSERR, "out of memory");
	if (len < END_SIZE || !read_at(fd, tail, len, size - len)) {
		free(tail);
		return say(err, n, READ_MALFORMED, "no end of central directory");
	}
	error_text(err, n, "no end of central directory");
	for (i = len - END_SIZE + 1; i-- > 0;) {
		const unsigned char *e = tail + i;

		if (le32(e) != SIG_END || i + END_SIZE + le16(e + 20) > len)
			continue;
		cd->count = le16(e + 10);
		cd->size = le32(e + 12);
		cd->offset = le32(e + 16);
		st = READ_OK;
		if (cd->count == 0xffff || cd->size == 0xffffffff ||
		    cd->offset == 0xffffffff)
			st = read_end64(fd, size - len + i, cd, err, n);
		break;
	}
	free(tail);
	return st;
}

/* The zip64 extra field's sizes and offset, where the 32-bit ones overflow. */
static void
zip64_extra(const unsigned char *x, size_t len, struct archive_entry *e)
{
	size_t at = 0;

	while (at + 4 <= len) {
		size_t id = le16(x + at), dlen = le16(x + at + 2), q = at + 4;

		if (dlen > len - at - 4)
			return;
		if (id == 1) {
			if (e->size == 0xffffffff && q + 8 <= at + 4 + dlen)
				e->size = le64(x + q), q += 8;
			if (e->comp_size == 0xffffffff && q + 8 <= at + 4 + dlen)
				e->comp_size = le64(x + q), q += 8;
			if (e->header_offset == 0xffffffff &&
			    q + 8 <= at + 4 + dlen)
				e->header_offset = le64(x + q);
			return;
		}
		at += 4 + dlen;
	}
}

/* Where entry e's data starts: after its local header, name and extra. */
static enum read_status
data_offset(int fd, uint64_t size, struct archive_entry *e, size_t i,
    char *err, size_t n)
{
	unsigned char h[LOCAL_SIZE];

	if (!range_within(e->header_offset, LOCAL_SIZE, size) ||
	    !read_at(fd, h, sizeof(h), e->header_offset) ||
	    le32(h) != SIG_LOCAL)
		return say(err, n, READ_MALFORMED, "entry %zu: no local header "
		    "at 0x%llx", i, (unsigned long long)e->header_offset);
	e->data_offset = e->header_offset + LOCAL_SIZE + le16(h + 26) +
	    le16(h + 28);
	if (!range_within(e->data_offset, e->comp_size, size))
		return say(err, n, READ_MALFORMED, "entry %zu: its data (%llu "
		    "bytes at 0x%llx) runs past the end of the archive", i,
		    (unsigned long long)e->comp_size,
		    (unsigned long long)e->data_offset);
	return READ_OK;
}

/*
 * One central directory entry at *pos (before end), into e; *pos moves
 * past it.  x is a buffer of COMMENT_MAX bytes for the extra field.
 */
static enum read_status
central_entry(int fd, uint64_t *pos, uint64_t end, struct archive_entry *e,
    size_t i, unsigned char *x, char *err, size_t n)
{
	unsigned char h[CENTRAL_SIZE];
	size_t nlen, xlen;

	if (!range_within(*pos, CENTRAL_SIZE, end) ||
	    !read_at(fd, h, sizeof(h), *pos) || le32(h) != SIG_CENTRAL)
		return say(err, n, READ_MALFORMED, "central directory entry "
		    "%zu is missing or damaged", i);
	nlen = le16(h + 28);
	xlen = le16(h + 30);
	*e = (struct archive_entry){ .method = le16(h + 10),
		.comp_size = le32(h + 20), .size = le32(h + 24),
		.header_offset = le32(h + 42), .name_len = nlen,
		.name = malloc(nlen + 1) };
	if (e->name == NULL)
		return say(err, n, READ_SYSERR, "out of memory");
	e->name[nlen] = '\0';
	if (!range_within(*pos, CENTRAL_SIZE + nlen + xlen + le16(h + 32),
	    end) || !read_at(fd, e->name, nlen, *pos + CENTRAL_SIZE) ||
	    !read_at(fd, x, xlen, *pos + CENTRAL_SIZE + nlen))
		return say(err, n, READ_MALFORMED, "central directory entry "
		    "%zu runs past the central directory", i);
	zip64_extra(x, xlen, e);
	*pos += CENTRAL_SIZE + nlen + xlen + le16(h + 32);
	return READ_OK;
}

/* Every entry of the central directory, with its data offset. */
static enum read_status
walk_central(struct zip_listing *zl, char *err, size_t n)
{
	struct cdir cd;
	unsigned char *x;
	enum read_status st;
	uint64_t pos;

	if ((st = find_end(zl->fd, zl->size, &cd, err, n)) != READ_OK)
		return st;
	if (!range_within(cd.offset, cd.size, zl->size) ||
	    cd.count > cd.size / CENTRAL_SIZE)
		return say(err, n, READ_MALFORMED, "the central directory "
		    "(%llu entries, %llu bytes at 0x%llx) runs past the end of "
		    "the archive", (unsigned long long)cd.count,
		    (unsigned long long)cd.size,
		    (unsigned long long)cd.offset);
	zl->entries = calloc(cd.count ? cd.count : 1, sizeof(*zl->entries));
	x = malloc(COMMENT_MAX);
	if (zl->entries == NULL || x == NULL) {
		free(x);
		return say(err, n, READ_SYSERR, "out of memory");
	}
	for (pos = cd.offset; st == READ_OK && zl->count < cd.count;) {
		struct archive_entry *e = &zl->entries[zl->count];

		st = central_entry(zl->fd, &pos, cd.offset + cd.size, e,
		    zl->count, x, err, n);
		if (e->name != NULL)
			zl->count++;
		if (st == READ_OK)
			st = data_offset(zl->fd, zl->size, e, zl->count - 1,
			    err, n);
	}
	free(x);
	return st;
}

/* libzip's refusal, in words that say what is wrong with the archive. */
static enum read_status
libzip_refusal(int code, char *err, size_t n)
{
	zip_error_t ze;
	enum read_status st;

	Z.error_init_with_code(&ze, code);
	switch (code) {
	case ZIP_ER_NOZIP:
		st = say(err, n, READ_MALFORMED, "not a zip archive, or a "
		    "truncated one (no end of central directory)");
		break;
	case ZIP_ER_INCONS:
		st = say(err, n, READ_MALFORMED, "a damaged zip archive: its "
		    "central directory and local headers disagree, or run "
		    "past its end (libzip: %s)", Z.error_strerror(&ze));
		break;
	case ZIP_ER_EXISTS:
		st = say(err, n, READ_MALFORMED, "two entries have the same "
		    "name");
		break;
	default:
		st = say(err, n, code == ZIP_ER_MEMORY || code == ZIP_ER_READ ||
		    code == ZIP_ER_SEEK || code == ZIP_ER_OPEN ? READ_SYSERR :
		    READ_MALFORMED, "libzip: %s", Z.error_strerror(&ze));
	}
	Z.error_fini(&ze);
	return st;
}

/*
 * libzip found no end of central directory it takes (ZIP_ER_NOZIP).  Where
 * there is one (find_end), the archive is not "no zip": it is a damaged
 * one, said by the central directory's own walk where that finds the
 * problem, else as libzip's refusal of the record it found.
 */
static enum read_status
end_refused(struct zip_listing *zl, char *err, size_t n)
{
	struct cdir cd;
	enum read_status st;

	if (find_end(zl->fd, zl->size, &cd, err, n) != READ_OK)
		return libzip_refusal(ZIP_ER_NOZIP, err, n);
	if ((st = walk_central(zl, err, n)) != READ_OK)
		return st;
	return say(err, n, READ_MALFORMED, "a damaged zip archive: it has an "
	    "end of central directory record (%llu entries, %llu bytes at "
	    "0x%llx), which libzip refuses as inconsistent (its entries on "
	    "this disk and in all disagree, or its directory does not end "
	    "where the record starts)", (unsigned long long)cd.count,
	    (unsigned long long)cd.size, (unsigned long long)cd.offset);
}

/*
 * libzip's name for an entry and the central directory's bytes: the same,
 * but where libzip shows a NUL byte as something else (a space).
 */
static bool
same_name(const char *libzip, const struct archive_entry *e)
{
	size_t k;

	if (libzip == NULL || strlen(libzip) != e->name_len)
		return false;
	for (k = 0; k < e->name_len; k++)
		if (libzip[k] != e->name[k] && e->name[k] != '\0')
			return false;
	return true;
}

/* Does libzip's entry i say what the central directory walk read? */
static bool
agrees(zip_t *za, const struct archive_entry *e, size_t i)
{
	zip_stat_t s;

	if (Z.stat_index(za, i, ZIP_FL_ENC_RAW, &s) != 0 ||
	    !same_name(Z.get_name(za, i, ZIP_FL_ENC_RAW), e))
		return false;
	return (!(s.valid & ZIP_STAT_SIZE) || s.size == e->size) &&
	    (!(s.valid & ZIP_STAT_COMP_SIZE) || s.comp_size == e->comp_size) &&
	    (!(s.valid & ZIP_STAT_COMP_METHOD) || s.comp_method == e->method);
}

/*
 * The archive open in fd (not taken over: libzip gets a copy) and its
 * entries, into zl (zip_listing_free frees it, also on failure).
 */
enum read_status
zip_listing_read(int fd, struct zip_listing *zl, char *err, size_t n)
{
	struct stat sb;
	enum read_status st;
	int code = 0, copy;
	size_t i;

	memset(zl, 0, sizeof(*zl));
	zl->fd = fd;
	if (fstat(fd, &sb) != 0)
		return say(err, n, READ_SYSERR, "stat: %s", strerror(errno));
	zl->size = (uint64_t)sb.st_size;
	if (libzip_load(err, n) != 0)
		return READ_SYSERR;
	if ((copy = dup(fd)) < 0)
		return say(err, n, READ_SYSERR, "dup: %s", strerror(errno));
	zl->za = Z.fdopen(copy, ZIP_RDONLY | ZIP_CHECKCONS, &code);
	if (zl->za == NULL) {
		close(copy);
		return code == ZIP_ER_NOZIP ? end_refused(zl, err, n) :
		    libzip_refusal(code, err, n);
	}
	if ((st = walk_central(zl, err, n)) != READ_OK)
		return st;
	if ((zip_uint64_t)Z.get_num_entries(zl->za, 0) != zl->count)
		return say(err, n, READ_MALFORMED, "libzip sees %lld entries, "
		    "the central directory %zu", (long long)
		    Z.get_num_entries(zl->za, 0), zl->count);
	for (i = 0; i < zl->count; i++)
		if (!agrees(zl->za, &zl->entries[i], i))
			return say(err, n, READ_MALFORMED, "entry %zu: libzip "
			    "and the central directory disagree on it", i);
	zl->bundle = archive_is_bundle(zl->entries, zl->count);
	return READ_OK;
}

/*
 * Entry i inflated into a buffer of its stated size (the caller frees
 * *out): never more than ZIP_INFLATE_MAX, never past the size it states.
 */
static enum read_status
inflate_entry(struct zip_listing *zl, size_t i, unsigned char **out,
    char *err, size_t n)
{
	const struct archive_entry *e = &zl->entries[i];
	unsigned char *buf, extra;
	zip_file_t *zf;
	zip_int64_t got = 0, r = 0;

	*out = NULL;
	if (e->size > ZIP_INFLATE_MAX)
		return say(err, n, READ_MALFORMED, "compressed, and inflates to "
		    "%llu bytes, more than the %llu this tool inflates",
		    (unsigned long long)e->size,
		    (unsigned long long)ZIP_INFLATE_MAX);
	if ((zf = Z.fopen_index(zl->za, i, 0)) == NULL)
		return say(err, n, READ_MALFORMED, "cannot inflate it: libzip: "
		    "%s", Z.strerror(zl->za));
	if ((buf = malloc(e->size ? e->size : 1)) == NULL) {
		Z.fclose(zf);
		return say(err, n, READ_SYSERR, "out of memory");
	}
	while ((uint64_t)got < e->size &&
	    (r = Z.fread(zf, buf + got, e->size - (uint64_t)got)) > 0)
		got += r;
	/* One byte more: the stream must end where the entry says. */
	if (r >= 0 && (uint64_t)got == e->size)
		r = Z.fread(zf, &extra, 1);
	if (r != 0 || (uint64_t)got != e->size) {
		error_text(err, n, "cannot inflate it: %s", r > 0 ? "it "
		    "inflates past its stated size" : r < 0 ?
		    Z.file_strerror(zf) : "it ends before its stated size");
		Z.fclose(zf);
		free(buf);
		return READ_MALFORMED;
	}
	Z.fclose(zf);
	*out = buf;
	return READ_OK;
}

/*
 * The ELF layout of entry i: a stored entry read in place, a compressed
 * one inflated (inflate_entry's bounds).  layout_free frees it.
 */
enum read_status
zip_entry_layout(struct zip_listing *zl, size_t i, struct elf_layout *L,
    char *err, size_t n)
{
	const struct archive_entry *e = &zl->entries[i];
	unsigned char *buf;
	enum read_status st;

	memset(L, 0, sizeof(*L));
	if (e->method == 0 && e->size != e->comp_size)
		return say(err, n, READ_MALFORMED, "stored, and its sizes "
		    "differ (%llu and %llu bytes)", (unsigned long long)e->size,
		    (unsigned long long)e->comp_size);
	if (e->method == 0)
		return layout_read_range(zl->fd, e->data_offset, e->comp_size,
		    L, err, n);
	if ((st = inflate_entry(zl, i, &buf, err, n)) != READ_OK)
		return st;
	st = layout_read_mem(buf, (size_t)e->size, L, err, n);
	free(buf);
	return st;
}

#endif /* ELFTHP_NO_ZIP */
