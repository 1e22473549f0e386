#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# SPDX-FileCopyrightText: 2026 the elfthp-align authors
# Install what building and testing elfthp-align needs on Debian (12 or
# later).  Idempotent: packages already present are not fetched again.
# Run as root, or with sudo available.
set -eu

BUILD="gcc make pkg-config libelf-dev libbsd-dev libcmocka-dev zlib1g-dev libzip-dev"
# Independent checkers and fixture toolchains used by `make check`
# (cmake, meson and ninja-build build the examples with the installed
# CMake package and .pc file: test_buildsys.sh; rpm and cpio: rpmbuild
# and rpm2cpio | cpio in test_rpm.sh).
TEST="binutils elfutils lld clang mandoc attr libcap2-bin acl e2fsprogs
 cmake meson ninja-build strace python3 python3-jsonschema coreutils util-linux xfsprogs btrfs-progs
 gcc-aarch64-linux-gnu libc6-dev-arm64-cross
 gcc-powerpc-linux-gnu libc6-dev-powerpc-cross qemu-user golang-go cargo
 systemd debsums rpm cpio"
# Building and checking the Debian package (make deb, .ci/run); devscripts
# has hardening-check.
PACKAGE="dpkg-dev debhelper lintian devscripts"
# make check-vm: qemu (TCG) for amd64 and arm64 guests, busybox for the
# initramfs, depmod for the kernels' module dependencies.
VM="qemu-system-x86 qemu-system-arm busybox-static kmod xz-utils"
# make check-system: the Debian root is built with mmdebstrap.
SYSTEM="mmdebstrap"
# Peers and timers for make bench.
BENCH="hyperfine patchelf pax-utils time"

missing=""
for p in $BUILD $TEST $PACKAGE $VM $SYSTEM $BENCH; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" ||
		missing="$missing $p"
done
[ -z "$missing" ] && exit 0

SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO=sudo
echo "install-deps: installing:$missing"
$SUDO env DEBIAN_FRONTEND=noninteractive apt-get update -qq
# shellcheck disable=SC2086
$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $missing >/dev/null
