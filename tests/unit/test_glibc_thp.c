/* SPDX-License-Identifier: BSD-2-Clause */
/* SPDX-FileCopyrightText: 2026 the elfthp-align authors */
/*
 * Unit tests of glibc_thp.c: /etc/tunables.conf's lines as glibc 2.44's
 * ldconfig reads them (elf/tunconf.c), GLIBC_TUNABLES, and --host's
 * verdict on glibc.elf.thp (which setting wins, and its sentence).
 *
 * Build: make tests/unit/test_glibc_thp (links only the pure modules).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "elfthp_core.h"

static struct tunconf_state
conf_of(const char *const *lines)
{
	struct tunconf_state st = { .value = -1 };

	for (; *lines != NULL; lines++)
		tunconf_line(&st, *lines);
	tunconf_end_file(&st);
	return st;
}

static void
test_conf_lines(void **state)
{
	static const char *const plain[] = { "glibc.malloc.arena_max=2",
	    "glibc.elf.thp=1", NULL };
	static const char *const later[] = { "glibc.elf.thp=1",
	    "glibc.elf.thp = 0 ", NULL };
	static const char *const locked[] = { "-glibc.elf.thp=1", NULL };
	static const char *const words[] = { "nonoverridable anysecure "
	    "glibc.elf.thp=1", NULL };
	static const char *const again[] = { "nonoverridable glibc.elf.thp=1",
	    "+glibc.elf.thp=1", NULL };
	static const char *const other[] = { "glibc.elf.thpx=1",
	    "xglibc.elf.thp=1", "glibc.elf.thp", "=1", NULL };
	static const char *const bad[] = { "glibc.elf.thp=2", NULL };
	struct tunconf_state st;

	(void)state;
	st = conf_of(plain);
	assert_int_equal(st.value, 1);
	assert_false(st.locked);
	assert_int_equal(conf_of(later).value, 0);
	st = conf_of(locked);
	assert_int_equal(st.value, 1);
	assert_true(st.locked);
	assert_true(conf_of(words).locked);
	assert_false(conf_of(again).locked);
	assert_int_equal(conf_of(other).value, -1);
	st = conf_of(bad);
	assert_int_equal(st.value, -1);
	assert_true(st.bad_value);
}

/* [proc:NAME] and onlysecure settings are not what a program gets. */
static void
test_conf_filters(void **state)
{
	static const char *const proc[] = { "[proc:gcc]", "glibc.elf.thp=1",
	    NULL };
	static const char *const ended[] = { "[proc:gcc]", "glibc.elf.thp=0",
	    "[]", "glibc.elf.thp=1", NULL };
	static const char *const secure[] = { "@glibc.elf.thp=1",
	    "onlysecure glibc.elf.thp=1", NULL };
	static const char *const broken[] = { "[proc gcc]", "glibc.elf.thp=1",
	    NULL };
	struct tunconf_state st;

	(void)state;
	st = conf_of(proc);
	assert_int_equal(st.value, -1);
	assert_true(st.per_program);
	st = conf_of(ended);
	assert_int_equal(st.value, 1);
	assert_true(st.per_program);
	st = conf_of(secure);
	assert_int_equal(st.value, -1);
	assert_true(st.per_program);
	/* glibc ignores a filter line without ':' and keeps no filter. */
	assert_int_equal(conf_of(broken).value, 1);
	/* A filter ends with its file. */
	st = (struct tunconf_state){ .value = -1 };
	tunconf_line(&st, "[proc:gcc]");
	tunconf_end_file(&st);
	tunconf_line(&st, "glibc.elf.thp=1");
	assert_int_equal(st.value, 1);
}

static void
test_env(void **state)
{
	(void)state;
	assert_int_equal(tunables_env_thp("glibc.elf.thp=1"), 1);
	assert_int_equal(tunables_env_thp("glibc.malloc.arena_max=2:"
	    "glibc.elf.thp=0"), 0);
	assert_int_equal(tunables_env_thp("glibc.elf.thp=1:glibc.elf.thp=0"),
	    0);
	assert_int_equal(tunables_env_thp("glibc.elf.thp=7"), -1);
	assert_int_equal(tunables_env_thp("glibc.elf.thpx=1"), -1);
	assert_int_equal(tunables_env_thp("xglibc.elf.thp=1"), -1);
	assert_int_equal(tunables_env_thp(""), -1);
	assert_true(glibc_has_thp_tunable("2.44"));
	assert_true(glibc_has_thp_tunable("2.45"));
	assert_true(glibc_has_thp_tunable("3.0"));
	assert_false(glibc_has_thp_tunable("2.43"));
	assert_false(glibc_has_thp_tunable("2.36"));
	assert_false(glibc_has_thp_tunable(NULL));
}

static struct glibc_thp_facts
facts(const char *version, int env, int conf, bool cached)
{
	struct glibc_thp_facts f;

	memset(&f, 0, sizeof(f));
	f.version = version;
	f.has_tunable = TRI_UNKNOWN;
	f.env = env;
	f.conf.value = conf;
	f.conf_exists = conf >= 0;
	f.conf_cached = cached;
	return f;
}

static void
test_verdict(void **state)
{
	struct glibc_thp_facts f;
	struct glibc_thp_verdict v;
	char s[512];

	(void)state;
	f = facts("2.36", 1, 1, true);
	glibc_thp_decide(&f, &v);
	assert_int_equal(v.state, GTHP_ABSENT);
	glibc_thp_sentence(s, sizeof(s), &f, &v, TRI_NO);
	assert_non_null(strstr(s, "glibc 2.36 has no glibc.elf.thp"));
	/* ld.so says otherwise than the version: ld.so wins. */
	f.has_tunable = TRI_YES;
	glibc_thp_decide(&f, &v);
	assert_int_equal(v.state, GTHP_ON);
	f = facts("2.44", -1, -1, false);
	glibc_thp_decide(&f, &v);
	assert_int_equal(v.state, GTHP_OFF);
	assert_int_equal(v.from, GTHP_FROM_DEFAULT);
	glibc_thp_sentence(s, sizeof(s), &f, &v, TRI_NO);
	assert_non_null(strstr(s, "is off (the default)"));
	f.arch_on = true;
	glibc_thp_decide(&f, &v);
	assert_int_equal(v.state, GTHP_ON);
	assert_int_equal(v.from, GTHP_FROM_ARCH);
	f = facts("2.44", -1, 1, true);
	glibc_thp_decide(&f, &v);
	assert_int_equal(v.state, GTHP_ON);
	assert_int_equal(v.from, GTHP_FROM_CONF);
	glibc_thp_sentence(s, sizeof(s), &f, &v, TRI_NO);
	assert_non_null(strstr(s, "is on (/etc/tunables.conf)"));
	assert_non_null(strstr(s, "needed only for processes already running"));
	assert_null(strstr(s, "ldconfig"));
	/* GLIBC_TUNABLES overrides it, unless the line is nonoverridable. */
	f.env = 0;
	glibc_thp_decide(&f, &v);
	assert_int_equal(v.state, GTHP_OFF);
	assert_int_equal(v.from, GTHP_FROM_ENV);
	f.conf.locked = true;
	glibc_thp_decide(&f, &v);
	assert_int_equal(v.state, GTHP_ON);
	assert_int_equal(v.from, GTHP_FROM_CONF);
	/* Not yet in ld.so.cache: not in force, and ldconfig is the fix. */
	f = facts("2.44", -1, 1, false);
	glibc_thp_decide(&f, &v);
	assert_int_equal(v.state, GTHP_OFF);
	assert_true(v.stale);
	glibc_thp_sentence(s, sizeof(s), &f, &v, TRI_NO);
	assert_non_null(strstr(s, "run ldconfig"));
	f.env = 1;
	glibc_thp_decide(&f, &v);
	assert_int_equal(v.state, GTHP_ON);
	assert_int_equal(v.from, GTHP_FROM_ENV);
	glibc_thp_sentence(s, sizeof(s), &f, &v, TRI_NO);
	assert_non_null(strstr(s, "in this environment only"));
	/* khugepaged collapses text too (7.2, THP always): no "only". */
	f = facts("2.36", -1, -1, false);
	glibc_thp_decide(&f, &v);
	glibc_thp_sentence(s, sizeof(s), &f, &v, TRI_YES);
	assert_null(strstr(s, "only through"));
	assert_non_null(strstr(s, "khugepaged collapses it"));
	glibc_thp_sentence(s, sizeof(s), &f, &v, TRI_UNKNOWN);
	assert_null(strstr(s, "only through"));
	assert_non_null(strstr(s, "perhaps khugepaged"));
	glibc_thp_sentence(s, sizeof(s), &f, &v, TRI_NO);
	assert_non_null(strstr(s, "only through the page-cache step"));
	assert_null(strstr(s, "khugepaged"));
	f = facts("2.44", -1, -1, false);
	glibc_thp_decide(&f, &v);
	glibc_thp_sentence(s, sizeof(s), &f, &v, TRI_YES);
	assert_non_null(strstr(s, "is off (the default): text stays huge "
	    "through the page-cache step, and khugepaged collapses it"));
	assert_string_equal(glibc_thp_state_name(GTHP_ABSENT), "absent");
	assert_string_equal(glibc_thp_from_name(GTHP_FROM_CONF),
	    "tunables.conf");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_conf_lines),
		cmocka_unit_test(test_conf_filters),
		cmocka_unit_test(test_env),
		cmocka_unit_test(test_verdict),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
