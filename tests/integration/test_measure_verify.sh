#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# SPDX-FileCopyrightText: 2026 the elfthp-align authors
# test_measure_verify.sh BUILDDIR - --measure never credits huge text with
# what something else did (issue 37):
#   - every process verified: a command that runs the program three
#     times, the file evicted after the first (and made huge again at the
#     end), has no huge round verified (the most a process mapped was as
#     expected, the least 0); control: the same three runs without the
#     eviction, 3 of 3 processes huge, pmd_kB 3 x W x 2 MiB;
#   - tmpfs text (ShmemPmdMapped) counts: a rewritten program on a tmpfs
#     mounted huge=always is measured, its huge rounds map W x 2 MiB;
#   - the random order within a pair is honoured: a command 0.2 s slower
#     in its small rounds (it sleeps when /proc/self/status says
#     THP_enabled: 0) is reported huge faster in every pair, with pairs
#     of both orders;
#   - the heap confound: glibc.malloc.hugetlb=1 and a 64 MiB malloc'd
#     buffer give AnonHugePages in the huge rounds only; the summary names
#     it ("heap THP: N kB in huge rounds, 0 in small"); control: the same
#     heap MADV_NOHUGEPAGE (no THP under enabled=always either), no
#     confound;
#   - a data file evicted before each small round only (read from storage
#     there, from the page cache in the huge rounds): no pair counted,
#     the reads named; control: evicted before every round, counted;
#   - a command with no effect at --pairs 3, 10 runs: no run reports a
#     difference (fewer than 6 pairs give no interval);
#   - programs with no window are not told to rewrite first; control: an
#     unaligned copy is.
# Needs root (a loop-mounted ext4, a tmpfs), x86_64 with 2 MiB PMDs, cc.
. "$(dirname "$0")/lib.sh"
need_builddir "$@"
need_tool

PMD_KB=2048
if [ "$(uname -m)" != x86_64 ] || [ "$(id -u)" -ne 0 ] ||
   [ "$(cat /sys/kernel/mm/transparent_hugepage/hpage_pmd_size 2>/dev/null)" != 2097152 ]; then
    skip "--measure verification" "needs root (loop mounts) on x86_64 with 2 MiB huge pages"
    finish
fi
fixture_line lld-pie || { skip "--measure verification" "fixture lld-pie not built"; finish; }
LLD=$BUILD/$FX_FILE
E=$WORK/ext4
if ! mount_image ext4 "$E"; then
    fail "ext4 image" "$WHY"
    finish
fi
run_tool --no-warm -o "$E/lld" "$LLD"
assert "the rewrite of lld-pie exits 0" tool_rc 0 || finish
count_eligible "$E/lld"
NW=$ELIG_W
"$TOOL" -q --warm "$E/lld"

has_text() { case $T_OUT in *"$1"*) return 0 ;; esac; WHY="no '$1' in: $(tool_said)"; return 1; }
err_has() { case $T_ERR in *"$1"*) return 0 ;; esac; WHY="no '$1' in: $(tool_said)"; return 1; }
err_lacks() { case $T_ERR in *"$1"*) WHY="'$1' in: $(tool_said)"; return 1 ;; esac; return 0; }
json() { python3 -c "import json, sys
o = json.loads(sys.stdin.read())
$1" <<< "$T_OUT"; }
schema_valid() {
    local out
    python3 -c 'import jsonschema' 2>/dev/null ||
        { WHY="python3-jsonschema not installed (make deps installs it)"; return 2; }
    out=$(printf '%s\n' "$T_OUT" | python3 "$LIB_DIR/json_lines.py" \
        "$REPO_ROOT/docs/schema-1.json" measure 2>&1) && return 0
    WHY=$out; return 1
}
# measure_retry ARGS...: run_tool, again (3 tries) while a pair was not
# counted because the machine's reclaim made its rounds read differently
# (other work on the machine evicts pages: a disturbed measurement is
# retried, never a verdict).
measure_retry() {
    local try
    for try in 1 2 3; do
        run_tool "$@"
        case $T_OUT in *"read different amounts from storage"*) ;; *) return ;; esac
        echo "# retried: a pair disturbed by the machine's reclaim"
    done
}
# In the small state the command's processes read THP_enabled: 0 (the
# prctl toggle) or have ELFTHP_AUDIT_MODE=small (the audit toggle).
SMALL='{ grep -q "^THP_enabled:[[:space:]]*0" /proc/self/status || [ "${ELFTHP_AUDIT_MODE:-}" = small ]; }'
EVICT="python3 -c 'import os, sys
fd = os.open(sys.argv[1], os.O_RDONLY); os.fsync(fd); os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)'"

echo "# every process verified: three runs, the file evicted after the first"
cat > "$WORK/three.sh" <<EOF
#!/bin/sh
"$E/lld" > /dev/null
if [ -n "\${MEASURE_EVICT:-}" ] && ! $SMALL; then $EVICT "$E/lld"; fi
"$E/lld" > /dev/null
"$E/lld" > /dev/null
if [ -n "\${MEASURE_EVICT:-}" ] && ! $SMALL; then "$TOOL" -q --warm "$E/lld"; fi
exit 0
EOF
chmod 755 "$WORK/three.sh"
MEASURE_EVICT=1 run_tool --measure --pairs 2 --format json "$E/lld" -- "$WORK/three.sh"
assert "evicted after the first of three: exits 2" tool_rc 2
assert "... no pair verified" err_has "no pair of rounds was verified"
assert "... no huge round verified" equals "verified huge rounds" \
    "$(json 'print(sum(r["verified"] for r in o["rounds"] if r["state"] == "huge"))')" 0
assert "... the reason: a process mapped less than the warm-up" equals "reasons" \
    "$(json 'print(all("a process of the round PMD-mapped less of it than the warm-up round" in r["why"] for r in o["rounds"] if r["state"] == "huge"))')" True
assert "... the least a process mapped is 0, the most the whole text" equals "min, sum" \
    "$(json 'print(sorted(set((r["files"][0]["pmd_kB_min"], r["files"][0]["pmd_kB"] >= '$((NW * PMD_KB))') for r in o["rounds"] if r["state"] == "huge")))')" \
    "[(0, True)]"
assert "... JSON validates against docs/schema-1.json" schema_valid
measure_retry --measure --pairs 2 --format json "$E/lld" -- "$WORK/three.sh"
assert "control, three runs without eviction: exits 0" tool_rc 0
assert "control: 3 of 3 processes huge in each huge round, 0 in each small" equals "huge/mapping" \
    "$(json 'print(sorted(set((r["state"], r["huge_processes"], r["mapping_processes"]) for r in o["rounds"])))')" \
    "[('huge', 3, 3), ('small', 0, 3)]"
assert "control: pmd_kB is the sum over the processes, the least one's W x 2 MiB" equals "sum, min" \
    "$(json 'print(sorted(set((r["pmd_kB"], r["files"][0]["pmd_kB_min"]) for r in o["rounds"] if r["state"] == "huge")))')" \
    "[($((3 * NW * PMD_KB)), $((NW * PMD_KB)))]"
"$TOOL" -q --warm "$E/lld"

echo "# tmpfs text (ShmemPmdMapped)"
T=$WORK/tmpfs
mkdir -p "$T"
if err=$(mount -t tmpfs -o huge=always,size=128M tmpfs "$T" 2>&1); then
    MOUNTS="$T ${MOUNTS:-}"
    run_tool --no-warm -o "$T/lld" "$LLD"
    measure_retry --measure --pairs 2 --format json -- "$T/lld"
    assert "tmpfs huge=always: exits 0" tool_rc 0
    assert "tmpfs: 2 valid pairs" equals "pairs_valid" "$(json 'print(o["pairs_valid"])')" 2
    assert "tmpfs: huge rounds map $NW windows" equals "huge pmd_kB" \
        "$(json 'print(sorted(set(r["pmd_kB"] for r in o["rounds"] if r["state"] == "huge")))')" \
        "[$((NW * PMD_KB))]"
    if run_pmd "$T/lld" setarch x86_64 -R "$T/lld"; then
        assert "tmpfs, independent: a run maps the same (smaps)" kb_is "smaps" "$RUN_KB" $((NW * PMD_KB))
    else
        fail "tmpfs, independent: a run of the program" "$WHY"
    fi
else
    skip "tmpfs huge=always" "cannot mount it: $err"
fi

echo "# the order within a pair: 0.2 s slower in small rounds"
cat > "$WORK/slow_small.sh" <<EOF
#!/bin/sh
if $SMALL; then sleep 0.2; fi
exec "$E/lld" > /dev/null
EOF
chmod 755 "$WORK/slow_small.sh"
both_orders() { [ "$(json 'print(len(set(o["rounds"][i]["state"] for i in range(0, len(o["rounds"]), 2))))')" = 2 ]; }
for try in 1 2 3 4; do
    measure_retry --measure --pairs 6 --format json "$E/lld" -- "$WORK/slow_small.sh"
    [ "$T_RC" -ne 0 ] || both_orders && break
done
assert "slower when small: exits 0" tool_rc 0
assert "... pairs of both orders were run" both_orders
assert "... every pair (from the rounds) has the small round slower" equals "pairs" \
    "$(json 'import collections
p = collections.defaultdict(dict)
for r in o["rounds"]: p[r["pair"]][r["state"]] = r["wall_s"]
print(all(v["small"] > v["huge"] + 0.1 for v in p.values()))')" True
assert "... the summary: huge faster in every pair, not within noise" equals "wall_s" \
    "$(json 'w = [s for s in o["summary"] if s["metric"] == "wall_s"][0]
print(w["ratio_max"] < 1, w["ci_high"] < 1, w["within_noise"])')" "True True False"

# --pairs auto on a command of 0.3 s in both states: its interval narrows
# to 5 points in a few pairs (all of them within 2.5 % at 6).
T_TIMEOUT=240 measure_retry --measure --pairs auto --format json "$E/lld" -- sh -c "sleep 0.3; exec \"$E/lld\" > /dev/null"
if [ "$T_RC" -eq 124 ]; then
    skip "--pairs auto" "the interval did not narrow in 240 s: the machine is too busy"
else
assert "--pairs auto: exits 0" tool_rc 0
assert "--pairs auto: stops on a narrow interval, at 6 pairs or more" equals "stop" \
    "$(json 'import re
n = [m for m in o["notes"] if m.startswith("--pairs auto")]
w = [s for s in o["summary"] if s["metric"] == "wall_s"][0]
print(len(n), bool(re.match("--pairs auto: stopped after [0-9]+ pairs, wall_s.s 95 % interval [0-9.]+ points wide .under 5.", n[0] if n else "")),
      o["pairs_run"] >= 6, w["ci_high"] - w["ci_low"] < 0.05)')" "1 True True True"
fi

echo "# a heap with THP under prctl: the confound is named"
# The audit toggle leaves the heap alone (test_measure_toggle.sh); the
# prctl toggle, forced here, is the one that takes it away.
export ELFTHP_MEASURE_TOGGLE=prctl
# "nohuge": the control's heap is MADV_NOHUGEPAGE, so it has no THP under
# enabled=always (Debian's default) as under madvise without the tunable.
cat > "$WORK/heap.c" <<'EOF'
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
int main(int argc, char **argv) {
	size_t n = 64u << 20, i;
	volatile char *p = malloc(n);	/* every page touched, kept */
	if (p == NULL) return 1;
	if (argc > 1 && strcmp(argv[1], "nohuge") == 0 &&
	    madvise((void *)((uintptr_t)p & ~(uintptr_t)4095), n,
	    MADV_NOHUGEPAGE) != 0) return 1;
	for (i = 0; i < n; i += 4096) p[i] = 1;
	return p[n / 2] == 1 ? 0 : 1;
}
EOF
if ! grep -q '\[always\]\|\[madvise\]' /sys/kernel/mm/transparent_hugepage/enabled; then
    skip "heap THP" "THP enabled=never"
elif ! cc -O0 -o "$WORK/heap" "$WORK/heap.c"; then
    fail "heap THP" "heap.c does not compile"
else
    HEAPCMD=(sh -c "\"$E/lld\" > /dev/null; exec \"$WORK/heap\" \"\$@\"" sh)
    GLIBC_TUNABLES=glibc.malloc.hugetlb=1 measure_retry --measure --pairs 2 --format json "$E/lld" -- "${HEAPCMD[@]}"
    assert "heap THP (glibc.malloc.hugetlb=1): exits 0" tool_rc 0
    assert "... small rounds have no AnonHugePages, huge rounds some" equals "anon" \
        "$(json 'print(sorted(set((r["state"], r["anon_huge_kB"] > 0) for r in o["rounds"])))')" \
        "[('huge', True), ('small', False)]"
    assert "... the confound is named" equals "confounds" \
        "$(json 'import re
print([re.sub("[0-9]+ kB in huge", "N kB in huge", c) for c in o["confounds"]])')" \
        "['heap THP: N kB in huge rounds, 0 in small (AnonHugePages, medians)']"
    assert "... JSON validates" schema_valid
    GLIBC_TUNABLES=glibc.malloc.hugetlb=1 measure_retry --measure --pairs 1 "$E/lld" -- "${HEAPCMD[@]}"
    assert "... the text says so" has_text "confound: heap THP: "
    GLIBC_TUNABLES=glibc.malloc.hugetlb=1 measure_retry --measure --pairs 2 --format json "$E/lld" -- "${HEAPCMD[@]}" nohuge
    assert "control, heap MADV_NOHUGEPAGE: exits 0" tool_rc 0
    assert "control: no confound" equals "confounds" "$(json 'print(o["confounds"])')" "[]"
    assert "control: no AnonHugePages in any round" equals "anon" \
        "$(json 'print(sum(r["anon_huge_kB"] for r in o["rounds"]))')" 0
fi
unset ELFTHP_MEASURE_TOGGLE

echo "# a data file evicted before the small rounds only"
head -c $((8 << 20)) /dev/urandom > "$E/data"
cat > "$WORK/evict_small.sh" <<EOF
#!/bin/sh
if [ -n "\${MEASURE_EVICT_ALL:-}" ] || $SMALL; then $EVICT "$E/data"; fi
cat "$E/data" > /dev/null
exec "$E/lld" > /dev/null
EOF
chmod 755 "$WORK/evict_small.sh"
if [ -r /proc/self/io ]; then
    # Every round's reason is the reads: the small one read the 8 MiB
    # more.  A round the machine disturbed otherwise (its text reclaimed
    # under a concurrent run: another reason, or the huge round reading
    # some kB too) is run again, at most 3 times; an exit other than 2
    # never is.
    reads_named() {
        json 'import re
ok = True
for r in o["rounds"]:
    m = re.search(r"read different amounts from storage \(small ([0-9]+) kB, huge ([0-9]+) kB\)", r.get("why") or "")
    ok = ok and m is not None and int(m.group(1)) >= 8192 and int(m.group(1)) - int(m.group(2)) >= 8192
print(ok)'
    }
    for try in 1 2 3; do
        run_tool --measure --pairs 2 --format json "$E/lld" -- "$WORK/evict_small.sh"
        [ "$T_RC" -eq 2 ] && [ "$(reads_named)" != True ] || break
        echo "# retried: a round disturbed otherwise: $(json 'print([r.get("why") for r in o["rounds"]])' | cut -c 1-300)"
    done
    assert "evicted before small rounds: exits 2" tool_rc 2
    assert "... no pair counted, the reads named" equals "reasons" "$(reads_named)" True
    assert "... small rounds read the 8 MiB, huge rounds nothing" equals "read_bytes" \
        "$(json 'print(sorted(set((r["state"], r["read_bytes"] >= 8 << 20) for r in o["rounds"])))')" \
        "[('huge', False), ('small', True)]"
    MEASURE_EVICT_ALL=1 measure_retry --measure --pairs 2 --format json "$E/lld" -- "$WORK/evict_small.sh"
    assert "control, evicted before every round: exits 0" tool_rc 0
    assert "control: 2 valid pairs" equals "pairs_valid" "$(json 'print(o["pairs_valid"])')" 2
else
    skip "storage reads" "no /proc/PID/io (CONFIG_TASK_IO_ACCOUNTING)"
fi

echo "# no effect, --pairs 3, 10 runs"
claims=0 runs=0
for i in 1 2 3 4 5 6 7 8 9 10; do
    measure_retry --measure --pairs 3 --format json "$E/lld" -- "$E/lld"
    [ "$T_RC" -eq 0 ] || continue
    runs=$((runs + 1))
    [ "$(json 'print(any(not s["within_noise"] for s in o["summary"]))')" = True ] && claims=$((claims + 1))
done
assert "no effect: 10 runs exit 0" equals "runs" "$runs" 10
assert "no effect: at most one run reports a difference" equals "over 1" "$((claims > 1))" 0
assert "no effect: the last run's JSON gives no interval and says why" equals "ci" \
    "$(json 'w = [s for s in o["summary"] if s["metric"] == "wall_s"][0]
print(w["ci_low"], w["ci_high"], w["null_why"])')" "None None fewer than 6 pairs with a ratio: no interval"

echo "# hostile commands: a child that escapes the trace, one left running, a THP state changed"
cat > "$WORK/hostile.c" <<'EOF'
#define _GNU_SOURCE
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>
static char stack[1 << 16];
static int sleeper(void *secs) {
	execl("/bin/sleep", "sleep", (char *)secs, (char *)NULL);
	_exit(127);
}
/* hostile PROGRAM u|t|q PIDFILE: run PROGRAM, then leave a sleeper behind:
 * u untraced (CLONE_UNTRACED) for 120 s, t traced for 120 s, q 0.1 s. */
int main(int argc, char **argv) {
	pid_t p = fork(), c;
	FILE *f;
	if (argc != 4) return 2;
	if (p == 0) { execl(argv[1], argv[1], (char *)NULL); _exit(127); }
	if (p < 0 || waitpid(p, NULL, 0) != p) return 1;
	c = clone(sleeper, stack + sizeof(stack), SIGCHLD |
	    (argv[2][0] == 'u' ? CLONE_UNTRACED : 0), argv[2][0] == 'q' ? "0.1" : "120");
	if (c < 0 || (f = fopen(argv[3], "a")) == NULL) return 1;
	fprintf(f, "%d\n", (int)c);
	return fclose(f) != 0;
}
EOF
# none_left PIDFILE: no sleeper the command started is still running.
none_left() {
    local pid left=""
    for pid in $(cat "$1"); do
        grep -qx sleep "/proc/$pid/comm" 2>/dev/null && left+=" $pid"
    done
    [ -z "$left" ] && return 0
    WHY="still running:$left"; kill -9 $left 2>/dev/null; return 1
}
if cc -O1 -o "$WORK/hostile" "$WORK/hostile.c"; then
    : > "$WORK/u.pids"
    run_tool --measure --pairs 1 --format json "$E/lld" -- "$WORK/hostile" "$E/lld" u "$WORK/u.pids"
    assert "CLONE_UNTRACED child: exits 2" tool_rc 2
    assert "... no round verified: it escaped the trace" equals "reasons" \
        "$(json 'print(all(r["why"].startswith("1 process escaped the trace (CLONE_UNTRACED)") and r["escaped"] == 1 for r in o["rounds"]))')" True
    assert "... every process it started is gone when --measure returns" none_left "$WORK/u.pids"
    : > "$WORK/t.pids"
    run_tool --measure --pairs 1 --format json "$E/lld" -- "$WORK/hostile" "$E/lld" t "$WORK/t.pids"
    assert "a traced child left running: exits 2" tool_rc 2
    assert "... killed after the grace, the rounds not verified" equals "reasons" \
        "$(json 'print(sorted(set((r["why"], r["killed"]) for r in o["rounds"])))')" \
        "[('1 process was still running 2 s after the command exited: killed', 1)]"
    assert "... every process it started is gone" none_left "$WORK/t.pids"
    : > "$WORK/q.pids"
    measure_retry --measure --pairs 1 --format json "$E/lld" -- "$WORK/hostile" "$E/lld" q "$WORK/q.pids"
    assert "control, a child that ends in 0.1 s: exits 0" tool_rc 0
    assert "control: 1 valid pair" equals "pairs_valid" "$(json 'print(o["pairs_valid"])')" 1
    assert "... JSON validates" schema_valid
else
    fail "hostile.c builds" "cc failed"
fi
printf '#include <sys/prctl.h>\nint main(int c, char **v) { (void)v; return c > 1 && prctl(PR_SET_THP_DISABLE, 0, 0, 0, 0) != 0; }\n' > "$WORK/thp_on.c"
cc -O1 -o "$WORK/thp_on" "$WORK/thp_on.c" || fail "thp_on.c builds" "cc failed"
# Under the prctl toggle (forced): the audit toggle does not depend on
# the processes' THP state.
ELFTHP_MEASURE_TOGGLE=prctl measure_retry --measure --pairs 1 --format json "$E/lld" -- sh -c "\"$E/lld\" > /dev/null; \"$WORK/thp_on\" on"
assert "THP turned back on by a process of the small round: exits 2" tool_rc 2
assert "... the small round is not verified, and says why" equals "small why" \
    "$(json 'print([r["why"] for r in o["rounds"] if r["state"] == "small"])')" \
    "['1 process changed its THP state itself (prctl PR_SET_THP_DISABLE) during the round']"
ELFTHP_MEASURE_TOGGLE=prctl measure_retry --measure --pairs 1 --format json "$E/lld" -- sh -c "\"$E/lld\" > /dev/null; \"$WORK/thp_on\""
assert "control, the same without the prctl: exits 0" tool_rc 0

echo "# no window, nothing to rewrite"
run_tool --measure --pairs 1 -- /bin/true
assert "/bin/true: exits 2" tool_rc 2
assert "... says no file has a window" err_has "none needs a rewrite"
assert "... not told to rewrite first" err_lacks "rewrite its program first"
cp "$LLD" "$E/plain"
run_tool --measure --pairs 1 -- "$E/plain"
assert "control, an unaligned copy: told to rewrite first" err_has "rewrite its program first"
finish
