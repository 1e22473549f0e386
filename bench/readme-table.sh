#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# SPDX-FileCopyrightText: 2026 the elfthp-align authors
# readme-table.sh [TABLE [README]] - put the "what did it buy?" table that
# bench/part6-compilers.sh wrote (TABLE, default $B/part6-table.md: rows made
# by `benchlib.py measure-table` from `elfthp-align --measure` JSON) into
# README.md, between "<!-- buy-table: ... -->" and "<!-- end buy-table -->".
#   bash bench/part6-compilers.sh && bash bench/readme-table.sh
. "$(dirname "$0")/lib.sh"
TABLE=${1:-$B/part6-table.md}
README=${2:-$REPO/README.md}
[ -s "$TABLE" ] || die "$TABLE: run bench/part6-compilers.sh first"
new=$(mktemp) || exit 2
trap 'rm -f "$new"' EXIT
awk -v tbl="$(cat "$TABLE")" -v when="$(date -u '+%Y-%m-%d')" '
    /^<!-- buy-table: / { print "<!-- buy-table: bench/part6-compilers.sh, " when " -->"; print tbl
                          skip = 1; found = 1; next }
    /^<!-- end buy-table -->$/ { skip = 0 }
    !skip { print }
    END { if (!found) exit 3 }' "$README" >"$new"
case $? in
0) ;;
3) die "$README has no <!-- buy-table: ... --> block" ;;
*) die "cannot read $README" ;;
esac
cat "$new" >"$README" && log "README.md: the --measure table regenerated from ${TABLE#"$REPO"/}"
