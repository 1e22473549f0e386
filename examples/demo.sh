#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# SPDX-FileCopyrightText: 2026 the elfthp-align authors
# make demo: the tool's main job on an embedded example, where the program
# really lives (examples/build, on the file system of this checkout).
#
# Builds a program with 8 MiB of text and 4 MiB of read-only data with lld
# (whose layout needs padding: text at p_vaddr = p_offset + 0x1000),
# rewrites it with elfthp-align, runs both, and shows how much of each the
# kernel maps with 2 MiB pages (FilePmdMapped in /proc/PID/smaps).  Then
# it drops the page cache, as a reboot would, shows the cold run, runs
# --warm, and shows the huge run again.  --host says first what this file
# system does; where it keeps no huge folios, the numbers say so too.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
src=$top/tests/fixtures
out=$top/examples/build
tool=$top/elfthp-align
mkdir -p "$out"

echo "== building a sample program (lld, PIE, 8 MiB of text)"
for f in big_funcs big_blob big_main; do
	cc -O2 -fPIC -fno-toplevel-reorder -I"$src" -c "$src/$f.c" -o "$out/$f.o"
done
cc -fuse-ld=lld -pie -o "$out/sample.orig" "$out/big_main.o" \
	"$out/big_funcs.o" "$out/big_blob.o"
rm -f "$out/sample"

echo
echo "== elfthp-align --host examples/build: what this file system does"
"$tool" --host "$out"

loads() { readelf -lW "$1" | awk '$1 == "LOAD"'; }
echo
echo "== before: PT_LOADs (type offset vaddr paddr filesz memsz flags align)"
loads "$out/sample.orig"

echo
echo "== elfthp-align -v -o sample sample.orig"
"$tool" -v -o "$out/sample" "$out/sample.orig"

echo
echo "== after"
loads "$out/sample"

echo
echo "== both print the same:"
"$out/sample.orig" > "$out/orig.txt"
"$out/sample" > "$out/new.txt"
cat "$out/new.txt"
cmp -s "$out/orig.txt" "$out/new.txt" && echo "(identical output)"

# huge PROG: run PROG --hold; print its load base and FilePmdMapped.
huge() {
	"$1" --hold > "$out/hold.txt" &
	pid=$!
	while ! grep -q ready "$out/hold.txt" 2>/dev/null; do sleep 0.1; done
	awk -v f="$1" '$NF == f && !base { split($1, a, "-"); base = a[1] }
	    $NF == f { mine = 1; next } /^[0-9a-f]+-/ { mine = 0 }
	    mine && /^(File|Shmem)PmdMapped:/ { kb += $2 }
	    END { printf "load base 0x%s, FilePmdMapped %d kB\n", base, kb }' \
	    "/proc/$pid/smaps"
	kill "$pid"
	wait "$pid" 2>/dev/null || true
}

# drop FILE: write it back and drop it from the page cache, as memory
# pressure or a reboot would.
drop() {
	sync "$1"
	dd if="$1" iflag=nocache count=0 status=none
}

echo
echo "== running them from examples/build"
drop "$out/sample.orig"
printf 'original:                  '; huge "$out/sample.orig"
printf 'rewritten (just written):  '; huge "$out/sample"
drop "$out/sample"
printf 'rewritten, cache dropped:  '; huge "$out/sample"
echo
echo "== elfthp-align --warm sample"
"$tool" --warm "$out/sample" || true
printf 'rewritten, warmed:         '; huge "$out/sample"

echo
echo "== second run of the rewrite, and of --warm:"
"$tool" "$out/sample"
"$tool" --warm "$out/sample" || true
