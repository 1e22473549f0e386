#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# SPDX-FileCopyrightText: 2026 the elfthp-align authors
# part2-header-only.sh - rewrites that change only p_align, and the
# read-only modes.
#
#  a. GNU ld PIEs (default -z separate-code: p_offset == p_vaddr already) of
#     the part-1 sizes: elfthp-align -o OUT IN against cp and cp+fsync, one
#     hyperfine run per size; which syscalls carried the bytes (strace).
#  b. The same on a reflink-capable file system (XFS on a loop device), if
#     mkfs.xfs is installed: the tool writes there too (so the page cache
#     holds huge folios; part 4d weighs FICLONE + --warm against it), while
#     cp reflinks.
#  c. --report and --check on the largest and the smallest file: headers
#     only, so the time must not depend on the file size.
# Writes $B/part2.md.
. "$(dirname "$0")/lib.sh"
need hyperfine readelf strace /usr/bin/time
[ -x "$TOOL" ] || die "$TOOL not built (make)"

out=$B/out2
rm -rf "$out"; mkdir -p "$out"
md=$B/part2.md
xfs=$B/xfs
cleanup() {
	mountpoint -q "$xfs" && umount "$xfs"
	rm -f "$B/xfs.img"
}
trap cleanup EXIT

mapfile -t S < <(sizes)
small=${S[0]%% *} large=${S[-1]%% *}
rows="" summary="" keys=""
# compact_pwrites: the data pwrite64 calls (of a MiB or more) as one line.
compact_pwrites() {
	awk '/pwrite64\(/ && $NF + 0 >= 1048576 { n++; b += $NF; next }
	     { if (n) { printf "%d × pwrite64 of data, %d bytes in all\n", n, b; n = 0 } print }
	     END { if (n) printf "%d × pwrite64 of data, %d bytes in all\n", n, b }'
}
NOSYNC=false
"$TOOL" --help 2>&1 | grep -q -e '--sync ' && NOSYNC=true
for line in "${S[@]}"; do
	read -r name bytes runs warm <<<"$line"
	gen_text "$name" "$bytes"
	in=$B/text/$name-gnu
	cat "$in" >/dev/null
	rss=$out/rss-$name; mkdir -p "$rss"
	T="/usr/bin/time -a -f %M -o $rss"
	nosync=()
	$NOSYNC && nosync=("elfthp-align --sync" \
	    "python3 $BENCH_DIR/benchlib.py check-if $out/tns.$name $in && rm -f $out/tns.$name && sync" \
	    "$T/elfthp-align_--sync.rss $TOOL -q --sync -o $out/tns.$name $in")
	hf_rounds "part2-$name" "$((runs < 5 ? 5 : runs))" "$warm" "" \
	    elfthp-align "python3 $BENCH_DIR/benchlib.py check-if $out/tool.$name $in && rm -f $out/tool.$name && sync" \
	    "$T/elfthp-align.rss $TOOL -q -o $out/tool.$name $in" \
	    "${nosync[@]}" \
	    cp "rm -f $out/cp.$name && sync" "$T/cp.rss cp $in $out/cp.$name" \
	    cp+fsync "rm -f $out/cps.$name && sync" "$T/cp+fsync.rss cp $in $out/cps.$name && sync $out/cps.$name"
	PY check "$out/tool.$name" "$in" || die "$name-gnu: output fails the check"
	PY segcmp "$in" "$out/tool.$name" || die "$name-gnu: segment bytes differ"
	if $NOSYNC; then
		cmp -s "$out/tool.$name" "$out/tns.$name" || die "$name-gnu: --sync output differs"
	fi
	cmp -s <(readelf -lW "$in" | awk '$1=="LOAD"{$NF=""; print}') \
	       <(readelf -lW "$out/tool.$name" | awk '$1=="LOAD"{$NF=""; print}') ||
		die "$name-gnu: more than p_align changed"
	[ "$(stat -c %s "$in")" = "$(stat -c %s "$out/tool.$name")" ] || die "$name-gnu: size changed"
	[ "$("$out/tool.$name")" = "$("$in")" ] || die "$name-gnu: output does not run"
	rows+=$(hf_table "$B/part2-$name.json" cp "$name" --median --rss "$rss")$'\n'
	j=$B/part2-$name.json
	ns=""
	$NOSYNC && ns="; --sync $(ratio "$(hf_mean "$j" "elfthp-align --sync")" "$(hf_mean "$j" cp+fsync)")× (cp+fsync)"
	keys+="| 2 | p_align-only rewrite (GNU ld, $name), ext4 | $(ratio "$(hf_mean "$j" elfthp-align)" "$(hf_mean "$j" cp)")× cp; $(ratio "$(hf_mean "$j" elfthp-align)" "$(hf_mean "$j" cp+fsync)")× (cp+fsync)$ns | (context) |"$'\n'
	summary+="| $name | $($NOSYNC && ratio "$(hf_mean "$j" "elfthp-align --sync")" "$(hf_mean "$j" cp+fsync)" || echo -) | $(ratio "$(hf_mean "$j" elfthp-align)" "$(hf_mean "$j" cp)") | $(ratio "$(hf_mean "$j" elfthp-align)" "$(hf_mean "$j" cp+fsync)") |"$'\n'
	if [ "$name" = "$large" ]; then
		rm -f "$out/tool.$name"; sync
		strace -f -o "$LOGS/part2-strace-ext4.txt" -e trace=ioctl,copy_file_range,ftruncate,fsync,pwrite64 \
		    "$TOOL" -q -o "$out/tool.$name" "$in" || die "strace run"
		ext4_trace=$(grep -v TCGETS "$LOGS/part2-strace-ext4.txt" | grep -E 'ioctl|copy_file_range|ftruncate|fsync|pwrite64' | compact_pwrites |
		    sed 's/^[0-9]* *//; s/^\[pid *[0-9]*\] //')
	fi
	rm -f "$out"/*."$name"
done

{
echo "## 2. Header-only rewrites and read-only modes"
echo
echo "### 2a. p_align-only rewrite (GNU ld PIE, default layout), ext4"
echo
echo "GNU ld (\`gcc -pie -fuse-ld=bfd\`, default \`-z separate-code\`) already gives the text"
echo "\`p_offset == p_vaddr\`; the tool only raises its \`p_align\` to 2 MiB (checked: same size,"
echo "same PT_LOADs except p_align, same segment bytes).  Same method as part 1 (rounds)."
echo
echo "| text | command | mean ± σ | min | runs | ×cp | median | median ×cp | peak RSS |"
echo "|---|---|---|---|---|---|---|---|---|"
printf '%s' "$rows"
echo
echo "| text | elfthp-align --sync/(cp+fsync) | elfthp-align/cp | elfthp-align/(cp+fsync) |"
echo "|---|---|---|---|"
printf '%s' "$summary"
echo
echo "What the tool does for a p_align-only rewrite (\`src/phdr_rewrite.c\`, \`src/cli/process.c\`,"
echo "\`src/io/atomic_file.c\`): it creates \`OUT.elfthp-XXXXXX\` beside the output, \`ftruncate\`s it to"
echo "the final size and writes the bytes with one \`pwrite\` per 8 MiB of output (cut at 2 MiB"
echo "boundaries), from a \`MAP_POPULATE\` mapping of the input, so that each 2 MiB window lands in"
echo "the page cache as one folio; \`FICLONE\` and \`copy_file_range\` are kept for btrfs, which"
echo "keeps no huge folios.  Then it rewrites the ELF header and the program and section header"
echo "tables with pread/pwrite through libelf's translation, copies owner, mode and xattrs and"
echo "renames it into place (\`-o\`: no fsync unless \`--sync\`).  The syscalls of the $large"
echo "rewrite on ext4 (\`strace -f -e trace=ioctl,copy_file_range,ftruncate,fsync,pwrite64\`, the"
echo "data writes counted):"
echo
echo '```'
echo "$ext4_trace"
echo '```'
echo
} >"$md"

# --- 2b: XFS with reflink -------------------------------------------------
if command -v mkfs.xfs >/dev/null 2>&1; then
	lbytes=$(stat -c %s "$B/text/$large-gnu")
	truncate -s $(( (3 * lbytes / MiB + 600) ))M "$B/xfs.img"
	mkfs.xfs -q -f -m reflink=1 "$B/xfs.img" || die "mkfs.xfs"
	mkdir -p "$xfs"
	mount -o loop "$B/xfs.img" "$xfs" || die "mount xfs"
	cp --reflink=never "$B/text/$small-gnu" "$B/text/$large-gnu" "$xfs/" || die "copy to xfs"
	sync
	hf_rounds part2-xfs 5 1 "" \
	    "elfthp-align $small" "rm -f $xfs/tool.$small && sync" "$TOOL -q -o $xfs/tool.$small $xfs/$small-gnu" \
	    "elfthp-align $large" "rm -f $xfs/tool.$large && sync" "$TOOL -q -o $xfs/tool.$large $xfs/$large-gnu" \
	    "cp $large" "rm -f $xfs/cp.$large && sync" "cp $xfs/$large-gnu $xfs/cp.$large" \
	    "cp --reflink=never $large" "rm -f $xfs/cpn.$large && sync" \
	    "cp --reflink=never $xfs/$large-gnu $xfs/cpn.$large"
	j=$B/part2-xfs.json
	keys+="| 2 | p_align-only rewrite on XFS ($large): the tool writes, against cp (reflink) and cp --reflink=never | $(ratio "$(hf_mean "$j" "elfthp-align $large")" "$(hf_mean "$j" "cp $large")")× cp, $(ratio "$(hf_mean "$j" "elfthp-align $large")" "$(hf_mean "$j" "cp --reflink=never $large")")× cp --reflink=never | (context) |"$'\n'
	for n in "$small" "$large"; do
		PY check "$xfs/tool.$n" "$xfs/$n-gnu" || die "xfs $n: output fails the check"
		PY segcmp "$xfs/$n-gnu" "$xfs/tool.$n" || die "xfs $n: segment bytes differ"
	done
	rm -f "$xfs/tool.$large"; sync
	strace -f -o "$LOGS/part2-strace-xfs.txt" -e trace=ioctl,copy_file_range,ftruncate,fsync,pwrite64 \
	    "$TOOL" -q -o "$xfs/tool.$large" "$xfs/$large-gnu" || die "strace xfs"
	xfs_trace=$(grep -v TCGETS "$LOGS/part2-strace-xfs.txt" | grep -E 'ioctl|copy_file_range|ftruncate|fsync|pwrite64' | compact_pwrites |
	    sed 's/^[0-9]* *//; s/^\[pid *[0-9]*\] //')
	{
	echo "### 2b. The same on XFS with reflink (loop device)"
	echo
	echo "\`mkfs.xfs -m reflink=1\` on a sparse image, mounted \`-o loop\`; the GNU ld files copied in"
	echo "with \`cp --reflink=never\`; 5 rounds after a warm-up round.  The tool writes the bytes"
	echo "here too, so that the windows are huge folios in the page cache (a reflink has no page"
	echo "cache at all; part 4d measures FICLONE followed by \`--warm\` against it); coreutils 9.1"
	echo "\`cp\` reflinks by default (\`--reflink=auto\`), so it copies nothing."
	echo
	echo "| command | mean ± σ | min | runs | ×(elfthp-align $small) | median | median ×(elfthp-align $small) |"
	echo "|---|---|---|---|---|---|---|"
	hf_table "$B/part2-xfs.json" "elfthp-align $small" --median
	echo
	echo "Syscalls of the $large rewrite on XFS:"
	echo
	echo '```'
	echo "$xfs_trace"
	echo '```'
	echo
	} >>"$md"
	cleanup
else
	echo "### 2b. (skipped: mkfs.xfs not installed, no reflink file system to show FICLONE)" >>"$md"
	echo >>"$md"
fi

# --- 2c: --report and --check ----------------------------------------------
S_IN=$B/text/$small-lld L_IN=$B/text/$large-lld
# -N: no shell, so nothing but the tool is timed; -i because --check exits 1
# (would rewrite), checked once here instead.
for f in "$S_IN" "$L_IN"; do
	"$TOOL" --check -q "$f" >/dev/null; [ $? = 1 ] || die "--check $f: expected exit status 1"
	"$TOOL" --report "$f" >/dev/null || die "--report $f failed"
done
hf_rounds part2-ro "$([ "$QUICK" = 1 ] && echo 4 || echo 10)" 1 "-N -i --runs 10" \
    "report $small" "" "$TOOL --report $S_IN" \
    "report $large" "" "$TOOL --report $L_IN" \
    "check $small" "" "$TOOL --check -q $S_IN" \
    "check $large" "" "$TOOL --check -q $L_IN"
strace -f -y -o "$LOGS/part2-strace-report.txt" -e trace=read,pread64,mmap,copy_file_range,sendfile \
    "$TOOL" --report "$L_IN" >/dev/null || die "strace --report"
grep -F "<$L_IN>" "$LOGS/part2-strace-report.txt" >"$LOGS/part2-strace-report-file.txt" || true
rbytes=$(grep -E '(read|pread64)\(' "$LOGS/part2-strace-report-file.txt" | PY sumret /dev/stdin)
ncalls=$(grep -cE '(read|pread64)\(' "$LOGS/part2-strace-report-file.txt" || true)
fmaps=$(grep -cE 'mmap\(' "$LOGS/part2-strace-report-file.txt" || true)
r=$(PY hfmean "$B/part2-ro.json" "report $large" median) r0=$(PY hfmean "$B/part2-ro.json" "report $small" median)
c=$(PY hfmean "$B/part2-ro.json" "check $large" median) c0=$(PY hfmean "$B/part2-ro.json" "check $small" median)
{
echo "### 2c. \`--report\` and \`--check\` on the largest and the smallest file"
echo
echo "lld PIEs of part 1 ($small: $(human "$(stat -c %s "$S_IN")"), $large: $(human "$(stat -c %s "$L_IN")")); rounds of hyperfine \`-N -i --runs 10\` (\`-N\`:"
echo "no shell; \`-i\` because \`--check\` exits 1, would rewrite, as checked beforehand), order alternating."
echo "Times of a few ms on a shared VM are noisy; the medians are the fairer figure."
echo
echo "| command | mean ± σ | min | runs | ×(report $small) | median | median ×(report $small) |"
echo "|---|---|---|---|---|---|---|"
hf_table "$B/part2-ro.json" "report $small" --median
echo
echo "Ratio largest/smallest, of medians: --report $(ratio "$r" "$r0"), --check $(ratio "$c" "$c0")."
echo "\`strace -f -y -e trace=read,pread64,mmap\` of \`--report\` on the $large file: $ncalls read/pread64 calls"
echo "on it, $rbytes bytes read in all, $fmaps mmaps of it."
echo
} >>"$md"
vr=$(awk -v r="$(ratio "$r" "$r0")" 'BEGIN{print (r < 1.5) ? "met" : "not met"}')
vc=$(awk -v r="$(ratio "$c" "$c0")" 'BEGIN{print (r < 1.5) ? "met" : "not met"}')
ms() { awk '{printf "%.2f ms", $1 * 1000}' <<<"$1"; }
keys+="| 2 | --report time independent of size ($large vs $small) | median $(ratio "$r" "$r0")× ($(ms "$r") vs $(ms "$r0")); $rbytes bytes read of the $large file | $vr |"$'\n'
keys+="| 2 | --check time independent of size ($large vs $small) | median $(ratio "$c" "$c0")× ($(ms "$c") vs $(ms "$c0")) | $vc |"$'\n'
printf '%s' "$keys" >"$B/part2-key.md"
log "part 2 done"
