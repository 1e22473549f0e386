#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# SPDX-FileCopyrightText: 2026 the elfthp-align authors
# test_nosync.sh BUILDDIR - what is fsynced, and when.
#
# strace counts the fsync calls: in place, the file and the directory are
# synced unless --no-sync; -o writes a new file as cp does, unsynced
# unless --sync.  Every variant writes the same bytes, congruent and
# runnable; --sync and --no-sync exclude each other and are refused
# outside rewriting.
. "$(dirname "$0")/lib.sh"
need_builddir "$@"
need_tool

if ! command -v strace >/dev/null; then
    skip "--no-sync" "strace not installed"
    finish
fi
fixture_line lld-pie || { skip "--no-sync" "no lld-pie fixture"; finish; }
SRC="$BUILD/$FX_FILE"
cp "$SRC" "$WORK/durable" && cp "$SRC" "$WORK/fast"

fsyncs() {	# fsyncs LOG: fsync and fdatasync calls that returned
    grep -cE '^([0-9]+ +)?f(data)?sync\(' "$1"
}

# LeakSanitizer cannot run under ptrace (make check SANITIZE=1).
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
strace -f -o "$WORK/durable.log" -e trace=fsync,fdatasync "$TOOL" "$WORK/durable" >/dev/null
strace -f -o "$WORK/fast.log" -e trace=fsync,fdatasync "$TOOL" --no-sync "$WORK/fast" >/dev/null
rc=$?
[ "$rc" -eq 0 ] && pass "--no-sync under strace exits 0" || fail "--no-sync under strace exits 0" "rc $rc"
n=$(fsyncs "$WORK/durable.log")
if [ "$n" -ge 2 ]; then pass "default: file and directory are fsynced ($n calls)"
else fail "default: file and directory are fsynced" "$n fsync calls"; fi
n=$(fsyncs "$WORK/fast.log")
if [ "$n" -eq 0 ]; then pass "--no-sync: no fsync"
else fail "--no-sync: no fsync" "$n fsync calls"; fi
if cmp -s "$WORK/durable" "$WORK/fast"; then pass "--no-sync writes the same bytes"
else fail "--no-sync writes the same bytes" "outputs differ"; fi
assert "--no-sync output is congruent" check_congruence "$WORK/fast"
assert "--no-sync output runs like the original" run_same "$SRC" "$WORK/fast"
run_tool --check --no-sync "$WORK/fast"
if [ "$T_RC" -eq 2 ] && [ -n "$T_ERR" ]; then pass "--no-sync is refused outside rewriting"
else fail "--no-sync is refused outside rewriting" "rc=$T_RC err=[$T_ERR]"; fi

# -o: no fsync unless --sync.
strace -f -o "$WORK/o.log" -e trace=fsync,fdatasync "$TOOL" -o "$WORK/o.out" "$SRC" >/dev/null
strace -f -o "$WORK/os.log" -e trace=fsync,fdatasync "$TOOL" --sync -o "$WORK/os.out" "$SRC" >/dev/null
assert "-o: no fsync" equals "fsync calls" "$(fsyncs "$WORK/o.log")" 0
n=$(fsyncs "$WORK/os.log")
if [ "$n" -ge 2 ]; then pass "-o --sync: file and directory are fsynced ($n calls)"
else fail "-o --sync: file and directory are fsynced" "$n fsync calls"; fi
assert "-o and -o --sync write the same bytes" same_file "$WORK/o.out" "$WORK/os.out"
assert "-o writes what in place writes" same_file "$WORK/durable" "$WORK/o.out"
run_tool --sync --no-sync "$WORK/fast"
if [ "$T_RC" -eq 2 ] && [ -n "$T_ERR" ]; then pass "--sync with --no-sync is refused"
else fail "--sync with --no-sync is refused" "rc=$T_RC err=[$T_ERR]"; fi
run_tool --warm --sync "$WORK/fast"
if [ "$T_RC" -eq 2 ] && [ -n "$T_ERR" ]; then pass "--sync is refused outside rewriting"
else fail "--sync is refused outside rewriting" "rc=$T_RC err=[$T_ERR]"; fi
finish
