#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# SPDX-FileCopyrightText: 2026 the elfthp-align authors
# test_json.sh BUILDDIR - one JSON vocabulary for every mode.
#
# Every mode's --format json output, on fixtures, on files that are not
# ELF, and on errors, is validated line by line against docs/schema-1.json
# (tests/integration/json_lines.py, python3-jsonschema): one object per
# line, "schema": 1 and "mode" first, a "status" for every file, errors
# included, byte counts *_bytes, flags unpadded.  Also:
#   - --check, --compat, --warm and --pid end with one summary object on stdout,
#     nothing else (no text) on stdout;
#   - the docs that hold what the man page's JSON OUTPUT, THE REPORT,
#     CHECKING, WARMING, THE HOST, RUNNING PROCESSES and MEASURING said (moved
#     to docs/json.md, geometry.md, check.md, runtime.md, measure.md) name
#     every key the schema has;
#   - a control: a line the schema must refuse is refused;
#   - a failed write to stdout says so and exits 2, in every mode.
. "$(dirname "$0")/lib.sh"
need_builddir "$@"
need_tool

SCHEMA=$REPO_ROOT/docs/schema-1.json
JSONDOCS="$REPO_ROOT/docs/json.md $REPO_ROOT/docs/geometry.md $REPO_ROOT/docs/check.md $REPO_ROOT/docs/runtime.md $REPO_ROOT/docs/measure.md"
# The Python that has jsonschema: the one on PATH, or Debian's.
PY=""
for p in python3 /usr/bin/python3; do
    "$p" -c 'import jsonschema' 2>/dev/null && { PY=$p; break; }
done
if [ -z "$PY" ]; then
    skip "JSON schema" "python3-jsonschema not installed (make deps installs it)"
    finish
fi
fixture_line lld-pie || { skip "JSON schema" "no lld-pie fixture"; finish; }
LLD=$BUILD/$FX_FILE
fixture_line gnu-pie && GNU=$BUILD/$FX_FILE || GNU=$LLD
fixture_line aarch64-pie && ARM=$BUILD/$FX_FILE || ARM=$LLD
printf 'not an ELF file\n' > "$WORK/text"
cp /bin/true "$WORK/hello"    # ELF, no 2 MiB window
cp "$REPO_ROOT/tests/fixtures/big_main.c" "$WORK/source.c"

# valid MODE ARGS...: the tool's stdout validates against the schema, and
# every line is of MODE.
valid() {
    local mode=$1 out; shift
    "$TOOL" "$@" > "$WORK/out.json" 2> "$WORK/err.txt"
    out=$("$PY" "$REPO_ROOT/tests/integration/json_lines.py" "$SCHEMA" "$mode" < "$WORK/out.json" 2>&1) && return 0
    WHY="$out"; return 1
}

# last_is_summary: the last line is the summary object.
last_is_summary() {
    tail -n 1 "$WORK/out.json" | python3 -c 'import json, sys
o = json.loads(sys.stdin.read())
sys.exit(0 if "summary" in o else 1)' && return 0
    WHY="last line: $(tail -n 1 "$WORK/out.json" | cut -c1-200)"; return 1
}

# statuses_are LIST: the "status" of each file line, in order.
statuses_are() {
    local got
    got=$(python3 -c 'import json, sys
print(" ".join(json.loads(l).get("status", "-") for l in sys.stdin if "summary" not in json.loads(l)))' < "$WORK/out.json")
    [ "$got" = "$1" ] && return 0
    WHY="statuses [$got], expected [$1]"; return 1
}

cp "$LLD" "$WORK/rw"
assert "rewrite: valid" valid rewrite --format json "$WORK/rw"
assert "rewrite: status rewritten" statuses_are "rewritten"
assert "rewrite again: valid" valid rewrite --format json "$WORK/rw"
assert "rewrite again: status unchanged" statuses_are "unchanged"
assert "rewrite -o, a missing file, not ELF: valid" valid rewrite --format json -o "$WORK/o" "$LLD"
assert "dry run -v: valid" valid dry-run -n -v --format json "$LLD" "$WORK/text" "$WORK/none"
# Named on the command line, a file that is not ELF is skipped in every
# mode (status not-elf); a missing one is an error.
assert "dry run: statuses" statuses_are "would-rewrite not-elf error"
assert "report: valid" valid report --report --format json "$LLD" "$GNU" "$ARM" "$WORK/text" "$WORK/none"
assert "report: a line for each file, errors too" statuses_are "reported reported reported not-elf error"
assert "report --page-size 64k (geometry rows with errors): valid" valid report --report --page-size 64k --format json "$ARM"
assert "check: valid" valid check --check --format json "$LLD" "$WORK/rw" "$WORK/text" "$WORK/none"
assert "check: statuses" statuses_are "needs-rewrite ready not-elf error"
assert "check: ends with the summary" last_is_summary
assert "check -r with a source file: valid" valid check --check -r --format json "$WORK"
assert "check --page-size 16k (needs-relink): valid" valid check --check --page-size 16k --format json "$LLD"
assert "check --page-size 16k: needs-relink" statuses_are "needs-relink"
assert "compat: valid" valid compat --check --compat --page-size 16k --format json "$LLD" "$ARM" "$WORK/text"
assert "compat: statuses" statuses_are "needs-relink compatible not-elf"
assert "compat: ends with the summary" last_is_summary
# An APK (docs/android.md): a line per native library, the archive's, the
# summary; the aarch64 fixture stored, and deflated.
python3 -c 'import sys, zipfile
z = zipfile.ZipFile(sys.argv[1], "w")
z.write(sys.argv[2], "lib/arm64-v8a/libstored.so")
z.write(sys.argv[2], "lib/arm64-v8a/libdeflated.so", zipfile.ZIP_DEFLATED)
z.writestr("lib/arm64-v8a/libnotelf.so", b"not ELF")' "$WORK/app.apk" "$ARM"
assert "compat on an APK: valid" valid compat --check --compat --page-size 16k --format json "$WORK/app.apk"
assert "compat on an APK: ends with the summary" last_is_summary
assert "warm: valid" valid warm --warm --format json "$WORK/rw" "$LLD" "$WORK/text"
assert "warm: ends with the summary" last_is_summary
assert "warm -n -v (per window, a file with no windows): valid" valid warm --warm -n -v --format json \
    "$WORK/rw" "$LLD" "$WORK/text" "$WORK/hello"
assert "warm -n: statuses" statuses_are "ready needs-rewrite not-elf no-windows"
assert "rewrite --no-warm (no page_cache): valid" valid rewrite --no-warm --format json -o "$WORK/nw" "$LLD"
assert "host: valid" valid host --host --format json "$WORK" /nonexistent-path
sleep 30 & pid=$!
assert "pid: valid" valid pid --pid "$pid" --format json
assert "pid: ends with the summary" last_is_summary
assert "pid all: valid" valid pid --pid all --format json
assert "pid all: ends with the summary" last_is_summary
assert "pid 2 (a kernel thread): valid" valid pid --pid 2 --format json
kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null
# The child exits once its parent has become sleep (exec), which never
# waits; exiting before the exec would let bash reap it.
bash -c '(while [ "$(cat /proc/$$/comm)" = bash ]; do sleep 0.01; done) & exec sleep 30' &
parent=$!
for i in $(seq 1 100); do
    zombie=$(ps -o pid= --ppid "$parent" | tr -d ' ')
    [ -n "$zombie" ] && grep -q '^State:[[:space:]]*Z' "/proc/$zombie/status" 2>/dev/null && break
    sleep 0.05
done
if need "pid of a zombie: valid" "no zombie child appeared" [ -n "$zombie" ]; then
    assert "pid of a zombie: valid" valid pid --pid "$zombie" --format json
fi
kill "$parent" 2>/dev/null; wait "$parent" 2>/dev/null
assert "pid of no process: valid" valid pid --pid 999999999 --format json

# The schema can say no: a padded flag, a count as a string, an unknown key.
refused_by_schema() {
    printf '%s\n' "$1" | "$PY" "$REPO_ROOT/tests/integration/json_lines.py" "$SCHEMA" > /dev/null && {
        WHY="accepted: $1"; return 1; }
    return 0
}
assert "control: the schema refuses padded flags" refused_by_schema \
    '{"schema":1,"mode":"report","file":"x","status":"reported","machine":"x86_64","type":"pie","geometry":"x86_64-4k","pmd_bytes":2097152,"alignment_bytes":2097152,"base_aligned_now":false,"base_aligned_after":true,"segments":[{"index":2,"flags":"R  ","offset":0,"vaddr":0,"filesz_bytes":1,"align_bytes":4096,"verdict":"eligible","windows_now":0,"windows_after":1,"kernel_patch_aligns":false}],"geometries":[]}'
assert "control: the schema refuses the old seed_patch key" refused_by_schema \
    '{"schema":1,"mode":"check","file":"x","status":"ready","findings":[],"findings_total":0,"windows_now":0,"windows_after":0,"seed_patch":true}'
assert "control: the schema refuses a line without a schema" refused_by_schema \
    '{"mode":"check","file":"x","status":"ready","findings":[],"findings_total":0,"windows_now":0,"windows_after":0}'

# The docs name every key of the schema.
jsondoc_names_keys() {
    local k missing=""
    for k in $(python3 -c 'import json, sys
keys = set()
def walk(o):
    if isinstance(o, dict):
        for name, v in o.get("properties", {}).items():
            keys.add(name)
        for v in o.values():
            walk(v)
    elif isinstance(o, list):
        for v in o:
            walk(v)
walk(json.load(open(sys.argv[1])))
print("\n".join(sorted(keys)))' "$SCHEMA"); do
        cat $JSONDOCS | grep -q -- "$k" || missing="$missing $k"
    done
    [ -z "$missing" ] && return 0
    WHY="not in docs/{json,geometry,check,runtime,measure}.md:$missing"; return 1
}
assert "docs/json.md and the mode docs name every JSON key" jsondoc_names_keys

# Output nobody received is a failure, in every mode.
full_fails() {
    local rc
    "$TOOL" "$@" > /dev/full 2> "$WORK/full.err"; rc=$?
    [ "$rc" -eq 2 ] && grep -q "standard output" "$WORK/full.err" && return 0
    WHY="exit $rc, stderr: $(head -2 "$WORK/full.err" | tr '\n' ' ')"; return 1
}
assert "--report >/dev/full: exit 2, said" full_fails --report "$LLD"
assert "--check >/dev/full: exit 2, said" full_fails --check "$LLD"
assert "--check --format json >/dev/full: exit 2, said" full_fails --check --format json "$LLD"
assert "-n >/dev/full: exit 2, said" full_fails -n "$LLD"
assert "--host >/dev/full: exit 2, said" full_fails --host "$WORK"
assert "--help is not the tool's output: --version >/dev/full" full_fails --version

finish
