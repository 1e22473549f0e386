#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# SPDX-FileCopyrightText: 2026 the elfthp-align authors
# guest.sh - run by elfthp-system-check.service in the images of
# tests/system/run.sh, once the system is up.  It measures and prints; the
# host (tests/system/check.py) decides what passes.  Every result is one
# line on the virtio-serial port sys.results (and on the console):
#   SYS KEY VALUE...    a measurement
#   SYSLOG WHAT TEXT    a line of a command's output, for the record
#   SYSDONE             the last line
# /var/lib/elfthp-system/role says tool (the tool ran on /usr, the unit and
# timer are enabled) or control (never ran).  Every wait is bounded.
export PATH=/usr/sbin:/usr/bin:/sbin:/bin LC_ALL=C.UTF-8
D=/var/lib/elfthp-system
ROLE=$(cat $D/role)
PORT=/dev/virtio-ports/sys.results
for _ in $(seq 30); do [ -e $PORT ] && break; sleep 1; done
[ -e $PORT ] || PORT=/dev/console
exec 3> "$PORT"
say() { echo "SYS $*" >&3; echo "SYS $*" > /dev/console; }
record() { local what=$1; shift; sed "s/^/SYSLOG $what /" "$@" >&3; }
W=$(mktemp -d)

say role "$ROLE"
say uname "$(uname -r)"
say rootfs "$(findmnt -no FSTYPE /)"
say thp "$(cat /sys/kernel/mm/transparent_hugepage/enabled)"

# --- the system is up, nothing failed --------------------------------------
state=$(timeout 900 systemctl is-system-running --wait 2>&1)
say state "$state"
systemctl list-units --failed --plain --no-legend > $W/failed 2>&1
say failed_units "$(awk '{print $1}' $W/failed | tr '\n' ' ')"
record failed $W/failed
say uptime_s "$(cut -d' ' -f1 /proc/uptime)"
u=elfthp-align.service
say unit "$(systemctl is-enabled $u 2>&1) $(systemctl show -p Result --value $u)" \
    "$(systemctl show -p ExecMainStatus --value $u)"
say timer "$(systemctl is-enabled elfthp-align.timer 2>&1)" \
    "$(systemctl is-active elfthp-align.timer 2>&1)"
journalctl -b -u $u -o cat --no-pager > $W/unit.log 2>&1
record unitlog $W/unit.log
# The boot run's duration: from the unit's monotonic timestamps.
s=$(systemctl show -p ExecMainStartTimestampMonotonic --value $u)
e=$(systemctl show -p ExecMainExitTimestampMonotonic --value $u)
[ "${s:-0}" -gt 0 ] && [ "${e:-0}" -gt 0 ] && say unit_boot_s "$(( (e - s) / 1000000 ))"

# --- the workload: real programs from the converged /usr --------------------
work() {  # work NAME EXPECTED COMMAND...: pass if it exits 0 printing EXPECTED
    local name=$1 want=$2; shift 2
    if (cd $W && timeout 600 "$@") > $W/$name.out 2>&1 && grep -qF -- "$want" $W/$name.out; then
        say work "$name" pass
    else
        say work "$name" fail; record "$name" $W/$name.out
    fi
}
cat > $W/prog.c <<'EOF'
#include <math.h>
#include <stdio.h>
#include <string.h>
int main(void) { char b[32]; snprintf(b, sizeof b, "%.6f", sqrt(2.0));
    printf("c-ok %s %zu\n", b, strlen(b)); return 0; }
EOF
work gcc "c-ok 1.414214 8" sh -c 'gcc -O2 -Wall -o prog prog.c -lm && ./prog'
work python3 "py-ok" python3 -c '
import json, ssl, sqlite3, ctypes, hashlib, zlib
db = sqlite3.connect(":memory:"); db.execute("create table t(x)"); db.execute("insert into t values (41)")
n = db.execute("select x + 1 from t").fetchone()[0]
libc = ctypes.CDLL(None); assert libc.strlen(b"four") == 4
assert json.loads(json.dumps({"n": n}))["n"] == 42
ssl.create_default_context(); assert zlib.decompress(zlib.compress(b"z")) == b"z"
print("py-ok", n, ssl.OPENSSL_VERSION.split()[0], hashlib.sha256(b"").hexdigest()[:8])'
work perl "perl-ok 42 d41d8cd9" perl -MPOSIX -MDigest::MD5=md5_hex -e \
    'printf "perl-ok %d %s\n", POSIX::floor(42.5), substr(md5_hex(""), 0, 8)'
work git "git-ok" sh -c 'git init -q repo && cd repo && echo hi > f && git add f &&
    git -c user.name=t -c user.email=t@t commit -qm one && git log --oneline | grep -q one &&
    git fsck --no-progress && echo git-ok'
work apt "Inst make" apt-get -s install make
work fzf "beta" sh -c 'printf "alpha\nbeta\n" | fzf --filter bet'

# --- the unit's own command once more: it must write nothing ---------------
cmd=$(sed -n 's/^ExecStart=//p' /lib/systemd/system/$u)
say execstart "$cmd"
if [ "$ROLE" = tool ]; then
    # What the boot run left for a next run to do, window by window.
    # shellcheck disable=SC2086
    timeout 900 ${cmd/ -q / --warm -n } > $W/warmplan 2>&1; say warm_plan_rc $?
    grep -v -e 'hard links' -e 'congruent modulo the page size' $W/warmplan |
        grep -v ': huge$' | head -80 > $W/warmplan.short
    record warmplan $W/warmplan.short
    touch $W/stamp; sleep 1
    # shellcheck disable=SC2086
    python3 $D/measure.py timeout 900 $cmd > $W/second.json 2> $W/second.err
    say second "$(cat $W/second.json)"
    record second $W/second.err
    say second_changed "$(find /usr -xdev -cnewer $W/stamp \( -type f -o -type l \) | wc -l)"
    # A third: the second in this boot may still warm what the boot run
    # could not make huge; the third shows the steady state.
    # shellcheck disable=SC2086
    python3 $D/measure.py timeout 900 $cmd > $W/third.json 2> /dev/null
    say third "$(cat $W/third.json)"
    # shellcheck disable=SC2086
    python3 $D/measure.py timeout 900 ${cmd/ -q / --check -q } > $W/check.json 2> $W/check.err
    say check "$(cat $W/check.json)"
    record check $W/check.err
fi

# --- how much of the running system's text is huge --------------------------
# Long-lived processes of the workload: cc1 reading a pipe, python3 holding
# mesa's libLLVM and a DRI driver (one file, 13 hard-linked names), perl, fzf.  Started after the unit ran, as a user's would.
(sleep 300 | gcc -x c -c -o /dev/null - ) &
python3 -c 'import ctypes, glob, time
ctypes.CDLL(sorted(glob.glob("/usr/lib/x86_64-linux-gnu/libLLVM-*.so.1"))[-1])
ctypes.CDLL("/usr/lib/x86_64-linux-gnu/dri/swrast_dri.so"); time.sleep(300)' &
perl -e 'sleep 300' &
(sleep 300 | fzf --filter x > /dev/null) &
for _ in $(seq 60); do
    pgrep -x cc1 > /dev/null && pgrep -x fzf > /dev/null &&
        grep -q libLLVM "/proc/$(pgrep -f "ctypes, glob" | head -1)/maps" 2>/dev/null && break
    sleep 1
done
timeout 300 elfthp-align --pid all -v > $W/pid.txt 2>&1; say pid_rc $?
record pid $W/pid.txt
timeout 300 elfthp-align --pid all --format json > $W/pid.json 2>/dev/null
say pid_json "$(grep '"summary"' $W/pid.json | tail -1)"
# FilePmdMapped of every process, summed by the file mapped (kB), read
# here without the tool: the independent figure.
python3 - > $W/smaps.txt <<'EOF'
import glob, collections, os
per = collections.Counter(); name = None
for p in glob.glob("/proc/[0-9]*/smaps"):
    try: lines = open(p).read().splitlines()
    except OSError: continue
    for l in lines:
        f = l.split()
        if len(f) >= 6 and "-" in f[0] and ":" in f[3]: name = f[5]
        elif len(f) >= 2 and f[0] == "FilePmdMapped:": per[name] += int(f[1])
for n, kb in sorted(per.items(), key=lambda x: -x[1]):
    if kb: print(kb, os.path.basename(n))
print("total", sum(per.values()))
EOF
say smaps_total_kb "$(sed -n 's/^total //p' $W/smaps.txt)"
say smaps_files "$(grep -v '^total' $W/smaps.txt | tr '\n' ' ' | sed 's/ \([^0-9]\)/:\1/g')"
kill %1 %2 %3 %4 2>/dev/null; pkill -P $$ sleep 2>/dev/null

# --- an upgrade puts the package's bytes back: the unit rewrites them --------
# upgrade.path: a shared object the first converge rewrote (run.sh picks
# it); upgrade.orig: its bytes as the package shipped them.
if [ "$ROLE" = tool ] && [ -f $D/upgrade.orig ]; then
    f=$(cat $D/upgrade.path)
    say upgrade_file "$f"
    cp $D/upgrade.orig "$f.dpkg-new" && mv "$f.dpkg-new" "$f"     # as dpkg does
    elfthp-align --check -q "$f" > /dev/null 2>&1; say upgrade_before_check $?
    timeout 900 systemctl start $u; say upgrade_unit "$? $(systemctl show -p ExecMainStatus --value $u)"
    journalctl -u $u -o cat --no-pager -n 30 > $W/upgrade.log 2>&1
    record upgrade $W/upgrade.log
    elfthp-align --check -q "$f" > $W/upcheck 2>&1; say upgrade_after_check $?
    record upgrade_check $W/upcheck
    work load_after_upgrade "loaded" python3 -c 'import ctypes, sys
ctypes.CDLL(sys.argv[1]); print("loaded")' "$f"
fi

say total_uptime_s "$(cut -d' ' -f1 /proc/uptime)"
echo SYSDONE >&3; echo SYSDONE > /dev/console
sync
systemctl poweroff --no-block
