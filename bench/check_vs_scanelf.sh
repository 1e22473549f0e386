#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# SPDX-FileCopyrightText: 2026 the elfthp-align authors
# check_vs_scanelf.sh [DIR...] - how fast is elfthp-align --check -r over
# system directories, next to scanelf (pax-utils) walking the same trees?
#
#   elfthp-align --check -r -q DIR...   (exits 1 when a file needs rewriting:
#                                        expected, hence hyperfine -i)
#   scanelf -R -q -e DIR...
#
# DIRs default to /usr/bin /usr/lib/x86_64-linux-gnu.  The tool is
# $ELFTHP_ALIGN, default ./elfthp-align in the repository root.  Both
# commands run once first to warm the page cache (and hyperfine warms up
# again), then hyperfine measures them side by side in one run.  Prints
# both means and the ratio tool/scanelf.  Needs hyperfine, scanelf, python3.
# Extra hyperfine options can be given in $HYPERFINE_OPTS (e.g. "--runs 5").
set -eu

ROOT=$(cd "$(dirname "$0")/.." && pwd)
TOOL=${ELFTHP_ALIGN:-$ROOT/elfthp-align}
if [ $# -gt 0 ]; then
    DIRS=("$@")
else
    DIRS=(/usr/bin /usr/lib/x86_64-linux-gnu)
fi

for c in hyperfine scanelf python3; do
    command -v "$c" >/dev/null ||
        { echo "check_vs_scanelf.sh: $c not installed" >&2; exit 1; }
done
[ -x "$TOOL" ] ||
    { echo "check_vs_scanelf.sh: $TOOL not found (run make, or set ELFTHP_ALIGN)" >&2; exit 1; }
for d in "${DIRS[@]}"; do
    [ -d "$d" ] || { echo "check_vs_scanelf.sh: $d: not a directory" >&2; exit 1; }
done

q() { printf '%q ' "$@"; }
tool_cmd="$(q "$TOOL" --check -r -q "${DIRS[@]}")"
scan_cmd="$(q scanelf -R -q -e "${DIRS[@]}")"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/check_vs_scanelf.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# Warm the cache: every file is read once by each command.
echo "# warming the cache: ${DIRS[*]}"
"$TOOL" --check -r -q "${DIRS[@]}" > "$tmp/tool.out" 2> "$tmp/tool.err" || true
scanelf -R -q -e "${DIRS[@]}" > /dev/null 2>&1 || true
echo "# elfthp-align: $(grep '^checked ' "$tmp/tool.out" | tail -n 1)"
echo "# $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg)"

# shellcheck disable=SC2086
hyperfine -i --warmup 2 --min-runs 10 ${HYPERFINE_OPTS:-} \
    --export-json "$tmp/result.json" \
    -n "elfthp-align --check -r -q" "$tool_cmd" \
    -n "scanelf -R -q -e" "$scan_cmd"

python3 - "$tmp/result.json" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))["results"]
tool, scan = r[0], r[1]
print()
print("elfthp-align --check -r -q: mean %8.1f ms  (stddev %.1f ms, %d runs)"
      % (tool["mean"] * 1e3, tool["stddev"] * 1e3, len(tool["times"])))
print("scanelf -R -q -e:           mean %8.1f ms  (stddev %.1f ms, %d runs)"
      % (scan["mean"] * 1e3, scan["stddev"] * 1e3, len(scan["times"])))
print("ratio elfthp-align / scanelf: %.3f" % (tool["mean"] / scan["mean"]))
EOF
