#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# SPDX-FileCopyrightText: 2026 the elfthp-align authors
# test_safety.sh BUILDDIR - the rewrite keeps file metadata and never
# damages an input it refuses:
#   - security.ima and security.evm are not copied (they sign the old
#     content), and the user is told;
#   - owner, set-user-ID / set-group-ID bits, security.capability and user
#     xattrs survive an in-place rewrite;
#   - a symlink argument rewrites the target and stays a link;
#   - a file with hard links is refused in place, -o still works;
#   - malformed inputs, directories, FIFOs, devices, missing files and a
#     read-only file system fail with exit 2 and a message naming the file;
#     the file is byte-identical afterwards, no temporary file is left,
#     no -o output is created;
#   - a running executable can be rewritten: the process keeps running on
#     the old inode, the new file runs;
#   - one bad file among good ones: exit 2, the good ones are still done.
# Most cases use the gnu-pie fixture (cheap: only p_align changes); the
# running-executable case uses lld-pie, whose text moves.
. "$(dirname "$0")/lib.sh"
need_builddir "$@"
need_tool

if ! fixture_line gnu-pie; then
    skip "safety tests" "fixture gnu-pie not built"
    finish
fi
FX=$BUILD/$FX_FILE



# rewritten FILE: the tool really rewrote FILE (it is congruent now).
rewritten() { check_congruence "$1"; }

# ------------------------------------------------------------------------
echo "# metadata survives an in-place rewrite"

am_root=no; [ "$(id -u)" -eq 0 ] && am_root=yes

# mode_owner_case MODE: owner nobody:nogroup and MODE survive.
mode_owner_case() {
    local mode=$1 got
    fresh
    if [ $am_root = no ] || ! chown nobody:nogroup "$F" 2>/dev/null; then
        skip "mode $mode and owner nobody:nogroup survive" "cannot chown (not root?)"
        return
    fi
    chmod "$mode" "$F"
    run_tool "$F"
    assert "mode $mode: rewrite exits 0" tool_rc 0
    assert "mode $mode: file was rewritten" rewritten "$F"
    got=$(stat -c '%a %U:%G' "$F")
    [ "$got" = "$mode nobody:nogroup" ] &&
        pass "mode $mode and owner nobody:nogroup survive" ||
        fail "mode $mode and owner nobody:nogroup survive" "now $got"
}
mode_owner_case 4755
mode_owner_case 2755
mode_owner_case 6750

# capability on a file owned by nobody (chown would clear it).
fresh
if [ $am_root = yes ] && chown nobody:nogroup "$F" && chmod 755 "$F" &&
   setcap cap_net_raw+ep "$F" 2>/dev/null; then
    run_tool "$F"
    assert "setcap: rewrite exits 0" tool_rc 0
    assert "setcap: file was rewritten" rewritten "$F"
    got=$(getcap "$F")
    case $got in
        *cap_net_raw=ep*) pass "security.capability cap_net_raw+ep survives" ;;
        *) fail "security.capability cap_net_raw+ep survives" "getcap says [$got]" ;;
    esac
    got=$(stat -c '%a %U:%G' "$F")
    [ "$got" = "755 nobody:nogroup" ] && pass "setcap: mode and owner survive" ||
        fail "setcap: mode and owner survive" "now $got"
else
    skip "security.capability survives" "setcap failed (not root or no xattrs here)"
fi

# user xattr.
fresh
if setfattr -n user.test -v hello "$F" 2>/dev/null; then
    run_tool "$F"
    assert "user xattr: rewrite exits 0" tool_rc 0
    assert "user xattr: file was rewritten" rewritten "$F"
    got=$(getfattr --only-values -n user.test "$F" 2>/dev/null)
    [ "$got" = hello ] && pass "user.test xattr survives" ||
        fail "user.test xattr survives" "getfattr says [$got]"
else
    skip "user xattr survives" "file system in $WORK has no user xattrs"
fi

# IMA and EVM signatures sign the old content: not copied, and said.
fresh
if setfattr -n security.ima -v 0x0404 "$F" 2>/dev/null &&
   setfattr -n security.evm -v 0x0303 "$F" 2>/dev/null &&
   setfattr -n user.keep -v yes "$F" 2>/dev/null; then
    run_tool "$F"
    assert "IMA/EVM: rewrite exits 0" tool_rc 0
    assert "IMA/EVM: file was rewritten" rewritten "$F"
    got=$(getfattr -d -m 'security\.(ima|evm)' --absolute-names "$F" 2>/dev/null | grep -c '^security')
    assert "IMA/EVM: security.ima and security.evm are not copied" equals "signatures left" "$got" 0
    assert "IMA/EVM: other attributes are" equals "user.keep" \
        "$(getfattr --only-values -n user.keep "$F" 2>/dev/null)" yes
    case $T_ERR in
        *"security.ima not copied"*"sign the new file again"*) pass "IMA/EVM: the user is told to sign again" ;;
        *) fail "IMA/EVM: the user is told to sign again" "$(tool_said)" ;;
    esac
else
    skip "IMA/EVM signatures" "the kernel refuses security.ima/evm here (IMA or EVM appraising)"
fi

# Everything at once: owner, 6755, capability, xattr.
fresh
if [ $am_root = yes ] && chown nobody:nogroup "$F" && chmod 6755 "$F" &&
   setfattr -n user.test -v all "$F" 2>/dev/null &&
   setcap cap_net_raw+ep "$F" 2>/dev/null; then
    before="$(stat -c '%a %U:%G' "$F") $(getcap "$F" | awk '{print $2}') $(getfattr --only-values -n user.test "$F" 2>/dev/null)"
    run_tool "$F"
    assert "all metadata: rewrite exits 0" tool_rc 0
    assert "all metadata: file was rewritten" rewritten "$F"
    after="$(stat -c '%a %U:%G' "$F") $(getcap "$F" | awk '{print $2}') $(getfattr --only-values -n user.test "$F" 2>/dev/null)"
    [ "$after" = "$before" ] && pass "owner, 6755, capability and xattr survive together ($after)" ||
        fail "owner, 6755, capability and xattr survive together" "[$before] -> [$after]"
else
    skip "owner, 6755, capability and xattr survive together" "cannot set them up here"
fi

# ------------------------------------------------------------------------
echo "# symbolic link argument"
fresh
mkdir -p "$D/links" && ln -s ../prog "$D/links/link"
l1=$(listing "$D") l2=$(listing "$D/links")
run_tool "$D/links/link"
assert "symlink: rewrite exits 0" tool_rc 0
[ -L "$D/links/link" ] && [ "$(readlink "$D/links/link")" = ../prog ] &&
    pass "symlink: the link is still a link to ../prog" ||
    fail "symlink: the link is still a link to ../prog" "$(ls -l "$D/links")"
assert "symlink: the target was rewritten" rewritten "$D/prog"
assert "symlink: target's directory has no extra file" same_listing "$D" "$l1"
assert "symlink: link's directory has no extra file" same_listing "$D/links" "$l2"
need "symlink: rewritten target runs" "no way to run x86_64 programs here" set_runner x86_64 &&
    assert "symlink: rewritten target runs" run_same "$FX" "$D/links/link"

# ------------------------------------------------------------------------
echo "# hard links"
fresh
ln "$F" "$D/other"
id=$(file_id "$F") l=$(listing "$D")
run_tool "$F"
assert "hard link: in-place rewrite exits 2" tool_rc 2
assert "hard link: message names the file" tool_err_names "$F"
assert "hard link: file untouched (inode, mtime)" same_id "$F" "$id"
assert "hard link: file byte-identical" same_file "$FX" "$F"
assert "hard link: no extra file" same_listing "$D" "$l"
[ "$(stat -c %h "$F")" = 2 ] && pass "hard link: still two links" ||
    fail "hard link: still two links" "link count $(stat -c %h "$F")"
run_tool -o "$D/out" "$F"
assert "hard link: -o exits 0" tool_rc 0
if [ -f "$D/out" ]; then
    assert "hard link: -o output is rewritten" rewritten "$D/out"
else
    fail "hard link: -o output exists" "$(tool_said)"
fi
assert "hard link: -o leaves the input" same_id "$F" "$id"

# ------------------------------------------------------------------------
echo "# inputs that must be refused"

# refused DESC FILE: the tool refuses FILE in place and with -o; FILE stays
# byte-identical and untouched, its directory gets no new file.
refused() {
    local desc=$1 f=$2 dir saved id l
    dir=$(dirname "$f")
    saved=$WORK/saved.$$
    cp "$f" "$saved"
    id=$(file_id "$f") l=$(listing "$dir")
    run_tool "$f"
    assert "$desc: exits 2" tool_rc 2
    assert "$desc: message names the file" tool_err_names "$f"
    assert "$desc: file byte-identical" same_file "$saved" "$f"
    assert "$desc: file untouched (inode, mtime)" same_id "$f" "$id"
    assert "$desc: no temporary file left" same_listing "$dir" "$l"
    run_tool -o "$dir/out" "$f"
    assert "$desc, -o: exits 2" tool_rc 2
    [ ! -e "$dir/out" ] && pass "$desc, -o: no output created" ||
        fail "$desc, -o: no output created" "$(ls -l "$dir/out")"
    assert "$desc, -o: file byte-identical" same_file "$saved" "$f"
    rm -f "$dir/out" "$saved"
}

# skipped DESC FILE: not ELF, or not a program: skipped with a line, exit
# 0, in place and with -o; FILE stays untouched, nothing is written.
skipped() {
    local desc=$1 f=$2 dir saved id l
    dir=$(dirname "$f")
    saved=$WORK/saved.$$
    cp "$f" "$saved"
    id=$(file_id "$f") l=$(listing "$dir")
    run_tool "$f"
    assert "$desc: skipped, exit 0" tool_rc 0
    assert "$desc: a line says it was skipped" eval '[ "$T_OUT" = "$f: skipped: ${T_OUT#"$f: skipped: "}" ] && [ -z "$T_ERR" ]'
    assert "$desc: file byte-identical" same_file "$saved" "$f"
    assert "$desc: file untouched (inode, mtime)" same_id "$f" "$id"
    assert "$desc: no temporary file left" same_listing "$dir" "$l"
    run_tool -o "$dir/out" "$f"
    assert "$desc, -o: skipped, exit 0" tool_rc 0
    [ ! -e "$dir/out" ] && pass "$desc, -o: no output created" ||
        fail "$desc, -o: no output created" "$(ls -l "$dir/out")"
    assert "$desc, -o: file byte-identical" same_file "$saved" "$f"
    rm -f "$dir/out" "$saved"
}

# le_bytes VALUE N: printf escapes for VALUE as N little-endian bytes.
le_bytes() {
    local v=$1 n=$2 k s=""
    for ((k = 0; k < n; k++)); do s="$s$(printf '\\x%02x' $(( (v >> (8 * k)) & 255 )))"; done
    echo "$s"
}
# poke FILE OFFSET VALUE N: write VALUE as N little-endian bytes at OFFSET.
poke() { printf "$(le_bytes "$3" "$4")" | dd of="$1" bs=1 seek="$2" conv=notrunc status=none; }

# Geometry of the gnu-pie fixture (ELF64 little-endian, 56-byte phdrs).
phoff=$(LC_ALL=C readelf -h "$FX" | awk -F: '/Start of program headers/ { split($2, x, " "); print x[1] }')
phent=$(LC_ALL=C readelf -h "$FX" | awk -F: '/Size of program headers/ { split($2, x, " "); print x[1] }')
mapfile -t loads < <(elf_phdrs "$FX" | awk '$2 == "LOAD" { print $1 }')
text=$(elf_phdrs "$FX" | awk '$2 == "LOAD" && $8 ~ /E/ { print $1; exit }')
text_off=$(elf_phdrs "$FX" | awk -v i="$text" '$1 == i { print $3 }')
l0_vaddr=$(elf_phdrs "$FX" | awk -v i="${loads[0]}" '$1 == i { print $4 }')
l1_vaddr=$(elf_phdrs "$FX" | awk -v i="${loads[1]}" '$1 == i { print $4 }')

mkdir -p "$WORK/bad"
: > "$WORK/bad/empty"
skipped "empty file" "$WORK/bad/empty"

printf 'hello, I am not an ELF file\n' > "$WORK/bad/text"
skipped "non-ELF file" "$WORK/bad/text"

head -c 20 "$FX" > "$WORK/bad/short-ehdr"
refused "truncated ELF header" "$WORK/bad/short-ehdr"

head -c $((phoff + 2 * phent + 10)) "$FX" > "$WORK/bad/short-phdrs"
refused "truncated inside the program headers" "$WORK/bad/short-phdrs"

head -c $((text_off + 0x100000)) "$FX" > "$WORK/bad/short-seg"
refused "truncated inside a segment" "$WORK/bad/short-seg"

if [ -f "$BUILD/obj/x86_64/big_funcs.o" ]; then
    cp "$BUILD/obj/x86_64/big_funcs.o" "$WORK/bad/object.o"
    skipped "ET_REL object" "$WORK/bad/object.o"
else
    skip "ET_REL object" "no $BUILD/obj/x86_64/big_funcs.o"
fi

# p_memsz (phdr + 40) of the text PT_LOAD made smaller than p_filesz.
cp "$FX" "$WORK/bad/filesz-gt-memsz"
poke "$WORK/bad/filesz-gt-memsz" $((phoff + text * phent + 40)) 16 8
refused "p_filesz > p_memsz" "$WORK/bad/filesz-gt-memsz"

# The first PT_LOAD's p_filesz and p_memsz (phdr + 32, + 40) grown to run
# 4 KiB into the second one (still congruent, still inside the file).
cp "$FX" "$WORK/bad/overlap"
grow=$((l1_vaddr + 0x1000 - l0_vaddr))
poke "$WORK/bad/overlap" $((phoff + loads[0] * phent + 32)) "$grow" 8
poke "$WORK/bad/overlap" $((phoff + loads[0] * phent + 40)) "$grow" 8
refused "overlapping PT_LOADs" "$WORK/bad/overlap"

# e_phnum (ehdr + 56) so large that the table runs past the end of file.
head -c $((phoff + 13 * phent)) "$FX" > "$WORK/bad/phnum-past-eof"
poke "$WORK/bad/phnum-past-eof" 56 200 2
refused "e_phnum runs past the end of file" "$WORK/bad/phnum-past-eof"

# e_phnum = PN_XNUM (0xffff) with no section headers (e_shoff, e_shnum and
# e_shstrndx zero): there is no real count to read (libelf invents one).
cp "$FX" "$WORK/bad/pn-xnum"
poke "$WORK/bad/pn-xnum" 56 65535 2
poke "$WORK/bad/pn-xnum" 40 0 8
poke "$WORK/bad/pn-xnum" 60 0 4
refused "PN_XNUM without section headers" "$WORK/bad/pn-xnum"

# The checks above must notice a damaged file: sanity of the harness.
assert_not "check_segment_bytes notices the patched p_memsz" \
    check_segment_bytes "$FX" "$WORK/bad/filesz-gt-memsz"

# Not regular files.
mkdir -p "$WORK/bad/dir"
l=$(listing "$WORK/bad")
run_tool "$WORK/bad/dir"
assert "directory: exits 2" tool_rc 2
assert "directory: message names it" tool_err_names "$WORK/bad/dir"
assert "directory: no extra file" same_listing "$WORK/bad" "$l"

mkfifo "$WORK/bad/fifo"
l=$(listing "$WORK/bad")
T_TIMEOUT=15 run_tool "$WORK/bad/fifo"
[ "$T_RC" -ne 124 ] && pass "FIFO: does not hang" || fail "FIFO: does not hang" "killed after 15 s"
assert "FIFO: exits 2" tool_rc 2
assert "FIFO: message names it" tool_err_names "$WORK/bad/fifo"
assert "FIFO: no extra file" same_listing "$WORK/bad" "$l"

T_TIMEOUT=15 run_tool /dev/null
assert "character device /dev/null: exits 2" tool_rc 2
assert "character device /dev/null: message names it" tool_err_names /dev/null

run_tool "$WORK/bad/does-not-exist"
assert "missing file: exits 2" tool_rc 2
assert "missing file: message names it" tool_err_names "$WORK/bad/does-not-exist"

# ------------------------------------------------------------------------
echo "# one bad file among good ones"
fresh
cp "$F" "$D/prog2"
cp "$WORK/bad/short-seg" "$D/junk"    # malformed: an error, not skipped
run_tool "$F" "$D/junk" "$D/prog2"
assert "mixed: exits 2" tool_rc 2
assert "mixed: message names the bad file" tool_err_names "$D/junk"
assert "mixed: first good file rewritten" rewritten "$F"
assert "mixed: good file after the bad one rewritten" rewritten "$D/prog2"
assert "mixed: bad file untouched" same_file "$WORK/bad/short-seg" "$D/junk"
case $T_OUT in
    *"$F: "*"$D/prog2: "*) pass "mixed: a report line for each good file" ;;
    *) fail "mixed: a report line for each good file" "$(tool_said)" ;;
esac

echo "# -o with two inputs"
fresh
cp "$F" "$D/prog2"
l=$(listing "$D")
run_tool -o "$D/out" "$F" "$D/prog2"
[ "$T_RC" -ne 0 ] && pass "-o with two inputs fails" ||
    fail "-o with two inputs fails" "$(tool_said)"
assert "-o with two inputs: nothing written" same_listing "$D" "$l"
assert "-o with two inputs: inputs untouched" same_file "$FX" "$F"

# ------------------------------------------------------------------------
echo "# read-only file system"
if [ $am_root = yes ] && mkdir -p "$WORK/ro" &&
   mount -t tmpfs -o size=64M tmpfs "$WORK/ro" 2>/dev/null; then
    MNT=$WORK/ro MOUNTS="$WORK/ro $MOUNTS"
    cp "$FX" "$MNT/prog"
    if mount -o remount,ro "$MNT" 2>/dev/null; then
        refused "read-only file system" "$MNT/prog"
        run_tool -n "$MNT/prog"
        assert "read-only file system: -n exits 0" tool_rc 0
        mkdir -p "$WORK/rw"
        run_tool -o "$WORK/rw/out" "$MNT/prog"
        assert "read-only file system: -o elsewhere exits 0" tool_rc 0
        if [ -f "$WORK/rw/out" ]; then
            assert "read-only file system: -o output rewritten" rewritten "$WORK/rw/out"
        else
            fail "read-only file system: -o output exists" "$(tool_said)"
        fi
    else
        skip "read-only file system" "cannot remount tmpfs read-only"
    fi
    unmount "$MNT"
else
    skip "read-only file system" "cannot mount a tmpfs (not root?)"
fi

# ------------------------------------------------------------------------
echo "# rewriting a running executable"
if fixture_line lld-pie && set_runner x86_64; then
    LLD=$BUILD/$FX_FILE
    fresh "$LLD"
    if hold_start "$WORK/hold.out" "$F"; then
        pid=$HOLD_PID
        run_tool "$F"
        assert "running: rewrite exits 0 (no ETXTBSY)" tool_rc 0
        assert "running: file was rewritten" rewritten "$F"
        kill -0 "$pid" 2>/dev/null && pass "running: process still alive" ||
            fail "running: process still alive" "pid $pid is gone"
        # The process still maps the old inode, which must be unmodified.
        assert "running: old inode still holds the original bytes" \
            same_file "$LLD" "/proc/$pid/exe"
        assert "running: new file runs the same" run_same "$LLD" "$F"
        hold_stop
    else
        fail "running: fixture started with --hold" "$WHY"
    fi
else
    skip "rewriting a running executable" "lld-pie not built or not x86_64"
fi

finish
