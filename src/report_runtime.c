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
};

static void
pid_list(char *buf, size_t len, const struct warm_result *r)
{
	char comm[32];
	size_t i, used = 0;

	buf[0] = '\0';
	for (i = 0; i < r->npids && used < len; i++) {
		pc_comm(r->pids[i], comm, sizeof(comm));
		used += (size_t)snprintf(buf + used, len - used, "%s%ld (%s)",
		    i ? ", " : "", r->pids[i], comm);
	}
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
		if (r->npids > 0)
			snprintf(buf, len, "small folios mapped by pid %s: stop "
			    "it, run --warm again, then start it", pids);
		else
			snprintf(buf, len, "small folios still cached and in use "
			    "(%s): stop the programs that map it, then run "
			    "--warm again", r->unreadable ? "by a process this "
			    "user cannot inspect" : "mapped, locked or dirty");
		break;
	case WARM_NO_HUGE_FOLIOS:
		snprintf(buf, len, "the file system (%s) keeps no huge folios%s%s"
		    "%s: copy the file to ext4 or XFS", r->fs_type,
		    r->fs_why ? " (" : "", r->fs_why ? r->fs_why : "",
		    r->fs_why ? ")" : "");
		break;
	case WARM_NO_HUGE_PAGE:
		snprintf(buf, len, "no huge page could be allocated (memory "
		    "too fragmented?): try again later");
		break;
	case WARM_NREASONS:
		buf[0] = '\0';
	}
}

static void
warm_text(FILE *f, const char *name, const struct warm_result *r)
{
	char size[16], why[512];
	uint64_t huge = r->huge_before + r->made_huge, n = warm_not_huge(r);
	int i;

	format_size(size, sizeof(size), r->read_bytes);
	if (r->windows == 0) {
		fprintf(f, "%s: no windows to warm\n", name);
		return;
	}
	fprintf(f, "%s: %" PRIu64 " window%s: %" PRIu64 " huge (%" PRIu64
	    " already, %" PRIu64 " made huge)", name, r->windows,
	    r->windows == 1 ? "" : "s", huge, r->huge_before, r->made_huge);
	if (n > 0)
		fprintf(f, ", %" PRIu64 " not", n);
	for (i = 0; i < WARM_NREASONS; i++) {
		if (r->not_huge[i] == 0)
			continue;
		reason_text(why, sizeof(why), r, (enum warm_reason)i);
		fprintf(f, "; %" PRIu64 " %s", r->not_huge[i], why);
	}
	if (!r->base_aligned && r->not_huge[WARM_NOT_ALIGNED] == 0)
		fprintf(f, "; load base not guaranteed PMD-aligned (p_align): "
		    "run elfthp-align first");
	fprintf(f, "; %s read\n", size);
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

void
report_warm(FILE *f, const struct options *o, const char *name,
    const struct warm_result *r, enum file_class cls)
{
	struct json j;

	if (o->format == FORMAT_TEXT) {
		warm_text(f, name, r);
		return;
	}
	json_begin(&j, f, mode_name(o));
	json_str(&j, "file", name);
	json_str(&j, "status", class_text(cls));
	json_u64(&j, "windows", r->windows);
	json_u64(&j, "huge_before", r->huge_before);
	json_u64(&j, "made_huge", r->made_huge);
	json_u64(&j, "not_huge", warm_not_huge(r));
	json_bool(&j, "base_aligned", r->base_aligned);
	warm_json_reasons(&j, r);
	json_u64(&j, "read_bytes", r->read_bytes);
	json_str(&j, "fs_type", r->fs_type);
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
	fprintf(f, "\n  %s\n", h->sentence);
}

static void
host_text(FILE *f, const struct host_facts *hf)
{
	size_t i;

	fprintf(f, "kernel %s; transparent huge pages: enabled %s, defrag %s, "
	    "shmem_enabled %s\n", hf->kernel, hf->thp_enabled, hf->thp_defrag,
	    hf->thp_shmem);
	fprintf(f, "CONFIG_READ_ONLY_THP_FOR_FS: %s (%s)\n",
	    tri_name(hf->ro_thp_for_fs), hf->config_where);
	fprintf(f, "MADV_COLLAPSE on regular files: %s (%s%s)\n",
	    tri_name(hf->collapse_files), hf->collapse_where ? "measured on " :
	    "expected from the kernel", hf->collapse_where ?
	    hf->collapse_where : "");
	fprintf(f, "glibc %s: %s\n", hf->glibc, hf->glibc_aligns ?
	    "places shared libraries at their p_align (2.35 and later)" :
	    "ignores p_align for shared libraries (below 2.35)");
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
	json_str(&j, "outcome", fs_outcome_name(h->outcome));
	json_str(&j, "advice", h->sentence);
	json_end(&j);
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
	json_tri(&j, "madv_collapse_files", hf->collapse_files);
	json_str(&j, "glibc", hf->glibc);
	json_bool(&j, "glibc_aligns_libraries", hf->glibc_aligns);
	json_end(&j);
	for (i = 0; i < hf->npaths; i++)
		host_json_path(f, o, &hf->paths[i]);
}
