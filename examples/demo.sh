#!/bin/sh
# make demo: the tool's main job on an embedded example.
#
# Builds a program with 8 MiB of text and 4 MiB of read-only data with lld
# (whose layout needs padding: text at p_vaddr = p_offset + 0x1000),
# rewrites it with elfthp-align, runs both, and shows what changed.  As
# root, it also runs both from a tmpfs mounted with huge=always and shows
# how much text the kernel mapped with 2 MiB pages.
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
cc -fuse-ld=lld -pie -o "$out/sample" "$out/big_main.o" "$out/big_funcs.o" \
	"$out/big_blob.o"
cp "$out/sample" "$out/sample.orig"

loads() { readelf -lW "$1" | awk '$1 == "LOAD"'; }
echo
echo "== before: PT_LOADs (type offset vaddr paddr filesz memsz flags align)"
loads "$out/sample.orig"

echo
echo "== elfthp-align -v sample"
"$tool" -v "$out/sample"

echo
echo "== after"
loads "$out/sample"

echo
echo "== both print the same:"
"$out/sample.orig" > "$out/orig.txt"
"$out/sample" > "$out/new.txt"
cat "$out/new.txt"
cmp -s "$out/orig.txt" "$out/new.txt" && echo "(identical output)"

echo
echo "== second run:"
"$tool" "$out/sample"

# smaps of a program held running from DIR: "base ShmemPmdMapped-kB".
pmd_mapped() {
	"$1" --hold > "$out/hold.txt" &
	pid=$!
	while ! grep -q ready "$out/hold.txt" 2>/dev/null; do sleep 0.1; done
	awk -v f="$1" '$NF == f && !base { split($1, a, "-"); base = a[1] }
	    /^ShmemPmdMapped:/ { kb += $2 }
	    END { printf "load base 0x%s, ShmemPmdMapped %d kB\n", base, kb }' \
	    "/proc/$pid/smaps"
	kill "$pid"
	wait "$pid" 2>/dev/null || true
}

mnt=$(mktemp -d)
if [ "$(id -u)" -eq 0 ] && mount -t tmpfs -o huge=always,size=256M tmpfs "$mnt" 2>/dev/null; then
	trap 'umount "$mnt"; rmdir "$mnt"' EXIT
	cp "$out/sample.orig" "$out/sample" "$mnt/"
	echo
	echo "== running from a huge=always tmpfs:"
	printf 'original:  '; pmd_mapped "$mnt/sample.orig"
	printf 'rewritten: '; pmd_mapped "$mnt/sample"
else
	rmdir "$mnt"
	echo
	echo "(not root, or tmpfs huge=always refused: skipping the huge-page run)"
fi
