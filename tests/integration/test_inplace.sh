#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# SPDX-FileCopyrightText: 2026 the elfthp-align authors
# test_inplace.sh BUILDDIR - collapse in place, and where it is not had.
# Linux 7.2 collapses a read-only mapping of an ext4 or XFS file with
# MADV_COLLAPSE (make check-vm measures that in its 7.2 guest); a kernel
# without CONFIG_READ_ONLY_THP_FOR_FS before 7.2 refuses with EINVAL.  On
# such a kernel (the usual CI host), on an ext4 image:
#   - the kernel config is read from every place a distribution puts it
#     (ELFTHP_TEST_CONFIG_ROOT of build/hooks/elfthp-align points the
#     look at a made-up root, never at this host's own config): /proc,
#     /boot/config-R, /usr/lib/modules/R/config, build/.config, in order;
#     a root without any is "unknown", not the host's answer;
#   - --host measures MADV_COLLAPSE per file system ("MADV_COLLAPSE here:
#     no"), and says khugepaged does not collapse text there;
#   - the probe (MADV_COLLAPSE asked of the first page of a one-PMD
#     read-only mapping of the file itself) decides, not the config: with
#     a config that claims CONFIG_READ_ONLY_THP_FOR_FS=y, --warm -n on
#     cached small folios still says they would be dropped and read again
#     (not collapsed in place), and --pid on a process that maps small
#     folios still says stop, --warm, start (tests/mutants/collapse-no-probe
#     skips the probe and fails here);
#   - the probe writes nothing: --warm -n, --report and --pid, with that
#     config (so that the probe runs), create, remove, rename or link no
#     file (strace shows no O_CREAT, O_TMPFILE, creat, mkdir, unlink,
#     rename, link, mknod or truncate; the rewrite itself is the control
#     that shows the look can fail), and the directory lists the same;
#   - the collapse path forced (ELFTHP_TEST_COLLAPSE=yes) where the kernel
#     refuses it falls back: --warm while the program runs exits 1 with 0
#     made huge and the program keeps 0 kB; stopped, --warm drops and reads
#     again, exits 0, and the next run maps every window.
# Needs root (loop mounts), x86_64 with 2 MiB PMDs.
. "$(dirname "$0")/lib.sh"
need_builddir "$@"
need_tool

HOOKED=${ELFTHP_ALIGN_HOOKED:-$REPO_ROOT/build/hooks/elfthp-align}
PMD_KB=2048
if [ "$(uname -m)" != x86_64 ]; then
    skip "collapse in place" "host is $(uname -m); the fixture run here is x86_64"
    finish
fi
if [ "$(id -u)" -ne 0 ]; then
    skip "collapse in place" "loop mounts need root"
    finish
fi
if [ "$(cat /sys/kernel/mm/transparent_hugepage/hpage_pmd_size 2>/dev/null)" != 2097152 ]; then
    skip "collapse in place" "the kernel has no 2 MiB transparent huge pages"
    finish
fi
if [ ! -x "$HOOKED" ]; then
    fail "the tool with test hooks exists" "$HOOKED not found (make build/hooks/elfthp-align)"
    finish
fi
fixture_line lld-pie || { skip "collapse in place" "fixture lld-pie not built"; finish; }
LLD=$BUILD/$FX_FILE
REL=$(uname -r)

# hooked ARGS...: the hooked tool, as run_tool runs the tool.
hooked() { TOOL=$HOOKED run_tool "$@"; }

# traced ARGS...: the hooked tool under strace, its calls that name files
# in $WORK/trace.log; T_RC, T_OUT as run_tool.
TRACE_CALLS=open,openat,openat2,creat,mkdir,mkdirat,unlink,unlinkat,rename,renameat,renameat2,link,linkat,symlink,symlinkat,mknod,mknodat,truncate
traced() {
    # LeakSanitizer cannot run under ptrace (make check SANITIZE=1).
    ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
    TOOL=strace run_tool -f -qq -o "$WORK/trace.log" -e trace="$TRACE_CALLS" "$HOOKED" "$@"
}

# writes_nothing: $WORK/trace.log holds no call that makes, removes,
# renames or links a file (a failed attempt counts too).
writes_nothing() {
    local bad
    [ -s "$WORK/trace.log" ] || { WHY="no strace log"; return 1; }
    grep -q 'openat(' "$WORK/trace.log" || { WHY="strace saw no openat"; return 1; }
    bad=$(grep -E 'O_CREAT|O_TMPFILE|(^|[^a-z_])(creat|mkdirat|mkdir|unlinkat|unlink|renameat2|renameat|rename|linkat|link|symlinkat|symlink|mknodat|mknod|truncate)\(' \
        "$WORK/trace.log" | head -3)
    [ -z "$bad" ] && return 0
    WHY="it did: $bad"; return 1
}

# has TEXT WANT: TEXT contains WANT.
has() {
    case $1 in *"$2"*) return 0 ;; esac
    WHY="no '$2' in: $1"; return 1
}

# --- the kernel config, from a made-up root ------------------------------
echo "# the kernel config: every place, in order, never the host's by accident"
CR=$WORK/root
mkdir -p "$CR/boot" "$CR/usr/lib/modules/$REL/build" "$CR/lib/modules/$REL"
ELFTHP_TEST_CONFIG_ROOT=$CR hooked --host
assert "no config under the root: unknown, the host's own config not read" \
    has "$T_OUT" "CONFIG_READ_ONLY_THP_FOR_FS: unknown (no config in"
printf 'CONFIG_TRANSPARENT_HUGEPAGE=y\nCONFIG_READ_ONLY_THP_FOR_FS=y\n' \
    > "$CR/usr/lib/modules/$REL/build/.config"
ELFTHP_TEST_CONFIG_ROOT=$CR hooked --host
assert "a kernel built here: build/.config is read" \
    has "$T_OUT" "CONFIG_READ_ONLY_THP_FOR_FS: yes ($CR/usr/lib/modules/$REL/build/.config)"
printf 'CONFIG_TRANSPARENT_HUGEPAGE=y\n' > "$CR/usr/lib/modules/$REL/config"
ELFTHP_TEST_CONFIG_ROOT=$CR hooked --host --format json
assert "Debian 7.2's place, /usr/lib/modules/R/config, before build/.config; no such option" \
    has "$T_OUT" '"read_only_thp_for_fs":false,"read_only_thp_for_fs_absent":true'
printf '# CONFIG_READ_ONLY_THP_FOR_FS is not set\n' > "$CR/boot/config-$REL"
ELFTHP_TEST_CONFIG_ROOT=$CR hooked --host
assert "Debian 12's place, /boot/config-R, first: is not set is no" \
    has "$T_OUT" "CONFIG_READ_ONLY_THP_FOR_FS: no ($CR/boot/config-$REL)"
ELFTHP_TEST_CONFIG_ROOT=$CR hooked --host --format json
assert "\"is not set\" is no, not an option the kernel lacks" \
    has "$T_OUT" '"read_only_thp_for_fs_absent":false'
mkdir -p "$CR/proc" && printf 'CONFIG_READ_ONLY_THP_FOR_FS=y\n' | gzip > "$CR/proc/config.gz"
ELFTHP_TEST_CONFIG_ROOT=$CR hooked --host
assert "the running kernel's own, /proc/config.gz, before all" \
    has "$T_OUT" "CONFIG_READ_ONLY_THP_FOR_FS: yes ($CR/proc/config.gz)"

# --- ext4 ----------------------------------------------------------------
E=$WORK/ext4
if ! mount_image ext4 "$E"; then
    fail "an ext4 image mounts" "$WHY"
    finish
fi
run_tool --no-warm -o "$E/lld" "$LLD"
assert "the rewrite of lld-pie (-o, --no-warm) exits 0" tool_rc 0 || finish
count_eligible "$E/lld"
NW=$ELIG_W

echo "# --host: MADV_COLLAPSE measured per file system"
run_tool --host "$E"
if has "$T_OUT" "MADV_COLLAPSE here: yes"; then
    # A kernel that collapses file text: nothing below is about it.
    skip "collapse refused here" "MADV_COLLAPSE works on ext4 on $REL (make check-vm's 7.2 guest covers it)"
    finish
fi
assert "--host on ext4: MADV_COLLAPSE here: no (measured)" has "$T_OUT" "MADV_COLLAPSE here: no"
assert "--host on ext4: khugepaged here: no" has "$T_OUT" "khugepaged here: no"
assert "--host: the host line names where it was measured" \
    has "$T_OUT" "MADV_COLLAPSE on regular files: no (measured on $E"

# A config that claims collapse works: only the probe knows better.
YES=$WORK/yes
mkdir -p "$YES/proc" && printf 'CONFIG_READ_ONLY_THP_FOR_FS=y\n' | gzip > "$YES/proc/config.gz"

echo "# the probe decides, not the config"
drop_cache "$E/lld"
cat "$E/lld" > /dev/null        # small folios, cached, mapped by no one
ELFTHP_TEST_CONFIG_ROOT=$YES hooked --warm -n -v "$E/lld"
assert "--warm -n (config says yes, probe says no): dropped and read again" \
    has "$T_OUT" "small folios: would be dropped and read again"
assert_not "--warm -n (config says yes, probe says no): nothing collapsed in place" \
    has "$T_OUT" "collapsed in place"
ELFTHP_TEST_CONFIG_ROOT=$YES hooked --warm -n --format json "$E/lld"
assert "--warm -n's JSON: the bytes of every window read again" \
    has "$T_OUT" "\"read_bytes\":$((NW * PMD_KB * 1024))"

echo "# the probe writes nothing: --warm -n, --report, --pid"
if command -v strace > /dev/null; then
    BEFORE=$(listing "$E")
    ELFTHP_TEST_CONFIG_ROOT=$YES traced --warm -n "$E/lld"
    assert "--warm -n under strace: the same look (dropped and read again)" \
        has "$T_OUT" "would be dropped and read again"
    assert "--warm -n (the probe run) creates, removes, renames no file" writes_nothing
    ELFTHP_TEST_CONFIG_ROOT=$YES traced --report "$E/lld"
    assert "--report under strace exits 0" tool_rc 0
    assert "--report (the probe run) creates, removes, renames no file" writes_nothing
    assert "the directory lists the same after --warm -n and --report" \
        equals "listing of $E" "$(listing "$E")" "$BEFORE"
    # Control: the look fails where files are made (the rewrite).
    ELFTHP_TEST_CONFIG_ROOT=$YES traced --no-warm -o "$E/lld.copy" "$LLD"
    assert "control: the rewrite under strace exits 0" tool_rc 0
    assert_not "control: the rewrite's created file is seen" writes_nothing
    rm -f "$E/lld.copy"
else
    skip "the probe writes nothing" "strace not installed"
fi

drop_cache "$E/lld"
if hold_start "$WORK/hold.out" setarch x86_64 -R "$E/lld"; then
    assert "the program started cold maps 0 kB" kb_is "cold" "$(pmd_kb "$HOLD_PID" "$E/lld")" 0
    ELFTHP_TEST_CONFIG_ROOT=$YES hooked --pid "$HOLD_PID"
    assert "--pid (config says yes, probe says no): stop, --warm, start" \
        has "$T_OUT" "then start it again"
    if command -v strace > /dev/null; then
        BEFORE=$(listing "$E")
        ELFTHP_TEST_CONFIG_ROOT=$YES traced --pid "$HOLD_PID"
        assert "--pid under strace: the same verdict" has "$T_OUT" "then start it again"
        assert "--pid (the probe run) creates, removes, renames no file" writes_nothing
        assert "the directory lists the same after --pid" equals "listing of $E" "$(listing "$E")" "$BEFORE"
    fi
    echo "# the collapse path forced where the kernel refuses it"
    ELFTHP_TEST_COLLAPSE=yes hooked --warm --format json "$E/lld"
    assert "forced collapse, program running: --warm exits 1" tool_rc 1
    assert "forced collapse, program running: 0 made huge" has "$T_OUT" '"made_huge":0'
    assert "forced collapse, program running: busy, not huge" has "$T_OUT" "mapped"
    assert "forced collapse: the running program still maps 0 kB" \
        kb_is "after" "$(pmd_kb "$HOLD_PID" "$E/lld")" 0
    hold_stop
else
    fail "the program runs from ext4" "$WHY"
fi
ELFTHP_TEST_COLLAPSE=yes hooked --warm --format json "$E/lld"
assert "forced collapse, program stopped: --warm falls back, exits 0" tool_rc 0
assert "forced collapse, program stopped: $NW made huge" has "$T_OUT" "\"made_huge\":$NW"
if run_pmd "$E/lld" setarch x86_64 -R "$E/lld"; then
    assert "the run after maps every window ($((NW * PMD_KB)) kB)" kb_is "after" "$RUN_KB" $((NW * PMD_KB))
else
    fail "the program runs after --warm" "$WHY"
fi
finish
