#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# SPDX-FileCopyrightText: 2026 the elfthp-align authors
# test_relro.sh BUILDDIR - --check --compat and PT_GNU_RELRO's end.
#
# ld.so rounds RELRO's end down to the page before mprotect: where RELRO
# ends inside a page that its PT_LOAD goes on filling (.data after .got),
# that part stays writable (Android's 16 KiB rule).  Only a relink moves an
# address, so --compat says needs-relink (finding relro-end) and names the
# flags.  One small library per case, built here:
#   unaligned end  GNU ld, default (RELRO's end on a 4 KiB page boundary)
#   aligned end    GNU ld -z max-page-size=16384, with and without
#                  -z common-page-size=16384 (the relink the finding names;
#                  GNU ld 2.40 aligns RELRO's end to the max page already)
#   suffix         lld (RELRO is its own RW PT_LOAD, up to its end), and
#                  lld -z max-page-size=16384 -z separate-loadable-segments
# Each library's case is first established from readelf's numbers (the
# control), then the tool's finding must be what those numbers say.
. "$(dirname "$0")/lib.sh"
need_builddir "$@"
need_tool

PAGE=16384
cat > "$WORK/r.c" <<'C'
/* .data.rel.ro (RELRO) and .data after it, and a call through the GOT;
 * .rodata large enough that RELRO does not end on a 16 KiB boundary. */
#include <stdio.h>
const char pad[6000] = { 1 };
const char *const names[] = { "alpha", "beta", "gamma" };
int counter = 3;
int
relro_sum(void)
{
	int i, n = 0;

	for (i = 0; i < counter; i++)
		n += (int)puts(names[i]) > 0;
	return n;
}
C

# relro_case FILE: what readelf says: "suffix", "aligned" or "unaligned",
# with RELRO's end and its PT_LOAD's (memory) end.
relro_case() {
    local rv rm lv lm i t o v p fs ms fl al
    while read -r i t o v p fs ms fl al; do
        [ "$t" = GNU_RELRO ] && rv=$v rm=$ms
    done < <(elf_phdrs "$1")
    [ -n "${rv:-}" ] || { echo "none"; return; }
    while read -r i t o v p fs ms fl al; do
        [ "$t" = LOAD ] && [ "$rv" -ge "$v" ] && [ "$rv" -lt $((v + ms)) ] && lv=$v lm=$ms
    done < <(elf_phdrs "$1")
    local end=$((rv + rm)) lend=$((lv + lm))
    if [ "$end" -ge "$lend" ]; then echo "suffix $end $lend"
    elif [ $((end % PAGE)) -eq 0 ]; then echo "aligned $end $lend"
    else echo "unaligned $end $lend"; fi
}

# codes FILE: the --compat findings' codes.
codes() {
    "$TOOL" --check --compat --page-size 16k --format json "$1" 2>/dev/null | head -1 |
        python3 -c 'import json, sys
print(" ".join(f["code"] for f in json.loads(sys.stdin.readline())["findings"]))'
}

# one LABEL WANT-CASE LINK-FLAGS...: build, establish the case, check.
one() {
    local label=$1 want=$2 lib=$WORK/lib$1.so c got; shift 2
    if ! gcc -O2 -fPIC -shared "$@" -o "$lib" "$WORK/r.c" 2> "$WORK/cc.err"; then
        fail "$label: build" "$(head -2 "$WORK/cc.err" | tr '\n' ' ')"
        return
    fi
    c=$(relro_case "$lib")
    echo "# $label: readelf: ${c}"
    assert "$label: readelf says the case is $want (control)" equals "case" "${c%% *}" "$want"
    got=$(codes "$lib")
    case $want in
        unaligned)
            assert "$label: --compat finds relro-end" eval 'echo " $got " | grep -q " relro-end "'
            run_tool --check --compat -v --page-size 16k "$lib"
            assert "$label: exit 3 (needs a relink)" tool_rc 3
            assert "$label: the message gives readelf's end" eval \
                'echo "$T_OUT" | grep -q "PT_GNU_RELRO (header [0-9]*) ends at $(printf 0x%x "$(echo "$c" | cut -d" " -f2)")"'
            assert "$label: names the relink" eval \
                'echo "$T_OUT" | grep -q "fix: relink with -z max-page-size=0x4000 .*-z common-page-size=0x4000"'
            # Nor does the rewrite claim to fix it (padding moves no address).
            run_tool -q -o "$WORK/out.so" --page-size 16k "$lib"
            assert "$label: the rewrite with --page-size refuses, naming a relink" \
                eval '[ "$T_RC" -eq 2 ] && echo "$T_ERR" | grep -q relink' ;;
        *)
            assert "$label: --compat has no relro-end" eval '! echo " $got " | grep -q " relro-end "' ;;
    esac
}

one gnu-default unaligned -Wl,-z,relro,-z,now
one gnu-16k-max aligned -Wl,-z,relro,-z,now,-z,max-page-size=$PAGE
one gnu-16k aligned -Wl,-z,relro,-z,now,-z,max-page-size=$PAGE,-z,common-page-size=$PAGE
if need "lld libraries" "ld.lld not installed" command -v ld.lld >/dev/null; then
    one lld-default suffix -fuse-ld=lld -Wl,-z,relro,-z,now
    one lld-16k suffix -fuse-ld=lld -Wl,-z,relro,-z,now,-z,max-page-size=$PAGE,-z,separate-loadable-segments
fi
for l in gnu-16k-max gnu-16k; do
    run_tool --check --compat --page-size 16k "$WORK/lib$l.so"
    assert "the relinked GNU ld library ($l) is compatible" tool_rc 0
done
finish
