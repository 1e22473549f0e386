#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# SPDX-FileCopyrightText: 2026 the elfthp-align authors
# test_measure_wall.sh BUILDDIR - --measure's wall_s ends at the command's
# last exit event, before the tool reads anything, and leaves out the
# tool's own looks at the processes that exited before it (the tree waits
# for them).  The tool with its test hooks (build/hooks/elfthp-align)
# makes each look 300 ms slower (ELFTHP_TEST_SLOW_LOOK=300); the command
# is sh running a rewritten lld-pie three times, so each round has three
# looks before its last exit and one at it:
#   - the hook works: the run takes at least 1.2 s a round longer;
#   - wall_s with the slow looks is within 0.3 s of wall_s without them
#     (the medians of each state), where counting them would add 0.9 s
#     (the mutant measure-wall-counts-looks);
#   - the same for the before-after rounds (--before).
# Needs root (a loop-mounted ext4), x86_64 with 2 MiB PMDs.
. "$(dirname "$0")/lib.sh"
need_builddir "$@"
need_tool
HOOKED=${ELFTHP_ALIGN_HOOKED:-$REPO_ROOT/build/hooks/elfthp-align}

if [ "$(uname -m)" != x86_64 ] || [ "$(id -u)" -ne 0 ] ||
   [ "$(cat /sys/kernel/mm/transparent_hugepage/hpage_pmd_size 2>/dev/null)" != 2097152 ]; then
    skip "--measure wall_s" "needs root (loop mounts) on x86_64 with 2 MiB huge pages"
    finish
fi
if [ ! -x "$HOOKED" ]; then
    fail "the tool with test hooks exists" "$HOOKED not found (make build/hooks/elfthp-align)"
    finish
fi
fixture_line lld-pie || { skip "--measure wall_s" "fixture lld-pie not built"; finish; }
E=$WORK/ext4
if ! mount_image ext4 "$E"; then
    fail "ext4 image" "$WHY"
    finish
fi
cp "$BUILD/$FX_FILE" "$E/orig"
run_tool --no-warm -o "$E/lld" "$E/orig"
assert "the rewrite of lld-pie exits 0" tool_rc 0 || finish
"$TOOL" -q --warm "$E/lld"
export ELFTHP_AUDIT_MODULE=$REPO_ROOT/elfthp-audit.so
CMD=(sh -c '"$1" > /dev/null; "$1" > /dev/null; "$1" > /dev/null' sh "$E/lld")

# medians: per state, the median wall_s of the verified rounds.
medians() { python3 -c "import json, statistics, sys
o = json.loads(sys.stdin.read())
print(' '.join('%s=%.3f' % (s, statistics.median(r['wall_s'] for r in o['rounds'] if r['state'] == s and r['verified']))
    for s in ('small', 'huge', 'before', 'after') if any(r['state'] == s and r['verified'] for r in o['rounds'])))" <<< "$1"; }
# close_to A B: every state's median in A within 0.3 s of B's.
close_to() {
    python3 -c "import sys
a = dict(x.split('=') for x in sys.argv[1].split())
b = dict(x.split('=') for x in sys.argv[2].split())
sys.exit(0 if a.keys() == b.keys() and all(abs(float(a[k]) - float(b[k])) < 0.3 for k in a) else 1)" "$1" "$2" && return 0
    WHY="with slow looks: $1; without: $2 (0.9 s more: the looks were counted)"; return 1
}

for mode in toggle before; do
    echo "# wall_s with slow looks: $mode"
    args=(--measure --pairs 2 --format json)
    [ $mode = before ] && args+=(--before "$E/orig" "$E/lld")
    TOOL=$HOOKED run_tool "${args[@]}" -- "${CMD[@]}"
    assert "$mode, no hook: exits 0" tool_rc 0
    plain=$(medians "$T_OUT")
    t0=$(date +%s.%N)
    ELFTHP_TEST_SLOW_LOOK=300 TOOL=$HOOKED run_tool "${args[@]}" -- "${CMD[@]}"
    t1=$(date +%s.%N)
    assert "$mode, slow looks: exits 0" tool_rc 0
    rounds=$(python3 -c "import json, sys; print(len(json.loads(sys.stdin.read())['rounds']))" <<< "$T_OUT")
    assert "$mode: the hook made the looks slow (at least 1.2 s a round)" equals "elapsed" \
        "$(python3 -c "import sys; print(float(sys.argv[2]) - float(sys.argv[1]) >= 1.2 * int(sys.argv[3]))" "$t0" "$t1" "$rounds")" True
    assert "$mode: wall_s leaves the looks out" close_to "$(medians "$T_OUT")" "$plain"
done
finish
