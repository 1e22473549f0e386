#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# SPDX-FileCopyrightText: 2026 the elfthp-align authors
# test_chroot.sh BUILDDIR - the tool run inside a chroot whose root is no
# mount point of its own (a directory of an ext4 image: the image's mount
# lies outside the chroot, so /proc/self/mountinfo inside lists /proc
# only).  This is how a root filesystem is converged before it is booted
# (mmdebstrap hooks, image builders).  The file system must still be
# found (by the file's mount ID, else statfs), never an error:
#   - a rewrite of gnu-pie inside the chroot exits 0, with no
#     mountinfo error, and the page-cache step makes its windows huge
#     (--warm -n inside says none left to do; outside, the program maps
#     W x 2 MiB with PMDs, counted in /proc/PID/smaps);
#   - --check inside exits 0; --host's line names the mount as outside
#     the process's root; the segments' bytes are unchanged;
#   - the negative control: cp of the original into the chroot is not
#     ready (--check exits 1) and maps 0 kB.
# Needs root (a loop mount, chroot, unshare -m), x86_64 with 2 MiB PMDs.
. "$(dirname "$0")/lib.sh"
need_builddir "$@"
need_tool

if [ "$(uname -m)" != x86_64 ] || [ "$(id -u)" -ne 0 ] ||
   [ "$(cat /sys/kernel/mm/transparent_hugepage/hpage_pmd_size 2>/dev/null)" != 2097152 ]; then
    skip "chroot" "needs root on x86_64 with 2 MiB PMDs"
    finish
fi
for t in mkfs.ext4 unshare chroot ldd readelf; do
    command -v "$t" >/dev/null || { fail "$t installed" "make deps installs it"; finish; }
done
fixture_line gnu-pie || { skip "chroot" "fixture gnu-pie not built"; finish; }
FX=$BUILD/$FX_FILE

count_eligible "$FX"; W=$ELIG_W
[ "$W" -ge 1 ] || { fail "the fixture has windows" "gnu-pie has $W"; finish; }

MNT=$WORK/mnt
if ! mount_image ext4 "$MNT"; then
    skip "chroot" "an ext4 image could not be mounted: $WHY"
    finish
fi
R=$MNT/root
mkdir -p "$R/proc" "$R/t"
# The tool and the libraries it links, at the same paths.
cp "$TOOL" "$R/elfthp-align"
for l in $(ldd "$TOOL" | grep -o '/[^ ]*'); do
    mkdir -p "$R$(dirname "$l")" && cp -L "$l" "$R$l"
done
cp "$FX" "$R/t/prog"
cp "$FX" "$R/t/control"
cp "$FX" "$WORK/orig"
drop_cache "$R/t/prog"

# in_chroot ARGS...: the tool inside; CH_RC, CH_OUT (stdout and stderr).
in_chroot() {
    CH_OUT=$(unshare -m sh -c 'mount -t proc proc "$1/proc" && exec chroot "$@"' \
        sh "$R" /elfthp-align "$@" 2>&1 < /dev/null)
    CH_RC=$?
}

lacks() {  # lacks OUT TEXT
    case $1 in *"$2"*) WHY="output [$1] has [$2]"; return 1 ;; esac
    return 0
}
says() {
    case $1 in *"$2"*) return 0 ;; esac
    WHY="output [$1] lacks [$2]"; return 1
}

in_chroot /t/prog
assert "in a chroot: the rewrite exits 0" rc_is "$CH_RC" 0
assert "in a chroot: no mountinfo error" lacks "$CH_OUT" "mountinfo"
assert "in a chroot: the segments' bytes are unchanged" check_segment_bytes "$WORK/orig" "$R/t/prog"
assert "in a chroot: the congruence holds" check_congruence "$R/t/prog"
in_chroot --check /t/prog
assert "in a chroot: --check of the rewritten file exits 0" rc_is "$CH_RC" 0
in_chroot --warm -n /t/prog
assert "in a chroot: --warm -n exits 0 (nothing left to do)" rc_is "$CH_RC" 0
assert "in a chroot: --warm -n finds all $W windows huge" says "$CH_OUT" "$W of $W windows huge"
in_chroot --host /t
assert "in a chroot: --host exits 0" rc_is "$CH_RC" 0
assert "in a chroot: --host says the mount is outside the root" says "$CH_OUT" "outside this process's root"

if run_pmd "$R/t/prog" "$R/t/prog"; then
    assert "the program rewritten in the chroot maps $((W * 2048)) kB with PMDs" \
        kb_is prog "$RUN_KB" $((W * 2048))
else
    fail "the rewritten program runs" "$WHY"
fi

# The control: a plain copy is neither ready nor huge.
in_chroot --check /t/control
assert "control: cp in the chroot, --check exits 1" rc_is "$CH_RC" 1
if run_pmd "$R/t/control" "$R/t/control"; then
    assert "control: the copy maps 0 kB with PMDs" kb_is control "$RUN_KB" 0
else
    fail "the control runs" "$WHY"
fi
finish
