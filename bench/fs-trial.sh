#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# SPDX-FileCopyrightText: 2026 the elfthp-align authors
# fs-trial.sh [--dir DIR] [--lib LIB] PROGRAM [ARGS...]
#
# Manual trial of huge text where binaries live: in DIR (default
# bench/build/trial, on the file system of this checkout), for PROGRAM
# (or, with --lib, the shared library LIB, loaded by PROGRAM through
# LD_LIBRARY_PATH), runs PROGRAM ARGS and reads FilePmdMapped (plus
# ShmemPmdMapped) of the file from /proc/PID/smaps, for:
#   original   a cp of the file as it is
#   rewritten  elfthp-align -o of it (the rewrite writes huge folios)
#   cp         a cp of the rewritten file (copy_file_range: small folios)
#   cold       the rewritten file after fsync + POSIX_FADV_DONTNEED
#   warmed     the same after elfthp-align --warm
#   orig+warm  the original after elfthp-align --warm (huge folios where
#              it is congruent; a base the loader does not align maps none)
# The program is held at its exit (strace delays exit_group) so that its
# mappings can be read; its output is discarded.  Needs strace, python3;
# root only for files it cannot otherwise read.
set -u
TOOL=${ELFTHP_ALIGN:-$(cd "$(dirname "$0")/.." && pwd)/elfthp-align}
dir=$(cd "$(dirname "$0")" && pwd)/build/trial
lib=""
while :; do
	case ${1:-} in
	--dir) dir=$2; shift 2 ;;
	--lib) lib=$2; shift 2 ;;
	*) break ;;
	esac
done
[ $# -ge 1 ] || { echo "usage: $0 [--dir DIR] [--lib LIB] PROGRAM [ARGS...]" >&2; exit 2; }
prog=$1; shift
subject=${lib:-$prog}
name=$(basename "$subject")
rm -rf "$dir"; mkdir -p "$dir"/{orig,new,cp,ow} || exit 2

drop() {
	python3 -c 'import os, sys
fd = os.open(sys.argv[1], os.O_RDONLY)
os.fsync(fd)
os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)' "$1"
}

# measure D ARGS...: run the program with the file from D; "base KB".
measure() {
	local d=$1 run=$prog spid pid="" i base kb; shift
	local env=()
	if [ -n "$lib" ]; then env=(env "LD_LIBRARY_PATH=$d"); else run=$d/$name; fi
	"${env[@]}" strace -f -o /dev/null -e trace=exit_group \
	    -e inject=exit_group:delay_enter=4000000 "$run" "$@" >/dev/null 2>&1 &
	spid=$!
	for i in $(seq 100); do
		sleep 0.1
		pid=$(pgrep -P "$spid" | head -1)
		# exit_group (231), held by strace, in any thread (Go exits from one).
		[ -n "$pid" ] && grep -qs '^231 ' /proc/"$pid"/task/*/syscall && break
	done
	read -r base kb < <(awk -v f="$d/$name" '
	    /^[0-9a-f]+-/ { cur = ($NF == f); if (cur && !base) { split($1, a, "-"); base = a[1] } next }
	    cur && /^(File|Shmem)PmdMapped:/ { kb += $2 }
	    END { print (base ? base : "-"), kb + 0 }' "/proc/$pid/smaps" 2>/dev/null)
	[ -n "$pid" ] && kill -KILL "$pid" 2>/dev/null
	kill -KILL "$spid" 2>/dev/null
	wait "$spid" 2>/dev/null
	echo "base 0x$base FilePmdMapped $kb kB"
}

cp "$subject" "$dir/orig/$name"
"$TOOL" -q -o "$dir/new/$name" "$subject" || exit 2
cp "$dir/new/$name" "$dir/cp/$name"
cp "$subject" "$dir/ow/$name"
windows=$("$TOOL" --report --format json "$subject" | python3 -c 'import json, sys
o = json.loads(sys.stdin.readline())
print(sum(s["windows_after"] for s in o["segments"]))')
echo "$name: $(stat -c %s "$subject") -> $(stat -c %s "$dir/new/$name") bytes, $windows windows after the rewrite, on $(df -T "$dir" | awk 'NR == 2 { print $2 }')"
printf '  original:   '; measure "$dir/orig" "$@"
printf '  rewritten:  '; measure "$dir/new" "$@"
printf '  cp of it:   '; measure "$dir/cp" "$@"
drop "$dir/new/$name"
printf '  cold:       '; measure "$dir/new" "$@"
drop "$dir/new/$name"
printf '  --warm:     '; "$TOOL" --warm "$dir/new/$name"
printf '  warmed:     '; measure "$dir/new" "$@"
printf '  orig --warm: '; "$TOOL" --warm "$dir/ow/$name"
printf '  orig warmed: '; measure "$dir/ow" "$@"
