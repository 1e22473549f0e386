#!/bin/bash
# test_hugepage.sh BUILDDIR - does the kernel really map the rewritten text
# with 2 MiB pages?
#
# Mounts a tmpfs with huge=always (needs root; skipped with the reason if
# the mount fails), rewrites copies of fixtures there, runs the original and
# the rewritten program with --hold and reads /proc/PID/smaps:
#   - rewritten: the first mapping of the file (the load base) is 2 MiB
#     aligned and ShmemPmdMapped, summed over the file's mappings, is > 0;
#   - and the executable mapping (the text) alone has ShmemPmdMapped > 0;
#   - original lld layouts: the text has ShmemPmdMapped 0 (p_offset and
#     p_vaddr differ by 4 KiB, so no base can make it congruent);
#   - the rest of the originals is only reported: whether their base is
#     2 MiB aligned is chance (tmpfs often aligns a library's mapping).
# For the shared cases the file examined is the library, loaded by ld.so.
# x86_64 only: under qemu-user the guest's mappings are qemu's business.
. "$(dirname "$0")/lib.sh"
need_builddir "$@"
need_tool

MNT="" HELD=""

cleanup_hook() {
    local p
    for p in $HELD; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done
    HELD=""
    if [ -n "$MNT" ]; then
        umount "$MNT" 2>/dev/null || umount -l "$MNT" 2>/dev/null
        rmdir "$MNT" 2>/dev/null
        MNT=""
    fi
}

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
MNT=$(mktemp -d "${TMPDIR:-/tmp}/elfthp-huge.XXXXXX") || exit 1
if ! err=$(mount -t tmpfs -o huge=always,size=1G tmpfs "$MNT" 2>&1); then
    rmdir "$MNT"; MNT=""
    skip "huge page mapping" "cannot mount tmpfs with huge=always: $err"
    finish
fi

# hold DIR MAIN FILE: run DIR/MAIN --hold, wait for "ready", then set
# H_BASE (start of the first mapping of DIR/FILE, hex), H_PMD (sum of
# its ShmemPmdMapped in kB) and H_XPMD (the same over executable mappings).  Returns 1 (with WHY) if it did not get ready.
hold() {
    local dir=$1 main=$2 file=$3 pid n path
    H_BASE="" H_PMD="" H_XPMD=""
    "$dir/$main" --hold > "$dir/hold.out" 2>&1 &
    pid=$!
    HELD="$HELD $pid"
    for n in $(seq 1 300); do
        grep -q '^ready$' "$dir/hold.out" 2>/dev/null && break
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.1
    done
    if ! grep -q '^ready$' "$dir/hold.out" 2>/dev/null; then
        WHY="$dir/$main --hold did not get ready: $(head -3 "$dir/hold.out" | tr '\n' ' ')"
        kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null
        return 1
    fi
    path=$(realpath "$dir/$file")
    read -r H_BASE H_PMD H_XPMD < <(awk -v p="$path" '
        /^[0-9a-f]+-[0-9a-f]+ / {
            cur = ($6 == p); x = ($2 ~ /x/)
            if (cur && base == "") { split($1, r, "-"); base = r[1] }
            next
        }
        cur && $1 == "ShmemPmdMapped:" { pmd += $2; if (x) xpmd += $2 }
        END { print (base == "" ? "none" : base), pmd + 0, xpmd + 0 }' "/proc/$pid/smaps")
    kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null
    HELD=""
    return 0
}

# shmem_huge_kb: ShmemHugePages from /proc/meminfo, in kB.
shmem_huge_kb() { awk '$1 == "ShmemHugePages:" { print $2 }' /proc/meminfo; }

# base_aligned: H_BASE is a multiple of 2 MiB.
base_aligned() {
    [ "$H_BASE" != none ] && [ $(( 0x$H_BASE % TARGET )) -eq 0 ] && return 0
    WHY="load base 0x$H_BASE is not 2 MiB aligned"; return 1
}
pmd_mapped() {
    [ "${H_PMD:-0}" -gt 0 ] && return 0
    WHY="ShmemPmdMapped is ${H_PMD:-?} kB (base 0x$H_BASE)"; return 1
}
text_pmd_mapped() {
    [ "${H_XPMD:-0}" -gt 0 ] && return 0
    WHY="ShmemPmdMapped of the executable mapping is ${H_XPMD:-?} kB (base 0x$H_BASE)"; return 1
}
text_not_pmd_mapped() {
    [ "${H_XPMD:-0}" -eq 0 ] && return 0
    WHY="ShmemPmdMapped of the executable mapping is $H_XPMD kB"; return 1
}

for name in gnu-pie lld-pie shared lld-shared; do
    if ! fixture_line "$name"; then
        skip "$name: huge pages" "fixture not built"
        continue
    fi
    echo "# fixture $name on tmpfs huge=always"
    h0=$(shmem_huge_kb)
    o=$MNT/orig-$name n=$MNT/new-$name
    mkdir -p "$o" "$n"
    cp -p "$BUILD/$FX_FILE" "$o/" && cp -p "$BUILD/$FX_FILE" "$n/" || continue
    if [ "$FX_MAIN" != "$FX_FILE" ]; then
        cp -p "$BUILD/$FX_MAIN" "$o/" && cp -p "$BUILD/$FX_MAIN" "$n/" || continue
    fi
    run_tool "$n/$FX_FILE"
    if ! assert "$name: rewrite on tmpfs exits 0" tool_rc 0; then
        continue
    fi
    # Without huge folios in the page cache nothing can be PMD mapped: that
    # is the machine (memory too fragmented), not the tool.
    h1=$(shmem_huge_kb)
    if [ "$h1" -le "$h0" ]; then
        skip "$name: huge pages" "tmpfs got no huge pages (ShmemHugePages $h0 -> $h1 kB)"
        rm -rf "$o" "$n"
        continue
    fi

    if assert "$name: rewritten program holds" hold "$n" "$FX_MAIN" "$FX_FILE"; then
        echo "# $name rewritten: base 0x$H_BASE, ShmemPmdMapped $H_PMD kB, text $H_XPMD kB"
        assert "$name: rewritten $FX_FILE has a 2 MiB aligned load base" base_aligned
        assert "$name: rewritten $FX_FILE is PMD mapped" pmd_mapped
        assert "$name: rewritten $FX_FILE text is PMD mapped" text_pmd_mapped
    fi
    if assert "$name: original program holds" hold "$o" "$FX_MAIN" "$FX_FILE"; then
        echo "# $name original: base 0x$H_BASE, ShmemPmdMapped $H_PMD kB, text $H_XPMD kB"
        case $name in
            lld*) assert "$name: original $FX_FILE text is not PMD mapped" text_not_pmd_mapped ;;
        esac
    fi
    rm -rf "$o" "$n"
done

finish
