#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# SPDX-FileCopyrightText: 2026 the elfthp-align authors
# run.sh [BUILDDIR] - build the fixtures and run every integration test.
#
# Builds tests/fixtures into BUILDDIR (default tests/build; up-to-date
# fixtures are not rebuilt), then runs every test_*.sh here, in name order,
# against the tool ($ELFTHP_ALIGN, default ./elfthp-align;
# this script does not build it).  Ends with
#   integration: N passed, N failed, N skipped
# and exits 1 if anything failed (a script that dies without its summary
# counts as one failure).
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
BUILD=${1:-$ROOT/tests/build}

t0=$(date +%s)
if ! "$ROOT/tests/fixtures/build.sh" "$BUILD"; then
    echo "fixture build failed"
    echo "integration: 0 passed, 1 failed, 0 skipped"
    exit 1
fi
echo "# fixtures: $(( $(date +%s) - t0 )) s"

INTEGRATION_RESULTS=$(mktemp "${TMPDIR:-/tmp}/elfthp-results.XXXXXX") || exit 1
export INTEGRATION_RESULTS
trap 'rm -f "$INTEGRATION_RESULTS"' EXIT

pass=0 failed=0 skipped=0 notok=
for t in $(cd "$HERE" && ls test_*.sh); do
    echo "# $t"
    t1=$(date +%s)
    out=$(mktemp "${TMPDIR:-/tmp}/elfthp-out.XXXXXX") || exit 1
    # To a file, not a pipe: a child a test leaves behind cannot hold
    # the suite up by keeping the pipe open.
    bash "$HERE/$t" "$BUILD" > "$out" 2>&1
    rc=$?
    cat "$out"
    notok="$notok$(grep -E '^(not ok|FAIL)' "$out" | sed "s|^|$t: |" | head -n 20)
"
    rm -f "$out"
    echo "# $t: $(( $(date +%s) - t1 )) s"
    line=$(grep "^$t " "$INTEGRATION_RESULTS")
    if [ -z "$line" ]; then
        echo "FAIL - $t finished: it exited ($rc) without a summary"
        notok="$notok$t: exited ($rc) without a summary
"
        failed=$((failed + 1))
        continue
    fi
    read -r _ p f s <<< "$line"
    pass=$((pass + p)) failed=$((failed + f)) skipped=$((skipped + s))
done

# CI shows only the log's tail: the failures are repeated there.
notok=$(printf '%s' "$notok" | sed '/^$/d')
[ -n "$notok" ] && printf '# integration checks that failed:\n%s\n' "$notok"
echo "# total: $(( $(date +%s) - t0 )) s"
echo "integration: $pass passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
