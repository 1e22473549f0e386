#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# SPDX-FileCopyrightText: 2026 the elfthp-align authors
# test_limits2.sh BUILDDIR - memory, address space, descriptors and time
# stay bounded by the header tables and the input, not by file sizes or
# counts, in every mode (issue 27).  test_limits.sh has the hostile cost
# files, test_bounds.sh the fixed bounds, test_measure.sh --warm and --host
# under ulimit, test_pid.sh --pid under ulimit -n 4; this one adds:
#   paths  a name near PATH_MAX whose directory is missing: in every mode
#          exit 2, one line that ends with the errno's text (the directory
#          quoted by its last 200 bytes after "..."); before, the 512-byte
#          buffer cut the message inside the path.
#   list   -f with 10k and 100k lines (missing names, directories, a
#          symlink loop, one file named again and again, 4000-byte names,
#          comments, blanks), --check and the rewrite: peak RSS and CPU per
#          line under a bound (the numbers printed as "# ..." lines).
#          Controls: the 100k list under ulimit -v 40000 (it holds 48 MB of
#          names) is exit 2 naming the list; a NUL byte or a 5000-byte
#          line at its end refuses the whole list before any file is done.
#   big    a 160 MiB program (lld, the text not congruent): the rewrite in
#          place, --check, --report, --warm under ulimit -v 65536 succeed
#          (the page-cache step maps bounded ranges).  Control: ulimit -v
#          6000 is exit 2 naming ENOMEM, the file untouched, no temporary.
#   pid    5 and 30 processes running it: --pid all under ulimit -v 65536
#          exit 0 and names every pid.  Control: under ulimit -v 1500 no
#          summary and no verdict, only an error.
#   nofile ulimit -n 3 to 10 for --check, --report, -n, -o, in place, -f,
#          -r: the smallest that works (printed) is at most 8, and every
#          run below it is an error naming "Too many open files" (or the
#          loader's), exit 2 or 127, with no line about the file on stdout
#          (a summary may count the error) and the file untouched.
#   table  PT_LOAD tables of 1000, 8000 and 65534 entries (gen-cost.py's
#          writer): RSS and CPU grow at most 1 KiB and 50 us a header;
#          a sparse 8 GiB file with a 3-entry table costs what a small one
#          does (the control: the 65534 table costs measurably more).
# LIMITS2_SECTIONS="list big" runs only those sections.
. "$(dirname "$0")/lib.sh"
need_builddir "$@"
need_tool

SECTIONS=${LIMITS2_SECTIONS:-paths list big pid nofile table}
want() { [[ " $SECTIONS " == *" $1 "* ]]; }
ASAN=no
grep -qa __asan_init "$TOOL" && ASAN=yes
# Under AddressSanitizer: LeakSanitizer needs descriptors of its own at
# exit (/proc/PID/task) and exits 1 when ulimit -n leaves none, after the
# tool has rightly said EMFILE (leaks are checked by the other suites);
# and ASan's shadow and quarantine add to RSS, so the RSS bounds are 4x.
RSS_SCALE=1
if [ "$ASAN" = yes ]; then
    export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0
    RSS_SCALE=4
fi

# limited LIMIT VALUE ARGS...: the tool under ulimit -LIMIT VALUE and
# /usr/bin/time: T_RC, T_OUT, T_ERR, PEAK_KB, CPU_S (user + system).
limited() {
    local lim=$1 val=$2; shift 2
    ( ulimit "-$lim" "$val" && exec /usr/bin/time -f '%M %U %S' -o "$WORK/.time" \
        timeout 120 "$TOOL" "$@" ) > "$WORK/.l.out" 2> "$WORK/.l.err" < /dev/null
    T_RC=$?
    T_OUT=$(< "$WORK/.l.out") T_ERR=$(grep -v '^Command exited' "$WORK/.l.err")
    read -r PEAK_KB u s < <(tail -n 1 "$WORK/.time" 2>/dev/null)
    CPU_S=$(awk -v u="${u:-0}" -v s="${s:-0}" 'BEGIN { print u + s }')
    no_internal_error "$T_ERR" "$@"
}
unlimited() { limited t unlimited "$@"; }
# bare LIMIT VALUE ARGS...: as limited, without /usr/bin/time, whose
# output file the tool would inherit (one descriptor fewer under -n).
bare() {
    local lim=$1 val=$2; shift 2
    ( ulimit "-$lim" "$val" && exec timeout 120 "$TOOL" "$@" ) \
        > "$WORK/.l.out" 2> "$WORK/.l.err" < /dev/null
    T_RC=$? T_OUT=$(< "$WORK/.l.out") T_ERR=$(< "$WORK/.l.err")
    no_internal_error "$T_ERR" "$@"
}

# below NAME GOT LIMIT: a figure is at most LIMIT (awk arithmetic).
below() {
    awk -v g="$2" -v l="$3" 'BEGIN { exit !(g <= l) }' && return 0
    WHY="$1: $2, over the bound $3"; return 1
}
# err_says TEXT: stderr holds TEXT.
err_says() {
    [[ $T_ERR == *"$1"* ]] && return 0
    WHY="stderr lacks '$1': $(tool_said | head -c 600)"; return 1
}

# --- paths: a directory name near PATH_MAX -------------------------------
if want paths; then
    echo "# paths: a missing directory 3.8 KiB deep"
    p=$WORK/long c=$(printf 'd%.0s' $(seq 200))
    for i in $(seq 19); do p=$p/$c; done
    mkdir -p "$p" && cp /bin/true "$p/prog"
    # ends_with_errno FILE: one line, ending in the errno's text; what
    # follows the file's name is short (a directory quoted as "...TAIL";
    # in place, realpath's ENOENT names none).
    ends_with_errno() {
        one_error_line "$1" || return 1
        local m=${T_ERR#"elfthp-align: $1: "}
        if [[ $m == *"No such file or directory" ]] && [ "${#m}" -le 300 ]; then
            return 0
        fi
        WHY="not a short message ending in the errno's text (${#m} bytes): ${m: -160}"
        return 1
    }
    for mode in --check --report -n --warm "--warm -n" ""; do
        # shellcheck disable=SC2086
        run_tool $mode "$p/missing/prog"
        assert "long path ${mode:-in place}: exit 2" tool_rc 2
        assert "long path ${mode:-in place}: the errno's text is not cut off" \
            ends_with_errno "$p/missing/prog"
    done
    run_tool -o "$p/missing/out" "$p/prog"
    assert "long path -o: exit 2" tool_rc 2
    assert "long path -o: the errno's text is not cut off" ends_with_errno "$p/prog"
    # The control: a short name is quoted whole, the errno after it (the
    # resolver walks it one component at a time).
    run_tool --check "$WORK/missing/prog"
    assert "control: a short name is quoted whole" \
        equals "message" "$T_ERR" "elfthp-align: $WORK/missing/prog: No such file or directory"
    cp /bin/true "$WORK/true"
    run_tool -o "$WORK/missing/out" "$WORK/true"
    assert "control: a short -o name is quoted whole" \
        equals "message" "$T_ERR" "elfthp-align: $WORK/true: $WORK/missing/out: No such file or directory"
    rm -rf "$WORK/long"
fi

# --- list: -f with 10k and 100k lines ------------------------------------
# make_list N FILE: N lines cycling through the hostile kinds in $L.
make_list() {
    python3 - "$L" "$1" > "$2" <<'EOF'
import sys
d, n = sys.argv[1], int(sys.argv[2])
deep = d + "/" + "/".join(["x" * 200] * 19)
kinds = [lambda i: f"{d}/missing/{i:07d}", lambda i: f"{d}/dir",
         lambda i: f"{d}/loop", lambda i: f"{d}/true",
         lambda i: f"# comment {i}", lambda i: "   ",
         lambda i: f"{deep}/{i}", lambda i: f"  {d}/true  "]
for i in range(n):
    print(kinds[i % len(kinds)](i))
EOF
}

if want list; then
    echo "# list: -f with 10k and 100k hostile lines"
    L=$WORK/list
    mkdir -p "$L/dir" && cp /bin/true "$L/true" && ln -s loop "$L/loop"
    ID=$(file_id "$L/true")
    make_list 10000 "$WORK/l10k" && make_list 100000 "$WORK/l100k"
    for mode in --check rewrite; do
        m=$mode; [ "$m" = rewrite ] && m=""
        declare -A kb=() cpu=()
        for n in 10k 100k; do
            # shellcheck disable=SC2086
            unlimited $m -f "$WORK/l$n"
            kb[$n]=$PEAK_KB cpu[$n]=$CPU_S
            echo "# -f $n lines $mode: $PEAK_KB kB peak, $CPU_S s CPU, exit $T_RC"
            assert "-f $n $mode: exit 2 (the missing names), no crash" tool_rc 2
            assert "-f $n $mode: the missing names are named" \
                err_says "$L/missing/0000000: "
        done
        lines=90000 bytes=$(( $(stat -c %s "$WORK/l100k") - $(stat -c %s "$WORK/l10k") ))
        per_line=$(( (kb[100k] - kb[10k]) * 1024 / lines ))
        echo "# -f $mode: $per_line bytes a line ($((bytes / lines)) bytes of list a line)"
        if [ "$ASAN" = yes ]; then
            skip "-f $mode: RSS per line" "AddressSanitizer's redzones and quarantine hold memory the tool freed (the plain build asserts it)"
        else
            assert "-f $mode: RSS per line at most 3 x its bytes + 2 KiB" \
                below "bytes a line" "$per_line" $(( 3 * bytes / lines + 2048 ))
        fi
        # Linear, not a time: 10 times the lines may cost at most 20 times
        # the CPU of 10k (a quadratic list would cost 100 times).  Both
        # runs share the machine's load, so their ratio holds under load
        # where a bound in seconds does not.
        assert "-f $mode: CPU grows with the lines, not faster (100k / 10k at most 20)" \
            below "CPU of 100k lines over 10k's (${cpu[100k]} s / ${cpu[10k]} s)" \
            "$(awk -v a="${cpu[100k]}" -v b="${cpu[10k]}" 'BEGIN { printf "%.2f", a / (b > 0.01 ? b : 0.01) }')" 20
        assert "-f $mode: the listed file untouched" same_id "$L/true" "$ID"
    done
    assert "-f: no temporary file" no_temp "$L"
    if [ "$ASAN" = yes ]; then
        skip "-f 100k under ulimit -v 40000" "AddressSanitizer reserves terabytes of address space"
    else
        limited v 40000 -f "$WORK/l100k"
        assert "control: -f 100k under ulimit -v 40000: exit 2" tool_rc 2
        assert "control: -f 100k under ulimit -v 40000: the list named, ENOMEM" \
            err_says "$WORK/l100k: Cannot allocate memory"
        assert "control: -f 100k under ulimit -v 40000: no file done" equals "stdout" "$T_OUT" ""
    fi
    { cat "$WORK/l100k"; printf '%s/tr\0ue\n' "$L"; } > "$WORK/nul"
    unlimited -f "$WORK/nul"
    assert "control: a NUL byte in line 100001: exit 2" tool_rc 2
    assert "control: a NUL byte: the line named, nothing done" eval \
        'one_error_line "$WORK/nul" && err_says "line 100001 holds a NUL byte" && [ -z "$T_OUT" ]'
    { cat "$WORK/l100k"; printf '%5000s\n' x; } > "$WORK/huge"
    unlimited -f "$WORK/huge"
    assert "control: a 5000-byte line 100001: the line named, nothing done" eval \
        'tool_rc 2 && err_says "line 100001 is longer than 4096 bytes" && [ -z "$T_OUT" ]'
    assert "control: the listed file untouched" same_id "$L/true" "$ID"
    rm -rf "$L" "$WORK"/l10k "$WORK"/l100k "$WORK/nul" "$WORK/huge"
fi

# --- big: a 160 MiB program under ulimit -v 65536 -------------------------
# 160 MiB of text in its own section; lld leaves it 4 KiB off its address
# modulo 2 MiB, so the rewrite moves (copies) all of it.
BIG=""
make_big() {
    cat > "$WORK/big.c" <<'EOF'
#include <stdio.h>
#include <string.h>
#include <unistd.h>
__asm__("\t.section .text.big,\"ax\"\n\t.balign 4096\n\t.globl big\nbig:\n"
        "\t.fill 160 << 20, 1, 0x5a\n\t.previous\n");
extern const char big[];
int main(int argc, char **argv)
{
	printf("%d\n", big[4096]);
	if (argc > 1 && strcmp(argv[1], "--hold") == 0) {
		puts("ready");
		fflush(stdout);
		pause();
	}
	return 0;
}
EOF
    cc -O2 -fuse-ld=lld -o "$WORK/big" "$WORK/big.c" 2> "$WORK/big.log" && BIG=$WORK/big
}
if want big || want pid; then
    need "160 MiB program" "cc -fuse-ld=lld failed: $(head -c 300 "$WORK/big.log" 2>/dev/null)" make_big
fi

if want big && [ -n "$BIG" ]; then
    echo "# big: a 160 MiB program under ulimit -v 65536"
    if [ "$ASAN" = yes ]; then
        skip "160 MiB under ulimit -v" "AddressSanitizer reserves terabytes of address space"
    else
        fresh "$BIG"
        limited v 6000 "$F"
        assert "control: in place under ulimit -v 6000: exit 2, ENOMEM named" eval \
            'tool_rc 2 && one_error_line "$F" && err_says "Cannot allocate memory"'
        assert "control: under ulimit -v 6000: the file byte-identical" same_file "$SAVED" "$F"
        assert "control: under ulimit -v 6000: no temporary file" same_listing "$D" "$L"
        limited v 65536 --check "$F"
        assert "--check under ulimit -v 65536: exit 1 (needs the rewrite)" tool_rc 1
        limited v 65536 --report "$F"
        assert "--report under ulimit -v 65536: exit 0" tool_rc 0
        limited v 65536 "$F"
        echo "# rewrite of 160 MiB in place under ulimit -v 65536: $PEAK_KB kB peak, $CPU_S s CPU"
        assert "in place under ulimit -v 65536: exit 0, 79 windows" eval \
            'tool_rc 0 && [[ $T_OUT == *"1 segment aligned, 79 windows"* ]]'
        assert "in place under ulimit -v 65536: peak RSS under 32 MiB" below "kB" "$PEAK_KB" 32768
        assert "in place: congruent" check_congruence "$F"
        assert "in place: segment bytes kept" check_segment_bytes "$SAVED" "$F"
        assert "in place: no temporary file" no_temp "$D"
        limited v 65536 --check "$F"
        assert "--check after, under ulimit -v 65536: exit 0" tool_rc 0
        drop_cache "$F"
        limited v 65536 --warm "$F"
        echo "# --warm of 160 MiB under ulimit -v 65536: $PEAK_KB kB peak, exit $T_RC"
        assert "--warm under ulimit -v 65536: exit 0 or 1, a verdict on 79 windows" eval \
            '[ "$T_RC" -le 1 ] && [[ $T_OUT == *" of 79 windows huge"* ]]'
        assert "--warm under ulimit -v 65536: peak RSS under 32 MiB" below "kB" "$PEAK_KB" 32768
        BIG=$F
    fi
fi

# --- pid: --pid all with 5 and 30 processes mapping the program ----------
if want pid && [ -n "$BIG" ]; then
    echo "# pid: --pid all with 5 and 30 processes running the 160 MiB program"
    pids=()
    for n in 5 30; do
        while [ "${#pids[@]}" -lt "$n" ]; do
            "$BIG" --hold > "$WORK/hold.$n.${#pids[@]}" 2>&1 &
            pids+=($!) HELD="$HELD $!"
        done
        # Each holder says "ready" once it runs; on a loaded machine 30
        # starts of a 160 MiB program take a while (60 s at most).
        for i in $(seq 1 600); do
            [ "$(cat "$WORK"/hold.* 2>/dev/null | grep -c '^ready$')" -ge "$n" ] && break
            sleep 0.1
        done
        assert "--pid all, $n processes: every one ready" equals "ready" \
            "$(cat "$WORK"/hold.* 2>/dev/null | grep -c '^ready$')" "$n"
        if [ "$ASAN" = yes ]; then
            unlimited --pid all
        else
            limited v 65536 --pid all
        fi
        echo "# --pid all, $n processes: $PEAK_KB kB peak, $CPU_S s CPU"
        line=$(grep "^$BIG: " <<< "$T_OUT")
        named=$(grep -o '[0-9][0-9]* ([^)]*)' <<< "$line" | grep -c '')
        more=$(sed -n 's/.* and \([0-9]*\) more$/\1/p' <<< "$line")
        named=$((named + ${more:-0}))
        assert "--pid all, $n processes, ulimit -v 65536: exit 0" tool_rc 0
        assert "--pid all, $n processes: every pid named" equals "pids" "$named" "$n"
        assert "--pid all, $n processes: peak RSS under $((16 * RSS_SCALE)) MiB" below "kB" "$PEAK_KB" $((16384 * RSS_SCALE))
    done
    # Controls: just above what the loader needs, the scan runs out of
    # memory.  Each run is the whole answer (every pid) or an error with
    # no summary (before: "0 processes, 0 files: 0B huge", exit 2).  A
    # process with 3000 mappings (2 MB of smaps) runs beside: some limit
    # fails the scan at it alone, after the others were read (as a large
    # process of anyone else on the machine may), where a summary used
    # to follow the error (exit 2 and "N processes, ...").
    python3 -c 'import mmap, signal
m = [mmap.mmap(-1, 4096 * (1 + i % 3)) for i in range(3000)]
print("ready", flush=True)
signal.pause()' > "$WORK/maps.out" 2>&1 &
    MAPS=$! HELD="$HELD $!"
    for i in $(seq 1 600); do
        grep -qs '^ready$' "$WORK/maps.out" && break
        sleep 0.1
    done
    errors=0 at_maps=0
    for v in 2600 2800 3000 3200 3400 3600 3800 4000 4200 4400 4600 4800; do
        [ "$ASAN" = yes ] && break
        ( ulimit -v "$v" && exec "$TOOL" --pid all ) > "$WORK/.p.out" 2> "$WORK/.p.err"
        T_RC=$? T_OUT=$(< "$WORK/.p.out") T_ERR=$(< "$WORK/.p.err")
        [ "$T_RC" -eq 127 ] && continue    # the loader could not map libc
        [ "$T_RC" -eq 2 ] && errors=$((errors + 1))
        [[ $T_ERR == *"pid $MAPS: "*"Cannot allocate memory"* ]] && at_maps=$((at_maps + 1))
        assert "--pid all under ulimit -v $v: every pid, or an error without a summary" eval \
            '{ [ "$T_RC" -eq 2 ] && [ -n "$T_ERR" ] && [[ $T_OUT != *"processes, "* ]]; } ||
             { [ "$T_RC" -eq 0 ] && [[ $T_OUT == *"$BIG: "*"and 22 more"* ]]; } ||
             { WHY="exit $T_RC, stderr [${T_ERR:0:300}], stdout ends [${T_OUT: -300}]"; false; }'
    done
    echo "# --pid all: $errors of the runs under ulimit -v 2600 to 4800 ran out of memory, $at_maps at the 3000 mappings"
    [ "$ASAN" = yes ] ||
        assert "--pid all: some limit fails the scan at the process with 3000 mappings alone" \
            eval '[ "$at_maps" -gt 0 ] || { WHY="no run failed at pid $MAPS"; false; }'
    kill "$MAPS" 2>/dev/null; wait "$MAPS" 2>/dev/null
    for p in "${pids[@]}"; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done
fi

# --- nofile: ulimit -n 3 to 10 in every mode ------------------------------
# Every line of T_OUT that names a file of $D is a line of want_out (the
# unlimited run's), file names as F.
only_true_lines() {
    local line
    while IFS= read -r line; do
        [[ $line == *"$D/"* ]] || continue
        grep -qxF -- "${line//$F/F}" <<< "$want_out" || return 1
    done <<< "$T_OUT"
}
if want nofile; then
    echo "# nofile: ulimit -n 3 to 10"
    FX=""
    fixture_line lld-pie && FX=$BUILD/$FX_FILE
    if need "ulimit -n" "no lld-pie fixture" test -n "$FX"; then
        fresh "$FX"
        printf '%s\n' "$F" "$F" "$D/none" > "$WORK/fd.list"
        # the modes as "name|args"; "@" is the file, copied fresh each run.
        while IFS='|' read -r name args; do
            cp "$SAVED" "$F"; rm -f "$WORK/fd.out"
            # shellcheck disable=SC2086
            bare t unlimited ${args//@/$F}
            want_rc=$T_RC want_out=${T_OUT//$F/F}
            cp "$SAVED" "$F"; rm -f "$WORK/fd.out"
            works=""
            for n in 3 4 5 6 7 8 9 10; do
                # shellcheck disable=SC2086
                bare n "$n" ${args//@/$F}
                if [ "$T_RC" = "$want_rc" ] && [ "${T_OUT//$F/F}" = "$want_out" ]; then
                    works=$n; break
                fi
                # With -j 2, one file of a list may get its descriptors
                # while the other is refused: a verdict then printed must
                # be the one an unlimited run prints, never a made-up one.
                assert "$name under ulimit -n $n: an error, and no false verdict" eval \
                    '{ { [ "$T_RC" -eq 2 ] && err_says "Too many open files"; } ||
                       { [ "$T_RC" -eq 127 ] && err_says "cannot open shared object"; }; } &&
                     only_true_lines'
                assert "$name under ulimit -n $n: the file untouched" same_file "$SAVED" "$F"
                [ -e "$WORK/fd.out" ] && fail "$name under ulimit -n $n: no output" "$WORK/fd.out written"
                cp "$SAVED" "$F"
            done
            echo "# $name: works from ulimit -n ${works:-(none up to 10)}"
            assert "$name: works with ulimit -n 8 or less" below "ulimit -n" "${works:-99}" 8
            assert "$name: no temporary file" no_temp "$D"
        done <<EOF
--check|--check @
--report|--report @
-n|-n @
-o|-o $WORK/fd.out @
in place|@
-f list|--check -f $WORK/fd.list
-r|--check -r $D
EOF
        # The control of that rule: a verdict no unlimited run printed.
        want_out="F: ready" T_OUT="$F: needs rewriting"
        assert_not "a verdict the unlimited run did not print is caught" only_true_lines
    fi
fi

# --- table: cost in proportion to the header tables -----------------------
if want table; then
    echo "# table: 1000, 8000 and 65534 PT_LOADs; a sparse 8 GiB file"
    python3 - "$REPO_ROOT/tests/hostile/gen-cost.py" "$WORK/tab" <<'EOF'
import importlib.util, os, sys
spec = importlib.util.spec_from_file_location("gc", sys.argv[1])
gc = importlib.util.module_from_spec(spec); spec.loader.exec_module(gc)
out = sys.argv[2]; os.makedirs(out, exist_ok=True)
for nload in (1000, 8000, 65534):
    e = gc.Elf()
    base = (64 + nload * 56 + 0xfff) & ~0xfff
    e.load(gc.PF_R, 0, 0, base)
    for i in range(1, nload):
        off = base + i * 16
        e.load(gc.PF_R, off, 0x40000000 + i * 0x200000 + (off & 0x1fffff), 16)
    e.write(os.path.join(out, f"loads-{nload}"), 64, size=base + nload * 16 + 16)
e = gc.text_file()
e.load(gc.PF_R, 0x401000, 0x2402000, 8 << 30)
e.write(os.path.join(out, "sparse-8g"), 64, size=0x401000 + (8 << 30))
EOF
    for mode in --check --report; do
        declare -A tkb=() tcpu=()
        for f in loads-1000 loads-8000 loads-65534 sparse-8g; do
            unlimited "$mode" "$WORK/tab/$f"
            tkb[$f]=$PEAK_KB tcpu[$f]=$CPU_S
            echo "# $mode $f: $PEAK_KB kB peak, $CPU_S s CPU, exit $T_RC"
            assert "$mode $f: a verdict (exit 0 or 1)" eval '[ "$T_RC" -le 1 ]'
        done
        per=$(( (tkb[loads-65534] - tkb[loads-1000]) * 1024 / 64534 ))
        echo "# $mode: $per bytes of RSS a program header"
        assert "$mode: at most 1 KiB of RSS a program header" below "bytes" "$per" 1024
        assert "$mode: at most 50 us a program header" below "CPU s" "${tcpu[loads-65534]}" 3.3
        assert "$mode: 8 GiB sparse costs what loads-1000 does (+2 MiB)" below "kB" \
            "${tkb[sparse-8g]}" $(( tkb[loads-1000] + 2048 ))
        assert "control: $mode: 65534 headers cost more RSS than 1000" eval \
            '[ "${tkb[loads-65534]}" -gt "$(( tkb[loads-1000] + 1024 ))" ]'
    done
fi
finish
