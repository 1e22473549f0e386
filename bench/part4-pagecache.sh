#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# SPDX-FileCopyrightText: 2026 the elfthp-align authors
# part4-pagecache.sh - what writing for the page cache, and --warm, cost.
#
# Input: the 300M lld PIE of part 1 (its text must move, file +4 KiB), on
# the file system of bench/build (ext4 on these machines).  Side by side in
# rounds (hf_rounds), each command under /usr/bin/time for its peak RSS:
#   4a  elfthp-align -o OUT IN      against  cp IN OUT
#       elfthp-align W (in place; W a fresh copy of IN, synced, each run)
#                                   against  cp IN X && sync X, X an
#                                   existing copy, as W is (and, for
#                                   context, against a cp to a new name)
#       Goals: -o <= 1.1x cp, in place <= 1.1x cp+sync, RSS <= 16 MiB.
#       (Replacing a file frees its old blocks, in place as with cp.)
#       After the runs, --warm on the outputs must find every window huge
#       already (the rewrite left PMD folios), while cp's copy has none.
#   4b  elfthp-align --warm F on a cold F (fsync + POSIX_FADV_DONTNEED
#       before each run)           against  cat F >/dev/null on the same
#       cold F.  Goal: <= 1.2x.
#   4c  elfthp-align --warm F with F already huge  against
#       elfthp-align --check F: no data is read.
#   4d  header-only rewrites on XFS (a loop image here, reflinks on): what
#       the tool does (large writes) against a FICLONE copy then --warm
#       (what keeping FICLONE would cost to end huge), for the 300M GNU ld
#       PIE (only p_align changes).  Both end with every window huge.
# Writes $B/part4.md and $B/part4-key.md.
. "$(dirname "$0")/lib.sh"
need hyperfine readelf python3 /usr/bin/time mkfs.xfs
[ -x "$TOOL" ] || die "$TOOL not built (make)"

out=$B/out4
rm -rf "$out"; mkdir -p "$out"
md=$B/part4.md
keys=""
rounds=$([ "$QUICK" = 1 ] && echo 3 || echo 6)
gen_text 300M $((300 * MiB))
IN=$B/text/300M-lld
GNU=$B/text/300M-gnu
RSS=$out/rss; mkdir -p "$RSS"
T="/usr/bin/time -a -f %M -o $RSS"
DROP="python3 -c 'import os,sys; fd=os.open(sys.argv[1],os.O_RDONLY); os.fsync(fd); os.posix_fadvise(fd,0,0,os.POSIX_FADV_DONTNEED)'"
fsname=$(df -T "$B" | awk 'NR == 2 { print $2 }')

# huge_before FILE: windows --warm finds huge without reading anything
# (it then warms the rest, so run it last).
huge_before() {
	"$TOOL" --warm --format json "$1" | python3 -c 'import json,sys; o=json.load(sys.stdin); print(o["huge_before"], o["windows"])'
}
rss_mib() { awk -v k="$(PY median "$RSS/$1.rss")" 'BEGIN { printf "%.1f", k / 1024 }'; }
goal() { awk -v r="$1" -v g="$2" 'BEGIN { print (r <= g) ? "met" : "not met" }'; }

# --- 4a ------------------------------------------------------------------
log "4a: -o and in place against cp and cp+sync (300M lld, $fsname)"
cat "$IN" >/dev/null
hf_rounds part4-write "$rounds" 1 "" \
    "elfthp-align -o" "rm -f $out/o && sync" "$T/elfthp-align_-o.rss $TOOL -q -o $out/o $IN" \
    "cp" "rm -f $out/c && sync" "$T/cp.rss cp $IN $out/c" \
    "elfthp-align (in place)" "rm -f $out/w && cp $IN $out/w && sync" \
    "$T/elfthp-align__in_place_.rss $TOOL -q $out/w" \
    "cp + sync" "rm -f $out/cs && sync" "$T/cp___sync.rss sh -c 'cp $IN $out/cs && sync $out/cs'" \
    "cp over the file + sync" "rm -f $out/cm && cp $IN $out/cm && sync" \
    "sh -c 'cp $IN $out/cm && sync $out/cm'"
PY check "$out/o" "$IN" || die "4a: -o output fails the check"
PY segcmp "$IN" "$out/o" || die "4a: segment bytes differ"
cmp -s "$out/o" "$out/w" || die "4a: in place and -o outputs differ"
[ "$("$out/o")" = "$("$IN")" ] || die "4a: the output does not run"
read -r hb_o win < <(huge_before "$out/o")
read -r hb_w _ < <(huge_before "$out/w")
"$TOOL" -q -o "$out/c2" "$IN" && cp "$out/c2" "$out/cpcopy"
read -r hb_c _ < <(huge_before "$out/cpcopy")
j=$B/part4-write.json
ro=$(ratio "$(hf_mean "$j" "elfthp-align -o")" "$(hf_mean "$j" cp)")
rom=$(ratio "$(PY hfmean "$j" "elfthp-align -o" median)" "$(PY hfmean "$j" cp median)")
ri=$(ratio "$(hf_mean "$j" "elfthp-align (in place)")" "$(hf_mean "$j" "cp + sync")")
rim=$(ratio "$(PY hfmean "$j" "elfthp-align (in place)" median)" "$(PY hfmean "$j" "cp + sync" median)")
rr=$(ratio "$(hf_mean "$j" "elfthp-align (in place)")" "$(hf_mean "$j" "cp over the file + sync")")
rrm=$(ratio "$(PY hfmean "$j" "elfthp-align (in place)" median)" "$(PY hfmean "$j" "cp over the file + sync" median)")
rss_o=$(rss_mib elfthp-align_-o) rss_i=$(rss_mib elfthp-align__in_place_)
keys+="| 4 | -o (300M lld, $fsname) ≤ 1.1× cp | $ro× (median $rom×) | $(goal "$ro" 1.1) |"$'\n'
keys+="| 4 | in place (300M lld, $fsname) ≤ 1.1× cp over the same file + sync of it | $rr× (median $rrm×) | $(goal "$rr" 1.1) |"$'\n'
keys+="| 4 | in place against cp + sync to a new name (no old file to free) | $ri× (median $rim×) | (context) |"$'\n'
keys+="| 4 | peak RSS ≤ 16 MiB (-o, in place) | $rss_o MiB, $rss_i MiB | $(goal "$(echo "$rss_o $rss_i" | awk '{print ($1 > $2 ? $1 : $2)}')" 16) |"$'\n'
keys+="| 4 | the rewrite leaves huge folios: windows huge right after (-o, in place, cp of it) | $hb_o/$win, $hb_w/$win, $hb_c/$win | $([ "$hb_o" = "$win" ] && [ "$hb_w" = "$win" ] && [ "$hb_c" = 0 ] && echo met || echo 'not met') |"$'\n'

# --- 4b, 4c ----------------------------------------------------------------
log "4b: --warm on a cold file against cat"
F=$out/o
hf_rounds part4-cold "$rounds" 1 "" \
    "elfthp-align --warm (cold)" "$DROP $F" "$T/warm_cold.rss $TOOL --warm -q $F" \
    "cat (cold)" "$DROP $F" "cat $F >/dev/null"
# The rounds may end with cat, whose readahead (read_ahead_kb of the disk)
# can make folios of its own: check --warm's outcome on its own run.
sh -c "$DROP $F" && "$TOOL" --warm -q "$F"
read -r hb _ < <(huge_before "$F")
[ "$hb" = "$win" ] || die "4b: after --warm only $hb of $win windows are huge"
sh -c "$DROP $F" && cat "$F" >/dev/null
read -r hb_cat _ < <(huge_before "$F")
ra=$(cat "/sys/class/block/$(basename "$(df --output=source "$B" | tail -1)")/queue/read_ahead_kb" 2>/dev/null || echo '?')
j=$B/part4-cold.json
rc=$(ratio "$(hf_mean "$j" "elfthp-align --warm (cold)")" "$(hf_mean "$j" "cat (cold)")")
rcm=$(ratio "$(PY hfmean "$j" "elfthp-align --warm (cold)" median)" "$(PY hfmean "$j" "cat (cold)" median)")
keys+="| 4 | --warm of a cold 300M file ≤ 1.2× cat of it | $rc× (median $rcm×) | $(goal "$rc" 1.2) |"$'\n'
log "4c: --warm on a huge file against --check"
hf_rounds part4-huge "$rounds" 0 "--runs 10" \
    "elfthp-align --warm (already huge)" "" "$TOOL --warm -q $F" \
    "elfthp-align --check" "" "$TOOL --check -q $F"
j=$B/part4-huge.json
rh=$(ratio "$(hf_mean "$j" "elfthp-align --warm (already huge)")" "$(hf_mean "$j" "elfthp-align --check")")
keys+="| 4 | --warm of a file already huge ≈ --check (reads no data) | $rh× --check ($(awk -v s="$(hf_mean "$j" "elfthp-align --warm (already huge)")" 'BEGIN{printf "%.1f ms", s*1000}')) | (measure) |"$'\n'

# --- 4d ------------------------------------------------------------------
log "4d: header-only on XFS: large writes against FICLONE + --warm"
X=$out/xfs
mkdir -p "$X"
truncate -s 3G "$out/xfs.img"
mkfs.xfs -q -f -m reflink=1 "$out/xfs.img" || die "mkfs.xfs"
mount -o loop "$out/xfs.img" "$X" || die "mount the XFS image (needs root)"
trap 'umount "$X" 2>/dev/null' EXIT
cp "$GNU" "$X/in" && sync
hf_rounds part4-xfs "$rounds" 1 "" \
    "elfthp-align -o (writes)" "rm -f $X/o && sync" "$TOOL -q -o $X/o $X/in" \
    "FICLONE, then --warm" "rm -f $X/r && sync" \
    "sh -c 'cp --reflink=always $X/in $X/r && $TOOL --warm -q $X/r; true'"
read -r hb_x winx < <(huge_before "$X/o")
read -r hb_r _ < <(huge_before "$X/r")
j=$B/part4-xfs.json
rx=$(ratio "$(hf_mean "$j" "FICLONE, then --warm")" "$(hf_mean "$j" "elfthp-align -o (writes)")")
keys+="| 4 | header-only on XFS: FICLONE then --warm, against the tool's writes (300M GNU ld) | $rx× (both huge: $hb_x/$winx, $hb_r/$winx) | (decision) |"$'\n'
umount "$X"; trap - EXIT
rm -f "$out/xfs.img"

{
echo "## 4. Writing for the page cache, and --warm"
echo
echo "300M lld PIE (text moves, file +4 KiB) on $fsname (\`$B\`), warm cache unless marked"
echo "cold (fsync + \`POSIX_FADV_DONTNEED\` before each run); rounds of hyperfine runs of the"
echo "compared commands side by side, pooled; peak RSS from \`/usr/bin/time -f %M\`."
echo
echo "| command | mean ± σ | min | runs | ratio | median | median ratio |"
echo "|---|---|---|---|---|---|---|"
PY hf "$B/part4-write.json" cp --median
echo
echo "Ratios above are to \`cp\`.  In place replaces a file that exists, and freeing its blocks"
echo "is part of the cost (on a file system mounted \`discard\`, as here, a large part): against"
echo "\`cp\` over the same existing file and \`sync\` of it, $rr× (median $rrm×); against \`cp + sync\`"
echo "to a new name, $ri× (median $rim×)."
echo "Peak RSS: -o $rss_o MiB, in place $rss_i MiB, cp $(rss_mib cp) MiB."
echo "Windows huge right after, read by \`--warm\` before it reads anything: -o $hb_o of $win,"
echo "in place $hb_w of $win, a \`cp\` of the rewritten file $hb_c of $win."
echo
echo "| command | mean ± σ | min | runs | ratio | median | median ratio |"
echo "|---|---|---|---|---|---|---|"
PY hf "$B/part4-cold.json" "cat (cold)" --median
PY hf "$B/part4-huge.json" "elfthp-align --check" --median
echo
echo "After a cold \`cat\` alone, $hb_cat of $win windows were huge: ordinary readahead makes folios"
echo "up to its window, and this disk's \`read_ahead_kb\` is $ra."
echo
echo "Header-only rewrite on XFS (loop image, \`reflink=1\`), 300M GNU ld PIE:"
echo
echo "| command | mean ± σ | min | runs | ratio | median | median ratio |"
echo "|---|---|---|---|---|---|---|"
PY hf "$B/part4-xfs.json" "elfthp-align -o (writes)" --median
echo
echo "FICLONE costs no data copy, but the clone has no page cache: ending huge then takes a read"
echo "of the whole file (here from a loop device whose image is itself cached; from a real disk"
echo "it is slower), and twice the page cache while both files are cached is the same for both."
echo
} >"$md"
printf '%s' "$keys" >"$B/part4-key.md"
log "part 4 done"
