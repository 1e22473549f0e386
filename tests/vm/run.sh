#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# SPDX-FileCopyrightText: 2026 the elfthp-align authors
# run.sh [--update] [GUEST...] - boot Debian's kernels under qemu (TCG) and
# measure what the tool's outcome is on each (make check-vm).
#
# The matrix (tests/vm/matrix.txt): Debian 12's 6.1 and bookworm's 6.12 on
# amd64, 6.12 on arm64 with 4K pages and with 16K pages.  For each guest:
#   - the kernel package and busybox-static for its architecture are fetched
#     with apt-get download (a private apt state in build/vm/apt, so that
#     arm64 packages need no dpkg --add-architecture), extracted with
#     dpkg-deb -x and cached in build/vm;
#   - the tool is built statically for the guest (aarch64-linux-gnu-gcc and
#     the arm64 -dev packages' .a files in build/vm/sysroot-arm64), with
#     tests/vm/vmfix.c (a static lld program with 16 MiB of text, 128 MiB
#     on 16K pages) and tests/vm/dropcache.c;
#   - amd64 guests also get the split fixtures (split_fixtures below) and
#     Debian 12's glibc to run them;
#   - an initramfs holds them, the modules for virtio disks, loop, ext4 and
#     XFS (and what modules.dep says they need), the kernel's config as
#     /boot/config-RELEASE (what --host reads on Debian) and
#     tests/vm/guest.sh as /init; two virtio disks hold empty ext4 and XFS
#     images;
#   - qemu boots it with -accel tcg; the guest prints its measurements on
#     the serial console and powers off;
#   - tests/vm/check.py asserts on them and writes build/vm/results.txt.
# Guests run VM_JOBS (default 2) at a time, each with VM_TIMEOUT seconds
# (default 600); VM_MATRIX names another matrix file.  A package that
# cannot be fetched, a guest that does not boot or finish, and a
# measurement that failed are failures with their reason: the matrix is
# the test, nothing in it is skipped.
#
# --update also copies the results to tests/vm/results.txt and regenerates
# the table of docs/runtime.md from them (tests/vm/table.sh); without it, a result
# that differs from tests/vm/results.txt is a failure.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
VM=${VM_DIR:-$ROOT/build/vm}
JOBS=${VM_JOBS:-2}
TIMEOUT=${VM_TIMEOUT:-600}
MATRIX=${VM_MATRIX:-$HERE/matrix.txt}
update=0
[ "${1:-}" = --update ] && { update=1; shift; }

die() { echo "check-vm: $*" >&2; echo "check-vm: 0 passed, 1 failed"; exit 1; }
mkdir -p "$VM"/debs "$VM"/apt/lists/partial "$VM"/apt/cache/archives/partial || die "cannot create $VM"
VM=$(cd "$VM" && pwd)
for t in qemu-system-x86_64 qemu-system-aarch64 aarch64-linux-gnu-gcc gcc ld.lld \
         depmod dpkg-deb apt-get busybox mkfs.ext4 mkfs.xfs xz gzip python3 readelf; do
    command -v "$t" > /dev/null || die "$t not installed (make deps installs it)"
done

# --- packages -----------------------------------------------------------

APT_OPTS=(-o APT::Architectures::=amd64 -o APT::Architectures::=arm64
          -o Dir::State::Lists="$VM/apt/lists" -o Dir::Cache="$VM/apt/cache"
          -o Debug::NoLocking=1 -o APT::Sandbox::User=root)
# The private package lists, refreshed once a day.
if [ -z "$(find "$VM/apt/lists" -name '*_Packages*' -mtime -1 2>/dev/null | head -1)" ]; then
    echo "# apt-get update (amd64 and arm64 lists in $VM/apt)"
    apt-get -qq "${APT_OPTS[@]}" update || die "apt-get update failed"
fi
# sid's kernels (a matrix line "sid:re:..."): a private state of their own,
# made only when such a guest runs.  sid's Release file on the mirror may
# have expired (its Valid-Until passed): Check-Valid-Until=false.
SID_OPTS=(-o APT::Architectures::=amd64 -o APT::Architectures::=arm64
          -o Dir::State::Lists="$VM/apt-sid/lists" -o Dir::Cache="$VM/apt-sid/cache"
          -o Dir::Etc::SourceList="$VM/apt-sid/sid.sources" -o Dir::Etc::SourceParts=/dev/null
          -o Acquire::Check-Valid-Until=false
          -o Debug::NoLocking=1 -o APT::Sandbox::User=root)
sid_lists() {
    [ -n "$(find "$VM/apt-sid/lists" -name '*_Packages*' -mtime -1 2>/dev/null | head -1)" ] && return 0
    mkdir -p "$VM/apt-sid/lists/partial" "$VM/apt-sid/cache/archives/partial" || return 1
    printf 'Types: deb\nURIs: %s\nSuites: sid\nComponents: main\nSigned-By: %s\n' \
        "${VM_SID_MIRROR:-http://deb.debian.org/debian}" \
        /usr/share/keyrings/debian-archive-keyring.gpg > "$VM/apt-sid/sid.sources"
    echo "# apt-get update (sid's lists in $VM/apt-sid)"
    apt-get -qq "${SID_OPTS[@]}" update
}

# resolve SPEC ARCH: the package a matrix line names.  dep:META is the
# kernel package META depends on; re:REGEX the newest package matching it.
# sid:SPEC resolves SPEC in sid's lists.
resolve() {
    local spec=$1 arch=$2 OPTS=("${APT_OPTS[@]}")
    case $spec in sid:*) OPTS=("${SID_OPTS[@]}"); spec=${spec#sid:} ;; esac
    case $spec in
        dep:*) apt-cache "${OPTS[@]}" depends "${spec#dep:}:$arch" 2>/dev/null |
                   sed -n 's/^ *Depends: \(linux-image-[^:]*\).*/\1/p' | head -1 ;;
        re:*) apt-cache "${OPTS[@]}" pkgnames linux- 2>/dev/null |
                  grep -E "${spec#re:}" | sort -V | tail -1 ;;
    esac
}

# fetch PKG ARCH [OPTS...]: the .deb's path, downloaded once.
fetch() {
    local deb p=$1 a=$2
    shift 2
    [ $# -gt 0 ] || set -- "${APT_OPTS[@]}"
    deb=$(ls "$VM/debs/${p}_"*"_$a.deb" 2>/dev/null | head -1)
    if [ -z "$deb" ]; then
        (cd "$VM/debs" && apt-get -qq "$@" download "$p:$a" >&2) || return 1
        deb=$(ls "$VM/debs/${p}_"*"_$a.deb" 2>/dev/null | head -1)
    fi
    [ -n "$deb" ] && echo "$deb"
}

# extract DEB DIR: dpkg-deb -x, once.
extract() {
    [ -f "$2/.done" ] && return 0
    rm -rf "$2" && mkdir -p "$2" && dpkg-deb -x "$1" "$2" && touch "$2/.done"
}

# --- what runs in the guests ----------------------------------------------

SRCS=${SRCS:-$(make -s -C "$ROOT" print-srcs)}
SYSROOT=$VM/sysroot-arm64
arm64_sysroot() {
    local p deb
    [ -f "$SYSROOT/.done" ] && return 0
    for p in libelf-dev libbsd-dev libmd-dev zlib1g-dev; do
        deb=$(fetch "$p" arm64) || die "cannot fetch $p:arm64"
        dpkg-deb -x "$deb" "$SYSROOT" || die "cannot extract $deb"
    done
    touch "$SYSROOT/.done"
}

# build_arch ARCH: the static tool, dropcache and fixtures for ARCH in
# $VM/ARCH (rebuilt when the sources change).
build_arch() {
    local arch=$1 o=$VM/$1 cc flags=() lib=() stamp pad
    mkdir -p "$o"
    if [ "$arch" = arm64 ]; then
        arm64_sysroot
        mkdir -p "$VM/lldbin" && ln -sf "$(command -v ld.lld)" "$VM/lldbin/ld.lld"
        cc=aarch64-linux-gnu-gcc
        flags=(-isystem "$SYSROOT/usr/include") lib=(-L"$SYSROOT/usr/lib/aarch64-linux-gnu")
    else
        cc=gcc
    fi
    stamp=$( (cd "$ROOT" && cat $SRCS include/*.h tests/vm/vmfix.c tests/vm/dropcache.c) |
             sha256sum | cut -d' ' -f1)
    [ "$(cat "$o/.stamp" 2>/dev/null)" = "$stamp" ] && return 0
    echo "# building the tool and fixtures for $arch"
    # -DELFTHP_NO_ZIP: the guests' sysroots have no libzip.a, and they
    # measure loading, not archives (make WITH_LIBZIP=0 builds the same).
    (cd "$ROOT" && $cc -static -O2 -pthread -Iinclude -D_FILE_OFFSET_BITS=64 -D_GNU_SOURCE -DELFTHP_NO_ZIP -DELFTHP_VERSION="\"$(cat VERSION)\"" \
        "${flags[@]}" $SRCS -o "$o/elfthp-align" "${lib[@]}" -lelf -lbsd -lmd -lz) ||
        die "static build of the tool for $arch failed"
    $cc -O2 -static -Wall "$HERE/dropcache.c" -o "$o/dropcache" || die "dropcache for $arch"
    for pad in 16 128; do
        $cc -O2 -static -B"$VM/lldbin" -fuse-ld=lld -DPAD=$((pad << 20)) \
            "$HERE/vmfix.c" -o "$o/vmfix-$pad" || die "vmfix for $arch"
    done
    echo "$stamp" > "$o/.stamp"
}

# split_fixtures: the start-aligned split (--layout start) on programs that
# need an ld.so, for the amd64 guests: tests/glibc/walker.c with 6 MiB of
# text as an lld PIE, a GNU ld PIE (-z separate-code), an ET_EXEC, a
# library (lld) with a program using it, and the cgo program (GNU ld
# through cgo); each as linked (orig) and rewritten with the guest's own
# static tool (tool); and the lld PIE rewritten with one byte of its text
# changed (damaged: the control, its walk prints another sum).  Debian
# 12's glibc (libc6 from the private bookworm lists) is their ld.so and
# libc in the guest.  In $VM/split (rebuilt when the sources change).
split_fixtures() {
    local o=$VM/split w=$ROOT/tests/glibc stamp deb k
    stamp=$( (cat "$VM/amd64/.stamp" "$w/walker.c" "$w/walker_main.c" "$w"/gocgo/*) |
             sha256sum | cut -d' ' -f1)
    [ "$(cat "$o/.stamp" 2>/dev/null)" = "$stamp" ] && return 0
    command -v go > /dev/null || { WHY="go not installed (make deps installs golang-go)"; return 1; }
    echo "# building the split fixtures"
    rm -rf "$o" && mkdir -p "$o"/{orig,tool,damaged,glibc} "$VM/gocache" || return 1
    deb=$(fetch libc6 amd64) && extract "$deb" "$VM/libc6-amd64" || { WHY="libc6:amd64"; return 1; }
    cp -a "$VM/libc6-amd64"/. "$o/glibc/" && rm -rf "$o/glibc/usr/share" || return 1
    local c="gcc -O1 -DTEXT_BYTES=6291456" d=$o/orig
    $c -fPIE -pie -fuse-ld=lld -o "$d/lld-pie" "$w/walker.c" &&
    $c -fPIE -pie -fuse-ld=bfd -Wl,-z,separate-code -o "$d/bfd-pie" "$w/walker.c" &&
    $c -fno-pie -no-pie -fuse-ld=bfd -Wl,-z,separate-code -o "$d/exec" "$w/walker.c" &&
    $c -fPIC -shared -DWALKER_LIB -fuse-ld=lld -o "$d/libwalker.so" "$w/walker.c" &&
    gcc -O1 -o "$d/lib" "$w/walker_main.c" -L"$d" -lwalker -Wl,-rpath,/split/orig &&
    (cd "$w/gocgo" && GOCACHE=$VM/gocache GOFLAGS=-mod=mod CGO_ENABLED=1 \
        CGO_CFLAGS="-O1 -DTEXT_BYTES=6291456" go build -o "$d/gocgo" \
        -ldflags="-extldflags '-fuse-ld=bfd -Wl,-z,separate-code'" .) ||
        { WHY="building the split fixtures failed"; return 1; }
    gcc -O1 -o "$o/tool/lib" "$w/walker_main.c" -L"$d" -lwalker -Wl,-rpath,/split/tool || return 1
    for k in lld-pie bfd-pie exec libwalker.so gocgo; do
        "$VM/amd64/elfthp-align" -q --layout start --no-warm -o "$o/tool/$k" "$d/$k" ||
            { WHY="elfthp-align --layout start $k failed"; return 1; }
        [ "$(python3 "$ROOT/tests/integration/phdrs.py" heads "$o/tool/$k" | wc -l)" -ge 1 ] ||
            { WHY="$k was not split"; return 1; }
    done
    # The byte 3 MiB into the walked text (in the body), found through
    # the PT_LOAD that maps it.
    cp "$o/tool/lld-pie" "$o/damaged/lld-pie" &&
        k=$(readelf -sW "$o/tool/lld-pie" | awk '$8 == "walk_pad_start" { print $2 }') &&
        python3 - "$o/damaged/lld-pie" "$((0x$k + (3 << 20)))" << 'EOF' || { WHY="damaging"; return 1; }
import struct, sys
f = open(sys.argv[1], "r+b")
d = f.read(); va = int(sys.argv[2])
phoff, = struct.unpack_from("<Q", d, 0x20); ent, num = struct.unpack_from("<HH", d, 0x36)
for i in range(num):
    t, fl, off, v, pa, fsz, msz, al = struct.unpack_from("<IIQQQQQQ", d, phoff + i * ent)
    if t == 1 and v <= va < v + fsz:
        f.seek(off + va - v); f.write(bytes([d[off + va - v] ^ 0xff])); sys.exit(0)
sys.exit(1)
EOF
    echo "$stamp" > "$o/.stamp"
}

# modules KDIR RELEASE OUT [MORE]: copy the modules the guest loads (and what
# modules.dep says they need) into OUT/lib/modules, uncompressed, and list
# them in load order in OUT/etc/modules.list.  Built-in ones are skipped.
modules() {
    local k=$1/lib/modules/$2 out=$3 m
    [ -f "$k/modules.dep" ] || depmod -b "$1" "$2" 2>/dev/null || return 1
    mkdir -p "$out/lib/modules" "$out/etc"
    : > "$out/etc/modules.list"
    SEEN=" "
    for m in virtio_ring virtio virtio_pci virtio_blk crc32c_generic crc32c-intel \
             libcrc32c loop ext4 xfs $4; do
        add_module "$k" "$out" "$m" || return 1
    done
}
add_module() {
    local k=$1 out=$2 m=$3 line path deps d
    line=$(grep -E "(^|/)$m\.ko(\.xz|\.zst)?:" "$k/modules.dep" | head -1)
    if [ -z "$line" ]; then
        grep -qE "(^|/)$m\.ko" "$k/modules.builtin" && return 0
        [ "$m" = crc32c-intel ] && return 0     # x86 only
        # Gone in 7.2 (crc32c is a built-in library function there);
        # what ext4, XFS and btrfs need still comes from modules.dep.
        case $m in crc32c_generic|libcrc32c) return 0 ;; esac
        WHY="module $m is neither in modules.dep nor built in"; return 1
    fi
    path=${line%%:*} deps=${line#*:}
    case $SEEN in *" $path "*) return 0 ;; esac
    SEEN="$SEEN$path "
    for d in $(echo $deps | tr ' ' '\n' | tac); do
        d=${d##*/}; d=${d%%.ko*}
        add_module "$k" "$out" "$d" || return 1
    done
    case $path in
        *.xz) xz -dc "$k/$path" > "$out/lib/modules/$m.ko" ;;
        *) cp "$k/$path" "$out/lib/modules/$m.ko" ;;
    esac || { WHY="cannot copy $path"; return 1; }
    echo "$m.ko" >> "$out/etc/modules.list"
}

# prepare NAME ARCH PAGE SPEC FS...: kernel, initramfs and disks in
# $VM/g/NAME; sets KERNEL; returns 1 with WHY.  Debian 12's kernels are
# linux-image-R with /boot/vmlinuz-R, /boot/config-R and /lib/modules/R;
# from 7.2 (sid) linux-image-R is empty and linux-binary-R, linux-modules-R
# and linux-base-R hold vmlinuz, the modules and config, all in
# /usr/lib/modules/R.  The guest gets the config where the package put
# it: --host must find it there.
prepare() {
    local name=$1 arch=$2 page=$3 spec=$4 g=$VM/g/$1 pkg deb kdir kroot rel pad p cfg
    shift 4
    local fss="$*"
    OPTS=("${APT_OPTS[@]}")
    case $spec in sid:*) sid_lists || { WHY="apt-get update of sid failed"; return 1; }
                         OPTS=("${SID_OPTS[@]}") ;; esac
    pkg=$(resolve "$spec" "$arch")
    [ -n "$pkg" ] || { WHY="no package for $spec on $arch in the apt lists"; return 1; }
    kdir=$VM/k/$pkg
    case $pkg in
        linux-binary-*)
            rel=${pkg#linux-binary-}
            for p in linux-binary-$rel linux-modules-$rel linux-base-$rel; do
                deb=$(fetch "$p" "$arch" "${OPTS[@]}") || { WHY="cannot fetch $p:$arch"; return 1; }
                extract "$deb" "$VM/k/$p" || { WHY="cannot extract $deb"; return 1; }
            done
            [ -f "$kdir/.merged" ] || { rm -rf "$kdir.m" && mkdir -p "$kdir.m" &&
                for p in linux-binary-$rel linux-modules-$rel linux-base-$rel; do
                    cp -a "$VM/k/$p/." "$kdir.m/" || break; done &&
                rm -rf "$kdir" && mv "$kdir.m" "$kdir" && touch "$kdir/.merged"; } ||
                { WHY="cannot merge the packages of $rel"; return 1; } ;;
        *)
            deb=$(fetch "$pkg" "$arch" "${OPTS[@]}") || { WHY="cannot fetch $pkg:$arch"; return 1; }
            extract "$deb" "$kdir" || { WHY="cannot extract $deb"; return 1; } ;;
    esac
    kroot=$kdir; [ -d "$kdir/lib/modules" ] || kroot=$kdir/usr
    rel=$(ls "$kroot/lib/modules" | head -1)
    KERNEL=$(ls "$kdir"/boot/vmlinuz-* "$kroot/lib/modules/$rel/vmlinuz" 2>/dev/null | head -1)
    cfg=$(ls "$kdir/boot/config-$rel" "$kroot/lib/modules/$rel/config" 2>/dev/null | head -1)
    [ -n "$rel" ] && [ -n "$KERNEL" ] && [ -n "$cfg" ] ||
        { WHY="$pkg has no kernel, modules or config"; return 1; }
    deb=$(fetch busybox-static "$arch") || { WHY="cannot fetch busybox-static:$arch"; return 1; }
    extract "$deb" "$VM/busybox-$arch" || { WHY="cannot extract $deb"; return 1; }
    rm -rf "$g" && mkdir -p "$g/root"/{bin,sbin,usr/bin,boot,etc,fix,proc,sys,dev,tmp,mnt}
    modules "$kroot" "$rel" "$g/root" "$(echo " $fss " | grep -qw btrfs && echo btrfs)" || return 1
    cp "$(ls "$VM/busybox-$arch"/bin/busybox "$VM/busybox-$arch"/usr/bin/busybox 2>/dev/null |
        head -1)" "$g/root/bin/busybox" || { WHY="no busybox in busybox-static:$arch"; return 1; }
    for a in $(busybox --list); do
        [ "$a" = busybox ] || ln -sf busybox "$g/root/bin/$a"
    done
    mkdir -p "$g/root/$(dirname "${cfg#$kdir}")"
    cp "$cfg" "$g/root${cfg#$kdir}"
    cp "$VM/$arch/elfthp-align" "$VM/$arch/dropcache" "$g/root/usr/bin/"
    pad=16; [ "$page" = 16k ] && pad=128
    cp "$VM/$arch/vmfix-$pad" "$g/root/fix/vmfix"
    if [ "$arch" = amd64 ]; then
        cp -a "$VM/split/glibc/." "$g/root/" && mkdir -p "$g/root/split" &&
            cp -a "$VM/split/orig" "$VM/split/tool" "$VM/split/damaged" "$g/root/split/" ||
            { WHY="cannot copy the split fixtures"; return 1; }
    fi
    cp "$HERE/guest.sh" "$g/root/init" && chmod 755 "$g/root/init"
    printf 'PAGE=%s\nFSS="%s"\n' "$page" "$fss" > "$g/root/etc/vm.conf"
    (cd "$g/root" && find . | busybox cpio -o -H newc 2>/dev/null) | gzip -1 > "$g/initrd.gz" ||
        { WHY="cannot make the initramfs"; return 1; }
    truncate -s 1G "$g/ext4.img" "$g/xfs.img" "$g/btrfs.img"
    mkfs.ext4 -q -F "$g/ext4.img" && mkfs.xfs -q -f "$g/xfs.img" ||
        { WHY="mkfs failed"; return 1; }
    case " $fss " in *" btrfs "*) mkfs.btrfs -q -f "$g/btrfs.img" > /dev/null ||
        { WHY="mkfs.btrfs failed"; return 1; } ;; esac
    printf '%s %s %s %s %s\n' "$name" "$arch" "$page" "$pkg" "$rel" > "$g/guest.txt"
    readelf -lW "$g/root/fix/vmfix" > "$g/vmfix.phdrs"
}

# boot NAME ARCH PAGE: qemu under TCG, the console in $VM/g/NAME/console.log.
boot() {
    local g=$VM/g/$1 mem=2048 q
    [ "$3" = 16k ] && mem=3072
    if [ "$2" = amd64 ]; then
        # no_timer_check: under TCG on a loaded machine 6.1 may find the
        # IO-APIC timer too slow and panic in setup_IO_APIC.
        q=(qemu-system-x86_64 -accel tcg -cpu max -append "console=ttyS0 quiet panic=-1 no_timer_check")
    else
        q=(qemu-system-aarch64 -accel tcg -machine virt -cpu max,pauth-impdef=on
           -append "console=ttyAMA0 quiet panic=-1")
    fi
    timeout "$TIMEOUT" "${q[@]}" -m "$mem" -smp 1 -nographic -no-reboot -nic none \
        -kernel "$KERNEL" -initrd "$g/initrd.gz" \
        -drive "file=$g/ext4.img,format=raw,if=virtio" \
        -drive "file=$g/xfs.img,format=raw,if=virtio" \
        -drive "file=$g/btrfs.img,format=raw,if=virtio" > "$g/console.log" 2>&1
    echo $? > "$g/qemu.rc"
}

# --- the matrix -------------------------------------------------------------

t0=$(date +%s)
# The guests to boot (VM_GUESTS or the arguments pick some), and their
# architectures: only those are built for.
sel=("$@")
[ ${#sel[@]} -eq 0 ] && [ -n "${VM_GUESTS:-}" ] && read -ra sel <<< "$VM_GUESTS"
picked() { [ ${#sel[@]} -eq 0 ] || printf '%s\n' "${sel[@]}" | grep -qx "$1"; }
for a in amd64 arm64; do
    grep -v '^#' "$MATRIX" | while read -r name arch rest; do
        [ "$arch" = "$a" ] && picked "$name" && echo "$a"; done | grep -q . && build_arch "$a" &&
        if [ "$a" = amd64 ]; then split_fixtures || die "split fixtures: $WHY"; fi
done
names=()
while read -r name arch page spec fss; do
    case $name in ''|'#'*) continue ;; esac
    picked "$name" || continue
    names+=("$name")
    rm -f "$VM/g/$name/qemu.rc"
    if ! prepare "$name" "$arch" "$page" "$spec" ${fss:-ext4 xfs}; then
        mkdir -p "$VM/g/$name" && echo "prepare: $WHY" > "$VM/g/$name/failed"
        continue
    fi
    rm -f "$VM/g/$name/failed"
    echo "# boot $name ($(cut -d' ' -f5 "$VM/g/$name/guest.txt"), $arch, $page pages)"
    boot "$name" "$arch" "$page" < /dev/null &
    while [ "$(jobs -rp | wc -l)" -ge "$JOBS" ]; do wait -n; done
done < "$MATRIX"
wait
echo "# guests: $(( $(date +%s) - t0 )) s"
[ ${#names[@]} -gt 0 ] || die "no guest in $MATRIX matches: ${sel[*]}"

args=()
[ $update -eq 1 ] && args=(--update)
python3 "$HERE/check.py" "${args[@]}" "$VM" "$HERE/results.txt" "${names[@]}"
rc=$?
if [ $update -eq 1 ] && [ $rc -eq 0 ]; then
    bash "$HERE/table.sh" || rc=1
fi
echo "# check-vm: $(( $(date +%s) - t0 )) s"
exit $rc
