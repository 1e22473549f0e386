#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# SPDX-FileCopyrightText: 2026 the elfthp-align authors
# test_overlay.sh BUILDDIR - the page-cache step through overlayfs, the
# storage of Docker and Podman images.
#
# Overlayfs keeps no page cache of its own: a program started through the
# merged directory maps the real (lower or upper) file.  The figure checked
# is FilePmdMapped in /proc/PID/smaps of the rewritten lld-pie fixture
# (6 windows; it touches every one) started through the merged path
# (setarch -R), against the window count readelf gives.  An ext4 image is
# the lower layer and another the upper (as under /var/lib/docker), both
# loop-mounted here; the fixture is rewritten with -o first (REF).
#   - control: a cp of REF into the lower layer, run through the overlay,
#     maps 0 kB (cp makes small folios), and so does the next run after
#     nothing was done;
#   - lower, a cp not yet written back (a layer just unpacked): plain
#     elfthp-align and --warm on the merged path exit 0 and say every
#     window made huge; the run after maps windows x 2 MiB; nothing is
#     copied up (the upper layer stays empty) and the lower file's bytes
#     are unchanged;
#   - --report and --warm -n through the overlay see the huge windows
#     (cachestat on the overlay fd sees none: the old look said 0); -v
#     and -n say which way the page cache was reached, a plain --warm
#     does not; --host on the merged directory says its probe file is in
#     the upper layer;
#   - lower, a process maps the small folios through the overlay: --warm
#     exits 1 and names its pid (not "a process this user cannot
#     inspect"); stopped, --warm, started again: windows x 2 MiB;
#   - a copied-up file (chmod through the overlay copies it to the upper
#     layer, with small folios): --warm makes it huge, the run after maps
#     windows x 2 MiB; the lower file is left as it was;
#   - the rewrite through the overlay of the original lld-pie (the new
#     file lands in the upper layer) runs huge at once;
#   - --pid of a run through the overlay agrees with its smaps;
#   - not root (nobody): a root-owned file is no look (exit 2, mincore
#     answers only to the owner or a writer: it would say every page is
#     cached); nobody's own cp, not yet written back, is made huge.
# Needs root (loop and overlay mounts), x86_64 with 2 MiB PMDs, ext4 with
# large folios (Linux 6.16): a kernel that refuses a mount is a counted
# skip, as is a lower ext4 where even a file written with 16 MiB writes
# maps 0 kB (no large folios: nothing here could show a gain).
. "$(dirname "$0")/lib.sh"
need_builddir "$@"
need_tool

PMD_KB=2048
if [ "$(uname -m)" != x86_64 ]; then
    skip "overlayfs" "host is $(uname -m); the fixture run here is x86_64"
    finish
fi
if [ "$(id -u)" -ne 0 ]; then
    skip "overlayfs" "loop and overlay mounts need root"
    finish
fi
if [ "$(cat /sys/kernel/mm/transparent_hugepage/hpage_pmd_size 2>/dev/null)" != 2097152 ]; then
    skip "overlayfs" "the kernel has no 2 MiB transparent huge pages"
    finish
fi
for t in mkfs.ext4 setarch python3 readelf; do
    command -v "$t" >/dev/null || { fail "$t installed" "make deps installs it"; finish; }
done
fixture_line lld-pie || { skip "overlayfs" "fixture lld-pie not built"; finish; }
LLD=$BUILD/$FX_FILE
EXPECT_OUT=$("$LLD")

REF=$WORK/lld-rewritten
run_tool --no-warm -o "$REF" "$LLD"
assert "the rewrite of lld-pie (-o, --no-warm) exits 0" tool_rc 0 || finish
count_eligible "$REF"
NW=$ELIG_W
[ "$NW" -gt 1 ] || { fail "the rewritten lld-pie has 2 or more windows" "readelf counts $NW"; finish; }
HUGE_KB=$((NW * PMD_KB))

# ext4_image NAME: a 512 MiB ext4 image loop-mounted at $WORK/NAME.
# Returns 1 (WHY) if mkfs fails, 2 if the kernel refuses the mount.
ext4_image() {
    local dir=$WORK/$1 img=$WORK/$1.img err
    truncate -s 512M "$img" || return 1
    err=$(mkfs.ext4 -q -F "$img" 2>&1) || { WHY="mkfs.ext4: $err"; return 1; }
    mkdir -p "$dir"
    err=$(mount -o loop "$img" "$dir" 2>&1) || { WHY="mount: $err"; return 2; }
    MOUNTS="$dir $MOUNTS"
}

# overlay_mount: $M, the overlay of $LO (lower) and $UP/up (upper), fresh
# upper and work directories.  2 (WHY) if the kernel refuses it.
overlay_mount() {
    local err
    rm -rf "$UP/up" "$UP/work" && mkdir -p "$UP/up" "$UP/work" "$M" || return 1
    err=$(mount -t overlay overlay -o "lowerdir=$LO,upperdir=$UP/up,workdir=$UP/work" \
        "$M" 2>&1) || { WHY="mount -t overlay: $err"; return 2; }
    MOUNTS="$M $MOUNTS"
}

overlay_umount() { unmount "$M"; }

# run_kb DESC WANT FILE: FILE started (setarch -R) maps WANT kB of itself
# with PMDs, and prints what the original prints.
run_kb() {
    local desc=$1 want=$2 file=$3
    if ! run_pmd "$file" setarch x86_64 -R "$file"; then fail "$desc" "$WHY"; return; fi
    assert "$desc: FilePmdMapped = $want kB" kb_is "$desc" "$RUN_KB" "$want"
    assert "$desc: prints what the original prints" equals "output" "$RUN_OUT" "$EXPECT_OUT"
}

made_in_text() { sed -n 's/.*windows huge ([0-9]* already, \([0-9]*\) made huge).*/\1/p' <<< "$1"; }

# said TEXT: the last run's stdout holds TEXT.
said() {
    case $T_OUT in *"$1"*) return 0 ;; esac
    WHY="no '$1' in: $(tool_said)"; return 1
}

not_said() {
    case $T_OUT in *"$1"*) WHY="'$1' in: $(tool_said)"; return 1 ;; esac
    return 0
}

# upper_empty: nothing was copied up.
upper_empty() {
    [ -z "$(listing "$UP/up")" ] && return 0
    WHY="the upper layer holds: $(listing "$UP/up" | tr '\n' ' ')"; return 1
}

# ------------------------------------------------------------------------
LO=$WORK/lower UP=$WORK/upper M=$WORK/merged
ext4_image lower; rc=$?
[ "$rc" -eq 0 ] && { ext4_image upper; rc=$?; }
if [ "$rc" -eq 2 ]; then skip "overlayfs" "$WHY"; finish; fi
[ "$rc" -eq 0 ] || { fail "ext4 images" "$WHY"; finish; }

# Large folios on this ext4 at all?  A file written with 16 MiB writes is
# PMD-mapped at once where they are; where not, no case here can pass.
dd if="$REF" of="$LO/probe" bs=16M status=none && chmod 755 "$LO/probe"
if ! run_pmd "$LO/probe" setarch x86_64 -R "$LO/probe" || [ "$RUN_KB" = 0 ]; then
    skip "overlayfs" "ext4 here keeps no large folios (a 16 MiB-write copy maps ${RUN_KB:-?} kB)"
    finish
fi
rm -f "$LO/probe"

overlay_mount; rc=$?
if [ "$rc" -eq 2 ]; then skip "overlayfs" "$WHY"; finish; fi
[ "$rc" -eq 0 ] || { fail "overlay mount" "could not make its directories"; finish; }

echo "# control: a cp in the lower layer, never warmed"
cp "$REF" "$LO/cp" && chmod 755 "$LO/cp" && sync "$LO/cp"
run_kb "overlay, lower cp, never warmed" 0 "$M/cp"
run_kb "overlay, lower cp, never warmed, the next run" 0 "$M/cp"

echo "# lower layer, a cp not yet written back"
# Unmounted while the copy is made: a layer is unpacked before the
# container starts, and the overlay must not cache a lookup of it.
overlay_umount
cp "$REF" "$LO/prog" && chmod 755 "$LO/prog"
overlay_mount || { fail "overlay mount again" "$WHY"; finish; }
run_tool "$M/prog"
assert "overlay, dirty lower cp: elfthp-align exits 0" tool_rc 0
assert "overlay, dirty lower cp: $NW made huge" equals "made huge in [$T_OUT]" \
    "$(made_in_text "$T_OUT")" "$NW"
assert "overlay, dirty lower cp: no cause it did not see" not_said "cannot inspect"
assert "overlay: the tool copied nothing up" upper_empty
assert "overlay: the lower file's bytes are REF's" same_file "$LO/prog" "$REF"
run_kb "overlay, dirty lower cp: the run after" "$HUGE_KB" "$M/prog"

echo "# looks through the overlay"
run_tool --report "$M/prog"
assert "overlay: --report sees $NW of $NW windows huge" said "page cache: $NW of $NW windows huge now"
run_tool --warm "$M/prog"
assert "overlay: --warm without -v keeps the way to itself" not_said "page cache reached"
run_tool -v "$M/prog"
assert "overlay: the page-cache step of a plain run, -v, says the way" said "page cache reached through overlayfs"
run_tool --host "$M"
assert "overlay: --host says its probe is in the upper layer" said "the probe's file is in the upper layer"
run_tool --warm -n -v "$M/prog"
assert "overlay: --warm -n sees $NW of $NW windows huge" said "$NW of $NW windows huge"
assert "overlay: -v says how the page cache was reached" said "page cache reached through overlayfs"

echo "# lower layer, a process maps the small folios through the overlay"
drop_cache "$LO/prog"
cat "$LO/prog" > /dev/null          # small folios, written back
if hold_start "$WORK/held.out" setarch x86_64 -R "$M/prog"; then
    HELD_BY=$HOLD_PID
    run_tool --warm "$M/prog"
    assert "overlay, mapped: --warm exits 1" tool_rc 1
    assert "overlay, mapped: --warm names the pid" said "mapped by pid $HELD_BY"
    assert "overlay, mapped: no cause it did not see" not_said "cannot inspect"
    hold_stop
    run_tool --warm "$M/prog"
    assert "overlay, stopped: --warm exits 0" tool_rc 0
    run_kb "overlay, stopped, warmed: the run after" "$HUGE_KB" "$M/prog"
else
    fail "overlay, mapped: the fixture holds" "$WHY"
fi

echo "# --pid of a run through the overlay"
if hold_start "$WORK/pid.out" setarch x86_64 -R "$M/prog"; then
    KB=$(pmd_kb "$HOLD_PID" "$M/prog")
    run_tool --pid "$HOLD_PID"
    assert "overlay, --pid: its smaps maps $HUGE_KB kB" kb_is "smaps" "$KB" "$HUGE_KB"
    assert "overlay, --pid: $NW of $NW windows huge" said "$NW of $NW windows huge"
    hold_stop
else
    fail "overlay, --pid: the fixture holds" "$WHY"
fi

echo "# a copied-up file: the upper layer"
chmod 750 "$M/prog" && chmod 755 "$M/prog"     # copies it up
if [ -f "$UP/up/prog" ]; then
    pass "overlay: chmod copied prog up"
    run_kb "overlay, copied up, never warmed" 0 "$M/prog"
    run_tool --warm -v "$M/prog"
    assert "overlay, copied up: --warm exits 0" tool_rc 0
    assert "overlay, copied up: $NW made huge" equals "made huge in [$T_OUT]" \
        "$(made_in_text "$T_OUT")" "$NW"
    run_kb "overlay, copied up, warmed: the run after" "$HUGE_KB" "$M/prog"
    assert "overlay, copied up: the upper file's bytes are REF's" same_file "$UP/up/prog" "$REF"
else
    fail "overlay: chmod copied prog up" "no $UP/up/prog"
fi

echo "# not root: mincore through the overlay answers only to the owner or a writer"
# Others are told every page is cached: a count from it would blame an
# unseen process for every window.  As nobody, a root-owned file is no
# look (exit 2, saying why); nobody's own cp, not yet written back, is
# made huge.
NOBODY=$(id -u nobody 2>/dev/null)
as_nobody() { setpriv --reuid="$NOBODY" --regid="$NOBODY" --clear-groups "$@"; }
chmod o+x "$WORK"
if need "overlay, not root" "no user nobody, or no setpriv"         test -n "$NOBODY" -a -x "$(command -v setpriv)" &&
   need "overlay, not root" "nobody cannot run $TOOL" as_nobody "$TOOL" --version > /dev/null; then
    drop_cache "$LO/prog"
    cat "$LO/prog" > /dev/null
    T_OUT=$(as_nobody "$TOOL" --warm "$M/prog" 2>&1); T_RC=$? T_ERR=""
    assert "overlay, nobody, root's file: --warm exits 2" tool_rc 2
    assert "overlay, nobody, root's file: says mincore cannot see" said "answers only to the file's owner"
    assert "overlay, nobody, root's file: no cause it did not see" not_said "cannot inspect"
    overlay_umount
    cp "$REF" "$LO/mine" && chown "$NOBODY:$NOBODY" "$LO/mine" && chmod 755 "$LO/mine"
    overlay_mount || { fail "overlay mount again" "$WHY"; finish; }
    T_OUT=$(as_nobody "$TOOL" --warm -v "$M/mine" 2>&1); T_RC=$? T_ERR=""
    assert "overlay, nobody's own dirty cp: --warm exits 0" tool_rc 0
    assert "overlay, nobody's own dirty cp: $NW made huge" equals "made huge in [$T_OUT]" \
        "$(made_in_text "$T_OUT")" "$NW"
    assert "overlay, nobody: -v says map_files was refused" said "map_files refused"
    run_kb "overlay, nobody's own dirty cp: the run after" "$HUGE_KB" "$M/mine"
fi

echo "# the rewrite through the overlay: the new file is in the upper layer"
cp "$LLD" "$LO/orig" && chmod 755 "$LO/orig" && sync "$LO/orig"
overlay_umount && overlay_mount || { fail "overlay mount again" "$WHY"; finish; }
run_kb "overlay, the original lld-pie (negative control)" 0 "$M/orig"
run_tool "$M/orig"
assert "overlay, rewrite: exits 0" tool_rc 0
assert "overlay, rewrite: the new file is in the upper layer" test -f "$UP/up/orig"
assert "overlay, rewrite: the lower file is the original" same_file "$LO/orig" "$LLD"
run_kb "overlay, rewritten: the run after" "$HUGE_KB" "$M/orig"

finish
