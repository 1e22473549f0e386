#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# SPDX-FileCopyrightText: 2026 the elfthp-align authors
# table.sh [--check] [RESULTS [DOC]] - the table of measured
# kernels, made from tests/vm/results.txt (what make check-vm measured).
#
#   bash tests/vm/table.sh           rewrite the table in docs/runtime.md
#   bash tests/vm/table.sh --check   change nothing; exit 1 (with a diff) if
#                                    the table is not what RESULTS makes
#                                    (tests/integration/test_vm_table.sh)
#
# The table lies between "<!-- vm-table: tests/vm/results.txt -->" and
# "<!-- end vm-table -->".  No VM is booted here.
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
check=0
[ "${1:-}" = --check ] && { check=1; shift; }
RESULTS=${1:-$ROOT/tests/vm/results.txt}
README=${2:-$ROOT/docs/runtime.md}   # the file that holds the table
die() { echo "table.sh: $*" >&2; exit 2; }
[ -f "$RESULTS" ] || die "$RESULTS: no such file"
[ -f "$README" ] || die "$README: no such file"

# kb N: a figure as the table shows it.
table() {
    echo "| kernel (Debian) | arch | page | PMD | file system | after the rewrite | cold (cache dropped) | after \`--warm\` | \`elfthp-align FILE\` on a \`cp\` | \`--host\` says |"
    echo "|---|---|---|---|---|---|---|---|---|---|"
    awk '!/^#/ && NF == 14 {
        pmd = ($4 == "16k") ? "32 MiB" : "2 MiB"
        fs = ($5 == "tmpfs") ? "tmpfs `huge=always`" : ($5 == "xfs" ? "XFS" : $5)
        printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n",
            $2, $3, $4, pmd, fs, kb($9, $7), kb($10, $7), kb($11, $7), kb($13, $7), $14
    }
    function kb(v, full) {
        if (v == "-") return "-"
        if (v == 0) return "0 kB"
        return v " kB" (v == full ? " (all)" : "")
    }' "$RESULTS"
}

new=$(mktemp) || exit 2
trap 'rm -f "$new"' EXIT
awk -v tbl="$(table)" '
    /^<!-- vm-table: / { print; print tbl; skip = 1; found = 1; next }
    /^<!-- end vm-table -->$/ { skip = 0 }
    !skip { print }
    END { if (!found) exit 3 }' "$README" > "$new"
case $? in
    0) ;;
    3) die "$README has no <!-- vm-table: ... --> block" ;;
    *) die "cannot read $README" ;;
esac
if [ $check -eq 1 ]; then
    if cmp -s "$README" "$new"; then
        echo "same: the measured-kernel table of ${README#"$ROOT"/} is what ${RESULTS#"$ROOT"/} makes"
        exit 0
    fi
    echo "differ: the measured-kernel table of ${README#"$ROOT"/} (run bash tests/vm/table.sh)"
    diff -u --label "${README#"$ROOT"/}" --label generated "$README" "$new" | sed 's/^/    /'
    exit 1
fi
if cmp -s "$README" "$new"; then
    echo "${README#"$ROOT"/}: measured-kernel table unchanged"
else
    cat "$new" > "$README" && echo "${README#"$ROOT"/}: measured-kernel table regenerated"
fi
