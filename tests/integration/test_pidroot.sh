#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# SPDX-FileCopyrightText: 2026 the elfthp-align authors
# test_pidroot.sh BUILDDIR - --pid on a process in another root or mount
# namespace (a container, a chroot): the path in /proc/PID/maps is the
# process's, and the same path here may name another file.  A printed
# command must act on the file the process maps.  On an ext4 image:
#   - mount namespace: `unshare -m` binds ctr/bin over host/bin, then runs
#     host/bin/prog (gnu-pie, unaligned), so it maps ctr/bin/prog under the
#     name host/bin/prog, which here is another file (the same bytes).
#     --pid (text and JSON) names /proc/PID/root/.../host/bin/prog, whose
#     inode is the mapped one; the command, pasted into sh, rewrites
#     ctr/bin/prog (congruent after), and --warm through that path makes
#     its windows huge; host/bin/prog keeps its sha256, its inode and an
#     empty page cache (the negative control: a tool that printed or
#     followed the plain path rewrites or warms it);
#   - chroot: a static program run by chroot at a path that names another
#     file here: the kernel writes its mapping's path from this root, so
#     --pid names the chroot's file and its command warms that file; the
#     file at the same path here stays cold and unchanged;
#   - a file no path from here names (a tmpfs mounted over its directory
#     in the process's namespace after it started): no command, JSON
#     path_here and command null, and the text says why;
#   - the control: a process in this root and namespace gets its plain
#     path (path_here = file).
# Needs root (a loop mount, unshare -m, chroot), x86_64 with 2 MiB PMDs.
. "$(dirname "$0")/lib.sh"
need_builddir "$@"
need_tool

if [ "$(uname -m)" != x86_64 ] || [ "$(id -u)" -ne 0 ] ||
   [ "$(cat /sys/kernel/mm/transparent_hugepage/hpage_pmd_size 2>/dev/null)" != 2097152 ]; then
    skip "pid in another root" "needs root on x86_64 with 2 MiB PMDs"
    finish
fi
for t in mkfs.ext4 unshare chroot readelf sha256sum fincore; do
    command -v "$t" >/dev/null || { fail "$t installed" "make deps installs it"; finish; }
done
fixture_line gnu-pie || { skip "pid in another root" "fixture gnu-pie not built"; finish; }
PIE=$BUILD/$FX_FILE
fixture_line gnu-static-pie || { skip "pid in another root" "fixture gnu-static-pie not built"; finish; }
STATIC=$BUILD/$FX_FILE
if ! unshare -m true 2>/dev/null; then
    skip "pid in another root" "unshare -m refused here"
    finish
fi

M=$WORK/ext4
if ! mount_image ext4 "$M"; then
    skip "pid in another root" "an ext4 image could not be mounted: $WHY"
    finish
fi

says() {
    case $1 in *"$2"*) return 0 ;; esac
    WHY="output [$1] lacks [$2]"; return 1
}
lacks() {
    case $1 in *"$2"*) WHY="output [$1] has [$2]"; return 1 ;; esac
    return 0
}
# ident FILE: "sha256 inode" of FILE.
ident() { echo "$(sha256sum < "$1" | cut -c1-64) $(stat -c %i "$1")"; }
# key JSON FILE KEY: KEY of the --pid line about FILE ("null" if null).
key() {
    printf '%s\n' "$1" | python3 -c 'import json, sys
for line in sys.stdin:
    o = json.loads(line)
    if o.get("file") == sys.argv[1]:
        v = o[sys.argv[2]]
        print("null" if v is None else v)
        break' "$2" "$3"
}
# started OUT: wait for "ready" in OUT (the program's --hold), 1 if never.
started() {
    local i
    for i in $(seq 1 600); do
        grep -q '^ready$' "$1" 2>/dev/null && return 0
        sleep 0.05
    done
    WHY="no ready in $1: $(head -3 "$1" | tr '\n' ' ')"
    return 1
}
# cached_some FILE: some of FILE is in the page cache.
cached_some() {
    [ "$(cached_bytes "$1")" != 0 ] && return 0
    WHY="nothing of $1 is cached"; return 1
}
# child_of PID: the pid of PID's one child (the program the shell ran).
child_of() { cat /proc/"$1"/task/*/children 2>/dev/null | awk '{ print $1; exit }'; }

# --- another mount namespace ------------------------------------------------
mkdir -p "$M/host/bin" "$M/ctr/bin"
cp "$PIE" "$M/host/bin/prog"
cp "$PIE" "$M/ctr/bin/prog"
HOST_ID=$(ident "$M/host/bin/prog")
CTR_INO=$(stat -c %i "$M/ctr/bin/prog")
: > "$WORK/ns.out"
unshare -m sh -c 'mount --bind "$1/ctr/bin" "$1/host/bin" && exec "$1/host/bin/prog" --hold' \
    sh "$M" > "$WORK/ns.out" 2>&1 &
NS=$!; HELD="$HELD $NS"
if ! assert "a program in its own mount namespace runs" started "$WORK/ns.out"; then
    finish
fi
HP=$M/host/bin/prog
HERE=/proc/$NS/root$HP
assert "fixture: the path here is another file than the one it maps" equals "inode" \
    "$(stat -c %i "$HP")/$(stat -c %i "$HERE")" "$(stat -c %i "$HP")/$CTR_INO"

run_tool --pid "$NS" --format json
json=$T_OUT
assert "--pid: exit 0" tool_rc 0
assert "JSON: the file as the process names it, its mapped inode" equals "file,inode" \
    "$(key "$json" "$HP" file),$(key "$json" "$HP" inode)" "$HP,$CTR_INO"
assert "JSON: path_here is /proc/PID/root and the path" equals path_here \
    "$(key "$json" "$HP" path_here)" "$HERE"
assert "JSON: the command names that path" equals command \
    "$(key "$json" "$HP" command)" "elfthp-align -- $HERE"
run_tool --pid "$NS"
assert "text: the next step names /proc/PID/root" says "$T_OUT" \
    "next: run elfthp-align -- $HERE, then restart pid $NS (prog)"
cmd=$(key "$json" "$HP" command)
sh -c "\"\$0\"${cmd#elfthp-align}" "$TOOL" > "$WORK/cmd.out" 2>&1
assert "the command, run by sh: exit 0" equals "rc" "$?" 0
assert "... it rewrote the file the process maps (congruent now)" check_congruence "$M/ctr/bin/prog"
assert "control: the same path here is untouched (sha256, inode)" equals "identity" \
    "$(ident "$HP")" "$HOST_ID"

# The rewritten file is mapped by no one: --warm through /proc/PID/root
# makes its windows huge, and never reads the file at the same path here.
drop_cache "$M/ctr/bin/prog"; drop_cache "$HP"
count_eligible "$M/ctr/bin/prog"; W=$ELIG_W
run_tool --warm -- "$HERE"
assert "--warm through /proc/PID/root: all $W windows made huge" says "$T_OUT" \
    "$W of $W windows huge (0 already, $W made huge)"
run_tool --warm -n -- "$M/ctr/bin/prog"
assert "... the container's file is huge in the page cache" says "$T_OUT" "$W of $W windows huge"
assert "control: the same path here has no page cached" equals "cached bytes" \
    "$(cached_bytes "$HP")" 0
kill "$NS"; wait "$NS" 2>/dev/null

# --- a chroot ---------------------------------------------------------------
# A static program, so the chroot needs nothing else; its path inside is
# $M/same/prog, which here names another file.  The kernel writes a
# chroot's mapping from the reader's root where the reader reaches it
# (the same mount namespace), so --pid names the chroot's file by its
# path here, and its command acts on it.
C=$M/croot
mkdir -p "$C$M/same" "$M/same"
cp "$STATIC" "$C$M/same/prog"
cp "$STATIC" "$M/same/prog"
SAME_ID=$(ident "$M/same/prog")
: > "$WORK/ch.out"
chroot "$C" "$M/same/prog" --hold > "$WORK/ch.out" 2>&1 &
CH=$!; HELD="$HELD $CH"
if assert "a static program in a chroot runs" started "$WORK/ch.out"; then
    run_tool --pid "$CH" --format json
    assert "chroot: path_here is the chroot's file, by its path here" equals path_here \
        "$(key "$T_OUT" "$C$M/same/prog" path_here)" "$C$M/same/prog"
    cmd=$(key "$T_OUT" "$C$M/same/prog" command)
    case $cmd in
        "elfthp-align --warm -- $C$M/same/prog"|"elfthp-align -- $C$M/same/prog")
            kill "$CH"; wait "$CH" 2>/dev/null
            drop_cache "$C$M/same/prog"; drop_cache "$M/same/prog"
            sh -c "\"\$0\"${cmd#elfthp-align}" "$TOOL" > "$WORK/cmd.out" 2>&1
            assert "chroot: the command put the chroot's file in the page cache" cached_some "$C$M/same/prog"
            ;;
        *) fail "chroot: the command names the chroot's file" "command [$cmd]" ;;
    esac
    cached=$(cached_bytes "$M/same/prog")  # before ident reads it
    assert "chroot control: the same path here is untouched (page cache, sha256, inode)" equals "identity" \
        "$cached $(ident "$M/same/prog")" "0 $SAME_ID"
fi
kill "$CH" 2>/dev/null; wait "$CH" 2>/dev/null

# --- a file no path from here names -------------------------------------------
# The program starts, then its namespace mounts a tmpfs over its
# directory: neither the path here nor /proc/PID/root's names the file.
cp "$PIE" "$M/ctr/bin/prog"
: > "$WORK/hid.out"
unshare -m sh -c 'mount --bind "$1/ctr/bin" "$1/host/bin" || exit 1
"$1/host/bin/prog" --hold > "$2" 2>&1 &
for i in $(seq 1 600); do grep -q "^ready$" "$2" && break; sleep 0.05; done
mount -t tmpfs none "$1/host/bin" && wait' sh "$M" "$WORK/hid.out" > /dev/null 2>&1 &
SH=$!; HELD="$HELD $SH"
hidden() {
    local i
    started "$WORK/hid.out" || return 1
    for i in $(seq 1 200); do
        HID=$(child_of "$SH")
        [ -n "$HID" ] && [ ! -e "/proc/$HID/root$HP" ] && return 0
        sleep 0.05
    done
    WHY="the tmpfs never hid the file"; return 1
}
if assert "a program whose directory its namespace then hides runs" hidden; then
    HELD="$HELD $HID"
    run_tool --pid "$HID" --format json
    assert "hidden: --pid exit 0" tool_rc 0
    assert "hidden: JSON path_here and command are null" equals "path_here,command" \
        "$(key "$T_OUT" "$HP" path_here),$(key "$T_OUT" "$HP" command)" "null,null"
    run_tool --pid "$HID"
    assert "hidden: the text says it cannot be named from here" says "$T_OUT" \
        "next: the file pid $HID (prog) maps cannot be named from here: neither $HP nor /proc/$HID/root$HP names it"
    assert "hidden: no command is printed" lacks "$T_OUT" "run elfthp-align --"
    kill "$HID" 2>/dev/null
fi
wait "$SH" 2>/dev/null

# --- the control: this root and namespace ------------------------------------
cp "$PIE" "$M/plain"
if hold_start "$WORK/plain.out" "$M/plain"; then
    run_tool --pid "$HOLD_PID" --format json
    assert "control: a process in this root gets its own path" equals "path_here,command" \
        "$(key "$T_OUT" "$M/plain" path_here),$(key "$T_OUT" "$M/plain" command)" \
        "$M/plain,elfthp-align -- $M/plain"
    hold_stop
else
    fail "control: a program in this root runs" "$WHY"
fi
finish
