#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# SPDX-FileCopyrightText: 2026 the elfthp-align authors
# test_corners.sh BUILDDIR - behaviours that one wrong line would change
# without any other test noticing (each has its deliberate bug in
# tests/mutants/ naming this script):
#   - writable segments have no windows: a PIE with 5 MiB of text and
#     6 MiB of initialised .data (its RW PT_LOAD incongruent modulo 2 MiB,
#     as every linker leaves it), rewritten with -o: --warm makes its one
#     window huge and exits 0, never "needs rewrite" for the data; the
#     control: the program not rewritten needs rewriting (exit 1);
#   - a process whose mapping of the file starts inside a window (1 MiB
#     into it, 4 KiB long) is a mapper of that window: --warm leaves the
#     window's small folios (exit 1, "mapped by pid N", the cached bytes as
#     they were); the control: once it is gone, --warm makes it huge;
#   - a walk looks inside .apk and .aab files only: a .jar holding a
#     library that needs a relink for 16 KiB pages is a file that is not
#     ELF (exit 0); the control: the same archive named .apk, exit 3;
#   - a 32-bit ARM library in an APK (hand-made: text and data on one
#     16 KiB page) is not judged by the 16 KiB rule, which Android applies
#     to arm64 and x86_64 only: exit 0 and "no kernel of this machine runs
#     pages of 16384 bytes"; the control: the same library given alone to
#     --compat --page-size 4k is compatible, and on its own at 16k refused;
#   - an in-place rewrite on btrfs of a program whose segments move (the
#     lld-pie fixture): FICLONE is only for a layout that stays; the output
#     keeps every segment's bytes and runs as the original does.  (The
#     other btrfs case of the suite writes -o from another file system,
#     where FICLONE fails whatever the layout.)
# Needs root (loop mounts) on x86_64 with 2 MiB PMDs; the archive cases
# need neither.
. "$(dirname "$0")/lib.sh"
need_builddir "$@"
need_tool

# --- archives in a walk, and a machine 16 KiB pages do not apply to -----------
echo "# archives"
if fixture_line shared; then
    A=$WORK/archives
    mkdir -p "$A/walk"
    # arm32.so: ELF32 ARM ET_DYN, text [0, 0x1100) R+X and data at 0x2100
    # (file 0x1100) RW: on 16 KiB pages both are on the first page.
    python3 - "$A" "$BUILD/$FX_FILE" "$LIB_DIR" <<'EOF'
import struct, sys, zipfile
out, lib, libdir = sys.argv[1:4]
sys.path.insert(0, libdir)
import mkzip
ehdr = struct.pack("<16sHHIIIIIHHHHHH", b"\x7fELF\x01\x01\x01" + bytes(9),
                   3, 40, 1, 0, 52, 0, 0x05000000, 52, 32, 2, 40, 0, 0)
ph = struct.pack("<8I", 1, 0, 0, 0, 0x1100, 0x1100, 5, 0x1000)
ph += struct.pack("<8I", 1, 0x1100, 0x2100, 0x2100, 0x100, 0x100, 6, 0x1000)
elf = ehdr + ph
elf += bytes(0x1200 - len(elf))
open(out + "/arm32.so", "wb").write(elf)
with zipfile.ZipFile(out + "/arm32.apk", "w") as z:
    z.writestr("AndroidManifest.xml", b"m" * 100)
    mkzip.add(z, "lib/armeabi-v7a/libold.so", elf, align=mkzip.PAGE)
with zipfile.ZipFile(out + "/walk/app.jar", "w") as z:
    z.writestr("META-INF/MANIFEST.MF", b"Manifest-Version: 1.0\n")
    mkzip.add(z, "lib/x86_64/libbig.so", open(lib, "rb").read(),
              align=mkzip.PAGE)
EOF
    COMPAT=(--check --compat --page-size 16k)
    run_tool "${COMPAT[@]}" -r "$A/walk"
    assert "walk: a .jar is not opened (exit 0)" tool_rc 0
    assert "walk: the .jar is a file that is not ELF" equals "summary" \
        "$(printf '%s\n' "$T_OUT" | tail -n 1)" \
        "checked 1 file for 16KiB pages: 0 compatible, 0 fixable, 0 need relinking, 1 not applicable (1 not ELF), 0 errors"
    cp "$A/walk/app.jar" "$A/walk/app.apk"
    run_tool "${COMPAT[@]}" -r "$A/walk"
    assert "control: walk: the same archive named .apk is opened (exit 3)" tool_rc 3
    case $T_OUT in
        *"$A/walk/app.apk!/lib/x86_64/libbig.so: needs a relink for 16KiB pages"*)
            pass "control: walk: the .apk's library needs a relink" ;;
        *) fail "control: walk: the .apk's library needs a relink" "$(tool_said)" ;;
    esac

    run_tool "${COMPAT[@]}" "$A/arm32.apk"
    assert "APK with an ARM32 library: exit 0" tool_rc 0
    case $T_OUT in
        *"$A/arm32.apk!/lib/armeabi-v7a/libold.so: arm: no kernel of this machine runs pages of 16384 bytes"*)
            pass "APK with an ARM32 library: not for 16 KiB pages, said" ;;
        *) fail "APK with an ARM32 library: not for 16 KiB pages, said" "$(tool_said)" ;;
    esac
    run_tool --check --compat --page-size 4k "$A/arm32.so"
    assert "control: the ARM32 library loads on 4 KiB pages (exit 0)" tool_rc 0
    run_tool "${COMPAT[@]}" "$A/arm32.so"
    assert "control: the ARM32 library alone at 16k: refused, named" equals "message" \
        "$T_RC:$T_ERR" "2:elfthp-align: $A/arm32.so: arm kernels do not run pages of 16384 bytes"
else
    skip "archives" "fixture shared (libbig.so) not built"
fi

if [ "$(uname -m)" != x86_64 ] || [ "$(id -u)" -ne 0 ] ||
   [ "$(cat /sys/kernel/mm/transparent_hugepage/hpage_pmd_size 2>/dev/null)" != 2097152 ]; then
    skip "windows and btrfs" "needs root on x86_64 with 2 MiB PMDs"
    finish
fi
for t in mkfs.ext4 mkfs.btrfs fincore readelf python3; do
    command -v "$t" >/dev/null || { fail "$t installed" "make deps installs it"; finish; }
done

# --- windows: writable segments, and a mapping inside one ---------------------
echo "# windows"
M=$WORK/ext4
if ! mount_image ext4 "$M"; then
    skip "windows" "an ext4 image could not be mounted: $WHY"
else
    printf 'char big_data[6 << 20] = { 1 };\nchar *keep(void) { return big_data; }\n' > "$WORK/data.c"
    if ! gcc -O2 -fPIE -pie -DTEXT_BYTES=$((5 << 20)) "$LIB_DIR/bigtext.c" "$WORK/data.c" \
        -o "$M/in"; then
        fail "the program with 6 MiB of data builds" "gcc"
    else
        # idx type offset vaddr paddr filesz memsz flags align
        rw=$(elf_phdrs "$M/in" | awk '$2 == "LOAD" && $8 == "RW" {
            print ($3 % 2097152 != $4 % 2097152), $6 }')
        assert "the program's RW PT_LOAD: 6 MiB or more, incongruent" eval \
            '[ "${rw% *}" = 1 ] && [ "${rw#* }" -ge $((6 << 20)) ] || { WHY="RW: [$rw]"; false; }'
        run_tool --warm "$M/in"
        assert "control: --warm of the program not rewritten: exit 1" tool_rc 1
        run_tool --no-warm -o "$M/prog" "$M/in"
        assert "-o: exit 0" tool_rc 0
        run_tool --warm "$M/prog"
        assert "--warm of the rewritten program: exit 0" tool_rc 0
        assert "--warm: its one window (text) huge, the data has none" equals "first line" \
            "$(printf '%s\n' "$T_OUT" | head -n 1 | cut -d';' -f1)" \
            "$M/prog: 1 of 1 window huge (1 already, 0 made huge)"

        # A mapping that starts 1 MiB into the window: cp leaves small folios.
        cp "$M/prog" "$M/busy"
        win=$("$TOOL" --warm -n "$M/busy" |
            sed -n 's/^  window at file offset \(0x[0-9a-f]*\): small folios: .*/\1/p')
        if [ -z "$win" ]; then
            fail "cp leaves the window in small folios (--warm -n)" \
                "$("$TOOL" --warm -n "$M/busy" 2>&1 | head -3)"
        elif hold_start "$WORK/busy.out" python3 -c 'import mmap, os, signal, sys
fd = os.open(sys.argv[1], os.O_RDONLY)
m = mmap.mmap(fd, 4096, mmap.MAP_SHARED, mmap.PROT_READ, offset=int(sys.argv[2], 0))
m[0]
if sys.argv[3:] == ["--hold"]:
    print("ready", flush=True)
    signal.pause()' "$M/busy" $((win + (1 << 20))); then
            c0=$(cached_bytes "$M/busy")
            run_tool --warm "$M/busy"
            c1=$(cached_bytes "$M/busy")
            assert "mapped 1 MiB into the window: --warm exit 1" tool_rc 1
            case $T_OUT in
                *"small folios mapped by pid $HOLD_PID "*) pass "mapped 1 MiB into the window: the pid named" ;;
                *) fail "mapped 1 MiB into the window: the pid named" "pid $HOLD_PID: $(tool_said)" ;;
            esac
            assert "mapped 1 MiB into the window: its cache left as it was" equals "cached bytes" "$c1" "$c0"
            hold_stop
            run_tool --warm "$M/busy"
            assert "control: once the process is gone, --warm makes the window huge" equals \
                "status:first line" "$T_RC:$(printf '%s\n' "$T_OUT" | head -n 1 | cut -d';' -f1)" \
                "0:$M/busy: 1 of 1 window huge (0 already, 1 made huge)"
        else
            fail "a process mapping 1 MiB into the window" "$WHY"
        fi
    fi
fi

# --- btrfs: an in-place rewrite that moves the segments ------------------------
echo "# btrfs, in place"
B=$WORK/btrfs
if ! fixture_line lld-pie; then
    skip "btrfs in place" "fixture lld-pie not built"
elif ! mount_image btrfs "$B"; then
    skip "btrfs in place" "a btrfs image could not be mounted: $WHY"
else
    FX=$BUILD/$FX_FILE
    cp "$FX" "$B/prog"
    count_eligible "$FX"
    assert "lld-pie needs its segments moved" eval \
        '[ "$ELIG_CHANGE" -gt 0 ] || { WHY="nothing to change"; false; }'
    run_tool --no-warm "$B/prog"
    assert "in place on btrfs: exit 0" tool_rc 0
    assert "in place on btrfs: congruent" check_congruence "$B/prog"
    assert "in place on btrfs: every segment's bytes kept" check_segment_bytes "$FX" "$B/prog"
    assert "in place on btrfs: runs as the original" run_same "$FX" "$B/prog"
fi

finish
