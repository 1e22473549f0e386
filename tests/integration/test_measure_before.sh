#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# SPDX-FileCopyrightText: 2026 the elfthp-align authors
# test_measure_before.sh BUILDDIR - --measure --before ORIG FILE: rounds of
# the original, bind-mounted over FILE in a private mount namespace,
# against the rewritten FILE, besides the toggle's.
#   - lld-pie (a text walk over > 8 MiB of text) rewritten with -o on
#     ext4: every before round maps ORIG's inode with 0 kB PMD-mapped,
#     every after round FILE's with W x 2 MiB; independently, the command
#     itself (a wrapper that stats the path before it execs it) saw ORIG's
#     inode once per before round (and the uncounted one) and FILE's in
#     every other round; the host's mount table is left as it was; each
#     round and each summary says its comparison; JSON validates, and
#     every null has its reason (control: the check fails on a JSON with a
#     reason taken out);
#   - controls refused with exit 2 and the reason: ORIG is FILE itself, a
#     cp of FILE (the same layout), another program, one byte of its text
#     changed, a directory, a FIFO (refused, not waited on), missing; the
#     two swapped; --before without exactly one FILE;
#   - a command that reaches FILE through another path (a hard link, not
#     covered by the bind mount): its before rounds are not verified (it
#     mapped the rewritten file), exit 2; the toggle's rounds still are;
#   - as nobody (no CAP_SYS_ADMIN for a mount namespace): exit 2, saying so.
# Needs root (a loop-mounted ext4, mount namespaces), x86_64 with 2 MiB PMDs.
. "$(dirname "$0")/lib.sh"
need_builddir "$@"
need_tool

PMD_KB=2048
if [ "$(uname -m)" != x86_64 ] || [ "$(id -u)" -ne 0 ] ||
   [ "$(cat /sys/kernel/mm/transparent_hugepage/hpage_pmd_size 2>/dev/null)" != 2097152 ]; then
    skip "--measure --before" "needs root (loop mounts) on x86_64 with 2 MiB huge pages"
    finish
fi
fixture_line lld-pie || { skip "--measure --before" "fixture lld-pie not built"; finish; }
E=$WORK/ext4
if ! mount_image ext4 "$E"; then
    fail "ext4 image" "$WHY"
    finish
fi
cp "$BUILD/$FX_FILE" "$E/orig"
run_tool --no-warm -o "$E/lld" "$E/orig"
assert "the rewrite of lld-pie exits 0" tool_rc 0 || finish
count_eligible "$E/lld"
NW=$ELIG_W
"$TOOL" -q --warm "$E/lld"
ORIG_INO=$(stat -c %i "$E/orig") FILE_INO=$(stat -c %i "$E/lld")

has_text() { case $T_OUT in *"$1"*) return 0 ;; esac; WHY="no '$1' in: $(tool_said)"; return 1; }
err_has() { case $T_ERR in *"$1"*) return 0 ;; esac; WHY="no '$1' in: $(tool_said)"; return 1; }
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
# nulls_explained [JSON]: every null of the object is a reason field
# itself (null: nothing to explain) or sits in an object whose null_why
# says why.  Prints the unexplained ones.
REASONS='("why", "null_why", "not_available", "toggle_why", "confound")'
nulls_explained() {
    local out
    out=$(python3 -c "import json, sys
bad = []
def walk(v, path):
    if isinstance(v, dict):
        for k, x in v.items():
            if x is None and k not in $REASONS and not v.get('null_why'):
                bad.append(path + '.' + k)
            walk(x, path + '.' + k)
    elif isinstance(v, list):
        for i, x in enumerate(v):
            walk(x, '%s[%d]' % (path, i))
walk(json.loads(sys.stdin.read()), '')
print(' '.join(bad[:5]))
sys.exit(1 if bad else 0)" <<< "${1:-$T_OUT}") && return 0
    WHY="nulls without a reason: $out"; return 1
}
# measure_retry ARGS...: again (3 tries) while the machine's reclaim made
# a pair read differently (a disturbed measurement, never a verdict).
measure_retry() {
    local try
    for try in 1 2 3; do
        run_tool "$@"
        case $T_OUT in *"read different amounts from storage"*) ;; *) return ;; esac
        echo "# retried: a pair disturbed by the machine's reclaim"
    done
}
# no_mount_on PATH: nothing is mounted on PATH in this mount namespace.
no_mount_on() {
    ! awk -v p="$1" '$5 == p { found = 1 } END { exit !found }' /proc/self/mountinfo ||
        { WHY="$1 is a mount point here"; return 1; }
}

echo "# before and after: the original against the rewritten file"
SEEN=$WORK/seen
WRAP=$WORK/wrap.sh
cat > "$WRAP" <<EOF
#!/bin/sh
stat -c %i "$E/lld" >> "$SEEN"
exec "$E/lld"
EOF
chmod 755 "$WRAP"
: > "$SEEN"
measure_retry --measure --pairs 2 --format json --before "$E/orig" "$E/lld" -- "$WRAP"
assert "--before: exits 0" tool_rc 0
assert "JSON: validates against docs/schema-1.json" schema_valid
assert "JSON: every null has its reason" nulls_explained
assert "JSON: both comparisons, 2 valid pairs each" equals "comparisons" \
    "$(json 'print([(c["comparison"], c["pairs_run"], c["pairs_valid"]) for c in o["comparisons"]])')" \
    "[('toggle', 2, 2), ('before-after', 2, 2)]"
assert "before rounds: ORIG mapped, 0 kB PMD-mapped, every one verified" equals "before" \
    "$(json 'print(sorted(set((r["verified"], r["pmd_kB"], r["mapping_processes"], r["toggle"]) for r in o["rounds"] if r["state"] == "before")))')" \
    "[(True, 0, 1, 'none')]"
assert "after rounds: $NW windows PMD-mapped ($((NW * PMD_KB)) kB), verified" equals "after" \
    "$(json 'print(sorted(set((r["verified"], r["pmd_kB"], r["huge_processes"]) for r in o["rounds"] if r["state"] == "after")))')" \
    "[(True, $((NW * PMD_KB)), 1)]"
assert "each round names its comparison" equals "comparison" \
    "$(json 'print(sorted(set((r["comparison"], r["state"]) for r in o["rounds"])))')" \
    "[('before-after', 'after'), ('before-after', 'before'), ('toggle', 'huge'), ('toggle', 'small')]"
assert "each pair: one before and one after round" equals "pairs" \
    "$(json 'print(all(sorted(r["state"] for r in o["rounds"] if r["pair"] == p and r["comparison"] == "before-after") == ["after", "before"] for p in (1, 2)))')" True
assert "the summary: every metric for each comparison" equals "summary" \
    "$(json 'print(sorted(set(s["comparison"] for s in o["summary"])), len(o["summary"]))')" \
    "['before-after', 'toggle'] 20"
NBEFORE=$(json 'print(sum(r["state"] == "before" for r in o["rounds"]))')
assert "independent: the command saw ORIG's inode in $NBEFORE before rounds and the uncounted one" \
    equals "ORIG seen" "$(grep -cx "$ORIG_INO" "$SEEN")" $((NBEFORE + 1))
assert "independent: FILE's inode in every other round" equals "FILE seen" \
    "$(grep -cx "$FILE_INO" "$SEEN")" "$(( $(wc -l < "$SEEN") - NBEFORE - 1 ))"
assert "the host sees no mount on FILE (the bind mount stayed private)" no_mount_on "$E/lld"
if run_pmd "$E/lld" unshare -m --propagation private sh -c \
    "mount --bind '$E/orig' '$E/lld' && exec '$E/lld' \"\$@\"" sh; then
    assert "independent: ORIG bind-mounted over FILE maps 0 kB with PMDs" kb_is "smaps" "$RUN_KB" 0
else
    fail "independent: a run of ORIG bind-mounted over FILE" "$WHY"
fi
doctored=$(json 'r = o["rounds"][0]
r["wall_s"] = r["null_why"] = None
print(json.dumps(o))')
assert_not "control: a null without its reason is caught" nulls_explained "$doctored"

run_tool --measure --pairs 1 --before "$E/orig" "$E/lld" -- "$E/lld"
assert "text: exits 0" tool_rc 0
assert "text: says how the before rounds run" has_text "before, $E/orig bind-mounted over $E/lld in a private mount namespace"
assert "text: the before-after results are headed as such" has_text "comparison before-after: after/before"
assert "text: each line says before and after" has_text "wall_s        before "
assert "text: the valid before-after pairs" has_text "valid pairs, before-after: 1 of 1"

echo "# controls: what is not the original is refused"
run_tool --measure --pairs 1 --before "$E/lld" "$E/lld" -- "$E/lld"
assert "ORIG is FILE itself: exits 2" tool_rc 2
assert "... and says so" err_has "$E/lld: it is $E/lld itself"
cp "$E/lld" "$E/copy"
run_tool --measure --pairs 1 --before "$E/copy" "$E/lld" -- "$E/lld"
assert "ORIG is a cp of FILE: exits 2" tool_rc 2
assert "... the same layout: no before" err_has "$E/copy: it has the same layout as the rewritten file"
fixture_line gnu-pie && cp "$BUILD/$FX_FILE" "$E/other"
run_tool --measure --pairs 1 --before "$E/other" "$E/lld" -- "$E/lld"
assert "ORIG another program: exits 2" tool_rc 2
assert "... not the same program" err_has "$E/other: not the same program"
# One byte of the text changed (its last PT_LOAD's middle): the same
# headers, another program.
python3 - "$E/orig" "$E/patched" <<'PY'
import struct, sys
b = bytearray(open(sys.argv[1], 'rb').read())
phoff, = struct.unpack_from('<Q', b, 32)
phentsize, phnum = struct.unpack_from('<HH', b, 54)
loads = [struct.unpack_from('<IIQQQQQQ', b, phoff + i * phentsize) for i in range(phnum)]
off, filesz = [(l[2], l[5]) for l in loads if l[0] == 1 and l[5] > 0][-1]
b[off + filesz // 2] ^= 0xff
open(sys.argv[2], 'wb').write(b)
PY
chmod 755 "$E/patched"
run_tool --measure --pairs 1 --before "$E/patched" "$E/lld" -- "$E/lld"
assert "ORIG with one byte changed: exits 2" tool_rc 2
assert "... its bytes differ" err_has "$E/patched: not the same program: its bytes at 0x"
run_tool --measure --pairs 1 --before "$E" "$E/lld" -- "$E/lld"
assert "ORIG a directory: exits 2" tool_rc 2
assert "... not a regular file" err_has "$E: not a regular file"
mkfifo "$WORK/fifo"
T_TIMEOUT=20 run_tool --measure --pairs 1 --before "$WORK/fifo" "$E/lld" -- "$E/lld"
assert "ORIG a FIFO: exits 2, not waiting on it" tool_rc 2
assert "... not a regular file" err_has "$WORK/fifo: not a regular file"
run_tool --measure --pairs 1 --before "$E/none" "$E/lld" -- "$E/lld"
assert "ORIG missing: exits 2" tool_rc 2
assert "... and says so" err_has "$E/none: No such file or directory"
run_tool --measure --pairs 1 --before "$E/lld" "$E/orig" -- "$E/orig"
assert "the two swapped (FILE the original): exits 2" tool_rc 2
assert "... FILE must be the rewritten file" err_has "$E/orig: not ready for --measure: its layout is not aligned (--measure never rewrites); run elfthp-align -- $E/orig first (--before ORIG FILE: FILE is the rewritten file)"
run_tool --measure --pairs 1 --before "$E/orig" -- "$E/lld"
assert "--before without FILE: exits 2" tool_rc 2
assert "... and says what it needs" err_has "--before ORIG compares ORIG with one file"

echo "# a command that reaches FILE through another path"
ln "$E/lld" "$E/lld-link"
measure_retry --measure --pairs 2 --format json --before "$E/orig" "$E/lld" -- "$E/lld-link"
assert "hard link: exits 2" tool_rc 2
assert "... no before round verified, the rewritten file named" equals "before" \
    "$(json 'print(sorted(set((r["verified"], r["why"].split(" (")[0]) for r in o["rounds"] if r["state"] == "before")))')" \
    "[(False, 'a process of a before round mapped the rewritten file, not the original')]"
assert "... the toggle's rounds verified" equals "toggle" \
    "$(json 'print(o["pairs_valid"])')" 2
assert "... and it says so" err_has "no before-after pair was verified"
rm -f "$E/lld-link"

echo "# as nobody: no mount namespace"
if command -v setpriv > /dev/null; then
    chmod 755 "$WORK"
    T_OUT=$(setpriv --reuid=65534 --regid=65534 --clear-groups "$TOOL" --measure \
        --pairs 1 --before "$E/orig" "$E/lld" -- "$E/lld" 2> "$WORK/nobody.err"); T_RC=$?
    T_ERR=$(cat "$WORK/nobody.err")
    assert "nobody: exits 2" tool_rc 2
    assert "... unshare refused, and why" err_has "unshare(CLONE_NEWNS): Operation not permitted (a private mount namespace needs CAP_SYS_ADMIN: run as root)"
else
    skip "--before as nobody" "no setpriv"
fi
finish
