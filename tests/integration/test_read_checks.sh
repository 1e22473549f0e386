#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# SPDX-FileCopyrightText: 2026 the elfthp-align authors
# test_read_checks.sh BUILDDIR - each bounds check of the read pass
# (src/elf_read.c), one header field at a time: a truncated ELF header,
# a wrong e_phentsize or e_shentsize, e_shoff past the end of the file
# (and wrapping past 2^64), program and section header tables running past
# it, counts over what the tool reads (65535 program headers through
# PN_XNUM, 2^18 section headers through section 0), PN_XNUM without
# section headers.  Each must be refused, in --check and in a rewrite,
# with exit 2 and one line naming the file and that very problem (the
# next check down would refuse most of them too, or fail a read, with
# another message: make mutation removes each check and expects this
# script to notice), and the file left byte for byte.  The base file,
# a small PIE compiled here, is accepted, so that the refusals are the
# patch's.  ELF64 little-endian offsets; the patching is perl's pack.
. "$(dirname "$0")/lib.sh"
need_builddir "$@"
need_tool

BASE=$WORK/base
printf 'int main(void) { return 0; }\n' > "$WORK/base.c"
if ! cc -O2 -pie -fPIE -o "$BASE" "$WORK/base.c"; then
    fail "compile the base file" "cc failed"
    finish
fi

# poke FILE OFFSET FORMAT VALUE: write pack(FORMAT, VALUE) at OFFSET.
poke() {
    perl -e 'open(my $f, "+<", $ARGV[0]) or die "$ARGV[0]: $!";
        binmode $f; seek($f, $ARGV[1], 0) or die;
        print $f pack($ARGV[2], $ARGV[3]) or die; close $f or die;' "$@"
}

# peek FILE OFFSET FORMAT LENGTH: unpack(FORMAT) of LENGTH bytes at OFFSET.
peek() {
    perl -e 'open(my $f, "<", $ARGV[0]) or die "$ARGV[0]: $!";
        binmode $f; seek($f, $ARGV[1], 0) or die;
        read($f, my $b, $ARGV[3]) == $ARGV[3] or die;
        print unpack($ARGV[2], $b), "\n";' "$@"
}

SHOFF=$(peek "$BASE" 40 'Q<' 8)
SIZE=$(stat -c %s "$BASE")
if [ "$(peek "$BASE" 0 'H8' 4)" != 7f454c46 ] || [ "$SHOFF" -eq 0 ]; then
    fail "the base file is ELF with section headers" "$(file "$BASE")"
    finish
fi

# The negative control: the base file as compiled is accepted.
run_tool --check "$BASE"
assert "the base file passes --check" tool_rc 0
cp "$BASE" "$WORK/base-copy"
run_tool "$WORK/base-copy"
assert "the base file is rewritten (exit 0)" tool_rc 0

# says TEXT: the last run's stderr has TEXT.
says() {
    case $T_ERR in
        *"$1"*) return 0 ;;
    esac
    WHY="stderr does not say '$1': $(tool_said)"; return 1
}

# refused NAME TEXT: the file $WORK/NAME (patched from the base file) is
# refused with TEXT, in --check and in a rewrite, and left as it was.
refused() {
    local name=$1 text=$2 f=$WORK/$1 mode
    cp "$f" "$f.saved" || { fail "$name: copy" "cp failed"; return; }
    for mode in --check rewrite; do
        if [ "$mode" = rewrite ]; then run_tool "$f"; else run_tool "$mode" "$f"; fi
        assert "$name $mode: exits 2" tool_rc 2
        assert "$name $mode: one message naming the file" one_error_line "$f"
        assert "$name $mode: says '$text'" says "$text"
    done
    assert "$name: the file is unchanged" same_file "$f.saved" "$f"
    assert "$name: no temporary file" no_temp "$WORK"
    rm -f "$f" "$f.saved"
}

# patched NAME: a copy of the base file to patch, $WORK/NAME.
patched() { cp "$BASE" "$WORK/$1"; }

head -c 40 "$BASE" > "$WORK/ehdr-truncated"
refused ehdr-truncated "truncated ELF header (40 of 64 bytes)"

patched phentsize && poke "$WORK/phentsize" 54 'v' 64
refused phentsize "e_phentsize 64 is wrong (expected 56)"

patched shentsize && poke "$WORK/shentsize" 58 'v' 128
refused shentsize "e_shentsize 128 is wrong (expected 64)"

patched shoff-past-eof && poke "$WORK/shoff-past-eof" 40 'Q<' $((SIZE + 64))
refused shoff-past-eof "section header table (e_shoff $(printf 0x%x $((SIZE + 64)))) is past end of file"

# 2^64 - 32: e_shoff + 64 wraps to 32, inside the file.
patched shoff-wraps && poke "$WORK/shoff-wraps" 40 'Q<' 18446744073709551584
refused shoff-wraps "section header table (e_shoff 0xffffffffffffffe0) is past end of file"

patched phnum-past-eof && poke "$WORK/phnum-past-eof" 56 'v' 1000
refused phnum-past-eof "program header table (1000 entries at 0x40) extends past end of file"

patched shnum-past-eof && poke "$WORK/shnum-past-eof" 60 'v' 1000
refused shnum-past-eof "section header table (1000 entries at $(printf 0x%x "$SHOFF")) extends past end of file"

# 2^64 - 16: e_phoff + the table wraps, inside the file.
patched phoff-wraps && poke "$WORK/phoff-wraps" 32 'Q<' 18446744073709551600
refused phoff-wraps "extends past end of file"

# PN_XNUM: the count is section 0's sh_info, 70000, and the file (sparse)
# is long enough to hold that many: only the limit refuses it.
patched phnum-limit && poke "$WORK/phnum-limit" 56 'v' 65535 &&
    poke "$WORK/phnum-limit" $((SHOFF + 44)) 'V' 70000 &&
    truncate -s 4M "$WORK/phnum-limit"
refused phnum-limit "70000 program headers: more than the 65535 this tool reads"

# e_shnum 0: the count is section 0's sh_size, 300000, all in the file.
patched shnum-limit && poke "$WORK/shnum-limit" 60 'v' 0 &&
    poke "$WORK/shnum-limit" $((SHOFF + 32)) 'Q<' 300000 &&
    truncate -s $((SHOFF + 300000 * 64)) "$WORK/shnum-limit"
refused shnum-limit "300000 section headers: more than the 262144 this tool reads"

patched pnxnum-no-shdrs && poke "$WORK/pnxnum-no-shdrs" 56 'v' 65535 &&
    poke "$WORK/pnxnum-no-shdrs" 40 'Q<' 0
refused pnxnum-no-shdrs "e_phnum is PN_XNUM but there are no section headers"

finish
