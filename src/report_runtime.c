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
	[WARM_IO_ERROR] = "io-error",
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
	case WARM_IO_ERROR:
		snprintf(buf, len, "cannot be read: %s", strerror(r->io_error));
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
warm_json_reasons(FILE *f, const struct warm_result *r)
{
	char why[512];
	bool first = true;
	size_t k;
	int i;

	fputs(",\"reasons\":[", f);
	for (i = 0; i < WARM_NREASONS; i++) {
		if (r->not_huge[i] == 0)
			continue;
		reason_text(why, sizeof(why), r, (enum warm_reason)i);
		fprintf(f, "%s{\"code\":\"%s\",\"windows\":%" PRIu64
		    ",\"message\":", first ? "" : ",", reason_codes[i],
		    r->not_huge[i]);
		json_string(f, why);
		if (i == WARM_BUSY) {
			fputs(",\"pids\":[", f);
			for (k = 0; k < r->npids; k++)
				fprintf(f, "%s%ld", k ? "," : "", r->pids[k]);
			fputc(']', f);
		}
		fputc('}', f);
		first = false;
	}
	fputc(']', f);
}

void
report_warm(FILE *f, enum format fmt, const char *name,
    const struct warm_result *r, enum file_class cls)
{
	if (fmt == FORMAT_TEXT) {
		warm_text(f, name, r);
		return;
	}
	fputs("{\"file\":", f);
	json_string(f, name);
	fprintf(f, ",\"status\":\"%s\",\"windows\":%" PRIu64 ",\"huge_before\":%"
	    PRIu64 ",\"made_huge\":%" PRIu64 ",\"not_huge\":%" PRIu64
	    ",\"base_aligned\":%s", class_text(cls), r->windows, r->huge_before,
	    r->made_huge, warm_not_huge(r), r->base_aligned ? "true" : "false");
	warm_json_reasons(f, r);
	fprintf(f, ",\"read_bytes\":%" PRIu64 ",\"fs_type\":", r->read_bytes);
	json_string(f, r->fs_type);
	fputs("}\n", f);
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
		fprintf(f, "\n  not probed (%s): judged by type and kernel: "
		    "writes %s, readahead %s, MADV_COLLAPSE %s",
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
json_tri(FILE *f, const char *key, enum tri t)
{
	fprintf(f, ",\"%s\":%s", key, t == TRI_YES ? "true" : t == TRI_NO ?
	    "false" : "null");
}

static void
host_json_path(FILE *f, const struct host_path *h)
{
	fputs("{\"schema\":1,\"path\":", f);
	json_string(f, h->path);
	if (h->error != 0) {
		fputs(",\"status\":\"error\",\"message\":", f);
		json_string(f, strerror(h->error));
		fputs("}\n", f);
		return;
	}
	fputs(",\"fs_type\":", f);
	json_string(f, h->fs.type);
	fputs(",\"mount_point\":", f);
	json_string(f, h->fs.mount_point);
	fputs(",\"mount_options\":", f);
	json_string(f, h->fs.options);
	fprintf(f, ",\"tmpfs_huge\":");
	json_string(f, h->fs.huge);
	fprintf(f, ",\"probed\":%s,\"write_pmd_bytes\":%" PRIu64
	    ",\"warm_pmd_bytes\":%" PRIu64 ",\"collapse_pmd_bytes\":%" PRIu64,
	    h->probe.done ? "true" : "false", h->probe.write_pmd,
	    h->probe.warm_pmd, h->probe.collapse_pmd);
	json_tri(f, "expect_write", h->expect.write);
	json_tri(f, "expect_readahead", h->expect.readahead);
	json_tri(f, "expect_collapse", h->expect.collapse);
	fprintf(f, ",\"outcome\":\"%s\",\"advice\":",
	    fs_outcome_name(h->outcome));
	json_string(f, h->sentence);
	fputs("}\n", f);
}

void
report_host(FILE *f, enum format fmt, const struct host_facts *hf)
{
	size_t i;

	if (fmt == FORMAT_TEXT) {
		host_text(f, hf);
		return;
	}
	fputs("{\"schema\":1,\"kernel\":", f);
	json_string(f, hf->kernel);
	fputs(",\"thp_enabled\":", f);
	json_string(f, hf->thp_enabled);
	fputs(",\"thp_defrag\":", f);
	json_string(f, hf->thp_defrag);
	fputs(",\"thp_shmem_enabled\":", f);
	json_string(f, hf->thp_shmem);
	json_tri(f, "read_only_thp_for_fs", hf->ro_thp_for_fs);
	json_tri(f, "madv_collapse_files", hf->collapse_files);
	fputs(",\"glibc\":", f);
	json_string(f, hf->glibc);
	fprintf(f, ",\"glibc_aligns_libraries\":%s}\n", hf->glibc_aligns ?
	    "true" : "false");
	for (i = 0; i < hf->npaths; i++)
		host_json_path(f, &hf->paths[i]);
}
