#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# SPDX-FileCopyrightText: 2026 the elfthp-align authors
# fuzz/run.sh [SECONDS] - build a libFuzzer harness and run it for SECONDS
# (default 60).
#
# FUZZ_TARGET picks the harness:
#   read_plan (default)  fuzz/fuzz_read_plan.c: the read and plan passes,
#                        the verifier, the impact model, page-size checks;
#                        FUZZ_WRITE=1 also the write pass into a memfd
#   cli                  fuzz/fuzz_cli.c: process_file() in --check,
#                        --report, -n, --warm and -o, text and JSON (the
#                        first byte of an input picks the mode): the CLI
#                        paths, the JSON writer, atomic_file.c, the writes
# `make fuzz` runs both, FUZZ_SECONDS each.
#
# Everything goes to fuzz/build/:
#   obj/, fuzz_*           the harness and the objects it links, built with
#                          clang -fsanitize=fuzzer,address,undefined
#   seeds/                 the seed corpus: small ELF files (hello worlds
#                          and tiny -nostdlib programs built here: ELF32
#                          and ELF64, little- and big-endian, PIE,
#                          static-pie, ET_EXEC; a few small system files),
#                          the hostile variants from tests/hostile/gen.sh,
#                          plus tests/hostile/found/*
#   seeds-cli/             the same, each prefixed with selector bytes
#   corpus/, corpus-cli/   what the fuzzer learned (kept between runs)
#   crashes/               crashing inputs (crash-*, leak-*, timeout-*, oom-*)
#   fuzz.log, fuzz-cli.log libFuzzer's output (fuzz-write.log: FUZZ_WRITE=1)
# The fuzzer runs in fork mode and carries on after a crash, so one run can
# find several.  At the end it prints the executions and the crashes; each
# new crashing input is copied into tests/hostile/found/ (test_hostile.sh
# runs the tool on every file there; for the cli harness without its
# first byte) and its stack is shown.
#
# Environment: CLANG (default clang), FUZZ_TARGET, FUZZ_WRITE=1,
# FUZZ_FLAGS adds libFuzzer flags.  Exit 1 if the build fails or a crash
# was found, else 0.
set -u
SECONDS_TO_RUN=${1:-60}
case $SECONDS_TO_RUN in ''|*[!0-9]*) echo "usage: $0 [SECONDS]" >&2; exit 1 ;; esac
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/.." && pwd)
B=$HERE/build
CLANG=${CLANG:-clang}
FOUND=$ROOT/tests/hostile/found
mkdir -p "$B/obj" "$B/seeds" "$B/corpus" "$B/crashes" || exit 1

# --- build -----------------------------------------------------------------
SAN="-fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined"
CFLAGS="-g -O1 -fno-omit-frame-pointer $SAN -Iinclude -D_FILE_OFFSET_BITS=64 -D_GNU_SOURCE"
SRCS="src/io/error_text.c src/io/elf_read.c $(ls src/segment_pad.c src/core/*.c | tr '\n' ' ')"
HARNESS=fuzz/fuzz_read_plan.c
variant=read BIN=$B/fuzz_read_plan LOG=$B/fuzz.log CORPUS=$B/corpus SEEDS=$B/seeds
if [ "${FUZZ_TARGET:-read_plan}" = cli ]; then
    # Every module but main.c.
    SRCS=$(ls src/*.c src/*/*.c | grep -v '^src/main\.c$' | tr '\n' ' ')
    HARNESS=fuzz/fuzz_cli.c
    variant=cli BIN=$B/fuzz_cli LOG=$B/fuzz-cli.log CORPUS=$B/corpus-cli SEEDS=$B/seeds-cli
elif [ "${FUZZ_WRITE:-0}" = 1 ]; then
    SRCS="$SRCS src/phdr_rewrite.c src/io/pagecache.c"
    CFLAGS="$CFLAGS -DFUZZ_WRITE"
    variant=write BIN=$B/fuzz_read_plan_write LOG=$B/fuzz-write.log
fi
mkdir -p "$CORPUS" "$SEEDS"
pc=$(pkg-config --cflags --libs libelf libbsd zlib libzip) || { echo "run.sh: pkg-config libelf libbsd zlib libzip failed" >&2; exit 1; }
cd "$ROOT" || exit 1
objs=""
# An object is stale when any header is newer than it.
newer_header() {
    local h
    for h in include/*.h; do [ "$h" -nt "$1" ] && return 0; done
    return 1
}
echo "# building $(basename "$BIN") ($variant) with $CLANG"
for s in $SRCS $HARNESS; do
    o=$B/obj/$(basename "${s%.c}").$variant.o
    if [ ! -f "$o" ] || [ "$s" -nt "$o" ] || newer_header "$o" || [ "$0" -nt "$o" ]; then
        $CLANG $CFLAGS $(pkg-config --cflags libelf libbsd zlib libzip) -c -o "$o" "$s" ||
            { echo "run.sh: compiling $s failed" >&2; exit 1; }
    fi
    objs="$objs $o"
done
$CLANG $SAN -o "$BIN" $objs $pc -lpthread ||
    { echo "run.sh: linking failed" >&2; exit 1; }

# --- seed corpus -----------------------------------------------------------
MAXLEN=65536
if [ ! -f "$B/seeds/.done-2" ]; then
    echo "# making the seed corpus"
    t=$(mktemp -d "${TMPDIR:-/tmp}/elfthp-fuzz.XXXXXX") || exit 1
    printf '#include <stdio.h>\nint main(void) { puts("hi"); return 0; }\n' > "$t/h.c"
    gcc -O2 -o "$t/hello-gnu" "$t/h.c" 2>/dev/null
    gcc -O2 -no-pie -o "$t/hello-nopie" "$t/h.c" 2>/dev/null
    gcc -O2 -shared -fPIC -o "$t/lib-gnu.so" "$t/h.c" 2>/dev/null
    gcc -O2 -fuse-ld=lld -o "$t/hello-lld" "$t/h.c" 2>/dev/null
    gcc -O2 -static-pie -o "$t/hello-static-pie" "$t/h.c" 2>/dev/null
    command -v aarch64-linux-gnu-gcc >/dev/null &&
        aarch64-linux-gnu-gcc -O2 -o "$t/hello-aarch64" "$t/h.c" 2>/dev/null
    command -v powerpc-linux-gnu-gcc >/dev/null &&
        powerpc-linux-gnu-gcc -O2 -o "$t/hello-ppc32" "$t/h.c" 2>/dev/null
    # Tiny -nostdlib programs, for the ELF32, big-endian and static-pie
    # branches (the hello worlds above are over MAXLEN for most targets).
    printf 'void _start(void) { for (;;) ; }\n' > "$t/tiny.c"
    gcc -Os -nostdlib -static-pie -fPIE -o "$t/tiny-x86_64-static-pie" "$t/tiny.c" 2>/dev/null
    gcc -Os -nostdlib -no-pie -static -o "$t/tiny-x86_64-exec" "$t/tiny.c" 2>/dev/null
    gcc -m32 -Os -ffreestanding -fPIE -c "$t/tiny.c" -o "$t/tiny32.o" 2>/dev/null &&
        ld -m elf_i386 -pie --no-dynamic-linker -o "$t/tiny-i386-static-pie" "$t/tiny32.o" 2>/dev/null
    command -v powerpc-linux-gnu-gcc >/dev/null && {
        powerpc-linux-gnu-gcc -Os -nostdlib -static -o "$t/tiny-ppc32-exec" "$t/tiny.c" 2>/dev/null
        powerpc-linux-gnu-gcc -Os -nostdlib -static-pie -fPIE -o "$t/tiny-ppc32-static-pie" "$t/tiny.c" 2>/dev/null
    }
    command -v aarch64-linux-gnu-gcc >/dev/null &&
        aarch64-linux-gnu-gcc -Os -nostdlib -static-pie -fPIE -Wl,-z,max-page-size=4096 \
            -o "$t/tiny-aarch64-static-pie" "$t/tiny.c" 2>/dev/null
    for f in "$t"/hello-* "$t"/lib-* "$t"/tiny-*; do
        [ -f "$f" ] && [ "$(stat -c %s "$f")" -le $MAXLEN ] && cp "$f" "$B/seeds/"
    done
    # A few small files from the system (executables and libraries).
    n=0
    for f in /usr/bin/true /usr/bin/env /usr/lib/x86_64-linux-gnu/libdl.so.2 \
             /usr/lib/x86_64-linux-gnu/librt.so.1 /usr/lib/x86_64-linux-gnu/libutil.so.1 \
             /usr/bin/sleep /usr/bin/basename; do
        [ -f "$f" ] && [ "$(stat -Lc %s "$f")" -le $MAXLEN ] &&
            cp -L "$f" "$B/seeds/sys-$(basename "$f")" && n=$((n + 1))
    done
    # Hostile variants of the small lld program (the fixture: lld moves text).
    if [ -f "$t/hello-lld" ] && bash "$ROOT/tests/hostile/gen.sh" "$t/hostile" "$t/hello-lld" >/dev/null; then
        for f in "$t"/hostile/* "$t"/hostile/base/*; do
            [ -f "$f" ] || continue
            case $(basename "$f") in *.txt) continue ;; esac
            [ "$(stat -c %s "$f")" -le $MAXLEN ] && cp "$f" "$B/seeds/hostile-$(basename "$f")"
        done
    fi
    rm -rf "$t"
    touch "$B/seeds/.done-2"
fi
if [ -d "$FOUND" ]; then
    for f in "$FOUND"/*; do [ -f "$f" ] && cp "$f" "$B/seeds/found-$(basename "$f")"; done
fi
if [ "$variant" = cli ]; then
    # The cli harness reads a selector byte first: each seed in each mode.
    for f in "$B"/seeds/*; do
        for sel in 0 1 2 3 4 5 8 9 11 13 16 32 66 130 196; do
            { printf "\\$(printf %03o $sel)"; cat "$f"; } > "$SEEDS/$sel-$(basename "$f")"
        done
    done
fi
echo "# seeds: $(ls "$SEEDS" | wc -l) files; corpus: $(ls "$CORPUS" | wc -l) files"

# --- run -------------------------------------------------------------------
before=$(ls "$B/crashes" | sort)
# The cli harness makes a scratch directory per process: keep them here.
export TMPDIR=$B/tmp
rm -rf "$TMPDIR" && mkdir -p "$TMPDIR"
echo "# fuzzing for $SECONDS_TO_RUN s (log: $LOG)"
start=$(date +%s)
"$BIN" -fork=1 -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1 \
    -max_total_time="$SECONDS_TO_RUN" -max_len=$MAXLEN -timeout=20 -rss_limit_mb=2048 \
    -artifact_prefix="$B/crashes/" ${FUZZ_FLAGS:-} \
    "$CORPUS" "$SEEDS" > "$LOG" 2>&1
rc=$?
elapsed=$(( $(date +%s) - start ))
rm -rf "$TMPDIR"

# Fork mode reports "#EXECS: cov: ... oom/timeout/crash: O/T/C time: ..." lines.
last=$(grep -E '^#[0-9]+: cov:' "$LOG" | tail -n 1)
execs=$(printf '%s\n' "$last" | sed -n 's/^#\([0-9]*\):.*/\1/p')
otc=$(printf '%s\n' "$last" | sed -n 's|.*oom/timeout/crash: \([0-9/]*\).*|\1|p')
cov=$(printf '%s\n' "$last" | sed -n 's/.* cov: \([0-9]*\).*/\1/p')
new=$(comm -13 <(printf '%s\n' "$before") <(ls "$B/crashes" | sort) | grep -v '^$')
ncrash=$(printf '%s\n' "$new" | grep -c '^crash-\|^leak-\|^timeout-\|^oom-')

echo "fuzz: ran $elapsed s, libFuzzer exit $rc"
echo "fuzz: executions ${execs:-unknown}, coverage ${cov:-?} edges, oom/timeout/crash ${otc:-?}"
echo "fuzz: $ncrash new crashing inputs in $B/crashes"
if [ "$ncrash" -gt 0 ]; then
    mkdir -p "$FOUND"
    for c in $new; do
        echo "## $c ($(stat -c %s "$B/crashes/$c") bytes) -> tests/hostile/found/$c"
        if [ "$variant" = cli ]; then
            tail -c +2 "$B/crashes/$c" > "$FOUND/cli-$c"     # without the selector
        else
            cp "$B/crashes/$c" "$FOUND/$c"
        fi
        "$BIN" "$B/crashes/$c" 2>&1 |
            grep -E '^(==[0-9]+==ERROR|SUMMARY|fuzz_[a-z_]*:|.*runtime error)|^ +#[0-9]+ ' | head -20
    done
fi
[ "$rc" -eq 0 ] && [ "$ncrash" -eq 0 ] && exit 0
exit 1
