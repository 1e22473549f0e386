# SPDX-License-Identifier: BSD-2-Clause
# SPDX-FileCopyrightText: 2026 the elfthp-align authors
# lib.sh - shared helpers for the bench/ scripts.  Source it (bash).
#
# Settings (environment):
#   BENCH_QUICK=1   reduced run (smaller sizes, fewer runs, shorter workloads)
#   BENCH_BUILD=DIR where generated binaries, outputs and logs go
#                   (default bench/build; never committed)
#   ELFTHP_ALIGN    the tool (default ./elfthp-align in the repository root)
#
# Each part script writes a Markdown fragment to $B/partN.md; run.sh joins
# them into bench/RESULTS.md.

set -u
BENCH_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$BENCH_DIR/.." && pwd)
TOOL=${ELFTHP_ALIGN:-$REPO/elfthp-align}
B=${BENCH_BUILD:-$BENCH_DIR/build}
QUICK=${BENCH_QUICK:-0}
LOGS=$B/logs
PY() { python3 "$BENCH_DIR/benchlib.py" "$@"; }
mkdir -p "$B" "$LOGS"

MiB=$((1 << 20))
PMD=$((2 << 20))

log() { printf '[bench %s] %s\n' "$(date +%T)" "$*" >&2; }
die() { log "FAILED: $*"; exit 1; }
need() {
	local c
	for c; do command -v "$c" >/dev/null 2>&1 || die "$c is not installed"; done
}
loadavg() { cut -d' ' -f1-3 /proc/loadavg; }
human() { numfmt --to=iec-i --suffix=B "$1"; }

# hf JSONNAME ARGS...: run hyperfine, its table to the log, JSON to $B/JSONNAME.
hf() {
	local json=$B/$1; shift
	log "hyperfine $* (load $(loadavg))"
	{ printf 'hyperfine'; printf ' %q' --style basic --export-json "$json" "$@"; echo; } >>"$B/commands.txt"
	hyperfine --style basic --export-json "$json" "$@" >>"$LOGS/hyperfine.log" 2>&1 ||
		{ tail -20 "$LOGS/hyperfine.log" >&2; die "hyperfine failed (log: $LOGS/hyperfine.log)"; }
}

# hf_table JSON REF [COLS...]: markdown rows, ratio to command REF.
hf_table() { PY hf "$@"; }
hf_mean() { PY hfmean "$@"; }
ratio() { python3 -c "import sys; print(f'{float(sys.argv[1]) / float(sys.argv[2]):.2f}')" "$1" "$2"; }

# gen_text NAME BYTES: $B/text/NAME-lld (lld PIE) and NAME-gnu (GNU ld PIE,
# default -z separate-code) with about BYTES of .text, built from
# tests/fixtures/pad_text.c.  Kept between runs; a stamp rebuilds them when the
# source, the size or the toolchain changes.
gen_text() {
	local name=$1 bytes=$2 d=$B/text stamp
	mkdir -p "$d"
	stamp=$( (cat "$REPO/tests/fixtures/pad_text.c"; echo "$bytes"; gcc --version | head -1
		ld.lld --version; ld.bfd --version | head -1) | sha256sum | cut -c1-16)
	if [ -f "$d/$name.stamp" ] && [ "$(cat "$d/$name.stamp")" = "$stamp" ] &&
	   [ -f "$d/$name-lld" ] && [ -f "$d/$name-gnu" ]; then
		return 0
	fi
	log "generating $name ($(human "$bytes") of text, lld and GNU ld)"
	rm -f "$d/$name".*
	gcc -O2 -fPIE -fno-toplevel-reorder -DPAD="$bytes" -c "$REPO/tests/fixtures/pad_text.c" \
	    -o "$d/$name.o" || die "compile $name"
	gcc -pie -fuse-ld=lld "$d/$name.o" -o "$d/$name-lld" || die "link $name-lld"
	gcc -pie -fuse-ld=bfd "$d/$name.o" -o "$d/$name-gnu" || die "link $name-gnu"
	rm -f "$d/$name.o"
	[ "$("$d/$name-lld")" = "$("$d/$name-gnu")" ] || die "$name: the two links disagree"
	echo "$stamp" >"$d/$name.stamp"
}

# mount_huge DIR SIZE [HUGE]: tmpfs with huge=HUGE (default always) at DIR
# (unmounted by umount_huge).
HUGE_MNT=""
mount_huge() {
	mkdir -p "$1"
	mountpoint -q "$1" && umount "$1"
	mount -t tmpfs -o "huge=${3:-always},size=$2" tmpfs "$1" || die "cannot mount tmpfs huge=always (need root)"
	HUGE_MNT=$1
}
umount_huge() {
	[ -n "$HUGE_MNT" ] && mountpoint -q "$HUGE_MNT" && umount "$HUGE_MNT"
	HUGE_MNT=""
}

# tracee_of PID: the process strace (PID, or PID's child) runs.
tracee_of() {
	local c
	c=$(pgrep -P "$1" | head -1)
	[ -n "$c" ] || return 0
	if [ "$(cat "/proc/$c/comm" 2>/dev/null)" = strace ]; then
		pgrep -P "$c" | head -1
	else
		echo "$c"
	fi
}

# held_smaps OUT PATHS -- CMD...: run CMD (env assignments allowed through
# `env`) under strace, which delays its exit_group; once it sits there, write
# one line "PATH BASE ALIGNED PMD_KB RSS_KB" per PATH to OUT (the mappings
# as they are at the end of the run), then kill it.
held_smaps() {
	local out=$1 paths=() spid pid="" s i p tracer=""
	shift
	while [ "$1" != -- ]; do paths+=("$1"); shift; done
	shift
	strace -f -o /dev/null -e trace=exit_group \
	    -e inject=exit_group:delay_enter=60000000 "$@" >/dev/null 2>&1 &
	spid=$!
	for i in $(seq 1200); do
		sleep 0.05
		[ -n "$pid" ] || pid=$(tracee_of "$spid")
		[ -n "$pid" ] || continue
		s=$(cat "/proc/$pid/syscall" 2>/dev/null) || break
		[ "${s%% *}" = 231 ] && break        # exit_group, held by strace
	done
	: >"$out"
	for p in "${paths[@]}"; do
		echo "$p $(PY smaps "$pid" "$p" 2>/dev/null || echo '- no 0 0')" >>"$out"
	done
	# End the held program and its strace (both ours, by their ids): strace
	# would otherwise sit out the whole delay, even after the program died.
	[ -n "$pid" ] && tracer=$(awk '/^TracerPid:/ { print $2 }' "/proc/$pid/status" 2>/dev/null)
	[ -n "$pid" ] && kill -KILL "$pid" 2>/dev/null
	[ -n "$tracer" ] && [ "$tracer" != 0 ] && kill -KILL "$tracer" 2>/dev/null
	kill -KILL "$spid" 2>/dev/null
	wait "$spid" 2>/dev/null
	return 0
}

# The text sizes of parts 1 and 2: "NAME BYTES ROUNDS WARMUP" lines
# (WARMUP 1: one more round first, not counted).
sizes() {
	if [ "$QUICK" = 1 ]; then
		printf '%s\n' "50M $((50 * MiB)) 3 1" "300M $((300 * MiB)) 3 0"
	else
		printf '%s\n' "50M $((50 * MiB)) 10 1" "300M $((300 * MiB)) 6 1" \
		    "1G $((1024 * MiB)) 4 1"
	fi
}

# hf_rounds NAME ROUNDS WARM "HYPERFINE-OPTIONS" LABEL PREPARE CMD [LABEL PREPARE CMD...]
# ROUNDS hyperfine runs of all the commands side by side (--runs 1 unless
# the options say otherwise), the order reversed every other round; with
# WARM=1 one more round first, as a warm-up, not counted.  PREPARE ("" for
# none) runs before each timed run of its command (hyperfine -p).  Pooled
# into $B/NAME.json, commands in the order given.  On a machine shared with
# other jobs this spreads their busy phases over all the commands instead
# of charging them to whichever ran then.
hf_rounds() {
	local name=$1 rounds=$2 warm=$3 i k first args=() files=() prep
	local -a opts
	read -r -a opts <<<"$4"
	shift 4
	local -a t=("$@")
	local n=${#t[@]}
	[[ " ${opts[*]} " == *" --runs "* ]] || opts+=(--runs 1)
	first=$((warm ? 0 : 1))
	for ((k = first; k <= rounds; k++)); do
		args=()
		if ((k % 2 == 1)); then
			for ((i = 0; i < n; i += 3)); do
				prep=${t[i + 1]:-true}
				args+=(-p "$prep" -n "${t[i]}" "${t[i + 2]}")
			done
		else
			for ((i = n - 3; i >= 0; i -= 3)); do
				prep=${t[i + 1]:-true}
				args+=(-p "$prep" -n "${t[i]}" "${t[i + 2]}")
			done
		fi
		hf "$name-r$k.json" "${opts[@]}" "${args[@]}"
		((k > 0)) && files+=("$B/$name-r$k.json")
	done
	PY hfpool "$B/$name.json" --order "$B/$name-r1.json" "${files[@]}"
}
