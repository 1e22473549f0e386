#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# SPDX-FileCopyrightText: 2026 the elfthp-align authors
# test_copier.sh BUILDDIR - how a rewrite copies the bytes.  write() copies
# each 2 MiB range of the output from a window of the input mapped 4 MiB
# at a time (one copy, as cp's); where the input cannot be mapped, from a
# buffer the range is read into (two copies).  On an ext4 image, a program
# linked by lld with 24 MiB of text (bigtext.c: it sums its text, so a
# changed byte changes what it prints; the text must move):
#   - mapped (the default), and with every mapping of the input refused
#     (mmap_fault.so: ENODEV, as a file system without mmap): exit 0, the
#     same output bytes both ways, segment bytes unchanged (readelf), the
#     program prints what the original prints, every window huge at once
#     (--warm -n) and PMD-mapped by the running program (smaps); with
#     --no-warm too (the copy alone: no write() straddles a PMD boundary);
#   - peak RSS under 16 MiB (the window's pages count while mapped);
#   - the input truncated while a write() is held (strace): in a window
#     already mapped (write() gets EFAULT), before any window of text was
#     copied (SEEK_DATA finds no data: a shrunk file, not a hole), and
#     with the buffer (a short read): exit 2, "input shrank while being
#     copied" naming the file, no output and no temporary file;
#   - negative control: cp of the tool's output runs with 0 kB PMD-mapped,
#     and cp of the input is not ready (exit 1).
# Needs root (a loop mount), x86_64 with 2 MiB PMDs, lld and strace.
. "$(dirname "$0")/lib.sh"
need_builddir "$@"
need_tool

if [ "$(uname -m)" != x86_64 ] || [ "$(id -u)" -ne 0 ] ||
   [ "$(cat /sys/kernel/mm/transparent_hugepage/hpage_pmd_size 2>/dev/null)" != 2097152 ]; then
    skip "copier" "needs root on x86_64 with 2 MiB PMDs"
    finish
fi
for t in ld.lld strace readelf /usr/bin/time; do
    command -v "$t" >/dev/null || { fail "$t installed" "make deps installs it"; finish; }
done
ASAN=no
grep -qa __asan_init "$TOOL" && ASAN=yes
# mmap_fault.so comes before the sanitizer's runtime in LD_PRELOAD.
[ "$ASAN" = yes ] && export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0

M=$WORK/ext4
if ! mount_image ext4 "$M"; then
    skip "copier" "an ext4 image could not be mounted: $WHY"
    finish
fi
IN=$M/in
gcc -O2 -fPIE -pie -fuse-ld=lld -DTEXT_BYTES=$((24 << 20)) \
    "$LIB_DIR/bigtext.c" -o "$IN" || { fail "the 24 MiB program builds" "gcc/lld"; finish; }
EXPECT=$("$IN")
SHIM=$WORK/mmap_fault.so
gcc -shared -fPIC -O2 -o "$SHIM" "$LIB_DIR/mmap_fault.c" -ldl ||
    { fail "mmap_fault.so builds" "gcc"; finish; }
# W: the program's windows (readelf; addresses and sizes, which the
# rewrite keeps).
count_eligible "$IN"; W=$ELIG_W
[ "$W" -ge 10 ] || { fail "the program has 10 or more windows once aligned" "$W"; finish; }

# huge_at_once FILE: --warm -n says every window of FILE is huge already.
huge_at_once() {
    local out
    out=$("$TOOL" --warm -n "$1" 2>&1 | head -n 1)
    [ "$out" = "$1: $W of $W windows huge" ] && return 0
    WHY="--warm -n: $out (want $W of $W)"; return 1
}

# prints_same FILE: FILE runs and prints what the original prints.
prints_same() {
    local got; got=$("$1")
    [ "$got" = "$EXPECT" ] && return 0
    WHY="prints [$got], the original [$EXPECT]"; return 1
}

# maps_kb FILE WANT: FILE, run, maps WANT kB of its text with PMDs.
maps_kb() {
    run_pmd "$1" setarch -R "$1" || return 1
    kb_is "$(basename "$1") run" "$RUN_KB" "$2"
}

# rewrite NAME [ENV...]: -o $M/NAME from $IN, with ENV set.
rewrite() {
    local name=$1; shift
    T_OUT=$(env "$@" "$TOOL" -o "$M/$name" "$IN" 2> "$WORK/.err"); T_RC=$?
    T_ERR=$(cat "$WORK/.err")
}

echo "# mapped, and through the buffer"
rewrite mapped
assert "mapped: exits 0" tool_rc 0
rewrite buffered LD_PRELOAD="$SHIM" ELFTHP_MMAP_REFUSE="$IN" ELFTHP_MMAP_LOG="$WORK/refused"
assert "buffered: exits 0" tool_rc 0
[ -s "$WORK/refused" ] && pass "buffered: the shim refused the input's mappings ($(wc -l < "$WORK/refused"))" ||
    fail "buffered: the shim refused the input's mappings" "none refused: the test shows nothing"
assert "the same bytes either way" same_file "$M/mapped" "$M/buffered"
for k in mapped buffered; do
    assert "$k: segment bytes unchanged" check_segment_bytes "$IN" "$M/$k"
    assert "$k: congruence holds" check_congruence "$M/$k"
    assert "$k: prints what the original prints" prints_same "$M/$k"
    assert "$k: every window huge at once" huge_at_once "$M/$k"
done
# The copy alone, without the page-cache step that reads small windows
# again: each write() one PMD range of the output, starting on its boundary.
T_OUT=$("$TOOL" --no-warm -o "$M/nowarm" "$IN" 2> "$WORK/.err"); T_RC=$?
T_ERR=$(cat "$WORK/.err")
assert "--no-warm: exits 0" tool_rc 0
assert "--no-warm: the same bytes" same_file "$M/mapped" "$M/nowarm"
assert "--no-warm: every window huge at once, by the copy alone" huge_at_once "$M/nowarm"
assert "mapped: the running program maps $((W * 2048)) kB with PMDs" maps_kb "$M/mapped" $((W * 2048))
cp "$M/mapped" "$M/cp-of-output"
assert "negative control: cp of the output maps 0 kB with PMDs" maps_kb "$M/cp-of-output" 0
assert_not "negative control: cp of the output is not huge at once" huge_at_once "$M/cp-of-output"
cp "$IN" "$M/cp-of-input"
assert "negative control: cp of the input is not ready (exit 1)" not_ready "$M/cp-of-input"

if [ "$ASAN" = no ]; then
    rm -f "$M/rss"
    kb=$(/usr/bin/time -f %M "$TOOL" -q -o "$M/rss" "$IN" 2>&1 >/dev/null | tail -n 1)
    [ "$kb" -lt 16384 ] && pass "peak RSS of the rewrite: $kb kB < 16384" ||
        fail "peak RSS of the rewrite under 16 MiB" "$kb kB"
else
    skip "peak RSS of the rewrite" "AddressSanitizer's shadow memory is counted"
fi

echo "# the input truncated during the copy"
# shrunk DESC WHEN [ENV...]: hold the WHEN'th pwrite64, truncate the input
# to one page meanwhile; the tool must refuse and leave nothing behind.
shrunk() {
    local desc=$1 when=$2; shift 2
    local D=$M/t$when$#
    rm -rf "$D"; mkdir -p "$D"
    cp "$IN" "$D/in"
    DELAY_PREFIX=(env "$@" ELFTHP_MMAP_REFUSE="$D/in") DELAY_WHEN=$when DELAY_US=1500000
    if ! delayed_start pwrite64 -o "$D/out" "$D/in"; then
        delayed_wait; fail "$desc: held in a write" "$(tool_said)"; return
    fi
    truncate -s 4096 "$D/in"
    delayed_wait
    DELAY_PREFIX=() DELAY_WHEN=1 DELAY_US=2000000
    assert "$desc: exits 2" tool_rc 2
    assert "$desc: message names the file" tool_err_names "$D/in"
    case $T_ERR in
        *"input shrank while being copied"*) pass "$desc: says the input shrank" ;;
        *) fail "$desc: says the input shrank" "$(tool_said)" ;;
    esac
    [ ! -e "$D/out" ] && pass "$desc: no output" || fail "$desc: no output" "$D/out exists"
    assert "$desc: no temporary file" no_temp "$D"
}
# pwrite64 #1 writes the first page (the first extent), #2 the text up to
# the output's first 2 MiB boundary, then one a 2 MiB range: #8 copies
# from a window mapped before it is held.  Truncated during #1, the next
# extent lies past the end.
shrunk "mapped, in a mapped window" 8
shrunk "mapped, before the text" 1
shrunk "buffered, mid-text" 8 LD_PRELOAD="$SHIM"

finish
