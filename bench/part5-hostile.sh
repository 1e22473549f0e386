#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# SPDX-FileCopyrightText: 2026 the elfthp-align authors
# part5-hostile.sh - memory and time of the read-only modes on hostile
# files, and on ordinary ones of growing size.
#
# tests/hostile/gen-cost.py builds the hostile series (sparse files of up
# to 5 GiB apparent size, 65534 program headers, 130000 NOBITS sections,
# growth and class traps).  For each file and each of --check, --report
# and -n: the peak RSS (/usr/bin/time -f %M) and the time (hyperfine -N,
# 5 runs, after a warm-up).  Goals: at most 64 MiB and 1 s per run.  Then
# the same modes on the lld PIEs of part 1 (50M, 300M, 1G): memory must
# stay flat as the file grows.  Writes $B/part5.md and $B/part5-key.md.
. "$(dirname "$0")/lib.sh"
need hyperfine python3 /usr/bin/time
[ -x "$TOOL" ] || die "$TOOL not built (make)"

out=$B/out5
rm -rf "$out"; mkdir -p "$out"
md=$B/part5.md
python3 "$REPO/tests/hostile/gen-cost.py" "$out" || die "gen-cost.py"
worst_kb=0 worst_s=0 rows=""

# one FILE MODE: "RSS_KB MEAN_S" of the tool's MODE on FILE.
one() {
	local f=$1 m=$2 kb j=$out/hf.json
	/usr/bin/time -f %M -o "$out/rss" "$TOOL" "$m" "$f" >/dev/null 2>&1
	kb=$(tail -n 1 "$out/rss")
	hyperfine -N -i --warmup 1 --runs 5 --export-json "$j" "$TOOL $m $f" \
	    >>"$LOGS/hyperfine.log" 2>&1 || die "hyperfine $m $f"
	echo "$kb $(PY hfmean "$j" "$TOOL $m $f")"
}

while read -r name want; do
	f=$out/$name
	for m in --check --report -n; do
		read -r kb s < <(one "$f" "$m")
		[ "$kb" -gt "$worst_kb" ] && worst_kb=$kb
		worst_s=$(python3 -c "print(max($worst_s, $s))")
		rows+="| $name | $(human "$(stat -c %s "$f")") | $m | $want | $(awk -v k="$kb" 'BEGIN{printf "%.1f MiB", k/1024}') | $(awk -v s="$s" 'BEGIN{printf "%.1f ms", s*1000}') |"$'\n'
	done
done < "$out/cases.txt"

flat=""
for name in $(sizes | awk '{print $1}'); do
	gen_text "$name" "$(sizes | awk -v n="$name" '$1 == n { print $2 }')"
	for m in --check --report; do
		/usr/bin/time -f %M -o "$out/rss" "$TOOL" "$m" "$B/text/$name-lld" >/dev/null 2>&1
		flat+="| $name-lld | $(human "$(stat -c %s "$B/text/$name-lld")") | $m | $(awk -v k="$(tail -n 1 "$out/rss")" 'BEGIN{printf "%.1f MiB", k/1024}') |"$'\n'
	done
done

{
echo "## 5. Hostile files: memory and time of the read-only modes"
echo
echo "Files from \`tests/hostile/gen-cost.py\` (apparent sizes; several are sparse), each mode"
echo "run alone: peak RSS from one \`/usr/bin/time -f %M\` run, time the mean of 5 \`hyperfine -N\`"
echo "runs after a warm-up.  \`refuse\` files exit 2 with one message; the others are read whole."
echo "Before the bounded reader (commit b61ce47), dyn-5g took 5.2 GB and 4 s, shnum-4m 1.4 GB,"
echo "\`--report\` on loads-65534 44 s, and \`--check\` on nobits-130000 17 s."
echo
echo "| file | size | mode | expected | peak RSS | time |"
echo "|---|---|---|---|---|---|"
printf '%s' "$rows"
echo
echo "Ordinary files of growing size (part 1's lld PIEs): memory stays flat."
echo
echo "| file | size | mode | peak RSS |"
echo "|---|---|---|---|"
printf '%s' "$flat"
echo
} >"$md"
v=$( [ "$worst_kb" -le 65536 ] && python3 -c "import sys; sys.exit(0 if $worst_s <= 1 else 1)" && echo met || echo "not met")
printf '%s\n' "| 5 | hostile files: every read-only mode ≤ 64 MiB and ≤ 1 s | worst $(awk -v k="$worst_kb" 'BEGIN{printf "%.1f MiB", k/1024}'), $(awk -v s="$worst_s" 'BEGIN{printf "%.0f ms", s*1000}') | $v |" >"$B/part5-key.md"
log "part 5 done"
