#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# SPDX-FileCopyrightText: 2026 the elfthp-align authors
# test_symlinks.sh BUILDDIR - a root run never follows another user's
# symlink, on any component of any path it is given.  T is root's sticky
# world-writable directory (a /var/tmp); V is root's directory holding
# prog, d/prog and out, unaligned programs that must never change (their
# sha256, inode, mtime and ctime are compared).  As nobody, links to V's
# files and directories are planted in T; root then runs the tool on:
#   - a named path: the link itself (T/prog) and through a directory
#     component (T/sub/prog, sub -> V);
#   - a -f line, both ways;
#   - a walk's argument (-r T/sub, and -r T/sub/d);
#   - a line of the paths file as the unit and the APT hook run it
#     (-q -r -x -f LIST), a directory line and a file line;
#   - -o through a directory component (-o T/sub/out) and as the link;
#   - deterministic: the run held in strace at the readlinkat of a root
#     link on its way while nobody swaps the directory after it for a
#     symlink to V (the exchange loop's outcome, fixed in time);
#   - racing: nobody exchanges a directory and a symlink to V (renameat2
#     RENAME_EXCHANGE, python) while root runs the named path, bounded.
# Each must leave V as it was and name the refused link (exit 2).
# Controls: a symlink of root's in the same places is followed (V's file
# is rewritten, so the "untouched" check can fail); and a relative line in
# a list root reads is refused naming the list and the line, while the
# same line from standard input is taken (the caller's own pipe).
# Also: a walked file deeper than PATH_MAX goes through the page-cache
# step (its file system found from its descriptor, not realpath); the
# packaging helpers: brp-elfthp-align with RPM_BUILD_ROOT spelled //, /./,
# /. or /usr/.. (not run), and it and dh_elfthp_align on a build tree with
# a FIFO and a directory nobody exchanges with a symlink to V (bounded
# loops, each run limited to 60 s).
# Needs root and setpriv; the deterministic case needs strace.
. "$(dirname "$0")/lib.sh"
need_builddir "$@"
need_tool

if ! fixture_line gnu-pie; then
    skip "symlink tests" "fixture gnu-pie not built"
    finish
fi
FX=$BUILD/$FX_FILE
NOBODY=65534
if [ "$(id -u)" -ne 0 ] || ! command -v setpriv > /dev/null; then
    skip "symlink tests" "need root and setpriv"
    finish
fi
as_nobody() { setpriv --reuid=$NOBODY --regid=$NOBODY --clear-groups "$@"; }
chmod 711 "$WORK"
FAST=(--no-warm --no-sync)

# setup: T (root's, 1777) and V (root's) with prog, d/prog and out.
setup() {
    fresh_dir; T=$D; chmod 1777 "$T"
    fresh_dir; V=$D; chmod 755 "$V"
    mkdir "$V/d"
    cp "$FX" "$V/prog"; cp "$FX" "$V/d/prog"; cp "$FX" "$V/out"
    IDS=$(victim_ids)
}
victim_ids() {
    local f
    for f in "$V/prog" "$V/d/prog" "$V/out"; do
        printf '%s %s\n' "$(sha256sum < "$f" | cut -c1-64)" \
            "$(stat -c '%i %.9Y %.9Z' "$f")"
    done
}
# untouched: every file of V has its sha256, inode, mtime and ctime.
untouched() {
    [ "$(victim_ids)" = "$IDS" ] && return 0
    WHY="a file of $V changed: $(tool_said)"; return 1
}
# refused LINK: exit 2 and the refusal names LINK.
refused() {
    tool_rc 2 || return 1
    printf '%s\n' "$T_ERR" | grep -qF -- "$1 is a symlink of uid $NOBODY, neither root's nor the caller's; not followed" && return 0
    WHY="no refusal naming $1: $(tool_said)"; return 1
}
# not_refused: a --check run that followed its links (exit 0 or 1).
not_refused() {
    [ "$T_RC" -le 1 ] && ! printf '%s\n' "$T_ERR" | grep -q "not followed" && return 0
    WHY="$(tool_said)"; return 1
}
# plant NAME TARGET: nobody's symlink T/NAME -> TARGET.
plant() { as_nobody ln -s "$2" "$T/$1"; }

# case DESC LINK ARGS...: run the tool, V untouched and LINK refused.
case_refused() {
    local desc=$1 link=$2; shift 2
    run_tool "$@"
    assert "$desc: root's files untouched" untouched
    assert "$desc: refused, naming the link" refused "$link"
}

echo "# named paths"
setup; plant prog "$V/prog"; plant sub "$V"
case_refused "named, the link" "$T/prog" "${FAST[@]}" "$T/prog"
case_refused "named, a directory component" "$T/sub" "${FAST[@]}" "$T/sub/prog"
case_refused "named, --check" "$T/sub" --check "$T/sub/prog"
# A relative name: resolved from the working directory, the same rule.
cd "$T" || exit 1
case_refused "named, relative" "$T/sub" "${FAST[@]}" "sub/d/prog"
cd - > /dev/null

echo "# -f lines"
setup; plant prog "$V/prog"; plant sub "$V"
fresh_dir; LIST=$D/list
printf '%s\n' "$T/prog" > "$LIST"
case_refused "-f line, the link" "$T/prog" "${FAST[@]}" -f "$LIST"
printf '%s\n' "$T/sub/d/prog" > "$LIST"
case_refused "-f line, a directory component" "$T/sub" "${FAST[@]}" -f "$LIST"

echo "# walk roots"
setup; plant sub "$V"
case_refused "walk root, the link" "$T/sub" "${FAST[@]}" -r "$T/sub"
case_refused "walk root, a directory component" "$T/sub" "${FAST[@]}" -r "$T/sub/d"

echo "# the paths file, as the unit and the APT hook read it"
setup; plant sub "$V"
printf '# paths\n%s\n%s\n' "$T/sub" "$T/sub/d/prog" > "$LIST"
case_refused "paths file (-q -r -x -f)" "$T/sub" -q -r -x "${FAST[@]}" -f "$LIST"
assert "paths file: both lines refused" equals "refusals" \
    "$(printf '%s\n' "$T_ERR" | grep -c "is a symlink of uid $NOBODY")" 2

echo "# -o"
setup; plant sub "$V"; plant out "$V/out"
fresh; IN=$F
case_refused "-o through a directory component" "$T/sub" "${FAST[@]}" -o "$T/sub/out" "$IN"
case_refused "-o, the link" "$T/out" "${FAST[@]}" -o "$T/out" "$IN"
as_nobody cp "$FX" "$T/planted"
run_tool "${FAST[@]}" -o "$T/planted" "$IN"
assert "-o over nobody's file in a sticky directory: refused" equals "message" \
    "$(tool_rc 2 && printf '%s\n' "$T_ERR" | grep -c "is a file of uid $NOBODY in a sticky world-writable directory; not writing over it")" 1

echo "# controls: root's own symlinks are followed"
setup
ln -s "$V" "$T/rootsub"; ln -s "$V/prog" "$T/rootprog"
run_tool "${FAST[@]}" "$T/rootsub/d/prog"
assert "control: root's directory link followed (exit 0)" tool_rc 0
assert "control: root's directory link: V/d/prog rewritten" check_congruence "$V/d/prog"
assert_not "control: untouched fails once V's file is rewritten" untouched
setup; ln -s "$V/prog" "$T/rootprog"
printf '%s\n' "$T/rootprog" > "$LIST"
run_tool "${FAST[@]}" -f "$LIST"
assert "control: root's link in a -f line followed" check_congruence "$V/prog"
setup; ln -s "$V" "$T/rootsub"
run_tool "${FAST[@]}" -r "$T/rootsub/d"
assert "control: a walk through root's link" check_congruence "$V/d/prog"
SYSLIB=$(ls /lib/*-linux-gnu*/libc.so.6 2> /dev/null | head -1)
if [ -L /lib ] && [ "$(stat -c %u /lib)" = 0 ] && [ -n "$SYSLIB" ]; then
    run_tool --check "$SYSLIB"
    assert "control: the system's /lib -> usr/lib is followed" not_refused
else
    skip "control: the system's /lib link" "/lib is not root's symlink here"
fi

echo "# a relative line in a list root reads"
fresh; REL=$D
printf 'prog\n' > "$REL/list"
(cd "$REL" && run_tool "${FAST[@]}" -f "$REL/list"; declare -p T_RC T_ERR) > "$WORK/.rel" 2>&1
. "$WORK/.rel"
assert "relative list line: exit 2" tool_rc 2
assert "relative list line: names the list and the line" equals "message" \
    "$(printf '%s\n' "$T_ERR" | grep -cF "$REL/list: line 1: prog is a relative path; a list root reads takes absolute paths only")" 1
assert "relative list line: the file is left as it was" same_file "$SAVED" "$F"
T_OUT=$(cd "$REL" && printf 'prog\n' | "$TOOL" "${FAST[@]}" -f - 2>&1); T_RC=$?
assert "control: the same line from standard input is taken" check_congruence "$F"

if command -v strace > /dev/null; then
    echo "# deterministic: held at the readlinkat of root's link, then swapped"
    setup
    mkdir "$T/real"; chown $NOBODY:$NOBODY "$T/real"
    as_nobody mkdir "$T/real/sub"; as_nobody cp "$FX" "$T/real/sub/prog"
    ln -s real "$T/via"
    DELAY_US=1500000
    if delayed_start readlinkat "${FAST[@]}" "$T/via/sub/prog"; then
        as_nobody sh -c 'mv "$1/real/sub" "$1/real/sub.r" && ln -s "$2" "$1/real/sub"' sh "$T" "$V"
        delayed_wait
        assert "held swap: root's files untouched" untouched
        assert "held swap: refused, naming the link" refused "$T/real/sub"
    else
        delayed_wait
        fail "held swap: the run was held at readlinkat" "$(tool_said)"
    fi
else
    skip "held swap" "need strace"
fi

if [ -x /usr/bin/python3 ]; then
    echo "# racing: a directory and a symlink to V exchanged (renameat2)"
    setup
    mkdir "$T/real"; chown $NOBODY:$NOBODY "$T/real"
    as_nobody cp "$FX" "$T/real/prog"; as_nobody ln -s "$V" "$T/sub"
    as_nobody mv "$T/real" "$T/sub.d"
    as_nobody /usr/bin/python3 - "$T/sub" "$T/sub.d" 8 <<'EOF' &
import ctypes, sys, time
libc = ctypes.CDLL(None, use_errno=True)
a, b, secs = sys.argv[1].encode(), sys.argv[2].encode(), float(sys.argv[3])
end = time.time() + secs
while time.time() < end:
    libc.renameat2(-100, a, -100, b, 2)  # RENAME_EXCHANGE
EOF
    XPID=$!
    runs=0 refusals=0
    while kill -0 "$XPID" 2> /dev/null && [ "$runs" -lt 150 ]; do
        run_tool "${FAST[@]}" "$T/sub/prog"
        runs=$((runs + 1))
        printf '%s\n' "$T_ERR" | grep -q "is a symlink of uid $NOBODY" && refusals=$((refusals + 1))
    done
    wait "$XPID"
    echo "# race: $runs runs, $refusals refused"
    assert "race: root's files untouched after $runs runs" untouched
    assert "race: the link was met and refused" test "$refusals" -gt 0
    assert "race: more than 10 runs" test "$runs" -gt 10
else
    skip "race" "no /usr/bin/python3"
fi
echo "# a walked file deeper than PATH_MAX: never looked up again by path"
# The page-cache step found the file's file system by realpath() of its
# path: past PATH_MAX the file was rewritten and the run then said
# "could not look: realpath: File name too long" (exit 2).
fresh_dir; DEEP=$D
(cd "$DEEP" && n=$(printf 'd%.0s' $(seq 1 200)) &&
    for i in $(seq 1 25); do mkdir "$n" && cd "$n" || exit 1; done && cp "$FX" prog)
(cd "$DEEP" && run_tool -r . ; declare -p T_RC T_OUT T_ERR) > "$WORK/.deep" 2>&1
. "$WORK/.deep"
assert "deep: the walk and the page-cache step exit 0" tool_rc 0
assert "deep: no realpath in the messages" equals "realpath lines" \
    "$(printf '%s\n' "$T_OUT$T_ERR" | grep -c realpath)" 0
assert "deep: the file was rewritten" equals "aligned lines" \
    "$(printf '%s\n' "$T_OUT" | grep -c ": 2 segments aligned")" 1

echo "# brp-elfthp-align: RPM_BUILD_ROOT spelled as /"
fresh_dir; P=$D
sed "s|@BINDIR@|$P|" "$REPO_ROOT/dist/rpm/brp-elfthp-align.in" > "$P/brp"
printf '#!/bin/sh\necho "$PWD" >> %s/calls\n' "$P" > "$P/fake"
chmod +x "$P/fake"
for r in / // /./ /. /usr/..; do
    rm -f "$P/calls"
    RPM_BUILD_ROOT=$r timeout 20 sh "$P/brp" "$P/fake" > /dev/null 2>&1
    assert "brp: RPM_BUILD_ROOT=$r is /: the tool is not run" test ! -e "$P/calls"
done
mkdir "$P/root"
RPM_BUILD_ROOT=$P/root/./ timeout 20 sh "$P/brp" "$P/fake" > /dev/null 2>&1
assert "control: brp: a build root is walked" equals "where" "$(cat "$P/calls" 2> /dev/null)" "$P/root"

# hostile_tree DIR: in DIR (made 1777), nobody's usr/lib/pub holding a
# copy of the program, and pub.x, a symlink to V, which an exchange loop
# swaps with pub; and usr/lib/libw.so, a program, which it swaps with
# libw.x, a FIFO (a name checked as a file, then opened, blocks).
hostile_tree() {
    chmod 1777 "$1"
    as_nobody mkdir -p "$1/usr/lib/pub"
    as_nobody cp "$FX" "$1/usr/lib/pub/libv.so"
    as_nobody cp "$FX" "$1/usr/lib/libw.so"
    as_nobody mkfifo "$1/usr/lib/libw.x"
    as_nobody ln -s "$V" "$1/usr/lib/pub.x"
}
# exchange_loop DIR SECS: nobody exchanges (renameat2 RENAME_EXCHANGE)
# DIR/usr/lib/pub with pub.x and libw.so with libw.x, for SECS.
exchange_loop() {
    as_nobody /usr/bin/python3 - "$1/usr/lib" "$2" <<'EOF' &
import ctypes, os, sys, time
libc = ctypes.CDLL(None, use_errno=True)
d, secs = sys.argv[1], float(sys.argv[2])
pairs = [(os.path.join(d, a).encode(), os.path.join(d, b).encode())
         for a, b in (('pub', 'pub.x'), ('libw.so', 'libw.x'))]
end = time.time() + secs
while time.time() < end:
    for a, b in pairs:
        libc.renameat2(-100, a, -100, b, 2)  # RENAME_EXCHANGE
EOF
    XPID=$!
}
# helper_runs DESC CMD...: CMD (limited to 60 s) again and again while the
# exchange loop runs; no run hangs, V untouched.
helper_runs() {
    local desc=$1 runs=0 hung=0 rc; shift
    : > "$WORK/.h.all"
    while kill -0 "$XPID" 2> /dev/null && [ "$runs" -lt 40 ]; do
        timeout 60 "$@" >> "$WORK/.h.all" 2>&1; rc=$?
        [ "$rc" -eq 124 ] && hung=$((hung + 1))
        runs=$((runs + 1))
    done
    wait "$XPID"
    echo "# $desc: $runs runs"
    assert "$desc: no run hangs on the FIFO" equals "hung" "$hung" 0
    assert "$desc: root's files untouched after $runs runs" untouched
    assert "$desc: more than 2 runs" test "$runs" -gt 2
    assert "$desc: the tool reached the tree (its line on pub/libv.so)" \
        grep -q "pub/libv.so: " "$WORK/.h.all"
}

if [ -x /usr/bin/python3 ]; then
    echo "# brp-elfthp-align: a FIFO and an exchange loop in the build root"
    setup; fresh_dir; B=$D; hostile_tree "$B"
    sed "s|@BINDIR@|$(dirname "$TOOL")|" "$REPO_ROOT/dist/rpm/brp-elfthp-align.in" > "$P/brp"
    exchange_loop "$B" 6
    RPM_BUILD_ROOT=$B helper_runs "brp" sh "$P/brp" "$TOOL"
    if perl -MDebian::Debhelper::Dh_Lib -e 1 2> /dev/null; then
        echo "# dh_elfthp_align: a FIFO and an exchange loop in the package tree"
        setup; fresh_dir; S=$D
        mkdir "$S/debian" "$S/debian/tt"
        printf 'Source: tt\nMaintainer: T <t@example.org>\nBuild-Depends: debhelper-compat (= 13)\n\nPackage: tt\nArchitecture: all\nDescription: t\n t\n' > "$S/debian/control"
        hostile_tree "$S/debian/tt"
        exchange_loop "$S/debian/tt" 6
        cd "$S" || exit 1
        PATH=$(dirname "$TOOL"):$PATH helper_runs "dh" perl "$REPO_ROOT/dist/debhelper/dh_elfthp_align" -ptt
        cd - > /dev/null
    else
        skip "dh_elfthp_align under exchange" "debhelper not installed"
    fi
else
    skip "packaging helpers under exchange" "no /usr/bin/python3"
fi
finish
