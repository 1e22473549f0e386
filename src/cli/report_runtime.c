/* SPDX-License-Identifier: BSD-2-Clause */
/* SPDX-FileCopyrightText: 2026 the elfthp-align authors */
/*
 * Formatting of the run-time modes, --warm and --host: what the core
 * measured and decided, as text lines or JSON lines.  No decisions here
 * beyond the wording of each reason.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "elfthp_cli.h"

static const char *const reason_codes[WARM_NREASONS] = {
	[WARM_NOT_ALIGNED] = "not-aligned",
	[WARM_BUSY] = "busy",
	[WARM_NO_HUGE_FOLIOS] = "no-huge-folios",
	[WARM_NO_HUGE_PAGE] = "no-huge-page",
	[WARM_STILL_CACHED] = "still-cached",
};

static void
pid_list(char *buf, size_t len, const struct warm_result *r)
{
	size_t i, used = 0;

	buf[0] = '\0';
	for (i = 0; i < r->npids && used < len; i++)
		used += (size_t)snprintf(buf + used, len - used, "%s%ld (%s)",
		    i ? ", " : "", r->pids[i], r->comms[i]);
}

/*
 * Small folios that outlived POSIX_FADV_DONTNEED: only what was seen, the
 * dirty pages counted and the processes whose maps could not be read.
 */
static void
still_cached_text(char *buf, size_t len, const struct warm_result *r)
{
	char who[96] = "", dirty[128];

	if (r->unreadable > 0)
		snprintf(who, sizeof(who), " (the maps of %zu process%s could "
		    "not be read)", r->unreadable, r->unreadable == 1 ? "" :
		    "es");
	if (r->unclean > 0)
		snprintf(dirty, sizeof(dirty), "%" PRIu64 " pages dirty or "
		    "under writeback: run sync, then --warm again", r->unclean);
	else
		snprintf(dirty, sizeof(dirty), "%s: cause not seen; run --warm "
		    "again later", r->unclean_unknown ? "their dirty state "
		    "cannot be read through overlayfs" : "none dirty");
	snprintf(buf, len, "small folios still cached after "
	    "POSIX_FADV_DONTNEED, mapped by no process this user can see%s; "
	    "%s", who, dirty);
}

/* The sentence for one reason: what it is and what to do. */
static void
reason_text(char *buf, size_t len, const struct warm_result *r,
    enum warm_reason why)
{
	char pids[256];

	switch (why) {
	case WARM_NOT_ALIGNED:
		snprintf(buf, len, "not aligned: run elfthp-align first");
		break;
	case WARM_BUSY:
		pid_list(pids, sizeof(pids), r);
		snprintf(buf, len, "small folios mapped by pid %s: stop it, run "
		    "--warm again, then start it", pids);
		break;
	case WARM_STILL_CACHED:
		still_cached_text(buf, len, r);
		break;
	case WARM_NO_HUGE_FOLIOS:
		snprintf(buf, len, "the file system (%s) keeps no huge folios%s%s"
		    "%s: %s", r->fs_type, r->fs_why ? " (" : "",
		    r->fs_why ? r->fs_why : "", r->fs_why ? ")" : "",
		    r->fs_advice ? r->fs_advice : fs_move_advice(r->fs_type));
		break;
	case WARM_NO_HUGE_PAGE:
		snprintf(buf, len, "no huge page could be allocated (memory "
		    "too fragmented?): try again later");
		break;
	case WARM_NREASONS:
		buf[0] = '\0';
	}
}

/*
 * "; 3 small folios mapped by pid ...; 1 not aligned: ...".  After the
 * rewrite, windows still not aligned are in a segment it could not move:
 * only a relink aligns them.
 */
static void
reasons_text(FILE *f, const struct warm_result *r, bool rewriting)
{
	char why[512];
	int i;

	for (i = 0; i < WARM_NREASONS; i++) {
		if (r->not_huge[i] == 0)
			continue;
		if (rewriting && i == WARM_NOT_ALIGNED)
			snprintf(why, sizeof(why), "not aligned: in the segment "
			    "that holds the headers, which only a relink aligns");
		else
			reason_text(why, sizeof(why), r, (enum warm_reason)i);
		fprintf(f, "; %" PRIu64 " %s", r->not_huge[i], why);
	}
	if (!r->base_aligned && r->not_huge[WARM_NOT_ALIGNED] == 0)
		fprintf(f, "; load base not guaranteed PMD-aligned (p_align): "
		    "run elfthp-align first");
}

/*
 * What the page-cache step did, or would do (look_only), to a file with
 * windows: "13 of 13 windows huge (0 already, 13 made huge); 26MiB read";
 * for a file the rewrite has just written, "6 of 6 windows huge".
 */
void
warm_outcome_text(FILE *f, const struct warm_result *r, bool rewriting,
    bool written)
{
	char size[16];
	uint64_t n = warm_not_huge(r);

	format_size(size, sizeof(size), r->read_bytes);
	if (r->look_only) {
		fprintf(f, "%" PRIu64 " of %" PRIu64 " window%s huge", 
		    r->huge_before, r->windows, r->windows == 1 ? "" : "s");
		if (r->made_huge > 0 && r->read_bytes == 0)
			fprintf(f, "; would make %" PRIu64 " huge (reading "
			    "nothing: cached small folios collapsed in place)",
			    r->made_huge);
		else if (r->made_huge > 0)
			fprintf(f, "; would make %" PRIu64 " huge (reading up "
			    "to %s)", r->made_huge, size);
		if (n > 0)
			fprintf(f, "; %" PRIu64 " would stay small", n);
		reasons_text(f, r, rewriting);
		return;
	}
	fprintf(f, "%" PRIu64 " of %" PRIu64 " window%s huge", r->huge_before +
	    r->made_huge, r->windows, r->windows == 1 ? "" : "s");
	/* A file just written: its huge folios came from the writes. */
	if (written && r->made_huge > 0)
		fprintf(f, " (%" PRIu64 " after reading %s again)",
		    r->made_huge, r->made_huge == 1 ? "it" : "them");
	else if (!written)
		fprintf(f, " (%" PRIu64 " already, %" PRIu64 " made huge)",
		    r->huge_before, r->made_huge);
	if (n > 0)
		fprintf(f, ", %" PRIu64 " not", n);
	reasons_text(f, r, rewriting);
	if (!written || r->read_bytes > 0)
		fprintf(f, "; %s read", size);
}

static const char *
state_text(enum window_state s)
{
	switch (s) {
	case WINDOW_HUGE: return "huge";
	case WINDOW_UNCACHED: return "not cached: would be read as one huge "
	    "folio";
	case WINDOW_SMALL: return "small folios: would be dropped and read "
	    "again as one huge folio";
	case WINDOW_BUSY: return "small folios mapped by a process: left as "
	    "they are";
	case WINDOW_NO_FOLIOS: return "the file system keeps no huge folios";
	case WINDOW_MADE_HUGE: return "made huge";
	case WINDOW_STILL_SMALL: return "still small";
	case WINDOW_COLLAPSE: return "small folios: would be collapsed in "
	    "place into one huge folio (nothing dropped; a process that maps "
	    "them gets the PMD at its next fault)";
	case WINDOW_UNKNOWN: return "page cache unknown (not shown to a user "
	    "who may not write the file)";
	case WINDOW_NONE: break;
	}
	return "";
}

/* -n and -v: how the page cache was reached, where that was not plain. */
void
cache_how_text(FILE *f, const struct warm_result *r)
{
	if (r->cache_how != NULL)
		fprintf(f, "  page cache reached through %s%s%s%s\n",
		    r->cache_how, r->cache_why ? " (" : "",
		    r->cache_why ? r->cache_why : "", r->cache_why ? ")" : "");
}

/* One line per window, by file offset: -n and -v. */
static void
windows_text(FILE *f, const struct warm_result *r, const uint8_t *states,
    uint64_t nranges, uint64_t pmd)
{
	uint64_t k;

	if (states != NULL)
		cache_how_text(f, r);
	for (k = 0; states != NULL && k < nranges; k++)
		if (states[k] != WINDOW_NONE)
			fprintf(f, "  window at file offset 0x%" PRIx64 ": %s\n",
			    k * pmd, state_text((enum window_state)states[k]));
	if (r->not_huge[WARM_NOT_ALIGNED] > 0)
		fprintf(f, "  %" PRIu64 " window%s of incongruent segments: no "
		    "file range can hold them until elfthp-align rewrites it\n",
		    r->not_huge[WARM_NOT_ALIGNED],
		    r->not_huge[WARM_NOT_ALIGNED] == 1 ? "" : "s");
}

static void
warm_text(FILE *f, const char *name, const struct warm_result *r)
{
	if (r->windows == 0) {
		fprintf(f, "%s: no windows to warm\n", name);
		return;
	}
	fprintf(f, "%s: ", name);
	/* Refused: what the layout says, and the page cache unknown. */
	if (r->cache_refused) {
		fprintf(f, "%" PRIu64 " window%s; page cache: unknown (%s)",
		    r->windows, r->windows == 1 ? "" : "s", WARM_CACHE_REFUSED);
		reasons_text(f, r, false);
	} else
		warm_outcome_text(f, r, false, false);
	fputc('\n', f);
}

static void
warm_json_reasons(struct json *j, const struct warm_result *r)
{
	char why[512];
	size_t k;
	int i;

	json_array(j, "reasons");
	for (i = 0; i < WARM_NREASONS; i++) {
		if (r->not_huge[i] == 0)
			continue;
		reason_text(why, sizeof(why), r, (enum warm_reason)i);
		json_object(j, NULL);
		json_str(j, "code", reason_codes[i]);
		json_u64(j, "windows", r->not_huge[i]);
		json_str(j, "message", why);
		if (i == WARM_BUSY) {
			json_array(j, "pids");
			for (k = 0; k < r->npids; k++)
				json_u64(j, NULL, (uint64_t)r->pids[k]);
			json_close(j);
		}
		json_close(j);
	}
	json_close(j);
}

/* The members --warm's lines and the rewrite's page_cache object share. */
void
warm_json_fields(struct json *j, const struct warm_result *r)
{
	json_bool(j, "look_only", r->look_only);
	json_u64(j, "windows", r->windows);
	json_u64(j, "huge_before", r->huge_before);
	json_u64(j, "made_huge", r->made_huge);
	json_u64(j, "not_huge", warm_not_huge(r));
	json_bool(j, "base_aligned", r->base_aligned);
	warm_json_reasons(j, r);
	json_u64(j, "read_bytes", r->read_bytes);
	json_str(j, "fs_type", r->fs_type);
}

static void
windows_json(struct json *j, const uint8_t *states, uint64_t nranges,
    uint64_t pmd)
{
	uint64_t k;

	json_array(j, "window_states");
	for (k = 0; k < nranges; k++) {
		if (states[k] == WINDOW_NONE)
			continue;
		json_object(j, NULL);
		json_u64(j, "offset", k * pmd);
		json_str(j, "state", window_state_name(
		    (enum window_state)states[k]));
		json_close(j);
	}
	json_close(j);
}

/*
 * One file of --warm: its counts and reasons; with states (-n, -v), a
 * line per window.  nranges: the file's PMD ranges, states' length.
 */
void
report_warm(FILE *f, const struct options *o, const char *name,
    const struct warm_result *r, enum file_class cls, const uint8_t *states,
    uint64_t nranges)
{
	uint64_t pmd = r->pmd;
	struct json j;

	if (o->format == FORMAT_TEXT) {
		warm_text(f, name, r);
		windows_text(f, r, states, nranges, pmd);
		return;
	}
	json_begin(&j, f, mode_name(o));
	json_str(&j, "file", name);
	json_str(&j, "status", class_text(cls));
	warm_json_fields(&j, r);
	if (r->cache_refused)
		json_str(&j, "page_cache_unknown", WARM_CACHE_REFUSED);
	if (states != NULL)
		windows_json(&j, states, nranges, pmd);
	json_end(&j);
}

/* --- --host -------------------------------------------------------------- */

static void
host_text_path(FILE *f, const struct host_path *h)
{
	char w[16], r[16], c[16], size[16];

	if (h->error != 0)
		return;
	fprintf(f, "%s: %s on %s (%s)", h->path, h->fs.type, h->fs.mount_point,
	    h->fs.options);
	if (h->fs.huge[0] != '\0')
		fprintf(f, ", huge=%s", h->fs.huge);
	if (h->probe.done) {
		format_size(w, sizeof(w), h->probe.write_pmd);
		format_size(r, sizeof(r), h->probe.warm_pmd);
		format_size(c, sizeof(c), h->probe.collapse_pmd);
		format_size(size, sizeof(size), h->probe.size);
		fprintf(f, "\n  probe of %s: PMD-mapped %s after a write, %s "
		    "after --warm's readahead, %s after MADV_COLLAPSE", size, w,
		    r, c);
	} else {
		fprintf(f, "\n  not probed (%s%s%s): judged by type and kernel: "
		    "writes %s, readahead %s, MADV_COLLAPSE %s",
		    h->probe.failed ? h->probe.failed : "",
		    h->probe.failed ? ": " : "",
		    strerror(h->probe.error), tri_name(h->expect.write),
		    tri_name(h->expect.readahead), tri_name(h->expect.collapse));
	}
	/* The probe is a new file: overlayfs puts it in the upper layer. */
	if (strcmp(h->fs.type, "overlay") == 0)
		fprintf(f, "\n  overlayfs: the probe's file is in the upper "
		    "layer; a file of a lower layer (the image) is read from "
		    "that layer's file system: --warm -v PATH says what it "
		    "gets there");
	fprintf(f, "\n  MADV_COLLAPSE here: %s%s", tri_name(h->collapse),
	    h->collapse == TRI_YES ? " (--warm collapses cached small folios "
	    "in place: nothing read, running processes get PMDs without a "
	    "restart)" : "");
	fprintf(f, "\n  khugepaged here: %s", h->khugepaged == TRI_YES ?
	    "yes (under THP always it makes running text huge by itself; "
	    "--warm does it at once)" : h->khugepaged == TRI_NO ? "no" :
	    "unknown");
	fprintf(f, "\n  %s\n", h->sentence);
}

/*
 * CONFIG_READ_ONLY_THP_FOR_FS: an option this kernel no longer has is not
 * "no": 7.2 removed it, and collapses file text without it.  Said so where
 * the config has no such line and THP is there, and either a file system
 * measured that MADV_COLLAPSE works or the kernel is 7.2 or later.
 */
static const char *
ro_thp_text(const struct host_facts *hf)
{
	bool newer = hf->version.major > 7 || (hf->version.major == 7 &&
	    hf->version.minor >= 2);

	if (hf->ro_thp_absent && hf->thp_enabled[0] != '\0' &&
	    strcmp(hf->thp_enabled, "unknown") != 0 &&
	    ((hf->collapse_where != NULL && hf->collapse_files == TRI_YES) ||
	    newer))
		return "not needed by this kernel (it has no such option: "
		    "MADV_COLLAPSE and khugepaged work on file systems with "
		    "PMD-sized folios without it)";
	return tri_name(hf->ro_thp_for_fs);
}

/* khugepaged: what it does to program text, by the rule of host_khugepaged. */
static void
khugepaged_text(FILE *f, const struct host_facts *hf)
{
	fprintf(f, "khugepaged: collapses program text only where MADV_COLLAPSE "
	    "works and THP is \"always\" (now %s)", hf->thp_enabled);
	if (hf->khp_pages >= 0 && hf->khp_sleep_ms >= 0)
		fprintf(f, "; scans %ld pages every %ld ms", hf->khp_pages,
		    hf->khp_sleep_ms);
	fprintf(f, "\n");
}

static void
host_text(FILE *f, const struct host_facts *hf)
{
	size_t i;

	fprintf(f, "kernel %s; transparent huge pages: enabled %s, defrag %s, "
	    "shmem_enabled %s\n", hf->kernel, hf->thp_enabled, hf->thp_defrag,
	    hf->thp_shmem);
	fprintf(f, "CONFIG_READ_ONLY_THP_FOR_FS: %s (%s)\n",
	    ro_thp_text(hf), hf->config_where);
	fprintf(f, "MADV_COLLAPSE on regular files: %s (%s%s%s)\n",
	    tri_name(hf->collapse_files), hf->collapse_where ? "measured on " :
	    "expected from the kernel", hf->collapse_where ?
	    hf->collapse_where : "", hf->collapse_where ? "; it depends on "
	    "the file system: each path below says its own" : "");
	khugepaged_text(f, hf);
	fprintf(f, "glibc %s: %s\n", hf->glibc, hf->glibc_aligns ?
	    "places shared libraries at their p_align (2.35 and later)" :
	    "ignores p_align for shared libraries (below 2.35)");
	fprintf(f, "%s\n", hf->thp_sentence);
	for (i = 0; i < hf->npaths; i++)
		host_text_path(f, &hf->paths[i]);
}

static void
json_tri(struct json *j, const char *key, enum tri t)
{
	if (t == TRI_UNKNOWN)
		json_str(j, key, NULL);
	else
		json_bool(j, key, t == TRI_YES);
}

static void
host_json_path(FILE *f, const struct options *o, const struct host_path *h)
{
	struct json j;

	json_begin(&j, f, mode_name(o));
	json_str(&j, "path", h->path);
	if (h->error != 0) {
		json_str(&j, "status", "error");
		json_str(&j, "message", strerror(h->error));
		json_end(&j);
		return;
	}
	json_str(&j, "status", fs_outcome_name(h->outcome));
	json_str(&j, "fs_type", h->fs.type);
	json_str(&j, "mount_point", h->fs.mount_point);
	json_str(&j, "mount_options", h->fs.options);
	json_str(&j, "tmpfs_huge", h->fs.huge);
	json_bool(&j, "probed", h->probe.done);
	json_u64(&j, "probe_bytes", h->probe.size);
	json_u64(&j, "write_pmd_bytes", h->probe.write_pmd);
	json_u64(&j, "warm_pmd_bytes", h->probe.warm_pmd);
	json_u64(&j, "collapse_pmd_bytes", h->probe.collapse_pmd);
	json_tri(&j, "expect_write", h->expect.write);
	json_tri(&j, "expect_readahead", h->expect.readahead);
	json_tri(&j, "expect_collapse", h->expect.collapse);
	json_tri(&j, "madv_collapse", h->collapse);
	json_tri(&j, "khugepaged_text", h->khugepaged);
	json_str(&j, "outcome", fs_outcome_name(h->outcome));
	json_str(&j, "advice", h->sentence);
	json_end(&j);
}

/* A value of glibc.elf.thp, or null where nothing sets it. */
static void
json_thp_value(struct json *j, const char *key, int v)
{
	if (v < 0)
		json_str(j, key, NULL);
	else
		json_u64(j, key, (uint64_t)v);
}

/* glibc.elf.thp: there, on, from where; and the sentence. */
static void
host_json_thp(struct json *j, const struct host_facts *hf)
{
	const struct glibc_thp_facts *t = &hf->thp;
	const struct glibc_thp_verdict *v = &hf->thp_verdict;

	json_str(j, "glibc_elf_thp", glibc_thp_state_name(v->state));
	json_str(j, "glibc_elf_thp_from", v->state == GTHP_ABSENT ? NULL :
	    glibc_thp_from_name(v->from));
	json_tri(j, "glibc_elf_thp_in_ldso", t->has_tunable);
	json_thp_value(j, "glibc_tunables_thp", t->env);
	json_bool(j, "tunables_conf", t->conf_exists);
	json_thp_value(j, "tunables_conf_thp", t->conf.value);
	json_bool(j, "tunables_conf_locked", t->conf.value >= 0 &&
	    t->conf.locked);
	json_bool(j, "tunables_conf_cached", t->conf_cached);
	json_str(j, "glibc_elf_thp_advice", hf->thp_sentence);
}

void
report_host(FILE *f, const struct options *o, const struct host_facts *hf)
{
	struct json j;
	size_t i;

	if (o->format == FORMAT_TEXT) {
		host_text(f, hf);
		return;
	}
	json_begin(&j, f, mode_name(o));
	json_str(&j, "status", "host");
	json_str(&j, "kernel", hf->kernel);
	json_str(&j, "thp_enabled", hf->thp_enabled);
	json_str(&j, "thp_defrag", hf->thp_defrag);
	json_str(&j, "thp_shmem_enabled", hf->thp_shmem);
	json_tri(&j, "read_only_thp_for_fs", hf->ro_thp_for_fs);
	json_bool(&j, "read_only_thp_for_fs_absent", hf->ro_thp_absent);
	json_tri(&j, "madv_collapse_files", hf->collapse_files);
	json_str(&j, "glibc", hf->glibc);
	json_bool(&j, "glibc_aligns_libraries", hf->glibc_aligns);
	host_json_thp(&j, hf);
	json_end(&j);
	for (i = 0; i < hf->npaths; i++)
		host_json_path(f, o, &hf->paths[i]);
}

/* --- --pid ----------------------------------------------------------------- */

/* "pid 12 (prog)", "pids 12 (prog), 34 (sh)", at most 8 named. */
static void
pid_names(char *buf, size_t len, const struct pid_row *rows, size_t n)
{
	size_t i, used;

	used = (size_t)snprintf(buf, len, "pid%s ", n == 1 ? "" : "s");
	for (i = 0; i < n && i < 8 && used < len; i++)
		used += (size_t)snprintf(buf + used, len - used, "%s%ld (%s)",
		    i ? ", " : "", rows[i].pid, rows[i].comm);
	if (n > 8 && used < len)
		snprintf(buf + used, len - used, " and %zu more", n - 8);
}

/* What the status means for this file, after "PATH: ". */
static void
pid_status_text(char *buf, size_t len, const struct pid_row *r,
    enum pid_status s)
{
	const struct pid_facts *f = &r->facts;
	char pmd[16];

	format_size(pmd, sizeof(pmd), f->pmd);
	switch (s) {
	case PID_HUGE: snprintf(buf, len, "huge"); break;
	case PID_PARTLY_HUGE: snprintf(buf, len, "partly huge"); break;
	case PID_SMALL_FOLIOS:
		snprintf(buf, len, "small folios in the page cache: %" PRIu64
		    " window%s resident on small folios", f->resident - f->huge,
		    f->resident - f->huge == 1 ? "" : "s");
		break;
	case PID_CACHE_HUGE:
		snprintf(buf, len, "huge in the page cache, not mapped by it "
		    "yet: %" PRIu64 " window%s it has not run since %s one "
		    "PMD-sized folio each there (khugepaged or --warm made "
		    "them); its next run of that code maps PMDs",
		    f->placed - f->resident, f->placed - f->resident == 1 ?
		    "" : "s", f->placed - f->resident == 1 ? "is" : "are");
		break;
	case PID_NOT_TOUCHED:
		snprintf(buf, len, "not run yet: no page of %s windows is "
		    "resident in this process", f->huge ? "the other" : "its");
		break;
	case PID_LAYOUT:
		snprintf(buf, len, "layout: %" PRIu64 " of %" PRIu64 " windows "
		    "at addresses where a PMD can map them", f->placed,
		    f->windows);
		break;
	case PID_REPLACED:
		snprintf(buf, len, "replaced since the process started: it "
		    "maps the old file%s", f->windows_known ? "" : " (its "
		    "windows cannot be counted without root)");
		break;
	case PID_THP_DISABLED:
		snprintf(buf, len, "cannot be huge here: transparent huge pages "
		    "are disabled for the process (prctl PR_SET_THP_DISABLE)");
		break;
	case PID_NO_HUGE_FOLIOS:
		snprintf(buf, len, "cannot be huge here: its file system (%s) "
		    "keeps no huge folios", r->fs_type[0] ? r->fs_type : "?");
		break;
	case PID_NOTHING_TO_GAIN:
		snprintf(buf, len, "nothing to gain: no full %s window in its "
		    "read-only segments", pmd);
		break;
	}
}

static const char *const fix_short[FIX_LAST + 1] = {
	[FIX_REWRITE_RESTART] = "elfthp-align FILE, then a restart",
	[FIX_STOP_WARM_START] = "a stop, elfthp-align --warm FILE and a start",
	[FIX_WARM] = "elfthp-align --warm FILE",
	[FIX_RESTART] = "a restart",
	[FIX_ENABLE_THP] = "THP enabled for the process",
	[FIX_OTHER_FS] = "another file system",
	[FIX_WARM_IN_PLACE] = "elfthp-align --warm FILE while it runs",
};

/* Does the step run elfthp-align on the file? */
static bool
fix_names_file(enum pid_fix fix)
{
	return fix == FIX_REWRITE_RESTART || fix == FIX_STOP_WARM_START ||
	    fix == FIX_WARM || fix == FIX_WARM_IN_PLACE;
}

/*
 * The step for a file no path from here names (another root or mount
 * namespace hides it, or its name there is another file now): said, and
 * no command, since a pasted one would act on another file.
 */
static void
pid_unnamed_text(char *buf, size_t len, const struct pid_row *r,
    const char *who)
{
	char path[SHELL_WORD_MAX];

	shell_word(path, sizeof(path), r->path);
	snprintf(buf, len, "the file %s maps cannot be named from here: "
	    "neither %s nor /proc/%ld/root%s names it in this root and mount "
	    "namespace, so no command is printed (one would act on another "
	    "file); run the step where that process's root is: %s", who,
	    path, r->pid, r->path, fix_short[r->verdict.fix]);
}

/* The exact step; command gets the elfthp-align command alone, or "". */
static void
pid_fix_text(char *buf, size_t len, char *command, size_t clen,
    const struct pid_row *rows, size_t n)
{
	char path[SHELL_WORD_MAX], who[256];

	pid_names(who, sizeof(who), rows, n);
	command[0] = '\0';
	if (rows[0].here == NULL && fix_names_file(rows[0].verdict.fix)) {
		pid_unnamed_text(buf, len, &rows[0], who);
		return;
	}
	shell_word(path, sizeof(path), rows[0].here != NULL ? rows[0].here :
	    rows[0].path);
	switch (rows[0].verdict.fix) {
	case FIX_NONE: buf[0] = '\0'; break;
	case FIX_REWRITE_RESTART:
		snprintf(command, clen, "elfthp-align -- %s", path);
		snprintf(buf, len, "run %s, then restart %s", command, who);
		break;
	case FIX_STOP_WARM_START:
		snprintf(command, clen, "elfthp-align --warm -- %s", path);
		snprintf(buf, len, "stop %s, run %s, then start it again (a "
		    "running process keeps its small folios mapped, so warming "
		    "while it runs cannot replace them)", who, command);
		break;
	case FIX_WARM:
		snprintf(command, clen, "elfthp-align --warm -- %s", path);
		snprintf(buf, len, "run %s: the process maps the huge folios "
		    "when it first runs that code", command);
		break;
	case FIX_RESTART:
		snprintf(buf, len, "restart %s: the next start maps the file "
		    "now at that path", who);
		break;
	case FIX_ENABLE_THP:
		snprintf(buf, len, "start it without PR_SET_THP_DISABLE (set by "
		    "its parent or its service manager)");
		break;
	case FIX_OTHER_FS:
		snprintf(buf, len, "%s, then restart %s",
		    fs_move_advice(rows[0].fs_type), who);
		break;
	case FIX_WARM_IN_PLACE:
		snprintf(command, clen, "elfthp-align --warm -- %s", path);
		snprintf(buf, len, "run %s while it runs: MADV_COLLAPSE works "
		    "on this file system, so the small folios are collapsed in "
		    "place (nothing read) and %s maps PMDs at its next run of "
		    "that code, without a restart", command, who);
		break;
	}
}

static void
pid_file_text(FILE *f, const struct pid_row *rows, size_t n)
{
	const struct pid_row *r = &rows[0];
	char status[256], rest[256], fix[SHELL_WORD_MAX + 800], command[SHELL_WORD_MAX + 64], who[256];
	char huge[16];

	pid_status_text(status, sizeof(status), r, r->verdict.status);
	pid_names(who, sizeof(who), rows, n);
	format_size(huge, sizeof(huge), r->verdict.huge_bytes);
	fprintf(f, "%s: %s", r->path, status);
	if (r->verdict.status == PID_PARTLY_HUGE) {
		pid_status_text(rest, sizeof(rest), r, r->verdict.rest);
		fprintf(f, " (the rest: %s)", rest);
	}
	if (r->facts.windows > 0)
		fprintf(f, "; %" PRIu64 " of %" PRIu64 " window%s huge%s%s%s",
		    r->verdict.huge_bytes / r->facts.pmd, r->facts.windows,
		    r->facts.windows == 1 ? "" : "s", r->verdict.huge_bytes ?
		    " (" : "", r->verdict.huge_bytes ? huge : "",
		    r->verdict.huge_bytes ? ")" : "");
	fprintf(f, "; %s\n", who);
	if (r->facts.cache_unknown)
		fprintf(f, "  page cache: unknown: %s\n", PID_CACHE_REFUSED);
	pid_fix_text(fix, sizeof(fix), command, sizeof(command), rows, n);
	if (fix[0] != '\0')
		fprintf(f, "  next: %s\n", fix);
}

static void
pid_file_json(FILE *f, const struct options *o, const struct pid_row *rows,
    size_t n)
{
	const struct pid_row *r = &rows[0];
	const struct pid_verdict *v = &r->verdict;
	char status[256], fix[SHELL_WORD_MAX + 800], command[SHELL_WORD_MAX + 64];
	struct json j;
	size_t i;

	pid_status_text(status, sizeof(status), r, v->status);
	pid_fix_text(fix, sizeof(fix), command, sizeof(command), rows, n);
	json_begin(&j, f, mode_name(o));
	json_str(&j, "file", r->path);
	json_str(&j, "path_here", r->here);
	json_str(&j, "status", pid_status_name(v->status));
	json_str(&j, "reason", v->status == PID_PARTLY_HUGE ?
	    pid_reason_name(v->rest) : v->status == PID_THP_DISABLED ||
	    v->status == PID_NO_HUGE_FOLIOS ? pid_reason_name(v->status) : NULL);
	json_array(&j, "pids");
	for (i = 0; i < n; i++)
		json_u64(&j, NULL, (uint64_t)rows[i].pid);
	json_close(&j);
	json_array(&j, "commands");
	for (i = 0; i < n; i++)
		json_str(&j, NULL, rows[i].comm);
	json_close(&j);
	json_str(&j, "dev", r->dev);
	json_u64(&j, "inode", r->inode);
	json_bool(&j, "windows_known", r->facts.windows_known);
	json_u64(&j, "windows", r->facts.windows);
	json_u64(&j, "windows_placed", r->facts.placed);
	json_u64(&j, "windows_resident", r->facts.resident);
	json_u64(&j, "windows_huge", v->huge_bytes / r->facts.pmd);
	json_u64(&j, "huge_bytes", v->huge_bytes);
	json_u64(&j, "missed_bytes", v->missed_bytes);
	json_u64(&j, "pmd_mapped_bytes", r->pmd_mapped);
	json_u64(&j, "resident_bytes", r->resident);
	json_u64(&j, "rss_increase_if_huge_bytes", r->rss_if_huge);
	json_str(&j, "fs_type", r->fs_type);
	json_str(&j, "message", status);
	json_str(&j, "fix", fix[0] ? fix : NULL);
	json_str(&j, "command", command[0] ? command : NULL);
	json_str(&j, "page_cache_unknown", r->facts.cache_unknown ?
	    PID_CACHE_REFUSED : NULL);
	json_end(&j);
}

void
report_pid_file(FILE *f, const struct options *o, const struct pid_row *rows,
    size_t n)
{
	if (o->format == FORMAT_JSON)
		pid_file_json(f, o, rows, n);
	else
		pid_file_text(f, rows, n);
}

/* A process that ended without rows: an error (on stderr in text), or
 * what it is (a kernel thread, a zombie). */
void
report_pid_message(FILE *f, const struct options *o, long pid,
    const char *status, const char *message)
{
	struct json j;

	if (o->format == FORMAT_JSON) {
		json_begin(&j, stdout, mode_name(o));
		if (pid > 0)
			json_u64(&j, "pid", (uint64_t)pid);
		json_str(&j, "status", status);
		json_str(&j, "message", message);
		json_end(&j);
		if (strcmp(status, "error") != 0)
			return;
	}
	if (strcmp(status, "error") != 0)
		fprintf(f, "%s\n", message);
	else if (pid > 0)
		diag(f, NULL, "pid %ld: %s", pid, message);
	else
		diag(f, NULL, "%s", message);
}


static void
pid_summary_text(FILE *f, const struct pid_summary *s)
{
	char huge[16], missed[16];
	const char *sep = ": ";
	size_t i;

	format_size(huge, sizeof(huge), s->huge_bytes);
	format_size(missed, sizeof(missed), s->missed_bytes);
	fprintf(f, "%zu process%s, %zu file%s: %s huge, %s could be",
	    s->processes, s->processes == 1 ? "" : "es", s->files,
	    s->files == 1 ? "" : "s", huge, missed);
	for (i = 1; i <= FIX_LAST; i++) {
		if (s->fixes[i] == 0)
			continue;
		fprintf(f, "%s%zu need%s %s", sep, s->fixes[i],
		    s->fixes[i] == 1 ? "s" : "", fix_short[i]);
		sep = ", ";
	}
	if (s->all)
		fprintf(f, "; skipped %zu kernel thread%s and %zu zombie%s",
		    s->kernel_threads, s->kernel_threads == 1 ? "" : "s",
		    s->zombies, s->zombies == 1 ? "" : "s");
	if (s->nunread > 0)
		fprintf(f, "; %zu could not be read:", s->nunread);
	for (i = 0; i < s->nunread && i < 16; i++)
		fprintf(f, "%s pid %ld (%s)", i ? "," : "", s->unread[i].pid,
		    s->unread[i].message);
	if (s->nunread > 16)
		fprintf(f, " and %zu more", s->nunread - 16);
	fprintf(f, "\n");
}

static void
pid_summary_json(FILE *f, const struct options *o, const struct pid_summary *s)
{
	struct json j;
	size_t i;

	json_begin(&j, f, mode_name(o));
	json_object(&j, "summary");
	json_u64(&j, "processes", s->processes);
	json_u64(&j, "files", s->files);
	json_u64(&j, "huge_bytes", s->huge_bytes);
	json_u64(&j, "missed_bytes", s->missed_bytes);
	json_u64(&j, "kernel_threads", s->kernel_threads);
	json_u64(&j, "zombies", s->zombies);
	json_u64(&j, "unreadable", s->nunread);
	json_array(&j, "unread");
	for (i = 0; i < s->nunread && i < 16; i++) {
		json_object(&j, NULL);
		json_u64(&j, "pid", (uint64_t)s->unread[i].pid);
		json_str(&j, "message", s->unread[i].message);
		json_close(&j);
	}
	json_close(&j);
	json_close(&j);
	json_end(&j);
}

void
report_pid_summary(FILE *f, const struct options *o,
    const struct pid_summary *s)
{
	if (o->format == FORMAT_JSON)
		pid_summary_json(f, o, s);
	else
		pid_summary_text(f, s);
}
