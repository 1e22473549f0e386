#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# SPDX-FileCopyrightText: 2026 the elfthp-align authors
# test_hostile.sh BUILDDIR - hostile and malformed ELF input.
#
# tests/hostile/gen.sh writes the variants (from the lld-pie fixture, so
# that "handled" cases really move a segment, and from a small hello world)
# into a scratch directory.  Each case is run in place and with -o, each in
# a directory of its own:
#   refuse:  in every mode (rewrite in place and with -o, -n, --check,
#            --check --compat with 4k and 16k pages, --report, --warm,
#            --warm -n), as text and as --format json: exit 2; stderr is one
#            line "elfthp-align: PATH: MESSAGE", where MESSAGE holds the
#            words gen.sh's refusals.txt gives for the case (the problem
#            and the header it names) and is the same in every mode; JSON
#            has the file's error object with that message; the file is
#            byte-identical; nothing is written beside it (no -o output, no
#            FILE.elfthp-* left); no crash (exit < 124).  A refusal of the
#            rewrite's plan ("plan" in refusals.txt) is not one of --compat,
#            which plans nothing: there the file is only not touched.
#   handled: exit 0; the output is valid (readelf -lW reads it, eligible
#            PT_LOADs congruent, segment and section bytes preserved); -o
#            leaves the input byte-identical and writes the same bytes as
#            the in-place rewrite; the result runs with the same output
#            wherever the hostile input itself runs.
#   skip:    not ELF, or not a program: in every mode (rewrite, -n, -o,
#            --report, --check, --compat, --warm) exit 0, one stdout line
#            "PATH: skipped: not an ...", nothing on stderr, nothing written.
# --warm on each handled case exits 0 or 1; never a crash, and the file is
# unchanged.
# Handled cases also get a second run, which must find nothing to do.
# HOSTILE_CASES="NAME..." runs only those cases (and no found input): a
# quick look at one refusal, e.g. while working on its check.
# Then every file in tests/hostile/found/ (inputs the fuzzer found) is run
# in place and with -o: exit 0 or 2, never a crash; a refused file is
# byte-identical with no temporary file left; an accepted one reads with
# readelf, keeps its segment and section bytes and program header fields,
# and a second run on it would do nothing; and -n with --page-size 4k, 16k
# and 64k (the fuzzer's page sizes) gives a verdict, never an internal
# error.
. "$(dirname "$0")/lib.sh"
need_builddir "$@"
need_tool

GEN=$REPO_ROOT/tests/hostile/gen.sh
FOUND=$REPO_ROOT/tests/hostile/found

FX=""
for name in lld-pie gnu-pie; do
    if fixture_line "$name"; then FX=$BUILD/$FX_FILE; break; fi
done
if [ -z "$FX" ]; then
    skip "hostile inputs" "neither lld-pie nor gnu-pie was built"
    finish
fi
echo "# hostile variants of $(basename "$FX")"

H=$WORK/hostile
if ! bash "$GEN" "$H" "$FX" > "$WORK/gen.log" 2>&1; then
    fail "gen.sh writes the hostile cases" "$(tail -3 "$WORK/gen.log" | tr '\n' ' ')"
    finish
fi
ncases=$(wc -l < "$H/cases.txt")
[ "$ncases" -ge 24 ] && pass "gen.sh wrote $ncases cases (>= 24)" ||
    fail "gen.sh wrote at least 24 cases" "only $ncases"

# --- small checks ------------------------------------------------------------

# no_crash DESC: the last run_tool did not die of a signal or time out.
no_crash() {
    if [ "$T_RC" -ge 124 ]; then
        WHY="exit status $T_RC (signal or timeout): $(tool_said)"; return 1
    fi
    return 0
}

# readable FILE: readelf -lW exits 0 and lists at least one LOAD.
readable() {
    local out
    out=$(LC_ALL=C readelf -lW "$1" 2>/dev/null)
    if [ $? -ne 0 ] || ! printf '%s\n' "$out" | grep -q '^ *LOAD '; then
        WHY="readelf -lW cannot read $1: $(LC_ALL=C readelf -lW "$1" 2>&1 | head -2 | tr '\n' ' ')"
        return 1
    fi
    return 0
}

# runs FILE: FILE exits 0 within 20 s; its output in RUN_OUT.  Through
# python's os.execv, which (unlike a shell or execvp) does not run a file
# the kernel refuses (ENOEXEC) as a shell script.
runs() {
    RUN_OUT=$(cd "$(dirname "$1")" && timeout 20 python3 -c \
        'import os, sys; os.execv(sys.argv[1], sys.argv[1:])' "$1" 2>&1 < /dev/null)
}

# The checks must be able to fail.
assert_not "sanity: readable rejects a non-ELF file" readable "$H/not-elf"
T_ERR=$(printf 'elfthp-align: X: one\nelfthp-align: X: two')
assert_not "sanity: one_error_line rejects two lines" one_error_line X
T_ERR="elfthp-align: Y: wrong file"
assert_not "sanity: one_error_line rejects another file's name" one_error_line X
T_RC=139
assert_not "sanity: no_crash rejects exit 139" no_crash
# run_tool counts a run that says "internal error" as a failure (lib.sh),
# unless the test expects it.
printf '#!/bin/sh\necho "elfthp-align: $1: internal error: plan check failed" >&2\nexit 2\n' \
    > "$WORK/says-internal-error"
chmod 755 "$WORK/says-internal-error"
internal_fails() {
    local n
    n=$( (TOOL=$WORK/says-internal-error FAIL=0; run_tool X > /dev/null; echo "$FAIL") )
    [ "$n" -eq 1 ] && return 0
    WHY="run_tool counted $n failures for an internal error"; return 1
}
assert "sanity: run_tool fails a run that says internal error" internal_fails
n=$( (TOOL=$WORK/says-internal-error FAIL=0 EXPECT_INTERNAL_ERROR=1; run_tool X > /dev/null; echo "$FAIL") )
assert "sanity: ... unless EXPECT_INTERNAL_ERROR is set" equals "failures" "$n" 0

# --- the cases ---------------------------------------------------------------

# The modes a refused file is run in, one a line: the label, then the
# arguments ("OUT" stands for an output path beside the file).  --format
# json runs of each mode follow the text ones.
REFUSE_MODES='rewrite|
-o|-o OUT
-n|-n
--check|--check
--check --compat 4k|--check --compat --page-size 4k
--check --compat 16k|--check --compat --page-size 16k
--report|--report
--warm|--warm
--warm -n|--warm -n'

# alone DIR NAME: DIR holds NAME and nothing else (no output, no temporary
# file), seen without a fork.
alone() {
    local -a all
    shopt -s nullglob dotglob
    all=("$1"/*)
    shopt -u nullglob dotglob
    [ "${#all[@]}" -eq 1 ] && [ "${all[0]}" = "$1/$2" ] && return 0
    WHY="$1 holds: ${all[*]##*/}"; return 1
}

# refuse_case NAME FILE MODES MSG: FILE is refused in every mode of
# REFUSE_MODES, text and JSON, with one message that holds MSG, the same in
# every mode; the file stays byte-identical and nothing is left beside it
# (no output, no temporary file).  MODES "plan": a refusal of the rewrite's
# plan, which --check --compat (it plans nothing: does the file load?)
# need not share; there it must only not crash nor touch the file.
refuse_case() {
    local name=$1 src=$2 modes=$3 msg=$4 d f saved label args fmt first="" m
    d=$WORK/case/$name
    mkdir -p "$d" && cp "$src" "$d/$name" || { fail "$name: setup" "cp failed"; return; }
    f=$d/$name
    saved=$WORK/case/$name.saved
    cp "$f" "$saved"

    for fmt in text json; do
        while IFS='|' read -r label args; do
            args=${args//OUT/$d/out}
            m="$name, $label"
            [ "$fmt" = json ] && m="$m --format json"
            # shellcheck disable=SC2086
            run_tool $args --format "$fmt" "$f"
            assert "$m: no crash" no_crash
            if [ "$modes" = plan ] && [[ $label = *--compat* ]]; then
                case $T_RC in
                    0|1|3) pass "$m: a plan refusal, not one of --compat: exit $T_RC" ;;
                    *) fail "$m: exits 0, 1 or 3" "$(tool_said)" ;;
                esac
            elif assert "$m: refused, exit 2, the message says '$msg'" \
                    refused_as "$f" "$msg" "$first" "$fmt"; then
                [ -n "$first" ] || first=${T_ERR#"elfthp-align: $f: "}
            fi
            assert "$m: file byte-identical" same_file "$saved" "$f" || cp "$saved" "$f"
            assert "$m: nothing written beside it" alone "$d" "$name"
        done <<< "$REFUSE_MODES"
    done
    rm -rf "$d" "$saved"
}

# handled_case NAME FILE: FILE is rewritten (exit 0) into a valid file that
# behaves like FILE.
handled_case() {
    local name=$1 src=$2 d f saved l
    d=$WORK/case/$name
    mkdir -p "$d/o" && cp "$src" "$d/$name" || { fail "$name: setup" "cp failed"; return; }
    f=$d/$name
    saved=$WORK/case/$name.saved
    cp "$f" "$saved"

    # --warm reads the hostile original and writes nothing.
    run_tool --warm "$f"
    assert "$name, --warm: no crash" no_crash
    [ "$T_RC" -le 1 ] && pass "$name, --warm: exits 0 or 1" ||
        fail "$name, --warm: exits 0 or 1" "$(tool_said)"
    assert "$name, --warm: input byte-identical" same_file "$saved" "$f"

    # -o first, while the input is still the hostile original.
    l=$(listing "$d")
    run_tool -o "$d/o/$name" "$f"
    assert "$name, -o: no crash" no_crash
    assert "$name, -o: exits 0" tool_rc 0
    assert "$name, -o: input byte-identical" same_file "$saved" "$f"
    assert "$name, -o: input directory unchanged" same_listing "$d" "$l"
    assert "$name, -o: no temporary file beside the output" no_temp "$d/o"

    run_tool "$f"
    assert "$name: no crash" no_crash
    assert "$name: exits 0" tool_rc 0
    assert "$name: no temporary file left" no_temp "$d"
    if [ "$T_RC" -ne 0 ]; then
        skip "$name: checks of the result" "the in-place rewrite failed (counted above)"
        rm -rf "$d" "$saved"; return
    fi
    assert "$name: readelf -lW reads the result" readable "$f"
    assert "$name: eligible PT_LOADs congruent" check_congruence "$f"
    assert "$name: segment and section bytes preserved" check_segment_bytes "$saved" "$f"
    if [ -f "$d/o/$name" ]; then
        assert "$name: -o output equals the in-place result" same_file "$f" "$d/o/$name"
    else
        fail "$name: -o output equals the in-place result" "-o wrote no output: $(ls -A "$d/o")"
    fi
    # A second run is a no-op (README: "A second run is a no-op").
    run_tool "$f"
    assert "$name: second run exits 0" tool_rc 0
    case $T_OUT in
        *"nothing to do"*|*": already aligned; "*) pass "$name: second run finds nothing to do" ;;
        *) fail "$name: second run finds nothing to do" "$(tool_said)" ;;
    esac

    # Run the hostile input as it was, then the result.
    local out0 rc0
    if set_runner x86_64 && [ "$(LC_ALL=C readelf -h "$saved" 2>/dev/null |
            sed -n 's/^ *Machine: *//p')" = "Advanced Micro Devices X86-64" ]; then
        runs "$saved"; rc0=$? out0=$RUN_OUT
        if [ "$rc0" -eq 0 ]; then
            runs "$f"
            local rc1=$?
            if [ "$rc1" -eq 0 ] && [ "$RUN_OUT" = "$out0" ]; then
                pass "$name: result runs with the same output"
            else
                fail "$name: result runs with the same output" \
                    "rc $rc1, output [$RUN_OUT], expected [$out0]"
            fi
        else
            skip "$name: result runs with the same output" \
                "the hostile input itself does not run (rc $rc0: $(echo "$out0" | tail -n 1))"
        fi
    else
        skip "$name: result runs with the same output" "not an x86_64 program or host"
    fi
    rm -rf "$d" "$saved"
}

# skip_case NAME FILE: not ELF, or not a program: the same in every mode.
# Named, it is skipped with one line that says why, exit 0, and nothing is
# written (the rule of the man page's EXIT STATUS).
skip_case() {
    local name=$1 src=$2 d f saved l mode
    d=$WORK/case/$name
    mkdir -p "$d" && cp "$src" "$d/$name" || { fail "$name: setup" "cp failed"; return; }
    f=$d/$name
    saved=$WORK/case/$name.saved
    cp "$f" "$saved"
    l=$(listing "$d")
    for mode in "" "-n" "-o $d/out" "--report" "--check" \
        "--check --compat --page-size 16k" "--warm"; do
        # shellcheck disable=SC2086
        run_tool $mode "$f"
        assert "$name, ${mode:-rewrite}: skipped, exit 0" tool_rc 0
        assert "$name, ${mode:-rewrite}: one line says why" eval \
            '[ "$(echo "$T_OUT" | grep -c "^$f: skipped: not an ")" -eq 1 ] && [ -z "$T_ERR" ]'
        assert "$name, ${mode:-rewrite}: file byte-identical" same_file "$saved" "$f"
        assert "$name, ${mode:-rewrite}: nothing written" same_listing "$d" "$l"
    done
    rm -rf "$d" "$saved"
}

# refusals.txt: the message of each refused case, and its modes.
declare -A REFUSAL_MSG REFUSAL_MODES
while read -r name modes msg; do
    REFUSAL_MSG[$name]=$msg REFUSAL_MODES[$name]=$modes
done < "$H/refusals.txt"

mkdir -p "$WORK/case"
while read -r name expected; do
    [ -n "$name" ] || continue
    if [ -n "${HOSTILE_CASES:-}" ] && [[ " $HOSTILE_CASES " != *" $name "* ]]; then
        continue
    fi
    echo "# case $name ($expected)"
    case $expected in
        refuse)
            if [ -z "${REFUSAL_MSG[$name]:-}" ]; then
                fail "$name: refusals.txt gives its message" "none for $name"
            else
                refuse_case "$name" "$H/$name" "${REFUSAL_MODES[$name]}" \
                    "${REFUSAL_MSG[$name]}"
            fi ;;
        skip) skip_case "$name" "$H/$name" ;;
        handled) handled_case "$name" "$H/$name" ;;
        *) fail "$name: cases.txt" "unknown expectation '$expected'" ;;
    esac
done < "$H/cases.txt"

# --- inputs found by the fuzzer ----------------------------------------------

# found_case FILE: whatever the tool decides, it decides it cleanly.
found_case() {
    local src=$1 name d f saved l
    name=found-$(basename "$src")
    d=$WORK/case/$name
    mkdir -p "$d" && cp "$src" "$d/input" || { fail "$name: setup" "cp failed"; return; }
    f=$d/input
    saved=$WORK/case/$name.saved
    cp "$f" "$saved"
    l=$(listing "$d")

    run_tool -o "$d/out" "$f"
    assert "$name, -o: no crash" no_crash
    case $T_RC in
        0|2) pass "$name, -o: exits 0 or 2 (exit $T_RC)" ;;
        *) fail "$name, -o: exits 0 or 2" "$(tool_said)" ;;
    esac
    assert "$name, -o: input byte-identical" same_file "$saved" "$f"
    if [ "$T_RC" -eq 2 ]; then
        assert "$name, -o: one message naming the file" one_error_line "$f"
        [ ! -e "$d/out" ] && pass "$name, -o: no output created" ||
            fail "$name, -o: no output created" "$(ls -l "$d/out")"
    elif [ "$T_RC" -eq 0 ] && [ ! -f "$d/out" ]; then
        fail "$name, -o: exit 0 wrote the output" "no $d/out: $(tool_said)"
    elif [ "$T_RC" -eq 0 ]; then
        assert "$name, -o: output readable" readable "$d/out"
        assert "$name, -o: segment and section bytes preserved" check_segment_bytes "$saved" "$d/out"
        run_tool -n "$d/out"
        case $T_RC:$T_OUT in
            0:*"nothing to do"*|0:*": already aligned"*) pass "$name, -o: a second run would do nothing" ;;
            *) fail "$name, -o: a second run would do nothing" "$(tool_said)" ;;
        esac
    fi
    rm -f "$d/out"
    assert "$name, -o: directory unchanged" same_listing "$d" "$l"

    run_tool "$f"
    assert "$name: no crash" no_crash
    case $T_RC in
        0|2) pass "$name: exits 0 or 2 (exit $T_RC)" ;;
        *) fail "$name: exits 0 or 2" "$(tool_said)" ;;
    esac
    if [ "$T_RC" -ne 0 ]; then
        assert "$name: refused file byte-identical" same_file "$saved" "$f"
    fi
    assert "$name: no temporary file left" same_listing "$d" "$l"

    # The page sizes the fuzzer plans for too: a refusal or a plan, never
    # an internal error (run_tool fails the test on one).
    for p in 4k 16k 64k; do
        cp "$saved" "$f"
        run_tool -n --page-size "$p" "$f"
        assert "$name, -n --page-size $p: no crash" no_crash
        case $T_RC in
            0|2|3) pass "$name, -n --page-size $p: a verdict (exit $T_RC)" ;;
            *) fail "$name, -n --page-size $p: a verdict" "$(tool_said)" ;;
        esac
    done
    rm -rf "$d" "$saved"
}

nfound=0
if [ -d "$FOUND" ] && [ -z "${HOSTILE_CASES:-}" ]; then
    for src in "$FOUND"/*; do
        [ -f "$src" ] || continue
        case $(basename "$src") in README*|*.txt|*.md) continue ;; esac
        echo "# found input $(basename "$src")"
        found_case "$src"
        nfound=$((nfound + 1))
    done
fi
echo "# $nfound inputs from tests/hostile/found"

finish
