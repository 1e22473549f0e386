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
#   VMS VAR NAME RC OUT a split fixture's run (below)
#   VMERR TEXT         something that could not be done or measured
#   VMDONE             the last line
# Cases: orig (the fixture as linked, copied with cp), rewrite (elfthp-align
# -o, then a run), cold (page cache dropped, then a run), warm (dropped,
# --warm, a run), cp (a cp of the rewritten file), aligned (elfthp-align
# FILE on that already-aligned cp, then a run); run-cold and run-warm: one
# process started cold (small folios mapped), then --warm while it runs
# and what the same process maps afterwards; khp-always and khp-madvise:
# a process started cold while khugepaged scans every 100 ms, under THP
# always and madvise, and what it maps after a bounded wait; khp-idle: one
# that ran its text once and sleeps, 5 s under always, and --pid on it.
# /etc/vm.conf's FSS lists the disk file systems (vda ext4, vdb XFS, vdc
# btrfs).  khugepaged sleeps an hour while the other cases run, so that a
# cold figure is cold on a kernel whose khugepaged collapses file text.
PATH=/bin:/sbin:/usr/bin
export PATH
T=elfthp-align

mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev 2>/dev/null
mkdir -p /tmp /mnt/tmpfs /mnt/ext4 /mnt/xfs /mnt/btrfs
. /etc/vm.conf

err() { echo "VMERR $*"; }
finish() { sync; echo "VMDONE"; poweroff -f; sleep 10; }

while read -r m; do
    insmod "/lib/modules/$m" 2>/tmp/insmod.err || err "insmod $m: $(cat /tmp/insmod.err)"
done < /etc/modules.list

echo "VMJ - uname $(uname -r) $(uname -m)"
echo "VMJ - pmd $(cat /sys/kernel/mm/transparent_hugepage/hpage_pmd_size 2>/dev/null)"
echo "VMJ - thp $(cat /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null)"
KH=/sys/kernel/mm/transparent_hugepage/khugepaged
KH_SLEEP=$(cat $KH/scan_sleep_millisecs 2>/dev/null)
echo 3600000 > $KH/scan_sleep_millisecs || err "cannot set khugepaged's scan_sleep_millisecs"

# pmd_kb PID FILE: FilePmdMapped + ShmemPmdMapped of FILE's mappings.
pmd_kb() {
    awk -v p="$2" '
        /^[0-9a-f]+-[0-9a-f]+ / { cur = ($6 == p); next }
        cur && ($1 == "FilePmdMapped:" || $1 == "ShmemPmdMapped:") { kb += $2 }
        END { print kb + 0 }' "/proc/$1/smaps"
}

# start FS CASE FILE ARG: run FILE ARG (--hold or --loop) until it says
# ready; PID is its pid, or empty (an error printed).
start() {
    local i
    : > /tmp/hold.out
    "$3" "$4" > /tmp/hold.out 2>&1 &
    PID=$!
    for i in $(seq 1 600); do
        grep -q '^ready$' /tmp/hold.out && return 0
        kill -0 "$PID" 2>/dev/null || break
        sleep 0.1
    done
    err "$1 $2: $3 did not get ready: $(head -2 /tmp/hold.out | tr '\n' ' ')"
    kill "$PID" 2>/dev/null; wait "$PID" 2>/dev/null
    PID=
    return 1
}

# report FS CASE PID FILE: one VMR line.
report() {
    local kb
    if kb=$(pmd_kb "$3" "$4") && [ -n "$kb" ]; then
        echo "VMR $1 $2 $kb"
        LAST_KB=$kb
    else
        err "$1 $2: cannot read /proc/$3/smaps"
    fi
}

# measure FS CASE FILE [pid]: run FILE --hold, print its PMD-mapped kB;
# with pid, also what --pid says about the running process.
measure() {
    local fs=$1 what=$2 file=$3
    start "$fs" "$what" "$file" --hold || return
    report "$fs" "$what" "$PID" "$file"
    [ "${4:-}" = pid ] && json "$fs" "pid-$what" $T --pid "$PID" --format json
    kill "$PID"; wait "$PID" 2>/dev/null
}

# settle FS CASE PID FILE SECONDS: poll the process's PMD-mapped kB every
# half second until it is the whole text (WANT) or SECONDS pass; then one
# VMR line, and how long it took.
settle() {
    local i=0 kb=0
    while [ $i -lt $(($5 * 2)) ]; do
        kb=$(pmd_kb "$3" "$4")
        [ "$kb" = "$WANT" ] && break
        sleep 0.5; i=$((i + 1))
    done
    echo "VMR $1 $2 $(pmd_kb "$3" "$4")"
    echo "VMJ $1 $2-ms $((i * 500))"
}

# running FS: a process started cold maps small folios; --warm -n and
# --warm while it runs, and --pid before and after.
running() {
    local fs=$1 f=/mnt/$1/rw
    dropcache $f || { err "$fs run: dropcache"; return; }
    start "$fs" run-cold "$f" --loop || return
    report "$fs" run-cold "$PID" "$f"
    json "$fs" pid-run-cold $T --pid "$PID" --format json
    # MADV_COLLAPSE asked of the mapped file itself: it must change nothing.
    json "$fs" host-file $T --host --format json "$f"
    json "$fs" warm-n-run $T --warm -n --format json "$f"
    json "$fs" warm-run $T --warm --format json "$f"
    settle "$fs" run-warm "$PID" "$f" 10
    json "$fs" pid-run-warm $T --pid "$PID" --format json
    kill "$PID"; wait "$PID" 2>/dev/null
}

# khugepaged FS MODE SECONDS [idle]: a process started cold under THP MODE
# while khugepaged scans every 100 ms; what it maps after at most SECONDS.
# With idle, the process reads its text once and sleeps (--hold): after
# SECONDS, what it maps and what --pid says (khp-idle).
khugepaged() {
    local fs=$1 f=/mnt/$1/rw old what=khp-$2 arg=--loop
    [ "${4:-}" = idle ] && what=khp-idle arg=--hold
    old=$(sed 's/.*\[\(.*\)\].*/\1/' /sys/kernel/mm/transparent_hugepage/enabled)
    echo "$2" > /sys/kernel/mm/transparent_hugepage/enabled || { err "THP $2"; return; }
    dropcache $f || { err "$fs khp: dropcache"; return; }
    if start "$fs" "$what" "$f" $arg; then
        echo 100 > $KH/scan_sleep_millisecs
        if [ "$arg" = --hold ]; then
            sleep "$3"; report "$fs" "$what" "$PID" "$f"
        else
            settle "$fs" "$what" "$PID" "$f" "$3"
        fi
        echo 3600000 > $KH/scan_sleep_millisecs
        json "$fs" "pid-$what" $T --pid "$PID" --format json
        kill "$PID"; wait "$PID" 2>/dev/null
    fi
    echo "$old" > /sys/kernel/mm/transparent_hugepage/enabled
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

# The split (--layout start) on programs with an ld.so (amd64 guests,
# Debian 12's glibc in the initramfs): each fixture as linked (orig),
# rewritten (tool), and one rewritten and damaged (the control), run once:
#   VMS VARIANT NAME RC FIRST-LINE-OF-OUTPUT
if [ -d /split ]; then
    t0=$(date +%s)
    echo "VMJ - split-glibc $(/lib64/ld-linux-x86-64.so.2 --version 2>&1 | head -1)"
    for v in orig tool damaged; do
        for k in $(ls /split/$v); do
            case $k in *.so) continue ;; esac
            out=$(/split/$v/$k 2>&1)
            echo "VMS $v $k $? $(echo "$out" | head -1)"
        done
    done
    echo "VMJ - split-seconds $(($(date +%s) - t0))"
fi

# The model, before anything runs: --report on the original.
json - report-orig $T --report --format json --page-size "$PAGE" /fix/vmfix

# tmpfs huge=always: every write makes huge folios, so only the layout
# decides; the original is the negative control.
if mount -t tmpfs -o huge=always,size=1536M tmpfs /mnt/tmpfs; then
    D=/mnt/tmpfs
    cp /fix/vmfix $D/orig && measure tmpfs orig $D/orig
    json tmpfs rewrite-rc $T -q --page-size "$PAGE" -o $D/rw /fix/vmfix
    measure tmpfs rewrite $D/rw pid
    WANT=$LAST_KB       # every window, where only the layout decides
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
    [ "$fs" = btrfs ] && json "$fs" host-file $T --host --format json $D/rw
    [ "$fs" = btrfs ] || running "$fs"
    umount $D
}
for fs in ${FSS:-ext4 xfs}; do
    case $fs in ext4) dev=/dev/vda ;; xfs) dev=/dev/vdb ;; btrfs) dev=/dev/vdc ;; esac
    fs_cases "$fs" "$dev"
done
# khugepaged, on ext4: under always it may collapse file text (7.2), under
# madvise it must not touch a mapping without MADV_HUGEPAGE.
if mount -t ext4 /dev/vda /mnt/ext4; then
    khugepaged ext4 always 20
    khugepaged ext4 madvise 10
    khugepaged ext4 always 5 idle
    umount /mnt/ext4
fi
[ -n "$KH_SLEEP" ] && echo "$KH_SLEEP" > $KH/scan_sleep_millisecs
finish
