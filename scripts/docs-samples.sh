#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# SPDX-FileCopyrightText: 2026 the elfthp-align authors
# docs-samples.sh [--check] [FILE...] - the output samples of the README
# are made by running their commands, so that they cannot go stale.
#
#   bash scripts/docs-samples.sh            regenerate the samples in README.md
#   make docs-samples                       the same (builds the tool first)
#   bash scripts/docs-samples.sh --check    change nothing; one line per sample,
#                                           "same: ...", "differ: ..." (with a
#                                           diff) or "skip: ...: reason";
#                                           exit 1 if one differs
#                                           (tests/integration/test_docs.sh)
#
# A sample is a block of the file between
#
#   <!-- sample: KIND [rc=N] -->
#       $ COMMAND
#       output...
#   <!-- end sample -->
#
# Its "$ " lines are the commands; everything else in the block is their
# output, replaced by what the commands print now (stdout and stderr, each
# line indented by four spaces).  The commands run in bash, in order, in one
# directory, with this build's elfthp-align first on PATH; each must exit 0
# (or N, with rc=N).  KIND says where they run:
#
#   scratch    a new directory holding copies of the test fixtures
#              (tests/build, made by tests/fixtures/build.sh): prog (the lld
#              PIE, whose text must move) and libbig.so (the GNU ld shared
#              library)
#   ext4       a loop-mounted ext4 image (root), holding myprog (the lld PIE,
#              rewritten); "/usr/local/bin" in a command means that
#              directory, and the directory is written back as
#              "/usr/local/bin" in the output
#   ext4-cold  the same, with myprog's page cache dropped (as after a
#              reboot) and myprog started with --hold, as a program that runs
#
# The samples are host facts: the ext4 ones show this kernel's release and
# THP settings.  --check compares them only on a kernel of the same
# major.minor as the sample shows (it skips them elsewhere, saying so), and
# only as root (loop mounts); the kernel release itself is not compared, nor
# the process ids --pid prints.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/.." && pwd)
BUILD=${ELFTHP_BUILD:-$ROOT/tests/build}

check=0
[ "${1:-}" = --check ] && { check=1; shift; }
[ $# -eq 0 ] && set -- "$ROOT/README.md"

# lib.sh gives the scratch directory ($WORK, removed at exit), the fixture
# list, loop mounts, drop_cache and hold_start; its counters are not used.
# shellcheck source=../tests/integration/lib.sh
. "$ROOT/tests/integration/lib.sh"
MOUNTS=""
cleanup_hook() {
    local m
    hold_stop
    for m in $MOUNTS; do umount "$m" 2>/dev/null || umount -l "$m" 2>/dev/null; done
}
die() { echo "docs-samples: $*" >&2; exit 2; }

[ -x "$TOOL" ] || die "$TOOL not built (run make)"
"$ROOT/tests/fixtures/build.sh" "$BUILD" >/dev/null || die "fixture build failed"
BUILD=$(cd "$BUILD" && pwd)
fx() { fixture_line "$1" || die "fixture $1 not built"; echo "$BUILD/$FX_FILE"; }

# setup KIND: make the directory the commands of a KIND block run in, and
# set DIR (where they run) and DOC (what DIR is called in the output).
# Returns 2 with WHY set when this host cannot (a skip in --check).
EXT4=""
setup() {
    hold_stop
    case $1 in
        scratch)
            DIR=$(mktemp -d "$WORK/s.XXXXXX") DOC=""
            cp "$(fx lld-pie)" "$DIR/prog"
            cp "$(fx shared)" "$DIR/libbig.so" ;;
        ext4|ext4-cold)
            [ "$(id -u)" -eq 0 ] || { WHY="loop mounts need root"; return 2; }
            if [ -z "$EXT4" ]; then
                EXT4=$WORK/ext4
                mount_image ext4 "$EXT4" || { WHY="ext4 image: $WHY"; return 2; }
            fi
            DIR=$EXT4 DOC=/usr/local/bin
            rm -f "$DIR/myprog"
            cp "$(fx lld-pie)" "$DIR/myprog"
            "$TOOL" -q "$DIR/myprog" || die "rewriting $DIR/myprog failed"
            if [ "$1" = ext4-cold ]; then
                drop_cache "$DIR/myprog"
                hold_start "$WORK/hold.out" "$DIR/myprog" || die "$WHY"
            fi ;;
        *) die "unknown sample kind '$1'" ;;
    esac
    return 0
}

# run_block KIND RC LINES...: the new block for the "$ " lines among LINES.
run_block() {
    local kind=$1 want=$2 line cmd out rc; shift 2
    for line in "$@"; do
        case $line in '    $ '*) ;; *) continue ;; esac
        cmd=${line#    \$ }
        printf '%s\n' "$line"
        [ -n "$DOC" ] && cmd=${cmd//$DOC/$DIR}
        out=$(cd "$DIR" && PATH="$(dirname "$TOOL"):$PATH" bash -c "$cmd" 2>&1 < /dev/null)
        rc=$?
        if [ "$rc" -ne "$want" ]; then
            echo "docs-samples: [$cmd] ($kind) exited $rc, expected $want: $out" >&2
            return 1
        fi
        [ -n "$DOC" ] && out=${out//$DIR/$DOC}
        out=${out//$WORK/\$TMP}
        [ -n "$out" ] && printf '%s\n' "$out" | sed 's/^/    /; s/^ *$//'
    done
    return 0
}

# kernel_mm TEXT: the major.minor of the first "kernel X.Y" in TEXT.
kernel_mm() { sed -n 's/.*kernel \([0-9]*\.[0-9]*\).*/\1/p' <<< "$1" | head -1; }
# norm KIND: what --check compares.  Not the kernel release; for a running
# program (ext4-cold) not the process ids --pid prints either.
norm() {
    sed 's/kernel [0-9][^;]*;/kernel RELEASE;/' |
        if [ "$1" = ext4-cold ]; then
            sed -E 's/(pids?) [0-9]+/\1 PID/g'
        else cat; fi
}

status=0
for file in "$@"; do
    [ -f "$file" ] || die "$file: no such file"
    name=${file#"$ROOT"/}
    new=$WORK/new.$$
    : > "$new"
    inblock=0 n=0 lineno=0
    while IFS= read -r l || [ -n "$l" ]; do
        lineno=$((lineno + 1))
        if [ $inblock -eq 0 ]; then
            printf '%s\n' "$l" >> "$new"
            if [[ $l =~ ^'<!-- sample: '([a-z0-9-]+)( rc=([0-9]+))?' -->'$ ]]; then
                inblock=1 kind=${BASH_REMATCH[1]} want=${BASH_REMATCH[3]:-0}
                start=$lineno lines=()
                n=$((n + 1))
            elif [[ $l == '<!-- sample:'* ]]; then
                die "$name:$lineno: malformed sample marker: $l"
            fi
            continue
        fi
        if [ "$l" != '<!-- end sample -->' ]; then
            lines+=("$l"); continue
        fi
        inblock=0
        old=$(printf '%s\n' "${lines[@]}")
        what="$name:$start sample $n ($kind: ${lines[0]#    \$ })"
        got=""
        setup "$kind"; rc=$?
        km=$(kernel_mm "$old")
        if [ $rc -eq 0 ] && [ $check -eq 1 ] && [ -n "$km" ] &&
           [ "$km" != "$(uname -r | cut -d. -f1,2)" ]; then
            WHY="made on kernel $(kernel_mm "$old"), this is $(uname -r)" rc=2
        fi
        if [ $rc -eq 0 ]; then
            got=$(run_block "$kind" "$want" "${lines[@]}") || { status=1; rc=1; }
        fi
        if [ $rc -eq 2 ]; then
            [ $check -eq 1 ] || die "$what: cannot run here: $WHY"
            echo "skip: $what: $WHY"
            got=$old
        elif [ $rc -ne 0 ]; then
            echo "differ: $what: a command failed"
            got=$old
        elif [ $check -eq 1 ]; then
            if [ "$(norm "$kind" <<< "$old")" = "$(norm "$kind" <<< "$got")" ]; then
                echo "same: $what"
            else
                echo "differ: $what (run make docs-samples)"
                diff -u --label "$name" --label generated <(printf '%s\n' "$old") \
                    <(printf '%s\n' "$got") | sed 's/^/    /'
                status=1
            fi
        fi
        printf '%s\n' "$got" '<!-- end sample -->' >> "$new"
    done < "$file"
    [ $inblock -eq 0 ] || die "$name: sample at line $start has no <!-- end sample -->"
    [ $n -gt 0 ] || die "$name: no <!-- sample: ... --> block"
    if [ $check -eq 0 ]; then
        [ $status -eq 0 ] || die "$name: not rewritten (a command failed)"
        if cmp -s "$file" "$new"; then
            echo "$name: $n samples, unchanged"
        else
            cat "$new" > "$file" && echo "$name: $n samples, regenerated"
        fi
    fi
done
hold_stop
exit $status
