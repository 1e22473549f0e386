#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# SPDX-FileCopyrightText: 2026 the elfthp-align authors
# test_split.sh BUILDDIR - the start-aligned layout (--layout start): a
# read-only PT_LOAD whose first 2 MiB window starts after its
# p_vaddr is split there into a head and a body on 2 MiB, in address and
# offset, with no byte moved for it (docs/rewrite.md).
#
# On each x86_64 fixture of tests/fixtures/build.sh (GNU ld PIE with
# -z separate-code, GNU ld ET_EXEC, lld PIE and ET_EXEC, GNU ld and lld
# shared libraries, a static PIE), rewritten with -o:
#   - every eligible segment starts on 2 MiB or is a head before one that
#     does (phdrs.py, its own ELF reader); the original, a cp and
#     --layout congruent do not, and --check says so (start-unaligned);
#   - the PT_LOAD after each body begins in the file 2 MiB past the end
#     of the body's last whole window (a read-around of ld.so's faults on
#     it stays out of the body); the same headers with the gap taken out
#     fail that check (the control);
#   - readelf reads it without a warning; eu-elflint says nothing new but
#     "not fully contained" for the section a head cuts;
#   - the bytes at every address of every PT_LOAD are the original's
#     (phdrs.py vaddr-bytes), and every segment's and section's bytes too;
#   - it runs and prints what the original prints; /proc/PID/maps shows
#     the original's ranges and permissions for the file, modulo the load
#     base (head and body merge into one VMA);
#   - gdb and addr2line name a function of the head and one of the body
#     as they do in the original; the build ID is the original's;
#   - the rewrite is idempotent (a second run: nothing to do);
#   - llvm-strip keeps it start-aligned and running; a file stripped before
#     the rewrite (the packaging order) is split and runs;
#   - GNU strip, objcopy --strip-all and eu-strip after the split (lld-pie,
#     gnu-pie and the GNU ld library) make files that do not run (recorded, so that a fixed binutils shows), and
#     --check names each file, what made it and what to do, exit 2; for
#     lld-pie also the rewrite, --report, --warm -n, JSON and a walk (an
#     error, never skipped); the controls: the same four tools on the
#     congruent layout give files that run and --check finds ready.
#   - a debug file made before the rewrite (objcopy --only-keep-debug,
#     strip, --add-gnu-debuglink; lld-pie and gnu-pie): after the split the
#     build ID and the debuglink CRC match it (a damaged copy's CRC does
#     not), gdb finds a function of the head and of the body through it
#     (not without it); objcopy --only-keep-debug of the split file gives
#     gdb the same functions for the split program stripped by llvm-strip.
# And Go: a cgo program (tests/glibc/gocgo, GNU ld through cgo) gets every
# check above; a static one (Go's linker) --check -v says has no ld.so.
. "$(dirname "$0")/lib.sh"
need_builddir "$@"
need_tool

PHDRS=$LIB_DIR/phdrs.py

# tool_says WORDS...: the tool's output holds each, in order, on one line.
tool_says() {
    local pat="*" w
    for w; do pat="$pat$w*"; done
    while IFS= read -r w; do
        # shellcheck disable=SC2053
        [[ $w == $pat ]] && return 0
    done <<< "$T_OUT$T_ERR"
    WHY="the tool did not say [$*]: $(echo "$T_OUT$T_ERR" | head -3 | tr '\n' ' ')"; return 1
}
start_aligned() { WHY=$(python3 "$PHDRS" start-aligned "$1") || return 1; }
body_gap() { WHY=$(python3 "$PHDRS" body-gap "$1") || return 1; }
same_vaddr_bytes() { WHY=$(python3 "$PHDRS" vaddr-bytes "$1" "$2") || return 1; }
split_heads() { python3 "$PHDRS" heads "$1" | wc -l; }

readelf_quiet() {
    local err
    err=$(LC_ALL=C readelf -aW "$1" 2>&1 >/dev/null)
    [ -z "$err" ] || { WHY="readelf: $(echo "$err" | head -2 | tr '\n' ' ')"; return 1; }
}

# maps_of PID FILE: FILE's mappings, "start-base end-base perms offset".
maps_of() { python3 "$PHDRS" maps "$1" "$2"; }

# same_maps ORIG NEW [RUN...]: both held processes map their file alike.
same_maps() {
    local orig=$1 new=$2 m1 m2 lib=${3:-}
    hold_start "$WORK/h1.out" "${MAIN_ORIG}" || return 1
    m1=$(maps_of "$HOLD_PID" "$orig"); hold_stop
    hold_start "$WORK/h2.out" "${MAIN_NEW}" || return 1
    m2=$(maps_of "$HOLD_PID" "$new"); hold_stop
    [ -n "$m1" ] || { WHY="no mapping of $orig"; return 1; }
    # Ranges and permissions; the offsets are the rewrite's (padding).
    m1=$(echo "$m1" | cut -d' ' -f1-3); m2=$(echo "$m2" | cut -d' ' -f1-3)
    [ "$m1" = "$m2" ] || { WHY="maps differ: $(diff <(echo "$m1") <(echo "$m2") | grep '^[<>]' | tr '\n' ' ')"; return 1; }
}

# fn_in FILE LO HI: "ADDR NAME" of a function of FILE in [LO, HI).
fn_in() { python3 "$PHDRS" fn-in "$1" "$2" "$3"; }

# same_symbol ORIG NEW ADDR NAME: addr2line and gdb name ADDR alike.
same_symbol() {
    local a1 a2 g1 g2
    a1=$(addr2line -f -e "$1" "$3" | head -1); a2=$(addr2line -f -e "$2" "$3" | head -1)
    [ "$a1" = "$4" ] && [ "$a2" = "$4" ] ||
        { WHY="addr2line: $a1 / $a2, want $4"; return 1; }
    command -v gdb >/dev/null || { WHY="gdb not installed"; return 2; }
    # gdb (BFD) warns that a section a head cuts is "outside of ELF
    # segments" (docs/rewrite.md); what it resolves is compared.
    g1=$(gdb -batch -nx -iex "set auto-load off" -ex "info symbol 0x$3" -ex "x/8xb 0x$3" "$1" 2>/dev/null)
    g2=$(gdb -batch -nx -iex "set auto-load off" -ex "info symbol 0x$3" -ex "x/8xb 0x$3" "$2" 2>/dev/null)
    case $g2 in "$4"*) ;; *) WHY="gdb: $(echo "$g2" | head -1)"; return 1 ;; esac
    [ "$g1" = "$g2" ] || { WHY="gdb differs: $(diff <(echo "$g1") <(echo "$g2") | grep '^[<>]' | tr '\n' ' ')"; return 1; }
}

build_id() { LC_ALL=C readelf -n "$1" 2>/dev/null | awk '/Build ID/ { print $3 }'; }

# The head and body of the first split: "head_lo body_lo body_hi" (decimal).
split_ranges() {
    local h
    h=$(python3 "$PHDRS" heads "$1" | sed -n 1p)
    elf_phdrs "$1" | awk -v h="$h" '$1 == h { lo = $4 } $1 == h + 1 { print lo, $4, $4 + $7 }'
}

one_fixture() {
    local name=$1 file=$2 main=$3 d=$WORK/$1 lo mid hi sym
    mkdir -p "$d" && cp "$BUILD/$file" "$d/orig" || return
    [ "$file" = "$main" ] || cp "$BUILD/$main" "$d/main-orig"
    run_tool --layout start --no-warm -o "$d/new" "$d/orig"
    assert "$name: rewritten (exit 0)" tool_rc 0
    if [ "$(split_heads "$d/new")" -eq 0 ]; then
        # Its eligible segments start on 2 MiB as linked (-z noseparate-code:
        # the text PT_LOAD starts at 0): nothing to split.
        assert "$name: nothing to split, start-aligned as linked" start_aligned "$d/new"
        return
    fi
    assert "$name: every eligible segment starts on 2 MiB" start_aligned "$d/new"
    assert_not "$name: control: the original does not" start_aligned "$d/orig"
    assert "$name: what follows each body in the file starts 2 MiB past its last window" \
        body_gap "$d/new"
    python3 "$PHDRS" drop-gap "$d/new" "$d/nogap"
    assert_not "$name: control: the same headers with that gap taken out fail the check" \
        body_gap "$d/nogap"
    run_tool --no-warm --layout congruent -o "$d/cong" "$d/orig"
    assert_not "$name: control: --layout congruent does not" start_aligned "$d/cong"
    run_tool --layout start --check -v "$d/cong"
    assert "$name: --check on the congruent layout: exit 1" tool_rc 1
    assert "$name: --check names the split" tool_says "congruent, but starts at"
    run_tool --layout start --check "$d/orig"
    assert "$name: --check on the original (what a cp gives): exit 1" tool_rc 1
    run_tool --layout start --check -v "$d/new"
    assert "$name: --check on the split: ready" tool_rc 0
    case $name in
        *static*) assert "$name: --check -v: no ld.so to take it" tool_says "n/a (static: no ld.so)" ;;
        *) assert "$name: --check -v: glibc.elf.thp takes the body" tool_says "glibc.elf.thp yes" ;;
    esac
    run_tool --layout start --check -v "$d/cong"
    case $name in
        *static*) ;;
        *) assert_not "$name: control: glibc.elf.thp takes no text of the congruent layout" \
               tool_says "0x$(printf %x "$(split_ranges "$d/new" | cut -d' ' -f1)"): glibc.elf.thp yes" ;;
    esac
    run_tool --check "$d/new"
    assert "$name: --check (congruent, the default) finds the split ready" tool_rc 0
    assert "$name: split into heads and bodies" equals "split count" \
        "$([ "$(split_heads "$d/new")" -ge 1 ] && echo yes)" yes
    run_tool --layout start -n "$d/new"
    case $T_OUT in
        *"nothing to do"*|"$d/new: already aligned"*) pass "$name: a second rewrite has nothing to do" ;;
        *) fail "$name: a second rewrite has nothing to do" "$(tool_said)" ;;
    esac
    assert "$name: readelf reads it without a warning" readelf_quiet "$d/new"
    assert "$name: eu-elflint: nothing new" check_elflint "$d/orig" "$d/new"
    assert "$name: the bytes at every address are the original's" same_vaddr_bytes "$d/orig" "$d/new"
    assert_not "$name: control: a mutilated copy's are not" same_vaddr_bytes "$d/orig" "$d/mut"
    assert "$name: segment and section bytes unchanged" check_segment_bytes "$d/orig" "$d/new"
    assert "$name: build ID unchanged" equals "build ID" "$(build_id "$d/new")" "$(build_id "$d/orig")"
    read -r lo mid hi < <(split_ranges "$d/new")
    read -r sym_h name_h < <(fn_in "$d/orig" "$lo" "$mid")
    read -r sym_b name_b < <(fn_in "$d/orig" "$mid" "$hi")
    if [ -n "${sym_h:-}" ] && [ -n "${sym_b:-}" ]; then
        assert "$name: the head's $name_h named alike" same_symbol "$d/orig" "$d/new" "$sym_h" "$name_h"
        assert "$name: the body's $name_b named alike" same_symbol "$d/orig" "$d/new" "$sym_b" "$name_b"
        # The lld and GNU ld layouts (time: gdb reads 12 MiB each run).
        case $name in lld-pie|gnu-pie)
            debug_checks "$name" "$d" "$sym_h" "$name_h" "$sym_b" "$name_b" ;; esac
    else
        skip "$name: gdb and addr2line" "no function symbol in the head or the body"
    fi
    if [ "$file" = "$main" ]; then
        MAIN_ORIG=$d/orig MAIN_NEW=$d/new
    else
        mkdir -p "$d/o" "$d/n"
        cp "$d/main-orig" "$d/o/$main"; cp "$d/orig" "$d/o/$file"
        cp "$d/main-orig" "$d/n/$main"; cp "$d/new" "$d/n/$file"
        MAIN_ORIG=$d/o/$main MAIN_NEW=$d/n/$main
    fi
    assert "$name: runs and prints the same" run_same "$MAIN_ORIG" "$MAIN_NEW"
    if [ "$file" = "$main" ]; then
        assert "$name: /proc/PID/maps: the same ranges and permissions" same_maps "$d/orig" "$d/new"
    else
        assert "$name: /proc/PID/maps: the same ranges and permissions" same_maps "$d/o/$file" "$d/n/$file"
    fi
    strip_checks "$name" "$d" "$file" "$main"
}

# strip_with TOOL IN OUT: TOOL's way of stripping everything.
strip_with() {
    case $1 in
        strip) strip -o "$3" "$2" ;;
        objcopy) objcopy --strip-all "$2" "$3" ;;
        eu-strip) eu-strip -o "$3" "$2" ;;
        llvm-strip) llvm-strip -o "$3" "$2" ;;
    esac > /dev/null 2>&1
}

# runs_as D FILE MAIN CAND: CAND in FILE's place runs and prints what the
# original prints (a library: next to the original program).  The
# original's output is read once per fixture.
runs_as() {
    local d=$1 file=$2 main=$3 cand=$4 r ref prog out
    ref=$d/orig prog=$cand
    if [ "$file" != "$main" ]; then
        r=$(mktemp -d "$d/run.XXXXXX") || return 1
        cp "$d/main-orig" "$r/$main" && cp "$cand" "$r/$file" || return 1
        ref=$d/o/$main prog=$r/$main
    fi
    if [ ! -s "$d/want.out" ]; then
        timeout 120 "$ref" > "$d/want.out" 2>&1 ||
            { WHY="the original failed to run"; rm -f "$d/want.out"; return 1; }
    fi
    out=$(timeout 120 "$prog" 2>&1) || { WHY="it failed (rc $?): $(echo "$out" | head -2 | tr '\n' ' ')"; return 1; }
    [ "$out" = "$(cat "$d/want.out")" ] || { WHY="output differs: [$out]"; return 1; }
}

# What each strip leaves of a split file, and of the congruent layout (the
# control): llvm-strip keeps the split; GNU strip, objcopy and eu-strip
# make files that do not run, and every mode names the file, what made it
# and what to do (exit 2, as for any damaged input).
strip_checks() {
    local name=$1 d=$2 file=$3 main=$4 t says
    if [ "$file" = "$main" ]; then
        strip -o "$d/stripped-first" "$d/orig"
        run_tool --layout start --no-warm "$d/stripped-first"
        assert "$name: stripped, then rewritten: start-aligned" start_aligned "$d/stripped-first"
        assert "$name: stripped, then rewritten: runs" run_same "$d/orig" "$d/stripped-first"
    fi
    # The lld and GNU ld layouts, and a library (time: 12 MiB a strip).
    case $name in lld-pie|gnu-pie|shared) ;; *) return 0 ;; esac
    for t in strip objcopy eu-strip llvm-strip; do
        command -v "$t" > /dev/null || { skip "$name: $t" "not installed"; continue; }
        strip_with "$t" "$d/cong" "$d/cong.$t"
        assert "$name: $t on the congruent layout (control): runs and prints the same" \
            runs_as "$d" "$file" "$main" "$d/cong.$t"
        run_tool --check "$d/cong.$t"
        assert "$name: $t on the congruent layout (control): --check: ready" tool_rc 0
        strip_with "$t" "$d/new" "$d/new.$t"
        if [ "$t" = llvm-strip ]; then
            assert "$name: llvm-strip keeps it start-aligned" start_aligned "$d/new.$t"
            assert "$name: llvm-strip: it runs and prints the same" runs_as "$d" "$file" "$main" "$d/new.$t"
            run_tool --layout start --check "$d/new.$t"
            assert "$name: llvm-strip: --check --layout start: ready" tool_rc 0
            continue
        fi
        says="what GNU strip or objcopy leaves"
        [ "$t" = eu-strip ] && says="is all zeros (what eu-strip leaves"
        assert_not "$name: $t after the split: does not run (documented)" \
            runs_as "$d" "$file" "$main" "$d/new.$t"
        run_tool --layout start --check "$d/new.$t"
        assert "$name: $t after the split: --check: exit 2 (damaged input)" tool_rc 2
        assert "$name: $t after the split: --check names the file and what $t did" \
            tool_says "$d/new.$t: " "$says"
        assert "$name: $t after the split: --check says what to do" \
            tool_says "strip before elfthp-align, use llvm-strip, or relink"
    done
    [ "$name" = lld-pie ] && strip_modes "$name" "$d"
    return 0
}

# The same words in every mode (lld-pie, GNU strip and eu-strip).
strip_modes() {
    local name=$1 d=$2 t m
    for t in strip eu-strip; do
        [ -f "$d/new.$t" ] || continue
        for m in "--layout start --no-warm -o $d/rw.$t" "--report" "--warm -n" "--check --format json"; do
            # shellcheck disable=SC2086
            run_tool $m "$d/new.$t"
            assert "$name: $t after the split: $m: exit 2" tool_rc 2
            assert "$name: $t after the split: $m: says what to do" \
                tool_says "strip before elfthp-align, use llvm-strip, or relink"
        done
        mkdir -p "$d/walk.$t" && cp "$d/new.$t" "$d/walk.$t/prog"
        run_tool --check -r "$d/walk.$t"
        assert "$name: $t after the split, found by a walk: an error (exit 2), not skipped" tool_rc 2
        assert "$name: $t after the split, found by a walk: named" \
            tool_says "$d/walk.$t/prog: "
    done
}

# debuglink_crc_ok FILE DEBUG: FILE's .gnu_debuglink names a CRC that is
# DEBUG's.
debuglink_crc_ok() {
    WHY=$(python3 - "$1" "$2" << 'EOF'
import subprocess, sys, zlib
raw = subprocess.run(["objcopy", "--dump-section", ".gnu_debuglink=/dev/stdout",
                      sys.argv[1], "/dev/null"], capture_output=True).stdout
name = raw.split(b"\0", 1)[0]
off = (len(name) + 1 + 3) & ~3
want = int.from_bytes(raw[off:off + 4], "little")
got = zlib.crc32(open(sys.argv[2], "rb").read()) & 0xffffffff
if not name or want != got:
    print(f"debuglink {name!r} CRC {want:#x}, {sys.argv[2]} has {got:#x}")
    sys.exit(1)
EOF
) || return 1
}

# gdb_names FILE ADDR NAME [GDB ARGS...]: gdb resolves ADDR in FILE to NAME.
gdb_names() {
    local f=$1 a=$2 n=$3 g; shift 3
    g=$(gdb -batch -nx -iex "set auto-load off" "$@" -ex "info symbol 0x$a" "$f" 2>/dev/null | tail -1)
    case $g in "$n in section"*) ;; *) WHY="gdb: [$g], want $n"; return 1 ;; esac
}

# A separate debug file made before the rewrite (objcopy --only-keep-debug
# and --add-gnu-debuglink, the order of dh_strip): after the split the
# build ID and the CRC still match it, and gdb finds a function of the
# head and of the body through it.  And objcopy --only-keep-debug of the
# split file serves the split program (stripped with llvm-strip).
debug_checks() {
    local name=$1 d=$2 sh=$3 nh=$4 sb=$5 nb=$6 g=$2/dbg
    command -v gdb > /dev/null || { skip "$name: debuglink" "gdb not installed"; return; }
    mkdir -p "$g/alone"
    objcopy --only-keep-debug "$d/orig" "$g/prog.debug" &&
        strip --strip-all -o "$g/stripped" "$d/orig" &&
        objcopy --add-gnu-debuglink="$g/prog.debug" "$g/stripped" "$g/prog" ||
        { fail "$name: debuglink: objcopy and strip" "failed"; return; }
    run_tool --layout start --no-warm "$g/prog"
    assert "$name: debuglink: rewritten in place" tool_rc 0
    assert "$name: debuglink: start-aligned" start_aligned "$g/prog"
    assert "$name: debuglink: the build ID is the debug file's" equals "build ID" \
        "$(build_id "$g/prog")" "$(build_id "$g/prog.debug")"
    assert "$name: debuglink: the CRC matches the debug file" debuglink_crc_ok "$g/prog" "$g/prog.debug"
    cp "$g/prog.debug" "$g/damaged.debug"
    printf 'X' | dd of="$g/damaged.debug" bs=1 seek=100 conv=notrunc status=none
    assert_not "$name: debuglink: control: a damaged debug file's CRC does not" \
        debuglink_crc_ok "$g/prog" "$g/damaged.debug"
    assert "$name: debuglink: gdb finds the head's $nh in the debug file" gdb_names "$g/prog" "$sh" "$nh"
    assert "$name: debuglink: gdb finds the body's $nb in the debug file" gdb_names "$g/prog" "$sb" "$nb"
    cp "$g/prog" "$g/alone/prog"
    assert_not "$name: debuglink: control: without the debug file gdb does not" \
        gdb_names "$g/alone/prog" "$sb" "$nb"
    command -v llvm-strip > /dev/null || { skip "$name: only-keep-debug of the split" "no llvm-strip"; return; }
    objcopy --only-keep-debug "$d/new" "$g/split.debug" 2> /dev/null
    llvm-strip --strip-all -o "$g/split-stripped" "$d/new"
    assert "$name: only-keep-debug of the split: the same build ID" equals "build ID" \
        "$(build_id "$g/split.debug")" "$(build_id "$d/new")"
    assert "$name: only-keep-debug of the split: gdb names the head's $nh with it" \
        gdb_names "$g/split-stripped" "$sh" "$nh" -ex "symbol-file $g/split.debug"
    assert "$name: only-keep-debug of the split: gdb names the body's $nb with it" \
        gdb_names "$g/split-stripped" "$sb" "$nb" -ex "symbol-file $g/split.debug"
    assert_not "$name: only-keep-debug of the split: control: without it gdb does not" \
        gdb_names "$g/split-stripped" "$sb" "$nb"
}

# The mutilated copy for the negative control: one byte of the text flipped.
mutilate() {
    local d=$1 off
    off=$(elf_phdrs "$d/new" | awk '$2 == "LOAD" && $8 ~ /E/ { print $3 + int($6 / 2); exit }')
    cp "$d/new" "$d/mut"
    printf '\x00' | cmp -s - <(dd if="$d/mut" bs=1 skip="$off" count=1 status=none) &&
        printf '\x01' | dd of="$d/mut" bs=1 seek="$off" conv=notrunc status=none ||
        printf '\x00' | dd of="$d/mut" bs=1 seek="$off" conv=notrunc status=none
}

if [ "$(uname -m)" != x86_64 ]; then
    skip "split fixtures" "x86_64 fixtures only run on x86_64"
    finish
fi
while read -r n a f m; do
    [ "$a" = x86_64 ] || continue
    # lld-nopie and gnu-noseparate add no case: the others cover ld and lld,
    # ET_EXEC, PIE, static PIE and libraries (and time: 12 MiB each).
    case $n in lld-nopie) continue ;; esac
    mkdir -p "$WORK/$n"
    # one_fixture reads $d/mut: make it from the rewrite first.
    "$TOOL" -q --layout start --no-warm -o "$WORK/$n/new" "$BUILD/$f" && mutilate "$WORK/$n"
    one_fixture "$n" "$f" "$m"
done < "$BUILD/fixtures.txt"

# Go: a cgo program (Go's external link: GNU ld lays out the file, and
# ld.so loads it) and a static one (Go's own linker; no ld.so to take a
# body: --check -v says so).  The cgo program is the walker of make
# check-glibc (tests/glibc/gocgo: its C text, 6 MiB here, called from Go).
GO_DIR=$BUILD/go-split
build_go() {  # build_go OUT CGO DIR
    [ -x "$GO_DIR/$1" ] && [ "$GO_DIR/$1" -nt "$3/main.go" ] && return 0
    # 6 MiB of the walker's text: windows enough for a split (time).
    (cd "$3" && CGO_ENABLED=$2 GOFLAGS=-mod=mod GOCACHE=$BUILD/go/cache \
        CGO_CFLAGS="-g -O2 -DTEXT_BYTES=6291456" \
        GOPATH=$BUILD/go/gopath HOME=$BUILD/go go build -o "$GO_DIR/$1" .) \
        > "$GO_DIR/$1.log" 2>&1 ||
        { WHY="go build: $(tail -3 "$GO_DIR/$1.log" | tr '\n' ' ')"; return 1; }
}
if ! command -v go > /dev/null; then
    skip "go-cgo and go-static" "go not installed (make deps installs golang-go)"
    finish
fi
mkdir -p "$GO_DIR"
if assert "go-cgo: builds" build_go gocgo 1 "$REPO_ROOT/tests/glibc/gocgo"; then
    mkdir -p "$WORK/go-cgo"
    "$TOOL" -q --layout start --no-warm -o "$WORK/go-cgo/new" "$GO_DIR/gocgo" && mutilate "$WORK/go-cgo"
    one_fixture go-cgo go-split/gocgo go-split/gocgo
fi
if assert "go-static: builds" build_go gostatic 0 "$REPO_ROOT/tests/fixtures/go"; then
    run_tool --layout start --check -v "$GO_DIR/gostatic"
    assert "go-static: --check -v: no ld.so to take it" tool_says "n/a (static: no ld.so)"
    assert_not "go-static: --check -v: control: no ld.so's rule said to take it" \
        tool_says "glibc.elf.thp yes"
fi
finish
