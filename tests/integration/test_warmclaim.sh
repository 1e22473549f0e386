#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# SPDX-FileCopyrightText: 2026 the elfthp-align authors
# test_warmclaim.sh BUILDDIR - --warm says "made huge" only for windows it
# saw mapped with a PMD, and a process that cannot see says so.  The
# independent check is FilePmdMapped in /proc/PID/smaps of the rewritten
# lld-pie run (setarch -R) right after --warm, against the window count
# readelf gives:
#   - the control, ext4: cold (cache dropped, as a cp or a reboot leaves
#     it) the run maps 0 kB; --warm exits 0, its text says "W made huge"
#     and its JSON made_huge W; the run after it maps W x 2 MiB; the same
#     for a cp whose dirty small folios --warm must write back to drop;
#   - ext4 made with -O verity, where the kernel makes no large folios (a
#     copy written with 16 MiB writes maps 0 kB; a counted skip where it
#     does not) but the tool expects them, so it reads and measures: exit
#     1, 0 made huge in the text and the JSON, the run after maps 0 kB;
#   - ext4 mounted data=journal and btrfs, which keep no large folios:
#     exit 1, 0 made huge, the reason names the file system, nothing read,
#     the run after maps 0 kB;
#   - a prctl that fails (ENOSYS injected by strace, as a system-call
#     filter would) is no verdict: --warm warms as before;
#   - huge pages disabled for the tool by its parent (PR_SET_THP_DISABLE,
#     the thp_off.c launcher): none of its mappings can show a PMD, so
#     --warm, -n --warm, the rewrite's page-cache step and --host exit 2
#     with "huge pages are disabled for this process" and no count;
#     --warm reads no window (a cold file stays uncached), leaves windows
#     that are huge as they are (a run after it maps W x 2 MiB), and a
#     process started the same way maps 0 kB of them.
#   - --warm -n on a cold copy: not-huge, exit 1 (it would make them
#     huge; none is yet); the bytes it announces bound what the --warm
#     after it reads (/proc/PID/io read_bytes); a file with no window is
#     counted apart;
# Needs root (loop mounts), x86_64 with 2 MiB PMDs, cc.
. "$(dirname "$0")/lib.sh"
need_builddir "$@"
need_tool

PMD_KB=2048
if [ "$(uname -m)" != x86_64 ]; then
    skip "--warm's claims" "host is $(uname -m); the fixture run here is x86_64"
    finish
fi
if [ "$(id -u)" -ne 0 ]; then
    skip "--warm's claims" "loop mounts need root"
    finish
fi
if [ "$(cat /sys/kernel/mm/transparent_hugepage/hpage_pmd_size 2>/dev/null)" != 2097152 ]; then
    skip "--warm's claims" "the kernel has no 2 MiB transparent huge pages"
    finish
fi
for t in cc mkfs.ext4 mkfs.btrfs fincore setarch python3; do
    command -v "$t" >/dev/null || { fail "$t installed" "make deps installs it"; finish; }
done
fixture_line lld-pie || { skip "--warm's claims" "fixture lld-pie not built"; finish; }
LLD=$BUILD/$FX_FILE

THP_OFF=$WORK/thp_off
if ! cc -O2 -o "$THP_OFF" "$LIB_DIR/thp_off.c"; then
    fail "thp_off.c builds" "cc failed"
    finish
fi

REF=$WORK/lld-rewritten
run_tool --no-warm -o "$REF" "$LLD"
assert "the rewrite of lld-pie (-o, --no-warm) exits 0" tool_rc 0 || finish
count_eligible "$REF"
NW=$ELIG_W
[ "$NW" -gt 0 ] || { fail "the rewritten lld-pie has windows" "readelf counts none"; finish; }
EXPECT_OUT=$("$LLD")

# json_field JSON KEY: one top-level value ("" if absent).
json_field() {
    python3 -c 'import json, sys
o = json.loads(sys.argv[1])
print(o.get(sys.argv[2], ""))' "$1" "$2" 2>/dev/null
}

# made_in_text TEXT: the N of "(A already, N made huge)".
made_in_text() { sed -n 's/.*windows huge ([0-9]* already, \([0-9]*\) made huge).*/\1/p' <<< "$1"; }

# run_kb DESC WANT FILE [LAUNCHER]: FILE run (setarch -R, after LAUNCHER)
# maps WANT kB of it with PMDs, and prints what the original prints.
run_kb() {
    local desc=$1 want=$2 file=$3; shift 3
    if ! run_pmd "$file" "$@" setarch x86_64 -R "$file"; then fail "$desc" "$WHY"; return; fi
    assert "$desc: FilePmdMapped = $want kB" kb_is "$desc" "$RUN_KB" "$want"
    assert "$desc: prints what the original prints" equals "output" "$RUN_OUT" "$EXPECT_OUT"
}

# claims DESC FILE RC MADE: cold, --warm exits RC and says MADE made huge,
# in its text and its JSON (each run on a cold cache); a run after it
# maps MADE x 2 MiB.
claims() {
    local desc=$1 f=$2 rc=$3 made=$4
    drop_cache "$f"
    run_tool --warm "$f"
    assert "$desc: --warm exits $rc" tool_rc "$rc"
    assert "$desc: --warm's text: $made made huge" equals "made huge in [$T_OUT]" \
        "$(made_in_text "$T_OUT")" "$made"
    drop_cache "$f"
    run_tool --warm --format json "$f"
    W_JSON=$T_OUT
    assert "$desc: --warm --format json exits $rc" tool_rc "$rc"
    assert "$desc: --warm's JSON: made_huge $made" equals "made_huge in $W_JSON" \
        "$(json_field "$W_JSON" made_huge)" "$made"
    assert "$desc: --warm's JSON: windows $NW" equals "windows in $W_JSON" \
        "$(json_field "$W_JSON" windows)" "$NW"
    run_kb "$desc: the run after --warm" $((made * PMD_KB)) "$f"
}

# reason_says TEXT: the last JSON's reasons mention TEXT.
reason_says() {
    case $W_JSON in *"$1"*) return 0 ;; esac
    WHY="no '$1' in $W_JSON"; return 1
}

# image FS DIR MKFS_OPTS MOUNT_OPTS: like mount_image, with options.
image() {
    local fs=$1 dir=$2 img=$WORK/$(basename "$2").img err
    truncate -s 512M "$img" || return 1
    err=$("mkfs.$fs" -q -F $3 "$img" 2>&1) || { WHY="mkfs.$fs $3: $err"; return 2; }
    mkdir -p "$dir"
    err=$(mount -o "loop${4:+,$4}" "$img" "$dir" 2>&1) || { WHY="mount: $err"; return 2; }
    MOUNTS="$dir $MOUNTS"
}

# ------------------------------------------------------------------------
echo "# control: ext4"
E=$WORK/ext4
if mount_image ext4 "$E"; then
    cp "$REF" "$E/lld" && chmod 755 "$E/lld"
    drop_cache "$E/lld"
    run_kb "ext4: cold, before --warm" 0 "$E/lld"
    claims "ext4" "$E/lld" 0 "$NW"
    # Fresh from a cp: small folios, dirty.  They must reach the disk
    # before they can be dropped and read again as huge folios.
    cp "$REF" "$E/dirty" && chmod 755 "$E/dirty"
    run_tool --warm --format json "$E/dirty"
    assert "ext4, a cp not yet written back: --warm exits 0" tool_rc 0
    assert "ext4, a cp not yet written back: made_huge $NW" equals "made_huge in $T_OUT" \
        "$(json_field "$T_OUT" made_huge)" "$NW"
    run_kb "ext4, a cp not yet written back: the run after --warm" $((NW * PMD_KB)) "$E/dirty"
    # A prctl that fails (a system-call filter) says nothing: warm as before.
    if command -v strace >/dev/null; then
        drop_cache "$E/lld"
        T_OUT=$(ASAN_OPTIONS=detect_leaks=0 strace -f -qq -o /dev/null -e trace=prctl \
            -e inject=prctl:error=ENOSYS "$TOOL" --warm "$E/lld" 2>&1); T_RC=$? T_ERR=""
        assert "ext4, prctl failing (ENOSYS): --warm exits 0" tool_rc 0
        assert "ext4, prctl failing: $NW made huge" equals "made huge in [$T_OUT]" \
            "$(made_in_text "$T_OUT")" "$NW"
    else
        skip "ext4, prctl failing" "strace not installed"
    fi
else
    fail "ext4 image" "$WHY"
fi

# ------------------------------------------------------------------------
echo "# one window small, every page cached, PMD folios outside the windows"
# MADV_HUGEPAGE readahead of the whole file puts PMD folios in every
# aligned 2 MiB of it (between segments, and past the last window in the
# 6 MiB appended); then one window is dropped and read back with pread:
# small folios.  A sum of FilePmdMapped over the whole file's mapping
# counts the others for it; the verdict must be per window.
# second_window FILE: the file offset of the second window (readelf).
second_window() {
    elf_phdrs "$1" | awk -v pmd=2097152 '$2 == "LOAD" && $8 !~ /W/ {
        off = $3 + 0; end = off + $6
        for (w = int((off + pmd - 1) / pmd) * pmd; w + pmd <= end; w += pmd)
            if (++n == 2) { print w; exit } }'
}
if mountpoint -q "$E"; then
    cp "$REF" "$E/pad" && head -c 6M /dev/zero | tr '\0' x >> "$E/pad" && chmod 755 "$E/pad"
    W1=$(second_window "$E/pad")
    drop_cache "$E/pad"
    python3 -c 'import mmap, os, sys
fd = os.open(sys.argv[1], os.O_RDONLY)
size = os.fstat(fd).st_size
m = mmap.mmap(fd, size, prot=mmap.PROT_READ)
m.madvise(mmap.MADV_HUGEPAGE)
for off in range(0, size, 4096):
    m[off]
m.close()
w = int(sys.argv[2])
os.posix_fadvise(fd, w, 2097152, os.POSIX_FADV_DONTNEED)
# A descriptor of its own: the mapping left its readahead state at PMD order.
rd = os.open(sys.argv[1], os.O_RDONLY)
for off in range(w, w + 2097152, 4096):
    os.pread(rd, 4096, off)' "$E/pad" "$W1"
    assert "one small window: every page of the file is cached" equals "cached bytes" \
        "$(cached_bytes "$E/pad")" $((($(stat -c %s "$E/pad") + 4095) / 4096 * 4096))
    run_kb "one small window: the program maps one window less" $(((NW - 1) * PMD_KB)) "$E/pad"
    run_tool --warm -n --format json "$E/pad"
    assert "one small window: --warm -n counts $((NW - 1)) huge already" equals \
        "huge_before in $T_OUT" "$(json_field "$T_OUT" huge_before)" $((NW - 1))
    run_tool --warm "$E/pad"
    assert "one small window: --warm says 1 made huge" equals "made huge in [$T_OUT]" \
        "$(made_in_text "$T_OUT")" 1
    run_kb "one small window: the run after --warm" $((NW * PMD_KB)) "$E/pad"
else
    skip "one small window" "the ext4 image is not mounted"
fi

# ------------------------------------------------------------------------
echo "# --warm -n: its verdict, and the bytes it announces against what --warm reads"
# A cold aligned copy: -n finds 0 of NW windows huge, so the file is not
# huge (exit 1, "not-huge"), however many it would make huge (it was
# "ready", exit 0, counted "all huge").  It announces read_bytes; the
# --warm run after it reads (the block I/O of /proc/PID/io, read_bytes,
# summed into its parent's when reaped) no more than that.  Before,
# MADV_HUGEPAGE readahead read the PMD after each window too: 2 MiB more.
# io_read CMD...: bytes CMD and its children read from storage.
io_read() {
    bash -c 'r() { awk "/^read_bytes:/ { print \$2 }" /proc/$$/io; }
        b=$(r); "$@" > /dev/null 2>&1; a=$(r); echo $((a - b))' io_read "$@"
}
if mountpoint -q "$E"; then
    cp "$REF" "$E/ann" && chmod 755 "$E/ann"
    drop_cache "$E/ann"
    run_tool --warm -n --format json "$E/ann"
    ANN=$(json_field "$T_OUT" read_bytes)
    assert "cold: --warm -n exits 1 (no window is huge yet)" tool_rc 1
    assert "cold: --warm -n: status not-huge, 0 huge, $NW it would make huge" equals \
        "status,huge_before,made_huge" "$(json_field "$T_OUT" status),$(json_field "$T_OUT" huge_before),$(json_field "$T_OUT" made_huge)" \
        "not-huge,0,$NW"
    cp /bin/true "$E/nowin1" && cp /bin/true "$E/nowin2"
    run_tool --warm -n "$E/ann" "$E/nowin1"
    assert "cold and no-window: --warm -n's summary: 0 all huge, 1 not, 1 with nothing to warm" \
        equals "summary" "$(tail -n 1 <<< "$T_OUT")" \
        "looked at 2 files: 0 all huge, 1 not all huge, 0 need rewriting, 1 with nothing to warm, 0 not applicable, 0 errors"
    READ=$(io_read "$TOOL" --warm "$E/ann")
    echo "# --warm -n announced $ANN bytes; --warm read $READ"
    assert "--warm reads no more than --warm -n announced ($ANN bytes)" equals \
        "bytes read within the announcement (read $READ)" "$(( READ > 0 && READ <= ANN ))" 1
    assert "... and the announcement is the windows' bytes, NW x 2 MiB" equals "announced" \
        "$ANN" $((NW * PMD_KB * 1024))
    run_tool --warm -n --format json "$E/ann"
    assert "control: after --warm, -n: ready, exit 0, nothing to read" equals "rc,status,read_bytes" \
        "$T_RC,$(json_field "$T_OUT" status),$(json_field "$T_OUT" read_bytes)" "0,ready,0"
    run_kb "after the measured --warm" $((NW * PMD_KB)) "$E/ann"
    run_tool --warm -n "$E/nowin1" "$E/nowin2"
    assert "two files with no window: --warm -n counts them apart, never all huge, exit 0" \
        equals "rc,summary" "$T_RC,$(tail -n 1 <<< "$T_OUT")" \
        "0,looked at 2 files: 0 all huge, 0 not all huge, 0 need rewriting, 2 with nothing to warm, 0 not applicable, 0 errors"
else
    skip "--warm -n's announcement" "the ext4 image is not mounted"
fi

# ------------------------------------------------------------------------
echo "# ext4 -O verity: the tool expects huge folios, the kernel makes none"
V=$WORK/ext4-verity
image ext4 "$V" "-O verity" ""; rc=$?
# The precondition, measured without the tool: a copy written with 16 MiB
# writes (huge folios on plain ext4) maps no PMD here.
if [ $rc -eq 0 ]; then
    dd if="$REF" of="$V/dd" bs=16M status=none && chmod 755 "$V/dd"
    run_pmd "$V/dd" setarch x86_64 -R "$V/dd" || RUN_KB="? ($WHY)"
fi
if [ $rc -eq 0 ] && [ "$RUN_KB" != 0 ]; then
    skip "ext4 -O verity" "this kernel makes huge folios there (a dd copy maps $RUN_KB kB)"
elif [ $rc -eq 0 ]; then
    cp "$REF" "$V/lld" && chmod 755 "$V/lld"
    claims "ext4 -O verity" "$V/lld" 1 0
    assert "ext4 -O verity: --warm read the file (it measured)" \
        eval '[ "$(json_field "$W_JSON" read_bytes)" -gt 0 ]'
    assert "ext4 -O verity: --warm's JSON: not_huge $NW" equals "not_huge" \
        "$(json_field "$W_JSON" not_huge)" "$NW"
else
    skip "ext4 -O verity" "$WHY"
fi

# ------------------------------------------------------------------------
echo "# file systems that keep no large folios"
J=$WORK/ext4-journal
if image ext4 "$J" "" data=journal; then
    cp "$REF" "$J/lld" && chmod 755 "$J/lld"
    claims "ext4 data=journal" "$J/lld" 1 0
    assert "ext4 data=journal: the reason names data=journal" reason_says "data=journal"
    assert "ext4 data=journal: nothing read" equals "read_bytes" "$(json_field "$W_JSON" read_bytes)" 0
else
    skip "ext4 data=journal" "$WHY"
fi
B=$WORK/btrfs
mount_image btrfs "$B"; rc=$?
if [ $rc -eq 0 ]; then
    cp "$REF" "$B/lld" && chmod 755 "$B/lld"
    claims "btrfs" "$B/lld" 1 0
    assert "btrfs: the reason names btrfs" reason_says "(btrfs)"
elif [ $rc -eq 2 ]; then
    skip "btrfs" "the kernel refuses to mount it: $WHY"
else
    fail "btrfs image" "$WHY"
fi

# ------------------------------------------------------------------------
echo "# huge pages disabled for the tool by its parent (PR_SET_THP_DISABLE)"
# run_off ARGS...: run_tool under thp_off.
run_off() {
    timeout 120 "$THP_OFF" "$TOOL" "$@" > "$WORK/.off.out" 2> "$WORK/.off.err" < /dev/null
    T_RC=$?
    T_OUT=$(cat "$WORK/.off.out") T_ERR=$(cat "$WORK/.off.err")
}
DISABLED="huge pages are disabled for this process (prctl PR_SET_THP_DISABLE, from its parent)"
# cannot_look DESC: the last run is an error that says why, with no count.
cannot_look() {
    assert "$1: exits 2" tool_rc 2
    case $T_ERR in
        *"$DISABLED"*) pass "$1: says huge pages are disabled for it" ;;
        *) fail "$1: says huge pages are disabled for it" "$(tool_said)" ;;
    esac
    case $T_OUT in
        *"made huge"*|*'"made_huge"'*|*"windows huge"*) fail "$1: no count of huge windows" "$(tool_said)" ;;
        *) pass "$1: no count of huge windows" ;;
    esac
}
if ! mountpoint -q "$E"; then
    skip "PR_SET_THP_DISABLE" "no ext4 image"
elif ! "$THP_OFF" true; then
    skip "PR_SET_THP_DISABLE" "the kernel refuses prctl(PR_SET_THP_DISABLE)"
else
    cp "$REF" "$E/cold" && chmod 755 "$E/cold"
    drop_cache "$E/cold"
    run_off --warm "$E/cold"
    cannot_look "THP disabled: --warm of a cold file"
    # The ELF headers are read (a few pages), no window.
    assert "THP disabled: --warm read no window (under 2 MiB cached)" \
        eval '[ "$(cached_bytes "$E/cold")" -lt $((PMD_KB * 1024)) ]'
    run_off --warm --format json "$E/cold"
    cannot_look "THP disabled: --warm --format json"
    assert "THP disabled: the JSON line is an error" equals "status" "$(json_field "$T_OUT" status)" error
    run_off --warm -n "$E/cold"
    cannot_look "THP disabled: --warm -n"
    run_kb "THP disabled: the run after (cold, nothing warmed)" 0 "$E/cold"
    # Windows that are huge stay so: the tool does not drop what it cannot see.
    run_tool --warm "$E/lld"
    assert "THP disabled: --warm without it exits 0" tool_rc 0
    run_off --warm "$E/lld"
    cannot_look "THP disabled: --warm of a warmed file"
    run_kb "THP disabled: a process started the same way maps none of them" 0 "$E/lld" "$THP_OFF"
    run_kb "THP disabled: the run after, without it, maps every window" $((NW * PMD_KB)) "$E/lld"
    # The rewrite itself is done; its page-cache step cannot look.
    run_off -o "$E/out" "$LLD"
    cannot_look "THP disabled: the rewrite"
    case $T_ERR in
        *"the new file is in place, but the page-cache step: could not look"*)
            pass "THP disabled: the rewrite says the new file is in place" ;;
        *) fail "THP disabled: the rewrite says the new file is in place" "$(tool_said)" ;;
    esac
    assert "THP disabled: the rewrite's output is the rewrite" same_file "$REF" "$E/out"
    run_off --host "$E"
    assert "THP disabled: --host exits 2" tool_rc 2
    case $T_ERR$T_OUT in
        *"not probed"*"$DISABLED"*) pass "THP disabled: --host does not probe, and says why" ;;
        *) fail "THP disabled: --host does not probe, and says why" "$(tool_said)" ;;
    esac
    case $T_OUT in
        *"PMD-mapped"*) fail "THP disabled: --host shows no probe figure" "$(tool_said)" ;;
        *) pass "THP disabled: --host shows no probe figure" ;;
    esac
fi

finish
