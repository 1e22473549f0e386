#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# SPDX-FileCopyrightText: 2026 the elfthp-align authors
# tests/mutation.sh TEST...: what `make mutation` runs.  The test binaries
# given were built with plan_verify stubbed to `return 0`
# (-DELFTHP_MUTANT_VERIFY, in build/mutant): a suite that cannot tell is
# a suite that shows nothing about the safety net.  Exit 0 if some tests
# fail, naming them; exit 1 if every test passes with the mutant.
set -u
log=$(SKIP_INTEGRATION=1 sh tests/run.sh "$@" 2>&1)
sum=$(printf '%s\n' "$log" | grep -E '^check: [0-9]+ passed, [0-9]+ failed' |
    tail -n 1)
if [ -z "$sum" ]; then
	printf '%s\n' "$log"
	echo "mutation: the suite ended without a summary"
	exit 1
fi
set -- $(printf '%s\n' "$sum" | tr -dc '0-9 ')
passed=$1 failed=$2
if [ "$failed" -eq 0 ]; then
	echo "mutation: FAILED: with plan_verify stubbed to 'return 0', all" \
	    "$passed tests still pass: nothing shows the plan check can say no"
	exit 1
fi
echo "mutation: plan_verify stubbed to 'return 0': $failed of" \
    "$((passed + failed)) tests fail, as they must; caught by:"
printf '%s\n' "$log" | sed -n 's/^not ok [0-9]* - /  /p'
exit 0
