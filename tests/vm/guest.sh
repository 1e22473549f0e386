#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# SPDX-FileCopyrightText: 2026 the elfthp-align authors
# guest.sh - /init of the initramfs tests/vm/run.sh boots in each guest
# (busybox sh).  It measures and prints; the host decides what passes.
#
# /etc/vm.conf gives PAGE (4k or 16k, for --page-size).  /etc/modules.list
# lists the modules to load, in dependency order.  /dev/vda and /dev/vdb
# are empty ext4 and XFS images made by the host.  Every result is one line
# on the serial console:
#   VMR FS CASE KB     FilePmdMapped + ShmemPmdMapped (kB) of the fixture
#                      file's mappings in the running fixture
#   VMJ FS WHAT JSON   one line of the tool's JSON output (or ERR ...)
#   VMX FS WHAT RC     an exit status
#   VMERR TEXT         something that could not be done or measured
#   VMDONE             the last line
# Cases: orig (the fixture as linked, copied with cp), rewrite (elfthp-align
# -o, then a run), cold (page cache dropped, then a run), warm (dropped,
# --warm, a run), cp (a cp of the rewritten file), aligned (elfthp-align
# FILE on that already-aligned cp, then a run).
PATH=/bin:/sbin:/usr/bin
export PATH
T=elfthp-align

mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev 2>/dev/null
mkdir -p /tmp /mnt/tmpfs /mnt/ext4 /mnt/xfs
. /etc/vm.conf

err() { echo "VMERR $*"; }
finish() { sync; echo "VMDONE"; poweroff -f; sleep 10; }

while read -r m; do
    insmod "/lib/modules/$m" 2>/tmp/insmod.err || err "insmod $m: $(cat /tmp/insmod.err)"
done < /etc/modules.list

echo "VMJ - uname $(uname -r) $(uname -m)"
echo "VMJ - pmd $(cat /sys/kernel/mm/transparent_hugepage/hpage_pmd_size 2>/dev/null)"
echo "VMJ - thp $(cat /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null)"

# pmd_kb PID FILE: FilePmdMapped + ShmemPmdMapped of FILE's mappings.
pmd_kb() {
    awk -v p="$2" '
        /^[0-9a-f]+-[0-9a-f]+ / { cur = ($6 == p); next }
        cur && ($1 == "FilePmdMapped:" || $1 == "ShmemPmdMapped:") { kb += $2 }
        END { print kb + 0 }' "/proc/$1/smaps"
}

# measure FS CASE FILE [pid]: run FILE --hold, print its PMD-mapped kB;
# with pid, also what --pid says about the running process.
measure() {
    local fs=$1 what=$2 file=$3 pid i kb
    : > /tmp/hold.out
    "$file" --hold > /tmp/hold.out 2>&1 &
    pid=$!
    for i in $(seq 1 600); do
        grep -q '^ready$' /tmp/hold.out && break
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.1
    done
    if ! grep -q '^ready$' /tmp/hold.out; then
        err "$fs $what: $file did not get ready: $(head -2 /tmp/hold.out | tr '\n' ' ')"
        kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null
        return
    fi
    if kb=$(pmd_kb "$pid" "$file") && [ -n "$kb" ]; then
        echo "VMR $fs $what $kb"
    else
        err "$fs $what: cannot read /proc/$pid/smaps"
    fi
    [ "${4:-}" = pid ] && json "$fs" "pid-$what" $T --pid "$pid" --format json
    kill "$pid"; wait "$pid" 2>/dev/null
}

# json FS WHAT CMD...: CMD's JSON output, one VMJ line per line, and its rc.
json() {
    local fs=$1 what=$2 rc; shift 2
    "$@" > /tmp/json.out 2> /tmp/json.err
    rc=$?
    echo "VMX $fs $what $rc"
    while read -r l; do echo "VMJ $fs $what $l"; done < /tmp/json.out
    [ -s /tmp/json.err ] && err "$fs $what stderr: $(head -3 /tmp/json.err | tr '\n' ' ')"
}

# The model, before anything runs: --report on the original.
json - report-orig $T --report --format json --page-size "$PAGE" /fix/vmfix

# tmpfs huge=always: every write makes huge folios, so only the layout
# decides; the original is the negative control.
if mount -t tmpfs -o huge=always,size=1536M tmpfs /mnt/tmpfs; then
    D=/mnt/tmpfs
    cp /fix/vmfix $D/orig && measure tmpfs orig $D/orig
    json tmpfs rewrite-rc $T -q --page-size "$PAGE" -o $D/rw /fix/vmfix
    measure tmpfs rewrite $D/rw pid
    json tmpfs report-rw $T --report --format json --page-size "$PAGE" $D/rw
    json tmpfs host $T --host --format json $D
    rm -f $D/orig
else
    err "tmpfs: mount -o huge=always failed"
fi

# fs_cases FS DEV: the page-cache cases on a disk file system.
fs_cases() {
    local fs=$1 D=/mnt/$1
    if ! mount -t "$fs" "$2" "$D" 2>/tmp/mount.err; then
        err "$fs: mount $2: $(cat /tmp/mount.err)"; return
    fi
    cp /fix/vmfix $D/orig && dropcache $D/orig && measure "$fs" orig $D/orig
    json "$fs" rewrite-rc $T -q --page-size "$PAGE" -o $D/rw /fix/vmfix
    measure "$fs" rewrite $D/rw pid
    dropcache $D/rw && measure "$fs" cold $D/rw pid
    dropcache $D/rw && json "$fs" warm-rc $T --warm --format json $D/rw
    measure "$fs" warm $D/rw
    cp $D/rw $D/cp && measure "$fs" cp $D/cp
    json "$fs" aligned-rc $T --format json $D/cp
    measure "$fs" aligned $D/cp
    json "$fs" host $T --host --format json $D
    umount $D
}
fs_cases ext4 /dev/vda
fs_cases xfs /dev/vdb
finish
