#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# SPDX-FileCopyrightText: 2026 the elfthp-align authors
# test_faults.sh BUILDDIR - file-level faults around an in-place rewrite.
# Every failing case asserts that the original is byte-identical and that
# no temporary file (NAME.elfthp-XXXXXX or .elfthp-XXXXXX) is left.
#
#   - read-only bind mount of a writable directory (in place and -o into it);
#   - full disk (a small tmpfs filled up with a filler file), in place and -o;
#     no inode left (tmpfs nr_inodes); an immutable file (chattr +i);
#   - the input truncated, replaced or modified while the tool runs: strace
#     delays one syscall the tool makes after reading and before the rename
#     (pwrite64, the first write of data, or of headers where the kernel
#     copies the data; fchown, fchmod, fsync) and the test changes the input
#     during the delay; the tool must exit 2 and not rename;
#   - SIGINT, SIGTERM, SIGHUP during a rewrite (again held in a delayed
#     syscall): the process dies of the signal, the original is intact and
#     the temporary file is gone;
#   - two tool processes on one file at once: both exit 0 (the second finds
#     nothing to do), the result equals a single run's output and runs;
#   - POSIX ACLs survive (alone and with owner, set-group-ID, capability and
#     a user xattr); a file without an ACL in a directory with a default ACL
#     gains none;
#   - a running shared library rewritten: the process keeps its mapping,
#     a new process loads the new file;
#   - symlink chains, dangling links, link loops, a link to a hard-linked
#     file; a UNIX socket, /dev/zero, and -o naming a FIFO, /dev/null or a
#     directory (no hang, exit 2); a file name too long for NAME.elfthp-XXXXXX.
# Not repeated here (test_safety.sh has them): mode/owner/set-ID bits,
# security.capability and user xattrs alone, a plain symlink, hard links,
# directories/FIFOs//dev/null as inputs, a read-only tmpfs, a running
# executable.
. "$(dirname "$0")/lib.sh"
need_builddir "$@"
need_tool

FX=""
for name in lld-pie gnu-pie; do
    if fixture_line "$name"; then FX=$BUILD/$FX_FILE; break; fi
done
if [ -z "$FX" ]; then
    skip "fault tests" "neither lld-pie nor gnu-pie was built"
    finish
fi
am_root=no; [ "$(id -u)" -eq 0 ] && am_root=yes
can_run=no; set_runner x86_64 && can_run=yes


# The reference: what one run makes of the fixture.
REF=$WORK/reference
run_tool -o "$REF" "$FX"
if [ "$T_RC" -ne 0 ] || [ ! -f "$REF" ]; then
    fail "reference rewrite of $(basename "$FX") with -o" "$(tool_said)"
    finish
fi
if cmp -s "$FX" "$REF"; then
    fail "reference rewrite changes the fixture" "$(basename "$FX") came out unchanged"
fi


# refused DESC FILE SAVED DIR LISTING: the last run failed cleanly.
refused() {
    local desc=$1 f=$2 saved=$3 dir=$4 l=$5
    assert "$desc: exits 2" tool_rc 2
    assert "$desc: message names the file" tool_err_names "$f"
    assert "$desc: original byte-identical" same_file "$saved" "$f"
    assert "$desc: no temporary file" no_temp "$dir"
    assert "$desc: directory unchanged" same_listing "$dir" "$l"
}

# good_result DESC FILE: FILE is the reference result and runs.
good_result() {
    assert "$1: result equals a single run's output" same_file "$REF" "$2"
    need "$1: result runs like the original" "no way to run x86_64 programs here" [ $can_run = yes ] &&
        assert "$1: result runs like the original" run_same "$FX" "$2"
}

# --- strace-delayed runs ------------------------------------------------------

# sysnr, descendants, delayed_start and delayed_wait are in lib.sh.

have_strace=yes
if ! command -v strace >/dev/null || ! command -v cpp >/dev/null; then
    have_strace=no
elif ! strace -qq -o /dev/null -e trace=getpid -e inject=getpid:delay_enter=1 true 2>/dev/null; then
    have_strace=no
fi

# ------------------------------------------------------------------------------
echo "# read-only bind mount"
if [ $am_root = yes ] && mkdir -p "$WORK/rosrc" "$WORK/robind" &&
   mount --bind "$WORK/rosrc" "$WORK/robind" 2>/dev/null; then
    MOUNTS="$WORK/robind $MOUNTS"
    cp "$FX" "$WORK/rosrc/prog"
    if mount -o remount,bind,ro "$WORK/robind" 2>/dev/null; then
        cp "$FX" "$WORK/ro.saved"
        l=$(listing "$WORK/rosrc")
        run_tool "$WORK/robind/prog"
        refused "read-only bind mount, in place" "$WORK/robind/prog" "$WORK/ro.saved" "$WORK/rosrc" "$l"
        case $T_ERR in
            *"ead-only"*) pass "read-only bind mount: message says read-only file system" ;;
            *) fail "read-only bind mount: message says read-only file system" "$(tool_said)" ;;
        esac
        fresh
        run_tool -o "$WORK/robind/out" "$F"
        assert "read-only bind mount, -o into it: exits 2" tool_rc 2
        assert "read-only bind mount, -o into it: message names the input" tool_err_names "$F"
        [ ! -e "$WORK/rosrc/out" ] && pass "read-only bind mount, -o into it: no output" ||
            fail "read-only bind mount, -o into it: no output" "$(ls -l "$WORK/rosrc")"
        assert "read-only bind mount, -o into it: no temporary file" no_temp "$WORK/rosrc"
        assert "read-only bind mount, -o into it: input byte-identical" same_file "$SAVED" "$F"
        run_tool -n "$WORK/robind/prog"
        assert "read-only bind mount: -n still works" tool_rc 0
    else
        skip "read-only bind mount" "cannot remount the bind mount read-only"
    fi
    unmount "$WORK/robind"
else
    skip "read-only bind mount" "cannot bind-mount (not root?)"
fi

# ------------------------------------------------------------------------------
echo "# full disk"
FXSIZE=$(stat -c %s "$FX")
if [ $am_root = yes ] && mkdir -p "$WORK/full" &&
   mount -t tmpfs -o size=$(( (FXSIZE / 1048576 + 4) ))m tmpfs "$WORK/full" 2>/dev/null; then
    MOUNTS="$WORK/full $MOUNTS"
    MNT=$WORK/full
    cp "$FX" "$MNT/prog" && cp "$FX" "$WORK/full.saved"
    # Fill the file system, then give back 256 KiB: room for the temporary
    # file and the first bytes, not for the copy.
    dd if=/dev/zero of="$MNT/filler" bs=64k status=none 2>/dev/null
    truncate -s -256K "$MNT/filler"
    avail0=$(df --output=avail -B1 "$MNT" | tail -n 1)
    l=$(listing "$MNT")
    run_tool "$MNT/prog"
    refused "full disk, in place" "$MNT/prog" "$WORK/full.saved" "$MNT" "$l"
    case $T_ERR in
        *"No space left"*) pass "full disk: message says no space left" ;;
        *) fail "full disk: message says no space left" "$(tool_said)" ;;
    esac
    avail1=$(df --output=avail -B1 "$MNT" | tail -n 1)
    [ "$avail1" -eq "$avail0" ] && pass "full disk: free space given back ($avail1 bytes)" ||
        fail "full disk: free space given back" "$avail0 bytes free before, $avail1 after"
    fresh
    run_tool -o "$MNT/out" "$F"
    assert "full disk, -o onto it: exits 2" tool_rc 2
    assert "full disk, -o onto it: message names the input" tool_err_names "$F"
    # Across file systems, as here: the errno of the write that failed.
    case $T_ERR in
        *"No space left"*) pass "full disk, -o onto it: message says no space left" ;;
        *) fail "full disk, -o onto it: message says no space left" "$(tool_said)" ;;
    esac
    [ ! -e "$MNT/out" ] && pass "full disk, -o onto it: no output" ||
        fail "full disk, -o onto it: no output" "$(ls -l "$MNT")"
    assert "full disk, -o onto it: no temporary file" no_temp "$MNT"
    assert "full disk, -o onto it: input byte-identical" same_file "$SAVED" "$F"
    unmount "$MNT"
else
    skip "full disk" "cannot mount a tmpfs (not root?)"
fi

echo "# no inode left"
if [ $am_root = yes ] && mkdir -p "$WORK/noino" &&
   mount -t tmpfs -o size=$(( (FXSIZE / 1048576 + 8) ))m,nr_inodes=2 tmpfs "$WORK/noino" 2>/dev/null; then
    MOUNTS="$WORK/noino $MOUNTS"
    if cp "$FX" "$WORK/noino/prog" 2>/dev/null; then
        l=$(listing "$WORK/noino")
        run_tool "$WORK/noino/prog"
        refused "no inode left" "$WORK/noino/prog" "$FX" "$WORK/noino" "$l"
    else
        skip "no inode left" "tmpfs with nr_inodes=2 cannot hold the fixture"
    fi
    unmount "$WORK/noino"
else
    skip "no inode left" "cannot mount a tmpfs with nr_inodes (not root?)"
fi

echo "# immutable file"
fresh
if command -v chattr >/dev/null && chattr +i "$F" 2>/dev/null; then
    IMMUTABLE="$F"
    run_tool "$F"
    refused "immutable file (chattr +i)" "$F" "$SAVED" "$D" "$L"
    chattr -i "$F"; IMMUTABLE=""
else
    skip "immutable file (chattr +i)" "chattr +i not supported on $WORK"
fi

# ------------------------------------------------------------------------------
echo "# the input changes while the tool runs"
if [ $have_strace = yes ]; then
    OTHER=$WORK/other
    cp "$FX" "$OTHER" && printf 'replacement' >> "$OTHER"
    for sc in pwrite64 fchown fchmod fsync; do
        for action in truncate replace modify; do
            desc="$action during $sc"
            fresh
            if ! delayed_start "$sc" "$F"; then
                delayed_wait
                fail "$desc: tool held in $sc" "it never got there: $(tool_said)"
                continue
            fi
            case $action in
                truncate)
                    truncate -s 4096 "$F"
                    head -c 4096 "$SAVED" > "$WORK/expect" ;;
                replace)
                    cp "$OTHER" "$D/.incoming" && mv "$D/.incoming" "$F"
                    cp "$OTHER" "$WORK/expect" ;;
                modify)
                    printf 'X' | dd of="$F" bs=1 seek=200000 conv=notrunc status=none
                    cp "$SAVED" "$WORK/expect"
                    printf 'X' | dd of="$WORK/expect" bs=1 seek=200000 conv=notrunc status=none ;;
            esac
            delayed_wait
            assert "$desc: exits 2" tool_rc 2
            assert "$desc: message names the file" tool_err_names "$F"
            assert "$desc: not renamed (the file is what the other writer left)" \
                same_file "$WORK/expect" "$F"
            assert "$desc: no temporary file" no_temp "$D"
            assert "$desc: directory unchanged" same_listing "$D" "$L"
        done
    done
else
    skip "input changed while the tool runs" "strace with syscall delay injection not available"
fi

# ------------------------------------------------------------------------------
echo "# signals during a rewrite"
if [ $have_strace = yes ]; then
    for spec in INT:pwrite64 TERM:fsync HUP:fchmod INT:fsync QUIT:pwrite64 \
                USR1:pwrite64 USR2:fchmod ALRM:pwrite64 XCPU:pwrite64 \
                RTMIN:pwrite64; do
        sig=${spec%%:*} sc=${spec#*:}
        desc="SIG$sig during $sc"
        fresh
        if ! delayed_start "$sc" "$F"; then
            delayed_wait
            fail "$desc: tool held in $sc" "it never got there: $(tool_said)"
            continue
        fi
        kill -"$sig" "$TP"
        delayed_wait
        want=$((128 + $(kill -l "$sig")))
        [ "$T_RC" -eq "$want" ] && pass "$desc: the tool dies of the signal (exit $want)" ||
            fail "$desc: the tool dies of the signal" "expected exit $want: $(tool_said)"
        assert "$desc: original byte-identical" same_file "$SAVED" "$F"
        assert "$desc: no temporary file" no_temp "$D"
        assert "$desc: directory unchanged" same_listing "$D" "$L"
    done
else
    skip "signals during a rewrite" "strace with syscall delay injection not available"
fi

# ------------------------------------------------------------------------------
echo "# -o while another run rewrites the input in place"
if [ $have_strace = yes ]; then
    fresh
    if delayed_start fchmod -o "$D/out" "$F"; then
        run_tool "$F"
        assert "in place beside a held -o: exits 0" tool_rc 0
        delayed_wait
        # The old inode's ctime changed (its link went), its bytes did not.
        assert "the held -o: exits 0 (it judges its input by its bytes)" tool_rc 0
        assert "the held -o: its output is the rewrite of the input it read" \
            same_file "$REF" "$D/out"
    else
        delayed_wait
        fail "-o held in fchmod" "it never got there: $(tool_said)"
    fi
else
    skip "-o while another run rewrites in place" "strace with syscall delay injection not available"
fi

# ------------------------------------------------------------------------------
echo "# two tool processes on one file"
if [ $have_strace = yes ]; then
    fresh
    if delayed_start fsync "$F"; then
        # The first holds its lock while it syncs; the second must wait for it.
        timeout 60 "$TOOL" "$F" > "$WORK/second.out" 2> "$WORK/second.err" < /dev/null &
        second=$!
        HELD="$second"
        # It says so on stderr after half a second of waiting.
        waited=no
        for _ in $(seq 1 60); do
            grep -qs "waiting for another elfthp-align on it" "$WORK/second.err" &&
                waited=yes && break
            sleep 0.05
        done
        [ $waited = yes ] && pass "concurrent: the second run waits for the lock, and says so" ||
            fail "concurrent: the second run waits for the lock, and says so" \
                "no message in 3 s: $(cat "$WORK/second.err")"
        delayed_wait
        wait "$second"; rc2=$?; HELD=""
        assert "concurrent: first run exits 0" tool_rc 0
        [ "$rc2" -eq 0 ] && pass "concurrent: second run exits 0" ||
            fail "concurrent: second run exits 0" "rc $rc2: $(cat "$WORK/second.err")"
        case $(cat "$WORK/second.out") in
            *"already aligned"*) pass "concurrent: second run finds nothing to do" ;;
            *) fail "concurrent: second run finds nothing to do" "stdout [$(cat "$WORK/second.out")] stderr [$(cat "$WORK/second.err")]" ;;
        esac
        good_result "concurrent (held)" "$F"
        assert "concurrent (held): no temporary file" no_temp "$D"
        assert "concurrent (held): directory unchanged" same_listing "$D" "$L"
    else
        delayed_wait
        fail "concurrent: first run held in fsync" "it never got there: $(tool_said)"
    fi
else
    skip "two tool processes on one file, one held in fsync" "strace with syscall delay injection not available"
fi
# Unsynchronised starts, several rounds.
bad=""
for round in 1 2 3 4 5; do
    fresh
    "$TOOL" "$F" > "$WORK/r1.out" 2> "$WORK/r1.err" < /dev/null & p1=$!
    "$TOOL" "$F" > "$WORK/r2.out" 2> "$WORK/r2.err" < /dev/null & p2=$!
    "$TOOL" "$F" > "$WORK/r3.out" 2> "$WORK/r3.err" < /dev/null & p3=$!
    HELD="$p1 $p2 $p3"
    wait $p1; r1=$?; wait $p2; r2=$?; wait $p3; r3=$?; HELD=""
    [ "$r1$r2$r3" = 000 ] || bad="$bad; round $round: exit $r1 $r2 $r3 ($(cat "$WORK"/r?.err | tr '\n' ' '))"
    n_done=$(cat "$WORK"/r?.out | grep -c 'segments\? aligned,')
    n_noop=$(cat "$WORK"/r?.out | grep -c 'already aligned')
    [ "$n_done" -eq 1 ] && [ "$n_noop" -eq 2 ] ||
        bad="$bad; round $round: $n_done rewrites, $n_noop no-ops: $(cat "$WORK"/r?.out | tr '\n' ' ')"
    cmp -s "$REF" "$F" || bad="$bad; round $round: result differs from a single run"
    no_temp "$D" || bad="$bad; round $round: $WHY"
done
[ -z "$bad" ] && pass "three runs at once, 5 rounds: all exit 0, one rewrite, same result, no temporary file" ||
    fail "three runs at once, 5 rounds" "${bad#; }"
need "three runs at once: result runs" "no way to run x86_64 programs here" [ $can_run = yes ] &&
    assert "three runs at once: result runs" run_same "$FX" "$F"

# ------------------------------------------------------------------------------
echo "# POSIX ACLs"
if command -v setfacl >/dev/null && fresh && setfacl -m u:nobody:r-x,g:nogroup:rwx "$F" 2>/dev/null; then
    acl0=$(getfacl -cp "$F" 2>/dev/null) mode0=$(stat -c %a "$F")
    run_tool "$F"
    assert "ACL: rewrite exits 0" tool_rc 0
    assert "ACL: file was rewritten" same_file "$REF" "$F"
    acl1=$(getfacl -cp "$F" 2>/dev/null)
    [ "$acl1" = "$acl0" ] && pass "ACL: access ACL survives" ||
        fail "ACL: access ACL survives" "[$(echo "$acl0" | tr '\n' ' ')] -> [$(echo "$acl1" | tr '\n' ' ')]"
    [ "$(stat -c %a "$F")" = "$mode0" ] && pass "ACL: mode survives ($mode0)" ||
        fail "ACL: mode survives" "$mode0 -> $(stat -c %a "$F")"

    # ACL with owner, set-group-ID, a user xattr and a capability, all at once.
    fresh
    if [ $am_root = yes ] && chown nobody:nogroup "$F" && chmod 2750 "$F" &&
       setfacl -m u:daemon:r-x "$F" && setfattr -n user.fault -v yes "$F" 2>/dev/null &&
       setcap cap_net_bind_service+ep "$F" 2>/dev/null; then
        before="$(stat -c '%a %U:%G' "$F") $(getcap "$F" | awk '{print $2}') $(getfattr --only-values -n user.fault "$F" 2>/dev/null) $(getfacl -cp "$F" | tr '\n' ' ')"
        run_tool "$F"
        assert "ACL + set-group-ID + owner + xattr + capability: exits 0" tool_rc 0
        after="$(stat -c '%a %U:%G' "$F") $(getcap "$F" | awk '{print $2}') $(getfattr --only-values -n user.fault "$F" 2>/dev/null) $(getfacl -cp "$F" | tr '\n' ' ')"
        [ "$after" = "$before" ] && pass "ACL + set-group-ID + owner + xattr + capability survive together" ||
            fail "ACL + set-group-ID + owner + xattr + capability survive together" "[$before] -> [$after]"
    else
        skip "ACL + set-group-ID + owner + xattr + capability" "cannot set them up here"
    fi

    # A directory's default ACL must not reach a file that had no ACL.
    fresh_dir && mkdir -p "$D.src"
    if setfacl -d -m u:nobody:rwx "$D" 2>/dev/null; then
        cp "$FX" "$D.src/prog" && chmod 750 "$D.src/prog"
        mv "$D.src/prog" "$D/prog"    # keeps "no ACL"
        F=$D/prog
        acl0=$(getfacl -cp "$F" 2>/dev/null)
        run_tool "$F"
        assert "default ACL on the directory: rewrite exits 0" tool_rc 0
        acl1=$(getfacl -cp "$F" 2>/dev/null)
        [ "$acl1" = "$acl0" ] && pass "default ACL on the directory: the file gains no ACL entry" ||
            fail "default ACL on the directory: the file gains no ACL entry" \
                "mode 750, no ACL before [$(echo "$acl0" | tr '\n' ' ')], after [$(echo "$acl1" | tr '\n' ' ')]"
    else
        skip "default ACL on the directory" "setfacl -d not supported on $WORK"
    fi
else
    skip "POSIX ACLs" "setfacl missing or not supported on $WORK"
fi

# ------------------------------------------------------------------------------
echo "# a running shared library"
if [ $can_run = yes ] && fixture_line lld-shared; then
    fresh_dir && cp "$BUILD/$FX_FILE" "$BUILD/$FX_MAIN" "$D/"
    LIB=$D/$FX_FILE MAIN=$D/$FX_MAIN
    if hold_start "$WORK/hold.out" "$MAIN"; then
        pid=$HOLD_PID
        run_tool "$LIB"
        assert "running library: rewrite exits 0" tool_rc 0
        assert "running library: rewritten" check_congruence "$LIB"
        kill -0 "$pid" 2>/dev/null && pass "running library: process still alive" ||
            fail "running library: process still alive" "pid $pid is gone"
        grep -q "$FX_FILE (deleted)" /proc/"$pid"/maps &&
            pass "running library: the process still maps the old inode" ||
            fail "running library: the process still maps the old inode" \
                "$(grep "$FX_FILE" /proc/"$pid"/maps | head -2 | tr '\n' ' ')"
        assert "running library: a new process loads the new library" \
            run_same "$BUILD/$FX_MAIN" "$MAIN"
        hold_stop
    else
        fail "running library: fixture started with --hold" "$WHY"
    fi
else
    skip "running shared library" "lld-shared not built or not x86_64"
fi

# ------------------------------------------------------------------------------
echo "# links"
fresh
mkdir -p "$D/a" "$D/b"
ln -s ../prog "$D/a/l1" && ln -s ../a/l1 "$D/b/l2"
la=$(listing "$D/a") lb=$(listing "$D/b")
run_tool "$D/b/l2"
assert "symlink chain: exits 0" tool_rc 0
[ -L "$D/a/l1" ] && [ -L "$D/b/l2" ] && [ "$(readlink "$D/b/l2")" = ../a/l1 ] &&
    pass "symlink chain: both links kept" || fail "symlink chain: both links kept" "$(ls -lR "$D")"
assert "symlink chain: target rewritten" same_file "$REF" "$D/prog"
assert "symlink chain: no temporary file beside the target" no_temp "$D"
assert "symlink chain: no temporary file beside the links" no_temp "$D/a"
assert "symlink chain: no temporary file beside the links" no_temp "$D/b"

fresh_dir
ln -s nowhere "$D/dangling"
l=$(listing "$D")
run_tool "$D/dangling"
assert "dangling symlink: exits 2" tool_rc 2
assert "dangling symlink: message names it" tool_err_names "$D/dangling"
[ -L "$D/dangling" ] && [ "$(readlink "$D/dangling")" = nowhere ] && [ ! -e "$D/nowhere" ] &&
    pass "dangling symlink: left alone, nothing created" || fail "dangling symlink: left alone" "$(ls -l "$D")"
assert "dangling symlink: directory unchanged" same_listing "$D" "$l"

ln -s loop2 "$D/loop1" && ln -s loop1 "$D/loop2"
l=$(listing "$D")
T_TIMEOUT=10 run_tool "$D/loop1"
assert "symlink loop: exits 2 (no hang)" tool_rc 2
assert "symlink loop: message names it" tool_err_names "$D/loop1"
assert "symlink loop: directory unchanged" same_listing "$D" "$l"

fresh
ln "$F" "$D/hard" && ln -s prog "$D/soft"
L=$(listing "$D")
run_tool "$D/soft"
refused "symlink to a hard-linked file" "$D/soft" "$SAVED" "$D" "$L"
[ "$(stat -c %h "$F")" = 2 ] && pass "symlink to a hard-linked file: still two links" ||
    fail "symlink to a hard-linked file: still two links" "link count $(stat -c %h "$F")"

# ------------------------------------------------------------------------------
echo "# special files"
fresh_dir
if python3 -c 'import socket, sys; s = socket.socket(socket.AF_UNIX); s.bind(sys.argv[1])' "$D/sock" 2>/dev/null; then
    l=$(listing "$D")
    T_TIMEOUT=10 run_tool "$D/sock"
    assert "UNIX socket: exits 2" tool_rc 2
    assert "UNIX socket: message names it" tool_err_names "$D/sock"
    assert "UNIX socket: directory unchanged" same_listing "$D" "$l"
else
    skip "UNIX socket" "cannot create one with python3"
fi
T_TIMEOUT=10 run_tool /dev/zero
assert "/dev/zero: exits 2 (no hang)" tool_rc 2
assert "/dev/zero: message names it" tool_err_names /dev/zero

fresh
mkfifo "$D/fifo-out"
L=$(listing "$D")
T_TIMEOUT=10 run_tool -o "$D/fifo-out" "$F"
[ "$T_RC" -ne 124 ] && pass "-o FIFO: does not hang" || fail "-o FIFO: does not hang" "killed after 10 s"
assert "-o FIFO: exits 2" tool_rc 2
[ -p "$D/fifo-out" ] && pass "-o FIFO: still a FIFO" || fail "-o FIFO: still a FIFO" "$(ls -l "$D")"
assert "-o FIFO: input byte-identical" same_file "$SAVED" "$F"
assert "-o FIFO: directory unchanged" same_listing "$D" "$L"

T_TIMEOUT=10 run_tool -o /dev/null "$F"
assert "-o /dev/null: exits 2" tool_rc 2
[ -c /dev/null ] && pass "-o /dev/null: /dev/null still a character device" ||
    fail "-o /dev/null: /dev/null still a character device" "$(ls -l /dev/null)"
assert "-o /dev/null: input byte-identical" same_file "$SAVED" "$F"

mkdir -p "$D/outdir"
L=$(listing "$D")
run_tool -o "$D/outdir" "$F"
assert "-o DIRECTORY: exits 2" tool_rc 2
assert "-o DIRECTORY: directory left empty" same_listing "$D/outdir" ""
assert "-o DIRECTORY: input byte-identical" same_file "$SAVED" "$F"

run_tool -o "$D/no/such/dir/out" "$F"
assert "-o into a missing directory: exits 2" tool_rc 2
assert "-o into a missing directory: input byte-identical" same_file "$SAVED" "$F"
assert "-o into a missing directory: nothing created" same_listing "$D" "$L"

# ------------------------------------------------------------------------------
echo "# a name too long for NAME.elfthp-XXXXXX"
fresh
long=$(printf 'p%.0s' $(seq 1 250))
mv "$F" "$D/$long"
L=$(listing "$D")
run_tool "$D/$long"
assert "250-character name: exits 0" tool_rc 0
assert "250-character name: rewritten" same_file "$REF" "$D/$long"
assert "250-character name: no temporary file" no_temp "$D"
assert "250-character name: directory unchanged" same_listing "$D" "$L"

# A signal the caller ignores stays ignored (nohup): the rewrite goes on.
if [ $have_strace = yes ]; then
    fresh
    DELAY_PREFIX=(python3 -c 'import os, signal, sys
signal.signal(signal.SIGHUP, signal.SIG_IGN)
os.execvp(sys.argv[1], sys.argv[1:])')
    delayed_start pwrite64 "$F"; rc=$?
    DELAY_PREFIX=()
    if [ $rc -eq 0 ]; then
        kill -HUP "$TP"
        delayed_wait
        assert "SIGHUP ignored by the caller (nohup): the rewrite goes on (exit 0)" tool_rc 0
        assert "SIGHUP ignored by the caller: rewritten" same_file "$REF" "$F"
    else
        delayed_wait
        fail "nohup: tool held in pwrite64" "it never got there: $(tool_said)"
    fi
else
    skip "SIGHUP ignored by the caller (nohup)" "strace with syscall delay injection not available"
fi

# ------------------------------------------------------------------------------
echo "# what no handler can clean up: SIGKILL, and the next run"
if [ $have_strace = yes ]; then
    fresh
    if delayed_start pwrite64 "$F"; then
        kill -KILL "$TP"
        delayed_wait
        left=$( (cd "$D" && ls -A) | grep -E '\.elfthp-' | head -1)
        [ -n "$left" ] && pass "SIGKILL: leaves $left (no handler runs)" ||
            fail "SIGKILL: leaves a temporary file" "none in $D"
        assert "SIGKILL: original byte-identical" same_file "$SAVED" "$F"
        # A fresh temporary file may be a writer that has not locked it
        # yet: one under 2 s old stays, the killed run's (made old) goes.
        cp "$FX" "$D/prog.elfthp-Fresh1"
        touch -d '-10 seconds' "$D/$left"
        run_tool "$F"
        assert "next run after SIGKILL: exits 0" tool_rc 0
        case $T_ERR in
            *"$D/$left: removed a stale temporary file"*) pass "next run: removes the stale temporary file and says so" ;;
            *) fail "next run: removes the stale temporary file and says so" "$(tool_said)" ;;
        esac
        [ -e "$D/prog.elfthp-Fresh1" ] && pass "next run: keeps a temporary file under 2 s old" ||
            fail "next run: keeps a temporary file under 2 s old" "$(tool_said)"
        rm -f "$D/prog.elfthp-Fresh1"
        assert "next run: no temporary file left" no_temp "$D"
        assert "next run: rewritten" same_file "$REF" "$F"
        # A temporary file that a live writer holds is never taken.
        fresh
        if delayed_start pwrite64 -o "$D/out1" "$F"; then
            sleep 2.5
            run_tool -o "$D/out2" "$F"
            assert "a second -o beside a live writer: exits 0" tool_rc 0
            case $T_ERR in
                *"removed a stale"*) fail "the live writer's temporary file is kept" "$(tool_said)" ;;
                *) pass "the live writer's temporary file is kept" ;;
            esac
            delayed_wait
            assert "the live writer then finishes (exit 0)" tool_rc 0
            assert "the live writer's output is complete" same_file "$REF" "$D/out1"
        else
            delayed_wait
            fail "live writer held in pwrite64" "it never got there: $(tool_said)"
        fi
    else
        delayed_wait
        fail "SIGKILL: tool held in pwrite64" "it never got there: $(tool_said)"
    fi
else
    skip "SIGKILL and the next run" "strace with syscall delay injection not available"
fi

echo "# RLIMIT_FSIZE: SIGXFSZ is ignored, EFBIG is an error"
fresh
out=$(ulimit -f 1024; "$TOOL" -o "$D/big-out" "$F" 2>&1); rc=$?
T_RC=$rc T_OUT="" T_ERR=$out
assert "RLIMIT_FSIZE 1 MiB: exits 2 (not killed by SIGXFSZ)" tool_rc 2
case $out in
    *"File too large"*) pass "RLIMIT_FSIZE: the message says the file is too large" ;;
    *) fail "RLIMIT_FSIZE: the message says the file is too large" "$out" ;;
esac
[ ! -e "$D/big-out" ] && pass "RLIMIT_FSIZE: no output" || fail "RLIMIT_FSIZE: no output" "$(ls -l "$D")"
assert "RLIMIT_FSIZE: no temporary file" no_temp "$D"
assert "RLIMIT_FSIZE: input byte-identical" same_file "$SAVED" "$F"

echo "# walks skip temporary files"
fresh
cp "$FX" "$D/prog.elfthp-Ab12Cd"
cp "$FX" "$D/.elfthp-Zz9Yy8"
id_t=$(file_id "$D/prog.elfthp-Ab12Cd")
run_tool --check -r "$D"
case $T_OUT in
    *"elfthp-Ab12Cd:"*|*"elfthp-Zz9Yy8:"*) fail "--check -r: temporary files are not judged" "$(tool_said)" ;;
    *) pass "--check -r: temporary files are not judged" ;;
esac
case $T_ERR in
    *"$D/prog.elfthp-Ab12Cd: skipped: a temporary file"*"$D/.elfthp-Zz9Yy8: skipped"*|*"$D/.elfthp-Zz9Yy8: skipped"*"$D/prog.elfthp-Ab12Cd: skipped: a temporary file"*)
        pass "--check -r: each skipped temporary file is named" ;;
    *) fail "--check -r: each skipped temporary file is named" "$(tool_said)" ;;
esac
case $T_OUT in
    *"skipped 2 temporary files"*) pass "--check -r: the summary counts them" ;;
    *) fail "--check -r: the summary counts them" "$(tool_said)" ;;
esac
run_tool -r -q "$D"
assert "-r: exits 0" tool_rc 0
assert "-r: a temporary file is never rewritten" same_id "$D/prog.elfthp-Ab12Cd" "$id_t"
assert "-r: the program beside it is" same_file "$REF" "$F"

echo "# -o into a sticky world-writable directory"
if [ $am_root = yes ] && command -v setpriv >/dev/null; then
    fresh
    chmod 711 "$WORK"          # let nobody reach $WORK/pub, no more
    P=$WORK/pub
    mkdir -p "$P/s" && chmod 755 "$P" && chmod 1777 "$P/s"
    printf 'root secrets\n' > "$P/victim" && chmod 600 "$P/victim"
    as_nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
    as_nobody ln -s "$P/victim" "$P/s/out"
    id_v=$(file_id "$P/victim")
    run_tool -o "$P/s/out" "$F"
    assert "a symlink planted by another user: exits 2" tool_rc 2
    case $T_ERR in
        *"is a symlink of uid 65534, neither root's nor the caller's; not followed"*) pass "a planted symlink: the message says whose it is" ;;
        *) fail "a planted symlink: the message says whose it is" "$(tool_said)" ;;
    esac
    assert "a planted symlink: the file it points to is untouched" same_id "$P/victim" "$id_v"
    [ "$(cat "$P/victim")" = "root secrets" ] && pass "a planted symlink: its target keeps its bytes" ||
        fail "a planted symlink: its target keeps its bytes" "$(head -c 40 "$P/victim" | od -c | head -2)"
    assert "a planted symlink: no temporary file" no_temp "$P/s"
    as_nobody sh -c "printf planted > '$P/s/out2'"
    run_tool -o "$P/s/out2" "$F"
    assert "a file planted by another user: exits 2" tool_rc 2
    [ "$(cat "$P/s/out2")" = planted ] && pass "a planted file: kept" || fail "a planted file: kept" "replaced"
    printf 'mine\n' > "$P/mine"
    ln -s "$P/mine" "$P/s/own-link"
    run_tool -o "$P/s/own-link" "$F"
    assert "the caller's own symlink there: exits 0" tool_rc 0
    assert "the caller's own symlink there: writes its target" same_file "$REF" "$P/mine"
    run_tool -o "$P/s/fresh" "$F"
    assert "a new name there: exits 0" tool_rc 0
    chmod 700 "$WORK"
else
    skip "-o into a sticky directory" "needs root and setpriv"
fi

echo "# a lock that speaks"
if command -v flock >/dev/null; then
    fresh
    flock -x "$F" sleep 6 &
    holder=$!
    sleep 0.3
    t0=$(date +%s%N)
    run_tool --lock-timeout 1 "$F"
    t1=$(date +%s%N)
    assert "locked by another: --lock-timeout 1 exits 2" tool_rc 2
    case $T_ERR in
        *"waiting for another elfthp-align on it"*"giving up (--lock-timeout)"*) pass "locked: says it waits, then gives up" ;;
        *) fail "locked: says it waits, then gives up" "$(tool_said)" ;;
    esac
    [ $(( (t1 - t0) / 1000000 )) -lt 4000 ] && pass "locked: gives up after about a second ($(( (t1 - t0) / 1000000 )) ms)" ||
        fail "locked: gives up after about a second" "$(( (t1 - t0) / 1000000 )) ms"
    assert "locked: the file is untouched" same_file "$SAVED" "$F"
    run_tool --lock-timeout 0 "$F"
    assert "locked: --lock-timeout 0 gives up at once" tool_rc 2
    kill "$holder" 2>/dev/null; wait "$holder" 2>/dev/null
    fresh
    flock -x "$F" sleep 1.5 &
    holder=$!
    sleep 0.2
    run_tool "$F"
    wait "$holder" 2>/dev/null
    assert "a lock released in time: the rewrite goes on (exit 0)" tool_rc 0
    case $T_ERR in
        *"waiting for another elfthp-align on it (up to 60 s)"*) pass "a lock released in time: the wait was said" ;;
        *) fail "a lock released in time: the wait was said" "$(tool_said)" ;;
    esac
    assert "a lock released in time: rewritten" same_file "$REF" "$F"
else
    skip "a lock that speaks" "flock(1) not installed"
fi

finish
