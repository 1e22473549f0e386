#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# SPDX-FileCopyrightText: 2026 the elfthp-align authors
# test_verdicts.sh BUILDDIR - one source of truth: --check says what the
# rewrite with the same options does.
#
# For every fixture, and every option set that applies to its machine
# (none, --align 4M, --page-size 16k and 64k where the machine has them),
# and for the fixture and for its rewritten copy:
#   - ready         <=> -o with the same options writes the input's bytes;
#   - needs-rewrite <=> -o changes the file, and --check on that output
#                       is then ready;
#   - needs-relink  <=> the rewrite refuses naming a relink, or has
#                       nothing it can do for windows it cannot reach;
# and --check --compat with the page size agrees: fixable <=> the rewrite
# with --page-size succeeds and leaves a compatible file; needs-relink <=>
# the rewrite refuses.
. "$(dirname "$0")/lib.sh"
need_builddir "$@"
need_tool

# status OPTS FILE: --check's JSON status.
status() {
    "$TOOL" --check --format json "$@" 2>/dev/null | head -1 |
        python3 -c 'import json, sys; print(json.loads(sys.stdin.readline())["status"])' 2>/dev/null
}
compat_status() {
    "$TOOL" --check --compat --format json "$@" 2>/dev/null | head -1 |
        python3 -c 'import json, sys; print(json.loads(sys.stdin.readline())["status"])' 2>/dev/null
}

# agrees DESC FILE OPTS...: the three equivalences above, for one file.
agrees() {
    local f=$1 st rc out=$WORK/out; shift
    st=$(status "$@" "$f")
    rm -f "$out"
    "$TOOL" -q -o "$out" "$@" "$f" > "$WORK/rw.out" 2> "$WORK/rw.err"; rc=$?
    case $st in
        ready)
            [ $rc -eq 0 ] && cmp -s "$f" "$out" && return 0
            WHY="ready, but the rewrite exits $rc or changes the file" ;;
        needs-rewrite)
            if [ $rc -eq 0 ] && ! cmp -s "$f" "$out"; then
                [ "$(status "$@" "$out")" = ready ] && return 0
                WHY="needs-rewrite, rewritten, but the output is $(status "$@" "$out")"
            else
                WHY="needs-rewrite, but the rewrite exits $rc or changes nothing"
            fi ;;
        needs-relink)
            if [ $rc -eq 2 ] && grep -q relink "$WORK/rw.err"; then return 0; fi
            [ $rc -eq 0 ] && cmp -s "$f" "$out" && return 0
            WHY="needs-relink, but the rewrite exits $rc: $(head -1 "$WORK/rw.err")" ;;
        *) WHY="--check $* gave no status: [$st]" ;;
    esac
    return 1
}

# compat_agrees FILE PAGE: --compat against the rewrite with --page-size.
compat_agrees() {
    local f=$1 page=$2 st rc out=$WORK/cout
    st=$(compat_status --page-size "$page" "$f")
    rm -f "$out"
    "$TOOL" -q -o "$out" --page-size "$page" "$f" > /dev/null 2> "$WORK/c.err"; rc=$?
    case $st in
        compatible|fixable)
            [ $rc -eq 0 ] && [ "$(compat_status --page-size "$page" "$out")" = compatible ] && return 0
            WHY="$st, but the rewrite exits $rc or leaves $(compat_status --page-size "$page" "$out")" ;;
        needs-relink)
            [ $rc -eq 2 ] && grep -q 'relink' "$WORK/c.err" && return 0
            WHY="needs-relink, but the rewrite exits $rc" ;;
        *) WHY="--compat gave no status: [$st]" ;;
    esac
    return 1
}

pages_of() {	# pages_of ARCH: the page sizes the machine's kernels run
    case $1 in
        x86_64) echo 16k ;;
        aarch64) echo 16k 64k ;;
        *) echo "" ;;
    esac
}

n=0
while read -r name arch file main; do
    [ -n "$name" ] || continue
    f=$BUILD/$file
    cp "$f" "$WORK/$name.aligned" && "$TOOL" -q "$WORK/$name.aligned" 2>/dev/null
    for opts in "" "--align 4M" $(for p in $(pages_of "$arch"); do echo "--page-size=$p"; done); do
        for which in "$f" "$WORK/$name.aligned"; do
            label="$name${which##*$name}"
            assert "$label ${opts:-(default)}: --check says what the rewrite does" agrees "$which" $opts
            n=$((n + 1))
        done
    done
    for p in $(pages_of "$arch"); do
        assert "$name --page-size $p: --compat says what the rewrite does" compat_agrees "$f" "$p"
    done
done < "$BUILD/fixtures.txt"
[ "$n" -gt 20 ] && pass "option combinations tried: $n" || fail "option combinations tried" "only $n"

finish
