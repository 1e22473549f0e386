#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# SPDX-FileCopyrightText: 2026 the elfthp-align authors
# test_vm_table.sh BUILDDIR - the table of Debian kernels (docs/runtime.md) is what
# make check-vm measured (tests/vm/results.txt), made by tests/vm/table.sh.
# No VM is booted here (make check-vm does that).
#   - the table in docs/runtime.md is what table.sh makes from the results;
#   - a changed figure in a copy of the results makes --check fail (the
#     check can fail);
#   - every guest of tests/vm/matrix.txt has its tmpfs, ext4 and XFS rows.
. "$(dirname "$0")/lib.sh"
# No fixture is needed: BUILDDIR (given by run.sh) is not used.

VMT=$REPO_ROOT/tests/vm
table_same() {
    local out
    out=$(bash "$VMT/table.sh" --check "$@" 2>&1) && return 0
    WHY=$out; return 1
}
assert "docs/runtime.md: the measured-kernel table is what tests/vm/results.txt makes" table_same

# A copy of the results with one figure changed must not match.
awk '!/^#/ && !done && NF == 14 { $9 = ($9 == 0 ? 12345 : 0); done = 1 } { print }' \
    "$VMT/results.txt" > "$WORK/results.txt"
assert_not "docs/runtime.md: a changed result is noticed" table_same "$WORK/results.txt"

every_guest_measured() {
    local name fs missing=""
    for name in $(awk '!/^#/ && NF { print $1 }' "$VMT/matrix.txt"); do
        for fs in tmpfs ext4 xfs; do
            awk -v n="$name" -v f="$fs" '$1 == n && $5 == f { ok = 1 } END { exit !ok }' \
                "$VMT/results.txt" || missing="$missing $name/$fs"
        done
    done
    [ -z "$missing" ] && return 0
    WHY="no result for:$missing (make check-vm VM_UPDATE=1)"; return 1
}
assert "tests/vm/results.txt: every guest of the matrix, every file system" every_guest_measured
finish
