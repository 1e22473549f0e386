#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# SPDX-FileCopyrightText: 2026 the elfthp-align authors
# test_install.sh BUILDDIR - what a distribution installs, and how it runs.
#   - make install DESTDIR=... puts exactly the expected files there, with
#     the real bindir and sysconfdir in the unit, the APT hook and the
#     wrapper; make uninstall removes exactly them, and is quiet the second
#     time; a path list the admin edited is kept;
#   - the installed unit and timer pass systemd-analyze verify (a unit that
#     names a bindir that does not exist does not: the control), and the
#     unit's sandbox rates below 4 in systemd-analyze security (the same
#     unit without its sandbox lines does not);
#   - the unit's command, run as its sandbox allows (the capability bounding
#     set and no-new-privs through setpriv; every system call it makes is in
#     its SystemCallFilter, traced with strace), still rewrites a set-user-ID
#     file with a file capability, keeping owner, mode and capability; with
#     CAP_CHOWN taken away it cannot (the control);
#   - the APT hook parses (apt-config);
#   - the version is the file VERSION, in -V, NEWS and the Debian changelog;
#   - the default build is hardened (hardening-check) and a packager's flags
#     win;
#   - the man page reads cleanly at 80 columns.
. "$(dirname "$0")/lib.sh"
need_builddir "$@"
need_tool

MK="make -s -C $REPO_ROOT"

# --- install and uninstall into a DESTDIR ------------------------------------
DEST=$WORK/dest
DIRS="PREFIX=/usr SYSCONFDIR=/etc UNITDIR=/lib/systemd/system"
out=$($MK install DESTDIR="$DEST" $DIRS 2>&1)
assert "make install DESTDIR=...: exits 0" equals "exit" "$?:$out" "0:"
expected="etc/apt/apt.conf.d/90elfthp-align
etc/elfthp-align/paths
etc/rpm/macros.elfthp-align-hook
lib/systemd/system/elfthp-align.service
lib/systemd/system/elfthp-align.timer
usr/bin/dh_elfthp_align
usr/bin/elfthp-align
usr/lib/elfthp-align/elfthp-audit.so
usr/lib/rpm/macros.d/macros.elfthp-align
usr/share/bash-completion/completions/elfthp-align
usr/share/cmake/ElfthpAlign/ElfthpAlignConfig.cmake
usr/share/cmake/ElfthpAlign/ElfthpAlignConfigVersion.cmake
usr/share/doc/elfthp-align/LICENSE
usr/share/doc/elfthp-align/NEWS
usr/share/doc/elfthp-align/README.md
usr/share/elfthp-align/brp-elfthp-align
usr/share/elfthp-align/elfthp-launch
usr/share/elfthp-align/elfthp-link
usr/share/elfthp-align/schema-1.json
usr/share/man/man1/dh_elfthp_align.1
usr/share/man/man1/elfthp-align.1
usr/share/perl5/Debian/Debhelper/Sequence/elfthp_align.pm
usr/share/pkgconfig/elfthp-align.pc"
got=$(cd "$DEST" && find . ! -type d | sed 's|^\./||' | sort)
assert "make install: the installed files are exactly the expected ones" equals "files" \
    "$(echo $got)" "$(echo $expected)"
assert "make install: the Makefile's own list (install-files) agrees" equals "files" \
    "$($MK install-files $DIRS | tr ' ' '\n' | sed 's|^/||' | sort | tr '\n' ' ')" "$(echo $expected) "
bad=$(grep -rl '@[A-Z]*DIR@' "$DEST" 2>/dev/null)
assert "make install: no @BINDIR@, @SYSCONFDIR@, @PKGDATADIR@ ... left in any file" equals "files" "$bad" ""
assert "make install: the unit runs /usr/bin/elfthp-align on /etc/elfthp-align/paths" equals "ExecStart" \
    "$(sed -n 's/^ExecStart=//p' "$DEST/lib/systemd/system/elfthp-align.service")" \
    "/usr/bin/elfthp-align -q -r -x -f /etc/elfthp-align/paths"
assert "make install: the wrapper knows the bindir" equals "line" \
    "$(grep '^installed_bindir=' "$DEST/usr/share/elfthp-align/elfthp-link")" "installed_bindir='/usr/bin'"
assert "make install: elfthp-launch is the wrapper" equals "link" \
    "$(readlink "$DEST/usr/share/elfthp-align/elfthp-launch")" elfthp-link
[ -x "$DEST/usr/share/elfthp-align/elfthp-link" ] && [ -x "$DEST/usr/bin/elfthp-align" ] &&
    pass "make install: the tool and the wrapper are executable" ||
    fail "make install: the tool and the wrapper are executable" "$(ls -l "$DEST/usr/bin" "$DEST/usr/share/elfthp-align")"
if command -v apt-config >/dev/null; then
    got=$(apt-config -c "$DEST/etc/apt/apt.conf.d/90elfthp-align" dump DPkg::Post-Invoke 2>&1)
    case $got in
        *'/usr/bin/elfthp-align -q -r -x -f /etc/elfthp-align/paths'*) pass "the APT hook parses and runs the unit's command" ;;
        *) fail "the APT hook parses and runs the unit's command" "$got" ;;
    esac
else
    skip "the APT hook parses" "apt-config not installed"
fi

echo "# keep this" >> "$DEST/etc/elfthp-align/paths"
out=$($MK uninstall DESTDIR="$DEST" $DIRS 2>&1)
assert "make uninstall: exits 0" equals "exit" "$?" 0
left=$(cd "$DEST" && find . ! -type d | sed 's|^\./||')
assert "make uninstall: only the edited path list is left" equals "files" "$left" "etc/elfthp-align/paths"
assert "make uninstall: the package's own directories are gone" equals "directories" \
    "$(cd "$DEST" && ls -d usr/share/elfthp-align usr/lib/elfthp-align usr/share/doc/elfthp-align usr/share/cmake/ElfthpAlign 2>/dev/null)" ""
rm "$DEST/etc/elfthp-align/paths"
out=$($MK uninstall DESTDIR="$DEST" $DIRS 2>&1)
assert "make uninstall, a second time: exit 0, nothing printed" equals "output" "$?:$out" "0:"
$MK install DESTDIR="$DEST" $DIRS >/dev/null 2>&1 && $MK uninstall DESTDIR="$DEST" $DIRS >/dev/null 2>&1
left=$(cd "$DEST" && find . ! -type d)
assert "make uninstall of an unedited install: nothing left" equals "files" "$left" ""

# --- the unit and the timer, installed for real paths ------------------------
# A PREFIX here (no DESTDIR), so that the bindir the unit names exists.
P=$WORK/prefix
$MK install PREFIX="$P" > "$WORK/install.log" 2>&1 ||
    fail "make install PREFIX=..." "$(cat "$WORK/install.log")"
UNIT=$P/lib/systemd/system/elfthp-align.service
verify() {	# verify UNIT...: systemd-analyze verify, no message at all
    local out
    out=$(systemd-analyze verify --man=no "$@" 2>&1) && [ -z "$out" ] && return 0
    WHY="systemd-analyze verify: $out"; return 1
}
# exposure UNIT: the overall exposure systemd-analyze security gives it.
exposure() {
    systemd-analyze security --offline=yes "$1" 2>/dev/null |
        sed -n 's/^→ Overall exposure level for [^:]*: \([0-9.]*\).*/\1/p'
}
if ! command -v systemd-analyze >/dev/null; then
    skip "systemd unit and timer" "systemd-analyze is not installed (make deps installs systemd)"
else
    assert "the installed unit and timer pass systemd-analyze verify" verify \
        "$UNIT" "$P/lib/systemd/system/elfthp-align.timer"
    mkdir -p "$WORK/other"
    sed "s|$P/bin|/nonexistent/bin|" "$UNIT" > "$WORK/other/elfthp-align.service"
    assert_not "control: the unit with a bindir that does not exist fails verify" verify \
        "$WORK/other/elfthp-align.service"
    score=$(exposure "$UNIT")
    echo "# systemd-analyze security: $score"
    assert "systemd-analyze security rates the unit below 4 ($score)" equals "below 4" \
        "$(awk -v s="${score:-99}" 'BEGIN { print (s < 4) }')" 1
    mkdir -p "$WORK/bare"
    awk '/^\[Install\]/ { keep = 1 } /^\[Service\]/ { print; print "Type=oneshot"; print "ExecStart=" exec; skip = 1; next }
         /^ExecStart=/ { exec = $0 } skip && !keep { next } { print }' \
        exec="$(sed -n 's/^ExecStart=//p' "$UNIT")" "$UNIT" > "$WORK/bare/elfthp-align.service"
    bare=$(exposure "$WORK/bare/elfthp-align.service")
    assert "control: without its sandbox lines it rates 4 or more ($bare)" equals "4 or more" \
        "$(awk -v s="${bare:-0}" 'BEGIN { print (s >= 4) }')" 1
fi

# --- the unit's command in the unit's sandbox ---------------------------------
# setpriv gives the command the unit's capability bounding set and
# no-new-privs (what a root service gets); strace lists its system calls.
unit_caps() {	# CapabilityBoundingSet= as setpriv's --bounding-set
    sed -n 's/^CapabilityBoundingSet=//p' "$UNIT" | tr 'A-Z' 'a-z' |
        sed 's/cap_//g; s/ \+/,+/g; s/^/-all,+/'
}
# allowed_calls: the system calls SystemCallFilter= allows, one a line.
allowed_calls() {
    python3 - "$UNIT" <<'EOF'
import subprocess, sys
def group(name, seen=set()):
    if name in seen: return set()
    seen.add(name)
    out = subprocess.run(["systemd-analyze", "syscall-filter", name], capture_output=True, text=True).stdout
    calls = set()
    for line in out.splitlines()[1:]:
        w = line.strip()
        if not w or w.startswith("#"): continue
        calls |= group(w) if w.startswith("@") else {w}
    return calls
allow, deny = set(), set()
for line in open(sys.argv[1]):
    if line.startswith("SystemCallFilter="):
        v = line.split("=", 1)[1].strip()
        if v.startswith("~"):
            for g in v[1:].split(): deny |= group(g) if g.startswith("@") else {g}
        else:
            for g in v.split(): allow |= group(g) if g.startswith("@") else {g}
print("\n".join(sorted(allow - deny)))
EOF
}
sandboxed() {	# sandboxed CAPS CMD...: run as the unit's sandbox would
    local caps=$1; shift
    setpriv --bounding-set="$caps" --inh-caps=-all --no-new-privs "$@"
}
# A tool built with AddressSanitizer (make SANITIZE=1 check): its runtime
# makes system calls of its own, and its leak check fails under strace.
ASAN=""
nm -D "$TOOL" 2>/dev/null | grep -q __asan_init && ASAN=1 &&
    export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0
if ! fixture_line lld-pie; then
    skip "the unit's command in its sandbox" "lld-pie not built"
elif ! command -v setpriv >/dev/null || ! command -v strace >/dev/null ||
     ! command -v systemd-analyze >/dev/null; then
    skip "the unit's command in its sandbox" "needs setpriv, strace and systemd-analyze"
else
    S=$WORK/sandbox
    mkdir -p "$S/etc/elfthp-align"
    setup_file() {	# a set-user-ID file owned by nobody, with a capability
        cp "$BUILD/$FX_FILE" "$S/prog"
        chown nobody:nogroup "$S/prog" && chmod 4755 "$S/prog"
        setcap cap_net_bind_service+ep "$S/prog"
    }
    printf '# test\n%s\n' "$S/prog" > "$S/etc/elfthp-align/paths"
    cmd=$(sed -n 's/^ExecStart=//p' "$UNIT" | sed "s|$P/etc/elfthp-align/paths|$S/etc/elfthp-align/paths|")
    setup_file
    sandboxed "$(unit_caps)" strace -f -qq -o "$S/trace" $cmd > "$S/out" 2>&1
    assert "sandboxed: the unit's command exits 0 or 1" equals "exit" "$(( $? <= 1 ))" 1
    assert "sandboxed: the set-user-ID file is rewritten" check_congruence "$S/prog"
    assert "sandboxed: ... runs the same" run_same "$BUILD/$FX_FILE" "$S/prog"
    assert "sandboxed: owner, mode and file capability kept" equals "metadata" \
        "$(stat -c '%U %a' "$S/prog") $(getcap "$S/prog" | awk '{print $2}')" "nobody 4755 cap_net_bind_service=ep"
    # The page-cache step the unit's command takes, traced on its own too:
    # the calls of --warm (until the plain command warms, it is the step
    # that command will take).
    drop_cache "$S/prog"
    sandboxed "$(unit_caps)" strace -f -qq -o "$S/trace.warm" $cmd --warm > "$S/out" 2>&1
    assert "sandboxed: --warm on the listed files exits 0" equals "exit" "$?" 0
    used=$(cat "$S/trace" "$S/trace.warm" | sed -n 's/^[0-9]* \+\([a-z0-9_]*\)(.*/\1/p' | sort -u)
    allowed_calls > "$S/allowed"
    # strace names a call it does not know syscall_0xNNN (cachestat, 451,
    # for an older strace): the filter answers ENOSYS to what it refuses,
    # and the tool then falls back to mincore, which is allowed.
    outside=$(comm -23 <(printf '%s\n' "$used" | grep -v '^syscall_0x') "$S/allowed" | tr '\n' ' ')
    if [ -n "$ASAN" ]; then
        skip "sandboxed: every system call it made is in SystemCallFilter" \
            "built with AddressSanitizer, whose runtime makes calls of its own (the plain build checks it)"
    else
        assert "sandboxed: every system call it made ($(echo $used | wc -w)) is in SystemCallFilter" equals "outside" "$outside" ""
    fi
    assert_not "control: SystemCallFilter is not everything (mount is out)" grep -qx mount "$S/allowed"
    setup_file
    sandboxed "$(unit_caps | sed 's/,+chown//')" $cmd > "$S/out" 2>&1
    assert "control: without CAP_CHOWN it cannot keep the owner (exit 2)" equals "exit" "$?" 2
    assert "control: ... and the file is left as it was" same_file "$BUILD/$FX_FILE" "$S/prog"
fi

# --- the version, in one place -------------------------------------------------
V=$(cat "$REPO_ROOT/VERSION")
assert "elfthp-align -V prints the version in VERSION" equals "version" "$("$TOOL" -V)" "elfthp-align $V"
assert "NEWS opens with that version" equals "first version in NEWS" \
    "$(grep -m1 -E '^[0-9]+\.[0-9]+' "$REPO_ROOT/NEWS")" "$V"
assert "the Debian changelog opens with that version" equals "changelog" \
    "$(head -1 "$REPO_ROOT/packaging/debian/changelog" | sed 's/.*(\(.*\)).*/\1/')" "$V"
assert "the version is written nowhere else in the sources" equals "files" \
    "$(cd "$REPO_ROOT" && grep -rl --include='*.[ch]' "\"$V\"" src include)" ""

# --- hardening -------------------------------------------------------------------
if ! command -v hardening-check >/dev/null; then
    skip "hardening" "hardening-check not installed (devscripts; make deps installs it)"
else
    hc=$(hardening-check "$TOOL")
    for what in "Position Independent Executable: yes" "Stack protected: yes" \
                "Fortify Source functions: yes" "Read-only relocations: yes" "Immediate binding: yes"; do
        case $hc in *"$what"*) pass "default build: $what" ;; *) fail "default build: $what" "$hc" ;; esac
    done
    # A packager's flags win: a copy of the tree built with its own CFLAGS.
    T=$WORK/tree
    mkdir -p "$T" && cp -r "$REPO_ROOT"/{Makefile,VERSION,src,include} "$T/"
    find "$T/src" \( -name "*.o" -o -name "*.d" \) -delete
    make -s -C "$T" -j2 CFLAGS="-O2 -fno-stack-protector" elfthp-align > "$T/log" 2>&1
    hc=$(hardening-check "$T/elfthp-align")
    case $hc in
        *"Stack protected: no"*) pass "packager's CFLAGS=-fno-stack-protector wins" ;;
        *) fail "packager's CFLAGS=-fno-stack-protector wins" "$hc $(tail -3 "$T/log")" ;;
    esac
    assert "packager's flags: no warning from the build" equals "warnings" \
        "$(grep -c 'warning' "$T/log")" 0
fi

# --- the man page at 80 columns --------------------------------------------------
if command -v man >/dev/null && command -v groff >/dev/null; then
    warn=$(MANWIDTH=80 man -l "$REPO_ROOT/man/elfthp-align.1" 2>&1 >/dev/null)
    assert "the man page at 80 columns: no warning from groff" equals "warnings" "$warn" ""
else
    skip "the man page at 80 columns" "man or groff not installed"
fi

finish
