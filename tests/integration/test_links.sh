#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# SPDX-FileCopyrightText: 2026 the elfthp-align authors
# test_links.sh BUILDDIR - the whole host: hard links and ELF files Linux
# never runs, as `elfthp-align -q -r -x /usr` meets them.
#   - a file with 3 names in two directories of a tree (the lld-pie
#     fixture, which needs padding: every segment moves), all in the run:
#     one new file, nlink 3, every segment's bytes kept, congruent, runs
#     and prints the same; -j 4 too; a -f list of the names too; with
#     --break-hardlinks each name is its own file (its meaning unchanged);
#   - a file with a name outside the tree: left alone (same inode, bytes),
#     exit 0, "not done" said; --check: exit 1, the "not done" count in the
#     summary (text and JSON); named on the command line: exit 2 as always;
#   - a firmware-like ELF (mkelf_unloadable.py: PT_LOAD offset and address
#     differ modulo 4096): skipped in a walk in every mode, reason under
#     -v, counted as not applicable; skipped in a -f list; an error when
#     named; a truncated program and an incongruent file that is also
#     malformed (past EOF, overlapping) stay errors (exit 2);
#   - the run held (strace) between two renames of a group: SIGTERM and
#     SIGINT wait for the last name (every name the new file, one inode, no
#     temporary name); SIGKILL leaves each name whole, old or new, and the
#     rerun gives every name the new bytes and removes the temporary names;
#   - a name replaced by another process between two renames keeps what
#     the other process put there; the file's other names stay one file;
#     so does the first name (renamed last), replaced while the first
#     other name's rename is held; and a name replaced where
#     RENAME_EXCHANGE fails (EINVAL by strace, as on NFS), renamed over
#     with renameat after its check;
#   - the directory of every name is fsynced after the renames (strace -y:
#     b, z's directory, only once z is renamed);
#   - a name given twice is one name: `x x` with a second name y not in
#     the run is refused (exit 2), x and y stay one file.
# Negative controls: the checks "one file" and "congruent" fail on the
# original and after --break-hardlinks; a truncated copy is refused.
. "$(dirname "$0")/lib.sh"
need_builddir "$@"
need_tool

if ! fixture_line lld-pie; then
    skip "hard-link tests" "fixture lld-pie not built"
    finish
fi
FX=$BUILD/$FX_FILE
MKELF=$LIB_DIR/mkelf_unloadable.py
FAST=(--no-warm --no-sync)

# REF: what the rewrite makes of FX (-o: the same bytes as in place).
REF=$WORK/ref
"$TOOL" "${FAST[@]}" -o "$REF" "$FX" > /dev/null 2>&1 ||
    { fail "reference rewrite" "elfthp-align -o failed"; finish; }

# one_file N NAME...: every NAME is one inode whose link count is N.
one_file() {
    local n=$1 f ino; shift
    ino=$(stat -c %i "$1")
    for f in "$@"; do
        [ "$(stat -c '%i %h' "$f")" = "$ino $n" ] && continue
        WHY="names: $(stat -c '%n=%i/%h' "$@" | tr '\n' ' ')"; return 1
    done
}

# all_same FILE NAME...: every NAME holds FILE's bytes.
all_same() {
    local want=$1 f; shift
    for f in "$@"; do
        cmp -s "$want" "$f" || { WHY="$f differs from $want"; return 1; }
    done
}

# stderr_has TEXT / stdout_has TEXT: the last run_tool said TEXT.
stderr_has() {
    case $T_ERR in *"$1"*) return 0 ;; esac
    WHY="stderr lacks '$1': $(tool_said)"; return 1
}
stdout_has() {
    case $T_OUT in *"$1"*) return 0 ;; esac
    WHY="stdout lacks '$1': $(tool_said)"; return 1
}

# make_group: a tree T with FX as T/a/x, T/a/y and T/b/z (one file) and
# T/solo; NAMES the three names.
make_group() {
    fresh_dir; T=$D
    mkdir -p "$T/a" "$T/b"
    cp "$FX" "$T/a/x" && ln "$T/a/x" "$T/a/y" && ln "$T/a/x" "$T/b/z"
    cp "$FX" "$T/solo"
    NAMES=("$T/a/x" "$T/a/y" "$T/b/z")
}

# ------------------------------------------------------------------------
echo "# every name in the run: one new file"
for jobs in 1 4; do
    d="-r -x, -j $jobs"
    make_group
    old=$(stat -c %i "$T/a/x")
    run_tool -q -r -x -j "$jobs" "${FAST[@]}" "$T"
    assert "$d: exit 0" tool_rc 0
    assert "$d: the three names are one file, nlink 3" one_file 3 "${NAMES[@]}"
    [ "$(stat -c %i "$T/a/x")" != "$old" ] && pass "$d: a new inode" ||
        fail "$d: a new inode" "still inode $old"
    assert "$d: every name congruent" check_congruence "$T/b/z"
    assert "$d: every segment's bytes kept" check_segment_bytes "$FX" "$T/a/y"
    assert "$d: every name has the rewrite's bytes" all_same "$REF" "${NAMES[@]}" "$T/solo"
    need "$d: runs the same" "no x86_64 runner" set_runner x86_64 &&
        assert "$d: runs and prints the same" run_same "$FX" "$T/b/z"
    assert "$d: no temporary file" no_temp_tree "$T"
done
# Negative controls: the original is neither congruent nor a new file.
assert_not "control: the original is not congruent" check_congruence "$FX"
make_group
run_tool --break-hardlinks -r "${FAST[@]}" "$T"
assert "--break-hardlinks -r: exit 0" tool_rc 0
assert_not "--break-hardlinks: each name its own file (the check fails)" one_file 3 "${NAMES[@]}"
assert "--break-hardlinks: every name rewritten" all_same "$REF" "${NAMES[@]}"

# The names given as a -f list, and the output line of the other names.
make_group
printf '%s\n' "${NAMES[@]}" > "$WORK/list"
run_tool "${FAST[@]}" -f "$WORK/list"
assert "-f list of the names: exit 0" tool_rc 0
assert "-f list: one file, nlink 3" one_file 3 "${NAMES[@]}"
assert "-f list: the other names say so" stdout_has "$T/b/z: done with $T/a/x (one file, 3 names)"
run_tool --format json "${FAST[@]}" -r "$T"
assert "json, again: exit 0" tool_rc 0
assert "json: the other names are 'linked'" stdout_has "\"file\":\"$T/a/y\",\"status\":\"linked\",\"same_file_as\":\"$T/a/x\",\"names\":3"

# ------------------------------------------------------------------------
echo "# a name outside the run: not done, not an error"
make_group
mkdir -p "$WORK/elsewhere"
ln "$T/solo" "$WORK/elsewhere/solo"
id=$(file_id "$T/solo")
run_tool -q -r -x "${FAST[@]}" "$T"
assert "outside name: exit 0" tool_rc 0
assert "outside name: said not done, with the old words" stderr_has "$T/solo: not done: has 2 hard links, 1 of them in this run; replacing it would split them"
assert "outside name: the file untouched (inode, mtime)" same_id "$T/solo" "$id"
assert "outside name: its bytes the original's" same_file "$FX" "$WORK/elsewhere/solo"
assert "outside name: still one file" one_file 2 "$T/solo" "$WORK/elsewhere/solo"
assert "outside name: the group beside it still done" one_file 3 "${NAMES[@]}"
run_tool --check -r "$T"
assert "--check: exit 1 (not ready)" tool_rc 1
assert "--check: the file not done" stdout_has "$T/solo: not done by a rewrite of this run: it has 2 hard links, 1 of them in the run"
assert "--check: summary counts it" stdout_has "1 not done (hard links outside the run)"
assert "--check: its fix: line says --break-hardlinks" stdout_has "$T/solo: fix: elfthp-align --break-hardlinks -- $T/solo"
assert_not "control: a group in the run: its fix: line does not" stdout_has "${NAMES[0]}: fix: elfthp-align --break-hardlinks"
run_tool --check --format json -r "$T"
assert "--check json: status not-done" stdout_has "\"file\":\"$T/solo\",\"status\":\"not-done\""
assert "--check json: summary not_done 1" stdout_has '"not_done":1,'
run_tool --format json -r "${FAST[@]}" "$T"
assert "json rewrite: exit 0" tool_rc 0
assert "json rewrite: a not-done line" stdout_has "\"file\":\"$T/solo\",\"status\":\"not-done\""
printf '%s\n' "$T/solo" > "$WORK/list1"
run_tool "${FAST[@]}" -f "$WORK/list1"
assert "-f list, name outside: exit 0" tool_rc 0
assert "-f list: not done" stderr_has "not done: has 2 hard links"
run_tool "${FAST[@]}" "$T/solo"
assert "named, name outside: exit 2 as always" tool_rc 2
assert "named: the refusal names --break-hardlinks" stderr_has "has 2 hard links; replacing it would split them: --break-hardlinks"
assert "after all that: untouched" same_id "$T/solo" "$id"

# ------------------------------------------------------------------------
echo "# ELF files Linux never runs"
fresh_dir; U=$D
cp "$FX" "$U/prog"
python3 "$MKELF" "$U/fw.bin" firmware
cp "$U/fw.bin" "$WORK/fw.saved"
fwid=$(file_id "$U/fw.bin")
assert_not "control: the firmware file is not congruent (readelf)" check_congruence "$U/fw.bin" 4096
run_tool -q -r -x "${FAST[@]}" "$U"
assert "walk with firmware: exit 0" tool_rc 0
assert "walk: firmware untouched" same_id "$U/fw.bin" "$fwid"
assert "walk: the program beside it rewritten" same_file "$REF" "$U/prog"
case "$T_OUT$T_ERR" in
    *fw.bin*) fail "walk: firmware skipped quietly" "$(tool_said)" ;;
    *) pass "walk: firmware skipped quietly" ;;
esac
for mode in "-n" "--check" "--report" "--warm" "--warm -n" "--check --format json" "-n --format json"; do
    # shellcheck disable=SC2086
    run_tool $mode -v -r "$U"
    case $T_RC in 0|1) pass "$mode -v -r: not an error (exit $T_RC)" ;;
        *) fail "$mode -v -r: not an error" "$(tool_said)" ;; esac
    assert "$mode -v: says why" stdout_has "fw.bin"
    assert "$mode -v: not a program Linux can load" stdout_has "not a program Linux can load: PT_LOAD 0: p_offset and p_vaddr are not congruent"
done
run_tool --check -r "$U"
assert "--check: counted as not applicable" stdout_has "0 need relinking, 1 not applicable (0 not ELF), 0 errors"
run_tool --check --format json -r "$U"
assert "--check json: not_applicable 1" stdout_has '"not_applicable":1,"not_elf":0,"error":0'
printf '%s\n' "$U/fw.bin" > "$WORK/list2"
run_tool "${FAST[@]}" -f "$WORK/list2"
assert "-f list with firmware: exit 0" tool_rc 0
assert "-f list: skipped, without the reason" equals "line" "$T_OUT" "$U/fw.bin: skipped: not a program Linux can load"
run_tool "${FAST[@]}" "$U/fw.bin"
assert "named firmware: exit 2" tool_rc 2
assert "named firmware: the door's words" stderr_has "$U/fw.bin: PT_LOAD 0: p_offset and p_vaddr are not congruent"
assert "firmware byte-identical after every mode" same_file "$WORK/fw.saved" "$U/fw.bin"
# Malformed stays malformed, in a walk too.
for kind in past-eof overlap truncated; do
    fresh_dir; M=$D
    if [ $kind = truncated ]; then
        head -c 40000 "$FX" > "$M/bad"
    else
        python3 "$MKELF" "$M/bad" $kind
    fi
    run_tool -q -r -x "${FAST[@]}" "$M"
    assert "$kind in a walk: exit 2" tool_rc 2
    assert "$kind: named in the error" tool_err_names "$M/bad"
    case $T_ERR in *"not a program Linux can load"*)
        fail "$kind: not taken for firmware" "$(tool_said)" ;;
        *) pass "$kind: not taken for firmware" ;; esac
done

# ------------------------------------------------------------------------
echo "# a name given twice"
make_group
run_tool "${FAST[@]}" "$T/a/x" "$T/a/x" "$T/a/y"
assert "x x y of x, y, z: exit 2" tool_rc 2
assert "x x y: says the links would split" stderr_has "$T/a/x: has 3 hard links; replacing it would split them"
assert "x x y: the three names still one file, the old one" one_file 3 "${NAMES[@]}"
assert "x x y: x untouched" same_file "$FX" "$T/a/x"

# ------------------------------------------------------------------------
echo "# signals between two renames of a group"
have_strace=yes
if ! command -v strace > /dev/null || ! command -v cpp > /dev/null ||
   ! strace -qq -o /dev/null -e trace=getpid -e inject=getpid:delay_enter=1 true 2>/dev/null; then
    have_strace=no
fi
if [ $have_strace = yes ]; then
    # Held long enough to be seen on a loaded machine (lib.sh polls).
    DELAY_US=4000000
    # The renames run y, z (exchanged: renameat2), then x (renameat): the
    # second is held, y already moved.
    for sig in TERM INT HUP; do
        d="SIG$sig between two renames"
        make_group
        DELAY_WHEN=2
        if ! delayed_start renameat2 -q -r -j 1 "${FAST[@]}" "$T"; then
            delayed_wait
            fail "$d: held at the second rename" "$(tool_said)"
            continue
        fi
        kill -"$sig" "$TP"
        delayed_wait
        want=$((128 + $(kill -l "$sig")))
        assert "$d: dies of it (exit $want), once the names are in place" rc_is "$T_RC" "$want"
        assert "$d: one file, nlink 3" one_file 3 "${NAMES[@]}"
        assert "$d: every name the new bytes" all_same "$REF" "${NAMES[@]}"
        assert "$d: no temporary file" no_temp_tree "$T"
    done
    DELAY_WHEN=1

    echo "# SIGKILL between two renames, and the rerun"
    make_group
    DELAY_WHEN=2
    if delayed_start renameat2 -q -r -j 1 "${FAST[@]}" "$T"; then
        kill -KILL "$TP"
        delayed_wait
        DELAY_WHEN=1
        ok=yes
        for f in "${NAMES[@]}"; do
            cmp -s "$f" "$FX" || cmp -s "$f" "$REF" || ok="$f is neither"
        done
        assert "SIGKILL: every name whole, old or new" equals "names" "$ok" yes
        assert "SIGKILL: y (renamed first) has the new file" same_file "$REF" "$T/a/y"
        assert "SIGKILL: x and z still the old file" one_file 2 "$T/a/x" "$T/b/z"
        left=$(find "$T" -name '*.elfthp-*' | wc -l)
        assert "SIGKILL: the temporary names of x and z are left" equals "left" "$left" 2
        find "$T" -name '*.elfthp-*' -exec touch -h -d '-10 seconds' {} +
        # -j 1: the temporary names are links to y's file, and a worker
        # working y holds its lock, so that a sweep beside it in parallel
        # keeps them (for the run after).  One worker sweeps first.
        run_tool -q -r -j 1 "${FAST[@]}" "$T"
        assert "rerun: exit 0" tool_rc 0
        assert "rerun: every name the new bytes" all_same "$REF" "${NAMES[@]}"
        assert "rerun: the names the old file had are one file again" one_file 2 "$T/a/x" "$T/b/z"
        assert "rerun: stale temporary names removed" no_temp_tree "$T"
        assert "rerun: says it removed them" stderr_has "removed a stale temporary file"
    else
        delayed_wait
        DELAY_WHEN=1
        fail "SIGKILL: held at the second rename" "$(tool_said)"
    fi

    # replaced_z D SYSCALL: z replaced while the run is held at the first
    # SYSCALL (y's rename); z keeps what was put there, x and y move.
    replaced_z() {
        local d=$1
        make_group
        if ! delayed_start "$2" -q -r -j 1 "${FAST[@]}" "$T"; then
            delayed_wait
            fail "$d: held at the first $2" "$(tool_said)"
            return
        fi
        printf 'not yours\n' > "$T/b/z.mine" && mv "$T/b/z.mine" "$T/b/z"
        delayed_wait
        assert "$d: exit 2" tool_rc 2
        assert "$d: said" stderr_has "$T/b/z changed while its names were being renamed; it keeps what it is now (2 of 3 names have the new file)"
        assert "$d: keeps what the other process put there" equals "z" "$(cat "$T/b/z")" "not yours"
        assert "$d: the file's other names one file" one_file 2 "$T/a/x" "$T/a/y"
        assert "$d: they have the new bytes" all_same "$REF" "$T/a/x" "$T/a/y"
        assert "$d: no temporary file" no_temp_tree "$T"
    }
    echo "# a name replaced between two renames"
    replaced_z "replaced name" renameat2

    echo "# a name replaced between two renames, where RENAME_EXCHANGE fails (renameat)"
    # NFS and some FUSE file systems refuse RENAME_EXCHANGE (EINVAL): each
    # name is then renamed over, and its check just before is all that
    # keeps another process's file.  Held at y's renameat.
    DELAY_FAIL=renameat2:error=EINVAL
    replaced_z "no exchange, replaced name" renameat
    DELAY_FAIL=

    echo "# the first name replaced between two renames"
    make_group
    if delayed_start renameat2 -q -r -j 1 "${FAST[@]}" "$T"; then
        printf 'not yours\n' > "$T/a/x.mine" && mv "$T/a/x.mine" "$T/a/x"
        delayed_wait
        assert "replaced first name: exit 2" tool_rc 2
        assert "replaced first name: said" stderr_has "$T/a/x: changed while its names were being renamed; it keeps what it is now (2 of 3 names have the new file)"
        assert "replaced first name: keeps what the other process put there" equals "x" "$(cat "$T/a/x")" "not yours"
        assert "replaced first name: the file's other names one file" one_file 2 "$T/a/y" "$T/b/z"
        assert "replaced first name: they have the new bytes" all_same "$REF" "$T/a/y" "$T/b/z"
        assert "replaced first name: no temporary file" no_temp_tree "$T"
    else
        delayed_wait
        fail "replaced first name: held at the first rename" "$(tool_said)"
    fi

    echo "# every name's directory fsynced after the renames"
    make_group
    strace -f -y -qq -o "$WORK/sync.trace" -e trace=fsync,renameat,renameat2 \
        "$TOOL" -q -r -j 1 --no-warm "$T" > /dev/null 2>&1
    # The calls on b, z's directory: its rename (renameat, or renameat2's
    # exchange), then its fsync.
    b_calls=$(grep -E "^[0-9]+ +(fsync|renameat2?)\([0-9]+<$T/b>" "$WORK/sync.trace" |
        sed -E 's/^[0-9]+ +([a-z]+)2?\(.*/\1/' | uniq | paste -sd, -)
    assert "b is fsynced after z is renamed" equals "calls on $T/b" "$b_calls" "renameat,fsync"
    assert "control: the run gave every name the new file" one_file 3 "${NAMES[@]}"
else
    skip "signals between renames" "strace with syscall delay injection not available"
fi

echo "# --check's fix: line for a file of several names works as given"
fresh_dir; cp "$FX" "$D/a"; ln "$D/a" "$D/b"
run_tool --check "$D/a"
FIXCMD=$(printf '%s\n' "$T_OUT" | sed -n "s|^$D/a: fix: elfthp-align ||p")
assert "fix: the line is there" equals "fix" "$FIXCMD" "--break-hardlinks -- $D/a"
eval "set -- $FIXCMD"
run_tool "$@"
assert "fix: the command as given exits 0" tool_rc 0
assert "fix: the name given is ready" check_congruence "$D/a"
if command -v strace > /dev/null; then
    echo "# names swapped between the last check and the rename: never renamed over"
    # Held in strace at the first name's exchange (renameat2
    # RENAME_EXCHANGE), both names are replaced by another file: the
    # exchange finds it at the temporary name and gives it its name back.
    fresh_dir; G=$D
    cp "$FX" "$G/x" && ln "$G/x" "$G/y"
    printf 'theirs\n' > "$WORK/theirs"
    DELAY_US=1500000
    if delayed_start renameat2 "${FAST[@]}" "$G/x" "$G/y"; then
        cp "$WORK/theirs" "$G/x.new" && mv "$G/x.new" "$G/x"
        cp "$WORK/theirs" "$G/y.new" && mv "$G/y.new" "$G/y"
        delayed_wait
        assert "swapped names: exit 2" tool_rc 2
        assert "swapped names: x keeps the file put there" same_file "$WORK/theirs" "$G/x"
        assert "swapped names: y keeps the file put there" same_file "$WORK/theirs" "$G/y"
        assert "swapped names: said" stderr_has "changed while its names were being renamed"
        assert "swapped names: no temporary file left" no_temp "$G"
    else
        delayed_wait
        fail "swapped names: the run was held at renameat2" "$(tool_said)"
    fi
else
    skip "swapped names" "need strace"
fi
finish
