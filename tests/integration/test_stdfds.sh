#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# SPDX-FileCopyrightText: 2026 the elfthp-align authors
# test_stdfds.sh BUILDDIR - closed standard descriptors never let output
# reach a file.
#
# Run as `elfthp-align ... missing prog <&- >&-`, the tool used to open
# prog as descriptor 0 and its temporary file as descriptor 1: a line
# printed late to standard output landed in the new file, which was then
# renamed into place (issue 19).  Here every combination of closed 0, 1
# and 2, with -j 1 and -j 2, in every mode, runs the tool built with its
# test hooks (build/hooks/elfthp-align): ELFTHP_TEST_STDOUT_BEFORE_SYNC
# prints a line to standard output while the temporary file is complete
# and open, so the race happens every time, not on a loaded machine only.
# Asserted for each run:
#   - a rewritten file is byte for byte what a normal run makes;
#   - the modes that write nothing leave the input byte-identical;
#   - the exit status is the normal run's; where standard output is
#     closed, 2 (output nobody received is a failure, as before: the
#     descriptor is reopened onto /dev/null for reading only);
#   - where standard output is open, it says what a normal run says.
# The negative control: the same hooked run with all three open writes
# its line to the captured standard output, so the hook did run.
. "$(dirname "$0")/lib.sh"
need_builddir "$@"
need_tool

HOOKED=${ELFTHP_ALIGN_HOOKED:-$REPO_ROOT/build/hooks/elfthp-align}
if [ ! -x "$HOOKED" ]; then
    fail "the tool with test hooks exists" "$HOOKED not found (make build/hooks/elfthp-align)"
    finish
fi
FX=""
for name in lld-pie gnu-pie; do
    if fixture_line "$name"; then FX=$BUILD/$FX_FILE; break; fi
done
if [ -z "$FX" ]; then
    skip "closed standard descriptors" "neither lld-pie nor gnu-pie was built"
    finish
fi

REF=$WORK/reference
run_tool -o "$REF" "$FX"
if [ "$T_RC" -ne 0 ] || cmp -s "$FX" "$REF"; then
    fail "reference rewrite of $(basename "$FX")" "$(tool_said)"
    finish
fi

# closed SPEC DIR ARGS...: the hooked tool in DIR with the descriptors
# named in SPEC (digits 0 1 2) closed; R_RC, R_OUT, R_ERR.
closed() {
    local spec=$1 dir=$2; shift 2
    (
        cd "$dir" || exit 99
        [[ $spec == *0* ]] && exec 0<&-
        [[ $spec == *1* ]] && exec 1>&-
        [[ $spec == *2* ]] && exec 2>&-
        ELFTHP_TEST_STDOUT_BEFORE_SYNC=1 exec "$HOOKED" "$@"
    ) > "$WORK/.c.out" 2> "$WORK/.c.err" < /dev/null
    R_RC=$?
    R_OUT=$(cat "$WORK/.c.out") R_ERR=$(cat "$WORK/.c.err")
}

# Hook output is no part of what a normal run says.
without_hook() { grep -v '"mode":"test-hook"' <<< "$1"; }

# The negative control: the hook writes where standard output is.
fresh "$FX"
closed "" "$D" --format json -j 1 missing prog
if grep -q '"mode":"test-hook"' <<< "$R_OUT"; then
    pass "control: the hook prints to standard output before the fsync"
else
    fail "control: the hook prints to standard output before the fsync" \
        "not in: $R_OUT"
fi

# mode_args MODE J: the arguments of one mode (prog in the current dir).
mode_args() {
    case $1 in
        inplace) echo "--format json -j $2 missing prog" ;;
        output) echo "--format json -o out prog" ;;
        dryrun) echo "-n -j $2 missing prog" ;;
        report) echo "--report --format json missing prog" ;;
        check) echo "--check -j $2 missing prog" ;;
        compat) echo "--check --compat --page-size 16k -j $2 missing prog" ;;
        warm) echo "--warm --format json -j $2 missing prog" ;;
        host) echo "--host ." ;;
    esac
}

# check_run MODE J SPEC: one run against a normal run of the same mode.
check_run() {
    local mode=$1 j=$2 spec=$3 args want_rc=$NORMAL_RC result=prog
    read -ra args <<< "$(mode_args "$mode" "$j")"
    [ "$mode" = output ] && result=out
    fresh "$FX"
    closed "$spec" "$D" "${args[@]}"
    [[ $spec == *1* ]] && want_rc=2
    WHY=""
    case $mode in
        inplace|output)
            cmp -s "$D/$result" "$REF" ||
                WHY="$result differs from a normal run's rewrite" ;;
        *)
            cmp -s "$D/prog" "$SAVED" || WHY="the input changed" ;;
    esac
    [ -z "$WHY" ] && [ "$R_RC" -ne "$want_rc" ] &&
        WHY="exit $R_RC, want $want_rc: $R_ERR"
    # Run-time modes measure again each time; the others say the same.
    if [ -z "$WHY" ] && [[ $spec != *1* ]] &&
       [[ $mode != warm && $mode != host ]] &&
       [ "$(without_hook "$R_OUT")" != "$NORMAL_OUT" ]; then
        WHY="standard output differs from a normal run's"
    fi
    if [ -z "$WHY" ] && [[ $spec == *1* && $spec != *2* ]] &&
       ! grep -q "standard output" <<< "$R_ERR"; then
        WHY="no 'standard output' error: $R_ERR"
    fi
    [ -z "$WHY" ]
}

for mode in inplace output dryrun report check compat warm host; do
    for j in 1 2; do
        [[ $mode == output || $mode == report || $mode == host ]] &&
            [ "$j" = 2 ] && continue
        read -ra args <<< "$(mode_args "$mode" "$j")"
        fresh "$FX"
        closed "" "$D" "${args[@]}"
        NORMAL_RC=$R_RC NORMAL_OUT=$(without_hook "$R_OUT")
        for spec in 0 1 2 01 02 12 012; do
            assert "$mode -j $j, closed $spec" check_run "$mode" "$j" "$spec"
        done
    done
done

# The same with the tool as installed (no hooks): the case of the issue.
fresh "$FX"
(cd "$D" && exec 0<&- 1>&- && exec "$TOOL" --format json -j 1 missing prog) \
    2> "$WORK/.plain.err"
if cmp -s "$D/prog" "$REF"; then
    pass "the tool without hooks, stdin and stdout closed: the rewrite is a normal run's"
else
    fail "the tool without hooks, stdin and stdout closed: the rewrite is a normal run's" \
        "prog differs: $(cat "$WORK/.plain.err")"
fi

finish
