#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# SPDX-FileCopyrightText: 2026 the elfthp-align authors
# scripts/funcsize.sh [MAX [MEDIAN]]: the length of every function in
# src/ (from its name's line to its closing brace, the project's style
# puts both at column 0), the longest named.  Fails when one is over MAX
# lines (60) or the median reaches MEDIAN (20): functions fit on a screen.
max=${1:-60} median=${2:-20}
cd "$(dirname "$0")/.." || exit 2
find src -name '*.c' | sort | xargs awk '
	FNR == 1 { name = "" }
	/^[A-Za-z_][A-Za-z_0-9]*\(/ { name = $0; sub(/\(.*/, "", name); start = FNR }
	/^}/ && name != "" { print FNR - start + 1, FILENAME ":" start, name; name = "" }
' | sort -n > "${TMPDIR:-/tmp}/funcsize.$$" || exit 2
n=$(wc -l < "${TMPDIR:-/tmp}/funcsize.$$")
med=$(awk -v n="$n" 'NR == int((n + 1) / 2) { print $1 }' "${TMPDIR:-/tmp}/funcsize.$$")
long=$(awk -v m="$max" '$1 > m' "${TMPDIR:-/tmp}/funcsize.$$")
echo "funcsize: $n functions, median $med lines, longest:"
tail -n 5 "${TMPDIR:-/tmp}/funcsize.$$" | sed 's/^/  /'
rm -f "${TMPDIR:-/tmp}/funcsize.$$"
rc=0
if [ -n "$long" ]; then
	echo "funcsize: FAILED: over $max lines:"
	printf '%s\n' "$long" | sed 's/^/  /'
	rc=1
fi
if [ "$med" -ge "$median" ]; then
	echo "funcsize: FAILED: the median ($med) is not under $median"
	rc=1
fi
exit $rc
