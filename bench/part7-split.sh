#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# SPDX-FileCopyrightText: 2026 the elfthp-align authors
# part7-split.sh - what --layout start costs beside --layout congruent, on
# copies of this host's large binaries (never the real ones): file growth,
# rewrite time (-o, --no-warm, median of RUNS), segments split, whether the
# output runs (--version, or a program that loads the library), and
# eu-elflint messages the output has that the input lacks.
#
#   bash bench/part7-split.sh [OUT.md]     (default bench/build/part7.md)
#
# Inputs: gcc's cc1, libLLVM, gdb, node, cargo, where present.
set -u
BENCH_DIR=$(cd "$(dirname "$0")" && pwd)
TOOL=${ELFTHP_ALIGN:-$BENCH_DIR/../elfthp-align}
PHDRS=$BENCH_DIR/../tests/integration/phdrs.py
OUT=${1:-$BENCH_DIR/build/part7.md}
RUNS=${RUNS:-3}
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
mkdir -p "$(dirname "$OUT")"

inputs() {
	local f
	for f in /usr/lib/gcc/x86_64-linux-gnu/*/cc1 /usr/lib/x86_64-linux-gnu/libLLVM-1[0-9].so.1 \
		/usr/bin/gdb /usr/bin/node "$HOME"/.rustup/toolchains/stable-*/bin/cargo; do
		[ -f "$f" ] && echo "$f"
	done
}

# median_ms CMD...: the median wall time of RUNS runs, in milliseconds.
median_ms() {
	local i t0 t1
	for i in $(seq 1 "$RUNS"); do
		t0=$(date +%s%N); "$@" >/dev/null 2>&1 || { echo fail; return; }
		t1=$(date +%s%N); echo $(( (t1 - t0) / 1000000 ))
	done | sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'
}

runs() {	# runs FILE ORIGPATH: the copy runs as the original does
	case $2 in
	*.so*)	LD_PRELOAD=$1 /bin/true ;;
	*)	timeout 20 "$1" --version >/dev/null 2>&1 ;;
	esac
}

elflint_new() {
	comm -13 <(eu-elflint -q --gnu-ld "$1" 2>&1 | sed "s|$1|F|" | sort -u) \
		<(eu-elflint -q --gnu-ld "$2" 2>&1 | sed "s|$2|F|" | sort -u) | wc -l
}

{
	echo "| file | size | layout | growth | rewrite ms (median of $RUNS) | split | runs | new eu-elflint messages |"
	echo "|---|---|---|---|---|---|---|---|"
	for src in $(inputs); do
		name=$(basename "$src")
		cp "$src" "$W/$name" || continue
		size=$(stat -c %s "$W/$name")
		for layout in congruent start; do
			out=$W/$name.$layout
			ms=$(median_ms "$TOOL" -q --no-warm --layout "$layout" -o "$out" "$W/$name")
			"$TOOL" -q --no-warm --layout "$layout" -o "$out" "$W/$name" >/dev/null 2>&1
			grow=$(( $(stat -c %s "$out") - size ))
			nsplit=$(python3 "$PHDRS" heads "$out" | wc -l)
			runs "$out" "$src" && ran=yes || ran=NO
			echo "| $name | $((size / 1048576)) MiB | $layout | +$grow B | $ms | $nsplit | $ran | $(elflint_new "$W/$name" "$out") |"
			rm -f "$out"
		done
		rm -f "$W/$name"
	done
} > "$OUT"
cat "$OUT"
