#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# SPDX-FileCopyrightText: 2026 the elfthp-align authors
# tests/run.sh UNIT_TEST...: what `make check` runs.  Each cmocka unit test
# binary given, then the integration suite (tests/integration/run.sh), and
# one closing line that adds them up:  check: N passed, N failed, N skipped
set -u
pass=0 fail=0 skip=0 failed=
for t in "$@"; do
	out=$(CMOCKA_MESSAGE_OUTPUT=TAP "./$t" 2>&1)
	rc=$?
	printf '%s\n' "$out"
	p=$(printf '%s\n' "$out" | grep -c '^ok ')
	f=$(printf '%s\n' "$out" | grep -c '^not ok ')
	# A crash before any verdict still counts as a failure.
	[ "$rc" -ne 0 ] && [ "$f" -eq 0 ] && f=1
	pass=$((pass + p)) fail=$((fail + f))
	# CI shows only the log's tail: the failures are repeated there.
	if [ "$f" -ne 0 ]; then
		failed="$failed$(printf '%s\n' "$out" | grep -A12 '^not ok ' |
		    sed "s|^|$t: |")
$t: exit status $rc
"
	fi
done
if [ "${SKIP_INTEGRATION:-0}" = 1 ]; then
	echo "integration tests skipped: SKIP_INTEGRATION=1"
else
	log=$(mktemp)
	bash tests/integration/run.sh 2>&1 | tee "$log"
	sum=$(grep -E '^integration: [0-9]+ passed, [0-9]+ failed' "$log" | tail -n 1)
	rm -f "$log"
	if [ -z "$sum" ]; then
		echo "integration suite ended without a summary"
		fail=$((fail + 1))
	else
		set -- $(printf '%s\n' "$sum" | tr -dc '0-9 ')
		pass=$((pass + $1)) fail=$((fail + $2)) skip=$((skip + ${3:-0}))
	fi
fi
[ -n "$failed" ] && printf '# unit tests that failed:\n%s' "$failed"
echo "check: $pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
