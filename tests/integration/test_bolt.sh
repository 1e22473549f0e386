#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# SPDX-FileCopyrightText: 2026 the elfthp-align authors
# test_bolt.sh BUILDDIR - program headers at the end of the file (BOLT).
#
# llvm-bolt (rustup's libLLVM.so and librustc_driver.so) writes a new
# program header table at the end of the file, in a last PT_LOAD of its
# own, with PT_PHDR pointing at it.  Only the PT_LOAD holding the ELF
# header (or a table in front) is pinned, so the original text, which
# holds neither, can move; the table moves with its PT_LOAD, and e_phoff
# and PT_PHDR follow it.
#
# The fixture: the lld shared library (libbig-lld.so, text incongruent
# modulo 2 MiB) given BOLT's layout by tests/fixtures/boltify.py.  A real
# llvm-bolt is used too where Debian has one installed (bolt-NN).
# Checks: --check says needs-rewrite and the rewrite agrees (the output is
# then ready); segment bytes, eu-elflint and readelf's headers; a dlopen
# of the output calls the library and prints what the input prints.
. "$(dirname "$0")/lib.sh"
need_builddir "$@"
need_tool

status() {
    "$TOOL" --check --format json "$@" 2>/dev/null | head -1 |
        python3 -c 'import json, sys; print(json.loads(sys.stdin.readline())["status"])' 2>/dev/null
}

# phdr_facts FILE: "e_phoff PT_PHDR-offset offset-of-the-last-PT_LOAD".
phdr_facts() {
    local phoff
    phoff=$(LC_ALL=C readelf -hW "$1" | awk -F: '/Start of program headers/ { split($2, x, " "); print x[1] }')
    echo "$phoff $(elf_phdrs "$1" | awk '$2 == "PHDR" { p = $3 } $2 == "LOAD" { l = $3 } END { print p, l }')"
}

# dlopen_run LIB: what a dlopen of LIB and a call of each function prints.
cat > "$WORK/dl.c" <<'C'
#include <dlfcn.h>
#include <stdio.h>
int
main(int argc, char **argv)
{
	void *h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
	unsigned (*call)(unsigned), (*sum)(void), (*bad)(void);

	if (argc != 2 || h == NULL) {
		fprintf(stderr, "dlopen: %s\n", dlerror());
		return 1;
	}
	call = (unsigned (*)(unsigned))dlsym(h, "big_call_all");
	sum = (unsigned (*)(void))dlsym(h, "big_blob_checksum");
	bad = (unsigned (*)(void))dlsym(h, "big_blob_mismatches");
	if (!call || !sum || !bad)
		return 1;
	printf("%u %u %u\n", call(7), sum(), bad());
	return 0;
}
C
if ! gcc -O1 -o "$WORK/dl" "$WORK/dl.c" -ldl 2>"$WORK/dl.err"; then
    fail "build the dlopen driver" "$(head -3 "$WORK/dl.err")"
    finish
fi

# one_layout DESC FILE: the checks, on a BOLT-laid-out library.
one_layout() {
    local d=$1 in=$2 out=$WORK/$(basename "$2").out
    local st0 st1 rc
    st0=$(status "$in")
    assert "$d: --check says needs-rewrite (not needs-relink)" equals "status" "$st0" needs-rewrite
    assert_not "$d: the input's text is incongruent (control)" check_congruence "$in"
    run_tool -o "$out" "$in"
    assert "$d: rewritten" tool_rc 0 || return
    assert "$d: the rewrite changed the file" eval '! cmp -s "$in" "$out"'
    st1=$(status "$out")
    assert "$d: --check on the output says ready" equals "status" "$st1" ready
    assert "$d: congruent" check_congruence "$out"
    assert "$d: segment and section bytes unchanged" check_segment_bytes "$in" "$out"
    assert "$d: no eu-elflint message the input lacks" check_elflint "$in" "$out"
    read -r ph0 pp0 pl0 <<< "$(phdr_facts "$in")"
    read -r ph1 pp1 pl1 <<< "$(phdr_facts "$out")"
    assert "$d: the input's table is in its last PT_LOAD (control)" equals \
        "e_phoff PT_PHDR last-PT_LOAD" "$ph0 $pp0 $pl0" "$ph0 $ph0 $ph0"
    assert "$d: e_phoff, PT_PHDR and the last PT_LOAD moved together" equals \
        "e_phoff PT_PHDR last-PT_LOAD" "$ph1 $pp1 $pl1" "$ph1 $ph1 $ph1"
    assert "$d: the table moved (e_phoff)" eval '[ "$ph1" -gt "$ph0" ]'
    assert "$d: dlopen and calls print the same" run_same "$in" "$out" "$WORK/dl"
}

if ! fixture_line lld-shared; then
    skip "BOLT-like layout" "no lld-shared fixture (ld.lld not installed)"
    finish
fi
python3 "$REPO_ROOT/tests/fixtures/boltify.py" "$BUILD/$FX_FILE" "$WORK/libbolt.so" ||
    { fail "boltify.py" "could not lay out $FX_FILE"; finish; }
assert "the plain library runs (control)" run_same "$BUILD/$FX_FILE" "$WORK/libbolt.so" "$WORK/dl"
one_layout "BOLT-like libbig-lld.so" "$WORK/libbolt.so"

# The same library as lld laid it out (table in front, in the first, R,
# PT_LOAD): the same verdict.  (The binary from before this rule pinned
# every segment before the table, and said needs-relink for the BOLT copy.)
assert "the lld library with the table in front: needs-rewrite" equals "status" \
    "$(status "$BUILD/$FX_FILE")" needs-rewrite

# A real llvm-bolt, where one is installed (Debian: bolt-NN, not in 12).
bolt=$(command -v llvm-bolt || ls /usr/lib/llvm-*/bin/llvm-bolt 2>/dev/null | tail -1)
if need "real llvm-bolt output" "llvm-bolt not installed (Debian 12 has no bolt package)" [ -n "$bolt" ]; then
    gcc -O2 -fPIC -shared -Wl,--emit-relocs -fuse-ld=lld -o "$WORK/libreal.so" \
        "$BUILD"/obj/x86_64/big_funcs.o "$BUILD"/obj/x86_64/big_blob.o &&
    "$bolt" "$WORK/libreal.so" -o "$WORK/libreal-bolt.so" > /dev/null 2>&1 &&
        one_layout "llvm-bolt output" "$WORK/libreal-bolt.so" ||
        fail "real llvm-bolt output" "llvm-bolt failed on the fixture"
fi

finish
