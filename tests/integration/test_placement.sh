#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# SPDX-FileCopyrightText: 2026 the elfthp-align authors
# test_placement.sh BUILDDIR - one rule for "will the load base be
# aligned", measured where the host decides it.  ext4 and XFS place a file
# mapping of a PMD or more at an address congruent to its offset, so
# ld.so maps a shared library PMD-aligned whatever its p_align; overlayfs
# does not.  The fixture libbig.so (GNU ld: congruent segments, 4 KiB
# p_align) is copied, never rewritten, onto each file system, its cache
# dropped; then:
#   - ext4 and XFS: --warm exits 0 and calls every window huge, with no
#     "run elfthp-align first"; shared-main, run from there, maps exactly
#     W x 2 MiB of it with PMDs (W from readelf); --report's measured row
#     has huge_bytes_now W x 2 MiB and costs 0 bits of ASLR; --check still
#     asks for the rewrite (it judges the file, which may be installed
#     where the rule does not hold);
#   - the negative control, an overlay over the same ext4 directory: the
#     program maps 0 kB; --warm exits 1 with "run elfthp-align first" and
#     --report says 0 B now;
#   - under `ulimit -v 65536` the look still works (it maps two PMDs at a
#     time, never the file).
# Needs root (loop and overlay mounts), x86_64 with 2 MiB PMDs.
. "$(dirname "$0")/lib.sh"
need_builddir "$@"
need_tool

if [ "$(uname -m)" != x86_64 ] || [ "$(id -u)" -ne 0 ] ||
   [ "$(cat /sys/kernel/mm/transparent_hugepage/hpage_pmd_size 2>/dev/null)" != 2097152 ]; then
    skip "placement" "needs root on x86_64 with 2 MiB PMDs"
    finish
fi
for t in mkfs.ext4 mkfs.xfs python3 readelf; do
    command -v "$t" >/dev/null || { fail "$t installed" "make deps installs it"; finish; }
done
fixture_line shared || { skip "placement" "fixture shared not built"; finish; }
LIB=$BUILD/$FX_FILE MAIN=$BUILD/$FX_MAIN

# W: the library's windows, counted from readelf alone.
W=0
while read -r _ t o v _ fs _ fl _; do
    [ "$t" = LOAD ] || continue
    case $fl in *W*) continue ;; esac
    [ $(( (o - v) % TARGET )) -eq 0 ] && W=$((W + $(windows "$v" "$fs" "$TARGET")))
done < <(elf_phdrs "$LIB")
if [ "$W" -lt 2 ]; then
    fail "the fixture has windows" "libbig.so has $W"
    finish
fi
WANT_KB=$((W * 2048))

# place DIR: the library and its program in DIR, the library's cache cold.
place() {
    cp "$LIB" "$MAIN" "$1/" && drop_cache "$1/$(basename "$LIB")"
}

says() {  # says OUT TEXT: the tool's output holds TEXT
    case $1 in *"$2"*) return 0 ;; esac
    WHY="output [$1] lacks [$2]"; return 1
}

json_field() {  # json_field FIELD: from the measured row of --report's JSON
    python3 -c 'import json, sys
d = json.load(sys.stdin)
rows = [g for f in d.get("files", [d]) for g in f.get("geometries", []) if g.get("measured")]
print(rows[0][sys.argv[1]] if rows else "none")' "$1"
}

aligned_host() {  # aligned_host DIR FS
    local d=$1 fs=$2 lib=$1/$(basename "$LIB") out rc
    out=$("$TOOL" --warm "$lib" 2>&1); rc=$?
    assert "$fs: --warm of the unrewritten library exits 0" rc_is "$rc" 0
    assert "$fs: --warm calls all $W windows huge" says "$out" "$W of $W windows huge"
    assert_not "$fs: --warm does not ask for a rewrite" says "$out" "run elfthp-align first"
    if run_pmd "$lib" "$d/$(basename "$MAIN")"; then
        assert "$fs: the program maps $WANT_KB kB of it with PMDs" kb_is "shared-main" "$RUN_KB" "$WANT_KB"
    else
        fail "$fs: shared-main runs" "$WHY"
    fi
    out=$("$TOOL" --report --format json "$lib" 2>/dev/null)
    assert "$fs: --report measures $W windows huge now" equals huge_bytes_now "$(json_field huge_bytes_now <<< "$out")" $((W * TARGET))
    assert "$fs: --report: the rewrite costs no ASLR here" equals aslr_bits_lost "$(json_field aslr_bits_lost <<< "$out")" 0
    "$TOOL" --check -q "$lib" >/dev/null 2>&1; rc=$?
    assert "$fs: --check still asks for the rewrite (the file's own verdict)" rc_is "$rc" 1
    out=$("$TOOL" --check -v "$lib" 2>&1)
    assert "$fs: --check -v counts this host's $W windows now, as --report does" says "$out" \
        "(windows: 0 now, $W on this host, whose file system aligns its base; "
    if grep -qa __asan_init "$TOOL"; then
        skip "$fs: under ulimit -v 65536" "AddressSanitizer reserves terabytes of address space at start"
    else
        out=$(ulimit -v 65536; "$TOOL" --warm "$lib" 2>&1); rc=$?
        assert "$fs: under ulimit -v 65536 --warm still answers (exit 0)" rc_is "$rc" 0
    fi
}

E=$WORK/ext4
mount_image ext4 "$E"; rc=$?
if [ $rc -ne 0 ]; then
    [ $rc -eq 2 ] && skip "ext4" "$WHY" || fail "ext4 image" "$WHY"
    finish
fi
mkdir -p "$E/lower" && place "$E/lower" || { fail "copy to ext4" "cp failed"; finish; }
aligned_host "$E/lower" ext4

X=$WORK/xfs
mount_image xfs "$X"; rc=$?
if [ $rc -eq 0 ]; then
    place "$X" && aligned_host "$X" xfs
else
    [ $rc -eq 2 ] && skip "xfs" "$WHY" || fail "xfs image" "$WHY"
fi

# A user who may not write the file cannot see its page cache (cachestat
# and mincore answer only for writers): --report prints the whole report,
# exit 0, with the page cache said unknown and why, and its geometry's row
# the model's, never a measurement it could not make; root's report of the
# same file is measured (the control).
if command -v setpriv >/dev/null; then
    pub=$(mktemp -d "${TMPDIR:-/tmp}/elfthp-pub.XXXXXX") && chmod 755 "$pub" &&
        cp "$E/lower/$(basename "$LIB")" "$pub/" && chmod 644 "$pub/$(basename "$LIB")"
    pf=$pub/$(basename "$LIB")
    out=$(setpriv --reuid=nobody --regid=nogroup --clear-groups "$TOOL" --report "$pf" 2>&1); rc=$?
    json=$(setpriv --reuid=nobody --regid=nogroup --clear-groups "$TOOL" --report --format json "$pf" 2>&1)
    rout=$("$TOOL" --report "$pf" 2>&1)
    rm -rf "$pub"
    assert "nobody: --report of root's file exits 0" rc_is "$rc" 0
    assert "nobody: the page cache is unknown, and why" says "$(printf '%s\n' "$out" | head -1)" \
        "; page cache: unknown (the kernel shows a file's page cache only to a user who may write it: HUGE.NOW and HUGE.AFT are the model's)"
    assert "nobody: the whole table, its geometry's row the model's" says "$out" "  x86_64-4k        model "
    assert "nobody: JSON says so (page_cache_unknown), no page_cache object" equals "json" \
        "$(printf '%s\n' "$json" | python3 -c 'import json, sys
o = json.loads(sys.stdin.readline()); print("page_cache_unknown" in o, "page_cache" in o, len(o["geometries"]) > 0)')" \
        "True False True"
    assert "control: root's report of the same file is measured" says "$rout" "  x86_64-4k        measured "
fi

# The negative control: the same files through an overlay.
O=$WORK/ovl
mkdir -p "$E/upper" "$E/work" "$O"
if ! err=$(mount -t overlay overlay -o "lowerdir=$E/lower,upperdir=$E/upper,workdir=$E/work" "$O" 2>&1); then
    skip "overlayfs control" "mount: $err"
    finish
fi
MOUNTS="$O $MOUNTS"
lib=$O/$(basename "$LIB")
drop_cache "$E/lower/$(basename "$LIB")"
"$TOOL" --warm "$E/lower/$(basename "$LIB")" >/dev/null 2>&1
if run_pmd "$lib" "$O/$(basename "$MAIN")"; then
    assert "overlay: the program maps 0 kB (the base is not aligned there)" kb_is "shared-main" "$RUN_KB" 0
else
    fail "overlay: shared-main runs" "$WHY"
fi
out=$("$TOOL" --warm "$lib" 2>&1); rc=$?
assert "overlay: --warm exits 1" rc_is "$rc" 1
assert "overlay: --warm asks for the rewrite" says "$out" "run elfthp-align first"
out=$("$TOOL" --report --format json "$lib" 2>/dev/null)
assert "overlay: --report measures 0 B huge now" equals huge_bytes_now "$(json_field huge_bytes_now <<< "$out")" 0
finish
