#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# SPDX-FileCopyrightText: 2026 the elfthp-align authors
# test_measure.sh BUILDDIR - a measurement that failed is an error, never a
# verdict about huge pages (issue 19).
#
#   - ulimit -n from 4 up: --warm on a file whose windows the tool makes
#     huge without a limit (the control), and --host on a writable
#     directory.  Each run either says what the unlimited run says, or
#     exits 2 naming "Too many open files" and what it was reading; never
#     "no huge page" or a probe of 0 bytes.  The reads that must be seen
#     failing: hpage_pmd_size and /proc/PID/maps (--warm), the probe's
#     /proc/self/smaps (--host).  The tool before this change printed
#     "5 no huge page could be allocated" (exit 1) and "PMD-mapped 0B after
#     a write" (exit 0).
#   - ulimit -v from 6000 kB up: the same, with "Cannot allocate memory"
#     and the mmap named ("not probed (mmap: ...)" in --host).
#   - a file truncated while --warm reads it (the test hook
#     ELFTHP_TEST_TRUNCATE_WHILE_WARMING of build/hooks/elfthp-align cuts it
#     before the first window is read, every time): exit 2, "changed while
#     being warmed", no "Bad address" (the tool before: exit 1, "2 cannot
#     be read: Bad address; 8.0MiB read").
# The file's bytes never change (but where the test truncates it).
. "$(dirname "$0")/lib.sh"
need_builddir "$@"
need_tool

HOOKED=${ELFTHP_ALIGN_HOOKED:-$REPO_ROOT/build/hooks/elfthp-align}
FX=""
for name in lld-pie gnu-pie; do
    if fixture_line "$name"; then FX=$BUILD/$FX_FILE; break; fi
done
if [ -z "$FX" ]; then
    skip "failed measurements" "neither lld-pie nor gnu-pie was built"
    finish
fi
ASAN=no
grep -qa __asan_init "$TOOL" && ASAN=yes

# A rewritten copy: its windows can be made huge.
R=$WORK/rewritten
run_tool -o "$R" "$FX"
if [ "$T_RC" -ne 0 ]; then
    fail "rewrite of $(basename "$FX")" "$(tool_said)"
    finish
fi

# cold NAME: a fresh copy of R at $WORK/NAME with small folios in the page
# cache (dropped, then read with read()): --warm must drop and read it.
cold() {
    C=$WORK/$1
    cp "$R" "$C" && python3 - "$C" <<'EOF' && cat "$C" > /dev/null
import os, sys
fd = os.open(sys.argv[1], os.O_RDONLY)
os.fsync(fd)
os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
EOF
}

# limited LIMIT VALUE ARGS...: the tool under ulimit -LIMIT VALUE.
limited() {
    local lim=$1 val=$2; shift 2
    ( ulimit "-$lim" "$val" && exec "$TOOL" "$@" ) \
        > "$WORK/.l.out" 2> "$WORK/.l.err" < /dev/null
    T_RC=$?
    T_OUT=$(cat "$WORK/.l.out") T_ERR=$(cat "$WORK/.l.err")
}

# The controls: without a limit, every window is made huge, and the probe
# maps its 4 MiB.
cold control
run_tool --warm "$C"
CONTROL_WARM=$T_OUT
if [ "$T_RC" -eq 0 ] && grep -q "5 of 5 windows huge (0 already, 5 made huge)" <<< "$T_OUT"; then
    pass "control: --warm without a limit makes every window huge"
else
    skip "control: --warm without a limit makes every window huge" \
        "the kernel gave no huge page here: $(tool_said)"
fi
run_tool --host "$WORK"
if [ "$T_RC" -eq 0 ] && grep -q "PMD-mapped 4.0MiB after a write" <<< "$T_OUT"; then
    pass "control: --host without a limit probes 4.0MiB PMD-mapped"
else
    skip "control: --host without a limit probes 4.0MiB PMD-mapped" \
        "the kernel gave no huge page here: $(tool_said)"
fi

# honest MODE LIMIT VALUE ERRNO_TEXT: the last run under a limit either
# failed naming the errno (exit 2, nothing on stdout that looks like a
# verdict), or said what the control says.  SEEN collects what it named.
SEEN=""
honest() {
    local mode=$1 want=$4
    if [ "$T_RC" -eq 2 ]; then
        if ! grep -q "$want" <<< "$T_ERR"; then
            WHY="exit 2 without '$want': $T_ERR"; return 1
        fi
        if grep -q "no huge page\|fragmented\|PMD-mapped 0B" <<< "$T_OUT"; then
            WHY="a verdict from a failed look: $T_OUT"; return 1
        fi
        SEEN+="$T_ERR"$'\n'
        return 0
    fi
    if [ "$mode" = warm ] && [ "$T_RC" -eq 0 ] &&
       grep -q "5 of 5 windows huge" <<< "$T_OUT"; then
        return 0
    fi
    if [ "$mode" = host ] && [ "$T_RC" -eq 0 ] &&
       grep -q "PMD-mapped 4.0MiB after a write" <<< "$T_OUT"; then
        return 0
    fi
    WHY="exit $T_RC: $T_OUT $T_ERR"; return 1
}

saw() {
    grep -qF "$1: " <<< "$SEEN" && return 0
    WHY="no run named $1 (named: $SEEN)"; return 1
}

for n in 4 5 6 7 8; do
    cold nofile
    limited n "$n" --warm "$C"
    assert "--warm under ulimit -n $n: an error naming EMFILE, or the control's result" \
        honest warm n "$n" "Too many open files"
    assert "--warm under ulimit -n $n: the file's bytes are unchanged" same_file "$R" "$C"
done
assert "--warm under ulimit -n: hpage_pmd_size failed and was named" \
    saw /sys/kernel/mm/transparent_hugepage/hpage_pmd_size
assert "--warm under ulimit -n: /proc/PID/maps failed and was named" saw /proc/PID/maps
SEEN=""
for n in 4 5 6; do
    limited n "$n" --host "$WORK"
    assert "--host under ulimit -n $n: an error naming EMFILE, or the control's result" \
        honest host n "$n" "Too many open files"
done
# The probe's look opens /proc/self/pagemap (PAGEMAP_SCAN, Linux 6.7), or
# /proc/self/smaps where the kernel has no PAGEMAP_SCAN.
saw_look() { saw /proc/self/pagemap 2>/dev/null || saw /proc/self/smaps; }
assert "--host under ulimit -n: the probe's look (/proc/self/pagemap or smaps) failed and was named" \
    saw_look

if [ "$ASAN" = yes ]; then
    skip "ulimit -v" "AddressSanitizer reserves terabytes of address space at start"
else
    SEEN=""
    for v in 6000 8000 10000 14000 20000 30000; do
        cold vmem
        limited v "$v" --warm "$C"
        assert "--warm under ulimit -v $v: an error naming ENOMEM, or the control's result" \
            honest warm v "$v" "Cannot allocate memory"
        assert "--warm under ulimit -v $v: the file's bytes are unchanged" same_file "$R" "$C"
    done
    assert "--warm under ulimit -v: the mmap failed and was named" saw mmap
    SEEN=""
    for v in 6000 8000 10000 14000 20000; do
        limited v "$v" --host "$WORK"
        assert "--host under ulimit -v $v: an error naming ENOMEM, or the control's result" \
            honest host v "$v" "Cannot allocate memory"
    done
    assert "--host under ulimit -v: the probe's mmap failed and was named" saw mmap
    limited v 10000 --host "$WORK"
    assert "--host under ulimit -v 10000: 'not probed (mmap: ...)' on stdout" \
        equals "probe line" "$(grep -c "not probed (mmap: Cannot allocate memory)" <<< "$T_OUT")" 1
fi

# Truncated while warmed.
if [ ! -x "$HOOKED" ]; then
    fail "the tool with test hooks exists" "$HOOKED not found (make build/hooks/elfthp-align)"
    finish
fi
truncated() {
    cold shrinks
    ( export ELFTHP_TEST_RESTORE_AFTER_READ
      ELFTHP_TEST_TRUNCATE_WHILE_WARMING=$((8 << 20)) exec "$HOOKED" --warm -j 1 "$@" \
        "$WORK/shrinks" ) > "$WORK/.t.out" 2> "$WORK/.t.err" < /dev/null
    T_RC=$?
    T_OUT=$(cat "$WORK/.t.out") T_ERR=$(cat "$WORK/.t.err")
}
truncated
assert "truncated while warmed: exit 2" tool_rc 2
assert "truncated while warmed: the message says so, with the sizes" \
    equals "message" "$(grep -c "shrinks: changed while being warmed ([0-9]* bytes when opened, 8388608 now)" <<< "$T_ERR")" 1
assert "truncated while warmed: no raw EFAULT" \
    equals "'Bad address' lines" "$(grep -c "Bad address" <<< "$T_OUT$T_ERR")" 0
assert "truncated while warmed: no count of windows not huge" \
    equals "verdict lines about shrinks" "$(grep -c "shrinks:.* not;" <<< "$T_OUT")" 0
truncated --format json
assert "truncated while warmed, JSON: status error with the message" \
    equals "error lines" "$(grep -c '"status":"error","message":"changed while being warmed' <<< "$T_OUT")" 1

# Truncated and put back (size and mtime) before they are looked at again,
# as a writer within one timestamp tick leaves them: the EFAULT is still
# the file's change, never "madvise(MADV_POPULATE_READ): Bad address".
ELFTHP_TEST_RESTORE_AFTER_READ=1 truncated
assert "truncated and put back: exit 2" tool_rc 2
assert "truncated and put back: the message says it changed" \
    equals "message" "$(grep -c "shrinks: changed while being warmed" <<< "$T_ERR")" 1
assert "truncated and put back: no raw EFAULT" \
    equals "'Bad address' lines" "$(grep -c "Bad address" <<< "$T_OUT$T_ERR")" 0

# Without the hook's truncation the same file is warmed: the negative control.
cold shrinks
( exec "$HOOKED" --warm "$WORK/shrinks" ) > "$WORK/.t.out" 2>&1
assert "control: the hooked tool without the variable warms the same file" \
    equals "output" "$(grep -c "5 of 5 windows huge" "$WORK/.t.out")" 1

finish
