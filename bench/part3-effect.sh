#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# SPDX-FileCopyrightText: 2026 the elfthp-align authors
# part3-effect.sh - does the rewrite get the text onto huge pages, and what
# does that buy?  Everything runs from a tmpfs mounted huge=always.
#
#  (i)  a generated iTLB-heavy program (bench/gen-itlb.py: 4096 functions on
#       distinct 4 KiB pages over 48 MiB, one pseudo-random cycle), linked
#       by lld four ways: (a) as is, (b) rewritten by elfthp-align,
#       (c) relinked with -z max-page-size=0x200000, (c') the same plus
#       -z separate-loadable-segments.
#  (ii) clang-14 compiling a generated C file (bench/gen-bigc.py), with
#       LD_LIBRARY_PATH at copies of libLLVM-14.so.1 and libclang-cpp.so.14
#       on the tmpfs: (a) as installed, (b) rewritten.  (Relinking Debian's
#       libLLVM does not apply.)
# For each: coverage = PMD-mapped bytes of the file (ShmemPmdMapped in
# /proc/PID/smaps, read while strace holds the process at exit_group)
# against its eligible 2 MiB windows; file growth; wall time (rounds of
# hyperfine runs with all variants side by side, order alternating).
# Context: bench/src/dtlb.c, a TLB-bound walk over anonymous memory with
# and without transparent huge pages: does a 2 MiB page help on this
# machine at all?
# Writes $B/part3.md.
. "$(dirname "$0")/lib.sh"
need hyperfine readelf strace gcc ld.lld clang-14
[ -x "$TOOL" ] || die "$TOOL not built (make)"

md=$B/part3.md
H=$B/huge
trap umount_huge EXIT
if [ "$QUICK" = 1 ]; then
	STEPS=50000000 RUNS=3 CRUNS=3 NFUNC_C=500
else
	STEPS=100000000 RUNS=10 CRUNS=5 NFUNC_C=1500
fi

# --- build the iTLB program ---------------------------------------------
d=$B/itlb
mkdir -p "$d"
stamp=$( (cat "$BENCH_DIR/gen-itlb.py"; gcc --version | head -1; ld.lld --version) | sha256sum | cut -c1-16)
if [ ! -f "$d/stamp" ] || [ "$(cat "$d/stamp")" != "$stamp" ] || [ ! -f "$d/itlb.orig" ]; then
	log "building the iTLB program (gcc, about 15 s)"
	python3 "$BENCH_DIR/gen-itlb.py" >"$d/itlb.c" || die "gen-itlb.py"
	gcc -O2 -fPIE -fno-toplevel-reorder -c "$d/itlb.c" -o "$d/itlb.o" || die "compile itlb.c"
	gcc -pie -fuse-ld=lld "$d/itlb.o" -o "$d/itlb.orig" || die "link itlb.orig"
	gcc -pie -fuse-ld=lld -Wl,-z,max-page-size=0x200000 "$d/itlb.o" -o "$d/itlb.relink" ||
		die "link itlb.relink"
	gcc -pie -fuse-ld=lld -Wl,-z,max-page-size=0x200000 -Wl,-z,separate-loadable-segments \
	    "$d/itlb.o" -o "$d/itlb.relink-sep" || die "link itlb.relink-sep"
	rm -f "$d/itlb.o"
	echo "$stamp" >"$d/stamp"
fi
rm -f "$d/itlb.tool"
"$TOOL" -q -o "$d/itlb.tool" "$d/itlb.orig" || die "rewrite itlb.orig"
PY check "$d/itlb.tool" "$d/itlb.orig" || die "itlb.tool fails the check"
PY segcmp "$d/itlb.orig" "$d/itlb.tool" || die "itlb.tool: segment bytes differ"
for v in relink relink-sep; do
	PY check "$d/itlb.$v" || die "itlb.$v: lld did not make the text 2 MiB-congruent"
done
V1=(orig tool relink relink-sep)
declare -A LABEL=([orig]="(a) original (lld)" [tool]="(b) elfthp-align"
    [relink]="(c) relink -z max-page-size=0x200000"
    [relink-sep]="(c') relink + -z separate-loadable-segments")

mount_huge "$H" 1G
log "tmpfs huge=always at $H"
want=""
for v in "${V1[@]}"; do
	cp "$d/itlb.$v" "$H/itlb.$v"
	o=$("$H/itlb.$v" 100000) || die "itlb.$v does not run"
	[ -z "$want" ] && want=$o
	[ "$o" = "$want" ] || die "itlb.$v prints $o, not $want"
done

# row WORKLOAD VARIANT FILE ORIG SMAPSLINE
cov_rows=""
declare -A COV GROW
row() {
	local wl=$1 var=$2 f=$3 orig=$4 path base al pmd rss elig cong grow txt
	read -r path base al pmd rss <<<"$5"
	read -r elig cong < <(PY windows "$f")
	grow=$(( $(stat -c %s "$f") - $(stat -c %s "$orig") ))
	txt=$(readelf -lW "$f" | awk '$1=="LOAD" && $0 ~ / R E /{printf "%s/%s/%s", $2, $3, $NF; exit}')
	cov=$(awk -v p="$pmd" -v e="$elig" 'BEGIN{ if (e == 0) print "-"; else printf "%.0f%%", 100 * p / (e * 2048) }')
	COV[$wl|$var]=$cov GROW[$wl|$var]=$grow
	cov_rows+="| $wl | $var | $(stat -c %s "$f") | +$grow | \`$txt\` | $base | $al | $elig ($cong usable) | $((pmd / 1024)) MiB | $cov |"$'\n'
}

for v in "${V1[@]}"; do
	held_smaps "$B/smaps-itlb-$v" "$H/itlb.$v" -- "$H/itlb.$v" 100000
	row "iTLB program" "${LABEL[$v]}" "$H/itlb.$v" "$H/itlb.orig" "$(cat "$B/smaps-itlb-$v")"
done

hf_rounds part3-itlb "$RUNS" 1 "-N" \
    "${LABEL[orig]}" "" "$H/itlb.orig $STEPS" \
    "${LABEL[tool]}" "" "$H/itlb.tool $STEPS" \
    "${LABEL[relink]}" "" "$H/itlb.relink $STEPS" \
    "${LABEL[relink-sep]}" "" "$H/itlb.relink-sep $STEPS"

# --- clang-14 with libLLVM-14 and libclang-cpp-14 on the tmpfs ------------
LLVM=$(readlink -f /usr/lib/x86_64-linux-gnu/libLLVM-14.so.1)
CPP=$(readlink -f /usr/lib/x86_64-linux-gnu/libclang-cpp.so.14)
[ -f "$LLVM" ] && [ -f "$CPP" ] || die "libLLVM-14.so.1 or libclang-cpp.so.14 not installed"
CLANG=$(command -v clang-14)
c=$B/clang; mkdir -p "$c"
python3 "$BENCH_DIR/gen-bigc.py" "$NFUNC_C" >"$c/big.c" || die "gen-bigc.py"
mkdir -p "$H/orig" "$H/tool"
cp "$LLVM" "$H/orig/libLLVM-14.so.1"; cp "$CPP" "$H/orig/libclang-cpp.so.14"
for l in libLLVM-14.so.1 libclang-cpp.so.14; do
	"$TOOL" -q -o "$H/tool/$l" "$H/orig/$l" || die "rewrite $l"
	PY check "$H/tool/$l" "$H/orig/$l" || die "$l: output fails the check"
	PY segcmp "$H/orig/$l" "$H/tool/$l" || die "$l: segment bytes differ"
done
for v in orig tool; do
	env LD_LIBRARY_PATH="$H/$v" "$CLANG" -O2 -c "$c/big.c" -o "$c/big.$v.o" || die "clang with $v libraries"
done
cmp -s "$c/big.orig.o" "$c/big.tool.o" || die "clang output differs between the library copies"
declare -A CLABEL=([orig]="(a) libraries as installed, copied to tmpfs" [tool]="(b) elfthp-align")
for v in orig tool; do
	held_smaps "$B/smaps-clang-$v" "$H/$v/libLLVM-14.so.1" "$H/$v/libclang-cpp.so.14" -- \
	    env LD_LIBRARY_PATH="$H/$v" "$CLANG" -O2 -c "$c/big.c" -o /dev/null
	while read -r line; do
		set -- $line
		[ "$2" != - ] || die "clang ($v) did not map $1: LD_LIBRARY_PATH not used?"
		row "clang-14: $(basename "$1")" "${CLABEL[$v]}" "$1" "$H/orig/$(basename "$1")" "$line"
	done <"$B/smaps-clang-$v"
done
# For reference: the installed libraries, from ext4, as clang-14 normally runs.
held_smaps "$B/smaps-clang-ext4" "$LLVM" "$CPP" -- "$CLANG" -O2 -c "$c/big.c" -o /dev/null
while read -r line; do
	set -- $line
	row "clang-14: $(basename "$1")" "(ref) installed, from ext4" "$1" "$1" "$line"
done <"$B/smaps-clang-ext4"

hf_rounds part3-clang "$CRUNS" 1 "-N" \
    "${CLABEL[orig]}" "" "env LD_LIBRARY_PATH=$H/orig $CLANG -O2 -c $c/big.c -o /dev/null" \
    "${CLABEL[tool]}" "" "env LD_LIBRARY_PATH=$H/tool $CLANG -O2 -c $c/big.c -o /dev/null"

# --- context: does a 2 MiB page shorten TLB-bound accesses here at all? ----
gcc -O2 -Wall -o "$B/dtlb" "$BENCH_DIR/src/dtlb.c" || die "compile dtlb.c"
DSTEPS=$([ "$QUICK" = 1 ] && echo 10000000 || echo 20000000)
read -r _ dsmall _ < <("$B/dtlb" 32 small 1000)
read -r _ dhuge _ < <("$B/dtlb" 32 huge 1000)
hf_rounds part3-dtlb "$CRUNS" 1 "-N" \
    "anonymous, 4 KiB pages (MADV_NOHUGEPAGE)" "" "$B/dtlb 32 small $DSTEPS" \
    "anonymous, 2 MiB pages (MADV_HUGEPAGE)" "" "$B/dtlb 32 huge $DSTEPS"

perf_line=$(perf stat -e iTLB-load-misses,instructions true 2>&1 | grep -E 'iTLB|instructions' |
    sed 's/  */ /g' | tr '\n' ';' || true)

{
echo "## 3. Effect: huge-page coverage, file growth, wall time"
echo
echo "From a tmpfs mounted \`-o huge=always,size=1G\` (\`/sys/kernel/mm/transparent_hugepage/enabled\`:"
echo "\`$(cat /sys/kernel/mm/transparent_hugepage/enabled)\`, \`shmem_enabled\`: \`$(cat /sys/kernel/mm/transparent_hugepage/shmem_enabled)\`)."
echo "Coverage: \`ShmemPmdMapped\` (+ \`FilePmdMapped\`) summed over the file's mappings in"
echo "\`/proc/PID/smaps\`, read while strace holds the process at \`exit_group\`, divided by the"
echo "file's eligible windows × 2 MiB (windows: 2 MiB-aligned ranges inside a non-writable"
echo "PT_LOAD's \`[p_vaddr, p_vaddr+p_filesz)\`; *usable* = in a segment with"
echo "\`p_offset ≡ p_vaddr (mod 2 MiB)\`).  Only windows the program touched can be mapped."
echo "The iTLB program ran 100000 steps for this (every function, so every window)."
echo "Text LOAD column: \`p_offset/p_vaddr/p_align\` of the R E segment."
echo
echo "| workload | variant | file bytes | growth | text LOAD | load base | 2 MiB-aligned | windows | PMD-mapped | coverage |"
echo "|---|---|---|---|---|---|---|---|---|---|"
printf '%s' "$cov_rows"
echo
echo "### Wall time"
echo
echo "Method: rounds ($RUNS for the iTLB program, $CRUNS for clang), each one hyperfine run (\`-N --runs 1\`) of all the variants side by side,"
echo "the order reversed every other round, after one warm-up round; the rounds are pooled."
echo "(One hyperfine run per comparison would run all of (a), then all of (b), ...: on this"
echo "shared 2-CPU VM a busy phase of the other jobs then lands on one variant.)  Ratios are"
echo "of means over (a); median and user time are shown too (user time is less disturbed by"
echo "other jobs than wall time)."
echo
echo "iTLB program: \`itlb.VARIANT $STEPS\` (steps through the 4096-function cycle)."
echo
echo "| command | mean ± σ | min | runs | ×(a) | median | median ×(a) | user | user ×(a) |"
echo "|---|---|---|---|---|---|---|---|---|"
hf_table "$B/part3-itlb.json" "${LABEL[orig]}" --median --user
echo
echo "Against (a), mean ratio with a 95 % interval on the difference (Welch): (b) $(PY hfdiff "$B/part3-itlb.json" "${LABEL[tool]}" "${LABEL[orig]}"),"
echo "(c) $(PY hfdiff "$B/part3-itlb.json" "${LABEL[relink]}" "${LABEL[orig]}"), (c') $(PY hfdiff "$B/part3-itlb.json" "${LABEL[relink-sep]}" "${LABEL[orig]}")."
echo
echo "clang-14: \`env LD_LIBRARY_PATH=DIR clang-14 -O2 -c big.c -o /dev/null\`, big.c from"
echo "\`bench/gen-bigc.py $NFUNC_C\` ($(wc -c <"$c/big.c") bytes); both library sets produced the same object file."
echo
echo "| command | mean ± σ | min | runs | ×(a) | median | median ×(a) | user | user ×(a) |"
echo "|---|---|---|---|---|---|---|---|---|"
hf_table "$B/part3-clang.json" "${CLABEL[orig]}" --median --user
echo
echo "(b) against (a): $(PY hfdiff "$B/part3-clang.json" "${CLABEL[tool]}" "${CLABEL[orig]}")."
echo
echo "Context, the same question for data: \`bench/src/dtlb.c\` chases a pointer through one cache"
echo "line of each 4 KiB page of 32 MiB of anonymous memory (8192 pages, pseudo-random cycle,"
echo "$DSTEPS steps), with transparent huge pages forbidden or requested (AnonHugePages: $dsmall kB"
echo "and $dhuge kB).  On bare metal the 2 MiB case is usually much faster (8192 pages exceed the"
echo "second-level TLB; 16 huge pages do not)."
echo
echo "| command | mean ± σ | min | runs | ×(4 KiB) | median | median ×(4 KiB) | user | user ×(4 KiB) |"
echo "|---|---|---|---|---|---|---|---|---|"
hf_table "$B/part3-dtlb.json" "anonymous, 4 KiB pages (MADV_NOHUGEPAGE)" --median --user
echo
echo "2 MiB against 4 KiB: $(PY hfdiff "$B/part3-dtlb.json" "anonymous, 2 MiB pages (MADV_HUGEPAGE)" "anonymous, 4 KiB pages (MADV_NOHUGEPAGE)")."
echo
oc=${COV[clang-14: libLLVM-14.so.1|${CLABEL[orig]}]}
echo "Notes:"
echo
echo "- lld with \`-z max-page-size=0x200000\` keeps the file offsets and moves the addresses"
echo "  instead (text at p_vaddr = p_offset + 2 MiB), so the relink (c) is already congruent"
echo "  with no file growth; the rewrite (b) pads the file by 4 KiB.  Only the relink with"
echo "  \`-z separate-loadable-segments\` (c'), which puts every segment at a 2 MiB file offset,"
echo "  grows the file more than the rewrite.  All three got the same coverage."
if [ "$oc" != "0%" ] && [ "$oc" != "-" ]; then
echo "- The original libLLVM-14.so.1 and libclang-cpp.so.14 copied to the tmpfs were huge-mapped"
echo "  too ($oc of libLLVM's windows): they are GNU ld files whose text starts at offset 0 with"
echo "  p_offset = p_vaddr, so they are already congruent; glibc maps a library with one"
echo "  mmap of its whole span first, and on a huge=always tmpfs the kernel hands such a"
echo "  mapping a 2 MiB-aligned address by itself.  Here the rewrite (p_align 4 KiB → 2 MiB) only"
echo "  turns that luck into a guarantee (glibc ≥ 2.35 aligns the base to p_align); it cannot"
echo "  add coverage, so any wall-time difference between (a) and (b) is noise."
else
echo "- The original libraries copied to the tmpfs got no PMD mappings in this run."
fi
echo "- The installed libraries on ext4 got 2 MiB-aligned bases too (the kernel's"
echo "  thp_get_unmapped_area) but no PMD mappings: this kernel has no"
echo "  CONFIG_READ_ONLY_THP_FOR_FS ($(zcat /proc/config.gz 2>/dev/null | grep -E 'READ_ONLY_THP_FOR_FS' || echo 'config not readable'))."
echo "- This VM's memory is provided by a hypervisor; whether a guest 2 MiB mapping becomes a"
echo "  2 MiB TLB entry also depends on how the host backs guest memory, which cannot be seen"
echo "  from inside.  If the data check above shows no gain from 2 MiB pages either, the host"
echo "  most likely backs the guest with 4 KiB pages: then a guest PMD mapping saves one level"
echo "  of the guest's page walk but no TLB entries, and no layout change can show its effect"
echo "  on this machine."
echo
echo "iTLB miss counters are not available on this VM: \`perf stat -e iTLB-load-misses,instructions true\`"
echo "reports \`${perf_line:-perf not installed}\`.  The wall-time ratios above are the only measure of effect."
echo
} >"$md"
it="iTLB program"
j=$B/part3-itlb.json
ju() { python3 -c "import json,sys; r={x['command']:x for x in json.load(open(sys.argv[1]))['results']}; print(f\"{r[sys.argv[2]]['user']/r[sys.argv[3]]['user']:.2f}\")" "$@"; }
vcov=$( [ "${COV[$it|${LABEL[tool]}]}" = "${COV[$it|${LABEL[relink]}]}" ] && echo met || echo "not met")
vgrow=$( [ "${GROW[$it|${LABEL[tool]}]}" -lt "${GROW[$it|${LABEL[relink]}]}" ] && echo met || echo "not met")
vgrow2=$( [ "${GROW[$it|${LABEL[tool]}]}" -lt "${GROW[$it|${LABEL[relink-sep]}]}" ] && echo met || echo "not met")
{
echo "| 3 | iTLB program: coverage (b) = (c) | (a) ${COV[$it|${LABEL[orig]}]}, (b) ${COV[$it|${LABEL[tool]}]}, (c) ${COV[$it|${LABEL[relink]}]}, (c') ${COV[$it|${LABEL[relink-sep]}]} | $vcov |"
echo "| 3 | iTLB program: growth (b) < (c) | (b) +${GROW[$it|${LABEL[tool]}]} B, (c) +${GROW[$it|${LABEL[relink]}]} B | $vgrow |"
echo "| 3 | iTLB program: growth (b) < (c') | (b) +${GROW[$it|${LABEL[tool]}]} B, (c') +${GROW[$it|${LABEL[relink-sep]}]} B | $vgrow2 |"
echo "| 3 | iTLB program: wall time ×(a), 95 % interval | (b) $(PY hfdiff "$j" "${LABEL[tool]}" "${LABEL[orig]}"), (c) $(PY hfdiff "$j" "${LABEL[relink]}" "${LABEL[orig]}"), (c') $(PY hfdiff "$j" "${LABEL[relink-sep]}" "${LABEL[orig]}"); user time (b) $(ju "$j" "${LABEL[tool]}" "${LABEL[orig]}"), (c) $(ju "$j" "${LABEL[relink]}" "${LABEL[orig]}") | (measured) |"
cl="clang-14: libLLVM-14.so.1"
echo "| 3 | context: 2 MiB vs 4 KiB anonymous pages, TLB-bound data walk | $(PY hfdiff "$B/part3-dtlb.json" "anonymous, 2 MiB pages (MADV_HUGEPAGE)" "anonymous, 4 KiB pages (MADV_NOHUGEPAGE)") | (measured) |"
echo "| 3 | clang-14: libLLVM-14 coverage | (a) ${COV[$cl|${CLABEL[orig]}]}, (b) ${COV[$cl|${CLABEL[tool]}]}, installed on ext4 ${COV[$cl|(ref) installed, from ext4]} | (measured) |"
j=$B/part3-clang.json
echo "| 3 | clang-14: wall time (b)×(a), 95 % interval | $(PY hfdiff "$j" "${CLABEL[tool]}" "${CLABEL[orig]}"); user $(ju "$j" "${CLABEL[tool]}" "${CLABEL[orig]}") | (measured) |"
} >"$B/part3-key.md"
umount_huge
log "part 3 done"
