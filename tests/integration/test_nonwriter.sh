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
finish
