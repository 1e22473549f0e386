#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# SPDX-FileCopyrightText: 2026 the elfthp-align authors
# test_measure_ab.sh BUILDDIR - --measure: rounds of the user's command,
# small and huge, each verified from its processes' own smaps.
#   - a rewritten lld-pie on ext4: every round verified; huge rounds map
#     W x 2 MiB of it (readelf's window count, and the same as a run of
#     the program read through /proc/PID/smaps), small rounds 0 kB; the
#     command's output shown for the warm-up only; JSON parses, and a
#     counter is a number only where it could be opened, else null with
#     the reason (never a 0 made up);
#   - the file found in a child (sh -c runs it): the tree is traced;
#   - the negative control, a cp of the unaligned original: no huge
#     state, exit 2, "left out: its layout is not aligned";
#   - the program evicted from the page cache before every counted round
#     (a wrapper does it): no huge round verifies, exit 2, "not counted";
#   - a named FILE the command does not map, a command that fails and a
#     tool whose parent disabled huge pages: exit 2 with the reason.
# Needs root (a loop-mounted ext4), x86_64 with 2 MiB PMDs, cc.
. "$(dirname "$0")/lib.sh"
need_builddir "$@"
need_tool

PMD_KB=2048
if [ "$(uname -m)" != x86_64 ] || [ "$(id -u)" -ne 0 ] ||
   [ "$(cat /sys/kernel/mm/transparent_hugepage/hpage_pmd_size 2>/dev/null)" != 2097152 ]; then
    skip "--measure" "needs root (loop mounts) on x86_64 with 2 MiB huge pages"
    finish
fi
fixture_line lld-pie || { skip "--measure" "fixture lld-pie not built"; finish; }
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
EXPECT_OUT=$("$LLD")
cp "$LLD" "$E/plain"

has_text() { case $T_OUT in *"$1"*) return 0 ;; esac; WHY="no '$1' in: $(tool_said)"; return 1; }
err_has() { case $T_ERR in *"$1"*) return 0 ;; esac; WHY="no '$1' in: $(tool_said)"; return 1; }

# jq-like: python over the one JSON object in $T_OUT.
json() { python3 -c "import json, sys
o = json.loads(sys.stdin.read())
$1" <<< "$T_OUT"; }

echo "# a rewritten program: every round verified"
run_tool --measure --pairs 2 --format json -- "$E/lld"
assert "--measure exits 0" tool_rc 0
schema_valid() {
    local py out
    for py in python3 /usr/bin/python3; do
        "$py" -c 'import jsonschema' 2>/dev/null || continue
        out=$(printf '%s\n' "$T_OUT" | "$py" "$LIB_DIR/json_lines.py" \
            "$REPO_ROOT/docs/schema-1.json" measure 2>&1) && return 0
        WHY=$out; return 1
    done
    WHY="python3-jsonschema not installed (make deps installs it)"; return 2
}
assert "JSON: validates against docs/schema-1.json" schema_valid
assert "JSON: 2 valid pairs" equals "pairs_valid" "$(json 'print(o["pairs_valid"])')" 2
assert "JSON: 4 rounds, all verified" equals "verified" \
    "$(json 'print(sum(r["verified"] for r in o["rounds"]))')" 4
assert "huge rounds map $NW windows ($((NW * PMD_KB)) kB)" equals "huge pmd_kB" \
    "$(json 'print(sorted(set(r["pmd_kB"] for r in o["rounds"] if r["state"] == "huge")))')" \
    "[$((NW * PMD_KB))]"
assert "small rounds map 0 kB with PMDs" equals "small pmd_kB" \
    "$(json 'print(sorted(set(r["pmd_kB"] for r in o["rounds"] if r["state"] == "small")))')" "[0]"
assert "one small and one huge round in each pair" equals "states" \
    "$(json 'print(all(sorted(r["state"] for r in o["rounds"] if r["pair"] == p) == ["huge", "small"] for p in (1, 2)))')" True
assert "a counter is a number only where it could be opened" equals "counters" \
    "$(json 'm = {s["metric"]: s for s in o["summary"]}
print(all((r[k] is None) == (m[k]["not_available"] is not None) for r in o["rounds"] for k in ("itlb_misses", "instructions", "cycles", "dtlb_misses")))')" True
assert "the command's output: the warm-up's only, on stderr in JSON" equals "output" \
    "$T_ERR" "$EXPECT_OUT"
if run_pmd "$E/lld" setarch x86_64 -R "$E/lld"; then
    assert "independent: a run of the program maps the same (smaps)" kb_is "smaps" \
        "$RUN_KB" $((NW * PMD_KB))
else
    fail "independent: a run of the program" "$WHY"
fi
run_tool --measure --pairs 1 -- sh -c "\"$E/lld\" > /dev/null"
assert "in a child of sh: exits 0" tool_rc 0
assert "in a child of sh: the file is found" has_text "file: $E/lld ($((NW * PMD_KB)) kB PMD-mapped when huge)"
assert "in a child of sh: the text says valid pairs" has_text "valid pairs: 1 of 1"

echo "# the negative control: a cp of the unaligned original"
run_tool --measure --pairs 1 -- "$E/plain"
assert "cp: exits 2" tool_rc 2
assert "cp: no file was huge" err_has "no file $E/plain maps was PMD-mapped"
assert "cp: it says why the file was left out" err_has "$E/plain: left out: its layout is not aligned"
run_tool --measure --pairs 1 "$E/plain" -- "$E/plain"
assert "cp, named: exits 2" tool_rc 2
assert "cp, named: refused with the command to run" err_has "run elfthp-align -- $E/plain first"

echo "# evicted before every counted round"
W=$WORK/evict.sh
cat > "$W" <<EOF
#!/bin/sh
n=\$(cat "$WORK/count" 2>/dev/null || echo 0); n=\$((n + 1)); echo \$n > "$WORK/count"
[ \$n -gt 1 ] && python3 -c 'import os, sys
fd = os.open(sys.argv[1], os.O_RDONLY); os.fsync(fd); os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)' "$E/lld"
exec "$E/lld"
EOF
chmod 755 "$W"
"$TOOL" -q --warm "$E/lld"
run_tool --measure --pairs 2 -- "$W"
assert "evicted: exits 2" tool_rc 2
assert "evicted: huge rounds not counted" has_text "not counted: $E/lld: less PMD-mapped than in the warm-up round"
assert "evicted: no pair verified" err_has "no pair of rounds was verified"
"$TOOL" -q --warm "$E/lld"

echo "# refusals"
run_tool --measure --pairs 1 "$E/plain" -- "$E/lld"
assert "a named file the command does not map: exits 2" tool_rc 2
assert "... and says so" err_has "$E/plain: $E/lld does not map it"
run_tool --measure --pairs 1 -- sh -c 'exit 3'
assert "a failing command: exits 2" tool_rc 2
assert "... and says so" err_has "exited with status 3"
run_tool --measure --pairs 1
assert "no command: exits 2" tool_rc 2
if cc -O2 -o "$WORK/thp_off" "$LIB_DIR/thp_off.c"; then
    T_OUT=$("$WORK/thp_off" "$TOOL" --measure --pairs 1 -- "$E/lld" 2> "$WORK/off.err"); T_RC=$?
    T_ERR=$(cat "$WORK/off.err")
    assert "huge pages disabled for the tool: exits 2" tool_rc 2
    assert "... and says so" err_has "cannot measure: huge pages are disabled for this process"
else
    fail "thp_off.c builds" "cc failed"
fi
finish
