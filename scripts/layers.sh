#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# SPDX-FileCopyrightText: 2026 the elfthp-align authors
# scripts/layers.sh: the dependency picture of src/, checked.
#
# Layers, lowest first: core (pure: src/core, src/segment_pad.c), io
# (src/io, src/phdr_rewrite.c), cli (src/cli, src/main.c, src/report.c).
#  1. #include lines: a layer includes its own header and those below it
#     (core: elfthp_core.h, elfthp_util.h; io: + elfthp_io.h; cli: +
#     elfthp_cli.h), and only the io layer includes <libelf.h>/<gelf.h>
#     (and libzip's <zip.h>).
#  2. nm -u of every object: an arrow (a symbol one object uses and another
#     defines) never runs up a layer, and the arrows make no circle
#     (tsort).  -v prints the arrows.
#  3. A core object imports nothing but the allow-list below (allocation,
#     sorting, strings, formatting into a buffer; the compiler's hardening
#     and sanitizer hooks): no I/O, no libelf, no clock, no environment.
# Run after `make` (make check runs it); exit 1 on any violation.
set -u
cd "$(dirname "$0")/.." || exit 2
verbose=0
[ "${1:-}" = -v ] && verbose=1
ALLOW='calloc malloc realloc reallocarray free qsort memcpy memmove memset
memcmp strcmp strncmp strlen strstr strchr strrchr strtoul strtoull
snprintf vsnprintf
__snprintf_chk __vsnprintf_chk __memcpy_chk __memmove_chk __memset_chk
__stack_chk_fail'
fail=0
bad() { echo "layers: FAILED: $*"; fail=1; }

layer_of() {
	case $1 in
	src/core/*|src/segment_pad.*) echo core ;;
	src/io/*|src/phdr_rewrite.*) echo io ;;
	src/audit/*) echo audit ;;
	src/cli/*|src/main.*|src/report.*) echo cli ;;
	*) echo unknown ;;
	esac
}
rank() { case $1 in core) echo 0 ;; io) echo 1 ;; cli) echo 2 ;; *) echo 9 ;; esac; }

srcs=$(find src -name '*.c' | sort)
# 1. includes.
for f in $srcs include/*.h; do
	case $f in
	include/elfthp_core.h|include/elfthp_util.h) l=core ;;
	include/elfthp_io.h) l=io ;;
	include/elfthp_cli.h) l=cli ;;
	*) l=$(layer_of "$f") ;;
	esac
	[ "$l" = unknown ] && { bad "$f: in no layer (src/core, src/io, src/cli)"; continue; }
	for h in $(sed -n 's/^#include "\([^"]*\)".*/\1/p' "$f"); do
		case $h in
		elfthp_core.h|elfthp_util.h) hl=core ;;
		elfthp_io.h) hl=io ;;
		elfthp_cli.h) hl=cli ;;
		*) bad "$f includes \"$h\", no layer's header"; continue ;;
		esac
		[ "$(rank "$hl")" -le "$(rank "$l")" ] ||
		    bad "$f ($l) includes $h ($hl): an arrow up"
	done
	if grep -q '^#include <\(libelf\|gelf\|zip\)\.h>' "$f" && [ "$l" != io ]; then
		bad "$f ($l) includes libelf or libzip: only the io layer may"
	fi
done

# 2. and 3. symbols.
objs=$(echo "$srcs" | sed 's/\.c$/.o/')
for o in $objs; do
	[ -f "$o" ] || { echo "layers: $o is missing: run make first"; exit 2; }
done
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT
for o in $objs; do
	nm --defined-only "$o" | awk -v o="$o" '$2 ~ /^[TDRB]$/ { print $3, o }'
done | sort > "$tmp/defs"
for o in $objs; do
	nm -u "$o" | awk '{ print $2 }' | sort -u > "$tmp/u"
	join "$tmp/u" "$tmp/defs" | awk -v o="$o" '$2 != o { print o, $2, $1 }'
	if [ "$(layer_of "$o")" = core ]; then
		join -v 1 "$tmp/u" "$tmp/defs" | while read -r s; do
			case " $(echo $ALLOW) " in *" $s "*) continue ;; esac
			case $s in __asan_*|__ubsan_*|__sanitizer_*|__lsan_*) continue ;; esac
			echo "IMPORT $o $s"
		done
	fi
done > "$tmp/edges"
grep '^IMPORT ' "$tmp/edges" | while read -r _ o s; do
	echo "layers: FAILED: $o (core) imports $s, outside the allow-list"
done | grep . && fail=1
grep -v '^IMPORT ' "$tmp/edges" > "$tmp/arrows"
while read -r from to sym; do
	fl=$(layer_of "$from") tl=$(layer_of "$to")
	[ "$(rank "$tl")" -le "$(rank "$fl")" ] ||
	    echo "layers: FAILED: $from ($fl) uses $sym from $to ($tl): an arrow up"
done < "$tmp/arrows" | grep . && fail=1
awk '{ print $1, $2 }' "$tmp/arrows" | sort -u > "$tmp/pairs"
if ! tsort "$tmp/pairs" > /dev/null 2> "$tmp/loops"; then
	bad "a circle among the objects:"
	sed 's/^/  /' "$tmp/loops"
fi
if [ "$verbose" = 1 ]; then
	sed 's/\.o//g; s/ / -> /' "$tmp/pairs"
fi
echo "layers: $(echo "$objs" | wc -l) objects, $(wc -l < "$tmp/pairs") arrows," \
    "$(grep -c . "$tmp/arrows") symbols across objects"
[ "$fail" = 0 ] && echo "layers: ok: no arrow up, no circle, core imports only the allow-list"
exit "$fail"
