#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# SPDX-FileCopyrightText: 2026 the elfthp-align authors
# test_classes.sh BUILDDIR - the file classes of a whole /usr that are not
# programs to rewrite, as `elfthp-align -q -r -x /usr` meets them:
#   - a separate debug file (objcopy --only-keep-debug of gnu-pie, under
#     lib/debug/.build-id/xx/): its PT_LOADs are NOBITS, "nothing to do";
#   - kernel modules: an ET_REL object named x.ko and an xz-compressed one
#     (x.ko.xz, not ELF): skipped;
#   - a vdso-like tiny ET_DYN (gcc -shared -nostdlib, a few KiB): no full
#     window, "nothing to do".
# Each, in a -r walk of a tree that also holds a program that needs
# rewriting (gnu-pie), in a -f list, and named, in rewrite mode and with
# --check: exit 0, the file byte-identical and untouched (same inode,
# mtime, size), one line naming it with what the tool did; the walk
# converges (a second walk and --check -r change nothing, exit 0).
# Negative controls: the program in the same walk is rewritten (so the
# walk did run), and the byte/inode checks fail on a touched copy.
. "$(dirname "$0")/lib.sh"
need_builddir "$@"
need_tool

if ! fixture_line gnu-pie; then
    skip "file classes" "fixture gnu-pie not built"
    finish
fi
FX=$BUILD/$FX_FILE
FAST=(--no-warm --no-sync)
for t in objcopy gcc xz; do
    if ! command -v "$t" > /dev/null; then
        skip "file classes" "$t not installed"
        finish
    fi
done

# The samples, made once in $WORK/src; every run gets copies.
S=$WORK/src
mkdir -p "$S"
objcopy --only-keep-debug "$FX" "$S/debug" || fail "objcopy --only-keep-debug" "failed"
printf 'int x_init(void) { return 1; }\n' > "$S/x.c"
gcc -c -O2 "$S/x.c" -o "$S/ko" || fail "gcc -c x.c" "failed"
cp "$S/ko" "$S/kox" && xz "$S/kox" || fail "xz" "failed"
printf 'int __vdso_f(int a) { return a + 1; }\n' > "$S/v.c"
gcc -shared -nostdlib -fPIC -O2 -Wl,-z,noseparate-code "$S/v.c" -o "$S/vdso" ||
    fail "gcc -shared -nostdlib" "failed"

NOTHING="nothing to do (no read-only segment holds a full 2.0MiB window)"
# CLASS NAME-IN-TREE SAMPLE LINE CHECK-SUMMARY-PART
CLASSES=(
    "debug lib/debug/.build-id/ab/cdef0123456789.debug debug"
    "ko lib/modules/6.1.0/kernel/x.ko ko"
    "koxz lib/modules/6.1.0/kernel/y.ko.xz kox.xz"
    "vdso lib/vdso/vdso64.so vdso"
)
line_for() {   # line_for CLASS: what the tool says about it, named
    case $1 in
        debug|vdso) echo "$NOTHING" ;;
        ko) echo "skipped: not an executable or shared object (ET_REL)" ;;
        koxz) echo "skipped: not an ELF file" ;;
    esac
}
summary_for() {   # summary_for CLASS: --check's counts for it alone
    case $1 in
        debug|vdso) echo "1 ready, 0 need rewriting, 0 need relinking, 0 not applicable (0 not ELF), 0 errors" ;;
        ko) echo "0 ready, 0 need rewriting, 0 need relinking, 1 not applicable (0 not ELF), 0 errors" ;;
        koxz) echo "0 ready, 0 need rewriting, 0 need relinking, 1 not applicable (1 not ELF), 0 errors" ;;
    esac
}

# untouched CLASS PATH SAVED ID: bytes and identity kept.
untouched() {
    assert "$1: byte-identical ($2)" same_file "$3" "$2"
    assert "$1: same inode, mtime, size" same_id "$2" "$4"
}

# out_line PATH TEXT: stdout has exactly one line about PATH, "PATH: TEXT".
out_line() {
    local n
    n=$(printf '%s\n' "$T_OUT" | grep -cF "$1: ")
    [ "$n" -eq 1 ] || { WHY="$n lines name $1: $(tool_said)"; return 1; }
    printf '%s\n' "$T_OUT" | grep -qxF "$1: $2" && return 0
    WHY="no line [$1: $2]: $(tool_said)"; return 1
}

# --- a walk of a /usr-like tree -------------------------------------------
fresh_dir
U=$D/usr
mkdir -p "$U/bin"
cp "$FX" "$U/bin/prog" && chmod 755 "$U/bin/prog"
declare -A P ID
for c in "${CLASSES[@]}"; do
    set -- $c
    mkdir -p "$(dirname "$U/$2")"
    cp "$S/$3" "$U/$2"
    P[$1]=$U/$2
    ID[$1]=$(file_id "$U/$2")
done

run_tool -q -r -x "${FAST[@]}" "$U"
assert "walk -q -r -x: exit 0" tool_rc 0
assert "walk -q -r -x: prints nothing" equals "stdout+stderr" "$T_OUT$T_ERR" ""
assert_not "walk rewrote the program (control: the walk ran)" same_file "$FX" "$U/bin/prog"
assert "walk: the program is congruent" check_congruence "$U/bin/prog"
for c in "${CLASSES[@]}"; do
    set -- $c
    untouched "walk: $1" "${P[$1]}" "$S/$3" "${ID[$1]}"
done
assert "walk: no temporary file left" no_temp_tree "$U"

PROG_ID=$(file_id "$U/bin/prog")
run_tool -q -r -x "${FAST[@]}" "$U"
assert "second walk: exit 0 (converged)" tool_rc 0
assert "second walk: program untouched" same_id "$U/bin/prog" "$PROG_ID"
run_tool --check -r "$U"
assert "walk --check after the walk: exit 0" tool_rc 0
assert "walk --check: counts" equals "summary" "$(printf '%s\n' "$T_OUT" | tail -1)" \
    "checked 5 files: 3 ready, 0 need rewriting, 0 need relinking, 2 not applicable (1 not ELF), 0 errors"

# -v walk: the debug file and the vdso each get one line; the modules none.
run_tool -r -v -x "${FAST[@]}" "$U"
assert "walk -v: exit 0" tool_rc 0
assert "walk -v: debug file's one line" out_line "${P[debug]}" "$NOTHING"
assert "walk -v: vdso's one line" out_line "${P[vdso]}" "$NOTHING"
assert "walk -v: modules skipped quietly" equals "lines naming .ko" \
    "$(printf '%s\n' "$T_OUT" | grep -c '\.ko')" 0
for c in "${CLASSES[@]}"; do
    set -- $c
    untouched "walk -v: $1" "${P[$1]}" "$S/$3" "${ID[$1]}"
done

# --- a -f list ------------------------------------------------------------
LIST=$WORK/list
for c in "${CLASSES[@]}"; do set -- $c; echo "${P[$1]}"; done > "$LIST"
run_tool -f "$LIST" "${FAST[@]}"
assert "-f list: exit 0" tool_rc 0
for c in "${CLASSES[@]}"; do
    set -- $c
    assert "-f list: $1's one line" out_line "${P[$1]}" "$(line_for "$1")"
    untouched "-f list: $1" "${P[$1]}" "$S/$3" "${ID[$1]}"
done
run_tool --check -f "$LIST"
assert "-f list --check: exit 0" tool_rc 0

# --- named, rewrite mode and --check --------------------------------------
for c in "${CLASSES[@]}"; do
    set -- $c
    run_tool "${FAST[@]}" "${P[$1]}"
    assert "named $1: exit 0" tool_rc 0
    assert "named $1: one line" out_line "${P[$1]}" "$(line_for "$1")"
    assert "named $1: nothing on stderr" equals stderr "$T_ERR" ""
    untouched "named $1" "${P[$1]}" "$S/$3" "${ID[$1]}"
    run_tool --check "${P[$1]}"
    assert "named --check $1: exit 0" tool_rc 0
    case $1 in
        # --check is quiet about ready files; the summary counts them.
        debug|vdso) assert "named --check $1: quiet (ready)" equals "lines naming it" \
            "$(printf '%s\n' "$T_OUT" | grep -cF "${P[$1]}")" 0 ;;
        *) assert "named --check $1: one line" out_line "${P[$1]}" "$(line_for "$1")" ;;
    esac
    assert "named --check $1: counts" equals summary "$(printf '%s\n' "$T_OUT" | tail -1)" \
        "checked 1 file: $(summary_for "$1")"
    untouched "named --check $1" "${P[$1]}" "$S/$3" "${ID[$1]}"
done

# --- negative controls: the checks fail on a touched copy -----------------
T=$WORK/touched
cp "${P[debug]}" "$T"
TID=$(file_id "$T")
printf '\0' >> "$T"
assert_not "control: byte check fails on a changed copy" same_file "$S/debug" "$T"
assert_not "control: identity check fails on a changed copy" same_id "$T" "$TID"
cp "$S/vdso" "$T.2"
T2ID=$(file_id "$T.2")
cp "$T.2" "$T.3" && mv "$T.3" "$T.2"
assert_not "control: identity check fails on a renamed-over copy" same_id "$T.2" "$T2ID"

finish
