#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# SPDX-FileCopyrightText: 2026 the elfthp-align authors
# tests/mutation.sh: what `make mutation` runs.  Each file tests/mutants/NAME
# is a deliberate bug that removes one safety check:
#   why: the check it removes
#   find: one line of source, or a fragment of one, that occurs exactly
#         once across src/**/*.c (so a function that moves keeps its mutant)
#   replace: what replaces it
#   tests: the tests that must then fail, narrowest first, among
#          unit  rewrite  measure  integration:test_NAME.sh
# For each, a copy of the built tree (build/mutants/NAME: cp -a keeps the
# timestamps, so make recompiles only the mutated file; the fixtures in
# tests/build are linked, not copied) gets the bug, is built, and runs the
# tests until one fails.  A suite that passes with a check removed shows
# nothing about that check.  One line per mutant, then
#   mutation: N of M caught
# Exit 1 if any mutant survived, is stale (its find text is not in src/
# exactly once) or did not build.  MUTANTS="a b" runs only those;
# MUTATION_JOBS=N runs N mutants at a time (default 2).
# The tests named must pass on the tree as it is (they are run there
# first), and the tree must be built (make mutation builds it first).
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT" || exit 1
OUT=$ROOT/build/mutants
LIMIT=${MUTATION_TIMEOUT:-600}	# seconds per test command; longer is caught
# The tested tool is the copy's own ./elfthp-align (lib.sh's default).
unset ELFTHP_ALIGN ELFTHP_ALIGN_HOOKED INTEGRATION_RESULTS

# field FILE KEY: the value of "KEY: value" (everything after ": ").
field() {
	sed -n "s/^$2: //p" "$1" | head -n 1
}

# count_in_src TEXT: occurrences of TEXT (literal) across src/**/*.c.
count_in_src() {
	FIND=$1 perl -e '
		use File::Find; my $n = 0;
		find(sub { return unless /\.c$/ && -f;
			open(my $f, "<", $_) or die "$File::Find::name: $!";
			local $/; my $s = <$f>; my $p = 0;
			while (($p = index($s, $ENV{FIND}, $p)) >= 0) { $n++; $p++ }
		}, "src");
		print "$n\n";'
}

# mutate DIR TEXT NEW: replace the one occurrence in DIR/src; the file.
mutate() {
	(cd "$1" && FIND=$2 NEW=$3 perl -e '
		use File::Find; my @hit;
		find(sub { push @hit, $File::Find::name if /\.c$/ && -f }, "src");
		for my $name (@hit) {
			open(my $f, "<", $name) or die "$name: $!";
			local $/; my $s = <$f>; close $f;
			my $p = index($s, $ENV{FIND});
			next if $p < 0;
			substr($s, $p, length $ENV{FIND}) = $ENV{NEW};
			open($f, ">", $name) or die "$name: $!";
			print $f $s; close $f or die "$name: $!";
			print "$name\n"; exit 0;
		}
		exit 1;')
}

# copy_tree DIR: the built tree without build outputs of other targets,
# with the fixtures linked.
copy_tree() {
	rm -rf "$1" && mkdir -p "$1" || return 1
	tar -C "$ROOT" -cf - --exclude=./build --exclude=./tests/build \
	    --exclude=./bench/build --exclude=./fuzz/build \
	    --exclude=./examples/build --exclude=./.git . |
	    tar -C "$1" -xpf - || return 1
	[ -d "$ROOT/tests/build" ] && ln -s "$ROOT/tests/build" "$1/tests/build"
	return 0
}

unit_tests() {
	ls tests/unit/test_*.c | sed 's/\.c$//'
}

# targets WORD...: what make must build for those tests.
targets() {
	local w
	echo elfthp-align elfthp-audit.so
	for w in "$@"; do
		case $w in
		unit) unit_tests ;;
		rewrite) echo tests/test_rewrite ;;
		measure) echo tests/test_measure ;;
		integration:*)
			grep -q 'build/hooks' "tests/integration/${w#integration:}" &&
			    echo build/hooks/elfthp-align ;;
		esac
	done
}

# run_word DIR WORD LOG: run one test word in DIR; 0 if it passed, else
# prints what failed.
run_word() {
	local dir=$1 w=$2 log=$3 t rc=0 bad
	case $w in
	unit | rewrite | measure)
		case $w in
		unit) set -- $(cd "$dir" && unit_tests) ;;
		rewrite) set -- tests/test_rewrite ;;
		measure) set -- tests/test_measure ;;
		esac
		for t in "$@"; do
			(cd "$dir" && CMOCKA_MESSAGE_OUTPUT=TAP timeout "$LIMIT" \
			    "./$t") >>"$log" 2>&1 && continue
			rc=$?
			bad=$(grep -m 3 '^not ok' "$log" |
			    sed 's/^not ok [0-9]* - //' | paste -sd, -)
			[ "$rc" -eq 124 ] && bad="timed out after ${LIMIT}s"
			echo "${t#tests/}${bad:+: $bad}"
			return 1
		done ;;
	integration:*)
		t=${w#integration:}
		[ -f "$dir/tests/integration/$t" ] ||
		    { echo "no tests/integration/$t"; return 2; }
		(cd "$dir" && ELFTHP_FAIL_FAST=1 timeout "$LIMIT" bash \
		    "tests/integration/$t" tests/build) >>"$log" 2>&1 && return 0
		rc=$?
		bad=$(grep -m 1 '^FAIL - ' "$log" | sed 's/^FAIL - //' |
		    cut -c 1-80)
		[ "$rc" -eq 124 ] && bad="timed out after ${LIMIT}s"
		echo "$t${bad:+: $bad}"
		return 1 ;;
	*)
		echo "unknown test word '$w'"
		return 2 ;;
	esac
	return 0
}

# one NAME: prints the mutant's line; 0 caught, 1 survived or broken.
one() {
	local name=$1 file=tests/mutants/$1 dir=$OUT/$1 find new tests n w by
	local log=$OUT/$1.log rc
	if ! [[ $name =~ ^[a-z0-9-]+$ ]] || [ ! -f "$file" ]; then
		echo "BROKEN    $name: no such mutant (tests/mutants/NAME, NAME in [a-z0-9-])"
		return 1
	fi
	find=$(field "$file" find) new=$(field "$file" replace)
	tests=$(field "$file" tests)
	if [ -z "$find" ] || [ -z "$tests" ] || ! grep -q '^replace: ' "$file"; then
		echo "BROKEN    $name: needs find:, replace: and tests: lines"
		return 1
	fi
	for w in $tests; do
		case $w in
		unit | rewrite | measure) ;;
		integration:test_*.sh) [ -f "tests/integration/${w#*:}" ] ||
		    { echo "BROKEN    $name: no tests/integration/${w#*:}"; return 1; } ;;
		*) echo "BROKEN    $name: unknown test word '$w'"; return 1 ;;
		esac
	done
	n=$(count_in_src "$find")
	if [ "$n" != 1 ]; then
		echo "STALE     $name: its find text occurs $n times in src/**/*.c, not once: '$find'"
		return 1
	fi
	if ! copy_tree "$dir" || ! mutate "$dir" "$find" "$new" >"$log"; then
		echo "BROKEN    $name: cannot copy the tree or apply the mutant"
		return 1
	fi
	if ! (cd "$dir" && make -j2 $(targets $tests)) >>"$log" 2>&1; then
		echo "BROKEN    $name: the mutant does not build (see $log)"
		return 1
	fi
	for w in $tests; do
		by=$(run_word "$dir" "$w" "$log")
		rc=$?
		if [ "$rc" -eq 0 ]; then
			continue
		elif [ "$rc" -eq 2 ]; then
			echo "BROKEN    $name: $by"
			return 1
		fi
		echo "caught    $name: by $by"
		rm -rf "$dir"
		return 0
	done
	echo "SURVIVED  $name: $(field "$file" why); $tests all pass (see $log)"
	return 1
}

mkdir -p "$OUT" || exit 1
if [ -n "${MUTANTS:-}" ]; then
	set -- $MUTANTS
else
	set -- $(ls tests/mutants)
fi
# A test that fails without any mutant would seem to catch them all: each
# test the mutants name must pass on the tree as it is, first.
words=$(for m in "$@"; do [ -f "tests/mutants/$m" ] &&
    field "tests/mutants/$m" tests; done | tr " " "\n" | sort -u)
t0=$(date +%s)
# The integration scripts need the fixtures; after `make clean` (as in CI)
# there are none: build them (up-to-date ones are kept).
case $words in
*integration:*)
	if ! "$ROOT/tests/fixtures/build.sh" "$ROOT/tests/build" \
	    >"$OUT/fixtures.log" 2>&1; then
		echo "mutation: the fixtures did not build ($OUT/fixtures.log)"
		exit 1
	fi ;;
esac
# MUTATION_JOBS at a time too, each word with a log of its own.
JOBS=${MUTATION_JOBS:-2}
rm -f "$OUT"/baseline*.log "$OUT"/baseline.fail
for w in $words; do
	while [ "$(jobs -rp | wc -l)" -ge "$JOBS" ]; do
		wait -n
	done
	( log=$OUT/baseline-${w//[:.\/]/_}.log
	  : >"$log"
	  by=$(run_word "$ROOT" "$w" "$log")
	  [ $? -eq 1 ] && echo "mutation: $by fails without any mutant" \
	      "($log): fix it first" >>"$OUT/baseline.fail" ) &
done
wait
if [ -s "$OUT/baseline.fail" ]; then
	cat "$OUT/baseline.fail"
	exit 1
fi
# The mutants run MUTATION_JOBS at a time (default 2: each in its own copy,
# its tests under their own scratch directories, as two make checks can
# run side by side); each prints its line when it ends.
total=0
for m in "$@"; do
	total=$((total + 1))
	while [ "$(jobs -rp | wc -l)" -ge "$JOBS" ]; do
		wait -n
	done
	( one "$m"; echo $? >"$OUT/$m.rc" ) &
done
wait
caught=0
for m in "$@"; do
	[ "$(cat "$OUT/$m.rc" 2>/dev/null)" = 0 ] && caught=$((caught + 1))
	rm -f "$OUT/$m.rc"
done
echo "mutation: $caught of $total caught ($(( $(date +%s) - t0 )) s)"
[ "$caught" -eq "$total" ] && [ "$total" -gt 0 ]
