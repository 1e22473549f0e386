#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# SPDX-FileCopyrightText: 2026 the elfthp-align authors
# test_nextrun.sh BUILDDIR - every mode describes the next run, measured:
# `elfthp-align FILE` leaves the file huge in the page cache, whether it
# rewrote it or not, and --report's NOW is what a run then maps.
#
# On loop-mounted ext4 and XFS images, for four kinds of file, each a `cp`
# (small folios, or none cached: a reflink on XFS):
#   lld   lld-pie: the text must move (a rewrite)
#   gnu   gnu-pie: only p_align changes (GNU ld)
#   exec  gnu-nopie: ET_EXEC, congruent as linked: nothing to rewrite
#   lib   libbig.so, already rewritten elsewhere with --no-warm: an aligned
#         shared library, run through shared-main from its directory
# the checks are:
#   - --report's measured HUGE.NOW (own geometry) equals FilePmdMapped of a
#     run of the fixture (it touches every page of its text and data),
#     before and after elfthp-align; before, the layout says windows where
#     the run maps none (exec, lib): NOW from the layout alone fails here;
#   - negative control: --no-warm on the already-aligned ones changes
#     nothing and the run maps 0 kB;
#   - elfthp-align FILE exits 0, and the run maps windows x 2 MiB;
#   - a second elfthp-align changes nothing (bytes, inode, mtime, ctime)
#     and reads no data (read_bytes 0, cachestat the same);
#   - --warm -n changes nothing either: the same cachestat figures (also on
#     a cold copy, where it says what warming would read), bytes, mtime and
#     ctime.
# Every run uses setarch -R, positives and controls alike (see
# test_filesystems.sh).  Needs root and loop mounts; only a kernel refusal
# is a skip.
. "$(dirname "$0")/lib.sh"
need_builddir "$@"
need_tool

PMD_KB=2048
if [ "$(uname -m)" != x86_64 ] || [ "$(id -u)" -ne 0 ]; then
    skip "next run" "needs root on x86_64 (the fixtures checked are x86_64)"
    finish
fi
if [ "$(cat /sys/kernel/mm/transparent_hugepage/hpage_pmd_size 2>/dev/null)" != 2097152 ]; then
    skip "next run" "the kernel has no 2 MiB transparent huge pages"
    finish
fi
for t in mkfs.ext4 mkfs.xfs setarch python3; do
    command -v "$t" >/dev/null || { fail "$t installed" "make deps installs it"; finish; }
done
RUN=(setarch -R)

# cachestat FILE: the kernel's page-cache counts for the whole file
# (cachestat(2): cached, dirty, writeback, evicted, recently evicted).
cachestat() {
    python3 -c 'import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
rng = (ctypes.c_uint64 * 2)(0, 0)
cs = (ctypes.c_uint64 * 5)()
fd = os.open(sys.argv[1], os.O_RDONLY)
if libc.syscall(451, fd, rng, cs, 0) != 0:
    sys.exit("cachestat: " + os.strerror(ctypes.get_errno()))
print(" ".join(str(v) for v in cs))' "$1"
}

fingerprint() { echo "$(sha256sum < "$1") $(stat -c '%i %.9Y %.9Z %s' "$1")"; }

# jq_py EXPR JSON: a Python expression over the parsed line `o`.
jq_py() { python3 -c 'import json, sys; o = json.loads(sys.argv[2]); print(eval(sys.argv[1]))' "$1" "$2" 2>/dev/null; }

# report_now FILE: --report's measured HUGE.NOW in bytes into NOW, and
# what the layout alone would say (windows_now x 2 MiB) into LAYOUT_NOW.
report_now() {
    run_tool --report --format json "$1"
    NOW=$(jq_py '[g for g in o["geometries"] if g.get("measured")][0]["huge_bytes_now"]' "$T_OUT")
    LAYOUT_NOW=$(jq_py 'sum(s["windows_now"] for s in o["segments"]) * 2097152' "$T_OUT")
}

# unchanged DESC BEFORE FILE: the file and its page cache as BEFORE
# (fingerprint and cachestat).  Where only the cache differs and the
# kernel's eviction count moved, reclaim took pages meanwhile (or they were
# read back over its shadow entries): the tool's POSIX_FADV_DONTNEED
# leaves no shadow entries, so a run of the tool alone never moves it.
# That cannot be judged, and is a skip; the strace check still judges.
unchanged() {
    local now; now="$(fingerprint "$3") $(cachestat "$3")"
    [ "$2" = "$now" ] && return 0
    local a=($2) b=($now)
    if [ "${a[0]} ${a[2]} ${a[3]} ${a[4]} ${a[5]}" = "${b[0]} ${b[2]} ${b[3]} ${b[4]} ${b[5]}" ] &&
       [ "${b[9]}" != "${a[9]}" ]; then
        WHY="reclaim meanwhile: the kernel's eviction count went from ${a[9]} to ${b[9]}"; return 2
    fi
    WHY="$1: [$2] vs [$now]"; return 1
}

# touches_nothing ARGS...: the tool, traced, makes no call that changes a
# page cache or a file: no fadvise, fsync, fdatasync, write to a file,
# MADV_HUGEPAGE, MADV_COLLAPSE or MADV_POPULATE on a huge mapping.
touches_nothing() {
    strace -f -qq -o "$WORK/strace.out" -e trace=fadvise64,fsync,fdatasync,madvise,pwrite64,rename \
        "$TOOL" "$@" > /dev/null 2>&1
    local bad; bad=$(grep -E 'fadvise64|fsync|fdatasync|MADV_HUGEPAGE|MADV_COLLAPSE|pwrite64|rename' "$WORK/strace.out")
    [ -z "$bad" ] && return 0
    WHY="it called: $(head -3 <<< "$bad" | tr '\n' ' ')"; return 1
}

# measured KIND FILE MAIN: FilePmdMapped (kB) of FILE in a run of MAIN.
measured() {
    run_pmd "$2" "${RUN[@]}" "$3" || { fail "$1: the fixture runs" "$WHY"; echo x; return; }
    [ "$RUN_OUT" = "$EXPECT_OUT" ] || fail "$1: prints what the original prints" "[$RUN_OUT]"
    echo "$RUN_KB"
}

same_text() { [ "$2" = "$3" ] && return 0; WHY="$1: [$2] vs [$3]"; return 1; }

# now_matches DESC FILE MAIN: --report NOW = a run's FilePmdMapped.
now_matches() {
    local desc=$1 kb
    report_now "$2"
    kb=$(measured "$desc" "$2" "$3")
    assert "$desc: --report NOW ($NOW B) = FilePmdMapped of a run ($kb kB)" \
        equals "NOW" "$NOW" "$((kb * 1024))"
}

# touches_nothing_but_reclaimed FILE EV RF: touches_nothing FILE, where it
# did only because reclaim took part of a window since EV and RF (re-warming it is
# the command's job): a skip.
touches_nothing_but_reclaimed() {
    touches_nothing "$1" && return 0
    reclaimed "$1" "$2" "$3" && { WHY="reclaim took pages of it meanwhile: $WHY"; return 2; }
    return 1
}

# evicted FILE: pages of FILE the kernel has reclaimed (cachestat's
# nr_evicted: shadow entries, which POSIX_FADV_DONTNEED never leaves).
# A page read back consumes its shadow entry, so reclaim followed by a
# read leaves the count where it was: refaults (the host's file pages
# read back after reclaim, /proc/vmstat) is the second witness.
evicted() { cachestat "$1" | cut -d' ' -f4; }
refaults() { awk '$1 == "workingset_refault_file" { print $2 }' /proc/vmstat; }
# reclaimed FILE EV RF: reclaim took pages since EV and RF were read.
reclaimed() { [ "$(evicted "$1")" != "$2" ] || [ "$(refaults)" -gt "$3" ]; }

# runs_huge DESC FILE MAIN WANT: a run of MAIN maps WANT kB of FILE.  This
# kind of machine runs a DAMON pageout scheme that can reclaim a folio
# moments after it was made: where the run maps less and the kernel
# evicted pages of FILE meanwhile, that is reclaim, not the tool, and
# elfthp-align runs once more (what the timer of a real host does) before
# the one measurement that counts.
runs_huge() {
    local ev kb rf
    ev=$(evicted "$2") rf=$(refaults)
    kb=$(measured "$1" "$2" "$3")
    if [ "$kb" != "$4" ] && reclaimed "$2" "$ev" "$rf"; then
        echo "# $1: $kb kB; the kernel reclaimed pages of it meanwhile: elfthp-align again"
        "$TOOL" -q "$2"
        kb=$(measured "$1" "$2" "$3")
    fi
    kb_is "$1" "$kb" "$4"
}

# reads_nothing FILE EV RF: the last run_tool's page_cache says it read
# and made nothing; where it did, and reclaim took pages since EV and RF
# were read, re-warming the window was right: a skip, not a pass.
reads_nothing() {
    local got; got=$(jq_py 'o["page_cache"]["read_bytes"], o["page_cache"]["made_huge"]' "$T_OUT")
    [ "$got" = "(0, 0)" ] && return 0
    if reclaimed "$1" "$2" "$3"; then
        WHY="reclaim took pages of it meanwhile ($got read, made)"; return 2
    fi
    WHY="read_bytes, made_huge = $got: $T_OUT"; return 1
}

# one_case FS KIND SRC MAINSRC: the checks above on a cp of SRC in its own
# directory of the mount (MAINSRC: the program to copy beside it, or "").
one_case() {
    local fs=$1 kind=$2 src=$3 mainsrc=$4 dir f main want before d ev rf
    dir=$M/$kind; mkdir -p "$dir"
    f=$dir/$(basename "$src")
    cp "$src" "$f" && chmod 755 "$f"
    main=$f
    if [ -n "$mainsrc" ]; then main=$dir/$(basename "$mainsrc"); cp "$mainsrc" "$main"; fi
    d="$fs: $kind"

    now_matches "$d: cp, before" "$f" "$main"
    if [ "$kind" = exec ] || [ "$kind" = lib ]; then
        assert "$d: the layout alone would say huge (so NOW above is measured)" \
            test "$LAYOUT_NOW" -gt 0
        before=$(fingerprint "$f")
        run_tool --no-warm "$f"
        assert "$d: --no-warm exits 0" tool_rc 0
        assert "$d: --no-warm changes nothing" same_text "fingerprint" "$before" "$(fingerprint "$f")"
        assert "$d: negative control: after --no-warm the run maps 0 kB" \
            kb_is "$d" "$(measured "$d" "$f" "$main")" 0
    fi

    run_tool "$f"
    assert "$d: elfthp-align exits 0" tool_rc 0
    echo "# $T_OUT"
    ev=$(evicted "$f") rf=$(refaults)    # reclaim from here on is the host's
    count_eligible "$f"; want=$((ELIG_W * PMD_KB))
    assert "$d: has windows" test "$want" -gt 0
    assert "$d: elfthp-align, then the run maps windows x 2 MiB" \
        runs_huge "$d" "$f" "$main" "$want"
    now_matches "$d: after elfthp-align" "$f" "$main"
    report_now "$f"
    assert "$d: --report NOW after = windows x 2 MiB" equals NOW "$NOW" "$((want * 1024))"

    before="$(fingerprint "$f") $(cachestat "$f")"
    run_tool --format json "$f"
    assert "$d: a second elfthp-align exits 0" tool_rc 0
    assert "$d: a second elfthp-align reads no data" reads_nothing "$f" "$ev" "$rf"
    assert "$d: a second elfthp-align changes nothing (bytes, inode, times, cachestat)" \
        unchanged "state" "$before" "$f"
    assert "$d: a second elfthp-align, traced, touches nothing" \
        touches_nothing_but_reclaimed "$f" "$ev" "$rf"
    run_tool --warm -n --format json "$f"
    assert "$d: --warm -n exits 0 and finds every window huge" equals "status,huge" \
        "$T_RC $(jq_py 'o["status"], o["huge_before"] == o["windows"]' "$T_OUT")" "0 ('ready', True)"
    assert "$d: --warm -n changes nothing (bytes, inode, times, cachestat)" \
        unchanged "state" "$before" "$f"
    assert "$d: --warm -n, traced, touches nothing" touches_nothing --warm -n "$f"
    assert "$d: --report, traced, touches nothing" touches_nothing --report "$f"
}

# cold_look FS: --warm -n on a cold aligned copy reads nothing, says what
# warming would do; --warm then does it.
cold_look() {
    local fs=$1 f=$M/cold/prog before w
    mkdir -p "$M/cold"
    cp "$EXEC" "$f"
    drop_cache "$f"
    before="$(fingerprint "$f") $(cachestat "$f")"
    run_tool --warm -n --format json "$f"
    w=$(jq_py 'o["windows"]' "$T_OUT")
    # fadvise cannot drop folios still in another CPU's LRU batch: some
    # windows may be cached (small, or huge) rather than cold.
    assert "$fs: cold copy: --warm -n: every window huge or would be made huge" \
        equals "huge+would,look_only,states" \
        "$(jq_py 'o["made_huge"] + o["huge_before"], o["look_only"], len(o["window_states"])' "$T_OUT")" \
        "($w, True, $w)"
    echo "# $T_OUT"
    assert "$fs: cold copy: --warm -n reads nothing (cachestat, bytes, times the same)" \
        unchanged "state" "$before" "$f"
    assert "$fs: cold copy: --warm -n, traced, touches nothing" touches_nothing --warm -n "$f"
    run_tool --warm -n "$f"
    assert "$fs: cold copy: --warm -n text lists each window" equals "window lines" \
        "$(grep -c '^  window at file offset 0x[0-9a-f]*: ' <<< "$T_OUT")" "$w"
    run_tool --warm "$f"
    assert "$fs: cold copy: --warm then makes them huge" tool_rc 0
}

fixture_line lld-pie && LLD=$BUILD/$FX_FILE
fixture_line gnu-pie && GNU=$BUILD/$FX_FILE
fixture_line gnu-nopie && EXEC=$BUILD/$FX_FILE
fixture_line shared && LIB=$BUILD/$FX_FILE && LIBMAIN=$BUILD/$FX_MAIN
EXPECT_OUT=$("$LLD")
mkdir -p "$WORK/aligned"
"$TOOL" -q --no-warm -o "$WORK/aligned/libbig.so" "$LIB" ||
    fail "libbig.so aligned with --no-warm" "exit $?"

for fs in ext4 xfs; do
    M=$WORK/mnt-$fs
    mount_image "$fs" "$M"; rc=$?
    if [ $rc -eq 2 ]; then skip "$fs" "$WHY"; continue; fi
    [ $rc -eq 0 ] || { fail "$fs image" "$WHY"; continue; }
    one_case "$fs" lld "$LLD" ""
    one_case "$fs" gnu "$GNU" ""
    one_case "$fs" exec "$EXEC" ""
    one_case "$fs" lib "$WORK/aligned/libbig.so" "$LIBMAIN"
    cold_look "$fs"
    unmount "$M"
done
finish
