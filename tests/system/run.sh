#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# SPDX-FileCopyrightText: 2026 the elfthp-align authors
# run.sh - make check-system: the whole-host use (the unit's own command
# over a whole /usr) on a real Debian system, not on fixtures.
#
#   1. base: mmdebstrap --variant=minbase bookworm with the packages of
#      tests/system/packages.txt (kernel, systemd, udev, gcc, python3, perl,
#      git, mesa's DRI drivers, qemu firmware, a Go program), from the
#      mirrors this host's apt reads (/etc/apt/sources.list*), cached in
#      build/system/base (rebuilt when packages.txt changes).
#   2. two copies of it, each with `make install DESTDIR=` of this tree and
#      /usr listed in /etc/elfthp-align/paths:
#        tool:    the unit's ExecStart (read from the installed unit), run
#                 in a chroot on the copy's /usr, twice: the first converge
#                 and a second run, each timed and its writes counted; the
#                 unit and timer are enabled.
#        control: the same, never run, the unit and timer left disabled.
#   3. each copy becomes an XFS disk image (why XFS: Debian 12's kernel,
#      6.1, makes no large page-cache folios on ext4, so an ext4 root shows
#      0 kB of huge text whatever the files' layout; see the README's
#      check-vm table) and boots in qemu (TCG) with its own kernel and
#      initramfs to multi-user.target.  elfthp-system-check.service
#      (tests/system/guest.sh) runs the checks and prints SYS lines on the
#      serial console, then powers off.
#   4. tests/system/check.py decides from the host-side records and the two
#      consoles, writes build/system/results.txt, and exits non-zero on any
#      failed check.
#
# Every wait is bounded: mmdebstrap 3600 s, each run of the tool on the
# host 1800 s; SYSTEM_TIMEOUT (default 2400) bounds each boot, in seconds; SYSTEM_TOOL
# installs another program as the tool (SYSTEM_TOOL=/bin/true: the checks
# must fail).  Stages:
# run.sh [base|host|boot|check|all] (default all).  Needs root (chroot,
# loop mount of the XFS image); never touches the host's /usr.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
SYS=${SYSTEM_DIR:-$ROOT/build/system}
TIMEOUT=${SYSTEM_TIMEOUT:-2400}
STAGE=${1:-all}

die() { echo "check-system: $*" >&2; echo "check-system: FAILED ($*)"; exit 1; }
log() { echo "# $(date +%T) $*"; }
mkdir -p "$SYS" || die "cannot create $SYS"
SYS=$(cd "$SYS" && pwd)
[ "$(id -u)" -eq 0 ] || die "needs root (chroot, loop mount)"
for t in mmdebstrap qemu-system-x86_64 mkfs.xfs chroot python3 /usr/bin/time; do
    command -v "$t" > /dev/null || die "$t not installed (make deps installs it)"
done

# --- 1. the Debian root ----------------------------------------------------

# The sources apt reads here, as files mmdebstrap pastes into the root.
sources() {
    local f
    for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list \
             /etc/apt/sources.list.d/*.sources; do
        [ -s "$f" ] && grep -q 'debian' "$f" && echo "$f"
    done
}

build_base() {
    local key pkgs srcs
    pkgs=$(grep -v '^#' "$HERE/packages.txt" | tr -s ' \n' ' ' | sed 's/^ //; s/ $//')
    mapfile -t srcs < <(sources)
    [ ${#srcs[@]} -gt 0 ] || die "no Debian source in /etc/apt/sources.list*"
    key=$( (echo "$pkgs"; cat "${srcs[@]}") | sha256sum | cut -d' ' -f1)
    if [ "$(cat "$SYS/base/.key" 2>/dev/null)" = "$key" ]; then
        log "base root cached in $SYS/base"; return 0
    fi
    log "mmdebstrap bookworm minbase + $pkgs (sources: ${srcs[*]})"
    rm -rf "$SYS/base.new" "$SYS/base"
    # The lists stay, so that `apt-get -s install` works in the guest.
    timeout 3600 mmdebstrap --mode=root --variant=minbase --skip=cleanup/apt/lists \
        --include="${pkgs// /,}" bookworm "$SYS/base.new" "${srcs[@]}" \
        > "$SYS/mmdebstrap.log" 2>&1 ||
        { tail -20 "$SYS/mmdebstrap.log"; die "mmdebstrap failed (log: $SYS/mmdebstrap.log)"; }
    ls "$SYS"/base.new/boot/vmlinuz-* "$SYS"/base.new/boot/initrd.img-* > /dev/null ||
        die "the root has no kernel or initramfs"
    echo "$key" > "$SYS/base.new/.key"
    mv "$SYS/base.new" "$SYS/base"
    log "base root: $(du -sh --apparent-size "$SYS/base" | cut -f1)"
}

# --- 2. the two roots, and the converge on the tool's ----------------------

# prepare_root NAME: a copy of base with this tree installed, /usr in the
# path list, the check service enabled.
prepare_root() {
    local r=$SYS/$1
    log "root $1: a copy of base, make install DESTDIR=$r"
    rm -rf "$r" && cp -a "$SYS/base" "$r" || die "cannot copy the base root"
    make -s -C "$ROOT" install DESTDIR="$r" PREFIX=/usr SYSCONFDIR=/etc \
        UNITDIR=/lib/systemd/system > "$SYS/$1-install.log" 2>&1 ||
        die "make install DESTDIR=$r failed (log: $SYS/$1-install.log)"
    echo /usr >> "$r/etc/elfthp-align/paths"
    # SYSTEM_TOOL: another program in the tool's place (/bin/true: the
    # checks must fail, the evidence that they can).
    if [ -n "${SYSTEM_TOOL:-}" ]; then cp "$SYSTEM_TOOL" "$r/usr/bin/elfthp-align" || die "SYSTEM_TOOL"; fi
    mkdir -p "$r/var/lib/elfthp-system"
    cp "$HERE/guest.sh" "$HERE/measure.py" "$r/var/lib/elfthp-system/"
    echo "$1" > "$r/var/lib/elfthp-system/role"
    cp "$HERE/elfthp-system-check.service" "$r/etc/systemd/system/"
    echo "/dev/vda / xfs defaults 0 1" > "$r/etc/fstab"
    echo "elfthp-$1" > "$r/etc/hostname"
    rm -f "$r/etc/machine-id" && chroot "$r" systemd-machine-id-setup > /dev/null 2>&1 ||
        die "systemd-machine-id-setup in $r failed"
    chroot "$r" systemctl enable elfthp-system-check.service > /dev/null 2>&1 ||
        die "cannot enable the check service in $r"
}

# run_cmd NAME CMD...: CMD in the tool's root (chroot), measured
# (measure.py: time, bytes read and written) into $SYS/host/NAME.json, its
# output in NAME.err; the files it changed (their ctime moved) in
# NAME.changed, with their inodes and sizes (a hard-linked file is
# listed once a name).
run_cmd() {
    local name=$1 r=$SYS/tool; shift
    touch "$SYS/host/stamp"; sleep 1
    python3 "$HERE/measure.py" timeout 1800 chroot "$r" "$@" \
        > "$SYS/host/$name.json" 2> "$SYS/host/$name.err"
    (cd "$r" && find usr -xdev -cnewer "$SYS/host/stamp" -type f -printf '%i %s %p\n') \
        > "$SYS/host/$name.changed"
    log "$name: $(cat "$SYS/host/$name.json"), $(wc -l < "$SYS/host/$name.changed") files changed"
}

host_stage() {
    local r=$SYS/tool cmd up
    prepare_root tool
    prepare_root control
    mkdir -p "$SYS/host" && rm -f "$SYS/host"/*
    # The unit's own command, as installed: no other spelling of it.
    cmd=$(sed -n 's/^ExecStart=//p' "$r/lib/systemd/system/elfthp-align.service")
    [ -n "$cmd" ] || die "no ExecStart in the installed unit"
    echo "$cmd" > "$SYS/host/execstart"
    log "the unit's command, on the root's /usr (chroot $r): $cmd"
    # The tool reads /proc (mountinfo, its own descriptors) and /sys (THP).
    # The root is bind-mounted on itself: in a chroot whose root is no
    # mount point, /proc/self/mountinfo lists no mount holding /usr, and
    # the page-cache step cannot tell the file system (EIO).
    trap 'umount "$SYS/tool/proc" "$SYS/tool/sys" "$SYS/tool" 2>/dev/null' EXIT
    mount --bind "$r" "$r" && mount -t proc proc "$r/proc" &&
        mount -t sysfs sysfs "$r/sys" || die "cannot mount $r, its /proc and /sys"
    # The hard-link groups, to compare after the converge.
    (cd "$r" && find usr -xdev -type f -links +1 -printf '%i %n %p\n' | sort -n) \
        > "$SYS/host/hardlinks-before"
    # What is there to do, before (--check: writes nothing).
    # shellcheck disable=SC2086
    run_cmd check-before ${cmd/ -q / --check }
    # shellcheck disable=SC2086
    run_cmd first $cmd
    # shellcheck disable=SC2086
    run_cmd second $cmd
    # shellcheck disable=SC2086
    run_cmd check-after ${cmd/ -q / --check -q }
    umount "$r/proc" "$r/sys" "$r" || die "cannot unmount $r/proc, $r/sys and $r"
    trap - EXIT
    # For the guest's upgrade check: the smallest shared object the converge
    # rewrote, and its bytes as shipped (from base).
    up=$(grep '\.so' "$SYS/host/first.changed" | sort -n -k2 | head -1 | cut -d' ' -f3)
    if [ -n "$up" ]; then
        cp "$SYS/base/$up" "$r/var/lib/elfthp-system/upgrade.orig"
        echo "/$up" > "$r/var/lib/elfthp-system/upgrade.path"
    fi
    chroot "$r" systemctl enable elfthp-align.service elfthp-align.timer > /dev/null 2>&1 ||
        die "cannot enable the unit and timer in $r"
    (cd "$r" && find usr -xdev -type f -links +1 -printf '%i %n %p\n' | sort -n) > "$SYS/host/hardlinks"
}

# --- 3. disk images, and the boots -------------------------------------------

# make_image NAME: an XFS image of the root (loop mount, cp -a: hard
# links, owners, modes and xattrs kept), and its kernel and initramfs.
make_image() {
    local r=$SYS/$1 g=$SYS/g/$1 mb
    rm -rf "$g" && mkdir -p "$g/mnt"
    mb=$(du -sm "$r" | cut -f1)
    truncate -s $(( mb + 1536 ))M "$g/disk.img"
    mkfs.xfs -q -L "sys-$1" "$g/disk.img" || die "mkfs.xfs failed"
    mount -o loop "$g/disk.img" "$g/mnt" || die "cannot loop-mount $g/disk.img"
    cp -a "$r/." "$g/mnt/"; local rc=$?
    umount "$g/mnt" || die "cannot unmount $g/mnt"
    [ $rc -eq 0 ] || die "copying the root into $g/disk.img failed"
    cp "$(ls "$r"/boot/vmlinuz-* | head -1)" "$g/vmlinuz"
    cp "$(ls "$r"/boot/initrd.img-* | head -1)" "$g/initrd"
    log "image $1: $(du -h --apparent-size "$g/disk.img" | cut -f1) XFS"
}

# boot NAME: qemu (TCG) until the guest powers off or TIMEOUT; the console
# in console.log, the check's lines in results.txt (virtio-serial).
boot() {
    local g=$SYS/g/$1 t0
    t0=$(date +%s)
    : > "$g/results.txt"
    timeout "$TIMEOUT" qemu-system-x86_64 -accel tcg -cpu max -m 2048 -smp 2 \
        -nographic -no-reboot -nic none -kernel "$g/vmlinuz" -initrd "$g/initrd" \
        -append "root=/dev/vda rw console=ttyS0 systemd.firstboot=off panic=-1" \
        -drive "file=$g/disk.img,format=raw,if=virtio" \
        -device virtio-serial-pci -chardev "file,id=res,path=$g/results.txt" \
        -device virtserialport,chardev=res,name=sys.results \
        < /dev/null > "$g/console.log" 2>&1
    echo $? > "$g/qemu.rc"
    echo $(( $(date +%s) - t0 )) > "$g/boot_s"
    log "boot $1: qemu exit $(cat "$g/qemu.rc") after $(cat "$g/boot_s") s"
}

boot_stage() {
    make_image tool
    make_image control
    log "booting both images (TCG, -smp 2 each, at most $TIMEOUT s)"
    boot tool & boot control & wait
}

T0=$(date +%s)
case $STAGE in
    base) build_base ;;
    host) host_stage ;;
    boot) boot_stage ;;
    check) ;;
    all) build_base; host_stage; boot_stage ;;
    *) die "unknown stage $STAGE" ;;
esac
[ "$STAGE" = base ] || [ "$STAGE" = host ] || [ "$STAGE" = boot ] && exit 0
python3 "$HERE/check.py" "$SYS"; rc=$?
log "check-system: $(( $(date +%s) - T0 )) s (this stage), exit $rc"
exit $rc
