#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# SPDX-FileCopyrightText: 2026 the elfthp-align authors
# run.sh - make check-glibc: glibc 2.44's glibc.elf.thp on files whose text
# starts on a 2 MiB boundary, from a cold page cache, with no warming.
#
#   1. a root with glibc 2.44 (Debian experimental's libc6 over sid, made
#      with mmdebstrap; cached in build/glibc44/root, rebuilt when the
#      command below changes).
#   2. the fixtures (tests/glibc/): a text walker (24 MiB of text) as an
#      lld PIE, a GNU ld PIE (-z separate-code), an ET_EXEC (GNU ld), a
#      shared library loaded by a small program (lld), a cgo program (Go's
#      external link, GNU ld), each in five variants:
#        orig    as the linker wrote it (control);
#        cong    ELFTHP_ALIGN's output with --layout congruent (control);
#        tool    ELFTHP_ALIGN's output with --layout start (default
#                ./elfthp-align): the text split into a head and a body
#                that starts on 2 MiB;
#        split   cong with its text PT_LOAD split by hand at the first
#                2 MiB boundary (split_phdr.py: the prototype of the split);
#        relink  linked so that text starts on 2 MiB (lld -z
#                separate-loadable-segments, GNU ld -z separate-code, both
#                -z max-page-size=0x200000);
#      and a static Go program (no ld.so: --check -v must say so).
#   3. on a loop-mounted ext4 image (read_ahead_kb: the loop device's
#      default, 128 and 8192) and an XFS image (128), each file's page
#      cache dropped (fsync + POSIX_FADV_DONTNEED, tests/vm/dropcache.c),
#      run in a chroot of the root with GLIBC_TUNABLES=glibc.elf.thp=1; its
#      smaps read while it holds (smaps.py).
#   4. asserts: tool is start-aligned (a read-only PT_LOAD whose p_vaddr
#      and p_offset are multiples of 2 MiB); tool, split and relink show
#      VmFlags hg on the body and FilePmdMapped on most of its windows
#      with read_ahead_kb 128 (on some, with more: the numbers are
#      recorded); orig and cong 0 kB and no hg; every file prints the
#      same under this host's glibc (Debian 12's 2.36) as under 2.44.
#   5. --host against the root (ELFTHP_GLIBC_ROOT): the tunable is there;
#      off, then on through GLIBC_TUNABLES and through tunables.conf.
#
# Writes build/glibc44/results.txt (one line a run) and prints TAP lines;
# exits 1 on any failure.  Needs root (chroot, loop mounts) and, the first
# time, network for mmdebstrap.  GLIBC_DIR moves the build folder.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
DIR=${GLIBC_DIR:-$REPO/build/glibc44}
TOOL=${ELFTHP_ALIGN:-$REPO/elfthp-align}
PMD=2097152
N=0 FAILS=0

die() { echo "check-glibc: FAILED ($*)"; exit 1; }
log() { echo "# $(date +%T) $*"; }
ok() { N=$((N + 1)); echo "ok $N - $*"; }
fail() { N=$((N + 1)); FAILS=$((FAILS + 1)); echo "not ok $N - $*"; }

[ "$(id -u)" -eq 0 ] || die "needs root (chroot, loop mounts)"
for t in mmdebstrap chroot mkfs.ext4 mkfs.xfs losetup gcc ld.lld go python3; do
    command -v "$t" > /dev/null || die "$t not installed (make deps installs it)"
done
[ -x "$TOOL" ] || die "no $TOOL (make elfthp-align, or set ELFTHP_ALIGN)"
TOOL=$(cd "$(dirname "$TOOL")" && pwd)/$(basename "$TOOL")
mkdir -p "$DIR" && DIR=$(cd "$DIR" && pwd) || die "cannot create $DIR"

# --- 1. the root -------------------------------------------------------------
MMDEB=(--mode=root --variant=minbase
       --include='libc6/experimental,libc-bin/experimental'
       --aptopt='Acquire::Check-Valid-Until "false"' sid
       "deb http://deb.debian.org/debian sid main"
       "deb http://deb.debian.org/debian experimental main")
G=$DIR/root
key=$(printf '%s\n' "${MMDEB[@]}" | sha256sum | cut -d' ' -f1)
if [ "$(cat "$G/.key" 2>/dev/null)" != "$key" ]; then
    log "mmdebstrap ${MMDEB[*]}"
    rm -rf "$G.new" "$G"
    timeout 1800 mmdebstrap "${MMDEB[@]:0:5}" "$G.new" "${MMDEB[@]:5}" \
        > "$DIR/mmdebstrap.log" 2>&1 ||
        { tail -20 "$DIR/mmdebstrap.log"; die "mmdebstrap failed (log: $DIR/mmdebstrap.log)"; }
    echo "$key" > "$G.new/.key" && mv "$G.new" "$G" || die "cannot keep the root"
else
    log "glibc root cached in $G"
fi
LDSO=/lib64/ld-linux-x86-64.so.2
VER=$(chroot "$G" "$LDSO" --version | sed -n '1s/.* version \([0-9.]*\)\.$/\1/p')
case $VER in 2.4[4-9]*|2.[5-9]*) log "root's glibc: $VER";;
    *) die "the root's glibc is '$VER', not 2.44 or later";; esac
chroot "$G" "$LDSO" --list-tunables | grep -q '^glibc.elf.thp:' ||
    die "the root's ld.so has no glibc.elf.thp"

WORK=$(mktemp -d "$DIR/work.XXXXXX") || die "mktemp"
MNT="" LOOP=""
cleanup() {
    [ -n "${HOLD:-}" ] && kill "$HOLD" 2> /dev/null
    [ -n "$MNT" ] && { umount "$MNT" 2> /dev/null; rmdir "$MNT"; }
    [ -n "$LOOP" ] && losetup -d "$LOOP" 2> /dev/null
    rm -rf "$WORK"
}
trap cleanup EXIT

# --- 2. the fixtures ---------------------------------------------------------
log "fixtures in $WORK"
B=$WORK/bin
mkdir -p "$B"/{orig,cong,tool,split,relink} "$DIR/gocache"
gcc -O1 -o "$WORK/dropcache" "$REPO/tests/vm/dropcache.c" || die "dropcache.c"
LLD="-fuse-ld=lld" BFD="-fuse-ld=bfd"
REL_LLD="-Wl,-z,separate-loadable-segments -Wl,-z,max-page-size=0x200000"
REL_BFD="-Wl,-z,separate-code -Wl,-z,max-page-size=0x200000"
W=$HERE/walker.c
KINDS="lld-pie bfd-pie exec lib gocgo"
build() {  # build VARIANT EXTRA_LLD EXTRA_BFD
    local d=$B/$1
    gcc -O1 -fPIE -pie $LLD $2 -o "$d/lld-pie" "$W" &&
    gcc -O1 -fPIE -pie $BFD -Wl,-z,separate-code $3 -o "$d/bfd-pie" "$W" &&
    gcc -O1 -fno-pie -no-pie $BFD -Wl,-z,separate-code $3 -o "$d/exec" "$W" &&
    gcc -O1 -fPIC -shared -DWALKER_LIB $LLD $2 -o "$d/libwalker.so" "$W" &&
    gcc -O1 -o "$d/lib" "$HERE/walker_main.c" -L"$d" -lwalker \
        -Wl,-rpath,'$ORIGIN' &&
    (cd "$HERE/gocgo" && GOCACHE=$DIR/gocache GOFLAGS=-mod=mod CGO_ENABLED=1 \
        go build -o "$d/gocgo" -ldflags="-extldflags '$BFD -Wl,-z,separate-code $3'" .)
}
build orig "" "" || die "building the fixtures failed"
build relink "$REL_LLD" "$REL_BFD" || die "building the relinked fixtures failed"
(cd "$REPO/tests/fixtures/go" && GOCACHE=$DIR/gocache CGO_ENABLED=0 \
    go build -o "$B/orig/gostatic" .) || die "building the static Go program failed"
for v in cong tool split; do cp "$B/orig/lib" "$B/$v/lib"; done
# The tool's own output in both layouts, and the hand-made split of the
# congruent one.
for k in lld-pie bfd-pie exec libwalker.so gocgo gostatic; do
    "$TOOL" --layout congruent -o "$B/cong/$k" "$B/orig/$k" > "$WORK/tool.log" 2>&1 ||
        { cat "$WORK/tool.log"; die "$TOOL --layout congruent $k failed"; }
    "$TOOL" --layout start -o "$B/tool/$k" "$B/orig/$k" > "$WORK/tool.log" 2>&1 ||
        { cat "$WORK/tool.log"; die "$TOOL --layout start $k failed"; }
    "$TOOL" --check -v "$B/tool/$k" > "$WORK/check-$k.txt" 2>&1
    [ "$k" = gostatic ] && continue
    python3 "$HERE/split_phdr.py" "$B/cong/$k" "$B/split/$k" > /dev/null ||
        die "split_phdr.py $k failed"
    chmod 755 "$B/split/$k"
done
log "static Go program: $(tr '\n' ' ' < "$WORK/check-gostatic.txt")"
# A static program has no ld.so to take a body: --check -v says so (and
# no ld.so's rule is said to take it).
grep -q "glibc.elf.thp n/a (static: no ld.so)" "$WORK/check-gostatic.txt" &&
    ! grep -q "glibc.elf.thp yes" "$WORK/check-gostatic.txt" &&
    ok "gostatic: --check -v: no ld.so takes it" ||
    fail "gostatic: --check -v did not say that no ld.so takes it"

# start_aligned FILE: a read-only PT_LOAD with p_vaddr and p_offset on 2 MiB
# and a full window in it.
start_aligned() {
    python3 - "$1" << 'EOF'
import struct, sys
d = open(sys.argv[1], "rb").read()
phoff, = struct.unpack_from("<Q", d, 0x20)
ent, num = struct.unpack_from("<HH", d, 0x36)
for i in range(num):
    t, fl, off, va, pa, fsz, msz, al = struct.unpack_from("<IIQQQQQQ", d, phoff + i * ent)
    if t == 1 and not fl & 2 and va % (2 << 20) == 0 and off % (2 << 20) == 0 and fsz >= (2 << 20):
        sys.exit(0)
sys.exit(1)
EOF
}
for k in lld-pie bfd-pie exec libwalker.so gocgo; do
    for v in split relink; do
        start_aligned "$B/$v/$k" || die "$v/$k is not start-aligned: the fixture is wrong"
    done
    start_aligned "$B/orig/$k" && die "orig/$k is start-aligned: not a control"
    start_aligned "$B/cong/$k" && die "cong/$k is start-aligned: not a control"
    start_aligned "$B/tool/$k" && ok "tool/$k: $TOOL --layout start wrote it start-aligned" ||
        fail "tool/$k: $TOOL --layout start did not write it start-aligned"
done

# --- 3. the runs -------------------------------------------------------------
mapped_name() { [ "$1" = lib ] && echo libwalker.so || echo "$1"; }

# run_one FS RA VARIANT KIND: run in the chroot from a dropped cache; sets
# GOT ("hg=.. body=.. huge=.. pmd_kb=..") and OUT (what it printed).
run_one() {
    local f v=$3 k=$4 out=$WORK/out.$$ i
    echo "$2" > "/sys/block/${LOOP#/dev/}/queue/read_ahead_kb" || return 1
    "$WORK/dropcache" "$MNT/$v"/* || return 1
    # $ORIGIN needs /proc, which the root has not mounted: the library's
    # folder is named instead.
    GLIBC_TUNABLES=glibc.elf.thp=1 LD_LIBRARY_PATH=/mnt/${MNT##*/}/$v \
        chroot "$G" "/mnt/${MNT##*/}/$v/$k" --hold > "$out" 2>&1 &
    HOLD=$!
    for i in $(seq 300); do
        grep -q '^ready' "$out" && break
        kill -0 "$HOLD" 2> /dev/null || break
        sleep 0.05
    done
    GOT=$(python3 "$HERE/smaps.py" "$HOLD" "$(mapped_name "$k")" 2>&1)
    local rc=$?
    kill "$HOLD" 2> /dev/null; wait "$HOLD" 2> /dev/null; HOLD=""
    OUT=$(grep -v '^ready' "$out")
    grep -q '^ready' "$out" || { GOT="no ready line: $OUT"; return 1; }
    return $rc
}

field() { sed -n "s/.*\b$1=\([^ ]*\).*/\1/p" <<< "$GOT"; }

# judge FS RA VARIANT KIND: the assertions of step 4 for one run.
judge() {
    local what="$1 ra=$2 $3/$4" hg body huge
    if ! run_one "$@"; then fail "$what: measurement failed: $GOT"; return; fi
    echo "$1 $2 $3 $4 $GOT" >> "$DIR/results.txt"
    hg=$(field hg) body=$(field body) huge=$(field huge)
    case $3 in
    orig) [ "$hg" = no ] && [ "$(field pmd_kb)" = 0 ] &&
              ok "$what: control: $GOT" || fail "$what: control not 0 kB: $GOT";;
    cong) [ "$hg" = no ] && [ "$(field pmd_kb)" = 0 ] &&
              ok "$what: congruent only (control): $GOT" ||
              fail "$what: congruent control not 0 kB: $GOT";;
    *) if [ "$2" -le 128 ]; then
           [ "$hg" = yes ] && [ "$body" -gt 0 ] && [ $((2 * huge)) -gt "$body" ] &&
               ok "$what: hg, $huge of $body windows PMD-mapped: $GOT" ||
               fail "$what: not most windows PMD-mapped: $GOT"
       else
           # Larger read-ahead: the read-around of the faults before and
           # after the body takes windows (docs/runtime.md, 'glibc.elf.thp'),
           # the cgo program's at 8 MiB all of them in some runs: the count
           # is measured and recorded, the advice (hg) asserted.
           [ "$hg" = yes ] &&
               ok "$what: hg, $huge of $body windows PMD-mapped: $GOT" ||
               fail "$what: no MADV_HUGEPAGE (hg) on the body: $GOT"
       fi;;
    esac
    printf '%s\n' "$OUT" > "$WORK/print.$3.$4"
}

# mount_fs TYPE: a fresh image of TYPE mounted inside the root, the fixtures
# copied onto it.
mount_fs() {
    truncate -s 1G "$WORK/img" && LOOP=$(losetup -f --show "$WORK/img") ||
        return 1
    case $1 in ext4) mkfs.ext4 -q "$LOOP";; xfs) mkfs.xfs -q "$LOOP";; esac || return 1
    MNT=$(mktemp -d "$G/mnt/elfthp.XXXXXX") && mount "$LOOP" "$MNT" &&
        cp -a "$B"/* "$MNT"/ && sync
}
umount_fs() {
    umount "$MNT" && rmdir "$MNT" && MNT="" && losetup -d "$LOOP" && LOOP="" &&
        rm -f "$WORK/img"
}

: > "$DIR/results.txt"
for fs in ext4 xfs; do
    mount_fs "$fs" || die "cannot make and mount an $fs image"
    DEF_RA=$(cat "/sys/block/${LOOP#/dev/}/queue/read_ahead_kb")
    log "$fs on $LOOP, read_ahead_kb $DEF_RA by default"
    ras=128
    [ "$fs" = ext4 ] && ras="$DEF_RA 128 8192"
    for ra in $ras; do
        for k in $KINDS; do
            for v in tool split relink; do judge "$fs" "$ra" "$v" "$k"; done
            if [ "$fs" = ext4 ] && [ "$ra" = "$DEF_RA" ]; then
                judge "$fs" "$ra" orig "$k"; judge "$fs" "$ra" cong "$k"
            fi
        done
    done
    if [ "$fs" = ext4 ]; then
        run_one ext4 "$DEF_RA" orig gostatic &&
            echo "ext4 $DEF_RA orig gostatic $GOT" >> "$DIR/results.txt"
        log "static Go program under elf.thp=1: $GOT"
        # The same files under this host's glibc print what they printed.
        for v in orig cong tool split relink; do
            for k in $KINDS; do
                host=$(timeout 60 "$MNT/$v/$k" 2>&1)
                [ "$host" = "$(cat "$WORK/print.$v.$k")" ] &&
                    ok "$v/$k prints the same under glibc $(ldd --version | sed -n '1s/.* //p') and $VER" ||
                    fail "$v/$k prints [$host] here, [$(cat "$WORK/print.$v.$k")] under $VER"
            done
        done
    fi
    umount_fs || die "cannot unmount $MNT"
done

# --- 5. --host against the root ----------------------------------------------
host_says() { ELFTHP_GLIBC_ROOT=$G "$@" "$TOOL" --host 2>&1 | grep -i 'glibc'; }
s=$(host_says env -u GLIBC_TUNABLES)
grep -q "glibc.elf.thp is off (the default)" <<< "$s" && ok "--host on the root: off" ||
    fail "--host on the root, no tunable set: [$s]"
s=$(host_says env GLIBC_TUNABLES=glibc.elf.thp=1)
grep -q "glibc.elf.thp is on (GLIBC_TUNABLES" <<< "$s" && ok "--host on the root: on by GLIBC_TUNABLES" ||
    fail "--host on the root, GLIBC_TUNABLES: [$s]"
cp -a "$G/etc/ld.so.cache" "$WORK/ld.so.cache"
echo 'glibc.elf.thp=1' > "$G/etc/tunables.conf"
s=$(host_says env -u GLIBC_TUNABLES)
grep -q "run ldconfig" <<< "$s" && ok "--host: tunables.conf before ldconfig: run ldconfig" ||
    fail "--host, tunables.conf before ldconfig: [$s]"
chroot "$G" ldconfig
real=$(chroot "$G" "$LDSO" --list-tunables | grep '^glibc.elf.thp:')
s=$(host_says env -u GLIBC_TUNABLES)
grep -q "glibc.elf.thp is on (/etc/tunables.conf)" <<< "$s" &&
    [ "$real" = "glibc.elf.thp: 1 (min: 0, max: 1)" ] &&
    ok "--host: tunables.conf after ldconfig: on, as ld.so says ($real)" ||
    fail "--host, tunables.conf after ldconfig: [$s], ld.so: [$real]"
rm -f "$G/etc/tunables.conf"
cp -a "$WORK/ld.so.cache" "$G/etc/ld.so.cache"

echo "1..$N"
log "results in $DIR/results.txt"
[ "$FAILS" -eq 0 ] || die "$FAILS of $N failed"
echo "check-glibc: OK ($N checks)"
