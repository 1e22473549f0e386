#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# SPDX-FileCopyrightText: 2026 the elfthp-align authors
# test_examples.sh [BUILDDIR] - build examples/make-postlink in temporary
# directories (never in the source tree) and check:
#   - the build exits 0 and its log has the tool's report line for prog
#     (the post-link step ran);
#   - prog is aligned: check_congruence (readelf) and elfthp-align --check
#     exit 0;  a build whose post-link step does nothing (ELFTHP_ALIGN=true)
#     is caught by both (so the checks can fail);
#   - prog runs and prints its line;
#   - the make example linked with lld (the text moves: the step pads);
#   - nothing was written to the example directory.
# The CMake and Meson examples use the installed modules: test_buildsys.sh.
# BUILDDIR is accepted for symmetry with the other scripts and not used.
. "$(dirname "$0")/lib.sh"
need_tool

MK_SRC=$REPO_ROOT/examples/make-postlink
WANT_LINE="hello from a program with 4096 KiB of padding in its text"

# snapshot DIR: names, sizes and mtimes of everything under DIR.
snapshot() { (cd "$1" && find . -exec stat -c '%n %s %.9Y' {} + | sort); }

# equals_rc RC LOG: a build step exited 0 (else the end of its log).
equals_rc() {
    [ "$1" -eq 0 ] && return 0
    WHY="exit $1: $(tail -5 "$2" | tr '\n' ' ')"; return 1
}

# step_ran LOG: the build log has the tool's line for prog (step ran).
step_ran() {
    grep -Eq '(^|/)prog: [0-9]+ segments? aligned, [0-9]+ windows?, file \+[0-9]+ bytes(; [0-9]+ of [0-9]+ windows? huge.*)?$' "$1" &&
        return 0
    WHY="no elfthp-align report line for prog in the build log: $(tail -5 "$1" | tr '\n' ' ')"
    return 1
}

snap_mk=$(snapshot "$MK_SRC")

# ------------------------------------------------------------------------
echo "# examples/make-postlink"
if ! command -v make >/dev/null || ! command -v cc >/dev/null; then
    skip "make example" "make or cc not installed"
else
    B=$WORK/make
    mkdir -p "$B"
    make -C "$B" -f "$MK_SRC/Makefile" ELFTHP_ALIGN="$TOOL" > "$WORK/make.log" 2>&1
    rc=$?
    assert "make: build exits 0" equals_rc "$rc" "$WORK/make.log"
    assert "make: the post-link step ran (its report line is in the log)" step_ran "$WORK/make.log"
    assert "make: prog is aligned (readelf)" check_congruence "$B/prog"
    assert "make: elfthp-align --check prog exits 0" checks_ready "$B/prog"
    assert "make: prog runs" prints_line "$B/prog"
    make -C "$B" -f "$MK_SRC/Makefile" ELFTHP_ALIGN="$TOOL" > "$WORK/make2.log" 2>&1
    assert "make: a second make exits 0" equals_rc "$?" "$WORK/make2.log"
    if grep -q "elfthp-align\|$TOOL" "$WORK/make2.log"; then
        fail "make: a second make does not run the step again" "$(cat "$WORK/make2.log")"
    else
        pass "make: a second make does not run the step again"
    fi

    # The default ELFTHP_ALIGN is the tool in the repository root.
    if [ "$TOOL" = "$REPO_ROOT/elfthp-align" ]; then
        B=$WORK/make-default
        mkdir -p "$B"
        env -u ELFTHP_ALIGN make -C "$B" -f "$MK_SRC/Makefile" > "$WORK/make-default.log" 2>&1
        assert "make, default ELFTHP_ALIGN: build exits 0" equals_rc "$?" "$WORK/make-default.log"
        assert "make, default ELFTHP_ALIGN: the step ran" step_ran "$WORK/make-default.log"
        assert "make, default ELFTHP_ALIGN: --check exits 0" checks_ready "$B/prog"
    else
        skip "make, default ELFTHP_ALIGN" "ELFTHP_ALIGN is set to $TOOL"
    fi

    # Without the step (ELFTHP_ALIGN=true) the checks must catch it.
    B=$WORK/make-nostep
    mkdir -p "$B"
    make -C "$B" -f "$MK_SRC/Makefile" ELFTHP_ALIGN=true > "$WORK/make-nostep.log" 2>&1
    assert "make, no step: build exits 0" equals_rc "$?" "$WORK/make-nostep.log"
    assert_not "make, no step: check_congruence catches the unaligned prog" check_congruence "$B/prog"
    assert_not "make, no step: --check catches the unaligned prog" checks_ready "$B/prog"

    # lld: the text must move, the step pads the file.
    if command -v ld.lld >/dev/null; then
        B=$WORK/make-lld
        mkdir -p "$B" "$WORK/make-lld-nostep"
        make -C "$B" -f "$MK_SRC/Makefile" ELFTHP_ALIGN="$TOOL" LDFLAGS=-fuse-ld=lld \
            > "$WORK/make-lld.log" 2>&1
        assert "make with lld: build exits 0" equals_rc "$?" "$WORK/make-lld.log"
        assert "make with lld: the step ran" step_ran "$WORK/make-lld.log"
        assert "make with lld: --check exits 0" checks_ready "$B/prog"
        assert "make with lld: prog runs" prints_line "$B/prog"
        make -C "$WORK/make-lld-nostep" -f "$MK_SRC/Makefile" ELFTHP_ALIGN=true \
            LDFLAGS=-fuse-ld=lld > "$WORK/make-lld-nostep.log" 2>&1
        assert "make with lld: the step moved the text" text_moved \
            "$WORK/make-lld-nostep/prog" "$B/prog"
    else
        skip "make with lld" "ld.lld not installed"
    fi
fi

# ------------------------------------------------------------------------
assert "nothing was written to examples/make-postlink" equals "listing" \
    "$(snapshot "$MK_SRC")" "$snap_mk"

finish
