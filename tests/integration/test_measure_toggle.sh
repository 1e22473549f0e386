#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# SPDX-FileCopyrightText: 2026 the elfthp-align authors
# test_measure_toggle.sh BUILDDIR - --measure's small state differs from
# the huge one in the named files' text only (issue 37, "one variable"):
#   - the audit toggle (elfthp-audit.so through LD_AUDIT): a command whose
#     heap is madvised (a 64 MiB PMD-aligned mapping, MADV_HUGEPAGE) has the same AnonHugePages in its small and huge rounds, no
#     confound, its text verified small (pmd_kB 0) and huge, each round
#     saying "audit"; control: the toggle forced to prctl
#     (ELFTHP_MEASURE_TOGGLE=prctl) names the heap confound;
#   - a statically linked program falls back to prctl and says why;
#   - a command that drops LD_AUDIT before it runs the program: the first
#     small round is not counted (the module did not advise the process),
#     the later ones use prctl ("audit, then prctl").
# Needs root (a loop-mounted ext4), x86_64 with 2 MiB PMDs, cc.
. "$(dirname "$0")/lib.sh"
need_builddir "$@"
need_tool

if [ "$(uname -m)" != x86_64 ] || [ "$(id -u)" -ne 0 ] ||
   [ "$(cat /sys/kernel/mm/transparent_hugepage/hpage_pmd_size 2>/dev/null)" != 2097152 ]; then
    skip "--measure toggle" "needs root (loop mounts) on x86_64 with 2 MiB huge pages"
    finish
fi
if [ ! -r "$REPO_ROOT/elfthp-audit.so" ] && [ -z "${ELFTHP_AUDIT_MODULE:-}" ]; then
    fail "--measure toggle" "no elfthp-audit.so beside the tool: run make"
    finish
fi
fixture_line lld-pie || { skip "--measure toggle" "fixture lld-pie not built"; finish; }
LLD=$BUILD/$FX_FILE
E=$WORK/ext4
if ! mount_image ext4 "$E"; then
    fail "ext4 image" "$WHY"
    finish
fi
run_tool --no-warm -o "$E/lld" "$LLD"
assert "the rewrite of lld-pie exits 0" tool_rc 0 || finish
"$TOOL" -q --warm "$E/lld"

has_text() { case $T_OUT in *"$1"*) return 0 ;; esac; WHY="no '$1' in: $(tool_said)"; return 1; }
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
measure_retry() {
    local try
    for try in 1 2 3; do
        run_tool "$@"
        case $T_OUT in *"read different amounts from storage"*) ;; *) return ;; esac
        echo "# retried: a pair disturbed by the machine's reclaim"
    done
}

echo "# a madvised heap under the audit toggle: one variable"
# The heap is madvised and PMD-aligned by the program itself, as jemalloc's
# thp option and a JVM's are.  A malloc'd one (glibc.malloc.hugetlb=1) lies
# where ASLR puts it: 64 MiB + 4 KiB covers 31 whole PMDs, or 32 when it
# happens to start on one, so its AnonHugePages differed between rounds by
# chance (CI: 63488 kB against 65536), which --measure rightly names.
cat > "$WORK/heap.c" <<'EOF'
#include <stddef.h>
#include <stdint.h>
#include <sys/mman.h>
int main(void) {
	size_t pmd = 2u << 20, n = 64u << 20, i;
	char *m = mmap(NULL, n + pmd, PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	volatile char *p;
	if (m == MAP_FAILED) return 1;
	p = (char *)(((uintptr_t)m + pmd - 1) & ~(uintptr_t)(pmd - 1));
	if (madvise((void *)p, n, MADV_HUGEPAGE) != 0) return 1;
	for (i = 0; i < n; i += 4096) p[i] = 1;	/* every page touched, kept */
	return p[n / 2] == 1 ? 0 : 1;
}
EOF
if ! grep -q '\[always\]\|\[madvise\]' /sys/kernel/mm/transparent_hugepage/enabled; then
    skip "heap THP under the audit toggle" "THP enabled=never"
elif ! cc -O0 -o "$WORK/heap" "$WORK/heap.c"; then
    fail "heap THP under the audit toggle" "heap.c does not compile"
else
    HEAPCMD=(sh -c "\"$E/lld\" > /dev/null; exec \"$WORK/heap\"")
    measure_retry --measure --pairs 2 --format json "$E/lld" -- "${HEAPCMD[@]}"
    assert "audit toggle, heap madvised: exits 0" tool_rc 0
    assert "... every round says audit, the summary too" equals "toggle" \
        "$(json 'print(sorted(set(r["toggle"] for r in o["rounds"])), o["toggle"], o["toggle_why"], o["confound"])')" \
        "['audit'] audit None None"
    assert "... every round verified: small pmd_kB 0, huge > 0" equals "rounds" \
        "$(json 'print(sorted(set((r["state"], r["verified"], r["pmd_kB"] > 0) for r in o["rounds"])))')" \
        "[('huge', True, True), ('small', True, False)]"
    assert "... AnonHugePages in every round, the same in both states" equals "anon" \
        "$(json 'a = {s: sorted(r["anon_huge_kB"] for r in o["rounds"] if r["state"] == s) for s in ("small", "huge")}
print(a["small"] == a["huge"], min(a["small"]) > 0)')" "True True"
    assert "... no confound" equals "confounds" "$(json 'print(o["confounds"])')" "[]"
    assert "... JSON validates" schema_valid
    measure_retry --measure --pairs 1 "$E/lld" -- "${HEAPCMD[@]}"
    assert "... the text names the toggle" has_text "toggle: audit: 1 small round ran with LD_AUDIT="
    assert_not "... and no prctl" has_text "toggle: prctl"
    ELFTHP_MEASURE_TOGGLE=prctl \
        measure_retry --measure --pairs 2 --format json "$E/lld" -- "${HEAPCMD[@]}"
    assert "control, toggle forced to prctl: exits 0" tool_rc 0
    assert "control: every round says prctl, and why" equals "toggle" \
        "$(json 'print(sorted(set(r["toggle"] for r in o["rounds"])), o["toggle"], o["toggle_why"])')" \
        "['prctl'] prctl ELFTHP_MEASURE_TOGGLE=prctl"
    assert "control: the heap confound is named" equals "confounds" \
        "$(json 'import re
print([re.sub("[0-9]+ kB in huge", "N kB in huge", c) for c in o["confounds"]])')" \
        "['heap THP: N kB in huge rounds, 0 in small (AnonHugePages, medians)']"
fi

echo "# a statically linked program: prctl, and why"
if cc -O1 -static -o "$WORK/static-run" -x c - <<'EOF'
#include <unistd.h>
int main(int c, char **v) { execv(v[1], v + 1); return 127; }
EOF
then
    measure_retry --measure --pairs 1 --format json "$E/lld" -- "$WORK/static-run" "$E/lld"
    assert "static: exits 0" tool_rc 0
    assert "static: prctl, the reason names the program" equals "toggle" \
        "$(json 'print(o["toggle"], o["toggle_why"], sorted(set(r["toggle"] for r in o["rounds"])))')" \
        "prctl $WORK/static-run is statically linked: no ld.so loads the module ['prctl']"
    assert "static: JSON validates" schema_valid
else
    skip "static program" "cc -static failed (no libc.a)"
fi

echo "# a command that drops LD_AUDIT: not counted, then prctl"
measure_retry --measure --pairs 2 --format json "$E/lld" -- env -u LD_AUDIT "$E/lld"
assert "LD_AUDIT dropped: exits 0" tool_rc 0
assert "... the first small round not counted, the module named" equals "first small" \
    "$(json 'r = [r for r in o["rounds"] if r["state"] == "small"]
print(r[0]["toggle"], r[0]["verified"], r[0]["why"].startswith("the audit module did not advise 1 process"))')" \
    "audit False True"
assert "... the later small rounds use prctl and are verified" equals "second small" \
    "$(json 'r = [r for r in o["rounds"] if r["state"] == "small"]
print(r[1]["toggle"], r[1]["verified"], o["toggle"])')" "prctl True audit, then prctl"

finish
