/* SPDX-License-Identifier: BSD-2-Clause */
/* SPDX-FileCopyrightText: 2026 the elfthp-align authors */
/*
 * glibc 2.44's glibc.elf.thp on this host (--host): is the tunable there,
 * is it on, and from where; and what follows for keeping text huge.  Pure:
 * io/glibc_probe.c reads the files and the environment and hands each line
 * of /etc/tunables.conf here.
 *
 * The rules are glibc 2.44's (docs/runtime.md, 'glibc.elf.thp'):
 *   - ld.so madvises MADV_HUGEPAGE a read-only PT_LOAD whose page-rounded
 *     p_vaddr and p_offset are both multiples of the THP size, when the
 *     tunable is 1; off by default, on by default on LoongArch;
 *   - /etc/tunables.conf (ldconfig's tunconf.c) holds lines "[PREFIX]NAME=
 *     VALUE": prefixes '+'/"overridable" (GLIBC_TUNABLES may override, the
 *     default), '-'/"nonoverridable" (it may not), '@'/"onlysecure",
 *     '$'/"nonsecure" (the default), '*'/"anysecure"; "[proc:NAME]" starts
 *     entries for one program, "[]" ends them, as does the end of a file;
 *     it takes effect only once ldconfig has copied it into ld.so.cache;
 *   - GLIBC_TUNABLES ("NAME=VALUE:NAME=VALUE") overrides the cache unless
 *     the entry is nonoverridable; the last setting of a name wins.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "elfthp_core.h"

#define THP_TUNABLE "glibc.elf.thp"

/* isspace(3) of the C locale, without the locale tables. */
static bool
blank(char c)
{
	return c == ' ' || (c >= '\t' && c <= '\r');
}

/* "0" or "1": the tunable's range; else -1 (glibc ignores it). */
static int
thp_value(const char *s, size_t len)
{
	if (len == 1 && (s[0] == '0' || s[0] == '1'))
		return s[0] - '0';
	return -1;
}

/* A "[...]" line: a filter for one program, or its end. */
static void
tunconf_filter(struct tunconf_state *st, const char *line)
{
	const char *close = strchr(line, ']');
	const char *colon = strchr(line, ':');

	if (close == line + 1) {
		st->filtered = false;
		return;
	}
	if (close == NULL || colon == NULL || colon > close)
		return;		/* glibc: syntax error, the line is ignored */
	st->filtered = (size_t)(colon - line - 1) == 4 &&
	    memcmp(line + 1, "proc", 4) == 0;
}

/* Skip the prefixes of a line; *locked, *secure_only as they say. */
static const char *
tunconf_prefixes(const char *p, bool *locked, bool *secure_only)
{
	static const struct { const char *word; int lock, only; } w[] = {
		{ "overridable ", 0, -1 }, { "nonoverridable ", 1, -1 },
		{ "onlysecure ", -1, 1 }, { "nonsecure ", -1, 0 },
		{ "anysecure ", -1, 0 },
	};
	size_t i;

	for (;;) {
		for (i = 0; i < sizeof(w) / sizeof(w[0]); i++)
			if (strncmp(p, w[i].word, strlen(w[i].word)) == 0)
				break;
		if (i < sizeof(w) / sizeof(w[0])) {
			*locked = w[i].lock >= 0 ? w[i].lock : *locked;
			*secure_only = w[i].only >= 0 ? w[i].only : *secure_only;
			p += strlen(w[i].word);
		} else if (*p == '+' || *p == '-') {
			*locked = *p++ == '-';
		} else if (*p == '@' || *p == '$' || *p == '*') {
			*secure_only = *p++ == '@';
		} else if (*p == ' ' || *p == '\t') {
			p++;
		} else {
			return p;
		}
	}
}

/*
 * One line of tunables.conf, its comment and leading blanks already cut
 * (as ldconfig's parser does); records a setting of glibc.elf.thp.
 */
void
tunconf_line(struct tunconf_state *st, const char *line)
{
	bool locked = false, secure_only = false;
	const char *p, *eq, *v, *end;
	size_t nlen;
	int val;

	if (line[0] == '[') {
		tunconf_filter(st, line);
		return;
	}
	p = tunconf_prefixes(line, &locked, &secure_only);
	if ((eq = strchr(p, '=')) == NULL || eq == p)
		return;
	for (nlen = (size_t)(eq - p); nlen > 0 && blank(p[nlen - 1]);)
		nlen--;
	if (nlen != strlen(THP_TUNABLE) || memcmp(p, THP_TUNABLE, nlen) != 0)
		return;
	for (v = eq + 1; blank(*v); v++)
		;
	for (end = v + strlen(v); end > v && blank(end[-1]);)
		end--;
	val = thp_value(v, (size_t)(end - v));
	if (st->filtered || secure_only) {
		st->per_program = true;	/* not what an ordinary program gets */
		return;
	}
	if (val < 0) {
		st->bad_value = true;
		return;
	}
	st->value = val;
	st->locked = locked;
}

/* The end of one file: a filter ends with it. */
void
tunconf_end_file(struct tunconf_state *st)
{
	st->filtered = false;
}

/* glibc.elf.thp's value in a GLIBC_TUNABLES string, or -1: not set there. */
int
tunables_env_thp(const char *env)
{
	const char *p = env, *colon, *eq;
	int val = -1;

	while (p != NULL && *p != '\0') {
		colon = strchr(p, ':');
		eq = strchr(p, '=');
		if (eq != NULL && (colon == NULL || eq < colon) &&
		    (size_t)(eq - p) == strlen(THP_TUNABLE) &&
		    memcmp(p, THP_TUNABLE, strlen(THP_TUNABLE)) == 0) {
			int v = thp_value(eq + 1, colon != NULL ?
			    (size_t)(colon - eq - 1) : strlen(eq + 1));
			if (v >= 0)
				val = v;
		}
		p = colon != NULL ? colon + 1 : NULL;
	}
	return val;
}

/* glibc 2.44 and later have the tunable. */
bool
glibc_has_thp_tunable(const char *version)
{
	struct kernel_version v;	/* the same "N.N" shape */

	return version != NULL && kernel_version_parse(version, &v) == 0 &&
	    (v.major > 2 || (v.major == 2 && v.minor >= 44));
}

/* Whether the tunable is there and on, and what set it. */
void
glibc_thp_decide(const struct glibc_thp_facts *f, struct glibc_thp_verdict *v)
{
	bool has = f->has_tunable == TRI_YES || (f->has_tunable ==
	    TRI_UNKNOWN && glibc_has_thp_tunable(f->version));
	bool conf = f->conf.value >= 0 && f->conf_cached;
	int on = f->arch_on;

	memset(v, 0, sizeof(*v));
	v->from = f->arch_on ? GTHP_FROM_ARCH : GTHP_FROM_DEFAULT;
	if (conf) {
		on = f->conf.value;
		v->from = GTHP_FROM_CONF;
	}
	if (f->env >= 0 && !(conf && f->conf.locked)) {
		on = f->env;
		v->from = GTHP_FROM_ENV;
	}
	v->stale = f->conf.value >= 0 && !f->conf_cached;
	v->state = !has ? GTHP_ABSENT : on ? GTHP_ON : GTHP_OFF;
}

const char *
glibc_thp_state_name(enum glibc_thp_state s)
{
	return s == GTHP_ON ? "on" : s == GTHP_OFF ? "off" : "absent";
}

const char *
glibc_thp_from_name(enum glibc_thp_from from)
{
	static const char *const n[] = { "default", "architecture",
	    "tunables.conf", "GLIBC_TUNABLES" };

	return n[from];
}

/*
 * Where glibc does not make text huge, the page-cache step does, and
 * also khugepaged where it collapses program text (Linux 7.2 under THP
 * "always": host_khugepaged), so "only" is said where it does not.
 */
static const char *
khugepaged_tail(enum tri khugepaged)
{
	return khugepaged == TRI_YES ? ", and khugepaged collapses it in "
	    "programs that run, where MADV_COLLAPSE works (the khugepaged "
	    "line)" : khugepaged == TRI_UNKNOWN ? ", and perhaps khugepaged "
	    "in programs that run (the khugepaged line)" : "";
}

/* "glibc.elf.thp is on (...)": what follows for keeping text huge. */
void
glibc_thp_sentence(char *buf, size_t len, const struct glibc_thp_facts *f,
    const struct glibc_thp_verdict *v, enum tri khugepaged)
{
	static const char *const from[] = { "the default",
	    "the default on this architecture", "/etc/tunables.conf",
	    "GLIBC_TUNABLES, in this environment only" };
	const char *stale = v->stale ? "; /etc/tunables.conf sets it, but "
	    "/etc/ld.so.cache does not hold that yet: run ldconfig" : "";
	const char *only = khugepaged == TRI_NO ? "only " : "";

	if (v->state == GTHP_ABSENT)
		snprintf(buf, len, "glibc %s has no glibc.elf.thp (2.44 and "
		    "later): text stays huge %sthrough the page-cache step "
		    "(--warm, the unit, the timer, the APT hook)%s",
		    f->version != NULL ? f->version : "(unknown version)",
		    only, khugepaged_tail(khugepaged));
	else if (v->state == GTHP_ON)
		snprintf(buf, len, "glibc.elf.thp is on (%s): a file whose "
		    "text starts on a huge-page boundary gets huge text at every "
		    "cold start; the page-cache step is needed only for "
		    "processes already running and for files not "
		    "start-aligned%s", from[v->from], stale);
	else
		snprintf(buf, len, "glibc.elf.thp is off (%s): text stays "
		    "huge %sthrough the page-cache step%s; with "
		    "glibc.elf.thp=1 in /etc/tunables.conf and ldconfig run, "
		    "a file whose text starts on a huge-page boundary would get "
		    "huge text at every cold start%s", from[v->from], only,
		    khugepaged_tail(khugepaged), stale);
}
