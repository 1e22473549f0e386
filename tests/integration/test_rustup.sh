#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# SPDX-FileCopyrightText: 2026 the elfthp-align authors
# test_rustup.sh BUILDDIR - rustup's rustc on rewritten copies of its
# BOLT-optimized libraries (librustc_driver-*.so, libLLVM.so.*).
#
# Those libraries carry their program headers in a last PT_LOAD at the
# end of the file (llvm-bolt's layout).  Copies of them are checked
# (--check: needs-rewrite), rewritten in place, checked again (ready), and
# rustc, run with LD_LIBRARY_PATH pointing at the copies, compiles a small
# crate to the same binary as with its own libraries, which prints the
# same.  While rustc waits for its source on a pipe, its libraries are
# mapped: the rewritten copies' text is PMD-mapped (FilePmdMapped), plain
# copies' (cp, the control) is not.
# Skipped, counted, where rustup's toolchain is not installed.
. "$(dirname "$0")/lib.sh"
need_builddir "$@"
need_tool

RUSTUP_HOME=${RUSTUP_HOME:-$HOME/.rustup}
tc=""
for t in "$RUSTUP_HOME"/toolchains/stable-* "$RUSTUP_HOME"/toolchains/*; do
    if [ -x "$t/bin/rustc" ] && ls "$t"/lib/librustc_driver-*.so >/dev/null 2>&1; then
        tc=$t
        break
    fi
done
if [ -z "$tc" ]; then
    skip "rustup's rustc on rewritten libraries" "rustup's toolchain not installed ($RUSTUP_HOME/toolchains)"
    finish
fi
RUSTC=$tc/bin/rustc
libs=$(cd "$tc/lib" && ls librustc_driver-*.so libLLVM.so.* 2>/dev/null)

status() {
    "$TOOL" --check --format json "$1" 2>/dev/null | head -1 |
        python3 -c 'import json, sys; print(json.loads(sys.stdin.readline())["status"])' 2>/dev/null
}

mkdir -p "$WORK/plain" "$WORK/aligned" "$WORK/src" || exit 1
cat > "$WORK/src/main.rs" <<'RS'
fn main() {
    let v: Vec<u64> = (1..=20).map(|n| (1..=n).product()).collect();
    println!("{:?}", v);
}
RS
for l in $libs; do
    cp "$tc/lib/$l" "$WORK/plain/$l" && cp "$tc/lib/$l" "$WORK/aligned/$l" ||
        { fail "copy $l" "cp failed"; finish; }
    assert "$l: --check says needs-rewrite" equals "status" "$(status "$WORK/aligned/$l")" needs-rewrite
    run_tool "$WORK/aligned/$l"
    assert "$l: rewritten in place" tool_rc 0
    assert "$l: --check on the output says ready" equals "status" "$(status "$WORK/aligned/$l")" ready
    assert "$l: segment and section bytes unchanged" check_segment_bytes "$WORK/plain/$l" "$WORK/aligned/$l"
    assert "$l: congruent" check_congruence "$WORK/aligned/$l"
done

# compile DIR OUT: rustc with the libraries of DIR builds the crate as OUT.
# (rustc finds its sysroot from where librustc_driver is: name it.)
compile() {
    LD_LIBRARY_PATH=$1 "$RUSTC" --sysroot "$tc" -C opt-level=2 -C codegen-units=1 \
        --remap-path-prefix "$WORK/src=src" -o "$2" "$WORK/src/main.rs" 2>&1
}
assert "rustc with its own libraries compiles the crate" eval 'compile "$tc/lib" "$WORK/own" >/dev/null'
assert "rustc with the rewritten libraries compiles the crate" eval 'compile "$WORK/aligned" "$WORK/new" >/dev/null'
assert "the same binary" same_file "$WORK/own" "$WORK/new"
assert "it prints the same" run_same "$WORK/own" "$WORK/new"

# rustc_pmd DIR: FilePmdMapped (kB) of DIR's librustc_driver in a rustc
# that waits for its source on a pipe; the libraries are mapped by then.
rustc_pmd() {
    local dir=$1 fifo=$WORK/fifo pid drv i kb=""
    drv=$(ls "$dir"/librustc_driver-*.so)
    rm -f "$fifo" && mkfifo "$fifo" || return 1
    LD_LIBRARY_PATH=$dir "$RUSTC" --sysroot "$tc" -o "$WORK/pipe-out" - < "$fifo" > /dev/null 2>&1 &
    pid=$!
    exec 9> "$fifo"
    for i in $(seq 1 200); do
        grep -q "$drv" "/proc/$pid/maps" 2>/dev/null && grep -q "$dir/libLLVM" "/proc/$pid/maps" && break
        sleep 0.05
    done
    # rustc reads its source after start-up: give it that, then measure.
    for i in $(seq 1 40); do
        [ "$(awk '/^State:/ { print $2 }' "/proc/$pid/status" 2>/dev/null)" = S ] && break
        sleep 0.05
    done
    kb=$(pmd_kb "$pid" "$drv")
    cat "$WORK/src/main.rs" >&9
    exec 9>&-
    wait "$pid"
    echo "$kb"
}
kb_plain=$(rustc_pmd "$WORK/plain")
kb_new=$(rustc_pmd "$WORK/aligned")
echo "# librustc_driver FilePmdMapped in rustc: cp $kb_plain kB, rewritten $kb_new kB"
assert "a cp of librustc_driver: not PMD-mapped (control)" kb_is "cp copy" "$kb_plain" 0
assert "the rewritten librustc_driver is PMD-mapped in rustc" eval '[ "${kb_new:-0}" -gt 0 ]'
finish
