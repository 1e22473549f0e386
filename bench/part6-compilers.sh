#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# SPDX-FileCopyrightText: 2026 the elfthp-align authors
# part6-compilers.sh - what huge text buys a real compiler's next run, with
# the tool as the instrument: `elfthp-align --measure`.
#
# Copies, never the real /usr: gcc's cc1 (gcc -print-prog-name=cc1, used
# through gcc -B DIR/) and clang-14 with its libLLVM-14.so.1 (run as
# DIR/clang-14 with LD_LIBRARY_PATH=DIR, so that its -cc1 re-exec is the
# copy too), in $B/compilers on this repository's file system (ext4 here,
# large folios since 6.16; PART6_DIR puts them elsewhere, e.g. a tmpfs
# mounted huge=always).  `elfthp-align` rewrites the copies in place (cc1
# and libLLVM-14 are congruent as linked: it only puts their windows in the
# page cache; clang-14 itself is a small driver with no window, so
# --measure is given libLLVM-14 only).  Then, per workload,
#   elfthp-align --measure --pairs N --format json FILES -- COMMAND
# runs COMMAND in N pairs of rounds, small (the files' text not PMD-mapped
# in its process tree: the audit module, or PR_SET_THP_DISABLE where it
# cannot apply; each round names its toggle) and huge, each round verified from
# the processes' smaps (FilePmdMapped of every file as in the warm-up, or 0),
# and reports the medians and the ratio taken pair by pair.  Workloads:
#   gcc -O2 -c big.c      (bench/gen-bigc.py 1500: about 1.2 s of cc1)
#   clang-14 -O2 -c big.c
#   itlb.huge STEPS       the synthetic text walk of bench/gen-itlb.py, lld
#                         link rewritten with -o (part 3's known gain)
# Writes $B/part6.md and $B/part6-table.md (the README's "what does it buy?"
# table; bench/readme-table.sh puts it there), and keeps each JSON object
# in $B/part6-NAME.json.
. "$(dirname "$0")/lib.sh"
need gcc clang-14 ld.lld python3
[ -x "$TOOL" ] || die "$TOOL not built (make)"
PAIRS=${PAIRS:-$([ "$QUICK" = 1 ] && echo 3 || echo 7)}
STEPS=${ITLB_STEPS:-100000000}

D=${PART6_DIR:-$B/compilers}
rm -rf "$D" && mkdir -p "$D/gcc" "$D/clang" "$D/obj" || die "mkdir $D"
md=$B/part6.md
python3 "$BENCH_DIR/gen-bigc.py" 1500 >"$D/big.c" || die "gen-bigc.py"

CC1=$(gcc -print-prog-name=cc1)
CLANG=$(readlink -f "$(command -v clang-14)")
LLVM=$(ldd "$CLANG" | awk '/libLLVM-14/ { print $3 }')
[ -f "$CC1" ] && [ -f "$LLVM" ] || die "cc1 ($CC1) or libLLVM-14 ($LLVM) not found"
cp "$CC1" "$D/gcc/cc1" && cp "$CLANG" "$D/clang/clang-14" && cp "$LLVM" "$D/clang/" ||
	die "cp"
LIB=$D/clang/$(basename "$LLVM")

# The synthetic walk: part 3's program, rewritten with -o.
I=$D/itlb
mkdir -p "$I"
python3 "$BENCH_DIR/gen-itlb.py" >"$I/itlb.c" || die "gen-itlb.py"
gcc -O2 -fPIE -fno-toplevel-reorder -c "$I/itlb.c" -o "$I/itlb.o" &&
	gcc -pie -fuse-ld=lld "$I/itlb.o" -o "$I/itlb.orig" || die "build itlb"
"$TOOL" -q -o "$I/itlb.huge" "$I/itlb.orig" || die "rewrite itlb"
[ "$("$I/itlb.huge" 100000)" = "$("$I/itlb.orig" 100000)" ] || die "itlb.huge prints otherwise"

log "elfthp-align on the copies"
"$TOOL" "$D/gcc/cc1" "$D/clang/clang-14" "$LIB" | tee "$D/tool.out" >&2

# measure NAME FILES... -- COMMAND...: one --measure run, its JSON kept.
measure() {
	local name=$1; shift
	log "--measure $name ($PAIRS pairs, load $(loadavg))"
	{ printf 'elfthp-align --measure --pairs %s --format json' "$PAIRS"; printf ' %q' "$@"; echo; } \
	    >>"$B/commands.txt"
	"$TOOL" --measure --pairs "$PAIRS" --format json "$@" >"$B/part6-$name.json" \
	    2>"$LOGS/part6-$name.err"
	local rc=$?
	[ "$rc" -le 1 ] || { tail -5 "$LOGS/part6-$name.err" >&2; die "--measure $name exited $rc"; }
}

load0=$(loadavg)
measure gcc "$D/gcc/cc1" -- gcc -B "$D/gcc/" -O2 -c "$D/big.c" -o "$D/obj/gcc.o"
measure clang "$LIB" -- \
    env LD_LIBRARY_PATH="$D/clang" "$D/clang/clang-14" -O2 -c "$D/big.c" -o "$D/obj/clang.o"
# The walk also before and after: the linker's file bind-mounted over the
# rewritten one in the before rounds (--before), the user's own question.
measure itlb --before "$I/itlb.orig" "$I/itlb.huge" -- "$I/itlb.huge" "$STEPS"
load1=$(loadavg)

fs=$(df -T "$D" | awk 'NR == 2 { print $2 }')
thp=$(sed 's/.*\[\(.*\)\].*/\1/' /sys/kernel/mm/transparent_hugepage/enabled)
cpu=$(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo)
PY measure-table --machine "$cpu, $(nproc) vCPUs, $(free -g | awk '/^Mem:/ { print $2 }') GiB" \
    --kernel "$(uname -r)" --thp "$thp" --fs "$fs" --load "$load0 at start, $load1 at end" \
    "gcc -O2 -c big.c (cc1 copy)=$B/part6-gcc.json" \
    "clang-14 -O2 -c big.c (clang-14 + libLLVM-14 copies)=$B/part6-clang.json" \
    "gen-itlb walk, $STEPS steps (48 MiB of text)=$B/part6-itlb.json" \
    >"$B/part6-table.md" || die "measure-table"

{
	echo "## 6. What huge text buys: compilers and the synthetic walk, through \`--measure\`"
	echo
	echo "Copies of cc1, clang-14 and libLLVM-14 in \`${D#"$REPO"/}\` ($fs), rewritten in place by"
	echo "\`elfthp-align\`; the text walk of \`bench/gen-itlb.py\` rewritten with \`-o\`. Each row is one"
	echo "\`elfthp-align --measure --pairs $PAIRS\` run: small rounds with the files' text made small (the audit module; PR_SET_THP_DISABLE for a static command), huge rounds"
	echo "as the files are, alternating, every round verified from smaps; ratios huge/small taken"
	echo "pair by pair (median, with the range of the pairs). What \`elfthp-align\` said of the copies:"
	echo
	sed 's/^/    /' "$D/tool.out"
	echo
	cat "$B/part6-table.md"
	echo
	echo "The command lines are in bench/build/commands.txt (\`elfthp-align --measure ...\`)."
} >"$md"
cat "$md"
# README_UPDATE=1: the README's table too (bench/readme-table.sh).
if [ "${README_UPDATE:-0}" = 1 ]; then
	bash "$BENCH_DIR/readme-table.sh" || die "readme-table.sh"
fi
