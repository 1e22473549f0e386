#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# SPDX-FileCopyrightText: 2026 the elfthp-align authors
# test_bounds.sh BUILDDIR - files that reach the fixed bounds of the tool
# (tests/hostile/gen-bounds.pl builds them):
#   - many-loads: 70 incongruent read-only PT_LOADs, each with a full
#     2 MiB window and p_align below the page: more findings than the 64
#     the tool stores.  In every mode (--check, --check -v, --check
#     --compat --page-size 4k and 16k, with and without -v, --report, -n,
#     the rewrite in place and with -o, --warm, --warm -n), text and JSON:
#     no crash, the exit status of the mode, and the counts right: the
#     64 stored findings listed, "and N more findings" or findings_total
#     saying how many there are, the 70 segments and windows of -n, the
#     rewrite, --report and --warm.  The rewrite's output is congruent,
#     keeps every segment's bytes and passes --check; the input is
#     byte-identical after every read-only mode.  The file is sparse, and
#     small enough on disk for a build with AddressSanitizer.
#   - dyn-flags-at-cap / dyn-flags-past-cap: a PT_DYNAMIC of non-null
#     entries (DT_DEBUG) longer than the 1 MiB the reader reads of it,
#     with DT_FLAGS_1 (DF_1_PIE) as the last entry inside the bound or the
#     first one past it.  The read stops at the bound: the file is a
#     static-pie in the first case (the control: the flag is read) and a
#     shared-library in the second, every mode succeeds, and nothing is
#     written.
. "$(dirname "$0")/lib.sh"
need_builddir "$@"
need_tool

G=$WORK/bounds
if ! perl "$REPO_ROOT/tests/hostile/gen-bounds.pl" "$G"; then
    fail "gen-bounds.pl builds the files" "it failed"
    finish
fi
M=$G/many-loads
cp --sparse=always "$M" "$WORK/many-loads.saved"
ID=$(file_id "$M")

# no_crash: the last run_tool did not die of a signal or time out.
no_crash() {
    [ "$T_RC" -lt 124 ] && return 0
    WHY="exit status $T_RC (signal or timeout): $(tool_said)"; return 1
}

# count_of TEXT PATTERN: the lines of the last run's stdout that match the
# extended regex PATTERN (TEXT is a label).
count_of() { printf '%s\n' "$T_OUT" | grep -cE "$1"; }

# json_count KEY_VALUE: occurrences of the literal KEY_VALUE in stdout.
json_count() { printf '%s' "$T_OUT" | grep -oF "$1" | grep -c ''; }

# has TEXT: stdout holds the literal TEXT.
has() {
    case $T_OUT in *"$1"*) return 0 ;; esac
    WHY="stdout lacks [$1]: $(tool_said | head -c 600)"; return 1
}

# untouched: the input is still what gen-bounds.pl wrote (inode, mtime, size).
untouched() { same_id "$M" "$ID"; }

# The checks must be able to fail.
T_RC=0 T_OUT="x" T_ERR=""; assert_not "sanity: has rejects a missing text" has "y"
T_RC=134; assert_not "sanity: no_crash rejects exit 134 (abort)" no_crash

# --- many-loads: findings beyond the stored 64 ---------------------------------
echo "# many-loads: 70 incongruent PT_LOADs with a window each"

run_tool --check "$M"
assert "--check: no crash" no_crash
assert "--check: exit 1 (would be changed)" tool_rc 1
assert "--check: the 64 stored findings listed" equals "finding lines" \
    "$(count_of "^$M: PT_LOAD [0-9]+: p_offset 0x[0-9a-f]+ is not congruent")" 64
assert "--check: the first is PT_LOAD 1, the last listed PT_LOAD 64" eval \
    'has "$M: PT_LOAD 1: p_offset 0x1ff000 " && has "$M: PT_LOAD 64: p_offset 0x7fff000 " &&
     ! has "$M: PT_LOAD 65: "'
assert "--check: and 6 more findings" has "$M: and 6 more findings"
assert "--check: untouched" untouched

run_tool --check -v "$M"
assert "--check -v: no crash" no_crash
assert "--check -v: exit 1" tool_rc 1
assert "--check -v: the verdict counts 70 windows after the rewrite" \
    has "$M: needs-rewrite (windows: 0 now, 70 after the rewrite)"
assert "--check -v: 64 findings and 6 more" eval \
    '[ "$(count_of "^$M: PT_LOAD [0-9]+: ")" -eq 64 ] && has "$M: and 6 more findings"'

for v in "" -v; do
    run_tool --check $v --format json "$M"
    assert "--check $v --format json: no crash" no_crash
    assert "--check $v --format json: exit 1" tool_rc 1
    assert "--check $v --format json: 64 findings stored" equals "findings" \
        "$(json_count '"code":"offset-incongruent"')" 64
    assert "--check $v --format json: findings_total 70" has '"findings_total":70,'
    assert "--check $v --format json: windows 0 now, 70 after" \
        has '"windows_now":0,"windows_after":70'
done
assert "--check --format json: untouched" untouched

# --compat: 70 p_align below the 4 KiB page; on 16 KiB pages, 70 offsets
# and 71 p_align.  The verdict names the first; -v lists the stored 64.
for page in 4k:70:page-align 16k:141:page-; do
    IFS=: read -r p total code <<< "$page"
    run_tool --check --compat --page-size "$p" "$M"
    assert "--compat $p: no crash" no_crash
    assert "--compat $p: exit 1 (fixable)" tool_rc 1
    assert "--compat $p: fixable, and more" eval \
        'has "$M: fixable for " && has ", and more (-v)"'
    run_tool --check --compat --page-size "$p" -v "$M"
    assert "--compat $p -v: no crash" no_crash
    assert "--compat $p -v: exit 1" tool_rc 1
    assert "--compat $p -v: the verdict and 63 more stored findings" equals \
        "finding lines" "$(count_of "^$M:   PT_LOAD [0-9]+: ")" 63
    run_tool --check --compat --page-size "$p" --format json "$M"
    assert "--compat $p --format json: no crash" no_crash
    assert "--compat $p --format json: exit 1" tool_rc 1
    assert "--compat $p --format json: 64 findings stored" equals "findings" \
        "$(json_count "\"code\":\"$code")" 64
    assert "--compat $p --format json: findings_total $total" has "\"findings_total\":$total}"
done
assert "--compat: untouched" untouched

run_tool --report "$M"
assert "--report: no crash" no_crash
assert "--report: exit 0" tool_rc 0
assert "--report: a row for each of the 71 PT_LOADs" equals "rows" \
    "$(count_of '^  [0-9]+ +R +0x')" 71
assert "--report: 70 eligible, a window after each" equals "eligible rows" \
    "$(count_of '^  [0-9]+ +R +0x[0-9a-f]+ +0x[0-9a-f]+ +2.0MiB 0x00000800 yes +0 +1 ')" 70
run_tool --report --format json "$M"
assert "--report --format json: no crash" no_crash
assert "--report --format json: exit 0" tool_rc 0
assert "--report --format json: 70 windows in the page cache" has '"windows":70,'
assert "--report: untouched" untouched

run_tool -n "$M"
assert "-n: no crash" no_crash
assert "-n: exit 0" tool_rc 0
assert "-n: would align 70 segments, 70 windows" \
    has "$M: would align 70 segments, 70 windows, file +4096 bytes"
run_tool -n --format json "$M"
assert "-n --format json: no crash" no_crash
assert "-n --format json: 70 segments, 70 windows after" \
    has '"segments_aligned":70,"loads_changed":70,"windows_now":0,"windows_after":70,'
assert "-n: untouched" untouched

for w in "" -n; do
    run_tool --warm $w "$M"
    assert "--warm $w: no crash" no_crash
    assert "--warm $w: exit 1 (windows that are not huge)" tool_rc 1
    assert "--warm $w: 70 windows, none huge, all not aligned" eval \
        'has "$M: 0 of 70 windows huge" && has "70 not aligned: run elfthp-align first"'
    run_tool --warm $w --format json "$M"
    assert "--warm $w --format json: no crash" no_crash
    assert "--warm $w --format json: 70 windows, 70 not huge" \
        has '"windows":70,"huge_before":0,"made_huge":0,"not_huge":70,'
done
assert "--warm: untouched" untouched

# The rewrite: with -o (text), then in place (JSON) on a copy.
run_tool -o "$WORK/out" "$M"
assert "-o: no crash" no_crash
assert "-o: exit 0" tool_rc 0
assert "-o: 70 segments aligned, 70 windows" \
    has "$M -> $WORK/out: 70 segments aligned, 70 windows, file +4096 bytes"
assert "-o: input byte-identical" same_file "$WORK/many-loads.saved" "$M"
assert "-o: untouched" untouched
assert "-o: the output is congruent" check_congruence "$WORK/out"
assert "-o: segment bytes preserved" check_segment_bytes "$M" "$WORK/out"
run_tool --check "$WORK/out"
assert "-o: the output passes --check" tool_rc 0
# A cp passes none of it: the negative control of the check above.
assert_not "control: the input itself is not congruent" check_congruence "$M"

cp --sparse=always "$M" "$WORK/in-place"
run_tool --format json --no-warm "$WORK/in-place"
assert "in place --format json: no crash" no_crash
assert "in place --format json: exit 0" tool_rc 0
assert "in place --format json: 70 segments aligned" has '"segments_aligned":70,'
assert "in place: the same bytes as -o" same_file "$WORK/out" "$WORK/in-place"
assert "in place: no temporary file" no_temp "$WORK"
rm -f "$WORK/out" "$WORK/in-place"

# --- PT_DYNAMIC beyond the 1 MiB the reader reads -------------------------------
echo "# PT_DYNAMIC: 1 MiB of DT_DEBUG, DT_FLAGS_1 inside or past the bound"

for c in at-cap:static-pie past-cap:shared-library; do
    IFS=: read -r name kind <<< "$c"
    f=$G/dyn-flags-$name
    id=$(file_id "$f")
    run_tool --report "$f"
    assert "dyn-flags-$name --report: exit 0" tool_rc 0
    assert "dyn-flags-$name --report: a $kind" has "$f: x86_64 $kind, "
    run_tool --report --format json "$f"
    assert "dyn-flags-$name --report --format json: exit 0" tool_rc 0
    assert "dyn-flags-$name --report --format json: type $kind" has "\"type\":\"$kind\""
    for mode in --check -n --warm "--check --compat --page-size 4k"; do
        # shellcheck disable=SC2086
        run_tool $mode "$f"
        assert "dyn-flags-$name $mode: no crash" no_crash
        assert "dyn-flags-$name $mode: exit 0 (nothing to change)" tool_rc 0
    done
    assert "dyn-flags-$name: untouched" same_id "$f" "$id"
done

finish
