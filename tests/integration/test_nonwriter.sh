#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# SPDX-FileCopyrightText: 2026 the elfthp-align authors
# test_nonwriter.sh BUILDDIR - --warm by a user who may read a file but not
# write it (nobody, on root's 0644 program).  The kernel counts a file's
# page cache only for a writer (cachestat: EPERM; mincore: every page
# "cached"), so the tool faults each window in through a mapping of its
# own and judges it by its PMD mapping.  On an ext4 image, for the same
# file in the same page-cache state (cold; read whole with small folios;
# huge already), nobody's answer must be root's, word for word and exit
# status; -v says which way was used; a program run by nobody afterwards
# maps W x 2 MiB of the file with PMDs.  The negative control: a plain cp
# of the unrewritten program is not made ready (exit 1, "run elfthp-align
# first"); the file's bytes never change.
# --warm -n reads nothing, so it cannot fault windows in: as nobody it
# prints each file's layout verdicts with the page cache unknown and why
# (text, per window with -n, JSON status "unknown" and page_cache_unknown),
# exit 0 (1 where the layout alone needs a rewrite); root's look at the
# same file is a verdict (the control).  Only the kernel's rule becomes
# "unknown": the same look with cachestat failing otherwise (EIO, from an
# LD_PRELOAD shim) is exit 2 naming the call, and the shim answering
# EPERM gives "unknown" (so the shim is what changes the answer).
# Needs root (a loop mount, setpriv), x86_64 with 2 MiB PMDs.
. "$(dirname "$0")/lib.sh"
need_builddir "$@"
need_tool

if [ "$(uname -m)" != x86_64 ] || [ "$(id -u)" -ne 0 ] ||
   [ "$(cat /sys/kernel/mm/transparent_hugepage/hpage_pmd_size 2>/dev/null)" != 2097152 ]; then
    skip "non-writer" "needs root on x86_64 with 2 MiB PMDs"
    finish
fi
for t in mkfs.ext4 setpriv readelf; do
    command -v "$t" >/dev/null || { fail "$t installed" "make deps installs it"; finish; }
done
fixture_line gnu-pie || { skip "non-writer" "fixture gnu-pie not built"; finish; }
FX=$BUILD/$FX_FILE

M=$WORK/ext4
if ! mount_image ext4 "$M"; then
    skip "non-writer" "an ext4 image could not be mounted: $WHY"
    finish
fi
chmod 755 "$WORK" "$M"   # nobody must reach the file
P=$M/prog
"$TOOL" -q -o "$P" "$FX" || { fail "the rewrite for the test" "exit $?"; finish; }
cp "$FX" "$M/control"
chmod 755 "$P"; chmod 644 "$M/control"   # root's: nobody reads, never writes
cp "$P" "$WORK/before"
count_eligible "$P"; W=$ELIG_W
[ "$W" -ge 1 ] || { fail "the fixture has windows" "$W"; finish; }

as_nobody() { setpriv --reuid=nobody --regid=nogroup --clear-groups "$@"; }

# state NAME: put P's page cache in state NAME.
state() {
    drop_cache "$P"
    case $1 in
        small) cat "$P" > /dev/null ;;
        huge) "$TOOL" -q --warm "$P" > /dev/null 2>&1 ;;
    esac
}

# warm WHO: --warm as WHO (root or nobody); W_OUT, W_RC.
warm() {
    if [ "$1" = nobody ]; then
        W_OUT=$(as_nobody "$TOOL" --warm "$P" 2>&1); W_RC=$?
    else
        W_OUT=$("$TOOL" --warm "$P" 2>&1); W_RC=$?
    fi
}

says() {
    case $1 in *"$2"*) return 0 ;; esac
    WHY="output [$1] lacks [$2]"; return 1
}

for s in cold small huge; do
    state "$s"; warm root; root_out=$W_OUT root_rc=$W_RC
    state "$s"; warm nobody
    assert "$s: nobody's --warm exits as root's ($root_rc)" rc_is "$W_RC" "$root_rc"
    assert "$s: nobody's answer is root's" equals "answer" "$W_OUT" "$root_out"
done
assert "the answers are verdicts, not errors (exit 0)" rc_is "$W_RC" 0
state cold; warm nobody
assert "cold: nobody made all $W windows huge" says "$W_OUT" "$W of $W windows huge (0 already, $W made huge)"

out=$(as_nobody "$TOOL" --warm -v "$P" 2>&1)
assert "-v says the windows were judged through the user's own mappings" says "$out" "faults of this user's own MADV_HUGEPAGE mappings"

if run_pmd "$P" setpriv --reuid=nobody --regid=nogroup --clear-groups "$P"; then
    assert "nobody's program maps $((W * 2048)) kB of it with PMDs" kb_is prog "$RUN_KB" $((W * 2048))
else
    fail "the program runs as nobody" "$WHY"
fi
assert "the file's bytes never changed" same_file "$P" "$WORK/before"

out=$(as_nobody "$TOOL" --warm "$M/control" 2>&1); rc=$?
assert "control: nobody's --warm of an unrewritten copy exits 1" rc_is "$rc" 1
assert "control: it asks for the rewrite" says "$out" "run elfthp-align first"

# --- --warm -n: a look, which nobody may not take -----------------------------
UNKNOWN="page cache: unknown (the kernel shows a file's page cache only to a user who may write it: which windows are huge now, and what --warm would read, cannot be seen; run as its owner or as root)"
lacks() {
    case $1 in *"$2"*) WHY="output [$1] has [$2]"; return 1 ;; esac
    return 0
}
state huge
out=$(as_nobody "$TOOL" --warm -n "$P" 2>&1); rc=$?
assert "nobody's --warm -n of root's file: exit 0" rc_is "$rc" 0
assert "... its windows, the page cache unknown and why" equals "first line" \
    "$(printf '%s\n' "$out" | head -1)" "$P: $W windows; $UNKNOWN"
assert "... each of the $W windows unknown" equals "window lines" \
    "$(printf '%s\n' "$out" | grep -c '^  window at file offset 0x[0-9a-f]*: page cache unknown (not shown to a user who may not write the file)$')" "$W"
assert "... no verdict on huge pages" lacks "$out" "windows huge"
json=$(as_nobody "$TOOL" --warm -n --format json "$P" "$M/control" 2>&1); rc=$?
assert "nobody's --warm -n --format json, with the unrewritten copy: exit 1 (its layout)" rc_is "$rc" 1
assert "... JSON: unknown with the reason, needs-rewrite for the copy, the summary counts it" equals "json" \
    "$(printf '%s\n' "$json" | python3 -c 'import json, sys
o = [json.loads(l) for l in sys.stdin]
print(o[0]["status"], o[0]["page_cache_unknown"].startswith("the kernel shows"),
      {s["state"] for s in o[0]["window_states"]}, o[1]["status"], "page_cache_unknown" in o[1],
      o[2]["summary"]["unknown"], o[2]["summary"]["needs_rewrite"], o[2]["summary"]["error"])')" \
    "unknown True {'unknown'} needs-rewrite True 1 1 0"
out=$("$TOOL" --warm -n "$P" 2>&1); rc=$?
assert "control: root's --warm -n of the same file is a verdict" equals "rc,first line" \
    "$rc,$(printf '%s\n' "$out" | head -1)" "0,$P: $W of $W windows huge"

# The shim: cachestat (syscall 451) fails with ELFTHP_CACHESTAT_ERRNO.
cat > "$WORK/cs_fault.c" <<'EOF'
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
long syscall(long nr, ...)
{
	static long (*real)(long, ...);
	va_list ap;
	long a[4];
	int i;

	va_start(ap, nr);
	for (i = 0; i < 4; i++)
		a[i] = va_arg(ap, long);
	va_end(ap);
	if (nr == 451) {
		errno = atoi(getenv("ELFTHP_CACHESTAT_ERRNO"));
		return -1;
	}
	if (real == NULL)
		real = (long (*)(long, ...))dlsym(RTLD_NEXT, "syscall");
	return real(nr, a[0], a[1], a[2], a[3]);
}
EOF
if gcc -shared -fPIC -O2 -o "$WORK/cs_fault.so" "$WORK/cs_fault.c" -ldl 2>"$WORK/cc.err"; then
    chmod 755 "$WORK/cs_fault.so"
    # A tool built with AddressSanitizer (make SANITIZE=1) wants its runtime
    # first in the library list; the shim comes before it.
    grep -qa __asan_init "$TOOL" &&
        export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0
    out=$(as_nobody env LD_PRELOAD="$WORK/cs_fault.so" ELFTHP_CACHESTAT_ERRNO=5 "$TOOL" --warm -n "$P" 2>&1); rc=$?
    assert "nobody, cachestat failing with EIO: exit 2, not unknown" equals "rc,message" \
        "$rc,$out" "2,elfthp-align: $P: could not look: cachestat: Input/output error (no verdict on huge pages)"
    out=$(env LD_PRELOAD="$WORK/cs_fault.so" ELFTHP_CACHESTAT_ERRNO=1 "$TOOL" --warm -n "$P" 2>&1); rc=$?
    assert "control: the shim answering EPERM (root's run) gives unknown, exit 0" equals "rc,first line" \
        "$rc,$(printf '%s\n' "$out" | head -1)" "0,$P: $W windows; $UNKNOWN"
else
    fail "the cachestat shim builds" "$(head -3 "$WORK/cc.err")"
fi
finish

