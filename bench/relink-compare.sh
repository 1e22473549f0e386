#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# SPDX-FileCopyrightText: 2026 the elfthp-align authors
# bench/relink-compare.sh - elfthp-align on the default link against a
# relink with -z max-page-size=0x200000 (and, for lld,
# -z separate-loadable-segments): file size and huge-page coverage.
#
# The program is the test fixture (tests/fixtures: 8 MiB of text, 4 MiB of
# read-only data), compiled as tests/fixtures/build.sh compiles it and
# linked as a PIE with GNU ld and with lld, each in the default layout,
# with -Wl,-z,max-page-size=0x200000, and (lld only; GNU ld has no such
# option) with -Wl,-z,separate-loadable-segments added; the default links
# are also rewritten with `elfthp-align -o`.  For each file:
#   bytes, growth  the file size, and its difference from the default link;
#   windows        usable/eligible: 2 MiB windows of non-writable PT_LOADs
#                  (README: "Eligible", docs/rewrite.md), usable when the segment's
#                  p_offset = p_vaddr (mod 2 MiB) and the largest p_align is
#                  at least 2 MiB (so the kernel aligns the PIE's base);
#   PMD-mapped     ShmemPmdMapped of the file's mappings in /proc/PID/smaps,
#                  run from a tmpfs mounted huge=always (the program copied
#                  there, started with --hold), three runs (needs root;
#                  "-" otherwise);
#   output         the program prints the same as the default GNU ld link.
# Prints a Markdown table (docs/loading.md, "Relinking instead: -z max-page-size").
# Objects and links go to bench/build/relink; the tmpfs is unmounted at exit.
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
# lib.sh: elf_phdrs, windows, hold_start, pmd_kb, $WORK (removed at exit).
# shellcheck source=../tests/integration/lib.sh
. "$ROOT/tests/integration/lib.sh"
SRC=$ROOT/tests/fixtures
B=$ROOT/bench/build/relink
MNT=""
cleanup_hook() { hold_stop; [ -n "$MNT" ] && umount "$MNT" 2>/dev/null; }
[ -x "$TOOL" ] || { echo "relink-compare: build the tool first (make)" >&2; exit 1; }
command -v ld.lld >/dev/null || { echo "relink-compare: needs lld" >&2; exit 1; }
mkdir -p "$B"

for f in big_funcs big_blob big_main; do
    gcc -O2 -fPIC -fno-toplevel-reorder -Wall -I"$SRC" -c "$SRC/$f.c" -o "$B/$f.o" || exit 1
done
OBJS="$B/big_main.o $B/big_funcs.o $B/big_blob.o"
MPS=-Wl,-z,max-page-size=0x200000
link() { local out=$1; shift; gcc -pie "$@" -o "$B/$out" $OBJS || exit 1; }
link gnu
link gnu-mps $MPS
link lld -fuse-ld=lld
link lld-mps -fuse-ld=lld $MPS
link lld-mps-sls -fuse-ld=lld $MPS -Wl,-z,separate-loadable-segments
"$TOOL" -q -o "$B/gnu-tool" "$B/gnu" || exit 1
"$TOOL" -q -o "$B/lld-tool" "$B/lld" || exit 1

# usable FILE: "usable/eligible" 2 MiB windows.
usable() {
    local i t o v p fs ms fl al w e=0 u=0 maxal=0
    while read -r i t o v p fs ms fl al; do
        [ "$t" = LOAD ] || continue
        [ "$al" -gt "$maxal" ] && maxal=$al
        case $fl in *W*) continue ;; esac
        w=$(windows "$v" "$fs" "$TARGET")
        e=$((e + w))
        [ $(( (o - v) % TARGET )) -eq 0 ] && u=$((u + w))
    done < <(elf_phdrs "$1")
    [ "$maxal" -ge "$TARGET" ] || u=0
    echo "$u/$e"
}

if [ "$(id -u)" -eq 0 ] && mkdir -p "$WORK/huge" &&
   mount -t tmpfs -o huge=always,size=512M tmpfs "$WORK/huge" 2>/dev/null; then
    MNT=$WORK/huge
fi
# pmd FILE: ShmemPmdMapped (kB) of three runs from the tmpfs, "a/b/c" or "a".
pmd() {
    [ -n "$MNT" ] || { echo -; return; }
    local r all="" k
    cp "$1" "$MNT/prog"
    for r in 1 2 3; do
        hold_start "$WORK/hold.out" "$MNT/prog" || { echo "did not run"; return; }
        k=$(pmd_kb "$HOLD_PID" "$MNT/prog")
        hold_stop
        all="$all/$((k / 1024)) MiB"
    done
    rm -f "$MNT/prog"
    all=${all#/}
    [ "$(tr '/' '\n' <<< "$all" | sort -u | wc -l)" -eq 1 ] && all=${all%%/*}
    echo "$all"
}

ref=$("$B/gnu")
row() {   # row LABEL FILE BASEFILE
    local s b o
    s=$(stat -c %s "$B/$2") b=$(stat -c %s "$B/$3")
    [ "$("$B/$2")" = "$ref" ] && o=same || o=DIFFERS
    printf '| %s | %s | %+d | %s | %s | %s |\n' "$1" "$s" $((s - b)) \
        "$(usable "$B/$2")" "$(pmd "$B/$2")" "$o"
}
echo "| link (PIE, Debian 12: GNU ld $(ld --version | sed -n '1s/.* //p'), $(ld.lld --version | sed 's/ (.*//; s/.*LLD/LLD/')) | bytes | growth | windows usable/eligible | PMD-mapped from tmpfs huge=always | output |"
echo "|---|---|---|---|---|---|"
row "GNU ld, default" gnu gnu
row "GNU ld, default, then \`elfthp-align\`" gnu-tool gnu
row "GNU ld \`-z max-page-size=0x200000\`" gnu-mps gnu
row "lld, default" lld lld
row "lld, default, then \`elfthp-align\`" lld-tool lld
row "lld \`-z max-page-size=0x200000\`" lld-mps lld
row "lld \`-z max-page-size=0x200000 -z separate-loadable-segments\`" lld-mps-sls lld
