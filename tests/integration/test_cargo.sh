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
#   - recipe 1, a post-build step: cargo build, then
#     elfthp-align --break-hardlinks target/release/NAME;
#   - recipe 2, a linker wrapper (examples/cargo/elfthp-link) set in
#     .cargo/config.toml: both names aligned, still one file.
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

# Recipe 1: build, then rewrite target/release/NAME as a post-build step.
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
    assert "cargo post-build recipe: --break-hardlinks exits 0" tool_rc 0
    run_tool --check "$BIN"
    assert "cargo post-build recipe: target/release/NAME ready (--check exits 0)" tool_rc 0
    assert "cargo post-build recipe: runs the same" run_same "$WORK/bigdata.orig" "$BIN"
    assert "cargo post-build recipe: segment bytes kept" check_segment_bytes "$WORK/bigdata.orig" "$BIN"
    assert "cargo post-build recipe: deps/ copy untouched" same_file "$WORK/bigdata.orig" "$DEP"
fi

# Recipe 2: the linker wrapper, set in .cargo/config.toml.
C=$WORK/crate2
new_crate "$C"
mkdir -p "$C/.cargo"
printf '[target.x86_64-unknown-linux-gnu]\nlinker = "%s"\n' \
    "$REPO_ROOT/examples/cargo/elfthp-link" > "$C/.cargo/config.toml"
export ELFTHP_ALIGN=$TOOL
if assert "cargo linker-wrapper recipe: cargo build --release" cargo_build "$C"; then
    BIN=$C/target/release/bigdata DEP=$(deps_copy "$C")
    run_tool --check "$BIN" "$DEP"
    assert "cargo linker-wrapper recipe: both names ready (--check exits 0)" tool_rc 0
    assert "cargo linker-wrapper recipe: still one file (2 links)" equals "links" "$(links_of "$BIN")" 2
    assert "cargo linker-wrapper recipe: congruent" check_congruence "$BIN"
    assert "cargo linker-wrapper recipe: runs the same as recipe 1's original" run_same "$WORK/bigdata.orig" "$BIN"
    (cd "$C" && cargo build --release --offline -q) > /dev/null 2>&1
    run_tool --check "$BIN"
    assert "cargo linker-wrapper recipe: a second cargo build keeps it ready" tool_rc 0
fi

finish
