#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# SPDX-FileCopyrightText: 2026 the elfthp-align authors
# test_apk.sh BUILDDIR - --check --compat --page-size 16k on APKs, app
# bundles and zips (docs/android.md):
#   - the fixtures: a small arm64 library linked here with
#     aarch64-linux-gnu-gcc, once with -z max-page-size=16384 (its PT_LOADs
#     16 KiB-aligned, read back with readelf) and once with 4096; archives
#     built from them with python's zipfile (mkzip.py): stored and aligned
#     (the local extra field padded, as zipalign does), stored at an
#     unaligned offset, deflated, a .so outside lib/ABI/, an app bundle;
#   - one verdict per native library, in text and JSON (validated against
#     docs/schema-1.json), nothing for other entries; the data offset the
#     tool prints is the one worked out independently from the local header
#     (header_offset + 30 + name + local extra), and a doctored offset (the
#     arithmetic without the extra field) fails that comparison;
#   - exit status: 3 with a library that needs a relink, 1 with only an
#     unaligned or fixable one, 0 when every library is stored aligned and
#     compatible (the negative control); found by the zip magic whatever
#     the name; a bundle's libraries get the ELF rule only;
#   - hostile archives, run under ulimit -v and a timeout: truncated, a
#     central directory past the end, an entry claiming 4 GiB, a zip bomb
#     (300 MiB of zeros), a library that inflates past the size it claims,
#     duplicate names, a name with ../, a NUL in a name:
#     exit 2 and a message that names the archive (or the entry) and the
#     problem; 100000 entries: checked, in bounded time and memory;
#   - libzip is loaded only for an archive: the tool does not name it (nor
#     libcrypto, which it brings) in DT_NEEDED, and a run on an archive
#     opens it while a run on a plain ELF does not (LD_DEBUG=files).
. "$(dirname "$0")/lib.sh"
need_builddir "$@"
need_tool

MKZIP="python3 $LIB_DIR/mkzip.py"
VMEM_KB=600000		# ulimit -v for the hostile runs: the 256 MiB cap fits

# --- fixtures ---------------------------------------------------------------

if ! command -v aarch64-linux-gnu-gcc > /dev/null; then
    skip "archives" "no aarch64-linux-gnu-gcc (make deps)"
    finish
fi
printf 'int f(void) { return 42; }\nint g[100] = { 1 };\n' > "$WORK/l.c"
aarch64-linux-gnu-gcc -shared -fPIC -O2 -Wl,-z,max-page-size=16384 \
    -o "$WORK/l16.so" "$WORK/l.c" &&
aarch64-linux-gnu-gcc -shared -fPIC -O2 -Wl,-z,max-page-size=4096 \
    -o "$WORK/l4.so" "$WORK/l.c" || { fail "arm64 libraries link" "gcc"; finish; }

# p_align_of LIB: the p_align of every PT_LOAD, as readelf says.
p_align_of() { readelf -lW "$1" | awk '$1 == "LOAD" { print $NF }' | sort -u | tr '\n' ' '; }
assert "the 16 KiB-linked library has p_align 0x4000 (readelf)" \
    equals "p_align" "$(p_align_of "$WORK/l16.so")" "0x4000 "
assert "the 4 KiB-linked library has p_align 0x1000 (readelf)" \
    equals "p_align" "$(p_align_of "$WORK/l4.so")" "0x1000 "

mk() { $MKZIP "$WORK/$1" "$2" "$WORK/l16.so" "$WORK/l4.so"; }
for k in mixed fixable clean aab many dup dotdot nul huge bomb lie truncated cdpast diskcount; do
    case $k in
        aab) mk app.aab aab ;;
        *) mk "$k.apk" "$k" ;;
    esac || fail "mkzip.py $k" "python3"
done

# verdicts: "ENTRY STATUS ZIP DATA_OFFSET" per entry line of the last JSON run.
verdicts() {
    printf '%s\n' "$T_OUT" | python3 -c '
import json, sys
for line in sys.stdin:
    try:
        o = json.loads(line)
    except ValueError:
        continue
    if "entry" in o:
        print(o["entry"], o["status"], o["zip"], o["data_offset"])'
}

# entry_is ENTRY STATUS ZIP: the JSON line of ENTRY says so.
entry_is() {
    local got
    got=$(verdicts | awk -v e="$1" '$1 == e { print $2, $3 }')
    [ "$got" = "$2 $3" ] && return 0
    WHY="$1: got [$got], want [$2 $3]"; return 1
}

# offsets_match VERDICTS ARCHIVE: every data offset in VERDICTS is the one
# mkzip.py works out from the local header.
offsets_match() {
    local name st zip off want n=0
    while read -r name st zip off; do
        want=$($MKZIP offsets "$2" | awk -v e="$name" '$1 == e { print $2 }')
        [ "$off" = "$want" ] || { WHY="$name: tool $off, local header $want"; return 1; }
        n=$((n + 1))
    done <<< "$1"
    [ "$n" -gt 0 ] || { WHY="no entries"; return 1; }
    return 0
}

# schema_ok: every JSON line of the last run is valid against schema 1.
schema_ok() {
    printf '%s\n' "$T_OUT" | python3 -c '
import json, sys, jsonschema
schema = json.load(open(sys.argv[1]))
for line in sys.stdin:
    jsonschema.validate(json.loads(line), schema)' "$REPO_ROOT/docs/schema-1.json" 2> "$WORK/schema.err" && return 0
    WHY=$(tail -3 "$WORK/schema.err"); return 1
}

has_out() { grep -qF -- "$1" <<< "$T_OUT" && return 0; WHY="no [$1] in: $(tool_said)"; return 1; }
has_err() { grep -qF -- "$1" <<< "$T_ERR" && return 0; WHY="no [$1] in: $(tool_said)"; return 1; }
no_out() { grep -qF -- "$1" <<< "$T_OUT" || return 0; WHY="[$1] in: $(tool_said)"; return 1; }

# --- verdicts ---------------------------------------------------------------

run_tool --check --compat --page-size 16k --format json "$WORK/mixed.apk"
assert "mixed apk: exit 3 (a library needs a relink)" tool_rc 3
assert "JSON lines are valid against schema 1" schema_ok
assert "stored at a multiple of 16 KiB, linked for 16 KiB: compatible, aligned" \
    entry_is lib/arm64-v8a/libok.so compatible aligned
assert "stored at an unaligned offset: fixable, unaligned" \
    entry_is lib/arm64-v8a/libunaligned.so fixable unaligned
assert "linked for 4 KiB pages, stored aligned: needs-relink" \
    entry_is lib/arm64-v8a/lib4k.so needs-relink aligned
assert "deflated: compressed, and the ELF rule on its inflated bytes" \
    entry_is lib/arm64-v8a/libdeflated.so compatible compressed
assert "exactly the four lib/ABI/*.so entries are judged" \
    equals "entries" "$(verdicts | awk '{ print $1 }' | sort | tr '\n' ' ')" \
    "lib/arm64-v8a/lib4k.so lib/arm64-v8a/libdeflated.so lib/arm64-v8a/libok.so lib/arm64-v8a/libunaligned.so "
assert "the data offsets are the local headers' (python's zipfile)" \
    offsets_match "$(verdicts | awk '{ print $1, $2, $3, $4 }')" "$WORK/mixed.apk"
# The check itself can fail: offsets without the local extra field.
doctored=$(verdicts | while read -r n s z o; do
    [ "$z" = aligned ] && o=$((o - 16)); echo "$n $s $z $o"; done)
assert_not "a wrong offset (the extra field left out) fails the comparison" \
    offsets_match "$doctored" "$WORK/mixed.apk"
assert "the archive's own line: needs-relink, 4 native libraries" \
    has_out '"file":"'"$WORK"'/mixed.apk","status":"needs-relink","page_bytes":16384,"archive":"apk","native_libs":4}'

run_tool --check --compat --page-size 16k "$WORK/mixed.apk"
assert "text: exit 3" tool_rc 3
assert "text: the aligned one loads, stored aligned" \
    has_out "mixed.apk!/lib/arm64-v8a/libok.so: loads on 16KiB pages; stored at 0x"
assert "text: the unaligned one names zipalign" \
    has_out "not aligned to the 16KiB page: Android cannot map it from the APK (zipalign -P 16 -f 4 realigns it)"
assert "text: the 4 KiB-linked one needs a relink" \
    has_out "mixed.apk!/lib/arm64-v8a/lib4k.so: needs a relink for 16KiB pages: PT_LOAD 0: shares"
assert "text: the deflated one is reported as compressed" \
    has_out "libdeflated.so: loads on 16KiB pages; compressed: the installer must extract it"
assert "text: a .so outside lib/ABI/ is not looked at" no_out "notelf.so"
assert "text: the summary counts the archive as one file" \
    has_out "checked 1 file for 16KiB pages: 0 compatible, 0 fixable, 1 need relinking"

run_tool --check --compat --page-size 16k "$WORK/fixable.apk"
assert "only an unaligned library: exit 1" tool_rc 1

run_tool --check --compat --page-size 16k --format json "$WORK/clean.apk"
assert "negative control: every library stored aligned and compatible: exit 0" tool_rc 0
assert "negative control: both ABIs judged compatible, aligned" \
    equals "verdicts" "$(verdicts | awk '{ print $2, $3 }' | sort -u)" "compatible aligned"
assert "negative control: offsets are the local headers'" \
    offsets_match "$(verdicts)" "$WORK/clean.apk"
# cat in the tool's place prints the archive and no verdict: it fails these.
T_OUT=$(cat "$WORK/clean.apk" | tr -d '\0' | head -c 200) T_RC=0
assert_not "a tool that only echoed the archive would fail the verdict check" \
    entry_is lib/arm64-v8a/libok.so compatible aligned

cp "$WORK/clean.apk" "$WORK/renamed.bin"
run_tool --check --compat --page-size 16k --format json "$WORK/renamed.bin"
assert "found by its zip magic whatever its name" entry_is lib/arm64-v8a/libok.so compatible aligned
run_tool --check --compat --page-size 4k "$WORK/fixable.apk"
assert "--page-size 4k: the 16 KiB-linked libraries are ready; unaligned to 4 KiB still fixable" tool_rc 1

run_tool --check --compat --page-size 16k --format json "$WORK/app.aab"
assert "bundle: exit 3 (its 4 KiB-linked library)" tool_rc 3
assert "bundle: base/lib/... gets the ELF rule, not the zip rule" \
    entry_is base/lib/arm64-v8a/libok.so compatible bundle
assert "bundle: base/lib/.../lib4k.so needs a relink" \
    entry_is base/lib/arm64-v8a/lib4k.so needs-relink bundle
assert "bundle: a top-level lib/ is not a bundle's native library" \
    equals "entries" "$(verdicts | grep -c libnotinbundle)" 0
assert "bundle: its line says bundle" has_out '"archive":"bundle","native_libs":2}'

# --- hostile archives -------------------------------------------------------

# bounded_tool ARGS...: run_tool under ulimit -v VMEM_KB and a timeout.
# AddressSanitizer reserves terabytes of shadow and cannot start under
# ulimit -v: a SANITIZE=1 tool is bounded instead by ASan's largest
# allocation (more than the 256 MiB cap; a 4 GiB claim would exceed it).
ASAN=no
grep -qa __asan_init "$TOOL" && ASAN=yes
bounded_tool() {
    local limit="ulimit -v $VMEM_KB"
    [ "$ASAN" = yes ] && limit="export ASAN_OPTIONS=\${ASAN_OPTIONS:+\$ASAN_OPTIONS:}max_allocation_size_mb=300:allocator_may_return_null=1"
    timeout 60 bash -c "$limit"'; exec "$0" "$@"' "$TOOL" "$@" \
        > "$WORK/.b.out" 2> "$WORK/.b.err" < /dev/null
    T_RC=$? T_OUT=$(< "$WORK/.b.out") T_ERR=$(< "$WORK/.b.err")
    no_internal_error "$T_ERR" "$@"
}

# refused NAME WHAT FRAGMENT: exit 2, and stderr names WHAT and says FRAGMENT.
refused() {
    bounded_tool --check --compat --page-size 16k "$WORK/$1"
    assert "$1: exit 2" tool_rc 2 &&
        assert "$1: the message names $2 and says '$3'" has_err "elfthp-align: $WORK/$2: $3"
}
refused truncated.apk truncated.apk "not a zip archive, or a truncated one"
refused cdpast.apk cdpast.apk "a damaged zip archive"
# An end record that is there but refused is a damaged archive, not "no
# end of central directory".
refused diskcount.apk diskcount.apk "a damaged zip archive: it has an end of central directory record"
refused huge.apk 'huge.apk!/lib/arm64-v8a/libhuge.so' \
    "compressed, and inflates to 4294967294 bytes, more than the 268435456 this tool inflates"
refused bomb.apk 'bomb.apk!/lib/arm64-v8a/libbomb.so' \
    "compressed, and inflates to 314572800 bytes, more than the 268435456"
refused lie.apk 'lie.apk!/lib/arm64-v8a/liblie.so' \
    "cannot inflate it: it inflates past its stated size"
refused dup.apk dup.apk "two entries have the same name"
refused dotdot.apk 'dotdot.apk!/lib/arm64-v8a/../../evil.so' \
    "entry 1: an unsafe name (a NUL byte, an absolute path or a .. component)"
refused nul.apk 'nul.apk!/lib/arm64-v8a/lib' "entry 1: an unsafe name"
assert "nul.apk: the other library is still judged" has_out "nul.apk!/lib/arm64-v8a/libok.so: loads"

bounded_tool --check --compat --page-size 16k --format json "$WORK/huge.apk"
assert "huge.apk JSON: the entry's error line is valid against schema 1" schema_ok
assert "huge.apk JSON: status error" entry_is lib/arm64-v8a/libhuge.so error compressed

start=$SECONDS
bounded_tool --check --compat --page-size 16k "$WORK/many.apk"
assert "100000 entries: checked, exit 0, under ulimit -v $VMEM_KB KiB" tool_rc 0
assert "100000 entries: in under 30 s" rc_is $((SECONDS - start < 30 ? 0 : 1)) 0
assert "100000 entries: its library judged" has_out "many.apk!/lib/arm64-v8a/libok.so: loads on 16KiB pages"

# libzip comes with the first archive, not with every run.
no_libzip_needed() { ! readelf -dW "$TOOL" | grep -E 'NEEDED.*(libzip|libcrypto)'; }
assert "the tool does not link libzip or libcrypto (DT_NEEDED)" no_libzip_needed
loads_libzip() {    # loads_libzip FILE: the run opened libzip.so
    LD_DEBUG=files "$TOOL" --check --compat --page-size 16k "$1" 2>&1 >/dev/null |
        grep -q 'file=libzip\.so'
}
assert "a run on an archive loads libzip" loads_libzip "$WORK/clean.apk"
assert_not "a run on a plain ELF does not load libzip" loads_libzip "$WORK/l16.so"

finish
