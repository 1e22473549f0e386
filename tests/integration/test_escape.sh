#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# SPDX-FileCopyrightText: 2026 the elfthp-align authors
# test_escape.sh BUILDDIR - a root run never leaves what it was given,
# whatever another user does meanwhile.  Root rewrites in place in a
# world-writable (1777) directory R in which nobody owns sub/ with N
# unaligned programs; V is root's own directory with programs of the
# same names, which must never change.
#   - deterministic (the run held in strace at its first flock, after the
#     walk and the first file's open; the swap done then):
#       - sub/ swapped for a symlink to V: every later file refused with
#         "sub is no longer a directory", the file already open rewritten
#         where it was found (sub.r/), V untouched;
#       - each later file swapped for a symlink to V's: refused with
#         "became a symlink", V untouched;
#       - the argument itself (-r R/sub) swapped: refused, not followed
#         (nobody's symlink, named);
#       - the argument replaced by another directory of nobody's (renamed,
#         no link): the later files refused, the directory put there
#         untouched;
#       - a named file's directory swapped after it was opened: the
#         rewrite lands in the directory resolved, V untouched;
#       - the temporary file swapped for a FIFO before the new file is
#         read again and renamed: no hang, exit 2, "replaced by another
#         process", the original byte-identical, the FIFO not renamed in;
#   - racing: nobody swaps sub/ and a symlink to V in a loop for the
#     length of a run, three timings; V untouched, no temporary file
#     left anywhere in R;
#   - stale temporary files of the file's owner (a root run chowns its
#     temporary file to the owner) are swept by the next run; those of an
#     owner who is neither the caller, the directory's owner nor the
#     target's are kept.
# Negative controls: the check "V untouched" fails once the tool has
# rewritten a file of V (as it did before directory descriptors).
# Needs root (setpriv, chown) and strace.
. "$(dirname "$0")/lib.sh"
need_builddir "$@"
need_tool

if ! fixture_line gnu-pie; then
    skip "escape tests" "fixture gnu-pie not built"
    finish
fi
FX=$BUILD/$FX_FILE
NOBODY=65534
N=8
if [ "$(id -u)" -ne 0 ] || ! command -v setpriv > /dev/null; then
    skip "escape tests" "need root and setpriv"
    finish
fi
if ! command -v strace > /dev/null; then
    skip "escape tests" "need strace"
    finish
fi
as_nobody() { setpriv --reuid=$NOBODY --regid=$NOBODY --clear-groups "$@"; }
chmod 711 "$WORK"
# No page-cache step and no fsync: the paths under test, in less time.
FAST=(--no-warm --no-sync)

# make_tree COUNT: a fresh R (1777) holding nobody's sub/ with f01..fCOUNT,
# and root's V with the same names; V_IDS: their inodes and mtimes.
make_tree() {
    local i f
    fresh_dir; R=$D; chmod 1777 "$R"
    fresh_dir; V=$D; chmod 755 "$V"
    mkdir "$R/sub"
    for i in $(seq -w 1 "$1"); do
        cp "$FX" "$R/sub/f$i"
        cp "$FX" "$V/f$i"
    done
    chown -R $NOBODY:$NOBODY "$R/sub"
    V_IDS=$(for f in "$V"/*; do file_id "$f"; done)
    V_LIST=$(listing "$V")
}

# v_untouched: every file of V is the original, same inode and mtime; no
# file came or went.
v_untouched() {
    local f now
    for f in "$V"/f*; do
        cmp -s "$FX" "$f" || { WHY="$f was rewritten"; return 1; }
    done
    now=$(for f in "$V"/*; do file_id "$f"; done)
    [ "$now" = "$V_IDS" ] || { WHY="a file of $V was replaced"; return 1; }
    same_listing "$V" "$V_LIST"
}

# err_count TEXT: lines of the last run's stderr holding TEXT.
err_count() { printf '%s\n' "$T_ERR" | grep -cF -- "$1"; }

# held_swap CMD...: run the tool held at its first flock, run CMD (as
# nobody) while it waits, and wait for the tool.
held_swap() {
    local args=("${TOOL_ARGS[@]}")
    if ! delayed_start flock "${args[@]}"; then
        delayed_wait
        WHY="the run never reached flock: $(tool_said)"
        return 1
    fi
    as_nobody "$@"
    delayed_wait
    return 0
}

echo "# deterministic: sub/ becomes a symlink to root's directory"
make_tree $N
TOOL_ARGS=("${FAST[@]}" -r -j 1 "$R")
if held_swap sh -c 'mv "$1/sub" "$1/sub.r" && ln -s "$2" "$1/sub"' sh "$R" "$V"; then
    assert "dir swap: root's files untouched" v_untouched
    assert "dir swap: exits 2" tool_rc 2
    assert "dir swap: the $((N - 1)) later files refused, not followed" equals \
        "refusals" "$(err_count "sub is no longer a directory")" $((N - 1))
    assert "dir swap: the open file rewritten where it was found" \
        check_congruence "$R/sub.r/f1"
    assert "dir swap: no temporary file in R" no_temp_tree "$R"
    assert "dir swap: no temporary file in V" no_temp "$V"
    # The control: the check sees a file of V rewritten.
    run_tool "${FAST[@]}" "$V/f2"
    assert_not "control: v_untouched fails once a file of V is rewritten" v_untouched
else
    fail "dir swap: the run was held" "$WHY"
fi

echo "# deterministic: each later file becomes a symlink to root's file"
make_tree $N
TOOL_ARGS=("${FAST[@]}" -r -j 1 "$R")
if held_swap sh -c 'for f in "$1"/sub/f*; do b=${f##*/}; [ "$b" = f1 ] ||
        { rm "$f" && ln -s "$2/$b" "$f"; }; done' sh "$R" "$V"; then
    assert "file swap: root's files untouched" v_untouched
    assert "file swap: exits 2" tool_rc 2
    assert "file swap: the $((N - 1)) links refused" equals "refusals" \
        "$(err_count "became a symlink since it was found; not followed")" $((N - 1))
    assert "file swap: no temporary file in R" no_temp_tree "$R"
else
    fail "file swap: the run was held" "$WHY"
fi

echo "# deterministic: the argument of -r is swapped after the walk"
make_tree $N
TOOL_ARGS=("${FAST[@]}" -r -j 1 "$R/sub")
if held_swap sh -c 'mv "$1/sub" "$1/sub.r" && ln -s "$2" "$1/sub"' sh "$R" "$V"; then
    assert "argument swap: root's files untouched" v_untouched
    assert "argument swap: the later files refused" equals "refusals" \
        "$(err_count "sub is a symlink of uid $NOBODY, neither root's nor the caller's; not followed")" $((N - 1))
else
    fail "argument swap: the run was held" "$WHY"
fi

echo "# deterministic: the argument of -r is replaced by another directory after the walk"
# Not a link, which the resolver refuses by itself: nobody renames sub/
# away and another directory of theirs, with programs of the same names,
# to sub.  The walk's files are in the first; the second was never walked.
make_tree $N
mkdir "$R/other"
for i in $(seq -w 1 $N); do cp "$FX" "$R/other/f$i"; done
chown -R $NOBODY:$NOBODY "$R/other"
other_untouched() {
    local f
    for f in "$R"/sub/f*; do
        cmp -s "$FX" "$f" || { WHY="$f, in the directory put there, was rewritten"; return 1; }
    done
}
TOOL_ARGS=("${FAST[@]}" -r -j 1 "$R/sub")
if held_swap sh -c 'mv "$1/sub" "$1/sub.r" && mv "$1/other" "$1/sub"' sh "$R"; then
    assert "directory swap: exits 2" tool_rc 2
    assert "directory swap: the later files refused" equals "refusals" \
        "$(err_count "was replaced by another directory since the walk; not followed")" $((N - 1))
    assert "directory swap: the directory put there untouched" other_untouched
    assert "directory swap: the open file rewritten where it was found" \
        check_congruence "$R/sub.r/f1"
    assert "directory swap: root's files untouched" v_untouched
else
    fail "directory swap: the run was held" "$WHY"
fi

echo "# deterministic: a named file's directory is swapped after its open"
make_tree 1
TOOL_ARGS=("${FAST[@]}" "$R/sub/f1")
if held_swap sh -c 'mv "$1/sub" "$1/sub.r" && ln -s "$2" "$1/sub"' sh "$R" "$V"; then
    assert "named: root's files untouched" v_untouched
    assert "named: exits 0" tool_rc 0
    assert "named: rewritten in the directory resolved" check_congruence "$R/sub.r/f1"
else
    fail "named: the run was held" "$WHY"
fi

echo "# deterministic: the temporary file is swapped for a FIFO"
fresh_dir
P=$D
chown $NOBODY:$NOBODY "$P"
cp "$FX" "$P/prog" && chown $NOBODY:$NOBODY "$P/prog"
# The second flock is the temporary file's, right after it is made.
DELAY_WHEN=2 DELAY_TIMEOUT=60
if delayed_start flock --no-sync "$P/prog"; then
    as_nobody sh -c 't=$(ls "$1"/prog.elfthp-*) && mv "$t" "$1/moved" &&
        mkfifo "$t"' sh "$P"
    delayed_wait
    assert "FIFO: the run ends (no blocking open), exit 2" tool_rc 2
    case $T_ERR in
        *"replaced by another process"*) pass "FIFO: says the new file was replaced" ;;
        *) fail "FIFO: says the new file was replaced" "$(tool_said)" ;;
    esac
    # Not cmp first: a FIFO renamed over prog would block it.
    if [ -f "$P/prog" ] && [ ! -p "$P/prog" ]; then
        assert "FIFO: the original byte-identical" same_file "$FX" "$P/prog"
    else
        fail "FIFO: the original byte-identical" "$P/prog is no longer a regular file"
    fi
    fifo=$(find "$P" -maxdepth 1 -type p -name 'prog.elfthp-*' | grep -c .)
    assert "FIFO: left where the user put it, not renamed in" equals "FIFOs" "$fifo" 1
else
    delayed_wait
    fail "FIFO: the run was held" "$(tool_said)"
fi
DELAY_WHEN=1 DELAY_TIMEOUT=120

echo "# racing: sub/ and a symlink to V swapped in a loop"
for pause in 0.002 0.02 0.1; do
    make_tree 20
    # setpriv execs sh: $! is the racer itself, which kill then stops.
    setpriv --reuid=$NOBODY --regid=$NOBODY --clear-groups \
        sh -c 'while :; do mv "$1/sub" "$1/sub.r" 2>/dev/null &&
        ln -s "$2" "$1/sub"; sleep "$3"; rm -f "$1/sub" &&
        mv "$1/sub.r" "$1/sub" 2>/dev/null; sleep "$3"; done' \
        sh "$R" "$V" "$pause" &
    racer=$!
    HELD="$HELD $racer"
    run_tool "${FAST[@]}" -q -r -j 1 "$R"
    kill "$racer"; wait "$racer" 2>/dev/null
    HELD=${HELD% $racer}
    echo "# race (pause $pause s): $(err_count "not followed") of 20 files refused, exit $T_RC"
    assert "race (pause $pause s): root's files untouched" v_untouched
    assert "race (pause $pause s): no temporary file left in R" no_temp_tree "$R"
    assert "race (pause $pause s): no temporary file in V" no_temp "$V"
done

echo "# stale temporary files of the file's owner"
fresh_dir
chown $NOBODY:$NOBODY "$D"
cp "$FX" "$D/prog" && cp "$FX" "$D/other" && chown $NOBODY:$NOBODY "$D/prog"
chown 12345:12345 "$D/other"
# Left by a lost race: chowned to the owner of the file it stands beside.
printf x > "$D/prog.elfthp-Ab12Cd"; chown $NOBODY:$NOBODY "$D/prog.elfthp-Ab12Cd"
# Neither the caller's, the directory's nor the target's owner.
printf x > "$D/other.elfthp-Zz99Yy"; chown 23456:23456 "$D/other.elfthp-Zz99Yy"
touch -d '1 minute ago' "$D/prog.elfthp-Ab12Cd" "$D/other.elfthp-Zz99Yy"
run_tool "${FAST[@]}" "$D/prog"
assert "stale: the run exits 0" tool_rc 0
assert_not "stale: the owner's temporary file is removed" test -e "$D/prog.elfthp-Ab12Cd"
case $T_ERR in
    *"$D/prog.elfthp-Ab12Cd: removed a stale temporary file"*)
        pass "stale: its removal is said, naming it" ;;
    *) fail "stale: its removal is said, naming it" "$(tool_said)" ;;
esac
assert "stale: a stranger's file of that name is kept" test -e "$D/other.elfthp-Zz99Yy"

finish
