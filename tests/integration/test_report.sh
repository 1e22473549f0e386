#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# SPDX-FileCopyrightText: 2026 the elfthp-align authors
# test_report.sh BUILDDIR - elfthp-align --report and --pid.
#
# --report: the expected numbers come from an independent model (python3,
# report_model.py beside this script) fed only with `readelf -hW -lW -SW
# -dW` of each file, written from the definitions (man page: THE REPORT
# and PAGE GEOMETRIES; README; docs/geometry.md, 'Windows' and 'The
# --report model'), never from the tool's own output:
#   - verdicts, windows_now/after, kernel_patch_aligns, base_aligned_now/after;
#   - per geometry (x86_64-4k, arm64-4k, arm64-16k, arm64-64k): TLB
#     translations now/after, huge bytes now/after, rss_increase_max,
#     aslr_bits_lost and growth_bytes.
# The "after" state is PREDICTED by the model (the planner's rules: each
# eligible PT_LOAD gets the smallest offset >= its old one, shifted by what
# came before, congruent to p_vaddr modulo its alignment: the PMD up to
# 32 MiB, else the contiguous block; with arm64 16 KiB pages a segment
# without a 32 MiB window falls back to the 2 MiB block; every other PT_LOAD
# stays congruent modulo max(p_align, the geometry's page, the machine's
# largest page); the first PT_LOAD and the headers never move).  As a
# cross-check of the prediction, not of the report, the x86_64-4k plan is
# also compared with a real `elfthp-align -o` rewrite read back with readelf.
# aslr_bits_lost follows the man page: log2(alignment after / alignment
# before) for ET_DYN (largest power-of-two p_align, at least the page), 0
# for ET_EXEC.  The machine's largest page is a floor only for a file that
# is rewritten anyway; the geometry's own page always applies (plan2).
#
# Files: lld-pie (windows_now 0, windows_after > 0), the same rewritten
# (now == after), hello worlds for x86_64 and aarch64 (nothing eligible),
# libbig.so and libbig-lld.so (shared-library, no kernel_patch_aligns), ET_EXEC
# (aslr 0), static PIE, aarch64 (64 KiB congruence), and --page-size 16k.
# JSON: one valid object per line per file with the exact key sets of
# src/report.c.  Text: a header line and one row per PT_LOAD and per
# geometry.  --report never writes (inode, mtime, size, bytes and directory
# listing unchanged).
#
# --pid: on a tmpfs mounted with huge=always (root; skipped with the reason
# if the mount fails) a rewritten lld-pie runs with --hold; the tool's
# pmd_mapped_bytes for it equals FilePmdMapped + ShmemPmdMapped (kB x 1024)
# summed over its mappings in /proc/PID/smaps as read here, every window is
# placed, and the huge windows are PmdMapped / PMD with status huge (or
# partly-huge); the unrewritten lld-pie from the same tmpfs, run the same
# way (both under setarch -R, so that its base is not 2 MiB aligned by the
# chance of ASLR), has pmd_mapped_bytes 0, status layout and the command
# `elfthp-align FILE`.  For both, windows (from the file's read-only
# PT_LOADs), windows placed, windows_resident, rss_increase_if_huge and
# resident_bytes are recomputed from readelf, smaps and pagemap, and every
# ELF file mapped executable is listed once.  A process of another user (the
# tool run as nobody against pid 1) and a pid that cannot exist give exit 2
# and a message.
. "$(dirname "$0")/lib.sh"
need_builddir "$@"
need_tool

if ! command -v python3 >/dev/null; then
    skip "--report model" "python3 not installed (the model is written in python3)"
    finish
fi
# The interpreter itself: a version-manager shim costs seconds per call.
PY=$(python3 -c 'import sys; print(sys.executable)' 2>/dev/null)
[ -x "$PY" ] || PY=python3

# The model: its own file beside this script (python3, readelf only).
MODEL=$LIB_DIR/report_model.py

# model CMD ARGS...: run the model, turn its PASS/FAIL/SKIP lines into
# results (INFO lines are printed as comments).
model() {
    local st d r
    while IFS=$'\t' read -r st d r; do
        case $st in
            PASS) pass "$d" ;;
            FAIL) fail "$d" "$r" ;;
            SKIP) skip "$d" "$r" ;;
            INFO) echo "# $d" ;;
            *) echo "$st $d $r" ;;
        esac
    done < <("$PY" "$MODEL" "$@")
}

# --- files ----------------------------------------------------------------

F=$WORK/files
mkdir -p "$F"
declare -A SRC=()          # label -> file given to the tool (relative to $F)
LABELS=()
add() { SRC[$1]=$2; LABELS+=("$1"); }

for n in lld-pie lld-nopie gnu-pie gnu-nopie gnu-noseparate gnu-static-pie \
         shared lld-shared aarch64-pie aarch64-lld-pie; do
    if fixture_line "$n"; then
        cp "$BUILD/$FX_FILE" "$F/$FX_FILE" && add "$n" "$FX_FILE"
    else
        skip "$n: --report" "fixture not built"
    fi
done

# A small hello world: nothing in it holds a 2 MiB window.
if printf '#include <stdio.h>\nint main(void) { puts("hello"); return 0; }\n' \
        > "$WORK/hello.c" && gcc -O2 -o "$F/hello" "$WORK/hello.c" 2>/dev/null; then
    add hello hello
elif fixture_line shared; then
    echo "# no gcc: the small program shared-main stands in for hello world"
    cp "$BUILD/$FX_MAIN" "$F/hello" && add hello hello
else
    skip "hello: --report" "no gcc and no small fixture"
fi

if command -v aarch64-linux-gnu-gcc >/dev/null &&
        aarch64-linux-gnu-gcc -O2 -o "$F/hello-aarch64" "$WORK/hello.c" 2>/dev/null; then
    add hello-aarch64 hello-aarch64
else
    skip "hello-aarch64: --report" "no aarch64-linux-gnu-gcc"
fi

# Rewritten (already aligned) copies: "now" must equal "after".
for n in lld-pie lld-shared; do
    need "$n-aligned: --report" "no $n file (not built; see above)" [ -n "${SRC[$n]:-}" ] || continue
    run_tool -q -o "$F/${SRC[$n]}.aligned" "$F/${SRC[$n]}"
    if assert "$n: rewrite a copy with -o" tool_rc 0; then
        add "$n-aligned" "${SRC[$n]}.aligned"
    else
        skip "$n-aligned: --report" "the rewrite failed"
    fi
done

cd "$F" || exit 1

# --- the model against the tool, file by file --------------------------------

for l in "${LABELS[@]}"; do
    f=${SRC[$l]}
    id0=$(file_id "$f"); ls0=$(listing .); sum0=$(cksum < "$f")
    run_tool --report -v --format json "$f"
    if ! assert "$l: --report --format json exits 0" tool_rc 0; then
        skip "$l: the model's checks of --report" "--report failed (counted above)"
        continue
    fi
    printf '%s\n' "$T_OUT" > "$WORK/out.json"
    model json "$l" "$f" "$f" "$WORK/out.json"
    run_tool --report -v "$f"
    if assert "$l: --report (text) exits 0" tool_rc 0; then
        printf '%s\n' "$T_OUT" > "$WORK/out.txt"
        model text "$l" "$f" "$f" "$WORK/out.txt"
    else
        skip "$l: the model's checks of --report (text)" "--report failed (counted above)"
    fi
    never_wrote() {
        same_id "$f" "$id0" && same_listing . "$ls0" || return 1
        [ "$(cksum < "$f")" = "$sum0" ] && return 0
        WHY="$f bytes changed"; return 1
    }
    assert "$l: --report wrote nothing" never_wrote
done

# --- what the report must show for each kind of file ------------------------

# jq-free access to the tool's JSON: jget FILE EXPR (python expression on o).
jget() {
    "$PY" -c 'import json,sys
o = json.loads(sys.stdin.readline())
S = {s["index"]: s for s in o["segments"]}
G = {g["name"]: g for g in o["geometries"]}
v = eval(sys.argv[1])
print(json.dumps(v) if isinstance(v, bool) else v)' "$2" < "$1"
}
report_json() { "$TOOL" --report -v --format json "$1" > "$WORK/r.json" 2>/dev/null; }
# report_of LABEL WHAT: report_json of LABEL's file; 1 after counting why
# the checks of WHAT cannot run: a skip if there is no such file (its
# fixture was not built), a failure if the tool fails.
report_of() {
    if [ -z "${SRC[$1]:-}" ]; then
        skip "$1: $2" "no $1 file (not built; see above)"; return 1
    fi
    report_json "${SRC[$1]}" && return 0
    fail "$1: $2" "--report --format json ${SRC[$1]} failed"; return 1
}

# expect_eq DESC GOT WANT: lib.sh's equals, counted.
expect_eq() { assert "$1" equals "$1" "$2" "$3"; }

if report_of lld-pie "what its report must show"; then
    expect_eq "lld-pie: x86_64-4k: windows_now is 0" \
        "$(jget "$WORK/r.json" 'sum(s["windows_now"] for s in o["segments"])')" 0
    expect_eq "lld-pie: x86_64-4k: windows_after > 0" \
        "$(jget "$WORK/r.json" 'sum(s["windows_after"] for s in o["segments"]) > 0')" true
    expect_eq "lld-pie: x86_64-4k: huge_bytes_now 0, huge_bytes_after > 0" \
        "$(jget "$WORK/r.json" '(G["x86_64-4k"]["huge_bytes_now"], G["x86_64-4k"]["huge_bytes_after"] > 0)')" "(0, True)"
    expect_eq "lld-pie: x86_64-4k: fewer translations after" \
        "$(jget "$WORK/r.json" 'G["x86_64-4k"]["translations_after"] < G["x86_64-4k"]["translations_now"]')" true
    expect_eq "lld-pie: x86_64-4k: growth_bytes 4096 (text moves by 0x1000)" \
        "$(jget "$WORK/r.json" 'G["x86_64-4k"]["growth_bytes"]')" 4096
    # log2(largest p_align after / page): 2M/4K, 2M/4K, 2M/16K (arm64-16k
    # falls back to 2 MiB blocks: no 32 MiB window here), 2M/64K.
    expect_eq "lld-pie: aslr_bits_lost 9, 9, 7, 5" \
        "$(jget "$WORK/r.json" '[g["aslr_bits_lost"] for g in o["geometries"]]')" "[9, 9, 7, 5]"
    expect_eq "lld-pie: arm64-16k: 2 MiB blocks cut translations (514 -> 133)" \
        "$(jget "$WORK/r.json" '(G["arm64-16k"]["translations_now"], G["arm64-16k"]["translations_after"])')" "(514, 133)"
fi

for l in lld-pie-aligned lld-shared-aligned; do
    report_of "$l" "what its report must show" || continue
    expect_eq "$l: windows_now = windows_after for every PT_LOAD" \
        "$(jget "$WORK/r.json" 'all(s["windows_now"] == s["windows_after"] for s in o["segments"])')" true
    expect_eq "$l: windows_now > 0" \
        "$(jget "$WORK/r.json" 'sum(s["windows_now"] for s in o["segments"]) > 0')" true
    expect_eq "$l: base aligned now and after" \
        "$(jget "$WORK/r.json" '(o["base_aligned_now"], o["base_aligned_after"])')" "(True, True)"
    # The models; the measured row (the page cache) is test_nextrun.sh's.
    expect_eq "$l: every modelled geometry: translations and huge bytes now = after" \
        "$(jget "$WORK/r.json" '[g["name"] for g in o["geometries"] if not g["measured"] and (g["translations_now"], g["huge_bytes_now"]) != (g["translations_after"], g["huge_bytes_after"])]')" "[]"
    expect_eq "$l: x86_64-4k and arm64-4k: growth_bytes 0" \
        "$(jget "$WORK/r.json" '(G["x86_64-4k"]["growth_bytes"], G["arm64-4k"]["growth_bytes"])')" "(0, 0)"
done

if report_of hello "what its report must show"; then
    expect_eq "hello: no PT_LOAD eligible" \
        "$(jget "$WORK/r.json" '[s["index"] for s in o["segments"] if s["verdict"] == "eligible" or s["windows_now"] or s["windows_after"] or s["kernel_patch_aligns"]]')" "[]"
    expect_eq "hello: no huge bytes, no RSS increase, same translations, any geometry" \
        "$(jget "$WORK/r.json" '[g["name"] for g in o["geometries"] if g["huge_bytes_now"] or g["huge_bytes_after"] or g["rss_increase_max_bytes"] or g["translations_now"] != g["translations_after"]]')" "[]"
    expect_eq "hello: x86_64-4k growth_bytes 0" \
        "$(jget "$WORK/r.json" 'G["x86_64-4k"]["growth_bytes"]')" 0
    expect_eq "hello: aslr_bits_lost 0 (the rewrite aligns nothing)" \
        "$(jget "$WORK/r.json" '[g["aslr_bits_lost"] for g in o["geometries"]]')" "[0, 0, 0, 0]"
fi
# The same for an aarch64 hello world, whose p_align is already 64 KiB.
if report_of hello-aarch64 "what its report must show"; then
    expect_eq "hello-aarch64: no PT_LOAD eligible" \
        "$(jget "$WORK/r.json" '[s["index"] for s in o["segments"] if s["verdict"] == "eligible"]')" "[]"
fi

for l in shared lld-shared lld-shared-aligned; do
    report_of "$l" "what its report must show" || continue
    expect_eq "$l: type shared-library" "$(jget "$WORK/r.json" 'o["type"]')" shared-library
    expect_eq "$l: kernel_patch_aligns false for every PT_LOAD" \
        "$(jget "$WORK/r.json" '[s["index"] for s in o["segments"] if s["kernel_patch_aligns"] is not False]')" "[]"
done
# libbig-lld.so's first PT_LOAD (offset 0, vaddr 0, > 2 MiB, p_align 4 KiB)
# would meet the seed patch's rule but for being a shared library.
if need "lld-shared: the model's seed rule would match PT_LOAD 1 of an executable" \
        "no lld-shared file (not built; see above)" [ -n "${SRC[lld-shared]:-}" ]; then
    expect_eq "lld-shared: the model's seed rule would match PT_LOAD 1 of an executable" \
        "$(elf_phdrs "${SRC[lld-shared]}" | awk '$2 == "LOAD" { print ($3 == 0 && $4 == 0 && $6 >= 2097152 && $9 < 2097152) ? "yes" : "no"; exit }')" yes
fi

for l in gnu-nopie lld-nopie; do
    report_of "$l" "what its report must show" || continue
    expect_eq "$l: type executable, base aligned now" \
        "$(jget "$WORK/r.json" '(o["type"], o["base_aligned_now"])')" "('executable', True)"
    expect_eq "$l: aslr_bits_lost 0 for every geometry" \
        "$(jget "$WORK/r.json" '[g["aslr_bits_lost"] for g in o["geometries"]]')" "[0, 0, 0, 0]"
done
if report_of gnu-static-pie "what its report must show"; then
    expect_eq "gnu-static-pie: type static-pie" "$(jget "$WORK/r.json" 'o["type"]')" static-pie
fi
if report_of gnu-pie "what its report must show"; then
    expect_eq "gnu-pie: type pie" "$(jget "$WORK/r.json" 'o["type"]')" pie
fi

# --- the model's x86_64-4k plan against a real rewrite ---------------------

# Not a test of the report: it shows the model predicts what the rewriter
# does, so that its "after" numbers rest on the right layout.
plan_matches() {
    local orig=$1 new=$2 exp got
    exp=$("$PY" "$MODEL" plan "$orig")
    got=$(elf_phdrs "$new" | awk '$2 == "LOAD" { print $1, $3, $9 }'; echo "size $(stat -c %s "$new")")
    [ "$exp" = "$got" ] && return 0
    WHY="model [$(echo "$exp" | tr '\n' ',')] rewrite [$(echo "$got" | tr '\n' ',')]"
    return 1
}
for l in lld-pie gnu-pie gnu-nopie shared lld-shared gnu-static-pie hello; do
    need "$l: model's x86_64-4k plan = offsets, aligns, size of an -o rewrite" \
        "no $l file (not built; see above)" [ -n "${SRC[$l]:-}" ] || continue
    run_tool -q -o "$WORK/planned" "${SRC[$l]}"
    [ "$T_RC" -eq 0 ] || { fail "$l: model plan = rewrite" "rewrite failed: $(tool_said)"; continue; }
    assert "$l: model's x86_64-4k plan = offsets, aligns, size of an -o rewrite" \
        plan_matches "${SRC[$l]}" "$WORK/planned"
    rm -f "$WORK/planned"
done

# --- several files, --page-size, errors --------------------------------------

multi=()
for l in lld-pie shared hello gnu-nopie; do
    [ -n "${SRC[$l]:-}" ] && multi+=("${SRC[$l]}")
done
if [ ${#multi[@]} -ge 2 ]; then
    run_tool --report -v --format json "${multi[@]}"
    if assert "several files: --report --format json exits 0" tool_rc 0; then
        printf '%s\n' "$T_OUT" > "$WORK/multi.json"
        model multi "several files: one JSON object per line, in order" \
            "$WORK/multi.json" "${multi[@]}"
    else
        skip "several files: the model's checks of --report" "--report failed (counted above)"
    fi
    run_tool --report -v "${multi[@]}"
    if assert "several files: --report (text) exits 0" tool_rc 0; then
        printf '%s\n' "$T_OUT" > "$WORK/multi.txt"
        for f in "${multi[@]}"; do
            model text "several files: $f" "$f" "$f" "$WORK/multi.txt"
        done
    else
        skip "several files: the model's checks of --report (text)" "--report failed (counted above)"
    fi
else
    skip "several files: --report" "fewer than two of lld-pie, shared, hello, gnu-nopie"
fi

if need "aarch64-pie --page-size 16k" "no aarch64-pie file (not built; see above)" \
        [ -n "${SRC[aarch64-pie]:-}" ]; then
    run_tool --report -v --format json --page-size 16k "${SRC[aarch64-pie]}"
    if assert "aarch64-pie --page-size 16k: exits 0" tool_rc 0; then
        printf '%s\n' "$T_OUT" > "$WORK/out.json"
        model json "aarch64-pie --page-size 16k" "${SRC[aarch64-pie]}" \
            "${SRC[aarch64-pie]}" "$WORK/out.json" 16384
    else
        skip "aarch64-pie --page-size 16k: the model's checks" "--report failed (counted above)"
    fi
fi

printf 'not an ELF file\n' > "$F/notelf"
run_tool --report "$F/notelf"
assert "--report of a non-ELF file: skipped, exit 0 (as in every mode)" tool_rc 0
assert "--report of a non-ELF file: a line names it" equals "stdout" "$T_OUT" "$F/notelf: skipped: not an ELF file"
head -c 100 "$BUILD/$(awk '$1 == "lld-pie" { print $3 }' "$BUILD/fixtures.txt")" > "$F/truncated"
run_tool --report "$F/truncated"
assert "--report of a malformed ELF file: exit 2" tool_rc 2
assert "--report of a malformed ELF file: message names it" tool_err_names "$F/truncated"

cd "$REPO_ROOT" || exit 1

# --- --pid: errors -----------------------------------------------------------

pid_denied() {
    local me
    [ "$(awk '/^Uid:/ { print $2 }' /proc/1/status 2>/dev/null)" = 65534 ] && {
        WHY="pid 1 belongs to nobody here"; return 2; }
    if [ "$(id -u)" -eq 0 ]; then
        command -v setpriv >/dev/null || { WHY="setpriv not installed"; return 2; }
        # The tool must be reachable by nobody: a world-readable copy.
        me=$WORK/nobody
        mkdir -p "$me" && chmod 711 "$WORK" &&
            cp "$TOOL" "$me/elfthp-align" && chmod 755 "$me" "$me/elfthp-align" ||
            { WHY="cannot make a copy of the tool for nobody"; return 2; }
        timeout 30 setpriv --reuid=65534 --regid=65534 --clear-groups \
            "$me/elfthp-align" --pid 1 > "$WORK/nobody.out" 2> "$WORK/nobody.err"
        T_RC=$?
        rm -rf "$me"
    else
        timeout 30 "$TOOL" --pid 1 > "$WORK/nobody.out" 2> "$WORK/nobody.err"
        T_RC=$?
    fi
    T_OUT=$(cat "$WORK/nobody.out") T_ERR=$(cat "$WORK/nobody.err")
    [ "$T_RC" -eq 2 ] || { WHY="expected exit 2: $(tool_said)"; return 1; }
    case $T_ERR in
        *"pid 1"*[Pp]ermission*|*"pid 1"*owner*) ;;
        *) WHY="no clear message (pid 1, permission/owner): $(tool_said)"; return 1 ;;
    esac
    [ -z "$T_OUT" ] || { WHY="printed a report: $(tool_said)"; return 1; }
    return 0
}
assert "--pid 1 as nobody: exit 2, permission message" pid_denied

pid_missing() {
    local p; p=$(cat /proc/sys/kernel/pid_max)   # pids are below pid_max
    run_tool --pid "$p" --format json
    [ "$T_RC" -eq 2 ] || { WHY="expected exit 2: $(tool_said)"; return 1; }
    case $T_ERR in
        *"pid $p"*"no such process"*) ;;
        *) WHY="no clear message: $(tool_said)"; return 1 ;;
    esac
    # JSON: the error is one line too, and no report.
    case $T_OUT in
        '{"schema":1,"mode":"pid","pid":'"$p"',"status":"error","message":"no such process"}') ;;
        *) WHY="not one error line: $(tool_said)"; return 1 ;;
    esac
}
assert "--pid of a process that cannot exist: exit 2, 'no such process', one JSON error line" pid_missing

run_tool --pid notapid
assert "--pid notapid: exit 2" tool_rc 2

# --- --pid on a huge=always tmpfs ---------------------------------------------


# hold PROG: hold_start PROG under setarch -R (no ASLR: the same base each
# run), its output in PROG.out; HPID is its pid.
hold() { hold_start "$1.out" setarch -R "$1" && HPID=$HOLD_PID; }

pid_tests() {
    if [ "$(uname -m)" != x86_64 ]; then
        skip "--pid on tmpfs" "host is $(uname -m); the fixture checked is x86_64"; return
    fi
    if [ -z "${SRC[lld-pie-aligned]:-}" ]; then
        skip "--pid on tmpfs" "no rewritten lld-pie"; return
    fi
    local err
    MNT=$(mktemp -d "${TMPDIR:-/tmp}/elfthp-pid.XXXXXX") || return
    if ! err=$(mount -t tmpfs -o huge=always,size=256M tmpfs "$MNT" 2>&1); then
        rmdir "$MNT"
        skip "--pid on tmpfs" "cannot mount tmpfs with huge=always: ${err:-not root?}"
        return
    fi
    MOUNTS="$MNT $MOUNTS"
    # Whether the tmpfs got huge pages for the copies (ShmemHugePages grew):
    # if it did, a rewritten program without PMD mappings is a failure, not
    # a machine too fragmented to give any (the model's "huge-unsure").
    local h0 h1 want=huge-unsure
    h0=$(awk '$1 == "ShmemHugePages:" { print $2 }' /proc/meminfo)
    cp "$F/${SRC[lld-pie-aligned]}" "$MNT/aligned" &&
        cp "$F/${SRC[lld-pie]}" "$MNT/orig" || { fail "--pid: copy to tmpfs" "cp failed"; return; }
    h1=$(awk '$1 == "ShmemHugePages:" { print $2 }' /proc/meminfo)
    [ "${h1:-0}" -gt "${h0:-0}" ] && want=huge

    if assert "--pid: rewritten lld-pie holds on tmpfs" hold "$MNT/aligned"; then
        run_tool --pid "$HPID" --format json
        if assert "--pid (rewritten): exit 0" tool_rc 0; then
            printf '%s\n' "$T_OUT" > "$WORK/pid.json"
            model pid "--pid (rewritten)" "$HPID" "$MNT/aligned" "$WORK/pid.json" "$want"
        else
            skip "--pid (rewritten): the model's checks" "--pid failed (counted above)"
        fi
        run_tool --pid "$HPID"
        text_ok() {
            [ "$T_RC" -eq 0 ] || { WHY="$(tool_said)"; return 1; }
            [ "$(echo "$T_OUT" | grep -c "^$MNT/aligned: ")" -eq 1 ] ||
                { WHY="not one line for $MNT/aligned: $(tool_said)"; return 1; }
            echo "$T_OUT" | tail -1 | grep -q '^1 process, ' ||
                { WHY="no summary: $(tool_said)"; return 1; }
        }
        assert "--pid (text): one line for the program, and a summary" text_ok
        hold_stop
    else
        skip "--pid (rewritten): its checks" "the program did not get ready (counted above)"
    fi

    # The original: its text can never be congruent.  Its first PT_LOAD
    # (headers and rodata, offset = vaddr) would be PMD-mapped if the
    # kernel picked a 2 MiB-aligned base, which with ASLR it does once in
    # 512 runs: hold runs both programs under setarch -R (no ASLR), where
    # the base is fixed, 0x555555554000 for the original.
    local base
    if ! assert "--pid: original lld-pie holds on tmpfs" hold "$MNT/orig"; then
        skip "--pid (original): its checks" "the program did not get ready (counted above)"
        return
    fi
    base=$("$PY" "$MODEL" base "$HPID" "$MNT/orig")
    echo "# original lld-pie mapped at base $(printf 0x%x "$base")"
    run_tool --pid "$HPID" --format json
    if assert "--pid (original): exit 0" tool_rc 0; then
        printf '%s\n' "$T_OUT" > "$WORK/pid.json"
        model pid "--pid (original)" "$HPID" "$MNT/orig" "$WORK/pid.json" plain
    else
        skip "--pid (original): the model's checks" "--pid failed (counted above)"
    fi
    hold_stop
}
pid_tests
cleanup_hook

finish
