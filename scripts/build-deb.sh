#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# SPDX-FileCopyrightText: 2026 the elfthp-align authors
# build-deb.sh [OUTDIR]: build the Debian package from this tree with
# packaging/debian, as a distribution would (dpkg-buildpackage -us -uc -b,
# which runs the unit tests), then run lintian on it.  The .deb and the
# lintian report land in OUTDIR (default build/deb).  Exits non-zero if the
# build fails or lintian reports an error or a warning not overridden in
# packaging/debian/elfthp-align.lintian-overrides.
set -eu
cd "$(dirname "$0")/.."
OUT=$(mkdir -p "${1:-build/deb}" && cd "${1:-build/deb}" && pwd)
TMP=$(mktemp -d "${TMPDIR:-/tmp}/elfthp-deb.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
SRC=$TMP/elfthp-align-$(cat VERSION)
mkdir -p "$SRC"
# The tracked files as they are now (uncommitted edits included), without
# build outputs.
git ls-files -z | xargs -0 cp -P --parents -t "$SRC"
cp -r packaging/debian "$SRC/debian"
(cd "$SRC" && dpkg-buildpackage -us -uc -b) > "$OUT/build.log" 2>&1 || {
	tail -40 "$OUT/build.log"
	echo "build-deb: dpkg-buildpackage failed (log: $OUT/build.log)"
	exit 1
}
grep -E '^check: ' "$OUT/build.log" || true
rm -f "$OUT"/*.deb
cp "$TMP"/*.deb "$TMP"/*.changes "$TMP"/*.buildinfo "$OUT/"
# --fail-on: error and warning; info and pedantic tags are printed.
rc=0
lintian --info --fail-on error,warning "$TMP"/*.changes > "$OUT/lintian.txt" 2>&1 || rc=$?
cat "$OUT/lintian.txt"
echo "build-deb: $(ls "$OUT"/*.deb | tr '\n' ' ')lintian exit $rc"
exit $rc
