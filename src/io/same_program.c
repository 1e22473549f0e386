/* SPDX-License-Identifier: BSD-2-Clause */
/* SPDX-FileCopyrightText: 2026 the elfthp-align authors */
/*
 * --measure --before ORIG FILE: is ORIG the program FILE was rewritten
 * from?  A rewrite moves segments in the file (and may split one) but
 * never changes a byte at any address: every address that a PT_LOAD of
 * one file gives bytes from the file must have the same bytes, and the
 * same permissions, in the other, both ways; and the ELF headers must
 * agree on the class, byte order, type, machine and entry point.  ORIG
 * must also differ from FILE in its layout (a copy of FILE is no
 * "before").  Both files pass the door (layout_validate) first.
 */
#include <elf.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "elfthp_io.h"

#define CMP_CHUNK 65536

/* A file with the two ranges a rewrite changes: the ELF and program headers. */
struct side {
	int fd;
	uint64_t hdr_end;		/* [0, hdr_end): the ELF header */
	uint64_t ph_lo, ph_hi;		/* the program header table */
};

/* Bytes buf[0, k) read from offset off of s: its header bytes set to 0. */
static void
mask_headers(const struct side *s, uint64_t off, char *buf, size_t k)
{
	size_t i;

	for (i = 0; i < k; i++)
		if (off + i < s->hdr_end || (off + i >= s->ph_lo &&
		    off + i < s->ph_hi))
			buf[i] = 0;
}

/* Bytes [a_off, +len) of a against [b_off, +len) of b, each one's headers
 * masked in both: 0 same, 1 not, -1 a read failed (why). */
static int
bytes_differ(const struct side *a, uint64_t a_off, const struct side *b,
    uint64_t b_off, uint64_t len, char *why, size_t n)
{
	static char x[CMP_CHUNK], y[CMP_CHUNK];
	uint64_t done = 0;
	size_t k;

	while (done < len) {
		k = len - done < CMP_CHUNK ? (size_t)(len - done) : CMP_CHUNK;
		errno = 0;
		if (pread(a->fd, x, k, (off_t)(a_off + done)) != (ssize_t)k ||
		    pread(b->fd, y, k, (off_t)(b_off + done)) != (ssize_t)k) {
			error_text(why, n, "read: %s", errno ? strerror(errno) :
			    "short read");
			return -1;
		}
		mask_headers(a, a_off + done, x, k);
		mask_headers(a, a_off + done, y, k);
		mask_headers(b, b_off + done, x, k);
		mask_headers(b, b_off + done, y, k);
		if (memcmp(x, y, k) != 0)
			return 1;
		done += k;
	}
	return 0;
}

/*
 * Every file-backed byte of a's PT_LOAD i at the same address in b, with
 * the same permissions: 0, else -1 with why (naming the address).
 */
static int
load_in(const struct elf_layout *a, const struct side *fa, size_t i,
    const struct elf_layout *b, const struct side *fb, char *why, size_t n)
{
	const struct seg_desc *s = &a->segs[i], *t;
	uint64_t at = s->vaddr, end = s->vaddr + s->filesz, stop;
	size_t j;
	int d;

	while (at < end) {
		for (j = 0; j < b->nsegs; j++) {
			t = &b->segs[j];
			if (t->type == PT_LOAD && at >= t->vaddr &&
			    at - t->vaddr < t->filesz)
				break;
		}
		if (j == b->nsegs || t->flags != s->flags)
			return error_text(why, n, "not the same program: "
			    "address 0x%" PRIx64 " %s",
			    at, j == b->nsegs ? "has no file bytes in the other "
			    "file" : "has other permissions in the other file");
		stop = t->vaddr + t->filesz < end ? t->vaddr + t->filesz : end;
		d = bytes_differ(fa, s->offset + (at - s->vaddr), fb, t->offset +
		    (at - t->vaddr), stop - at, why, n);
		if (d != 0)
			return d < 0 ? -1 : error_text(why, n, "not the same "
			    "program: its bytes at 0x%" PRIx64 "..0x%" PRIx64
			    " differ", at, stop);
		at = stop;
	}
	return 0;
}

static int
loads_in(const struct elf_layout *a, const struct side *fa,
    const struct elf_layout *b, const struct side *fb, char *why, size_t n)
{
	size_t i;

	for (i = 0; i < a->nsegs; i++)
		if (a->segs[i].type == PT_LOAD &&
		    load_in(a, fa, i, b, fb, why, n) != 0)
			return -1;
	return 0;
}

/* The same PT_LOADs at the same offsets: FILE's own layout. */
static bool
same_layout(const struct elf_layout *a, const struct elf_layout *b)
{
	size_t i;

	if (a->nsegs != b->nsegs)
		return false;
	for (i = 0; i < a->nsegs; i++)
		if (memcmp(&a->segs[i], &b->segs[i], sizeof(a->segs[i])) != 0)
			return false;
	return true;
}

static struct side
side_of(int fd, const struct elf_layout *L)
{
	return (struct side){ .fd = fd, .hdr_end = L->ehdr_size,
		.ph_lo = L->phoff, .ph_hi = L->phoff + L->nsegs * L->phentsize };
}

static int
read_door(int fd, struct elf_layout *L, char *why, size_t n)
{
	struct plan_error pe;
	char msg[256];

	if (layout_read(fd, L, msg, sizeof(msg)) != READ_OK)
		return error_text(why, n, "%s", msg);
	if (layout_validate(L, &pe) != 0)
		return error_text(why, n, "its headers do not pass the tool's "
		    "checks (elfthp-align --check says why)");
	return 0;
}

int
same_program(int orig, int file, char *why, size_t n, bool *orig_bad)
{
	struct elf_layout a, b;
	struct side sa, sb;
	int rc = -1;

	*orig_bad = true;
	if (read_door(orig, &a, why, n) != 0)
		return -1;
	*orig_bad = false;
	if (read_door(file, &b, why, n) != 0) {
		layout_free(&a);
		return -1;
	}
	*orig_bad = true;
	sa = side_of(orig, &a);
	sb = side_of(file, &b);
	if (a.elfclass != b.elfclass || a.elfdata != b.elfdata ||
	    a.type != b.type || a.machine != b.machine || a.entry != b.entry)
		error_text(why, n, "not the same program: its ELF header "
		    "differs (class, byte order, type, machine or entry point)");
	else if (same_layout(&a, &b))
		error_text(why, n, "it has the same layout as the rewritten "
		    "file (a copy of it?): no \"before\" to compare");
	else if (loads_in(&a, &sa, &b, &sb, why, n) == 0 &&
	    loads_in(&b, &sb, &a, &sa, why, n) == 0)
		rc = 0;
	layout_free(&a);
	layout_free(&b);
	return rc;
}
