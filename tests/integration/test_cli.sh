#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# SPDX-FileCopyrightText: 2026 the elfthp-align authors
# test_cli.sh BUILDDIR - the small things a user meets on the command line.
#   - every message starts with "elfthp-align:", however it was invoked
#     (a symlink of another name, getopt's own complaints included);
#   - -o - is refused, a directory without -r says to give -r;
#   - -q silences --check's summary and ready files, not findings;
#   - --help fits in 80 columns;
#   - tables stay aligned for addresses above 32 bits;
#   - -f LIST and -0 add paths from a list (comments, stdin, NUL-separated)
#     in every mode that takes paths, and refuse what they cannot read;
#   - every source file carries the SPDX line of the LICENSE.
. "$(dirname "$0")/lib.sh"
need_builddir "$@"
need_tool

fixture_line lld-pie || { skip "command line" "no lld-pie fixture"; finish; }
LLD=$BUILD/$FX_FILE
ln -s "$TOOL" "$WORK/othername"

# every_line_named: each line of T_ERR starts with "elfthp-align: ".
every_line_named() {
    local bad
    [ -n "$T_ERR" ] || { WHY="nothing on stderr"; return 1; }
    bad=$(printf '%s\n' "$T_ERR" | grep -v '^elfthp-align: ' | grep -v '^usage:\|^ \{7\}elfthp-align\|^ \{20\}')
    [ -z "$bad" ] && return 0
    WHY="lines not starting with 'elfthp-align: ': $bad"; return 1
}
run_as() {	# run_as PROG ARGS...: like run_tool, under another name
    local prog=$1; shift
    T_OUT=$("$prog" "$@" 2> "$WORK/as.err"); T_RC=$?
    T_ERR=$(cat "$WORK/as.err")
}
run_as "$WORK/othername" -j 0 "$LLD"
assert "through a symlink: -j 0 is a usage error (2)" tool_rc 2
assert "through a symlink: the message names elfthp-align" every_line_named
run_as "$WORK/othername" --no-such-option "$LLD"
assert "through a symlink: an unknown option, exit 2" tool_rc 2
assert "through a symlink: getopt's message names elfthp-align" every_line_named
run_as "$WORK/othername" "$WORK/missing"
assert "through a symlink: a missing file, exit 2, named" every_line_named

run_tool -o - "$LLD"
assert "-o -: refused (exit 2)" tool_rc 2
assert "-o -: says why" equals "message" "$T_ERR" \
    "elfthp-align: -o -: the output is renamed into place, so it must be a file, not standard output"
[ ! -e ./- ] && pass "-o -: no file named - made" || fail "-o -: no file named - made" "./- exists"

mkdir -p "$WORK/dir"
for mode in "" --check --warm --report; do
    run_tool $mode "$WORK/dir"
    assert "a directory without -r ${mode:-(rewrite)}: exit 2" tool_rc 2
    assert "a directory without -r ${mode:-(rewrite)}: says to give -r" equals "message" \
        "$(printf '%s\n' "$T_ERR" | head -1)" "elfthp-align: $WORK/dir: is a directory (give -r to walk it)"
done

# -j above the workers (64): a package build's parallelism passed through
# (DEB_BUILD_OPTIONS=parallel=96, _smp_build_ncpus 96) runs 64 at once.
cp "$LLD" "$WORK/j96"
run_tool -j 96 --check "$WORK/j96" "$LLD"
assert "-j 96: runs (at most 64 at once), exit 1 for the unaligned file" tool_rc 1
run_tool -j 65536 -n "$WORK/j96"
assert "-j 65536: runs" tool_rc 0
run_tool -j 65537 -n "$WORK/j96"
assert "-j 65537: a usage error (2), saying the range" equals "rc,message" "$T_RC,$T_ERR" \
    "2,elfthp-align: -j: '65537' is too large (1 to 65536)"

# The progress line is drawn only on a terminal (script(1) gives one), and
# never with -q.
if need "the progress line on a terminal" "script(1) not installed" command -v script > /dev/null; then
    cp "$LLD" "$WORK/p1" && cp "$LLD" "$WORK/p2"
    script -qec "'$TOOL' --check '$WORK/p1' '$WORK/p2' '$LLD'" /dev/null > "$WORK/tty.out" 2>&1
    assert "on a terminal: the progress line (the control)" equals "progress lines" \
        "$(grep -c 'files/s' "$WORK/tty.out")" 1
    script -qec "'$TOOL' --check -q '$WORK/p1' '$WORK/p2' '$LLD'" /dev/null > "$WORK/tty.out" 2>&1
    assert "on a terminal, -q: no progress line" equals "progress lines" \
        "$(grep -c 'files/s' "$WORK/tty.out")" 0
    assert "on a terminal, -q: the findings still" equals "findings" "$(( $(grep -c "^$WORK/p1: " "$WORK/tty.out") > 0 ))" 1
fi

cp "$LLD" "$WORK/ready" && "$TOOL" -q "$WORK/ready"
run_tool --check -q "$WORK/ready"
assert "--check -q on a ready file: exit 0, prints nothing" equals "output" "$T_RC:$T_OUT" "0:"
run_tool --check -q "$LLD" "$WORK/ready"
assert "--check -q: exit 1, findings only, no summary" equals "summary lines" \
    "$T_RC:$(printf '%s\n' "$T_OUT" | grep -c '^checked ')" "1:0"
assert "--check -q: the findings are there" equals "findings of the unaligned file" \
    "$(printf '%s\n' "$T_OUT" | grep -c "^$LLD: PT_LOAD")" 2
run_tool --check "$LLD" "$WORK/ready"
assert "control: --check without -q ends with the summary" equals "last line" \
    "$(printf '%s\n' "$T_OUT" | tail -n 1 | cut -d: -f1)" "checked 2 files"

wide=$("$TOOL" --help | awk 'length > 80')
[ -z "$wide" ] && pass "--help fits in 80 columns" || fail "--help fits in 80 columns" "$wide"

# High addresses: the lld PIE with every address 4 GiB up (a layout as
# valid as before: congruence does not change).
python3 - "$LLD" "$WORK/high" <<'EOF'
import struct, sys
b = bytearray(open(sys.argv[1], "rb").read())
phoff, = struct.unpack_from("<Q", b, 0x20)
phentsize, phnum = struct.unpack_from("<HH", b, 0x36)
for i in range(phnum):
    o = phoff + i * phentsize
    t, = struct.unpack_from("<I", b, o)
    if t in (1, 2, 3, 4, 6, 7, 0x6474e550, 0x6474e552):  # LOAD..PHDR, TLS, EH, RELRO
        v, p = struct.unpack_from("<QQ", b, o + 16)
        struct.pack_into("<QQ", b, o + 16, v + (1 << 32), p + (1 << 32))
open(sys.argv[2], "wb").write(b)
EOF
# columns_line_up: in every table, every row's hexadecimal fields start at
# the same columns, and the header's OFFSET and VADDR sit over them.
columns_line_up() {
    printf '%s\n' "$T_OUT" | python3 -c '
import re, sys
bad, head, cols, rows = [], None, None, 0
for line in sys.stdin.read().split("\n"):
    if re.match(r"^  PH ", line):
        head, cols = line, None
        continue
    if head is None or not re.match(r"^  \d", line):
        head = None if not line.startswith("  ") else head
        continue
    rows += 1
    here = [m.start() for m in re.finditer(r"0x", line)]
    if cols is None:
        cols = here
        for label in ("OFFSET", "VADDR"):
            if head.index(label) not in cols:
                bad.append("%s at column %d, hex fields at %s" % (label, head.index(label), cols))
    elif here != cols:
        bad.append(line)
if rows == 0:
    bad.append("no table rows")
print("\n".join(bad[:3]))
sys.exit(1 if bad else 0)' > "$WORK/cols" && return 0
    WHY="out of line: $(cat "$WORK/cols")"; return 1
}
run_tool -n "$WORK/high"
assert "addresses above 4 GiB: -n exits 0" tool_rc 0
assert "addresses above 4 GiB: the plan table lines up" columns_line_up
run_tool --report "$WORK/high"
assert "addresses above 4 GiB: the report table lines up" columns_line_up
run_tool -n "$LLD"
assert "control: the plan table of the fixture lines up" columns_line_up

# -f LIST and -0: paths from a list, in every mode that takes paths.
L=$WORK/lists
mkdir -p "$L"
cp "$LLD" "$L/a" && cp "$LLD" "$L/b" && cp "$LLD" "$L/skipped" && cp "$LLD" "$L/c d"
printf '# a comment\n\n  %s  \n#%s\n%s\n' "$L/a" "$L/skipped" "$L/b" > "$L/list"
run_tool -q -f "$L/list"
assert "-f: the rewrite exits 0" tool_rc 0
assert "-f: the first listed file is rewritten" check_congruence "$L/a"
assert "-f: the second listed file is rewritten" check_congruence "$L/b"
assert "-f: a commented-out path is left alone" same_file "$LLD" "$L/skipped"
assert_not "control: the commented-out path is not congruent" check_congruence "$L/skipped"
printf '%s\0%s\0' "$L/c d" "$L/skipped" > "$L/list0"
T_OUT=$("$TOOL" --check -q -0 -f - < "$L/list0" 2> "$L/err"); T_RC=$? T_ERR=$(cat "$L/err")
assert "-0 -f - (stdin): --check finds both unaligned files (exit 1)" tool_rc 1
assert "-0 -f -: a name with a space is one path" equals "files with findings" \
    "$(printf '%s\n' "$T_OUT" | cut -d: -f1 | sort -u | tr '\n' '|')" "$L/c d|$L/skipped|"
run_tool --check -f "$L/list" "$L/skipped"
assert "-f with an operand: the operand, then the list" equals "summary" \
    "$(printf '%s\n' "$T_OUT" | tail -n 1 | cut -d: -f1)" "checked 3 files"
for mode in --warm --report --host; do
    run_tool $mode -f "$L/list"
    assert "-f with $mode: runs on the listed files (exit 0 or 1)" equals "exit" "$((T_RC <= 1))" 1
    assert "-f with $mode: names a listed file" equals "mentions" \
        "$(printf '%s\n' "$T_OUT" | grep -c "$L/b")" 1
done
printf '#only comments\n' | "$TOOL" --check -q -f -; rc=$?
assert "-f with an empty list: nothing to do, exit 0" equals "exit" "$rc" 0
# Negative cases: each refused before any file is touched.
printf '%s\0%s\n' "$L/skipped" "$L/skipped" > "$L/nul"
run_tool -f "$L/nul"
assert "-f: a NUL byte in a line list is refused (exit 2)" tool_rc 2
assert "-f: ... saying to give -0" equals "message" "$T_ERR" \
    "elfthp-align: $L/nul: line 1 holds a NUL byte (for a NUL-separated list, give -0)"
assert "-f: ... and the listed file is not touched" same_file "$LLD" "$L/skipped"
run_tool -f "$L/missing"
assert "-f: a missing list, exit 2, named" equals "message" "$T_RC:$T_ERR" \
    "2:elfthp-align: $L/missing: cannot open the path list: No such file or directory"
# A list that cannot be read is an error naming it, never an empty list
# (the old reader took /dev/zero, a 1 GiB line under a memory limit or a
# writerless FIFO for "nothing to do", exit 0, or hung).
run_tool -f /dev/zero
assert "-f /dev/zero: refused, named (exit 2)" equals "message" "$T_RC:$T_ERR" \
    "2:elfthp-align: /dev/zero: line 1 holds a NUL byte (for a NUL-separated list, give -0)"
T_ERR=$(timeout 20 "$TOOL" -0 -f /dev/zero 2>&1 > /dev/null); T_RC=$?
assert "-0 -f /dev/zero: endless empty records refused (exit 2)" equals "message" "$T_RC:$T_ERR" \
    "2:elfthp-align: /dev/zero: record 4097: more than 4096 empty records in a row (not a path list?)"
# One line of 1 GiB under a 300 MB address-space limit: refused at the
# line length, not read into memory (the old reader's getdelim failed with
# ENOMEM and that was taken for the end of the list).
if grep -qa __asan_init "$TOOL"; then
    skip "-f with a 1 GiB line under ulimit -v" "AddressSanitizer reserves terabytes of address space at start"
else
    T_ERR=$( (ulimit -v 300000; "$TOOL" -f <(head -c 1G /dev/zero | tr '\0' a)) 2>&1 > /dev/null); T_RC=$?
    assert "-f with a 1 GiB line under ulimit -v: refused, line named (exit 2)" equals "message" \
        "$T_RC:$(printf '%s' "$T_ERR" | sed 's|/dev/fd/[0-9]*|LIST|')" \
        "2:elfthp-align: LIST: line 1 is longer than 4096 bytes (no path is)"
fi
printf '%s\n%4100s\n' "$L/skipped" "$L/skipped" > "$L/long"
run_tool -f "$L/long"
assert "-f: a line over 4096 bytes is refused with its number" equals "message" "$T_RC:$T_ERR" \
    "2:elfthp-align: $L/long: line 2 is longer than 4096 bytes (no path is)"
assert "-f: ... and the file on line 1 is not touched" same_file "$LLD" "$L/skipped"
printf '%4000s\n' "$L/a" > "$L/wide"
run_tool --check -q -f "$L/wide"
assert "control: a path with 4000 blanks before it (4096 bytes) is read" tool_rc 0
run_tool -f "$L"
assert "-f DIRECTORY: refused, named (exit 2)" equals "message" "$T_RC:$T_ERR" \
    "2:elfthp-align: $L: cannot read: a directory is not a path list"
mkfifo "$L/fifo"
T_ERR=$(timeout 30 "$TOOL" -f "$L/fifo" 2>&1 > /dev/null); T_RC=$?
assert "-f FIFO without a writer: refused after a wait, not a hang (exit 2)" equals "message" \
    "$T_RC:$T_ERR" "2:elfthp-align: $L/fifo: cannot read: no writer opened the FIFO within 5 s"
( sleep 1; printf '%s\n' "$L/skipped" > "$L/fifo" ) &
T_OUT=$(timeout 30 "$TOOL" --check -f "$L/fifo" 2>&1); T_RC=$?
wait
assert "control: -f FIFO whose writer comes a second later is read" equals "summary" \
    "$T_RC:$(printf '%s\n' "$T_OUT" | tail -n 1 | cut -d: -f1)" "1:checked 1 file"
# Reads block once the writer is there: a writer that pauses between two
# lines is waited for (non-blocking, the read got EAGAIN).
( printf '%s\n' "$L/skipped"; sleep 1; printf '%s\n' "$L/a" ) > "$L/fifo" &
T_OUT=$(timeout 30 "$TOOL" --check -f "$L/fifo" 2>&1); T_RC=$?
wait
assert "-f FIFO whose writer pauses between two lines: both read" equals "summary" \
    "$T_RC:$(printf '%s\n' "$T_OUT" | tail -n 1 | cut -d: -f1)" "1:checked 2 files"
run_tool -0 "$L/skipped"
assert "-0 without -f: refused (exit 2)" tool_rc 2
assert "-0 without -f: the file is not touched" same_file "$LLD" "$L/skipped"
run_tool -f - -f - < /dev/null
assert "-f - twice: refused (exit 2)" tool_rc 2
run_tool --pid $$ -f "$L/list"
assert "--pid with -f: refused (exit 2)" tool_rc 2
run_tool -o "$L/out" -f "$L/list"
assert "-o with -f: refused (exit 2)" tool_rc 2

# Every source file names its license.
no_spdx=$(cd "$REPO_ROOT" && git ls-files 2>/dev/null |
    grep -E '\.(c|h|sh|py|pl|go|1)$|(^|/)Makefile$|^\.ci/run$|elfthp-link$' |
    while read -r f; do grep -q 'SPDX-License-Identifier: BSD-2-Clause' "$f" || echo "$f"; done)
if ! (cd "$REPO_ROOT" && git rev-parse --git-dir > /dev/null 2>&1); then
    skip "SPDX lines" "not a git checkout"
elif [ -z "$no_spdx" ]; then
    pass "every source file has the SPDX line of LICENSE (BSD-2-Clause)"
else
    fail "every source file has the SPDX line" "$(echo $no_spdx)"
fi
# --warm: a file with no window is listed only with -v, and counted as
# having nothing to warm, never as "all huge".
mkdir -p "$WORK/nowin" && cp /bin/true "$WORK/nowin/small" && cp "$LLD" "$WORK/nowin/big"
run_tool --warm "$WORK/nowin/small" "$WORK/nowin/big"
assert "--warm: a file with no window is not listed without -v" equals "lines naming it" \
    "$(grep -c "^$WORK/nowin/small:" <<< "$T_OUT")" 0
assert "--warm: the summary counts it as having nothing to warm" equals "summary" \
    "$(grep -o '0 all huge.*1 with nothing to warm' <<< "$T_OUT" | head -1 | cut -c1-10)" "0 all huge"
run_tool --warm -v "$WORK/nowin/small"
assert "--warm -v: it is listed (the control)" equals "line" "$T_OUT" "$WORK/nowin/small: no windows to warm"

grep -q '^BSD 2-Clause License' "$REPO_ROOT/LICENSE" && grep -q 'the elfthp-align authors' "$REPO_ROOT/LICENSE" &&
    pass "LICENSE: BSD-2-Clause, the elfthp-align authors" || fail "LICENSE" "not BSD-2-Clause of the elfthp-align authors"

finish
