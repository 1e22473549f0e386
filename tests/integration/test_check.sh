#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# SPDX-FileCopyrightText: 2026 the elfthp-align authors
# test_check.sh BUILDDIR - the audit mode, elfthp-align --check:
#   - exit status 0 (every file ready: a fixture after a rewrite), 1 (the
#     lld fixture would be changed), 2 (a truncated ELF, a missing file);
#     --check never writes;
#   - text output: one finding a line, "FILE: PT_LOAD n: reason", naming
#     exactly the PT_LOADs that must change (computed here from readelf);
#     then the summary line
#       checked N files: R ready, W need rewriting, L need relinking,
#       A not applicable (M not ELF), E errors
#     on stdout (on stderr with --format json);
#   - --format json: one object a line, parsed with python3, with exactly the
#     keys file, status, findings, windows_now, windows_after; statuses;
#     windows compared with readelf; names that need escaping;
#   - -r on a tree built here (programs, a library, a script, an object file,
#     a symlink to a binary that needs rewriting and a symlink to a
#     directory, neither of which may be followed): the summary counts;
#   - -x: a tmpfs mounted inside the tree is left out with -x, counted
#     without it (skipped only where mounting fails);
#   - -j 1 and -j 4 print byte-identical output, in sorted walk order;
#   - elfthp-align -r DIR rewrites a tree, after which --check -r DIR exits 0
#     and every program still prints what it printed before;
#   - --page-size 64k (and 16k) on small aarch64 programs linked here for
#     4 KiB pages (GNU ld and lld) and for 64 KiB pages: ready, fixable
#     ("fixable: pad", "fixable: raise") or needs-relink ("not fixable:
#     relink with -z max-page-size=..."), each verdict also computed here
#     from readelf; a --page-size 64k rewrite fixes the fixable ones (they
#     then check ready and run the same under qemu-aarch64) and refuses the
#     relink cases with exit 2, leaving the file byte-identical.
. "$(dirname "$0")/lib.sh"
need_builddir "$@"
need_tool


# --- helpers ---------------------------------------------------------------

# summary N R W L A M E: the summary line the tool must print.
summary() {
    local f="files" e="errors"
    [ "$1" -eq 1 ] && f="file"
    [ "$7" -eq 1 ] && e="error"
    echo "checked $1 $f: $2 ready, $3 need rewriting, $4 need relinking, $5 not applicable ($6 not ELF), $7 $e"
}

# summary_is N R W L A M E: the last line of stdout is that summary (text).
summary_is() {
    local want got
    want=$(summary "$@")
    got=$(printf '%s\n' "$T_OUT" | tail -n 1)
    [ "$got" = "$want" ] && return 0
    WHY="summary: got [$got], want [$want] ($(tool_said))"; return 1
}

# json_summary_is N R W L A M E: with --format json the summary is the last
# JSON line on stdout (json_ok reads it), and no text summary anywhere.
json_summary_is() {
    local want got
    want="$1 $2 $3 $4 $5 $6 $7"
    got=$(python3 -c 'import json, sys
s = json.load(open(sys.argv[1]))
print(s.get("files"), s.get("ready"), s.get("needs_rewrite"), s.get("needs_relink"),
      s.get("not_applicable", 0) + s.get("not_elf", 0), s.get("not_elf"), s.get("error"))' "$WORK/json.summary" 2>&1)
    if [ "$got" != "$want" ]; then
        WHY="summary: got [$got], want [$want]"; return 1
    fi
    if printf '%s\n%s\n' "$T_OUT" "$T_ERR" | grep -q '^checked '; then
        WHY="a text summary too: [$T_OUT] [$T_ERR]"; return 1
    fi
    return 0
}

# exits_with N ARGS...: the tool, run with ARGS, exits N.
exits_with() {
    local want=$1; shift
    run_tool "$@"
    tool_rc "$want"
}

# findings_of FILE: the text-mode finding lines for FILE, "FILE: " removed
# (not the "FILE: fix: ..." lines that follow them).
findings_of() {
    printf '%s\n' "$T_OUT" | awk -v p="$1: " \
        'index($0, p) == 1 && index($0, p "fix: ") != 1 { print substr($0, length(p) + 1) }'
}

# text_format_ok: every stdout line but the last is "NAME: PT_LOAD n: ..."
# or "NAME: fix: ..." for one of the files named on the command line; the
# last is the summary.
text_format_ok() {
    local n bad
    n=$(printf '%s\n' "$T_OUT" | wc -l)
    bad=$(printf '%s\n' "$T_OUT" | head -n $((n - 1)) |
          grep -Ev '^[^:]+: (PT_LOAD [0-9]+|fix): .+$')
    if [ -n "$bad" ]; then
        WHY="lines not in the form 'FILE: PT_LOAD n: reason': [$bad]"; return 1
    fi
    printf '%s\n' "$T_OUT" | tail -n 1 | grep -q '^checked [0-9]* files*: ' ||
        { WHY="last line is not the summary: $(tool_said)"; return 1; }
    return 0
}

# eligible_loads FILE: indices of PT_LOADs without W holding a full 2 MiB
# window (the ones a rewrite changes), one line, sorted.
eligible_loads() {
    local i t o v p fs ms fl al
    while read -r i t o v p fs ms fl al; do
        [ "$t" = LOAD ] || continue
        case $fl in *W*) continue ;; esac
        [ "$(windows "$v" "$fs" "$TARGET")" -gt 0 ] && echo "$i"
    done < <(elf_phdrs "$1") | sort -n | paste -sd' '
}

# finding_loads_ok FILE: the PT_LOAD indices named by FILE's findings are
# exactly the eligible ones, and each is a PT_LOAD in readelf.
finding_loads_ok() {
    local got want loads i
    got=$(findings_of "$1" | sed -n 's/^PT_LOAD \([0-9]*\): .*/\1/p' | sort -nu | paste -sd' ')
    want=$(eligible_loads "$1")
    loads=" $(elf_phdrs "$1" | awk '$2 == "LOAD" { print $1 }' | paste -sd' ') "
    for i in $got; do
        case $loads in *" $i "*) ;; *)
            WHY="finding names PT_LOAD $i, which is not a PT_LOAD (LOADs:$loads)"; return 1 ;;
        esac
    done
    [ -n "$want" ] || { WHY="$1 has no eligible PT_LOAD (readelf failed?)"; return 1; }
    equals "PT_LOADs named in findings for $1" "$got" "$want"
}

# JSON: a python3 helper validates every stdout line and prints, one line an
# object, "status<TAB>windows_now<TAB>windows_after<TAB>nfindings<TAB>file";
# findings go to $WORK/json.findings as "file<TAB>finding".
cat > "$WORK/jsonl.py" <<'EOF'
import json, sys
# Schema 1 (docs/json.md, JSON OUTPUT): a file line, a line for a file that
# ended otherwise, and the closing summary, last.
KEYS = {"schema", "mode", "file", "status", "findings", "findings_total",
        "windows_now", "windows_after", "takers"}
OTHER = {"schema", "mode", "file", "status", "message"}
STATUS = {"ready", "needs-rewrite", "needs-relink", "not-done"}
OTHER_STATUS = {"not-applicable", "not-elf", "error"}
bad = []
rows = []
found = []
data = open(sys.argv[1], "rb").read()
lines = data.split(b"\n")
if lines and lines[-1] == b"":
    lines.pop()
elif data:
    bad.append("output does not end with a newline")
summary = None
for n, raw in enumerate(lines, 1):
    try:
        o = json.loads(raw.decode("utf-8"))
    except Exception as e:
        bad.append("line %d is not JSON (%s): %r" % (n, e, raw[:120]))
        continue
    if not isinstance(o, dict):
        bad.append("line %d is not an object" % n)
        continue
    if o.get("schema") != 1 or o.get("mode") != "check":
        bad.append("line %d: schema %r mode %r" % (n, o.get("schema"), o.get("mode")))
    if "summary" in o:
        if n != len(lines):
            bad.append("line %d: a summary before the last line" % n)
        summary = o["summary"]
        continue
    if set(o) == OTHER:
        if o["status"] not in OTHER_STATUS:
            bad.append("line %d: status %r" % (n, o["status"]))
        rows.append("%s\t0\t0\t0\t%s" % (o["status"], o["file"]))
        found.append("%s\t%s" % (o["file"], o["message"]))
        continue
    if set(o) != KEYS:
        bad.append("line %d keys %s, want %s" % (n, sorted(o), sorted(KEYS)))
        continue
    if not isinstance(o["file"], str):
        bad.append("line %d: file is not a string" % n)
    if o["status"] not in STATUS:
        bad.append("line %d: status %r" % (n, o["status"]))
    if not isinstance(o["findings"], list) or not all(
            isinstance(f, dict) and set(f) <= {"segment", "other_segment", "code", "message", "fix"}
            and isinstance(f.get("message"), str) and f["message"]
            and isinstance(f.get("fix"), str) and f["fix"]
            for f in o["findings"]):
        bad.append("line %d: findings are not {segment, code, message, fix}" % n)
        continue
    for k in ("windows_now", "windows_after", "findings_total"):
        if type(o[k]) is not int or o[k] < 0:
            bad.append("line %d: %s is %r" % (n, k, o[k]))
    rows.append("%s\t%s\t%s\t%d\t%s" % (o["status"], o["windows_now"],
        o["windows_after"], len(o["findings"]), o["file"]))
    for f in o["findings"]:
        found.append("%s\t%s" % (o["file"], f["message"]))
if lines and summary is None:
    bad.append("no summary line at the end")
with open(sys.argv[2], "w") as fo:
    fo.write("".join(f + "\n" for f in found))
with open(sys.argv[3], "w") as fo:
    fo.write(json.dumps(summary or {}))
if bad:
    sys.stderr.write("; ".join(bad[:4]) + "\n")
    sys.exit(1)
sys.stdout.write("".join(r + "\n" for r in rows))
EOF

# json_ok: T_OUT (from run_tool) is valid JSON lines; sets JT (the table).
# utf8_lossless FILE DIR: FILE decodes as strict UTF-8 (Python's codec
# refuses overlong forms, surrogates and code points past U+10FFFF), parses
# as JSON lines, and each file name in it, encoded back with
# os.fsencode (the \udcXX surrogate escapes become their bytes), is the
# byte name of a file in DIR, each a different one, all of them named.
utf8_lossless() {
    printf '%s\n' "$T_OUT" > "$1"
    WHY=$(python3 -c 'import json, os, sys
t = open(sys.argv[1], "rb").read().decode("utf-8")
names = [json.loads(l)["file"] for l in t.splitlines()
         if l and "summary" not in json.loads(l)]
got = sorted(os.path.basename(os.fsencode(n)) for n in names)
want = sorted(os.listdir(os.fsencode(sys.argv[2])))
if got != want:
    print("names %r, files %r" % (got, want))' "$1" "$2" 2>&1) && [ -z "$WHY" ] && return 0
    WHY="not lossless: ${WHY:-?} $(printf '%s' "$T_OUT" | head -c 200)"; return 1
}

json_ok() {
    local err
    printf '%s\n' "$T_OUT" > "$WORK/json.out"
    [ -z "$T_OUT" ] && : > "$WORK/json.out"
    if ! JT=$(python3 "$WORK/jsonl.py" "$WORK/json.out" "$WORK/json.findings" "$WORK/json.summary" 2> "$WORK/json.err"); then
        WHY="invalid JSON output: $(cat "$WORK/json.err")"; return 1
    fi
    return 0
}

# json_col N: column N of JT (1 status, 2 now, 3 after, 4 nfindings, 5 file),
# one line, space-separated.
json_col() { printf '%s\n' "$JT" | cut -f"$1" | paste -sd' '; }

# json_row FILE: "status now after nfindings" for FILE.
json_row() {
    printf '%s\n' "$JT" | awk -F'\t' -v f="$1" '$5 == f { print $1, $2, $3, $4 }'
}

# json_findings FILE: FILE's findings, one a line.
json_findings() {
    awk -F'\t' -v f="$1" '$1 == f { print substr($0, length(f) + 2) }' "$WORK/json.findings"
}

# has_line TEXT REGEX: some line of TEXT matches REGEX (grep -E).
has_line() {
    printf '%s\n' "$1" | grep -Eq -- "$2" && return 0
    WHY="no line matches /$2/ in [$1]"; return 1
}

# no_line TEXT REGEX: no line of TEXT matches REGEX.
no_line() {
    local m; m=$(printf '%s\n' "$1" | grep -E -- "$2")
    [ -z "$m" ] && return 0
    WHY="unexpected line(s) matching /$2/: [$m]"; return 1
}

# each_tagged TEXT TAG IDX...: for each IDX a line "PT_LOAD IDX: ...TAG...".
each_tagged() {
    local text=$1 tag=$2 i missing=""; shift 2
    for i in "$@"; do
        printf '%s\n' "$text" | grep -Eq -- "^PT_LOAD $i: .*$tag" || missing="$missing $i"
    done
    [ -z "$missing" ] && return 0
    WHY="no '$tag' finding for PT_LOAD$missing in [$text]"; return 1
}

# is_ready FILE: --check FILE exits 0 (used with assert_not).
is_ready() {
    run_tool --check "$1"
    [ "$T_RC" -eq 0 ] && return 0
    WHY="--check $1: $(tool_said)"; return 1
}

# --- what the tests need ----------------------------------------------------

fx() { fixture_line "$1" && [ -f "$BUILD/$FX_FILE" ]; }
HAVE_GNU=no HAVE_LLD=no
fx gnu-pie && HAVE_GNU=yes && GNU=$BUILD/$FX_FILE
fx lld-pie && HAVE_LLD=yes && LLD=$BUILD/$FX_FILE

# Small x86_64 programs of our own: ready as they are (no 2 MiB window).
SRC=$WORK/src
mkdir -p "$SRC"
cat > "$SRC/hello.c" <<'EOF'
#include <stdio.h>
int main(void) { puts("hello from a small program"); return 0; }
EOF
cat > "$SRC/lib.c" <<'EOF'
int small_lib_answer(void) { return 42; }
EOF
printf '#!/bin/sh\necho a shell script\n' > "$SRC/script.sh"
chmod 755 "$SRC/script.sh"
HAVE_CC=no
if gcc -O2 -o "$SRC/hello" "$SRC/hello.c" 2> "$WORK/cc.log" &&
   gcc -O2 -no-pie -o "$SRC/hello-nopie" "$SRC/hello.c" 2>> "$WORK/cc.log" &&
   gcc -O2 -fPIC -shared -o "$SRC/libsmall.so" "$SRC/lib.c" 2>> "$WORK/cc.log" &&
   gcc -O2 -c -o "$SRC/hello.o" "$SRC/hello.c" 2>> "$WORK/cc.log"; then
    HAVE_CC=yes
else
    skip "small x86_64 programs" "gcc failed: $(head -3 "$WORK/cc.log" | tr '\n' ' ')"
fi

if [ $HAVE_GNU = no ] || [ $HAVE_LLD = no ] || [ $HAVE_CC = no ]; then
    skip "x86_64 --check tests" "need fixtures gnu-pie and lld-pie and gcc"
else
# Pool of copies; the trees below copy these (a hard link to the pool
# would be a name outside the tree: not done, test_links.sh).
POOL=$WORK/pool
mkdir -p "$POOL"
cp "$GNU" "$POOL/gnu-needs"          # needs rewriting: p_align only
cp "$LLD" "$POOL/lld-needs"          # needs rewriting: the text moves
cp "$GNU" "$POOL/gnu-ready"
run_tool -q "$POOL/gnu-ready"
assert "setup: rewrite of a gnu-pie copy exits 0" tool_rc 0
head -c 65536 "$LLD" > "$POOL/trunc"  # ELF header intact, the rest cut off
head -c 40 "$LLD" > "$POOL/trunc-header"

# ------------------------------------------------------------------------
echo "# exit status"

R=$POOL/gnu-ready N=$POOL/lld-needs
id_n=$(file_id "$N")

assert "ready file (gnu-pie after a rewrite): exit 0" exits_with 0 --check "$R"
assert "ready file: summary 1 ready" summary_is 1 1 0 0 0 0 0
assert "ready file: no finding printed" equals "stdout" "$T_OUT" "$(summary 1 1 0 0 0 0 0)"
assert "ready file: nothing on stderr" equals "stderr" "$T_ERR" ""
assert_not "the check catches gnu-pie before its rewrite" is_ready "$POOL/gnu-needs"
assert_not "the check catches the lld fixture" is_ready "$POOL/lld-needs"

assert "lld fixture: exit 1" exits_with 1 --check "$N"
assert "lld fixture: summary 1 needs rewriting" summary_is 1 0 1 0 0 0 0
assert "lld fixture: findings are 'FILE: PT_LOAD n: reason'" text_format_ok
assert "lld fixture: findings name exactly the PT_LOADs to change" finding_loads_ok "$N"
assert "--check did not touch the lld fixture (inode, mtime, size)" same_id "$N" "$id_n"
assert "--check did not change the lld fixture's bytes" same_file "$LLD" "$N"

run_tool --check "$POOL/gnu-needs"
assert "gnu-pie fixture: findings name exactly the PT_LOADs to change" \
    finding_loads_ok "$POOL/gnu-needs"

assert "truncated ELF: exit 2" exits_with 2 --check "$POOL/trunc"
assert "truncated ELF: message names the file" tool_err_names "$POOL/trunc"
assert "truncated ELF: summary 1 error" summary_is 1 0 0 0 0 0 1
assert "truncated ELF header: exit 2" exits_with 2 --check "$POOL/trunc-header"
assert "missing file: exit 2" exits_with 2 --check "$WORK/no-such-file"
assert "missing file: message names it" tool_err_names "$WORK/no-such-file"

assert "ready + needs rewriting: exit 1" exits_with 1 --check "$R" "$N"
assert "ready + needs rewriting: summary" summary_is 2 1 1 0 0 0 0
assert "ready + needs rewriting + truncated: exit 2" exits_with 2 --check "$R" "$POOL/trunc" "$N"
assert "... the file after the bad one is still checked" \
    has_line "$T_OUT" "^$N: PT_LOAD [0-9]+: "
assert "... summary counts all three" summary_is 3 1 1 0 0 0 1
assert "-q: exit 1 for the lld fixture" exits_with 1 --check -q "$N" "$R"
assert "-q: findings of the file that needs rewriting still printed" \
    has_line "$T_OUT" "^$N: PT_LOAD [0-9]+: "
assert "-q: nothing about the ready file" no_line "$T_OUT" "^$R:"

assert "named script: not applicable, exit 0" exits_with 0 --check "$SRC/script.sh"
assert "named script: a line says why" has_line "$T_OUT" "^$SRC/script.sh: .+"
assert "named script: summary 1 not applicable (1 not ELF)" summary_is 1 0 0 0 1 1 0
assert "named object file (ET_REL): not applicable, exit 0" exits_with 0 --check "$SRC/hello.o"
assert "named object file: a line says why" has_line "$T_OUT" "^$SRC/hello.o: .+"
assert "named object file: summary 1 not applicable (0 not ELF)" summary_is 1 0 0 0 1 0 0

# ------------------------------------------------------------------------
echo "# --format json"

run_tool --check --format json "$R" "$N" "$SRC/hello.o" "$SRC/script.sh" "$POOL/trunc"
assert "json: exit 2 (one error among them)" tool_rc 2
assert "json: every line parses, exact key set, known statuses" json_ok
assert "json: one line per file, in argument order" equals "files" "$(json_col 5)" \
    "$R $N $SRC/hello.o $SRC/script.sh $POOL/trunc"
assert "json: statuses" equals "statuses" "$(json_col 1)" \
    "ready needs-rewrite not-applicable not-elf error"
assert "json: the summary is the last JSON line, no text" json_summary_is 5 1 1 0 2 1 1
count_eligible "$R"
assert "json: rewritten gnu-pie has windows_now = windows_after = readelf's count" \
    equals "$R" "$(json_row "$R")" "ready $ELIG_W $ELIG_W 0"
assert "json: error line has a reason" has_line "$(json_findings "$POOL/trunc")" '.'
cp "$LLD" "$WORK/lld-after"
run_tool -q "$WORK/lld-after"
count_eligible "$WORK/lld-after"
assert "json: lld fixture: windows_now 0, windows_after = windows after a rewrite" \
    equals "$N" "$(json_row "$N" | cut -d' ' -f1-3)" "needs-rewrite 0 $ELIG_W"
jf=$(json_findings "$N")
run_tool --check "$N"
assert "json findings = text findings (without the file name)" equals "findings" \
    "$jf" "$(findings_of "$N")"
rm -f "$WORK/lld-after"

# Names that need escaping.
mkdir -p "$WORK/names"
cp "$SRC/hello" "$WORK/names/q\"uote\\back"
cp "$SRC/hello" "$WORK/names/new
line"
run_tool --check -r --format json "$WORK/names"
assert "json: names with a quote, backslash and newline parse" json_ok
assert "json: ... and come back as the same names" equals "files" \
    "$(python3 -c 'import json,sys
for l in open(sys.argv[1]):
    if "summary" not in json.loads(l): print(ascii(json.loads(l)["file"]))' "$WORK/json.out" 2>&1 | paste -sd' ')" \
    "$(python3 -c 'import sys; print(ascii(sys.argv[1]), ascii(sys.argv[2]))' "$WORK/names/new
line" "$WORK/names/q\"uote\\back")"
rm -rf "$WORK/names"
# A name that is not UTF-8: the line must still be JSON (RFC 8259: UTF-8).
mkdir -p "$WORK/names8"
cp "$SRC/hello" "$WORK/names8/$(printf 'latin1-\351t\351')"
run_tool --check -r --format json "$WORK/names8"
assert "json: a file name that is not UTF-8 still gives a valid JSON line" json_ok
rm -rf "$WORK/names8"
# Strict UTF-8 (RFC 3629): overlong forms, surrogates and code points past
# U+10FFFF are not UTF-8 either; each of their bytes becomes \udcXX, and the
# name comes back byte for byte.
for bad in 'overlong2-\300\257' 'overlong3-\340\200\257' 'overlong4-\360\200\200\257' \
           'surrogate-\355\240\200' 'past-10ffff-\364\220\200\200' 'valid-\303\251-and-\351'; do
    mkdir -p "$WORK/names8"
    cp "$SRC/hello" "$WORK/names8/$(printf "$bad")"
    run_tool --check -r --format json "$WORK/names8"
    assert "json: ${bad%%-*} in a file name: strict UTF-8 out, the name's bytes kept" \
        utf8_lossless "$WORK/json.out" "$WORK/names8"
    rm -rf "$WORK/names8"
done
# Two files whose names differ only in a byte that is not UTF-8 (0xe9 and
# 0xea): two names in JSON (U+FFFD made them one), each the right file's.
mkdir -p "$WORK/names8"
cp "$SRC/hello" "$WORK/names8/$(printf 'x\351')"
cp "$SRC/hello" "$WORK/names8/$(printf 'x\352')"
run_tool --check -r --format json "$WORK/names8"
assert "json: two names differing in one invalid byte: two JSON names, bytes kept" \
    utf8_lossless "$WORK/json.out" "$WORK/names8"
assert "json: ... written as the \\udcXX surrogate escape" equals "escapes" \
    "$(printf '%s\n' "$T_OUT" | grep -o 'x\\udce[9a]' | sort -u | paste -sd' ')" 'x\udce9 x\udcea'
rm -rf "$WORK/names8"

# ------------------------------------------------------------------------
echo "# verdicts that once misled (tests/hostile/gen-cost.py)"
MSG=$WORK/messages
python3 "$REPO_ROOT/tests/hostile/gen-cost.py" "$MSG" >/dev/null
run_tool --check "$MSG/pinned-text"
assert "pinned text: --check exits 1" tool_rc 1
case $T_OUT in
    *"PT_LOAD 0: holds a full window and the ELF and program headers, which cannot move"*"relink"*)
        pass "pinned text: the finding says why (pinned) and what helps (relink)" ;;
    *) fail "pinned text: the finding says why (pinned) and what helps (relink)" "$(tool_said)" ;;
esac
run_tool --check --format json "$MSG/pinned-text"
assert "pinned text: status needs-relink" equals "status" \
    "$(printf '%s\n' "$T_OUT" | python3 -c 'import json,sys; print(json.loads(sys.stdin.readline())["status"])')" needs-relink
run_tool -n "$MSG/pinned-text"
case $T_OUT in
    *"PT_LOAD 0 holds a full 2.0MiB window, but also the ELF and program headers"*) pass "pinned text: -n names the pinned segment" ;;
    *) fail "pinned text: -n names the pinned segment" "$(tool_said)" ;;
esac
run_tool --check "$MSG/align-unmet-first"
assert "unmet p_align, nothing to change: --check exits 0" tool_rc 0
case $T_OUT in
    *"PT_LOAD"*) fail "a ready file prints no findings" "$(tool_said)" ;;
    *) pass "a ready file prints no findings" ;;
esac
run_tool --report -v "$MSG/split-64k"
assert "one geometry unplanned: --report still exits 0" tool_rc 0
case $T_OUT in
    *"x86_64-4k "*[0-9]*"arm64-64k "*"no plan: section 1 spans PT_LOADs that must move apart"*)
        pass "one geometry unplanned: its row says why, the others are there" ;;
    *) fail "one geometry unplanned: its row says why, the others are there" "$(tool_said)" ;;
esac
run_tool --report -v --format json "$MSG/split-64k"
assert "one geometry unplanned: JSON marks it with an error, the rest as usual" equals "geometries" \
    "$(printf '%s\n' "$T_OUT" | python3 -c 'import json,sys
o = json.loads(sys.stdin.readline())
print(" ".join(g["name"] + ":" + ("error" if "error" in g else str(g["translations_after"])) for g in o["geometries"]))')" \
    "x86_64-4k:513 arm64-4k:48 arm64-16k:error arm64-64k:error"

# ------------------------------------------------------------------------
echo "# -r: summary counts on a tree"

T=$WORK/tree OUTSIDE=$WORK/outside
mkdir -p "$T/bin" "$T/lib" "$T/share/doc" "$OUTSIDE"
cp "$SRC/hello" "$T/bin/hello"                       # ready
cp "$SRC/hello-nopie" "$T/bin/hello-nopie"           # ready (ET_EXEC)
cp "$SRC/libsmall.so" "$T/lib/libsmall.so"           # ready (shared library)
cp "$POOL/gnu-ready" "$T/bin/big-ready"              # ready
cp "$POOL/lld-needs" "$T/bin/big-needs"              # needs rewriting
cp "$SRC/script.sh" "$T/bin/script.sh"               # not ELF
echo "some text" > "$T/share/doc/README"             # not ELF
: > "$T/share/empty"                                 # not ELF
cp "$SRC/hello.o" "$T/lib/hello.o"                   # not applicable (ET_REL)
# Links inside the tree: never followed.  Outside: one binary that needs
# rewriting, one truncated (an error), one ready.
cp "$POOL/gnu-needs" "$OUTSIDE/needs"
cp "$POOL/trunc" "$OUTSIDE/trunc"
cp "$SRC/hello" "$OUTSIDE/hello"
ln -s "$OUTSIDE/needs" "$T/bin/link-to-needs"
ln -s "$OUTSIDE" "$T/link-to-dir"
ln -s ../bin "$T/lib/relative-dir-link"
id_out=$(file_id "$OUTSIDE/needs")

run_tool --check -r "$T"
assert "tree: exit 1 (one file needs rewriting)" tool_rc 1
assert "tree: summary counts (links not followed)" summary_is 9 4 1 0 4 3 0
assert "tree: findings only for the file that needs rewriting" equals "files with findings" \
    "$(printf '%s\n' "$T_OUT" | sed -n 's/^\([^:]*\): PT_LOAD.*/\1/p' | sort -u | paste -sd' ')" \
    "$T/bin/big-needs"
assert "tree: walked non-ELF files are silent" no_line "$T_OUT" "script.sh|README|empty|hello\.o"
assert "tree: nothing on stderr" equals "stderr" "$T_ERR" ""
assert "tree: the link target outside was not checked" no_line "$T_OUT" "outside|link-to"
run_tool --check -r --format json "$T"
assert "tree json: valid" json_ok
assert "tree json: a line for each program and library only, sorted" equals "files" \
    "$(json_col 5)" "$T/bin/big-needs $T/bin/big-ready $T/bin/hello $T/bin/hello-nopie $T/lib/libsmall.so"
assert "tree json: the summary is the last JSON line" json_summary_is 9 4 1 0 4 3 0
run_tool --check -r --format json "$T/"
assert "tree given as DIR/: names have no //" equals "files" \
    "$(json_col 5)" "$T/bin/big-needs $T/bin/big-ready $T/bin/hello $T/bin/hello-nopie $T/lib/libsmall.so"
# The same links named on the command line are followed (they are arguments).
assert "a symlink argument is checked (exit 1)" exits_with 1 --check "$T/bin/link-to-needs"
assert "a symlink-to-directory argument is walked with -r (exit 2: it holds the truncated file)" \
    exits_with 2 --check -r "$T/link-to-dir"
assert "... summary counts the directory's files" summary_is 3 1 1 0 0 0 1
assert "--check -r wrote nothing" same_id "$OUTSIDE/needs" "$id_out"

# ------------------------------------------------------------------------
echo "# -x: stay on one file system"

X=$WORK/xtree
mkdir -p "$X/sub" "$X/mnt"
cp "$SRC/hello" "$X/a"
cp "$LLD" "$X/sub/big"          # a copy: -r -x rewrites it (no hard links)
if [ "$(id -u)" -ne 0 ]; then
    skip "-x tests" "mounting a tmpfs needs root"
elif ! err=$(mount -t tmpfs -o size=64m tmpfs "$X/mnt" 2>&1); then
    skip "-x tests" "cannot mount a tmpfs: $err"
else
    MOUNTS="$X/mnt $MOUNTS"
    mkdir -p "$X/mnt/deeper"
    cp "$SRC/hello" "$X/mnt/m1"
    cp "$SRC/hello-nopie" "$X/mnt/deeper/m2"
    cp "$GNU" "$X/mnt/mbig"                            # needs rewriting
    id_m=$(file_id "$X/mnt/mbig")
    run_tool --check -r "$X"
    assert "without -x: exit 1" tool_rc 1
    assert "without -x: files on the tmpfs are counted" summary_is 5 3 2 0 0 0 0
    assert "without -x: the tmpfs file's findings are printed" has_line "$T_OUT" "^$X/mnt/mbig: PT_LOAD"
    run_tool --check -r -x "$X"
    assert "-x: exit 1" tool_rc 1
    assert "-x: files on the tmpfs are not counted" summary_is 2 1 1 0 0 0 0
    assert "-x: nothing under the mount is printed" no_line "$T_OUT" "/mnt/"
    run_tool --check -r -x "$X" "$X/mnt"
    assert "-x with the mount as a second argument: its files are counted" summary_is 5 3 2 0 0 0 0
    run_tool -r -x -q "$X"
    assert "rewrite -r -x: exit 0" tool_rc 0
    assert "rewrite -r -x: the file on the tmpfs was not touched" same_id "$X/mnt/mbig" "$id_m"
    assert "rewrite -r -x: afterwards --check -r -x exits 0" exits_with 0 --check -r -x "$X"
    assert "rewrite -r -x: the tmpfs file still needs rewriting (--check -r exits 1)" \
        exits_with 1 --check -r "$X"
    unmount "$X/mnt"
fi

# ------------------------------------------------------------------------
echo "# -j: output does not depend on the number of workers"

J=$WORK/jtree
mkdir -p "$J/a/b/c" "$J/a-b" "$J/B" "$J/z/y"
for i in 00 01 02 03 04 05 06 07 08 09 10 11 12 13; do
    cp "$SRC/hello" "$J/a/p$i"
done
for n in x1 x2 x3 x4; do cp "$SRC/hello-nopie" "$J/a/b/$n"; done
cp "$SRC/libsmall.so" "$J/a/b/c/libsmall.so"
cp "$SRC/libsmall.so" "$J/a-b/libsmall.so.1"
cp "$SRC/hello" "$J/a.b"
cp "$SRC/hello" "$J/a_b"
cp "$SRC/script.sh" "$J/a/script.sh"
cp "$SRC/hello.o" "$J/z/hello.o"
echo text > "$J/z/y/text"
cp "$POOL/lld-needs" "$J/B/big-lld"
cp "$POOL/gnu-needs" "$J/a/b/big-gnu"
cp "$POOL/gnu-ready" "$J/z/big-ready"
cp "$POOL/trunc" "$J/a/b/c/trunc"
cp "$POOL/trunc-header" "$J/z/y/trunc-header"
ln -s "$OUTSIDE" "$J/z/link"
nj=$(find "$J" -type f | wc -l)
[ "$nj" -ge 30 ] && pass "-j tree has $nj files" || fail "-j tree has >= 30 files" "$nj"

jrun() {   # jrun TAG ARGS...: outputs to $WORK/j.TAG.{out,err,rc}
    local tag=$1; shift
    timeout 120 "$TOOL" "$@" > "$WORK/j.$tag.out" 2> "$WORK/j.$tag.err" < /dev/null
    echo $? > "$WORK/j.$tag.rc"
}
jrun 1 --check -r -j 1 "$J"
for k in 4a 4b 4c; do jrun "$k" --check -r -j 4 "$J"; done
jrun 16 --check -r -j 16 "$J"
jrun j1 --check -r -j 1 --format json "$J"
jrun j4 --check -r -j 4 --format json "$J"
assert "-j 1: exit 2 (two truncated files)" equals "rc" "$(cat "$WORK/j.1.rc")" 2
assert "-j 1: summary" equals "summary" "$(tail -n 1 "$WORK/j.1.out")" "$(summary 30 23 2 0 3 2 2)"
for k in 4a 4b 4c 16; do
    assert "-j ${k%[abc]} (run $k): stdout identical to -j 1" same_file "$WORK/j.1.out" "$WORK/j.$k.out"
    assert "-j ${k%[abc]} (run $k): stderr identical to -j 1" same_file "$WORK/j.1.err" "$WORK/j.$k.err"
    assert "-j ${k%[abc]} (run $k): same exit status" equals "rc" "$(cat "$WORK/j.$k.rc")" 2
done
assert "-j 4 json: stdout identical to -j 1" same_file "$WORK/j.j1.out" "$WORK/j.j4.out"
assert "-j 4 json: stderr identical to -j 1" same_file "$WORK/j.j1.err" "$WORK/j.j4.err"
T_OUT=$(cat "$WORK/j.j4.out")
assert "-j json: valid" json_ok
# Sorted walk order, computed here: names sorted bytewise in each directory,
# links not followed, programs, libraries and errors (ET_EXEC/ET_DYN) only.
want_order=$(python3 - "$J" <<'EOF'
import os, stat, sys
def walk(d):
    for name in sorted(os.listdir(d.encode())):
        p = os.path.join(d.encode(), name)
        st = os.lstat(p)
        if stat.S_ISDIR(st.st_mode):
            yield from walk(p.decode())
        elif stat.S_ISREG(st.st_mode):
            h = open(p, "rb").read(18)
            if h[:4] == b"\x7fELF" and len(h) >= 18 and h[16] in (2, 3):
                yield p.decode()
print(" ".join(walk(sys.argv[1])))
EOF
)
assert "-j json: files in sorted walk order" equals "order" "$(json_col 5)" "$want_order"
want_text=$(grep -h '' "$WORK/j.1.err" | sed -n 's/^elfthp-align: \([^:]*\): .*/\1/p' | paste -sd' ')
assert "-j: error messages in walk order" equals "errors" "$want_text" "$J/a/b/c/trunc $J/z/y/trunc-header"

# ------------------------------------------------------------------------
echo "# -r rewrite, then --check -r"

W=$WORK/rtree
mkdir -p "$W/bin" "$W/lib" "$W/obj" "$W/arm" "$WORK/routside"
cp "$LLD" "$W/bin/lld-pie"
cp "$GNU" "$W/bin/gnu-pie"
RUN_LIST="bin/lld-pie:$LLD bin/gnu-pie:$GNU"
if fx gnu-nopie; then
    cp "$BUILD/$FX_FILE" "$W/bin/gnu-nopie"
    RUN_LIST="$RUN_LIST bin/gnu-nopie:$BUILD/$FX_FILE"
else
    skip "bin/gnu-nopie runs with the same output after the rewrite" "fixture gnu-nopie not built"
fi
if fx shared; then
    cp "$BUILD/$FX_FILE" "$BUILD/$FX_MAIN" "$W/lib/"
    RUN_LIST="$RUN_LIST lib/$FX_MAIN:$BUILD/$FX_MAIN"
else
    skip "lib/shared-main runs with the same output after the rewrite" "fixture shared not built"
fi
ARM_RUN=""
if fx aarch64-pie && set_runner aarch64; then
    cp "$BUILD/$FX_FILE" "$W/arm/aarch64-pie"
    ARM_RUN="arm/aarch64-pie:$BUILD/$FX_FILE"
fi
cp "$SRC/hello" "$W/bin/hello"
cp "$SRC/script.sh" "$W/bin/script.sh"
cp "$SRC/hello.o" "$W/obj/hello.o"
cp "$GNU" "$WORK/routside/needs"
ln -s "$WORK/routside/needs" "$W/bin/link-to-needs"
ln -s "$WORK/routside" "$W/link-to-dir"
id_ro=$(file_id "$WORK/routside/needs")

assert "before: --check -r exits 1" exits_with 1 --check -r "$W"
run_tool -r "$W"
assert "elfthp-align -r DIR: exit 0" tool_rc 0
assert "elfthp-align -r DIR: a line for each rewritten program" \
    has_line "$T_OUT" "^$W/bin/lld-pie: [0-9]+ segments? aligned"
assert "elfthp-align -r DIR: non-ELF files are skipped silently" \
    no_line "$T_OUT$T_ERR" "script.sh|hello\.o|link-to"
assert "elfthp-align -r DIR: no temporary file left" no_temp_tree "$W"
run_tool --check -r "$W"
assert "after: --check -r DIR exits 0" tool_rc 0
nprog=$(find "$W" -type f | wc -l)
assert "after: summary (all ready)" summary_is "$nprog" $((nprog - 2)) 0 0 2 1 0
assert "after: files congruent (readelf)" check_congruence "$W/bin/lld-pie"
assert "the script is unchanged" same_file "$SRC/script.sh" "$W/bin/script.sh"
assert "the object file is unchanged" same_file "$SRC/hello.o" "$W/obj/hello.o"
assert "the link target outside the tree was not rewritten" same_id "$WORK/routside/needs" "$id_ro"
[ -L "$W/bin/link-to-needs" ] && pass "the link in the tree is still a link" ||
    fail "the link in the tree is still a link" "$(ls -l "$W/bin/link-to-needs")"
for pair in $RUN_LIST; do
    assert "${pair%%:*} runs with the same output after the rewrite" \
        run_same "${pair#*:}" "$W/${pair%%:*}"
done
if [ -n "$ARM_RUN" ]; then
    assert "${ARM_RUN%%:*} runs with the same output (${RUNNER[*]})" \
        run_same "${ARM_RUN#*:}" "$W/${ARM_RUN%%:*}" "${RUNNER[@]}"
else
    skip "aarch64 program in the rewritten tree" "no aarch64-pie fixture or no qemu-aarch64"
fi
ids=$(find "$W" -type f -exec stat -c '%n %i %.9Y' {} + | sort)
run_tool -r "$W"
assert "a second -r run: exit 0" tool_rc 0
assert "a second -r run touches nothing (inodes, mtimes)" equals "files" \
    "$(find "$W" -type f -exec stat -c '%n %i %.9Y' {} + | sort)" "$ids"

# The rewrite's safety rules hold under -r too: a file with two names, one
# outside the tree, is not done (said, untouched, not an error); the rest
# of the tree is still done (test_links.sh has the names-inside cases).
H=$WORK/htree
mkdir -p "$H/a" "$H/b" "$WORK/hout"
cp "$GNU" "$H/a/linked"
ln "$H/a/linked" "$WORK/hout/other-name"
cp "$GNU" "$H/b/single"
id_h=$(file_id "$H/a/linked")
stderr_has() { case $T_ERR in *"$1"*) return 0 ;; esac; WHY="stderr: $T_ERR"; return 1; }
run_tool -r -q "$H"
assert "-r with a name outside: exit 0" tool_rc 0
assert "-r with a name outside: not done, named" stderr_has "$H/a/linked: not done: has 2 hard links"
assert "-r with a name outside: it is untouched" same_id "$H/a/linked" "$id_h"
assert "-r with a name outside: the other file was still rewritten" \
    check_congruence "$H/b/single"
assert "-r with a name outside: no temporary file left" no_temp_tree "$H"
fi   # x86_64 tests

# ------------------------------------------------------------------------
echo "# --page-size: small aarch64 programs"

# page_verdict FILE PAGE: what --check --page-size must say, from readelf:
# needs-relink if two PT_LOADs with different flags touch one PAGE, else
# needs-rewrite if a PT_LOAD has offset != vaddr mod PAGE or p_align < PAGE,
# else ready.  (The 2 MiB target plays no part: these have no window.)
page_verdict() {
    elf_phdrs "$1" | awk -v pg="$2" '
        $2 == "LOAD" && $7 > 0 { n++; lo[n] = $4; hi[n] = $4 + $7 - 1; fl[n] = $8
            if (($3 - $4) % pg != 0 || $9 < pg) fix = 1 }
        END {
            if (n == 0) { print "none"; exit }
            for (i = 1; i <= n; i++) for (j = 1; j <= n; j++)
                if (i != j && fl[i] != fl[j] && int(hi[i] / pg) >= int(lo[j] / pg) &&
                    lo[i] <= lo[j]) rel = 1
            print rel ? "needs-relink" : fix ? "needs-rewrite" : "ready" }'
}

A64CC=aarch64-linux-gnu-gcc
if ! command -v "$A64CC" >/dev/null; then
    skip "--page-size tests" "$A64CC not installed"
    finish
fi
if ! set_runner aarch64; then
    skip "--page-size tests" "no way to run aarch64 programs (qemu-aarch64)"
    finish
fi
P=$WORK/pg
mkdir -p "$P"
cat > "$P/pg.c" <<'EOF'
/* Read-only padding and text padding move the segment boundaries, so that
 * a test can put them on either side of a 64 KiB page boundary. */
#include <stdio.h>
#ifndef RO_PAD
#define RO_PAD 1
#endif
#ifndef TEXT_PAD
#define TEXT_PAD 4
#endif
#define S_(x) #x
#define S(x) S_(x)
static const char ro_pad[RO_PAD] = { 7 };
__asm__(".text\n.globl text_pad\n.type text_pad,%function\ntext_pad:\n"
        "ret\n.space " S(TEXT_PAD) "\n.size text_pad,.-text_pad\n");
int counter = 3;
int main(void)
{
	const char *volatile p = ro_pad;
	printf("hello %d %d\n", counter * 14, p[0]);
	return 0;
}
EOF
F4="-Wl,-z,max-page-size=4096 -Wl,-z,common-page-size=4096"
LLD_FLAGS=""
if command -v ld.lld >/dev/null; then
    mkdir -p "$P/lldbin" && ln -sf "$(command -v ld.lld)" "$P/lldbin/ld.lld"
    LLD_FLAGS="-B$P/lldbin -fuse-ld=lld"
fi
a64() {   # a64 OUT FLAGS...: link pg.c; 1 (with a log) on failure
    local out=$1; shift
    "$A64CC" -O2 -o "$P/$out" "$P/pg.c" "$@" > "$P/$out.log" 2>&1 && return 0
    echo "# $out: $(head -3 "$P/$out.log" | tr '\n' ' ')"; return 1
}
# load_nth FILE N: "vaddr filesz" of the Nth PT_LOAD.
load_nth() { elf_phdrs "$1" | awk -v n="$2" '$2 == "LOAD" && ++k == n { print $4, $6 }'; }

CASES=""   # NAME:VERDICT-AT-64K
# case NAME VERDICT FLAGS...: link NAME and add it to CASES; a link that
# fails is counted as a skip of its checks.
case_of() {
    local name=$1 verdict=$2; shift 2
    if a64 "$name" "$@"; then CASES="$CASES $name:$verdict"
    else skip "$name: --page-size 64k" "the aarch64 link failed: $(head -1 "$P/$name.log")"; fi
}
case_of gnu-64k ready
case_of gnu-4k-noseparate needs-relink -Wl,-z,noseparate-code $F4
case_of gnu-4k needs-relink $F4
# GNU ld, 4 KiB pages, read-only data padded so that the text ends just
# below 64 KiB and the data starts above it: only p_align is wrong.  No
# RELRO: its end inside a 64 KiB page would need a relink (test_relro.sh).
if a64 gnu-4k-probe $F4 -Wl,-z,norelro; then
    read -r v s <<< "$(load_nth "$P/gnu-4k-probe" 1)"
    case_of gnu-4k-fixable needs-rewrite -DRO_PAD=$((1 + 0xff00 - v - s)) $F4 -Wl,-z,norelro
else
    skip "gnu-4k-fixable: --page-size 64k" "the aarch64 link of its probe failed"
fi
if [ -n "$LLD_FLAGS" ]; then
    case_of lld-64k ready $LLD_FLAGS
    case_of lld-4k needs-relink $LLD_FLAGS $F4
    # lld, 4 KiB pages: R | R E | RW | RW.  Pad the read-only data so the R
    # segment ends below 64 KiB, then the text so R E ends below 128 KiB:
    # offsets are then wrong modulo 64 KiB, but no page is shared.
    if a64 lld-4k-probe $LLD_FLAGS $F4; then
        read -r v s <<< "$(load_nth "$P/lld-4k-probe" 1)"
        rp=$((1 + 0xff00 - v - s))
        if a64 lld-4k-probe2 -DRO_PAD=$rp $LLD_FLAGS $F4; then
            read -r v s <<< "$(load_nth "$P/lld-4k-probe2" 2)"
            tp=$((4 + (v + 0xffff) / 0x10000 * 0x10000 - 0x100 - v - s))
            case_of lld-4k-fixable needs-rewrite -DRO_PAD=$rp -DTEXT_PAD=$tp $LLD_FLAGS $F4
        else
            skip "lld-4k-fixable: --page-size 64k" "the aarch64 link of its second probe failed"
        fi
    else
        skip "lld-4k-fixable: --page-size 64k" "the aarch64 link of its probe failed"
    fi
else
    skip "aarch64 lld cases" "ld.lld not installed"
fi

for c in $CASES; do
    name=${c%%:*} want=${c#*:} f=$P/${c%%:*}
    got=$(page_verdict "$f" 65536)
    if [ "$got" != "$want" ]; then
        skip "$name: --page-size 64k" "the link gave another layout than intended (readelf says $got, meant $want)"
        continue
    fi
    cp "$f" "$f.orig"
    assert "$name: the original runs (${RUNNER[*]})" run_same "$f.orig" "$f" "${RUNNER[@]}"
    run_tool --check --page-size 64k --format json "$f"
    assert "$name: --check --page-size 64k: JSON valid" json_ok
    assert "$name: --check --page-size 64k: status $want" equals "status" "$(json_col 1)" "$want"
    case $want in
        ready) rc=0 ;;
        *) rc=1 ;;
    esac
    run_tool --check --page-size 64k "$f"
    assert "$name: --check --page-size 64k: exit $rc" tool_rc $rc
    fnd=$(findings_of "$f")
    case $want in
    ready) cstat=compatible crc=0 ;;
    needs-rewrite) cstat=fixable crc=1 ;;
    needs-relink) cstat=needs-relink crc=3 ;;
    esac
    case $want in
    ready)
        assert "$name: no findings" equals "findings" "$fnd" ""
        assert "$name: summary 1 ready" summary_is 1 1 0 0 0 0 0
        ;;
    needs-rewrite)
        assert "$name: findings are what the rewrite changes" has_line "$fnd" '^PT_LOAD [0-9]+: .*the rewrite (raises|moves) it'
        assert "$name: no finding says relink" no_line "$fnd" 'relink'
        assert "$name: summary 1 needs rewriting" summary_is 1 0 1 0 0 0 0
        ;;
    needs-relink)
        assert "$name: a finding says 'only a relink fixes that, with -z max-page-size=0x10000'" \
            has_line "$fnd" '^PT_LOAD [0-9]+: shares a 0x10000-byte page with PT_LOAD [0-9]+.*only a relink fixes that, with -z max-page-size=0x10000'
        assert "$name: summary 1 needs relinking" summary_is 1 0 0 1 0 0 0
        ;;
    esac

    # The same question as page-size compatibility alone (--compat): one
    # verdict, exit 0 / 1 / 3, and every finding in JSON.
    run_tool --check --compat --page-size 64k "$f"
    assert "$name: --compat --page-size 64k: exit $crc" tool_rc $crc
    assert "$name: --compat: one line for the file, then the summary" equals "lines" \
        "$(printf '%s\n' "$T_OUT" | wc -l)" 2
    run_tool --check --compat --page-size 64k --format json "$f"
    cfnd=$(printf '%s\n' "$T_OUT" | python3 -c 'import json, sys
o = json.loads(sys.stdin.readline())
print(o["status"])
for f in o["findings"]: print(f["message"])')
    assert "$name: --compat JSON status $cstat" equals "status" "$(printf '%s\n' "$cfnd" | head -1)" "$cstat"
    cfnd=$(printf '%s\n' "$cfnd" | tail -n +2)
    case $want in
    ready) assert "$name: --compat: no findings" equals "findings" "$cfnd" "" ;;
    needs-relink)
        assert "$name: --compat: the root cause first, naming both PT_LOADs and 0x10000" \
            has_line "$(printf '%s\n' "$cfnd" | head -1)" '^PT_LOAD [0-9]+: shares a 0x10000-byte page with PT_LOAD [0-9]+.*-z max-page-size=0x10000$'
        ;;
    needs-rewrite)
        assert "$name: --compat: no finding says relink" no_line "$cfnd" 'relink'
        # Each PT_LOAD with p_align < 64 KiB gets "raises it", each with
        # offset != vaddr mod 64 KiB "pads it" (readelf decides).
        raise_idx=$(elf_phdrs "$f" | awk '$2 == "LOAD" && $9 < 65536 { print $1 }')
        pad_idx=$(elf_phdrs "$f" | awk '$2 == "LOAD" && ($3 - $4) % 65536 { print $1 }')
        if [ -n "$raise_idx" ]; then
            assert "$name: 'raises it' for each PT_LOAD ($(echo $raise_idx)) with p_align below 64 KiB" \
                each_tagged "$cfnd" 'elfthp-align --page-size raises it' $raise_idx
        else
            skip "$name: 'raises it' for each PT_LOAD with p_align below 64 KiB" \
                "the link gave none (readelf)"
        fi
        if [ -n "$pad_idx" ]; then
            assert "$name: 'pads it' for each PT_LOAD ($(echo $pad_idx)) with offset != vaddr mod 64 KiB" \
                each_tagged "$cfnd" 'elfthp-align --page-size pads it' $pad_idx
            assert_not "$name: check_congruence rejects the original at 64 KiB" check_congruence "$f"
        else
            assert "$name: no 'pads it' where offsets are congruent" no_line "$cfnd" 'pads it'
        fi
        ;;
    esac

    # 16 KiB pages: the verdict computed the same way.
    w16=$(page_verdict "$f" 16384)
    run_tool --check --page-size 16k --format json "$f"
    json_ok
    assert "$name: --check --page-size 16k: status $w16" equals "status" "$(json_col 1)" "$w16"
    case $w16 in ready) c16=compatible ;; needs-rewrite) c16=fixable ;; *) c16=needs-relink ;; esac
    run_tool --check --compat --page-size 16k --format json "$f"
    assert "$name: --compat --page-size 16k: status $c16" equals "status" \
        "$(printf '%s\n' "$T_OUT" | python3 -c 'import json, sys; print(json.loads(sys.stdin.readline())["status"])')" "$c16"

    # The rewrite for 64 KiB pages.
    id=$(file_id "$f") before=$(listing "$P")
    run_tool --page-size 64k "$f"
    case $want in
    ready)
        assert "$name: rewrite --page-size 64k: exit 0" tool_rc 0
        assert "$name: rewrite --page-size 64k: nothing to do, file not touched" same_id "$f" "$id"
        ;;
    needs-rewrite)
        assert "$name: rewrite --page-size 64k: exit 0" tool_rc 0
        assert "$name: after the rewrite, --check --page-size 64k exits 0" \
            exits_with 0 --check --page-size 64k "$f"
        assert "$name: after the rewrite, --compat --page-size 64k exits 0" \
            exits_with 0 --check --compat --page-size 64k "$f"
        assert "$name: after the rewrite, readelf agrees (ready at 64 KiB)" \
            equals "verdict" "$(page_verdict "$f" 65536)" ready
        assert "$name: segment and section bytes kept" check_segment_bytes "$f.orig" "$f"
        assert "$name: the rewritten program runs with the same output" \
            run_same "$f.orig" "$f" "${RUNNER[@]}"
        ;;
    needs-relink)
        assert "$name: rewrite --page-size 64k refuses: exit 2" tool_rc 2
        assert "$name: the refusal names the file" tool_err_names "$f"
        assert "$name: the refusal says a relink is needed" has_line "$T_ERR" 'relink'
        assert "$name: file byte-identical" same_file "$f.orig" "$f"
        assert "$name: file not touched (inode, mtime)" same_id "$f" "$id"
        assert "$name: no temporary file left" same_listing "$P" "$before"
        ;;
    esac
done
case $CASES in *fixable*) ;; *) fail "a fixable --page-size 64k case was built" "cases: $CASES" ;; esac
case $CASES in *relink*) ;; *) fail "a relink --page-size 64k case was built" "cases: $CASES" ;; esac

finish
