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
# the rewrite refuses, or (RELRO ending inside a page, an address padding
# cannot move) succeeds and leaves a file whose only finding is relro-end.
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
# compat_codes OPTS FILE: the --compat findings' codes, in order.
compat_codes() {
    "$TOOL" --check --compat --format json "$@" 2>/dev/null | head -1 |
        python3 -c 'import json, sys
print(" ".join(f["code"] for f in json.loads(sys.stdin.readline())["findings"]))' 2>/dev/null
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
            [ $rc -eq 0 ] && [ "$(compat_codes --page-size "$page" "$out")" = relro-end ] && return 0
            WHY="needs-relink, but the rewrite exits $rc and leaves [$(compat_codes --page-size "$page" "$out")]" ;;
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

# An ET_EXEC whose text has p_align 4 MiB and is congruent modulo 2 MiB but
# not 4 MiB (gnu-nopie, every segment but the first 2 MiB up): the rewrite
# moves it, so --check needs a finding that says why (it printed
# "needs-rewrite" with no finding).
if fixture_line gnu-nopie; then
    python3 - "$BUILD/$FX_FILE" "$WORK/exec4m" <<'EOF'
import struct, sys
b = bytearray(open(sys.argv[1], "rb").read())
phoff, = struct.unpack_from("<Q", b, 0x20)
phentsize, phnum = struct.unpack_from("<HH", b, 0x36)
first = True
for i in range(phnum):
    o = phoff + i * phentsize
    t, fl = struct.unpack_from("<II", b, o)
    off, v, p, fs, ms, al = struct.unpack_from("<QQQQQQ", b, o + 8)
    if t == 1 and first:
        first = False
        continue
    if t in (1, 2, 4, 7, 0x6474e550, 0x6474e552) and v >= 0x401000:
        v, p = v + 0x200000, p + 0x200000
    if t == 1 and fl & 1:
        al = 0x400000
    struct.pack_into("<QQQQQQ", b, o + 8, off, v, p, fs, ms, al)
open(sys.argv[2], "wb").write(b)
EOF
    codes=$("$TOOL" --check --format json "$WORK/exec4m" | head -1 | python3 -c 'import json, sys
o = json.loads(sys.stdin.readline())
print(o["status"], " ".join("%d:%s" % (f["segment"], f["code"]) for f in o["findings"]))')
    text=$(elf_phdrs "$WORK/exec4m" | awk '$2 == "LOAD" && $8 ~ /E/ { print $1; exit }')
    assert "ET_EXEC, p_align 4 MiB, congruent mod 2 MiB only: needs-rewrite, and says why" \
        equals "status and findings" "$codes" "needs-rewrite $text:offset-incongruent"
    assert "ET_EXEC, p_align 4 MiB: --check says what the rewrite does" agrees "$WORK/exec4m"
else
    skip "ET_EXEC with p_align 4 MiB" "no gnu-nopie fixture"
fi

finish
