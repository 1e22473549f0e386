#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# SPDX-FileCopyrightText: 2026 the elfthp-align authors
# test_fixtures.sh BUILDDIR - rewrite every fixture built by
# tests/fixtures/build.sh and check the result:
#   - the checks themselves reject the original (so they can fail);
#   - exit 0 and the report line "<file>: N segments aligned, W windows,
#     file +B bytes" (singular for 1, as in the README) with N, W, B as
#     computed here from readelf;
#   - the rewritten program prints the same as the original;
#   - congruence, segment and section bytes, no new eu-elflint messages;
#   - lld layouts: the file grew and the text moved;
#     GNU ld layouts: only p_align changed, same size;
#   - a second run is a no-op ("nothing to do", same inode and mtime);
#   - -n writes nothing; -o leaves the input alone and writes the same
#     result as the in-place rewrite;
#   - --align 4194304 on two fixtures; -q prints nothing.
. "$(dirname "$0")/lib.sh"
need_builddir "$@"
need_tool

# Variants build.sh could not build (toolchain missing) are skips.
while read -r name reason; do
    [ -n "$name" ] && skip "fixture $name" "not built: $reason"
done < "$BUILD/skipped.txt"

# test_one NAME ARCH FILE MAIN
# ready_as_linked NAME FILE: an ET_EXEC congruent as linked: --check says
# ready, the rewrite says nothing to do and leaves the file alone, and it
# is congruent where it matters (offsets; its p_align places nothing).
ready_as_linked() {
    local name=$1 f=$2 id
    id=$(file_id "$f")
    run_tool --check "$f"
    assert "$name: --check: ready (exit 0)" tool_rc 0
    run_tool "$f"
    assert "$name: rewrite exits 0" tool_rc 0
    # This host's machine: the page-cache step says what the next run gets.
    assert "$name: report line" equals "report line" "${T_OUT%%; *}" "$f: already aligned"
    assert "$name: every window huge in the page cache" equals "page cache" \
        "$(sed 's/.*; \([0-9]*\) of \([0-9]*\) windows\{0,1\} huge.*/\1 \2/' <<< "$T_OUT")" \
        "$ELIG_W $ELIG_W"
    assert "$name: file not touched (inode, mtime)" same_id "$f" "$id"
    assert "$name: congruent as it is" check_congruence "$f"
    assert_not "$name: control: as an ET_DYN this layout would need p_align" \
        check_congruence_dyn "$f"
}

# check_congruence_dyn FILE: check_congruence as if FILE were ET_DYN (its
# p_align must reach the target then): shows ready_as_linked can fail.
check_congruence_dyn() {
    local al i t o v p fs ms fl bad=""
    while read -r i t o v p fs ms fl al; do
        [ "$t" = LOAD ] || continue
        case $fl in *W*) continue ;; esac
        [ "$(windows "$v" "$fs" "$TARGET")" -gt 0 ] && [ "$al" -lt "$TARGET" ] &&
            bad="$bad phdr $i"
    done < <(elf_phdrs "$1")
    [ -z "$bad" ] && return 0
    WHY="p_align below the target:$bad"; return 1
}

test_one() {
    local name=$1 arch=$2 file=$3 main=$4
    local orig=$BUILD/$file wd=$WORK/$name new id before size0 size1 bytes
    echo "# fixture $name ($arch, rewrite $file, run $main)"
    if ! { mkdir -p "$wd" && cp -p "$orig" "$wd/" &&
           { [ "$main" = "$file" ] || cp -p "$BUILD/$main" "$wd/"; }; }; then
        fail "$name: copies of the fixture" "mkdir or cp failed in $wd"; return
    fi
    new=$wd/$file
    before=$(listing "$wd")

    count_eligible "$orig"
    if [ "$ELIG_N" -eq 0 ]; then
        fail "$name: fixture has an eligible segment" "none found by readelf"
        return
    fi
    # The checks must be able to fail: every fixture starts misaligned,
    # but an ET_EXEC linked congruent (GNU ld -no-pie), which is ready as
    # it is: p_align places nothing where a file loads at its linked
    # addresses, and the rewrite must leave it alone.
    if [ "$ELIG_CHANGE" -eq 0 ]; then
        echo "# $name: ET_EXEC congruent as linked: ready, nothing to rewrite"
        ready_as_linked "$name" "$new"
        return
    fi
    assert_not "$name: check_congruence rejects the original" check_congruence "$orig"

    # In-place rewrite and its report line.
    run_tool "$new"
    size0=$(stat -c %s "$orig") size1=$(stat -c %s "$new")
    bytes=$((size1 - size0))
    assert "$name: rewrite exits 0" tool_rc 0
    local want="$new: $(plural "$ELIG_CHANGE" segment) aligned, $(plural "$ELIG_W" window), file +$bytes bytes"
    # A file of this host's machine then goes through the page-cache step.
    # (" (1 after reading it again)" may follow, where reclaim was quicker.)
    [ "$arch" = "$(uname -m)" ] && want="$want; $ELIG_W of $(plural "$ELIG_W" window) huge"
    if [ "$T_OUT" = "$want" ] || [[ "$T_OUT" == "$want ("* ]]; then
        pass "$name: report line"
    else
        fail "$name: report line" "expected [$want], got [$T_OUT] (stderr [$T_ERR])"
    fi
    [ -z "$T_ERR" ] && pass "$name: nothing on stderr" ||
        fail "$name: nothing on stderr" "[$T_ERR]"
    assert "$name: no temporary file left" same_listing "$wd" "$before"

    # The rewritten program behaves the same.
    if set_runner "$arch"; then
        assert "$name: rewritten program prints the same" \
            run_same "$BUILD/$main" "$wd/$main" "${RUNNER[@]}"
    else
        skip "$name: rewritten program prints the same" "no way to run $arch here"
    fi

    # Structure.
    assert "$name: congruence after rewrite" check_congruence "$new"
    assert "$name: segment and section bytes unchanged" check_segment_bytes "$orig" "$new"
    assert "$name: no new eu-elflint messages" check_elflint "$orig" "$new"
    case $name in
        *lld*)
            [ "$size1" -gt "$size0" ] && pass "$name: file grew ($size0 -> $size1)" ||
                fail "$name: file grew" "size $size0 -> $size1"
            # The executable (E) PT_LOAD moved.
            local o1 o2
            o1=$(elf_phdrs "$orig" | awk '$2 == "LOAD" && $8 ~ /E/ { print $3; exit }')
            o2=$(elf_phdrs "$new" | awk '$2 == "LOAD" && $8 ~ /E/ { print $3; exit }')
            [ -n "$o1" ] && [ -n "$o2" ] && [ "$o1" != "$o2" ] &&
                pass "$name: text segment moved ($o1 -> $o2)" ||
                fail "$name: text segment moved" "offset $o1 -> $o2"
            ;;
        *)
            assert "$name: only p_align changed (same size)" \
                check_only_align_changed "$orig" "$new"
            ;;
    esac

    # Second run: nothing to do, file not touched.
    cp "$new" "$WORK/saved" || { fail "$name: a copy of the rewritten file" "cp failed"; return; }
    id=$(file_id "$new")
    run_tool "$new"
    assert "$name: second run exits 0" tool_rc 0
    # Files of this host's machine also get the page-cache step's word.
    case $T_OUT in
        "$new: nothing to do"*|"$new: already aligned; "*)
            pass "$name: second run says nothing to do" ;;
        *) fail "$name: second run says nothing to do" "$(tool_said)" ;;
    esac
    assert "$name: second run leaves the inode and mtime" same_id "$new" "$id"
    assert "$name: second run leaves the bytes" same_file "$WORK/saved" "$new"
    rm -f "$WORK/saved"

    # -n on a fresh copy writes nothing.
    mkdir -p "$wd/dry" && cp -p "$orig" "$wd/dry/" ||
        { fail "$name: a copy for -n" "mkdir or cp failed"; return; }
    id=$(file_id "$wd/dry/$file") before=$(listing "$wd/dry")
    run_tool -n "$wd/dry/$file"
    assert "$name: -n exits 0" tool_rc 0
    [ -n "$T_OUT" ] && pass "$name: -n prints a plan" ||
        fail "$name: -n prints a plan" "empty stdout; $(tool_said)"
    assert "$name: -n leaves the file" same_id "$wd/dry/$file" "$id"
    assert "$name: -n leaves the bytes" same_file "$orig" "$wd/dry/$file"
    assert "$name: -n creates no file" same_listing "$wd/dry" "$before"

    # -o writes elsewhere and leaves the input alone.
    mkdir -p "$wd/o" && cp -p "$orig" "$wd/o/in" ||
        { fail "$name: a copy for -o" "mkdir or cp failed"; return; }
    id=$(file_id "$wd/o/in")
    run_tool -o "$wd/o/out" "$wd/o/in"
    assert "$name: -o exits 0" tool_rc 0
    assert "$name: -o leaves the input" same_id "$wd/o/in" "$id"
    assert "$name: -o leaves the input bytes" same_file "$orig" "$wd/o/in"
    if [ -f "$wd/o/out" ]; then
        assert "$name: -o output equals the in-place result" same_file "$new" "$wd/o/out"
        local m1 m2
        m1=$(stat -c %a "$orig") m2=$(stat -c %a "$wd/o/out")
        [ "$m1" = "$m2" ] && pass "$name: -o output has the input's mode ($m1)" ||
            fail "$name: -o output has the input's mode" "$m1 -> $m2"
    else
        fail "$name: -o output exists" "$(tool_said)"
    fi
    case $(listing "$wd/o" | tr '\n' ' ') in
        "in out ") pass "$name: -o leaves no temporary file" ;;
        *) fail "$name: -o leaves no temporary file" "$(listing "$wd/o" | tr '\n' ' ')" ;;
    esac

    rm -rf "$wd"
}

while read -r name arch file main; do
    [ -n "$name" ] && test_one "$name" "$arch" "$file" "$main"
done < "$BUILD/fixtures.txt"

# --align: a 4 MiB target on a GNU ld and an lld layout.
for name in gnu-pie lld-pie; do
    fixture_line "$name" || { skip "$name --align 4194304" "fixture not built"; continue; }
    echo "# fixture $name with --align 4194304"
    wd=$WORK/align-$name
    mkdir -p "$wd" && cp -p "$BUILD/$FX_FILE" "$wd/" ||
        { fail "$name --align 4194304: a copy of the fixture" "mkdir or cp failed"; continue; }
    run_tool --align 4194304 "$wd/$FX_FILE"
    assert "$name --align 4194304: exits 0" tool_rc 0
    count_eligible "$BUILD/$FX_FILE" $((4 << 20))
    case $T_OUT in
        "$wd/$FX_FILE: $(plural "$ELIG_N" segment) aligned, $(plural "$ELIG_W" window), "*)
            pass "$name --align 4194304: report counts 4 MiB windows" ;;
        *) fail "$name --align 4194304: report counts 4 MiB windows" \
                "expected $ELIG_N segments, $ELIG_W windows; $(tool_said)" ;;
    esac
    assert "$name --align 4194304: congruent modulo 4 MiB" \
        check_congruence "$wd/$FX_FILE" $((4 << 20))
    assert "$name --align 4194304: bytes unchanged" \
        check_segment_bytes "$BUILD/$FX_FILE" "$wd/$FX_FILE"
    need "$name --align 4194304: runs the same" "no way to run $FX_ARCH here" set_runner "$FX_ARCH" &&
        assert "$name --align 4194304: runs the same" \
            run_same "$BUILD/$FX_MAIN" "$wd/$FX_MAIN" "${RUNNER[@]}"
    rm -rf "$wd"
done

# -q: nothing on stdout for a file that succeeds.
if fixture_line gnu-pie; then
    echo "# fixture gnu-pie with -q"
    wd=$WORK/quiet
    mkdir -p "$wd" && cp -p "$BUILD/$FX_FILE" "$wd/" &&
    run_tool -q "$wd/$FX_FILE"
    assert "gnu-pie -q: exits 0" tool_rc 0
    [ -z "$T_OUT" ] && pass "gnu-pie -q: prints nothing" ||
        fail "gnu-pie -q: prints nothing" "$(tool_said)"
    assert "gnu-pie -q: file was rewritten" check_congruence "$wd/$FX_FILE"
    rm -rf "$wd"
else
    skip "gnu-pie -q" "fixture not built"
fi

finish
