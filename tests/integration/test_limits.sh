#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# SPDX-FileCopyrightText: 2026 the elfthp-align authors
# test_limits.sh BUILDDIR - hostile files that cost a careless reader dearly
# (tests/hostile/gen-cost.py builds them; several are sparse, gigabytes in
# apparent size).  For each, every mode (--check, --report, -n, --warm, and
# a rewrite with -o) must:
#   - end by itself (a limit of 20 s: the quadratic --report took 44 s on
#     loads-65534, the reading of a 5 GiB PT_DYNAMIC 4 s);
#   - stay under 64 MiB of peak RSS (5.2 GB before, on dyn-5g; 1.4 GB on
#     shnum-4m; 256 MiB for a build with AddressSanitizer);
#   - refuse with exit 2 and one message naming the file and the header
#     (refuse cases), or succeed (accept cases), and never crash;
#   - leave the input byte-identical, and no output or temporary file
#     where it refused; an accepted rewrite keeps the input's holes (the
#     5 GiB file stays a few blocks on disk).
# A refused file is then run in every mode (also in place, --warm -n and
# --check --compat), text and JSON: the same message in each, holding the
# words gen-cost.py's refusals.txt gives.
# Time is not a goal here (bench/ measures it); the limit only catches
# what would not finish.
. "$(dirname "$0")/lib.sh"
need_builddir "$@"
need_tool

G=$WORK/cost
if ! python3 "$REPO_ROOT/tests/hostile/gen-cost.py" "$G"; then
    fail "gen-cost.py builds the files" "it failed"
    finish
fi
LIMIT_KB=$((64 * 1024))
# AddressSanitizer (make SANITIZE=1 check) adds redzones and a quarantine
# to every allocation: the bound is four times as much there.
if grep -qa __asan_init "$TOOL"; then
    LIMIT_KB=$((256 * 1024))
fi

# measured MODE... FILE: run the tool under /usr/bin/time; T_RC, T_OUT,
# T_ERR as run_tool, and PEAK_KB.
measured() {
    timeout 20 /usr/bin/time -f %M -o "$WORK/.peak" "$TOOL" "$@" \
        > "$WORK/.m.out" 2> "$WORK/.m.err" < /dev/null
    T_RC=$?
    T_OUT=$(cat "$WORK/.m.out") T_ERR=$(cat "$WORK/.m.err")
    PEAK_KB=$(tail -n 1 "$WORK/.peak" 2>/dev/null)
    no_internal_error "$T_ERR" "$@"
}

peak_below() {
    [ -n "$PEAK_KB" ] && [ "$PEAK_KB" -le "$LIMIT_KB" ] && return 0
    WHY="peak RSS ${PEAK_KB:-?} kB (limit $LIMIT_KB kB), rc $T_RC"; return 1
}

finished() {
    [ "$T_RC" -ne 124 ] && [ "$T_RC" -lt 128 ] && return 0
    WHY="rc $T_RC (124: killed after 20 s; >= 128: a signal): $(tool_said)"; return 1
}

# congruent_awk FILE: lib.sh's check_congruence in one awk pass over
# readelf -lW (its shell loop takes minutes over 65534 program headers):
# each non-writable PT_LOAD holding a 2 MiB window has offset = vaddr
# (mod 2 MiB) and p_align >= 2 MiB.
congruent_awk() {
    local bad
    bad=$(LC_ALL=C readelf -lW "$1" 2>/dev/null | awk '
        function hex(s,    n, i) {
            s = tolower(s); sub(/^0x/, "", s); n = 0
            for (i = 1; i <= length(s); i++)
                n = n * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
            return n
        }
        $1 == "LOAD" {
            n++; o = hex($2); v = hex($3); fs = hex($5); a = hex($NF)
            fl = ""; for (i = 7; i < NF; i++) fl = fl $i
            if (fl ~ /W/) next
            lo = int((v + 2097151) / 2097152); hi = int((v + fs) / 2097152)
            if (hi <= lo) next
            if ((o - v) % 2097152 != 0 || a < 2097152) print "phdr " n - 1
        }
        END { if (!n) print "no PT_LOAD" }') || { WHY="awk failed"; return 1; }
    [ -z "$bad" ] && return 0
    WHY="$1: not congruent: $(echo "$bad" | head -3 | tr '\n' ' ')"; return 1
}

# sparse_copy SRC DST: cp that keeps holes (a 5 GiB file stays small).
sparse_copy() { cp --sparse=always "$1" "$2"; }

# sparse_sum FILE: size, mtime, and a hash of the data and where it lies
# (SEEK_DATA / SEEK_HOLE): cmp would read gigabytes of holes.
sparse_sum() {
    python3 -c 'import hashlib, os, sys
fd = os.open(sys.argv[1], os.O_RDONLY)
st = os.fstat(fd)
h = hashlib.sha256(str((st.st_size, st.st_mtime_ns)).encode())
off = 0
while off < st.st_size:
    try:
        d = os.lseek(fd, off, os.SEEK_DATA)
    except OSError:
        break
    e = os.lseek(fd, d, os.SEEK_HOLE)
    h.update(str((d, e)).encode())
    os.lseek(fd, d, os.SEEK_SET)
    left = e - d
    while left > 0:
        b = os.read(fd, min(left, 1 << 20))
        if not b:
            break
        h.update(b)
        left -= len(b)
    off = e
print(h.hexdigest())' "$1"
}

while read -r name want; do
    f=$WORK/case-$name
    sparse_copy "$G/$name" "$f" || { fail "$name: copy" "cp failed"; continue; }
    sum=$(sparse_sum "$f")
    for mode in --check --report -n --warm; do
        measured "$mode" "$f"
        assert "$name $mode: ends by itself" finished
        assert "$name $mode: peak RSS under $((LIMIT_KB / 1024)) MiB" peak_below
        if [ "$want" = refuse ]; then
            assert "$name $mode: exits 2" tool_rc 2
            assert "$name $mode: one message naming the file" one_error_line "$f"
        else
            [ "$T_RC" -le 1 ] && pass "$name $mode: accepted (exit $T_RC)" ||
                fail "$name $mode: accepted" "$(tool_said)"
        fi
    done
    rm -f "$WORK/out-$name"
    measured -o "$WORK/out-$name" "$f"
    assert "$name -o: ends by itself" finished
    assert "$name -o: peak RSS under $((LIMIT_KB / 1024)) MiB" peak_below
    if [ "$want" = refuse ]; then
        assert "$name -o: exits 2" tool_rc 2
        assert "$name -o: one message naming the file" one_error_line "$f"
        [ ! -e "$WORK/out-$name" ] && pass "$name -o: no output" ||
            fail "$name -o: no output" "$(ls -ls "$WORK/out-$name")"
    else
        assert "$name -o: exits 0" tool_rc 0
        assert "$name -o: the output is congruent (readelf)" congruent_awk "$WORK/out-$name"
        run_tool --check "$WORK/out-$name"
        assert "$name -o: the output passes --check" tool_rc 0
        used=$(( $(stat -c %b "$WORK/out-$name") * 512 ))
        [ "$used" -le $((16 << 20)) ] && pass "$name -o: the holes stay holes ($used bytes on disk)" ||
            fail "$name -o: the holes stay holes" "$used bytes on disk for $(stat -c %s "$WORK/out-$name")"
    fi
    assert "$name: the input is byte-identical (data, holes, mtime)" equals "sum" "$(sparse_sum "$f")" "$sum"
    assert "$name: no temporary file" no_temp "$WORK"
    rm -f "$f" "$WORK/out-$name"
done < "$G/cases.txt"

# Each refused file in every other mode too (in place, --warm -n,
# --check --compat on 4 KiB and 16 KiB pages), and each mode as JSON: exit
# 2 with the same message, which holds the words refusals.txt gives; the
# file untouched, nothing beside it.  A plan refusal ("plan") is not one of
# --compat, which plans nothing.  A machine that runs no 16 KiB pages
# (elf32-wrap is ppc) is a counted skip for those.
while read -r name modes msg; do
    f=$WORK/case-$name
    sparse_copy "$G/$name" "$f" || { fail "$name: copy" "cp failed"; continue; }
    sum=$(sparse_sum "$f") first=""
    for fmt in text json; do
        for mode in "" -n --check --report --warm "--warm -n" \
            "--check --compat --page-size 4k" "--check --compat --page-size 16k"; do
            d="$name ${mode:-in place} --format $fmt"
            # shellcheck disable=SC2086
            run_tool $mode --format "$fmt" "$f"
            if [[ $mode = *--compat* ]] && [[ $T_ERR = *"kernels do not run pages of"* ]]; then
                skip "$d: refused" "$T_ERR"
            elif [ "$modes" = plan ] && [[ $mode = *--compat* ]]; then
                [ "$T_RC" -lt 124 ] && [ "$T_RC" -ne 2 ] &&
                    pass "$d: a plan refusal, not one of --compat: exit $T_RC" ||
                    fail "$d: exits 0, 1 or 3" "$(tool_said)"
            elif assert "$d: refused, exit 2, the message says '$msg'" \
                    refused_as "$f" "$msg" "$first" "$fmt"; then
                [ -n "$first" ] || first=${T_ERR#"elfthp-align: $f: "}
            fi
        done
    done
    assert "$name, every mode: the input is byte-identical (data, holes, mtime)" \
        equals "sum" "$(sparse_sum "$f")" "$sum"
    assert "$name, every mode: no temporary file" no_temp "$WORK"
    rm -f "$f"
done < "$G/refusals.txt"
finish
