#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# SPDX-FileCopyrightText: 2026 the elfthp-align authors
# test_hugepage.sh BUILDDIR - does the kernel really map the rewritten text
# with 2 MiB pages, where it would not map the original so?
#
# Mounts two tmpfs (needs root; skipped with the reason if a mount fails):
# one with huge=always, one with huge=never.  For each fixture the original
# and the rewritten file (rewritten in place on the huge=always tmpfs, the
# same bytes copied to the other) lie side by side on both mounts, so that
# both are compared under the same conditions: the same mount, the same
# cache state (tmpfs holds every file in memory, in huge folios on
# huge=always, in small ones on huge=never) and the same runner, setarch
# -R (no ASLR: a PIE's base is the same each run, so chance plays no part).
# Each program runs with --hold and /proc/PID/smaps is read for its file:
#   - on huge=always: the load base (the first mapping of the file) is
#     2 MiB aligned; FilePmdMapped + ShmemPmdMapped summed over the file's
#     mappings is > 0; that of the executable mapping (the text) is > 0;
#   - on huge=never, where the mount aligns no mapping: the load base is
#     2 MiB aligned (p_align alone guarantees it: the kernel or ld.so
#     honour it).
# Each of these four is a contrast (see contrast below): the original,
# measured the same way, is its negative control.  Where the original has
# the property too (the GNU ld library: its layout is already congruent,
# and tmpfs huge=always aligns any mapping of 2 MiB or more) the output
# says so, and what is asserted instead is what the rewrite adds: p_align
# >= 2 MiB on every eligible PT_LOAD (readelf), below that in the
# original.  The huge=never base shows that difference in a measurement:
# there the original library lands off a 2 MiB boundary, the rewritten one
# cannot.
# For the shared cases the file examined is the library, loaded by ld.so.
# x86_64 only: under qemu-user the guest's mappings are qemu's business.
. "$(dirname "$0")/lib.sh"
need_builddir "$@"
need_tool

if [ "$(uname -m)" != x86_64 ]; then
    skip "huge page mapping" "host is $(uname -m), fixtures checked here are x86_64"
    finish
fi
if [ ! -d /sys/kernel/mm/transparent_hugepage ]; then
    skip "huge page mapping" "kernel without transparent huge pages"
    finish
fi
if [ "$(id -u)" -ne 0 ]; then
    skip "huge page mapping" "mounting a tmpfs needs root"
    finish
fi
if ! command -v setarch >/dev/null; then
    fail "setarch installed" "util-linux has it (make deps installs it)"
    finish
fi
# mount_tmpfs HUGE: a tmpfs with huge=HUGE at $WORK/tmpfs-HUGE; 1 (WHY).
mount_tmpfs() {
    local m=$WORK/tmpfs-$1 err
    mkdir -p "$m" || { WHY="mkdir $m failed"; return 1; }
    err=$(mount -t tmpfs -o "huge=$1,size=1G" tmpfs "$m" 2>&1) || { WHY=$err; return 1; }
    MOUNTS="$m $MOUNTS"
}
for h in always never; do
    mount_tmpfs $h ||
        { skip "huge page mapping" "cannot mount tmpfs with huge=$h: $WHY"; finish; }
done
ALWAYS=$WORK/tmpfs-always NEVER=$WORK/tmpfs-never

RUN=(setarch -R)

# measure DIR MAIN FILE: run DIR/MAIN --hold under $RUN, and set H_BASE
# (start of the first mapping of DIR/FILE, hex), H_PMD (its FilePmdMapped
# + ShmemPmdMapped in kB, summed) and H_XPMD (the same over executable
# mappings).  Returns 1 (with WHY) if it did not get ready.
measure() {
    local dir=$1 main=$2 file=$3
    H_BASE="" H_PMD="" H_XPMD=""
    hold_start "$dir/hold.out" "${RUN[@]}" "$dir/$main" || return 1
    read -r H_BASE H_PMD H_XPMD < <(awk -v p="$(realpath "$dir/$file")" '
        /^[0-9a-f]+-[0-9a-f]+ / {
            cur = ($6 == p); x = ($2 ~ /x/)
            if (cur && base == "") { split($1, r, "-"); base = r[1] }
            next
        }
        cur && ($1 == "ShmemPmdMapped:" || $1 == "FilePmdMapped:") {
            pmd += $2; if (x) xpmd += $2
        }
        END { print (base == "" ? "none" : base), pmd + 0, xpmd + 0 }' "/proc/$HOLD_PID/smaps")
    hold_stop
    return 0
}

# shmem_huge_kb: ShmemHugePages from /proc/meminfo, in kB.
shmem_huge_kb() { awk '$1 == "ShmemHugePages:" { print $2 }' /proc/meminfo; }

# Predicates on one measured value (0 true, 1 false with WHY).
aligned() {
    [ "$1" != none ] && [ $(( 0x$1 % TARGET )) -eq 0 ] && return 0
    WHY="load base 0x$1 is not 2 MiB aligned"; return 1
}
pmd_mapped() {
    [ "${1:-0}" -gt 0 ] && return 0
    WHY="PMD-mapped: ${1:-?} kB"; return 1
}

# has_and_guaranteed PRED VALUE FILE: PRED VALUE, and check_p_align FILE.
has_and_guaranteed() { "$1" "$2" && check_p_align "$3"; }

# contrast NAME WHAT PRED ORIG_VALUE NEW_VALUE: the rewritten file has
# WHAT (PRED NEW_VALUE), and the original, measured under the same
# conditions, is its negative control.  Two checks either way:
#   - the original lacks WHAT: that is counted (negative control), and the
#     rewritten file must have it;
#   - the original has WHAT too: said so; WHAT then proves nothing about
#     the rewrite, so the rewritten file must have WHAT and p_align >= 2 MiB
#     (what the rewrite adds: it makes WHAT guaranteed), and the original
#     must have p_align below 2 MiB (its WHAT was the mount's doing).
contrast() {
    local name=$1 what=$2 pred=$3 ov=$4 nv=$5
    if "$pred" "$ov"; then
        echo "# NOTE $name: the original $FX_FILE already has $what here (same mount, same runner):"
        echo "#   the rewrite cannot be what gives it; checking what the rewrite adds instead: p_align"
        assert_not "$name: original $FX_FILE has p_align < 2 MiB (readelf), so '$what' is not guaranteed for it" \
            check_p_align "$ORIG"
        assert "$name: rewritten $FX_FILE has $what, and p_align >= 2 MiB (readelf) guarantees it" \
            has_and_guaranteed "$pred" "$nv" "$NEW"
    else
        pass "$name: negative control: the original $FX_FILE lacks $what ($WHY)"
        assert "$name: rewritten $FX_FILE has $what" "$pred" "$nv"
    fi
}

# x_windows FILE: the 2 MiB windows of FILE's executable PT_LOADs (readelf).
x_windows() {
    local i t o v p fs ms fl al n=0
    while read -r i t o v p fs ms fl al; do
        [ "$t" = LOAD ] && case $fl in *E*) n=$((n + $(windows "$v" "$fs" "$TARGET"))) ;; esac
    done < <(elf_phdrs "$1")
    echo "$n"
}

# NAME:start: the same fixture rewritten with --layout start (split): the
# page-cache step and the mapping must work for a head and a body as for
# one segment, every window of the text PMD-mapped.
for spec in gnu-pie lld-pie shared lld-shared gnu-pie:start lld-pie:start; do
    name=${spec%%:*} layout=""
    [ "$spec" = "$name" ] || layout=${spec#*:}
    if ! fixture_line "$name"; then
        skip "$name: huge pages" "fixture not built"
        continue
    fi
    echo "# fixture $name: original and rewritten on tmpfs huge=always and huge=never, run by ${RUN[*]}"
    h0=$(shmem_huge_kb)
    oa=$ALWAYS/orig-$name na=$ALWAYS/new-$name ov=$NEVER/orig-$name nv=$NEVER/new-$name
    mkdir -p "$oa" "$na" "$ov" "$nv"
    ok=yes
    for d in "$oa" "$na" "$ov" "$nv"; do
        cp -p "$BUILD/$FX_FILE" "$d/" || ok=no
        if [ "$FX_MAIN" != "$FX_FILE" ]; then cp -p "$BUILD/$FX_MAIN" "$d/" || ok=no; fi
    done
    if [ $ok = no ]; then
        fail "$name: copies on the tmpfs mounts" "cp failed"
        continue
    fi
    run_tool ${layout:+--layout "$layout"} "$na/$FX_FILE"
    name=$spec
    if ! assert "$name: rewrite on tmpfs exits 0" tool_rc 0; then
        skip "$name: huge page checks" "the rewrite failed"
        continue
    fi
    # The same rewritten bytes on the other mount, written as the original's.
    rm -f "$nv/$FX_FILE" && cp -p "$na/$FX_FILE" "$nv/"
    ORIG=$oa/$FX_FILE NEW=$na/$FX_FILE
    # Without huge folios in the page cache nothing can be PMD mapped: that
    # is the machine (memory too fragmented), not the tool.
    h1=$(shmem_huge_kb)
    if [ "$h1" -le "$h0" ]; then
        skip "$name: huge pages" "tmpfs got no huge pages (ShmemHugePages $h0 -> $h1 kB)"
        rm -rf "$oa" "$na" "$ov" "$nv"
        continue
    fi

    held=yes
    for run in "original huge=always $oa" "rewritten huge=always $na" \
               "original huge=never $ov" "rewritten huge=never $nv"; do
        set -- $run
        if assert "$name: $1 program holds ($2)" measure "$3" "$FX_MAIN" "$FX_FILE"; then
            echo "# $name $1 ($2): base 0x$H_BASE, PMD-mapped $H_PMD kB, text $H_XPMD kB"
        else
            held=no
        fi
        eval "M_${1}_${2#huge=}=\"\$H_BASE \$H_PMD \$H_XPMD\""
    done
    set --
    if [ $held = no ]; then
        skip "$name: original against rewritten" "a program did not get ready"
        rm -rf "$oa" "$na" "$ov" "$nv"
        continue
    fi
    read -r ob op ox <<< "$M_original_always"
    read -r nb np nx <<< "$M_rewritten_always"
    read -r vob _ _ <<< "$M_original_never"
    read -r vnb _ _ <<< "$M_rewritten_never"
    contrast "$name" "a 2 MiB aligned load base on tmpfs huge=always" aligned "$ob" "$nb"
    contrast "$name" "PMD mappings on tmpfs huge=always" pmd_mapped "$op" "$np"
    contrast "$name" "its text PMD-mapped on tmpfs huge=always" pmd_mapped "$ox" "$nx"
    contrast "$name" "a 2 MiB aligned load base on tmpfs huge=never (a mount that aligns nothing)" \
        aligned "$vob" "$vnb"
    if [ -n "$layout" ]; then
        assert "$name: split (a head and a body on 2 MiB)" equals "heads" \
            "$(python3 "$LIB_DIR/phdrs.py" heads "$NEW" | wc -l | awk '$1 > 0 { print "yes" }')" yes
        assert "$name: every window of the text PMD-mapped" equals "text PMD-mapped kB" \
            "$nx" "$(( $(x_windows "$NEW") * 2048 ))"
    fi
    rm -rf "$oa" "$na" "$ov" "$nv"
done

finish
