/* SPDX-License-Identifier: BSD-2-Clause */
/* SPDX-FileCopyrightText: 2026 the elfthp-align authors */
/*
 * One JSON dialect for every mode: objects written a key at a time, so
 * that no mode spells a line by hand.  Every line is one object that
 * starts with "schema" and "mode" (docs/json.md, JSON OUTPUT); byte counts are
 * *_bytes; the output is valid UTF-8 (see json_string for file names
 * that are not).
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>

#include "elfthp_cli.h"

/* Length of the valid UTF-8 sequence at p, or 0 if it is not one. */
static size_t
utf8_len(const unsigned char *p)
{
	size_t n, i;

	if (*p < 0x80)
		return 1;
	if (*p >= 0xc2 && *p <= 0xdf)
		n = 2;
	else if (*p >= 0xe0 && *p <= 0xef)
		n = 3;
	else if (*p >= 0xf0 && *p <= 0xf4)
		n = 4;
	else
		return 0;
	for (i = 1; i < n; i++)
		if ((p[i] & 0xc0) != 0x80)
			return 0;
	/* Overlong forms, UTF-16 surrogates, and past U+10FFFF. */
	if ((p[0] == 0xe0 && p[1] < 0xa0) || (p[0] == 0xed && p[1] >= 0xa0) ||
	    (p[0] == 0xf0 && p[1] < 0x90) || (p[0] == 0xf4 && p[1] >= 0x90))
		return 0;
	return n;
}

/*
 * A JSON string.  JSON is UTF-8, file names are bytes: valid UTF-8 is
 * kept, and each byte that is not part of it (0x80 to 0xff) is written
 * as the lone surrogate \udcXX, the "surrogateescape" of Python's
 * os.fsdecode (PEP 383).  That is lossless and never ambiguous (valid
 * UTF-8 cannot hold U+DC80 to U+DCFF), so two files never get one name,
 * os.fsencode() gives the bytes back, the line stays ASCII-clean JSON,
 * and no key is added.  U+FFFD, used before, gave two names one string.
 */
void
json_string(FILE *f, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n;

	fputc('"', f);
	while (*p) {
		if (*p == '"' || *p == '\\')
			fprintf(f, "\\%c", *p);
		else if (*p < 0x20 || *p == 0x7f)
			fprintf(f, "\\u%04x", *p);
		else if ((n = utf8_len(p)) == 0)
			fprintf(f, "\\udc%02x", *p);
		else {
			fwrite(p, 1, n, f);
			p += n;
			continue;
		}
		p++;
	}
	fputc('"', f);
}

/* The separator and the key, if any, of the next member. */
static void
member(struct json *j, const char *key)
{
	if (j->depth > 0 && !j->first[j->depth - 1])
		fputc(',', j->f);
	if (j->depth > 0)
		j->first[j->depth - 1] = false;
	if (key != NULL) {
		json_string(j->f, key);
		fputc(':', j->f);
	}
}

static void
open_scope(struct json *j, const char *key, char c)
{
	member(j, key);
	fputc(c, j->f);
	if (j->depth < JSON_MAX_DEPTH) {
		j->first[j->depth] = true;
		j->closer[j->depth++] = c == '{' ? '}' : ']';
	}
}

void
json_begin(struct json *j, FILE *f, const char *mode)
{
	j->f = f;
	j->depth = 0;
	open_scope(j, NULL, '{');
	json_u64(j, "schema", JSON_SCHEMA);
	json_str(j, "mode", mode);
}

void
json_end(struct json *j)
{
	while (j->depth > 0)
		json_close(j);
	fputc('\n', j->f);
}

void
json_object(struct json *j, const char *key)
{
	open_scope(j, key, '{');
}

void
json_array(struct json *j, const char *key)
{
	open_scope(j, key, '[');
}

/* Close the innermost object or array (json_object or json_array). */
void
json_close(struct json *j)
{
	if (j->depth > 0)
		fputc(j->closer[--j->depth], j->f);
}

void
json_str(struct json *j, const char *key, const char *v)
{
	member(j, key);
	if (v == NULL)
		fputs("null", j->f);
	else
		json_string(j->f, v);
}

void
json_u64(struct json *j, const char *key, uint64_t v)
{
	member(j, key);
	fprintf(j->f, "%" PRIu64, v);
}

void
json_i64(struct json *j, const char *key, int64_t v)
{
	member(j, key);
	fprintf(j->f, "%" PRId64, v);
}

void
json_bool(struct json *j, const char *key, bool v)
{
	member(j, key);
	fputs(v ? "true" : "false", j->f);
}

/* A measured number; null where there is none (never a made-up 0). */
void
json_double(struct json *j, const char *key, double v)
{
	member(j, key);
	if (isfinite(v))
		fprintf(j->f, "%.9g", v);
	else
		fputs("null", j->f);
}
