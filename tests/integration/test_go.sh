#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# SPDX-FileCopyrightText: 2026 the elfthp-align authors
# test_go.sh BUILDDIR - Go programs, built here by Go's own linker.
#
# Go's linker puts the section header table inside the first PT_LOAD, right
# after the program headers.  That is legal: it is bytes of that segment.
# Built four ways (ET_EXEC, the default, and -buildmode=pie; each with and
# without symbols), every mode must take them:
#   - --report exits 0, --check exits 0 or 1 (never 2), JSON says why;
#   - the rewrite exits 0, keeps every segment's bytes, the section headers
#     where they were (e_shoff, same entries), no new eu-elflint message,
#     and the program prints the same;
#   - ET_EXEC loads at its linked addresses and Go links it congruent, so
#     it is ready as it is and the rewrite changes nothing (a p_align below
#     2 MiB places nothing there);
#   - PIE: p_align is raised to 2 MiB, and on a tmpfs mounted huge=always
#     the rewritten text is PMD-mapped under setarch -R while the original,
#     measured the same way, is not (the negative control).
# Go comes from golang-go (make deps); without it the checks are skipped,
# named and counted.
. "$(dirname "$0")/lib.sh"
need_builddir "$@"
need_tool

SRC=$REPO_ROOT/tests/fixtures/go
GO_DIR=$BUILD/go
VARIANTS="exec exec-stripped pie pie-stripped"
MNT=""

cleanup_hook() {
    hold_stop
    if [ -n "$MNT" ]; then
        umount "$MNT" 2>/dev/null || umount -l "$MNT" 2>/dev/null
        rmdir "$MNT" 2>/dev/null
    fi
}

skip_all() {
    local v
    for v in $VARIANTS; do skip "go $v" "$1"; done
    finish
}

command -v go >/dev/null || skip_all "go not installed (make deps installs golang-go)"

# build_go NAME FLAGS...: build once; rebuilt when the source is newer.
build_go() {
    local name=$1 out=$GO_DIR/$1; shift
    [ -x "$out" ] && [ "$out" -nt "$SRC/main.go" ] && return 0
    (cd "$SRC" && CGO_ENABLED=0 GOFLAGS=-mod=mod GOCACHE=$GO_DIR/cache \
        GOPATH=$GO_DIR/gopath HOME=$GO_DIR go build -trimpath "$@" \
        -o "$out" .) > "$GO_DIR/$name.log" 2>&1 && return 0
    WHY="go build $*: $(tail -3 "$GO_DIR/$name.log" | tr '\n' ' ')"
    return 1
}

mkdir -p "$GO_DIR"
echo "# $(go version)"
for v in $VARIANTS; do
    flags=()
    case $v in *pie*) flags+=(-buildmode=pie) ;; esac
    case $v in *stripped) flags+=(-ldflags=-s\ -w) ;; esac
    assert "go $v: builds" build_go "$v" "${flags[@]}" || skip_all "go build failed"
done

# e_shoff FILE: the section header table's offset.
e_shoff() {
    LC_ALL=C readelf -hW "$1" | awk -F: '/Start of section headers/ { split($2, x, " "); print x[1] }'
}

# shdrs_in_first_load FILE: the table lies inside the first PT_LOAD.
shdrs_in_first_load() {
    local off end
    off=$(e_shoff "$1")
    end=$(elf_phdrs "$1" | awk '$2 == "LOAD" { print $3 + $6; exit }')
    [ -n "$off" ] && [ "$off" -gt 0 ] && [ "$off" -lt "${end:-0}" ] && return 0
    WHY="e_shoff $off, first PT_LOAD ends at $end"; return 1
}

# align_of FILE: p_align of the first executable PT_LOAD.
align_of() { elf_phdrs "$1" | awk '$2 == "LOAD" && $8 ~ /E/ { print $9; exit }'; }

# same_sections A B: the same section headers, at the same offset.
same_sections() {
    if [ "$(e_shoff "$1")" != "$(e_shoff "$2")" ]; then
        WHY="e_shoff $(e_shoff "$1") -> $(e_shoff "$2")"; return 1
    fi
    diff <(elf_sections "$1") <(elf_sections "$2") > /dev/null && return 0
    WHY="readelf -S differs"; return 1
}

json_status_is() {	# json_status_is WANT: T_OUT's "status" field
    local got
    got=$(printf '%s\n' "$T_OUT" | python3 -c 'import json, sys
print(json.loads(sys.stdin.readline())["status"])' 2>&1)
    [ "$got" = "$1" ] && return 0
    WHY="status $got, expected $1: $T_OUT"; return 1
}

for v in $VARIANTS; do
    F=$GO_DIR/$v O=$WORK/$v.out
    case $v in exec*) kind=exec want_check=0 status=ready ;;
               *) kind=pie want_check=1 status=needs-rewrite ;; esac
    assert "go $v: section header table inside the first PT_LOAD" shdrs_in_first_load "$F"
    run_tool --report "$F"
    assert "go $v: --report exits 0" tool_rc 0
    run_tool --check "$F"
    assert "go $v: --check exits $want_check" tool_rc "$want_check"
    run_tool --check --format json "$F"
    assert "go $v: --check JSON status $status" json_status_is "$status"
    run_tool -o "$O" "$F"
    assert "go $v: -o exits 0" tool_rc 0 || continue
    assert "go $v: rewritten program runs the same" run_same "$F" "$O"
    assert "go $v: every segment's bytes unchanged" check_segment_bytes "$F" "$O"
    assert "go $v: section headers where they were" same_sections "$F" "$O"
    assert "go $v: no new eu-elflint message" check_elflint "$F" "$O"
    if [ $kind = exec ]; then
        assert "go $v: ET_EXEC congruent as linked: the rewrite changes nothing" same_file "$F" "$O"
    else
        assert "go $v: congruent, p_align 2 MiB" check_congruence "$O"
        assert "go $v: p_align was 4 KiB before" equals "p_align" "$(align_of "$F")" $((0x1000))
    fi
    run_tool --check "$O"
    assert "go $v: the output is ready (--check exits 0)" tool_rc 0
    cp "$O" "$WORK/again" && run_tool "$WORK/again"
    assert "go $v: a second rewrite changes nothing" same_file "$O" "$WORK/again"
    cp -p "$F" "$WORK/inplace" && run_tool "$WORK/inplace"
    assert "go $v: in place writes what -o wrote" same_file "$O" "$WORK/inplace"
done

# --- PMD mappings on a tmpfs with huge=always ----------------------------

pmd_at_least() {	# pmd_at_least WHAT KB MIN
    [ "$2" -ge "$3" ] && return 0
    WHY="$1: $2 kB PMD-mapped, expected at least $3"; return 1
}

if [ "$(uname -m)" != x86_64 ] || ! command -v setarch >/dev/null; then
    skip "go: PMD-mapped text" "needs x86_64 and setarch"
    finish
fi
MNT=$(mktemp -d "${TMPDIR:-/tmp}/elfthp-go.XXXXXX") || exit 1
if ! err=$(mount -t tmpfs -o huge=always,size=256M tmpfs "$MNT" 2>&1); then
    rmdir "$MNT"; MNT=""
    skip "go: PMD-mapped text" "cannot mount tmpfs with huge=always: $err"
    finish
fi
for v in exec pie; do
    cp "$GO_DIR/$v" "$MNT/orig-$v" && "$TOOL" -q -o "$MNT/new-$v" "$GO_DIR/$v" || continue
    run_pmd "$MNT/new-$v" setarch -R "$MNT/new-$v" || { fail "go $v: rewritten program holds" "$WHY"; continue; }
    new=$RUN_XKB
    run_pmd "$MNT/orig-$v" setarch -R "$MNT/orig-$v" || { fail "go $v: original program holds" "$WHY"; continue; }
    orig=$RUN_XKB
    echo "# go $v on tmpfs huge=always, setarch -R: text PMD-mapped original $orig kB, rewritten $new kB"
    assert "go $v: rewritten text is PMD-mapped" pmd_at_least "rewritten" "$new" 2048
    if [ $v = exec ]; then
        # ET_EXEC: the kernel maps it at its linked, congruent address: the
        # original is huge too, and the rewrite (none) takes nothing away.
        echo "# go exec: the original is PMD-mapped as well (ET_EXEC, linked congruent): nothing for the rewrite to add"
        assert "go exec: the original text is PMD-mapped as linked" pmd_at_least "original" "$orig" 2048
    else
        assert "go pie: the original text is not PMD-mapped (4 KiB p_align, base not aligned)" equals "original, PMD-mapped kB" "$orig" 0
    fi
done

finish
