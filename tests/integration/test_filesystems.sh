#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# SPDX-FileCopyrightText: 2026 the elfthp-align authors
# test_filesystems.sh BUILDDIR - huge text on the file systems binaries
# really live on: loop-mounted ext4, XFS and btrfs images made here.
#
# The kernel maps file text with a PMD only where the page cache holds a
# PMD-sized folio, so the figure checked is FilePmdMapped from
# /proc/PID/smaps of the running fixture, summed over the file's mappings,
# against the window count readelf gives (count_eligible): the fixture
# touches every window (64 functions 128 KiB apart, and it reads all of its
# 4 MiB blob).  On ext4 and XFS, for lld-pie (the text moves), gnu-pie
# (only p_align changes) and libbig.so (GNU ld, loaded by ld.so):
#   - the rewrite (-o, and in place) runs huge at once: FilePmdMapped =
#     windows x 2 MiB;
#   - negative controls: a cp of the rewritten file gets 0; the original
#     gets 0 even after --warm (it exits 1 and says "not aligned"), which
#     gives it the cache state of the rewrite (huge folios);
#   - except libbig.so, whose original, warmed, can map huge as well (GNU
#     ld layout already congruent, and the kernel may align ld.so's mapping
#     of it): the output says what it measured, and its positive cases
#     must also have p_align >= 2 MiB (readelf), what the rewrite adds;
#   - the page cache dropped (fsync + POSIX_FADV_DONTNEED): the cold run
#     gets 0; --warm exits 0 and the run is huge again; a second --warm
#     finds every window huge and reads 0 bytes; --warm never writes (same
#     bytes, mtime and ctime);
#   - a cp warmed with --warm is huge;
#   - busy: --warm on a file whose small folios a running process maps
#     exits 1, names the pid, and leaves the cache as it was;
#   - --pid says why: small folios (cold), huge (warmed), replaced,
#     THP disabled by prctl (a negative control for the smaps figure);
#   - --host: its JSON keys, and its verdict for the mount agrees with
#     what was measured there;
#   - a 64 MiB text: every one of its 31 windows huge right after -o, and
#     after --warm of it cold.
# On btrfs (the negative control for the file system): the rewrite runs
# but gets 0, --warm exits 1 naming btrfs, --pid and --host say so.
#
# Under load a positive case whose huge folios the machine reclaimed,
# split or could not give between the step and the run is tried again,
# the step included (retry_disturbed in lib.sh: only while the kernel's
# counters of these moved, 3 tries at most); the 0 kB controls never are.
# Every run uses setarch -R, the negative controls and the cases they
# control alike: with ASLR a PIE base is 2 MiB-aligned once in 512 runs,
# and its congruent windows would then map.  The THP sysfs setting is not changed here (the kernel does not
# consult it for file text: see docs/runtime.md, HUGE PAGES AT RUN TIME).  Needs root, loop devices and
# each file system in the kernel: only a refusal by the kernel is a skip.
. "$(dirname "$0")/lib.sh"
need_builddir "$@"
need_tool


PMD_KB=2048
if [ "$(uname -m)" != x86_64 ]; then
    skip "file systems" "host is $(uname -m); the fixtures checked here are x86_64"
    finish
fi
if [ "$(id -u)" -ne 0 ]; then
    skip "file systems" "loop mounts need root"
    finish
fi
if [ "$(cat /sys/kernel/mm/transparent_hugepage/hpage_pmd_size 2>/dev/null)" != 2097152 ]; then
    skip "file systems" "the kernel has no 2 MiB transparent huge pages"
    finish
fi
for t in mkfs.ext4 mkfs.xfs mkfs.btrfs fincore setarch python3; do
    command -v "$t" >/dev/null ||
        { fail "$t installed" "make deps installs it"; finish; }
done

# want_kb FILE: windows x 2 MiB, from readelf.
want_kb() { count_eligible "$1"; echo $((ELIG_W * PMD_KB)); }

# Every program runs under the same runner, setarch -R: positive cases
# and negative controls are then compared under the same conditions, and
# no PIE base is 2 MiB aligned by the chance of ASLR.
RUN=(setarch -R)

# runs_kb DESC WANT FILE CMD...: ${RUN[@]} CMD --hold maps FILE with WANT
# kB of PMDs and prints what the fixture prints.  With GUARANTEE=yes (the
# original maps huge as well here, see shared_cases) FILE must also have
# p_align >= 2 MiB (check_p_align), which is what the rewrite adds.
# A positive case (WANT > 0) names in the array REDO the step that put
# FILE's windows in the page cache (the rewrite, --warm): a run that maps
# less while the machine took page cache meanwhile is tried again after
# that step (retry_disturbed); REDO is cleared after each call.
runs_kb() {
    local desc=$1 want=$2 file=$3 d=$1; shift 3
    RK_DESC=$desc RK_WANT=$want RK_FILE=$file RK_CMD=("$@") RUN_OUT=""
    if [ "${GUARANTEE:-no}" = yes ]; then
        d="$desc: FilePmdMapped = $want kB, and p_align >= 2 MiB (readelf) guarantees it"
    else
        d="$desc: FilePmdMapped = $want kB"
    fi
    if [ "$want" -gt 0 ]; then
        assert "$d" retry_disturbed run_kb_try
    else
        # Reclaim cannot make a run map more: a control is never retried.
        RETRY_TRY=1
        assert "$d" run_kb_try
    fi
    REDO=()
    [ "$RUN_OUT" = "$EXPECT_OUT" ] && pass "$desc: prints what the original prints" ||
        fail "$desc: prints what the original prints" "[$RUN_OUT] vs [$EXPECT_OUT]"
}
REDO=()

# run_kb_try: one try of runs_kb (RK_*): after the first, the step in REDO
# again; then the run and its figure.
run_kb_try() {
    if [ "$RETRY_TRY" -gt 1 ] && [ "${#REDO[@]}" -gt 0 ]; then
        "${REDO[@]}" || { WHY="again, ${REDO[*]}: $WHY"; return 1; }
    fi
    run_pmd "$RK_FILE" "${RUN[@]}" "${RK_CMD[@]}" || return 1
    if [ "${GUARANTEE:-no}" = yes ]; then
        kb_guaranteed "$RK_DESC" "$RUN_KB" "$RK_WANT" "$RK_FILE"
    else
        kb_is "$RK_DESC" "$RUN_KB" "$RK_WANT"
    fi
}

# The steps a positive case names in REDO; each sets WHY if it fails.
# redo_o OUT IN: -o OUT IN.  redo_in_place FILE ORIG: a new copy of ORIG
# at FILE, rewritten in place.  redo_warm FILE: --warm FILE, exit 0.
redo_o() { run_tool -o "$1" "$2"; tool_rc 0; }
redo_in_place() { cp "$2" "$1.new" && mv "$1.new" "$1" && run_tool "$1" && tool_rc 0; }
redo_warm() { run_tool --warm "$1"; tool_rc 0; }

# kb_guaranteed WHAT GOT WANT FILE: kb_is WHAT GOT WANT, and check_p_align FILE.
kb_guaranteed() { kb_is "$1" "$2" "$3" && check_p_align "$4"; }

# json_field JSON KEY: one top-level value of a JSON object.
json_field() {
    python3 -c 'import json, sys
v = json.loads(sys.argv[1])[sys.argv[2]]
print(json.dumps(v) if isinstance(v, (list, dict)) else v)' "$1" "$2" 2>/dev/null
}

# warm FILE: elfthp-align --warm --format json FILE; W_RC and W_JSON.
warm() {
    run_tool --warm --format json "$1"
    W_RC=$T_RC W_JSON=$T_OUT
}

# field_is DESC KEY WANT: a key of the last --warm's JSON.
field_is() {
    local got; got=$(json_field "$W_JSON" "$2")
    [ "$got" = "$3" ] && return 0
    WHY="$1: $2 = [$got], expected [$3]: $W_JSON"; return 1
}

# read_between LO HI: the last --warm's read_bytes lies in [LO, HI]
# (readahead for the last window may read the tail of the file too).
read_between() {
    local got; got=$(json_field "$W_JSON" read_bytes)
    [ -n "$got" ] && [ "$got" -ge "$1" ] && [ "$got" -le "$2" ] && return 0
    WHY="read_bytes $got not in [$1, $2]: $W_JSON"; return 1
}

# has_reason CODE: the last --warm's JSON lists that reason.
has_reason() {
    python3 -c 'import json, sys
o = json.loads(sys.argv[1])
sys.exit(0 if any(r["code"] == sys.argv[2] for r in o["reasons"]) else 1)' "$W_JSON" "$1" && return 0
    WHY="no reason '$1' in: $W_JSON"; return 1
}

fingerprint() { echo "$(sha256sum < "$1") $(stat -c '%i %.9Y %.9Z %s' "$1")"; }

fixture_line lld-pie && LLD=$BUILD/$FX_FILE
fixture_line gnu-pie && GNU=$BUILD/$FX_FILE
EXPECT_OUT=$("$LLD")
PAD64=""
if gcc -O2 -fPIE -fno-toplevel-reorder -DPAD=$((64 << 20)) -c \
       "$REPO_ROOT/tests/fixtures/pad_text.c" -o "$WORK/pad64.o" &&
   gcc -pie -fuse-ld=lld "$WORK/pad64.o" -o "$WORK/pad64"; then
    PAD64=$WORK/pad64
fi
rm -f "$WORK/pad64.o"

# --- the cases ----------------------------------------------------------

# rewrite_cases FS M: the rewrite alone gives huge text; cp gives none.
rewrite_cases() {
    local fs=$1 M=$2 w wg
    run_tool -o "$M/lld-o" "$LLD"
    assert "$fs: -o lld-pie exits 0" tool_rc 0
    w=$(want_kb "$M/lld-o")
    [ "$w" -gt 0 ] || fail "$fs: lld-pie has windows after the rewrite" "readelf counts none"
    REDO=(redo_o "$M/lld-o" "$LLD")
    runs_kb "$fs: -o lld-pie runs huge at once" "$w" "$M/lld-o" "$M/lld-o"
    cp "$M/lld-o" "$M/lld-cp"
    runs_kb "$fs: negative control: cp of the rewritten lld-pie" 0 "$M/lld-cp" "$M/lld-cp"
    cp "$LLD" "$M/lld-in"
    run_tool "$M/lld-in"
    assert "$fs: in place lld-pie exits 0" tool_rc 0
    REDO=(redo_in_place "$M/lld-in" "$LLD")
    runs_kb "$fs: in place lld-pie runs huge at once" "$w" "$M/lld-in" "$M/lld-in"
    # Only p_align changes (GNU ld): the data must still be written huge.
    cp "$GNU" "$M/gnu-in"
    run_tool "$M/gnu-in"
    assert "$fs: in place gnu-pie (header-only) exits 0" tool_rc 0
    assert "$fs: gnu-pie: only p_align changed" check_only_align_changed "$GNU" "$M/gnu-in"
    wg=$(want_kb "$M/gnu-in")
    REDO=(redo_in_place "$M/gnu-in" "$GNU")
    runs_kb "$fs: in place gnu-pie (header-only) runs huge at once" "$wg" "$M/gnu-in" "$M/gnu-in"
    run_tool -o "$M/gnu-o" "$GNU"
    REDO=(redo_o "$M/gnu-o" "$GNU")
    runs_kb "$fs: -o gnu-pie (header-only) runs huge at once" "$wg" "$M/gnu-o" "$M/gnu-o"
    cp "$GNU" "$M/gnu-orig"
    runs_kb "$fs: negative control: the original gnu-pie" 0 "$M/gnu-orig" "$M/gnu-orig"
    # The same cache state as the rewrite's (its windows in huge folios):
    # only the load base differs, 0x555555554000 under setarch -R.
    cp "$GNU" "$M/gnu-warm"
    run_tool --warm "$M/gnu-warm"
    echo "# $T_OUT"
    runs_kb "$fs: negative control: the original gnu-pie, warmed (huge folios, as the rewrite's)" 0 \
        "$M/gnu-warm" "$M/gnu-warm"
    shared_cases "$fs" "$M"
    many_windows_cases "$fs" "$M"
}

# many_windows_cases FS M: a 64 MiB text, whose first window lies in the
# first write: every window is one folio right after -o (XFS once made one
# of them small when a write began off a 2 MiB boundary).
many_windows_cases() {
    local fs=$1 M=$2 got
    [ -n "$PAD64" ] || { fail "$fs: 64 MiB text fixture" "not built"; return; }
    run_tool -o "$M/pad64" "$PAD64"
    assert "$fs: -o of a 64 MiB text exits 0" tool_rc 0
    assert "$fs: -o of a 64 MiB text: every window huge at once, --warm of it reads nothing" \
        retry_disturbed pad64_huge_at_once "$fs" "$M/pad64"
    # Cold, 31 windows in a row: readahead for one window reads the next.
    assert "$fs: --warm of the cold 64 MiB text makes every window huge" \
        retry_disturbed pad64_cold_warm "$fs" "$M/pad64"
    cp "$PAD64" "$M/pad64-orig"
    [ "$("$M/pad64")" = "$("$M/pad64-orig")" ] && pass "$fs: the 64 MiB program runs the same" ||
        fail "$fs: the 64 MiB program runs the same" "outputs differ"
}

# pad64_huge_at_once FS FILE: --warm finds every window huge and reads
# nothing (after the first try, -o again).
pad64_huge_at_once() {
    if [ "$RETRY_TRY" -gt 1 ]; then redo_o "$2" "$PAD64" || return 1; fi
    warm "$2"
    equals "huge_before/windows" "$(json_field "$W_JSON" huge_before)/$(json_field "$W_JSON" windows)" \
        "$(json_field "$W_JSON" windows)/$(json_field "$W_JSON" windows)" &&
        field_is "$1" read_bytes 0
}
# pad64_cold_warm FS FILE: dropped, then --warm makes every window huge.
pad64_cold_warm() {
    drop_cache "$2"
    warm "$2"
    field_is "$1" made_huge "$(json_field "$W_JSON" windows)"
}

# offsets_congruent FILE: every eligible PT_LOAD already has offset = vaddr
# (mod 2 MiB), as GNU ld lays them out: only p_align keeps the base from
# being guaranteed aligned.
offsets_congruent() {
    local i t o v p fs ms fl al
    while read -r i t o v p fs ms fl al; do
        [ "$t" = LOAD ] || continue
        case $fl in *W*) continue ;; esac
        [ "$(windows "$v" "$fs" "$TARGET")" -gt 0 ] || continue
        [ $(( (o - v) % TARGET )) -eq 0 ] || return 1
    done < <(elf_phdrs "$1")
    return 0
}

# shared_cases FS M: a GNU ld library, loaded by ld.so from the mount.
# The original, in the rewrite's cache state (--warm puts its windows in
# huge folios too) and run the same way, is the negative control.  But its
# layout is already congruent: whether it maps huge depends only on where
# ld.so's mapping of it lands, and the kernel may place a mapping of 2 MiB
# or more 2 MiB aligned (ext4 does; XFS did in some runs and not in
# others).  So the output says what it measured, and the positive cases
# must also show what the rewrite adds: p_align >= 2 MiB (GUARANTEE=yes),
# below that in the original.
shared_cases() {
    local fs=$1 M=$2 w GUARANTEE=no
    fixture_line shared || { skip "$fs: shared library" "fixture not built"; return; }
    mkdir -p "$M/lib" "$M/libcp" "$M/liborig"
    cp "$BUILD/$FX_MAIN" "$M/lib/" && cp "$BUILD/$FX_MAIN" "$M/libcp/" &&
        cp "$BUILD/$FX_MAIN" "$BUILD/$FX_FILE" "$M/liborig/"
    run_tool --warm "$M/liborig/$FX_FILE"
    echo "# $T_OUT"
    if ! run_pmd "$M/liborig/$FX_FILE" "${RUN[@]}" "$M/liborig/$FX_MAIN"; then
        fail "$fs: the original libbig.so runs" "$WHY"
    elif offsets_congruent "$M/liborig/$FX_FILE"; then
        echo "# NOTE $fs: the original libbig.so, warmed the same way, maps $RUN_KB kB with PMDs here:"
        echo "#   its GNU ld layout is already congruent, so it maps huge wherever its mapping lands"
        echo "#   2 MiB aligned; the rewritten copies must in addition have p_align >= 2 MiB"
        assert_not "$fs: the original libbig.so has p_align < 2 MiB (readelf): a huge mapping of it is chance" \
            check_p_align "$M/liborig/$FX_FILE"
        GUARANTEE=yes
    else
        assert "$fs: negative control: the original libbig.so, warmed the same way, maps no PMD" \
            kb_is "original libbig.so" "$RUN_KB" 0
    fi
    run_tool -o "$M/lib/$FX_FILE" "$BUILD/$FX_FILE"
    assert "$fs: -o libbig.so exits 0" tool_rc 0
    cp "$M/lib/$FX_FILE" "$M/libcp/"
    w=$(want_kb "$M/lib/$FX_FILE")
    REDO=(redo_o "$M/lib/$FX_FILE" "$BUILD/$FX_FILE")
    runs_kb "$fs: rewritten libbig.so runs huge at once" "$w" "$M/lib/$FX_FILE" "$M/lib/$FX_MAIN"
    GUARANTEE=no runs_kb "$fs: negative control: cp of the rewritten libbig.so" 0 "$M/libcp/$FX_FILE" "$M/libcp/$FX_MAIN"
    run_tool --warm "$M/libcp/$FX_FILE"
    assert "$fs: --warm libbig.so exits 0" tool_rc 0
    REDO=(redo_warm "$M/libcp/$FX_FILE")
    runs_kb "$fs: warmed libbig.so runs huge" "$w" "$M/libcp/$FX_FILE" "$M/libcp/$FX_MAIN"
}

# dropped_warm FS FILE W: FILE dropped from the page cache, --warm
# exits 0 and makes its W windows huge.
dropped_warm() {
    drop_cache "$2"
    warm "$2"
    rc_is "$W_RC" 0 && field_is "$1" made_huge "$3"
}
# second_warm FS FILE W: after a --warm (again, after the first try), a
# second --warm exits 0, finds the W windows huge and reads nothing.
second_warm() {
    if [ "$RETRY_TRY" -gt 1 ]; then redo_warm "$2" || return 1; fi
    warm "$2"
    rc_is "$W_RC" 0 && field_is "$1" huge_before "$3" && field_is "$1" read_bytes 0
}

# warm_cases FS M: cold runs, --warm, twice, never a write.
warm_cases() {
    local fs=$1 M=$2 w before after
    w=$(want_kb "$M/lld-o")
    drop_cache "$M/lld-o"
    runs_kb "$fs: after the page cache is dropped, the cold run" 0 "$M/lld-o" "$M/lld-o"
    # Before the drop: reading it (sha256sum) fills the cache, and XFS's
    # readahead, 2.5 MiB on a loop device, can make huge folios itself.
    before=$(fingerprint "$M/lld-o")
    assert "$fs: --warm of the dropped file exits 0, every window made huge" \
        retry_disturbed dropped_warm "$fs" "$M/lld-o" $((w / PMD_KB))
    assert "$fs: --warm says status ready" field_is "$fs" status ready
    assert "$fs: --warm read the windows, at most the file" read_between \
        $((w * 1024)) "$(stat -c %s "$M/lld-o")"
    REDO=(redo_warm "$M/lld-o")
    runs_kb "$fs: warmed lld-pie runs huge" "$w" "$M/lld-o" "$M/lld-o"
    assert "$fs: a second --warm exits 0, finds every window huge, reads nothing" \
        retry_disturbed second_warm "$fs" "$M/lld-o" $((w / PMD_KB))
    after=$(fingerprint "$M/lld-o")
    assert "$fs: --warm never writes (bytes, inode, mtime, ctime)" equals "fingerprint" "$after" "$before"
    warm "$M/lld-cp"
    assert "$fs: --warm of a cp exits 0" rc_is "$W_RC" 0
    REDO=(redo_warm "$M/lld-cp")
    runs_kb "$fs: warmed cp runs huge" "$w" "$M/lld-cp" "$M/lld-cp"
    cp "$LLD" "$M/lld-orig"
    warm "$M/lld-orig"
    assert "$fs: --warm of the original exits 1" rc_is "$W_RC" 1
    assert "$fs: --warm of the original: needs-rewrite" field_is "$fs" status needs-rewrite
    assert "$fs: --warm of the original says not aligned" has_reason not-aligned
    runs_kb "$fs: negative control: the warmed original" 0 "$M/lld-orig" "$M/lld-orig"
    run_tool --warm -r -q "$M"
    assert "$fs: --warm -r -q exits 1 (the original needs a rewrite)" tool_rc 1
    case $T_OUT in
        *"warmed "[0-9]*" files: "*) fail "$fs: --warm -r -q prints no summary" "$(tool_said)" ;;
        *) pass "$fs: --warm -r -q prints no summary" ;;
    esac
    run_tool --warm -r "$M"
    assert "$fs: --warm -r exits 1 (the original needs a rewrite)" tool_rc 1
    case $(printf '%s\n' "$T_OUT" | tail -n 1) in
        "warmed "[0-9]*" files: "*" need rewriting, "*) pass "$fs: --warm -r ends with a summary" ;;
        *) fail "$fs: --warm -r ends with a summary" "$(tool_said)" ;;
    esac
    run_tool --warm --page-size 16k "$M/lld-o"
    assert "$fs: --warm refuses --page-size" tool_rc 2
}

# busy_cache_kept FILE: --warm FILE (a process maps it) leaves as many
# bytes of it in the page cache as before.
busy_cache_kept() {
    local c0 c1
    c0=$(cached_bytes "$1")
    warm "$1"
    c1=$(cached_bytes "$1")
    equals "cached bytes" "$c1" "$c0"
}

# busy_cases FS M: small folios mapped by a running process stay.
busy_cases() {
    local fs=$1 M=$2 pids
    cp "$M/lld-o" "$M/busy"
    if ! hold_start "$WORK/busy.out" "$M/busy"; then fail "$fs: busy holder" "$WHY"; return; fi
    assert "$fs: --warm of a busy file leaves its cache as it was" \
        retry_disturbed busy_cache_kept "$M/busy"
    assert "$fs: --warm of a busy file exits 1" rc_is "$W_RC" 1
    assert "$fs: --warm of a busy file says busy" has_reason busy
    pids=$(python3 -c 'import json, sys
print(" ".join(str(p) for r in json.loads(sys.argv[1])["reasons"] for p in r.get("pids", [])))' "$W_JSON")
    case " $pids " in
        *" $HOLD_PID "*) pass "$fs: --warm names the busy pid" ;;
        *) fail "$fs: --warm names the busy pid" "pid $HOLD_PID not in [$pids]: $W_JSON" ;;
    esac
    assert "$fs: the busy process still maps no PMD" kb_is "busy" "$(pmd_kb "$HOLD_PID" "$M/busy")" 0
    hold_stop
}

# pid_why PID FILE: what --pid says of FILE: its status, or for a status
# with a reason (cannot-be-huge, partly-huge), the reason.
pid_why() {
    "$TOOL" --pid "$1" --format json | python3 -c 'import json, sys
for line in sys.stdin:
    o = json.loads(line)
    if o.get("file", "").startswith(sys.argv[1]):
        print(o["reason"] or o["status"]); break' "$(realpath "$2")"
}

# pid_huge FILE: FILE warmed (--warm, exit 0), then run: --pid says huge.
# The warm comes right before the run: the cache it made long before may
# have been reclaimed by other load since (retry_disturbed tells).
pid_huge() {
    local why
    redo_warm "$1" || return 1
    hold_start "$WORK/pid.out" "$1" || return 1
    why=$(pid_why "$HOLD_PID" "$1")
    hold_stop
    equals "why" "$why" huge
}

# pid_cases FS M: --pid says why, and THP disabled is a negative control.
pid_cases() {
    local fs=$1 M=$2
    cp "$M/lld-o" "$M/cold"
    hold_start "$WORK/pid.out" "$M/cold" || { fail "$fs: --pid holder" "$WHY"; return; }
    assert "$fs: --pid on a cold copy: small-folios" equals "why" "$(pid_why "$HOLD_PID" "$M/cold")" small-folios
    cp "$M/lld-o" "$M/cold.new" && mv "$M/cold.new" "$M/cold"
    assert "$fs: --pid after the file was replaced: replaced" equals "why" "$(pid_why "$HOLD_PID" "$M/cold")" replaced
    hold_stop
    assert "$fs: --pid on the warmed file: huge" retry_disturbed pid_huge "$M/lld-o"
    hold_start "$WORK/pid.out" python3 -c 'import ctypes, os, sys
ctypes.CDLL(None).prctl(41, 1, 0, 0, 0)     # PR_SET_THP_DISABLE
os.execv(sys.argv[1], sys.argv[1:])' "$M/lld-o" || { fail "$fs: THP-disabled holder" "$WHY"; return; }
    assert "$fs: negative control: THP disabled, warmed file maps no PMD" kb_is "prctl" "$(pmd_kb "$HOLD_PID" "$M/lld-o")" 0
    assert "$fs: --pid with THP disabled: thp-disabled" equals "why" "$(pid_why "$HOLD_PID" "$M/lld-o")" thp-disabled
    hold_stop
}

huge_fs_cases() {
    rewrite_cases "$1" "$2"
    warm_cases "$1" "$2"
    busy_cases "$1" "$2"
    pid_cases "$1" "$2"
    MEASURED=huge-after-rewrite-and-warm
}

btrfs_cases() {
    local M=$1
    run_tool -o "$M/lld-o" "$LLD"
    assert "btrfs: -o lld-pie exits 0" tool_rc 0
    runs_kb "btrfs: rewritten lld-pie (no huge folios here)" 0 "$M/lld-o" "$M/lld-o"
    drop_cache "$M/lld-o"
    warm "$M/lld-o"
    assert "btrfs: --warm exits 1" rc_is "$W_RC" 1
    assert "btrfs: --warm says no-huge-folios" has_reason no-huge-folios
    case $W_JSON in
        *'(btrfs)'*) pass "btrfs: --warm's reason names btrfs" ;;
        *) fail "btrfs: --warm's reason names btrfs" "$W_JSON" ;;
    esac
    runs_kb "btrfs: after --warm, still" 0 "$M/lld-o" "$M/lld-o"
    if hold_start "$WORK/pid.out" "$M/lld-o"; then
        assert "btrfs: --pid says its file system keeps no huge folios" equals "why" \
            "$(pid_why "$HOLD_PID" "$M/lld-o")" no-huge-folios
        hold_stop
    else
        fail "btrfs: --pid holder" "$WHY"
    fi
    MEASURED=no-huge-folios
}

HOST_KEYS="schema mode status kernel thp_enabled thp_defrag thp_shmem_enabled read_only_thp_for_fs read_only_thp_for_fs_absent madv_collapse_files glibc glibc_aligns_libraries glibc_elf_thp glibc_elf_thp_from glibc_elf_thp_in_ldso glibc_tunables_thp tunables_conf tunables_conf_thp tunables_conf_locked tunables_conf_cached glibc_elf_thp_advice"
PATH_KEYS="schema mode path status fs_type mount_point mount_options tmpfs_huge probed probe_bytes write_pmd_bytes warm_pmd_bytes collapse_pmd_bytes expect_write expect_readahead expect_collapse madv_collapse khugepaged_text outcome advice"

# keys_are JSONLINE KEYS: exactly these keys.
keys_are() {
    python3 -c 'import json, sys
got = sorted(json.loads(sys.argv[1]))
want = sorted(sys.argv[2].split())
sys.exit(0 if got == want else 1)' "$1" "$2" && return 0
    WHY="keys of [$1] are not [$2]"; return 1
}

# host_cases FS M: --host's verdict for the mount is what the run measured.
host_cases() {
    local fs=$1 M=$2 host path
    run_tool --host --format json "$M"
    assert "$fs: --host exits 0" tool_rc 0
    host=$(printf '%s\n' "$T_OUT" | sed -n 1p) path=$(printf '%s\n' "$T_OUT" | sed -n 2p)
    assert "$fs: --host's host line has its keys" keys_are "$host" "$HOST_KEYS"
    assert "$fs: --host's path line has its keys" keys_are "$path" "$PATH_KEYS"
    assert "$fs: --host names the file system" equals "fs_type" "$(json_field "$path" fs_type)" "$fs"
    assert "$fs: --host probed the mount" equals "probed" "$(json_field "$path" probed)" True
    assert "$fs: --host's verdict agrees with the runs" equals "outcome" "$(json_field "$path" outcome)" "$MEASURED"
    assert "$fs: --host leaves no file behind" equals "listing" "$(ls -A "$M" | grep -c elfthp-probe)" 0
}

for fs in ext4 xfs btrfs; do
    echo "# $fs"
    M=$WORK/mnt-$fs
    mount_image "$fs" "$M"; rc=$?
    if [ $rc -eq 2 ]; then skip "$fs" "the kernel refuses to mount it: $WHY"; continue; fi
    if [ $rc -ne 0 ]; then fail "$fs image" "$WHY"; continue; fi
    if [ "$fs" = btrfs ]; then
        btrfs_cases "$M"
    else
        huge_fs_cases "$fs" "$M"
    fi
    host_cases "$fs" "$M"
    unmount "$M"
done
finish
