#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# SPDX-FileCopyrightText: 2026 the elfthp-align authors
# test_upgrade.sh BUILDDIR - huge text that lasts: package upgrades and
# reclaim, through what make install ships (the unit's command, the APT
# hook, the path list).
#
# Two versions of a small package are built here with dpkg-deb --build; its
# program is the lld-pie fixture (lld's layout needs a rewrite; 6 windows),
# installed in /usr/lib/PKG/ (the root file system, ext4) under a name no
# other package uses, and purged at exit.  The tool is installed with
# make install PREFIX=$WORK/inst, and the path registered in its path list.
#   - version 1 installed: the program as shipped maps 0 kB huge; after the
#     unit's command (ExecStart, parsed from the installed unit: systemd is
#     not PID 1 here) the next run maps every window huge;
#   - version 2 installed with apt-get and the APT hook: huge again;
#     dpkg --verify and debsums then report the rewritten file, as the man
#     page says;
#   - the same upgrade without the hook: 0 kB (the negative control); then
#     the unit's command: huge again;
#   - reclaim: the cache of the aligned, huge program is dropped (fsync,
#     POSIX_FADV_DONTNEED), a run maps 0 kB; the timer's command (the
#     unit's, which the timer starts): huge again, and a second run of it
#     reads no data (no block read: getrusage's ru_inblock, against the
#     first run's as control).
# FilePmdMapped is read from /proc/PID/smaps for the program's mappings.
. "$(dirname "$0")/lib.sh"
need_builddir "$@"
need_tool

fixture_line lld-pie || { skip "upgrades" "no lld-pie fixture"; finish; }
FX=$BUILD/$FX_FILE
for t in dpkg-deb dpkg apt-get; do
    command -v $t >/dev/null || { skip "upgrades" "$t not installed (not a Debian system)"; finish; }
done
[ "$(id -u)" -eq 0 ] || { skip "upgrades" "dpkg -i needs root"; finish; }

# The tool as installed, with its unit, timer, hook and path list.
I=$WORK/inst
make -s -C "$REPO_ROOT" install PREFIX="$I" > "$WORK/install.log" 2>&1 ||
    { fail "make install PREFIX=..." "$(cat "$WORK/install.log")"; finish; }
UNIT=$I/lib/systemd/system/elfthp-align.service
HOOK=$I/etc/apt/apt.conf.d/90elfthp-align
LIST=$I/etc/elfthp-align/paths
# The unit's command, as systemd would run it: ExecStart= (no specifiers
# or variables in it; checked).
CMD=$(sed -n 's/^ExecStart=//p' "$UNIT")
case $CMD in *'$'*|*%*) fail "the unit's ExecStart has no variables" "$CMD"; finish ;; esac
assert "the timer starts the unit (no Unit= of its own)" equals "Unit= lines" \
    "$(grep -c '^Unit=' "$I/lib/systemd/system/elfthp-align.timer")" 0
unit_command() { $CMD; }

# --- the package ---------------------------------------------------------------
PKG=elfthp-test-$(od -An -N4 -tx4 /dev/urandom | tr -d ' ')
PROG=/usr/lib/$PKG/prog
dpkg-query -W "$PKG" > /dev/null 2>&1 && { fail "a unique package name" "$PKG is installed"; finish; }
build_pkg() {	# build_pkg VERSION: $WORK/PKG_VERSION.deb
    local v=$1 r=$WORK/pkg-$1
    mkdir -p "$r/DEBIAN" "$r/usr/lib/$PKG"
    cp "$FX" "$r/usr/lib/$PKG/prog"
    # Version 2 differs: bytes after the last section, which no segment maps.
    printf 'version %s\n' "$v" >> "$r/usr/lib/$PKG/prog"
    chmod 755 "$r/usr/lib/$PKG/prog"
    printf 'Package: %s\nVersion: %s\nArchitecture: %s\nMaintainer: elfthp-align tests <t@example.org>\nDescription: elfthp-align upgrade test %s\n' \
        "$PKG" "$v" "$(dpkg --print-architecture)" "$v" > "$r/DEBIAN/control"
    (cd "$r" && md5sum "usr/lib/$PKG/prog") > "$r/DEBIAN/md5sums"
    dpkg-deb --root-owner-group --build "$r" "$WORK/${PKG}_$v.deb" > /dev/null 2>&1
}
build_pkg 1 && build_pkg 2 || { fail "dpkg-deb --build" "cannot build the test package"; finish; }
PACKAGES=$PKG
echo "$PROG" >> "$LIST"

# APT reads the host's configuration, but not an APT hook of this tool the
# host has installed (the package's 90elfthp-align): the hook under test
# is the one given with -c, and the control has none.
mkdir -p "$WORK/apt.conf.d"
for f in /etc/apt/apt.conf.d/*; do
    [ -f "$f" ] && [ "${f##*/}" != 90elfthp-align ] && cp "$f" "$WORK/apt.conf.d/"
done
APT="apt-get -qq -y -o DPkg::Lock::Timeout=300 -o Dir::Etc::Parts=$WORK/apt.conf.d --no-install-recommends --allow-downgrades"
install_with_hook() { $APT -c "$HOOK" install "$WORK/${PKG}_$1.deb" > "$WORK/apt.log" 2>&1; }
install_without_hook() { $APT install "$WORK/${PKG}_$1.deb" > "$WORK/apt.log" 2>&1; }

# huge_now WHAT: the program's next run maps every window huge; prints the
# figure for the closing note.
want_kb() { count_eligible "$PROG"; echo $((ELIG_W * 2048)); }
huge_now() {
    local want
    run_pmd "$PROG" "$PROG" || return 1
    want=$(want_kb)
    echo "# FilePmdMapped $1: $RUN_KB kB (every window: $want kB)"
    [ "$want" -gt 0 ] || { WHY="no window counted in $PROG"; return 1; }
    kb_is "$PROG" "$RUN_KB" "$want"
}
small_now() {
    run_pmd "$PROG" "$PROG" || return 1
    echo "# FilePmdMapped $1: $RUN_KB kB"
    kb_is "$PROG" "$RUN_KB" 0
}

# --- version 1, registered, the unit's command ---------------------------------------
dpkg_wait -i "$WORK/${PKG}_1.deb" > "$WORK/dpkg.log" 2>&1
assert "dpkg -i version 1" equals "exit" "$?" 0
assert_not "control: version 1 as shipped is not congruent" check_congruence "$PROG"
assert "control: version 1 as shipped maps 0 kB huge" small_now "after dpkg -i 1"
unit_command > "$WORK/cmd.log" 2>&1
assert "the unit's command on the path list: exit 0 or 1" equals "exit" "$(( $? <= 1 ))" 1
assert "version 1 after the unit's command: every window huge" huge_now "after install + command"
assert "version 1 after the unit's command: runs the same" run_same "$FX" "$PROG"

# --- version 2 through APT, with the hook ------------------------------------------
install_with_hook 2
assert "apt-get install version 2 with the hook" equals "exit" "$?" 0 || tail -5 "$WORK/apt.log"
assert "version 2 is installed" equals "version" "$(dpkg-query -W -f='${Version}' "$PKG")" 2
assert "version 2 after the APT hook: every window huge" huge_now "after upgrade, with the hook"
assert "version 2: the bytes after the segments are version 2's" equals "tail" \
    "$(tail -c 10 "$PROG")" "version 2"
# What dpkg --verify and debsums say of a rewritten file (the man page).
v=$(dpkg --verify "$PKG" 2>&1)
assert "dpkg --verify reports the rewritten file as ??5??????" equals "dpkg --verify" \
    "$v" "??5??????   $PROG"
if command -v debsums >/dev/null; then
    d=$(debsums "$PKG" 2>&1)
    assert "debsums reports the rewritten file FAILED" equals "debsums" \
        "$(printf '%s\n' "$d" | awk '{print $1, $NF}')" "$PROG FAILED"
else
    skip "debsums on the rewritten file" "debsums not installed (make deps installs it)"
fi

# --- the same without the hook: the negative control -----------------------------------
install_without_hook 1
assert "apt-get install version 1 without the hook" equals "exit" "$?" 0
assert "control: an upgrade without the hook leaves 0 kB huge" small_now "after upgrade, without the hook"
v=$(dpkg --verify "$PKG" 2>&1)
assert "control: dpkg --verify is silent for the package's own bytes" equals "dpkg --verify" "$v" ""

# ... and the unit's command brings it back.
unit_command > "$WORK/cmd.log" 2>&1
assert "the unit's command after that upgrade: exit 0 or 1" equals "exit" "$(( $? <= 1 ))" 1
assert "after the unit's command: every window huge again" huge_now "after upgrade + the unit's command"

# --- reclaim, and the timer's command ---------------------------------------------------
# timer_command: what the timer runs (the unit's command, which rewrites
# where needed and puts the windows back in the page cache).
timer_command() {
    unit_command || [ $? -eq 1 ] || return 2
}
# inblock CMD...: run CMD; INBLOCK is its block reads (getrusage), RC its status.
inblock() {
    local r
    r=$(python3 -c 'import os, sys, resource
before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_inblock
rc = os.spawnvp(os.P_WAIT, "bash", ["bash", "-c", sys.argv[1], "-"] + sys.argv[2:])
print(rc, resource.getrusage(resource.RUSAGE_CHILDREN).ru_inblock - before)' "$@" 2>/dev/null)
    RC=${r% *} INBLOCK=${r#* }
}
export -f timer_command unit_command 2>/dev/null
export CMD I
drop_cache "$PROG"
assert "reclaim: the cache of the program is gone" equals "cached bytes" "$(cached_bytes "$PROG")" 0
assert "control: after reclaim a run maps 0 kB huge" small_now "after reclaim"
drop_cache "$PROG"
inblock timer_command
assert "reclaim: the timer's command exits 0 or 1" equals "exit" "$(( RC <= 1 ))" 1
FIRST=$INBLOCK
assert "reclaim: after the timer's command every window is huge" huge_now "after reclaim + the timer's command"
inblock timer_command
echo "# block reads: $FIRST after reclaim, $INBLOCK when already huge"
assert "control: the run after reclaim read the windows from disk" equals "block reads > 0" \
    "$(( FIRST > 0 ))" 1
assert "reclaim: a second run of the timer's command reads no data" equals "block reads" "$INBLOCK" 0
assert "reclaim: ... and it is still huge" huge_now "after a second timer run"

finish
