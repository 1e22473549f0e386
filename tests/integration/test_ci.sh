#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# SPDX-FileCopyrightText: 2026 the elfthp-align authors
# test_ci.sh BUILDDIR - what a CI script leans on, in every mode.
#
#   --exclude PATTERN  named paths and -r walks; a pattern with '/' against
#                      the whole path, one without against the last name;
#                      an excluded directory is not walked; repeatable.
#   -v with --check    a verdict line for every file, ready ones too.
#   --report -r        walks as --check -r does.
#   non-ELF files      named: skipped with one line, exit status as without
#                      them, in every mode; walked: quiet in every mode.
#   fix lines          each finding's fix is named: the rewrite, with the
#                      options of the check, or --page-size.
# Each has a negative case (the same run without the option, or a file the
# pattern must not match).
. "$(dirname "$0")/lib.sh"
need_builddir "$@"
need_tool
fixture_line lld-pie || { skip "CI conveniences" "no lld-pie fixture"; finish; }
LLD=$BUILD/$FX_FILE
fixture_line gnu-pie || { skip "CI conveniences" "no gnu-pie fixture"; finish; }
GNU=$BUILD/$FX_FILE

has_line() {
    printf '%s\n' "$1" | grep -Eq -- "$2" && return 0
    WHY="no line matches /$2/ in [$1]"; return 1
}
no_line() {
    local m; m=$(printf '%s\n' "$1" | grep -E -- "$2")
    [ -z "$m" ] && return 0
    WHY="unexpected line(s) matching /$2/: [$m]"; return 1
}

# A tree: two programs (gnu-pie rewritten, so ready), one under testdata/,
# and files that are not ELF.
T=$WORK/tree
mkdir -p "$T/bin" "$T/share/go/src/testdata" "$T/doc" || exit 1
cp "$LLD" "$T/bin/lld-pie" && cp "$GNU" "$T/bin/gnu-pie" &&
    "$TOOL" -q "$T/bin/gnu-pie" &&
    cp "$LLD" "$T/share/go/src/testdata/broken-but-waived" &&
    printf '#!/bin/sh\necho hi\n' > "$T/bin/script.sh" &&
    echo notes > "$T/doc/README" || exit 1
# The waived file is malformed (truncated): without --exclude it is an error.
truncate -s 100000 "$T/share/go/src/testdata/broken-but-waived"

# --- --exclude ----------------------------------------------------------------
run_tool --check -r "$T"
assert "without --exclude: the malformed test data fails the walk (control)" tool_rc 2
run_tool --check -r --exclude '*/testdata/*' "$T"
assert "--exclude '*/testdata/*': exit 1 (lld-pie needs a rewrite), no error" tool_rc 1
assert "--exclude: the waived file is not named" no_line "$T_OUT$T_ERR" "broken-but-waived"
assert "--exclude: summary counts 4 files, 0 errors" has_line "$T_OUT" "^checked 4 files: .* 0 errors$"
run_tool --check -r --exclude testdata "$T"
assert "--exclude NAME: a directory left out is not walked" no_line "$T_OUT$T_ERR" "broken-but-waived"
assert "--exclude NAME: exit 1" tool_rc 1
run_tool --check -r --exclude 'lld-*' --exclude testdata "$T"
assert "--exclude twice: both apply (exit 0, lld-pie left out)" tool_rc 0
assert "--exclude 'lld-*': gnu-pie still checked" has_line "$T_OUT" "^checked 3 files: 1 ready"
run_tool --check --exclude 'lld-*' "$T/bin/lld-pie" "$T/bin/gnu-pie"
assert "--exclude: a named path is left out too" no_line "$T_OUT" "lld-pie"
assert "--exclude: the other named path is not (control)" has_line "$T_OUT" "^checked 1 file: 1 ready"
run_tool --check --exclude 'gnu' "$T/bin/lld-pie"
assert "--exclude 'gnu' (no glob) does not match lld-pie" has_line "$T_OUT" "^checked 1 file:"
run_tool --host --exclude x
assert "--exclude with --host: refused" tool_rc 2

# --- -v with --check ------------------------------------------------------------
cp "$LLD" "$WORK/ready" && "$TOOL" -q "$WORK/ready"
run_tool --check "$WORK/ready" "$LLD"
assert "--check without -v: no line for the ready file (control)" no_line "$T_OUT" "^$WORK/ready:"
run_tool --check -v "$WORK/ready" "$LLD"
assert "--check -v: a verdict line for the ready file" has_line "$T_OUT" "^$WORK/ready: ready \(windows: [1-9][0-9]* now, [1-9][0-9]* after the rewrite\)$"
assert "--check -v: a verdict line for the file that needs a rewrite" has_line "$T_OUT" "^$LLD: needs-rewrite \(windows: 0 now, [1-9][0-9]* after the rewrite\)$"
assert "--check -v: exit 1 still" tool_rc 1

# --- fix lines ----------------------------------------------------------------------
run_tool --check "$LLD"
assert "a finding names its fix: the rewrite" has_line "$T_OUT" "^$LLD: fix: elfthp-align -- $LLD$"
run_tool --check --align 4M "$LLD"
assert "the fix carries the check's options" has_line "$T_OUT" "^$LLD: fix: elfthp-align --align 0x400000 -- $LLD$"
run_tool --check --format json "$LLD"
assert "JSON: each finding has its fix" eval 'printf "%s\n" "$T_OUT" | head -1 | python3 -c "
import json, sys
o = json.loads(sys.stdin.readline())
assert o[\"findings\"] and all(f[\"fix\"] == \"elfthp-align -- $LLD\" for f in o[\"findings\"])"'
run_tool --check --compat --page-size 16k "$LLD"
assert "--compat: the verdict line names the relink flag" has_line "$T_OUT" "^$LLD: needs a relink .*-z max-page-size=0x4000$"
assert "--compat without -v: no fix lines (one line a file)" no_line "$T_OUT" "^$LLD: fix:"
run_tool --check --compat -v --page-size 16k "$LLD"
assert "--compat -v: a relink's fix names the flags" has_line "$T_OUT" "^$LLD: fix: relink with -z max-page-size=0x4000$"

# --- --report -r -----------------------------------------------------------------
run_tool --report "$T"
assert "--report DIR without -r: an error that says so (control)" has_line "$T_ERR" "give -r"
run_tool --report -r --exclude testdata "$T"
assert "--report -r: exit 0" tool_rc 0
assert "--report -r: each program reported" eval 'has_line "$T_OUT" "^$T/bin/gnu-pie: " && has_line "$T_OUT" "^$T/bin/lld-pie: "'
assert "--report -r: walked non-ELF files are quiet" no_line "$T_OUT$T_ERR" "script.sh|README"

# --- non-ELF files: one rule in every mode -------------------------------------
S=$T/bin/script.sh
for mode in "" "-n" "--report" "--check" "--check --compat --page-size 16k" "--warm"; do
    l=${mode:-rewrite}
    # shellcheck disable=SC2086
    run_tool $mode "$WORK/ready"
    rc0=$T_RC
    # shellcheck disable=SC2086
    run_tool $mode "$S" "$WORK/ready"
    assert "$l: a named non-ELF file does not change the exit status ($rc0)" tool_rc "$rc0"
    assert "$l: one line says it was skipped" has_line "$T_OUT" "^$S: skipped: not an ELF file$"
    assert "$l: nothing on stderr" equals "stderr" "$T_ERR" ""
    # shellcheck disable=SC2086
    run_tool $mode -r --exclude testdata --exclude lld-pie --exclude gnu-pie "$T" "$WORK/ready"
    assert "$l -r: walked non-ELF files are quiet" no_line "$T_OUT$T_ERR" "script.sh|README"
    assert "$l -r: the exit status as without them ($rc0)" tool_rc "$rc0"
done
run_tool --check --format json "$S"
assert "JSON: the skipped file's status is not-elf" has_line "$T_OUT" '"status":"not-elf"'
chmod 000 "$WORK/ready"
if need "unreadable file" "root reads every file (CAP_DAC_OVERRIDE)" su nobody -s /bin/sh -c "! cat '$WORK/ready' >/dev/null 2>&1"; then
    for mode in "" "--check" "--warm"; do
        out=$(su nobody -s /bin/sh -c "'$TOOL' $mode '$WORK/ready'" 2>&1); rc=$?
        assert "${mode:-rewrite}: an unreadable file is an error (exit 2)" rc_is "$rc" 2
    done
fi

# --- a pasted fix runs no word of the name --------------------------------------
# Names a shell would split, run or take for an option: each fix line, pasted
# into sh as it is, rewrites its file and runs nothing else.  The control
# (the same line with the name unquoted) would create PWNED.
Q=$WORK/paste
mkdir -p "$Q/bin" && ln -s "$TOOL" "$Q/bin/elfthp-align"
for n in 'x; touch PWNED' '-n' "it's here" '$(touch PWNED)'; do
    cp "$LLD" "$Q/$n"
done
(cd "$Q" && "$TOOL" --check -- 'x; touch PWNED' -n "it's here" '$(touch PWNED)') \
    > "$WORK/paste.out" 2>&1
fixes=$(sed -n 's/^.*: fix: //p' "$WORK/paste.out")
assert "hostile names: one fix line each" equals "fix lines" "$(printf '%s\n' "$fixes" | grep -c .)" 4
assert "hostile names: each fix puts -- before the name" equals "fixes with --" \
    "$(printf '%s\n' "$fixes" | grep -c '^elfthp-align -- ')" 4
printf '%s\n' "$fixes" | while IFS= read -r cmd; do
    (cd "$Q" && PATH=$Q/bin:$PATH sh -c "$cmd" > /dev/null 2>&1)
done
assert_not "hostile names: the pasted fixes ran no word of a name" test -e "$Q/PWNED"
(cd "$Q" && PATH=$Q/bin:$PATH sh -c "elfthp-align --check -- x; touch PWNED" > /dev/null 2>&1)
assert "control: the same name unquoted runs its words" test -e "$Q/PWNED"
rm -f "$Q/PWNED"
(cd "$Q" && "$TOOL" --check -q -- 'x; touch PWNED' -n "it's here" '$(touch PWNED)') > /dev/null 2>&1
assert "hostile names: the pasted fixes rewrote every file (--check: ready)" rc_is $? 0

finish
