#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# SPDX-FileCopyrightText: 2026 the elfthp-align authors
# hugepage-trial.sh [--lib LIB] PROGRAM [ARGS...]
#
# Manual trial on a real binary: copies PROGRAM (or, with --lib, the
# shared library LIB, loaded by PROGRAM through LD_LIBRARY_PATH) to a
# tmpfs mounted with huge=always, once as it is and once rewritten by
# elfthp-align, runs each, and prints for the file: the load base, whether
# it is 2 MiB-aligned, and ShmemPmdMapped from /proc/PID/smaps.  The
# program is held at exit (strace delays exit_group) so its mappings can
# be read; its output is discarded.  Needs root (mount) and strace.
set -u
TOOL=${ELFTHP_ALIGN:-$(cd "$(dirname "$0")/.." && pwd)/elfthp-align}
lib=""
if [ "${1:-}" = --lib ]; then lib=$2; shift 2; fi
prog=$1; shift

mnt=$(mktemp -d)
mount -t tmpfs -o huge=always,size=4G tmpfs "$mnt" || exit 2
trap 'umount "$mnt"; rmdir "$mnt"' EXIT
mkdir "$mnt/orig" "$mnt/new"
subject=${lib:-$prog}
name=$(basename "$subject")
cp "$subject" "$mnt/orig/$name"
"$TOOL" -o "$mnt/new/$name" "$subject" || exit 2

# measure DIR: run from DIR, print "base aligned ShmemPmdMapped-kB".
measure() {
	local dir=$1 run=$prog out
	local env=()
	if [ -n "$lib" ]; then env=(env "LD_LIBRARY_PATH=$dir"); else run=$dir/$name; fi
	out=$(mktemp)
	"${env[@]}" strace -f -o /dev/null -e trace=exit_group \
	    -e inject=exit_group:delay_enter=3000000 "$run" "$@" >/dev/null 2>&1 &
	local spid=$! pid="" i
	for i in $(seq 100); do
		sleep 0.1
		pid=$(pgrep -P "$spid" | head -1)
		[ -n "$pid" ] && grep -q "$dir/$name" "/proc/$pid/maps" 2>/dev/null && break
	done
	sleep 1.5	# let it reach exit_group
	local base kb al
	read -r base kb < <(awk -v f="$dir/$name" '
	    /^[0-9a-f]+-/ { cur = ($NF == f); if (cur && !base) { split($1, a, "-"); base = a[1] } }
	    cur && /^ShmemPmdMapped:/ { kb += $2 }
	    END { print base, kb + 0 }' "/proc/$pid/smaps")
	al=not-aligned
	[ -n "$base" ] && [ $((16#$base % 2097152)) -eq 0 ] && al=2MiB-aligned
	echo "base 0x$base $al ShmemPmdMapped $kb kB"
	wait "$spid" 2>/dev/null
	rm -f "$out"
}
echo "$name: file $(stat -c %s "$subject") -> $(stat -c %s "$mnt/new/$name") bytes"
printf '  original:  '; measure "$mnt/orig" "$@"
printf '  rewritten: '; measure "$mnt/new" "$@"
