#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# SPDX-FileCopyrightText: 2026 the elfthp-align authors
# test_writers.sh BUILDDIR - the rules of the writer that a root run on its
# own files never meets, each checked so that deleting the rule fails it:
#   - a caller that is not root (setpriv to nobody):
#       - in a directory it cannot write: in place refused (no temporary
#         file can be made), -o elsewhere works;
#       - in a directory it may write, on root's file (0755, 4755, 2755,
#         6755): in place refused with "cannot keep the owner", the file
#         keeps its bytes, inode, owner and mode, no temporary file is
#         left; -o makes nobody's file without the set-ID bits (the owner
#         could not be kept), the same bytes as root's -o;
#       - its own file of group root: in place refused the same way;
#       - the control: its own 6755 file keeps 6755 in place, and root's
#         -o of root's 4755 file keeps 4755;
#   - stale temporary files (the sweep before a write): an old unlocked
#     one is removed and named; one locked with flock(2), as every writer
#     locks its own, is kept however old, and removed by the next run once
#     the lock is gone; one under 2 s old, another user's, and a name not
#     of the tool's pattern are kept; a real writer held in its first
#     write (strace) keeps its aged temporary file and finishes;
#   - one writer at a time: a file locked by another process (flock(1))
#     is waited for, and said, then rewritten; while the tool writes, it
#     holds the lock itself (flock -n fails); a second run waits for a
#     first held in fsync, then finds nothing to do;
#   - durability: the temporary file is fsynced before the rename, the
#     directory after (strace -y gives the order); an fsync that fails
#     (EIO injected) is exit 2 with the original intact and the temporary
#     file removed.
# Needs root for setpriv and chown; strace for the held and injected runs.
. "$(dirname "$0")/lib.sh"
need_builddir "$@"
need_tool

if ! fixture_line gnu-pie; then
    skip "writer tests" "fixture gnu-pie not built"
    finish
fi
FX=$BUILD/$FX_FILE
can_run=no; set_runner x86_64 && can_run=yes
am_root=no; [ "$(id -u)" -eq 0 ] && am_root=yes

REF=$WORK/reference
run_tool --no-warm -o "$REF" "$FX"
if [ "$T_RC" -ne 0 ] || cmp -s "$FX" "$REF"; then
    fail "reference: -o rewrites gnu-pie" "$(tool_said)"
    finish
fi

# owner_mode FILE: "OWNER:GROUP MODE" (octal, with the set-ID bits).
owner_mode() { stat -c '%U:%G %a' "$1"; }

# runs_like_original FILE DESC
runs_like_original() {
    need "$2: runs like the original" "no way to run x86_64 programs here" [ $can_run = yes ] &&
        assert "$2: runs like the original" run_same "$FX" "$1"
}

# ------------------------------------------------------------------------
echo "# a caller that is not root"
NOBODY=65534
as_nobody() { setpriv --reuid=$NOBODY --regid=$NOBODY --clear-groups "$@"; }
# run_nobody ARGS...: run_tool as nobody.
run_nobody() {
    timeout 120 setpriv --reuid=$NOBODY --regid=$NOBODY --clear-groups \
        "$TOOL" "$@" > "$WORK/.nb.out" 2> "$WORK/.nb.err" < /dev/null
    T_RC=$?
    T_OUT=$(cat "$WORK/.nb.out") T_ERR=$(cat "$WORK/.nb.err")
    rm -f "$WORK/.nb.out" "$WORK/.nb.err"
}

# refused_as_nobody DESC FILE WANT_TEXT: in place as nobody is refused,
# saying WANT_TEXT; FILE keeps its bytes, inode, mtime, owner and mode;
# its directory gets no file.
refused_as_nobody() {
    local desc=$1 f=$2 want=$3 dir id om l
    dir=$(dirname "$f")
    id=$(file_id "$f") om=$(owner_mode "$f") l=$(listing "$dir")
    run_nobody "$f"
    assert "$desc: exits 2" tool_rc 2
    assert "$desc: one message naming the file" one_error_line "$f"
    case $T_ERR in
        *"$want"*) pass "$desc: says \"$want\"" ;;
        *) fail "$desc: says \"$want\"" "$(tool_said)" ;;
    esac
    assert "$desc: file byte-identical" same_file "$FX" "$f"
    assert "$desc: file untouched (inode, mtime)" same_id "$f" "$id"
    assert "$desc: owner and mode unchanged" equals "owner and mode" "$(owner_mode "$f")" "$om"
    assert "$desc: no temporary file left" no_temp "$dir"
    assert "$desc: directory unchanged" same_listing "$dir" "$l"
}

if [ $am_root = no ] || ! command -v setpriv >/dev/null; then
    skip "a caller that is not root" "needs root and setpriv"
elif ! as_nobody test -x "$TOOL"; then
    skip "a caller that is not root" "nobody cannot run $TOOL (a directory above it is closed)"
else
    chmod 711 "$WORK"                  # nobody reaches what is opened below
    # A directory nobody cannot write: no temporary file, so no rewrite.
    fresh_dir
    RO=$D
    chmod 755 "$RO" && cp "$FX" "$RO/prog" && chmod 755 "$RO/prog"
    refused_as_nobody "nobody, in place, in root's directory" "$RO/prog" \
        "cannot create a temporary file beside it"
    fresh_dir
    OUT=$D
    chown $NOBODY:$NOBODY "$OUT"
    run_nobody --no-warm -o "$OUT/out" "$RO/prog"
    assert "nobody, -o into its own directory: exits 0" tool_rc 0
    assert "nobody, -o: the output is the rewrite" same_file "$REF" "$OUT/out"
    assert "nobody, -o: the output is nobody's" equals "owner and mode" \
        "$(owner_mode "$OUT/out")" "nobody:nogroup 755"

    # A directory nobody may write, a file it may not: root's, in place.
    for mode in 755 4755 2755 6755; do
        fresh_dir
        chown $NOBODY:$NOBODY "$D"
        cp "$FX" "$D/prog" && chmod "$mode" "$D/prog"
        refused_as_nobody "nobody, in place, root's $mode file" "$D/prog" \
            "cannot keep the owner: Operation not permitted"
        # -o: the owner cannot be kept, so no set-ID bit either (as cp).
        run_nobody --no-warm -o "$D/out" "$D/prog"
        assert "nobody, -o of root's $mode file: exits 0" tool_rc 0
        assert "nobody, -o of root's $mode file: the same bytes as root's -o" \
            same_file "$REF" "$D/out"
        assert "nobody, -o of root's $mode file: nobody's, without set-ID bits" \
            equals "owner and mode" "$(owner_mode "$D/out")" "nobody:nogroup 755"
        assert "nobody, -o of root's $mode file: the input untouched" \
            equals "owner and mode" "$(owner_mode "$D/prog")" "root:root $mode"
    done
    runs_like_original "$D/out" "nobody, -o"
    # Its own file, but of a group it is not in: the group is part of
    # the owner, and cannot be kept either.
    fresh_dir
    chown $NOBODY:$NOBODY "$D"
    cp "$FX" "$D/prog" && chown $NOBODY:0 "$D/prog" && chmod 2755 "$D/prog"
    refused_as_nobody "nobody, in place, its own 2755 file of group root" "$D/prog" \
        "cannot keep the owner: Operation not permitted"

    # The controls: where the owner is kept, so are the set-ID bits.
    fresh_dir
    chown $NOBODY:$NOBODY "$D"
    cp "$FX" "$D/prog" && chown $NOBODY:$NOBODY "$D/prog" && chmod 6755 "$D/prog"
    run_nobody --no-warm "$D/prog"
    assert "control: nobody, in place, its own 6755 file: exits 0" tool_rc 0
    assert "control: nobody's 6755 file rewritten" same_file "$REF" "$D/prog"
    assert "control: nobody's 6755 file keeps owner and set-ID bits" equals \
        "owner and mode" "$(owner_mode "$D/prog")" "nobody:nogroup 6755"
    assert "control: no temporary file left" no_temp "$D"
    fresh
    chmod 4755 "$F"
    run_tool --no-warm -o "$D/out" "$F"
    assert "control: root, -o of root's 4755 file: exits 0" tool_rc 0
    assert "control: root's -o keeps owner and set-user-ID" equals \
        "owner and mode" "$(owner_mode "$D/out")" "root:root 4755"
    chmod 700 "$WORK"
fi

# ------------------------------------------------------------------------
# strace: hold or fail one system call of the tool.
have_strace=yes
if ! command -v strace >/dev/null || ! command -v cpp >/dev/null ||
   ! strace -qq -o /dev/null -e trace=getpid -e inject=getpid:delay_enter=1 true 2>/dev/null; then
    have_strace=no
fi
# LeakSanitizer cannot run under ptrace (make check SANITIZE=1).
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"

# held_start SYSCALL US ARGS...: lib.sh's delayed_start with the first
# SYSCALL held US microseconds; strace's pid is killed at exit if left.
held_start() {
    local sc=$1 rc; DELAY_US=$2; shift 2
    delayed_start "$sc" "$@"; rc=$?
    HELD="$SP $HELD"
    return $rc
}

# held_wait: wait for the held run; T_RC, T_OUT, T_ERR as run_tool.
held_wait() {
    delayed_wait
    HELD=${HELD/"$SP "/}
}

# hold_lock FILE SECONDS: flock(1) holds FILE locked (HOLDER: its pid).
hold_lock() {
    flock -x "$1" sleep "$2" &
    HOLDER=$!
    HELD="$HOLDER $HELD"
}

# release_lock: stop the holder; its sleep, which has the locked
# descriptor too, first.
release_lock() {
    local p
    for p in $(descendants "$HOLDER"); do kill "$p" 2>/dev/null; done
    kill "$HOLDER" 2>/dev/null; wait "$HOLDER" 2>/dev/null
    HELD=${HELD/"$HOLDER "/}
}

# locked FILE: some process holds a flock(2) lock on FILE.
locked() {
    flock -n -x "$1" true 2>/dev/null || return 0
    WHY="no process holds $1 locked"; return 1
}

# wait_locked FILE: until locked (5 s at most).
wait_locked() {
    local i
    for i in $(seq 1 100); do locked "$1" && return 0; sleep 0.05; done
    return 1
}

# ------------------------------------------------------------------------
echo "# stale temporary files"
fresh
cp "$FX" "$D/prog.elfthp-Dead01" && touch -d '-1 hour' "$D/prog.elfthp-Dead01"
cp "$FX" "$D/prog.elfthp-Live01" && touch -d '-1 hour' "$D/prog.elfthp-Live01"
cp "$FX" "$D/prog.elfthp-Young1"
cp "$FX" "$D/prog.elfthp-Other1" && chown $NOBODY "$D/prog.elfthp-Other1" &&
    touch -d '-1 hour' "$D/prog.elfthp-Other1"
cp "$FX" "$D/prog.elfthp-x" && touch -d '-1 hour' "$D/prog.elfthp-x"
# The way a writer holds its own: flock(2) on the temporary file.
hold_lock "$D/prog.elfthp-Live01" 30
if wait_locked "$D/prog.elfthp-Live01"; then
    run_tool --no-warm "$F"
    assert "sweep: the rewrite beside them exits 0" tool_rc 0
    assert "sweep: the file is rewritten" same_file "$REF" "$F"
    [ ! -e "$D/prog.elfthp-Dead01" ] && pass "sweep: an hour-old unlocked temporary file is removed" ||
        fail "sweep: an hour-old unlocked temporary file is removed" "$(tool_said)"
    case $T_ERR in
        *"$D/prog.elfthp-Dead01: removed a stale temporary file"*) pass "sweep: and named" ;;
        *) fail "sweep: and named" "$(tool_said)" ;;
    esac
    [ -e "$D/prog.elfthp-Live01" ] && pass "sweep: an hour-old temporary file a live process locks is kept" ||
        fail "sweep: an hour-old temporary file a live process locks is kept" "$(tool_said)"
    case $T_ERR in
        *"prog.elfthp-Live01"*) fail "sweep: the locked one is not named" "$(tool_said)" ;;
        *) pass "sweep: the locked one is not named" ;;
    esac
    [ -e "$D/prog.elfthp-Young1" ] && pass "sweep: an unlocked one under 2 s old is kept" ||
        fail "sweep: an unlocked one under 2 s old is kept" "$(tool_said)"
    [ -e "$D/prog.elfthp-Other1" ] && pass "sweep: another user's is kept" ||
        fail "sweep: another user's is kept" "$(tool_said)"
    [ -e "$D/prog.elfthp-x" ] && pass "sweep: a name not of the pattern (.elfthp-x) is kept" ||
        fail "sweep: a name not of the pattern is kept" "$(tool_said)"
else
    fail "sweep: flock(1) holds the temporary file" "it never got the lock"
fi
release_lock

# Age to the nanosecond: a temporary file 2.5 s old is older than two
# seconds (counted in whole seconds, its mtime X.0 and the run at X+2.5,
# it was "2 s old" and kept; a run after a SIGKILL left such a file).
fresh
s=$(date +%s)
cp "$FX" "$D/prog.elfthp-Half01" && touch -d "@$((s - 2))" "$D/prog.elfthp-Half01"
while awk -v t="$(date +%s.%N)" -v s="$s" 'BEGIN { exit !(t < s + 0.5) }'; do sleep 0.05; done
run_tool --no-warm "$F"
[ ! -e "$D/prog.elfthp-Half01" ] && pass "sweep: an unlocked one 2.5 s old is removed" ||
    fail "sweep: an unlocked one 2.5 s old is removed" "$(tool_said)"
# The control: the lock alone kept it; without it the next run removes it.
rm -f "$D/prog.elfthp-Young1"
run_tool --no-warm -o "$D/out" "$F"
assert "sweep, the next run: exits 0" tool_rc 0
[ ! -e "$D/prog.elfthp-Live01" ] && pass "sweep, the next run: the same file, unlocked now, is removed" ||
    fail "sweep, the next run: the same file, unlocked now, is removed" "$(tool_said)"

# A real writer, held in its first write, its temporary file made old.
if [ $have_strace = yes ]; then
    fresh
    if held_start pwrite64 3000000 --no-warm -o "$D/out1" "$F"; then
        tmp=$( (cd "$D" && ls -A) | grep -E '^out1\.elfthp-' | head -n 1)
        if [ -n "$tmp" ]; then
            touch -d '-1 hour' "$D/$tmp"
            assert "live writer: holds its temporary file locked" locked "$D/$tmp"
            run_tool --no-warm -o "$D/out2" "$F"
            assert "live writer: a run beside it exits 0" tool_rc 0
            [ -e "$D/$tmp" ] && pass "live writer: its hour-old temporary file is kept" ||
                fail "live writer: its hour-old temporary file is kept" "$(tool_said)"
        else
            fail "live writer: has a temporary file" "none in $D: $(listing "$D" | tr '\n' ' ')"
        fi
        held_wait
        assert "live writer: finishes (exit 0)" tool_rc 0
        assert "live writer: its output is complete" same_file "$REF" "$D/out1"
        assert "live writer: no temporary file left" no_temp "$D"
    else
        held_wait
        fail "live writer: held in pwrite64" "it never got there: $(tool_said)"
    fi
else
    skip "a live writer's temporary file" "strace with syscall delay injection not available"
fi

# ------------------------------------------------------------------------
echo "# one writer at a time"
fresh
hold_lock "$F" 1.5
if wait_locked "$F"; then
    t0=$(date +%s%N)
    run_tool --no-warm "$F"
    ms=$(( ($(date +%s%N) - t0) / 1000000 ))
    assert "locked by another: exits 0 once the lock is released" tool_rc 0
    case $T_ERR in
        *"$F: waiting for another elfthp-align on it"*) pass "locked by another: the wait is said" ;;
        *) fail "locked by another: the wait is said" "$(tool_said)" ;;
    esac
    [ "$ms" -ge 700 ] && pass "locked by another: it waited ($ms ms)" ||
        fail "locked by another: it waited" "done in $ms ms, the lock held 1.5 s"
    assert "locked by another: then rewritten" same_file "$REF" "$F"
else
    fail "locked by another: flock(1) holds the file" "it never got the lock"
fi
release_lock

if [ $have_strace = yes ]; then
    fresh
    if held_start fsync 2000000 --no-warm "$F"; then
        assert "a run held in fsync holds the file's lock" locked "$F"
        timeout 60 "$TOOL" --no-warm "$F" > "$WORK/second.out" 2> "$WORK/second.err" < /dev/null &
        second=$!
        HELD="$second $HELD"
        held_wait
        wait "$second"; rc2=$?; HELD=${HELD/"$second "/}
        assert "two at once: the first exits 0" tool_rc 0
        assert "two at once: the second exits 0" rc_is "$rc2" 0
        case $(cat "$WORK/second.err") in
            *"waiting for another elfthp-align on it"*) pass "two at once: the second waited, and said so" ;;
            *) fail "two at once: the second waited, and said so" "stderr [$(cat "$WORK/second.err")]" ;;
        esac
        case $(cat "$WORK/second.out") in
            *"already aligned"*) pass "two at once: the second finds nothing to do" ;;
            *) fail "two at once: the second finds nothing to do" "stdout [$(cat "$WORK/second.out")] stderr [$(cat "$WORK/second.err")]" ;;
        esac
        assert "two at once: the result is one run's" same_file "$REF" "$F"
        assert "two at once: no temporary file" no_temp "$D"
        runs_like_original "$F" "two at once"
    else
        held_wait
        fail "two at once: the first held in fsync" "it never got there: $(tool_said)"
    fi
else
    skip "two runs at once" "strace with syscall delay injection not available"
fi

# ------------------------------------------------------------------------
echo "# fsync before the rename"
if [ $have_strace = yes ]; then
    fresh
    strace -f -y -qq -o "$WORK/sync.log" -e trace=fsync,fdatasync,rename,renameat,renameat2 \
        "$TOOL" --no-warm "$F" > /dev/null 2>&1
    rc=$?
    assert "in place under strace: exits 0" rc_is "$rc" 0
    # Line numbers: the temporary file's fsync, the rename of it onto the
    # name, the directory's fsync.
    n_tmp=$(grep -nE "f(data)?sync\([0-9]+<$D/prog\.elfthp-[A-Za-z0-9]{6}>\) = 0" "$WORK/sync.log" | head -n 1 | cut -d: -f1)
    # renameat(dirfd, name, dirfd, name): both names in the directory $D.
    n_ren=$(grep -nE "renameat2?\([0-9]+<$D>, \"prog\.elfthp-[A-Za-z0-9]{6}\", [0-9]+<$D>, \"prog\".*= 0" "$WORK/sync.log" | head -n 1 | cut -d: -f1)
    n_dir=$(grep -nE "fsync\([0-9]+<$D>\) = 0" "$WORK/sync.log" | head -n 1 | cut -d: -f1)
    if [ -n "$n_tmp" ] && [ -n "$n_ren" ] && [ "$n_tmp" -lt "$n_ren" ]; then
        pass "the temporary file is fsynced before the rename"
    else
        fail "the temporary file is fsynced before the rename" "$(tr '\n' ';' < "$WORK/sync.log")"
    fi
    if [ -n "$n_ren" ] && [ -n "$n_dir" ] && [ "$n_dir" -gt "$n_ren" ]; then
        pass "the directory is fsynced after the rename"
    else
        fail "the directory is fsynced after the rename" "$(tr '\n' ';' < "$WORK/sync.log")"
    fi
    assert "in place under strace: rewritten" same_file "$REF" "$F"

    # The first fsync (the temporary file's) fails: nothing is replaced.
    fresh
    id=$(file_id "$F")
    timeout 60 strace -f -qq -o /dev/null -e trace=fsync -e inject=fsync:error=EIO:when=1 \
        "$TOOL" --no-warm "$F" > "$WORK/eio.out" 2> "$WORK/eio.err" < /dev/null
    T_RC=$? T_OUT=$(cat "$WORK/eio.out") T_ERR=$(grep -v '^strace: ' "$WORK/eio.err")
    assert "fsync fails (EIO): exits 2" tool_rc 2
    case $T_ERR in
        *"elfthp-align: $F: fsync: Input/output error"*) pass "fsync fails: the message names the file and the call" ;;
        *) fail "fsync fails: the message names the file and the call" "$(tool_said)" ;;
    esac
    assert "fsync fails: original byte-identical" same_file "$SAVED" "$F"
    assert "fsync fails: original untouched (inode, mtime)" same_id "$F" "$id"
    assert "fsync fails: the temporary file is removed" no_temp "$D"
    assert "fsync fails: directory unchanged" same_listing "$D" "$L"
else
    skip "fsync before the rename" "strace with syscall injection not available"
fi

finish
