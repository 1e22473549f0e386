#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# SPDX-FileCopyrightText: 2026 the elfthp-align authors
# test_door.sh BUILDDIR - one door for validation, in every mode.
#
# A GNU ld PIE whose last PT_LOAD has p_filesz past the end of the file
# (the case that --check --compat --page-size 4k once called "loads on
# 4.0KiB pages", exit 0) and one whose section runs past EOF are refused
# with the same message and exit status 2 in every mode: rewrite in place
# and with -o, -n, --check, --check --compat with 4k and 16k pages,
# --report, --warm and --warm -n, in text and JSON.  Each run leaves the
# file byte for byte as it was and no temporary file; none says "internal
# error".  Negative control: the untouched fixture, run the same way,
# passes the door in every mode (exit 0, 1 or 3: a verdict, no refusal), so the
# refusals come from the corruption, not from the mode.
. "$(dirname "$0")/lib.sh"
need_builddir "$@"
need_tool

if ! fixture_line gnu-pie; then
    skip "the door" "gnu-pie was not built"
    finish
fi
SRC=$BUILD/$FX_FILE
D=$WORK/door
mkdir -p "$D"

# corrupt OUT WHAT: a copy of the fixture with one header made to lie.
corrupt() {
    cp "$SRC" "$1" && perl - "$1" "$2" <<'PERL'
use strict;
my ($f, $what) = @ARGV;
open(my $h, '+<:raw', $f) or die "$f: $!";
local $/; my $d = <$h>;
my ($phoff, $shoff) = unpack('Q<Q<', substr($d, 0x20, 16));
my ($phnum, $shentsize, $shnum) = (unpack('v', substr($d, 0x38, 2)),
    unpack('vv', substr($d, 0x3a, 4)));
if ($what eq 'load-past-eof') {
    my $last;
    for my $i (0 .. $phnum - 1) {
        $last = $i if unpack('V', substr($d, $phoff + $i * 56, 4)) == 1;
    }
    my $o = $phoff + $last * 56;
    my $off = unpack('Q<', substr($d, $o + 8, 8));
    substr($d, $o + 32, 16) = pack('Q<Q<', length($d) - $off + 1,
        length($d) - $off + 4096);
    print "$last\n";
} else {
    # The first SHT_PROGBITS section without SHF_ALLOC (.comment): one
    # byte past EOF.
    for my $i (1 .. $shnum - 1) {
        my $o = $shoff + $i * $shentsize;
        my ($type, $flags) = (unpack('V', substr($d, $o + 4, 4)),
            unpack('Q<', substr($d, $o + 8, 8)));
        next unless $type == 1 && ($flags & 2) == 0;
        my $off = unpack('Q<', substr($d, $o + 24, 8));
        substr($d, $o + 32, 8) = pack('Q<', length($d) - $off + 1);
        print "$i\n";
        last;
    }
}
seek($h, 0, 0); print $h $d; close($h);
PERL
}

MODES=("" "-n" "--check" "--check --compat --page-size 4k"
    "--check --compat --page-size 16k" "--report" "--warm" "--warm -n" "-o")

# run_mode FILE MODE FORMAT: the tool in that mode on FILE.
run_mode() {
    local f=$1 mode=$2 fmt=$3 args
    read -ra args <<< "$mode"
    if [ "$mode" = "-o" ]; then
        rm -f "$D/out"
        args=(-o "$D/out")
    fi
    [ "$fmt" = json ] && args+=(--format json)
    run_tool "${args[@]}" "$f"
}

# refused_everywhere CASE WORDS: every mode, text and JSON, exit 2 with WORDS.
refused_everywhere() {
    local name=$1 words=$2 f=$D/$1 before mode fmt d
    before=$(sha256sum < "$f")
    for mode in "${MODES[@]}"; do
        for fmt in text json; do
            d="$name, ${mode:-rewrite} ($fmt)"
            run_mode "$f" "$mode" "$fmt"
            assert "$d: exit 2" tool_rc 2
            assert "$d: one line naming the file and the problem" \
                one_error_line "$f"
            case $T_ERR in
                *"$words"*) pass "$d: says '$words'" ;;
                *) fail "$d: says '$words'" "$(tool_said)" ;;
            esac
            case $T_ERR$T_OUT in
                *"internal error"*) fail "$d: no internal error" "$(tool_said)" ;;
            esac
            if [ "$fmt" = json ]; then
                case $T_OUT in
                    *'"status":"error"'*"$words"*) pass "$d: JSON says error and why" ;;
                    *) fail "$d: JSON says error and why" "$(tool_said)" ;;
                esac
            fi
            assert "$d: the file is unchanged" equals "sha256" \
                "$(sha256sum < "$f")" "$before"
            assert "$d: no temporary file" no_temp "$D"
            [ ! -e "$D/out" ] && pass "$d: no output file" ||
                fail "$d: no output file" "$D/out exists"
        done
    done
}

idx=$(corrupt "$D/load-past-eof" load-past-eof) ||
    { fail "corrupt a copy" "perl failed"; finish; }
refused_everywhere load-past-eof "program header $idx extends past end of file"
idx=$(corrupt "$D/section-past-eof" section-past-eof) ||
    { fail "corrupt a copy" "perl failed"; finish; }
if [ -n "$idx" ]; then
    refused_everywhere section-past-eof "section $idx"
else
    skip "section past EOF" "gnu-pie has no unallocated PROGBITS section"
fi

# Negative control: the fixture as built passes the door in every mode.
cp "$SRC" "$D/good"
for mode in "${MODES[@]}"; do
    run_mode "$D/good" "$mode" text
    case $T_RC in
        0|1|3) pass "control, ${mode:-rewrite}: passes the door (exit $T_RC)" ;;
        *) fail "control, ${mode:-rewrite}: passes the door" "$(tool_said)" ;;
    esac
    case $T_ERR in
        *"extends past end of file"*|*"past the end"*)
            fail "control, ${mode:-rewrite}: no refusal" "$(tool_said)" ;;
    esac
    cp "$SRC" "$D/good"
done
finish
