#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# SPDX-FileCopyrightText: 2026 the elfthp-align authors
# part1-rewrite-cost.sh - what a rewrite costs against cp and patchelf.
#
# For lld-linked PIEs with about 50 MiB, 300 MiB and 1 GiB of text (lld puts
# the text at p_vaddr = p_offset + 0x1000, so the tool must pad and move
# it), rounds of hyperfine runs (bench/lib.sh hf_rounds) time, side by side:
#   elfthp-align -o OUT IN     (the rewrite; OUT removed before each run;
#                              like cp, no fsync)
#   elfthp-align --sync -o OUT IN      (made durable, like cp + sync)
#   cp IN OUT                  (what any copy costs; no fsync)
#   cp IN OUT && sync OUT      (the same made durable: the tool fsyncs)
#   patchelf --output OUT --set-interpreter <same interpreter> IN
# Every command runs under /usr/bin/time -f %M for its peak RSS.  Before each
# timed run of the tool, the previous run's output is checked (readelf
# congruence + unchanged addresses and sizes); after the runs, the segment
# bytes are compared and both outputs are executed.  Then the tool and cp
# again with input and output on tmpfs, where fsync costs nothing.
# Writes $B/part1.md.
. "$(dirname "$0")/lib.sh"
need hyperfine patchelf readelf strace /usr/bin/time
[ -x "$TOOL" ] || die "$TOOL not built (make)"

out=$B/out1
rm -rf "$out"; mkdir -p "$out"
md=$B/part1.md
interp=$(readelf -lW "$B/text/50M-lld" 2>/dev/null | sed -n 's/.*program interpreter: \(.*\)]/\1/p')

{
echo "## 1. Rewrite cost (lld PIE: the text must move, file +4 KiB)"
echo
echo "Input: \`tests/fixtures/pad_text.c\` linked by lld (\`gcc -pie -fuse-ld=lld\`), text at"
echo "\`p_vaddr = p_offset + 0x1000\`.  Input and output on $(df -T "$B" | awk 'NR==2{print $2}') (\`$B\`),"
echo "page cache warmed with \`cat IN >/dev/null\`; before every timed run the previous"
echo "output is removed and \`sync\` runs (outside the timing).  Per size, N rounds (the"
echo "runs column), each one hyperfine run of all the commands side by side, order reversed"
echo "every other round, pooled (see part 3 for why); ratios are of means over \`cp\`'s mean."
echo "Peak RSS: median of \`/usr/bin/time -f %M\` over all runs of that command (warm-up included)."
echo
echo "| text | command | mean ± σ | min | runs | ×cp | median | median ×cp | peak RSS |"
echo "|---|---|---|---|---|---|---|---|---|"
} >"$md"

summary="" tmpfs_rows="" keys=""
# --sync (-o made durable) where this build has it.
NOSYNC=false
"$TOOL" --help 2>&1 | grep -q -e '--sync ' && NOSYNC=true
tmp=$B/tmpfs1
trap umount_huge EXIT
while read -r name bytes runs warm <&3; do
	gen_text "$name" "$bytes"
	in=$B/text/$name-lld
	[ -n "$interp" ] || interp=$(readelf -lW "$in" | sed -n 's/.*program interpreter: \(.*\)]/\1/p')
	cat "$in" >/dev/null
	rss=$out/rss-$name; mkdir -p "$rss"
	T="/usr/bin/time -a -f %M -o $rss"
	nosync=()
	$NOSYNC && nosync=("elfthp-align --sync" \
	    "python3 $BENCH_DIR/benchlib.py check-if $out/tns.$name $in && rm -f $out/tns.$name && sync" \
	    "$T/elfthp-align_--sync.rss $TOOL -q --sync -o $out/tns.$name $in")
	hf_rounds "part1-$name" "$runs" "$warm" "" \
	    elfthp-align "python3 $BENCH_DIR/benchlib.py check-if $out/tool.$name $in && rm -f $out/tool.$name && sync" \
	    "$T/elfthp-align.rss $TOOL -q -o $out/tool.$name $in" \
	    "${nosync[@]}" \
	    cp "rm -f $out/cp.$name && sync" "$T/cp.rss cp $in $out/cp.$name" \
	    cp+fsync "rm -f $out/cps.$name && sync" "$T/cp+fsync.rss cp $in $out/cps.$name && sync $out/cps.$name" \
	    patchelf "rm -f $out/pe.$name && sync" \
	    "$T/patchelf.rss patchelf --output $out/pe.$name --set-interpreter $interp $in"
	# The same two without the sync between runs: each run's dirty pages
	# are still in the cache when the next output is removed (a build that
	# writes, then writes again), which is how they run side by side in
	# practice; the sync above charges cp's writeback and ours alike.
	hf_rounds "part1-$name-nosync" "$runs" "$warm" "" \
	    elfthp-align "python3 $BENCH_DIR/benchlib.py check-if $out/tool.$name $in && rm -f $out/tool.$name" \
	    "$TOOL -q -o $out/tool.$name $in" \
	    cp "rm -f $out/cp.$name" "cp $in $out/cp.$name"
	# The output lands huge: the tool's own look, and cp's as the control.
	huge_tool=$("$TOOL" --warm -n "$out/tool.$name" | head -1 | sed 's/.*: //')
	cp "$out/tool.$name" "$out/cpt.$name"
	huge_cp=$("$TOOL" --warm -n "$out/cpt.$name" | head -1 | sed 's/.*: //; s/;.*//')
	# The last output too, and more thoroughly.
	PY check "$out/tool.$name" "$in" || die "$name: tool output fails the check"
	PY segcmp "$in" "$out/tool.$name" || die "$name: segment bytes differ"
	[ "$("$out/tool.$name")" = "$("$in")" ] || die "$name: tool output does not run"
	if $NOSYNC; then
		PY check "$out/tns.$name" "$in" || die "$name: --sync output fails the check"
		cmp -s "$out/tool.$name" "$out/tns.$name" || die "$name: --sync output differs"
	fi
	[ "$("$out/pe.$name")" = "$("$in")" ] || die "$name: patchelf output does not run"
	grow=$(( $(stat -c %s "$out/tool.$name") - $(stat -c %s "$in") ))
	pgrow=$(( $(stat -c %s "$out/pe.$name") - $(stat -c %s "$in") ))
	hf_table "$B/part1-$name.json" cp "$name" --median --rss "$rss" >>"$md"
	j=$B/part1-$name.json
	tc=$(ratio "$(hf_mean "$j" elfthp-align)" "$(hf_mean "$j" cp)")
	ts=$(ratio "$(hf_mean "$j" elfthp-align)" "$(hf_mean "$j" cp+fsync)")
	pc=$(ratio "$(hf_mean "$j" patchelf)" "$(hf_mean "$j" cp)")
	tcm=$(ratio "$(PY hfmean "$j" elfthp-align median)" "$(PY hfmean "$j" cp median)")
	tsm=$(ratio "$(PY hfmean "$j" elfthp-align median)" "$(PY hfmean "$j" cp+fsync median)")
	trss=$(PY median "$rss/elfthp-align.rss"); prss=$(PY median "$rss/patchelf.rss")
	verdict_t=$(awk -v r="$tc" 'BEGIN{print (r <= 1.1) ? "met" : "not met"}')
	jn=$B/part1-$name-nosync.json
	tn=$(ratio "$(hf_mean "$jn" elfthp-align)" "$(hf_mean "$jn" cp)")
	tnm=$(ratio "$(PY hfmean "$jn" elfthp-align median)" "$(PY hfmean "$jn" cp median)")
	verdict_m=$(awk -v k="$trss" 'BEGIN{print (k <= 16384) ? "met" : "not met"}')
	keys+="| 1 | rewrite -o (lld, $name) ≤ 1.1× cp, sync between runs | $tc× cp (median $tcm×); $ts× (cp+fsync) (median $tsm×); patchelf $pc× cp | $verdict_t |"$'\n'
	keys+="| 1 | rewrite -o (lld, $name) ≤ 1.1× cp, no sync between runs | $tn× cp (median $tnm×) | $(awk -v r="$tn" 'BEGIN{print (r <= 1.1) ? "met" : "not met"}') |"$'\n'
	keys+="| 1 | output lands huge ($name) | tool's output: $huge_tool; a cp of that output (control): $huge_cp | (context) |"$'\n'
	ns="-"
	if $NOSYNC; then
		ns=$(ratio "$(hf_mean "$j" "elfthp-align --sync")" "$(hf_mean "$j" cp+fsync)")
		nsm=$(ratio "$(PY hfmean "$j" "elfthp-align --sync" median)" "$(PY hfmean "$j" cp+fsync median)")
		keys+="| 1 | rewrite --sync (lld, $name) ≤ 1.2× cp+fsync | $ns× cp+fsync (median $nsm×) | $(awk -v r="$ns" 'BEGIN{print (r <= 1.2) ? "met" : "not met"}') |"$'\n'
		ns="$ns ($nsm)"
	fi
	keys+="| 1 | peak RSS ≤ 16 MiB ($name) | $(awk -v k="$trss" 'BEGIN{printf "%.1f MiB", k/1024}') (patchelf $(awk -v k="$prss" 'BEGIN{printf "%.0f MiB", k/1024}')) | $verdict_m |"$'\n'
	summary+="| $name | $(human "$(stat -c %s "$in")") | $tc ($tcm) | $tn ($tnm) | $ts ($tsm) | $ns | $pc | $(awk -v k="$trss" 'BEGIN{printf "%.1f MiB", k/1024}') | $(awk -v k="$prss" 'BEGIN{printf "%.1f MiB", k/1024}') | +$grow | +$pgrow |"$'\n'
	rm -f "$out"/*."$name"

	# The same copies on tmpfs, where fsync costs nothing: what the
	# rewrite itself costs next to cp (room for the input and three
	# outputs).  On tmpfs (huge=never) the page-cache step collapses each
	# window into a huge folio after the copy (cp leaves none):
	# --no-warm is the copy alone.
	mount_huge "$tmp" "$((4 * bytes / MiB + 64))M" never
	cp "$in" "$tmp/in"
	hf_rounds "part1-$name-tmpfs" "$runs" 1 "--runs 2" \
	    elfthp-align "python3 $BENCH_DIR/benchlib.py check-if $tmp/tool $tmp/in && rm -f $tmp/tool" \
	    "$TOOL -q -o $tmp/tool $tmp/in" \
	    "elfthp-align --no-warm" "rm -f $tmp/nw" "$TOOL -q --no-warm -o $tmp/nw $tmp/in" \
	    cp "rm -f $tmp/cp" "cp $tmp/in $tmp/cp"
	PY check "$tmp/tool" "$tmp/in" || die "$name: tool output on tmpfs fails the check"
	tmpfs_rows+=$(hf_table "$B/part1-$name-tmpfs.json" cp "$name" --median)$'\n'
	j=$B/part1-$name-tmpfs.json
	keys+="| 1 | same on tmpfs (no fsync cost), $name | $(ratio "$(hf_mean "$j" elfthp-align)" "$(hf_mean "$j" cp)")× cp (medians: $(ratio "$(PY hfmean "$j" elfthp-align median)" "$(PY hfmean "$j" cp median)")×), windows collapsed huge included; the copy alone (--no-warm) $(ratio "$(hf_mean "$j" "elfthp-align --no-warm")" "$(hf_mean "$j" cp)")× (medians: $(ratio "$(PY hfmean "$j" "elfthp-align --no-warm" median)" "$(PY hfmean "$j" cp median)")×) | (context) |"$'\n'
	umount_huge
done 3< <(sizes)

{
echo
echo "Summary (goals: elfthp-align -o ≤ 1.1× cp, with and without a sync between runs; its peak RSS ≤ 16 MiB at every size):"
echo
echo "| text | input | elfthp-align/cp, sync between runs (medians) | elfthp-align/cp, no sync (medians) | elfthp-align/(cp+fsync) (medians) | elfthp-align --sync/(cp+fsync) (medians) | patchelf/cp | elfthp-align RSS | patchelf RSS | growth (tool) | growth (patchelf) |"
echo "|---|---|---|---|---|---|---|---|---|---|---|"
printf '%s' "$summary"
echo
echo "The same rewrite and cp with input and output on tmpfs (\`huge=never\`; fsync is free"
echo "there); rounds of two runs each, after a warm-up round:"
echo
echo "| text | command | mean ± σ | min | runs | ×cp | median | median ×cp |"
echo "|---|---|---|---|---|---|---|---|"
printf '%s' "$tmpfs_rows"
echo
echo "Every output of the tool passed the readelf congruence check; the last one per size"
echo "also had its segment bytes compared with the input's and was run."
echo
echo "Notes:"
echo
echo "- \`-o\` writes a new file as a linker or \`cp\` does: atomic (temporary file, then rename) but"
echo "  with no fsync, so it promises the old name or the whole new file, not that the new file"
echo "  survives a crash (\`--sync\` adds an fsync before the rename and one of the directory after"
echo "  it).  It writes with one \`write()\` per aligned 2 MiB range, copied from a 4 MiB window of"
echo "  the input mapped at a time (one copy, as \`cp\`'s), so that the page cache keeps each window as"
echo "  one folio (part 4)."
echo "  An in-place rewrite always syncs unless \`--no-sync\`: part 4."
echo "- \"no sync between runs\": the same rounds with only \`rm -f\` of the previous output before each"
echo "  run (\`part1-NAME-nosync\` in commands.txt).  \"output lands huge\" is the tool's own look"
echo "  (\`elfthp-align --warm -n\`) at the last output of each, after the runs."
echo "- On tmpfs (\`huge=never\`) the rewrite's page-cache step collapses each window into a huge"
echo "  folio after the copy (\`MADV_COLLAPSE\`), which is most of its time there; \`cp\`'s copy keeps"
echo "  small folios.  \`elfthp-align --no-warm\` is the copy alone."
echo "- At 1 GiB the fsync time of \`cp+fsync\` itself varies by seconds from run to run (the"
echo "  VM's disk is shared)."
echo "- patchelf reads the whole file into memory and writes it back from user space: its"
echo "  peak RSS is about twice the file size, and it is the slowest by far."
echo
} >>"$md"
printf '%s' "$keys" >"$B/part1-key.md"
log "part 1 done"
