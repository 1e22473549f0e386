#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# SPDX-FileCopyrightText: 2026 the elfthp-align authors
# test_cargo.sh BUILDDIR - hard links, and the two Cargo recipes of the README.
#
# Cargo hard-links target/release/NAME to target/release/deps/NAME-HASH, so
# an in-place rewrite of NAME is refused (it would split the links) with a
# hint that names Cargo and --break-hardlinks.
#   - --break-hardlinks replaces just that name, as sed -i does: it is
#     rewritten, the other link keeps the old bytes, each has one link;
#   - the linker wrapper alone: @response files (nested), -oFILE, no -o,
#     the launcher form, the tool found in PATH or beside it, and a non-zero
#     exit wherever it cannot align;
#   - recipe 1, a post-build step: cargo build, then
#     elfthp-align --break-hardlinks on target/release/NAME and on the
#     deps/NAME-HASH it is linked to; survives a no-op cargo build (NAME
#     alone does not: the control);
#   - recipe 2, a linker wrapper (examples/cargo/elfthp-link) set in
#     .cargo/config.toml: both names aligned, still one file, and still
#     after a no-op cargo build.
# The crate is built here (offline, no dependencies) and holds 4 MiB of
# read-only data, so that a read-only PT_LOAD has 2 MiB windows.  Without
# cargo the Cargo checks are skipped, named and counted.
. "$(dirname "$0")/lib.sh"
need_builddir "$@"
need_tool

# --- --break-hardlinks on a fixture --------------------------------------

links_of() { stat -c %h "$1"; }

# err_mentions TEXT: the last run_tool's stderr contains TEXT.
err_mentions() {
    case $T_ERR in *"$1"*) return 0 ;; esac
    WHY="stderr does not mention '$1': $T_ERR"; return 1
}

if fixture_line lld-pie; then
    FX=$BUILD/$FX_FILE D=$WORK/links
    mkdir -p "$D" && cp -p "$FX" "$D/a" && ln "$D/a" "$D/b"
    run_tool "$D/a"
    assert "hard links: in place refused (exit 2)" tool_rc 2
    assert "hard links: the refusal names --break-hardlinks" err_mentions "--break-hardlinks"
    assert "hard links: the refusal names Cargo" err_mentions "Cargo"
    assert "hard links: both names still one file" equals "links" "$(links_of "$D/a")" 2
    chmod 751 "$D/a"
    run_tool --break-hardlinks "$D/a"
    assert "--break-hardlinks: exits 0" tool_rc 0
    assert "--break-hardlinks: this name rewritten, congruent" check_congruence "$D/a"
    assert "--break-hardlinks: this name runs the same" run_same "$FX" "$D/a"
    assert "--break-hardlinks: every segment's bytes kept" check_segment_bytes "$FX" "$D/a"
    assert "--break-hardlinks: the other name keeps the old bytes" same_file "$FX" "$D/b"
    assert "--break-hardlinks: one link each now" equals "links" "$(links_of "$D/a") $(links_of "$D/b")" "1 1"
    assert "--break-hardlinks: mode kept" equals "mode" "$(stat -c %a "$D/a")" 751
    assert "--break-hardlinks: no temporary file left" no_temp "$D"
    run_tool --break-hardlinks -o "$D/c" "$D/b"
    assert "--break-hardlinks with -o: refused (exit 2)" tool_rc 2
    run_tool --check --break-hardlinks "$D/b"
    assert "--break-hardlinks with --check: refused (exit 2)" tool_rc 2
else
    skip "--break-hardlinks" "no lld-pie fixture"
fi

# --- the linker wrapper on its own -----------------------------------------
# elfthp-link runs cc (here with lld, whose layout needs a rewrite) and
# aligns the output it finds in -o FILE, -oFILE or an @response file; as
# elfthp-launch (CMake's CMAKE_C_LINKER_LAUNCHER) the linker is its first
# argument.  Where it cannot align it exits non-zero, never 0.
LINK=$REPO_ROOT/examples/cargo/elfthp-link
LAUNCH=$REPO_ROOT/examples/cargo/elfthp-launch
OBJ=$BUILD/obj/x86_64
W=$WORK/wrap
mkdir -p "$W/bin" && ln -sf "$TOOL" "$W/bin/elfthp-align"
# wrap OUT CMD...: run CMD in $W with the tool in PATH only; WRAP_RC.
wrap() {
    (cd "$W" && PATH="$W/bin:$PATH" ELFTHP_ALIGN= "$@") > "$W/log" 2>&1; WRAP_RC=$?
}
aligned_and_runs() {	# FILE: congruent, and runs as the plain link does
    check_congruence "$1" || return 1
    run_same "$W/plain" "$1"
}
if [ "$(uname -m)" != x86_64 ] || [ ! -f "$OBJ/big_main.o" ] || ! command -v ld.lld >/dev/null; then
    skip "linker wrapper" "needs x86_64 fixture objects and lld"
else
    LDARGS="-fuse-ld=lld -pie $OBJ/big_main.o $OBJ/big_funcs.o $OBJ/big_blob.o"
    cc $LDARGS -o "$W/plain"
    assert_not "control: cc with lld alone leaves the output unaligned" check_congruence "$W/plain"
    printf -- '-o\nout\\ one\n%s\n' $LDARGS > "$W/rsp"
    wrap "$LINK" @rsp
    assert "wrapper, @file holding -o 'out one': exit 0" equals "exit" "$WRAP_RC" 0
    assert "wrapper, @file: the output is aligned and runs" aligned_and_runs "$W/out one"
    printf '@rsp\n' > "$W/rsp2" && rm -f "$W/out one"
    wrap "$LINK" @rsp2
    assert "wrapper, nested @file: aligned" aligned_and_runs "$W/out one"
    wrap "$LINK" $LDARGS -ojoined
    assert "wrapper, -oFILE: exit 0" equals "exit" "$WRAP_RC" 0
    assert "wrapper, -oFILE: the output is aligned and runs" aligned_and_runs "$W/joined"
    wrap "$LINK" $LDARGS
    assert "wrapper, no -o: a.out is aligned" aligned_and_runs "$W/a.out"
    wrap "$LAUNCH" cc $LDARGS -o launched
    assert "elfthp-launch cc ... -o FILE: aligned" aligned_and_runs "$W/launched"
    # CMake: the launcher as CMAKE_C_LINKER_LAUNCHER, on the same objects.
    if need "elfthp-launch as CMAKE_C_LINKER_LAUNCHER" "cmake not installed" command -v cmake >/dev/null; then
        mkdir -p "$W/cm"
        printf 'cmake_minimum_required(VERSION 3.21)\nproject(p C)\nadd_executable(prog %s)\nset_target_properties(prog PROPERTIES LINKER_LANGUAGE C)\n' \
            "$OBJ/big_main.o $OBJ/big_funcs.o $OBJ/big_blob.o" > "$W/cm/CMakeLists.txt"
        wrap cmake -S cm -B cm/b -DCMAKE_C_LINKER_LAUNCHER="$LAUNCH" \
            -DCMAKE_EXE_LINKER_FLAGS="-fuse-ld=lld -pie"
        wrap cmake --build cm/b
        assert "elfthp-launch as CMAKE_C_LINKER_LAUNCHER: cmake --build exits 0" equals "exit" "$WRAP_RC" 0
        assert "elfthp-launch as CMAKE_C_LINKER_LAUNCHER: aligned" aligned_and_runs "$W/cm/b/prog"
    fi
    # Next to itself: a copy of the wrapper beside the tool, PATH without it.
    cp "$LINK" "$W/bin/elfthp-link"
    (cd "$W" && ELFTHP_ALIGN= PATH=$(path_without_tool /usr/bin:/bin) "$W/bin/elfthp-link" $LDARGS -o beside) > "$W/log" 2>&1
    assert "wrapper beside the tool, not in PATH: aligned" aligned_and_runs "$W/beside"
    # Failures: never exit 0 with an unaligned output.
    (cd "$W" && ELFTHP_ALIGN= PATH=$(path_without_tool /usr/bin:/bin) "$LINK" $LDARGS -o nofind) > "$W/log" 2>&1
    assert "wrapper, tool nowhere: non-zero exit" equals "exit" "$(( $? != 0 ))" 1
    assert "wrapper, tool nowhere: says so" equals "message" \
        "$(grep -c 'elfthp-align not found' "$W/log")" 1
    (cd "$W" && ELFTHP_ALIGN=/bin/false "$LINK" $LDARGS -o failed) > "$W/log" 2>&1
    assert "wrapper, the tool fails: non-zero exit" equals "exit" "$(( $? != 0 ))" 1
    printf -- '-o\n' > "$W/rsp3"
    wrap "$LINK" $LDARGS @rsp3
    assert "wrapper, -o with no file name: non-zero exit" equals "exit" "$(( WRAP_RC != 0 ))" 1
fi

# --- Cargo ----------------------------------------------------------------

CARGO_CHECKS="post-build linker-wrapper"
skip_cargo() {
    local c
    for c in $CARGO_CHECKS; do skip "cargo $c recipe" "$1"; done
    finish
}
command -v cargo >/dev/null || skip_cargo "cargo not installed (make deps installs it)"
[ "$(uname -m)" = x86_64 ] || skip_cargo "the wrapper recipe is set for x86_64"

export CARGO_HOME=$BUILD/cargo-home CARGO_NET_OFFLINE=true
mkdir -p "$CARGO_HOME"

# new_crate DIR: a binary crate with 4 MiB of read-only data.
new_crate() {
    mkdir -p "$1/src"
    printf '[package]\nname = "bigdata"\nversion = "0.1.0"\nedition = "2018"\n\n[profile.release]\nopt-level = 1\n' > "$1/Cargo.toml"
    python3 -c 'import sys
sys.stdout.buffer.write(bytes((i * 7919 >> 3) & 255 for i in range(4 << 20)))' > "$1/blob.bin"
    cat > "$1/src/main.rs" <<'EOF'
static BLOB: &[u8] = include_bytes!("../blob.bin");

fn main() {
    let sum: u64 = BLOB.iter().step_by(4093).map(|&b| b as u64).sum();
    println!("bigdata {} bytes, sum {}", BLOB.len(), sum);
}
EOF
}

cargo_build() {	# cargo_build DIR: release build; WHY on failure
    (cd "$1" && cargo build --release --offline -q) > "$1/build.log" 2>&1 && return 0
    WHY="cargo build: $(tail -3 "$1/build.log" | tr '\n' ' ')"; return 1
}

deps_copy() { ls "$1"/target/release/deps/bigdata-* 2>/dev/null | grep -v '\.d$' | head -1; }

cargo_noop() {	# cargo_noop DIR: a second build with nothing changed
    (cd "$1" && cargo build --release --offline) > "$1/noop.log" 2>&1 ||
        { WHY="cargo build: $(tail -3 "$1/noop.log" | tr '\n' ' ')"; return 1; }
    grep -q Compiling "$1/noop.log" && { WHY="it compiled again: $(cat "$1/noop.log")"; return 1; }
    return 0
}

# Recipe 1: build, then rewrite both names of the program as a post-build
# step: target/release/NAME and the deps/NAME-HASH that Cargo links it to
# (found with find -samefile before the rewrite splits them).  A no-op
# build links NAME back to deps/NAME-HASH, so rewriting NAME alone lasts
# only until then: that is the negative control.
C=$WORK/crate1
new_crate "$C"
if assert "cargo post-build recipe: cargo build --release" cargo_build "$C"; then
    BIN=$C/target/release/bigdata DEP=$(deps_copy "$C")
    cp "$BIN" "$WORK/bigdata.orig"
    assert "cargo: target/release/NAME is a hard link (2 names)" equals "links" "$(links_of "$BIN")" 2
    run_tool --check "$BIN"
    assert "cargo: as built it needs a rewrite (--check exits 1)" tool_rc 1
    run_tool "$BIN"
    assert "cargo: plain in-place rewrite refused, naming Cargo" err_mentions "Cargo"
    run_tool --break-hardlinks "$BIN"
    assert "cargo: --break-hardlinks on NAME alone exits 0" tool_rc 0
    run_tool --check "$BIN"
    assert "cargo: NAME alone: ready (--check exits 0)" tool_rc 0
    assert "cargo: NAME alone: runs the same" run_same "$WORK/bigdata.orig" "$BIN"
    assert "cargo: NAME alone: segment bytes kept" check_segment_bytes "$WORK/bigdata.orig" "$BIN"
    assert "cargo: NAME alone: deps/ copy untouched" same_file "$WORK/bigdata.orig" "$DEP"
    assert "cargo: a no-op cargo build (nothing compiled)" cargo_noop "$C"
    run_tool --check "$BIN"
    assert "control: NAME alone does not survive a no-op build (--check exits 1)" tool_rc 1
    # The recipe as documented.
    (cd "$C" && $TOOL --break-hardlinks target/release/bigdata \
        $(find target/release/deps -samefile target/release/bigdata)) > /dev/null 2>&1
    assert "cargo post-build recipe: both names rewritten" equals "exit" "$?" 0
    run_tool --check "$BIN" "$DEP"
    assert "cargo post-build recipe: both names ready (--check exits 0)" tool_rc 0
    assert "cargo post-build recipe: a no-op cargo build" cargo_noop "$C"
    run_tool --check "$BIN"
    assert "cargo post-build recipe: after the no-op build still ready" tool_rc 0
    assert "cargo post-build recipe: ... and still runs the same" run_same "$WORK/bigdata.orig" "$BIN"
fi

# Recipe 2: the linker wrapper, set in .cargo/config.toml.
C=$WORK/crate2
new_crate "$C"
mkdir -p "$C/.cargo"
printf '[target.x86_64-unknown-linux-gnu]\nlinker = "%s"\n' \
    "$REPO_ROOT/examples/cargo/elfthp-link" > "$C/.cargo/config.toml"
# The wrapper finds the tool in PATH: no ELFTHP_ALIGN.
unset ELFTHP_ALIGN
export PATH=$WORK/bin:$PATH
mkdir -p "$WORK/bin" && ln -sf "$TOOL" "$WORK/bin/elfthp-align"
if assert "cargo linker-wrapper recipe: cargo build --release" cargo_build "$C"; then
    BIN=$C/target/release/bigdata DEP=$(deps_copy "$C")
    run_tool --check "$BIN" "$DEP"
    assert "cargo linker-wrapper recipe: both names ready (--check exits 0)" tool_rc 0
    assert "cargo linker-wrapper recipe: still one file (2 links)" equals "links" "$(links_of "$BIN")" 2
    assert "cargo linker-wrapper recipe: congruent" check_congruence "$BIN"
    assert "cargo linker-wrapper recipe: runs the same as recipe 1's original" run_same "$WORK/bigdata.orig" "$BIN"
    assert "cargo linker-wrapper recipe: a no-op cargo build" cargo_noop "$C"
    run_tool --check "$BIN"
    assert "cargo linker-wrapper recipe: after the no-op build still ready" tool_rc 0
fi

finish
