# SPDX-License-Identifier: BSD-2-Clause
# SPDX-FileCopyrightText: 2026 the elfthp-align authors
# lib.sh - helpers for the elfthp-align integration tests.  Source it.
#
# Counters and reporting
#   pass DESC / fail DESC REASON / skip DESC REASON
#   assert DESC CHECK ARGS...      run CHECK; 0 = ok, 1 = FAIL ($WHY), 2 = skip
#   assert_not DESC CHECK ARGS...  ok if CHECK fails (proves a check can fail)
#   need DESC REASON CMD...        0 if CMD succeeds, else skip DESC REASON:
#                                  a check whose precondition fails is
#                                  counted as skipped, never dropped
#   finish                         summary line; exit 1 if anything failed
# Checks (set WHY and return 0 ok / 1 failed / 2 cannot check)
#   check_congruence FILE [ALIGN]
#   check_p_align FILE [ALIGN]    eligible PT_LOADs have p_align >= ALIGN
#   check_segment_bytes ORIG NEW
#   check_only_align_changed ORIG NEW
#   check_elflint ORIG NEW
#   run_same ORIG NEW [RUNNER...]
# Tool and ELF helpers
#   run_tool ARGS...     sets T_RC, T_OUT, T_ERR (stdout, stderr); a run
#                        that prints "internal error" is a failure unless
#                        EXPECT_INTERNAL_ERROR is set (no_internal_error)
#   elf_phdrs FILE       "idx type offset vaddr paddr filesz memsz flags align"
#   elf_sections FILE    "idx name type addr offset size"
#   count_eligible FILE [ALIGN]  sets ELIG_N, ELIG_W, ELIG_CHANGE (headers
#                        a rewrite changes)
#   set_runner ARCH      sets RUNNER (array) to run ARCH's programs here
# Small checks (for assert): same_file, same_id, same_listing, equals WHAT
#   GOT WANT, rc_is, tool_rc N, one_error_line, no_temp DIR (no NAME.elfthp-*
#   or .elfthp-* left in DIR), no_temp_tree DIR (nor anywhere below it),
#   tool_err_names, kb_is, refused_as F MSG FIRST FORMAT (a refusal: exit 2,
#   one message naming F that holds MSG, the same as FIRST; JSON's error
#   object too)
# Package builds (test_rpm.sh, test_debhelper.sh): is_ready FILE, not_ready
#   FILE (--check exits 0, 1; a file that is not there fails), stripped FILE
#   (no .debug_info), log_has NAME TEXT ($WORK/NAME.log holds TEXT)
# Scratch space and cleanup
#   $WORK                a scratch directory, removed at exit
#   path_without_tool [DIRS]  a PATH of DIRS' commands without elfthp-align
#   fresh [SRC]          new $WORK/fN with a copy of SRC (default $FX) as
#                        "prog": sets D, F, SAVED (a copy), L (listing)
#   fresh_dir            new empty $WORK/fN: sets D
#   MOUNTS HELD IMMUTABLE PACKAGES  what the script mounted, started in the
#                        background, made immutable, installed with dpkg
#                        (space-separated lists)
#   cleanup_hook         undoes all of them (and hold_start); runs at exit,
#                        may be called earlier.  Scripts do not define it.
#   unmount DIR          umount DIR now and drop it from MOUNTS
#   mount_image FS DIR   a loop-mounted ext4/xfs/btrfs image (in MOUNTS)
# Running programs
#   hold_start OUT CMD...  run CMD --hold in the background until it prints
#                        "ready" (the one wait-until-ready loop): HOLD_PID
#   hold_stop            stop it
#   pmd_kb PID FILE [x], run_pmd FILE CMD..., drop_cache, cached_bytes
# Disturbances by the machine (page cache reclaimed by other load)
#   machine_events       counters of reclaim, splits and drop_caches
#   events_moved MARK    which of them moved since MARK (0 if any did)
#   retry_disturbed CHECK ARGS...  for assert: CHECK again (3 tries in
#                        all) only while a failure comes with a moved
#                        counter; then the failure names the disturbance
#
# The tool is $ELFTHP_ALIGN, default ./elfthp-align in the repository root.
# Each script runs standalone and ends with the line
#   integration: N passed, N failed, N skipped
# Under run.sh ($INTEGRATION_RESULTS set) it prints "SCRIPT: N passed, ..."
# instead and appends "SCRIPT PASS FAIL SKIP" to that file.

set -u

LIB_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO_ROOT=$(cd "$LIB_DIR/../.." && pwd)
TOOL=${ELFTHP_ALIGN:-$REPO_ROOT/elfthp-align}
SCRIPT_NAME=$(basename "$0")
TARGET=$((0x200000))        # default target alignment of the tool (2 MiB)

PASS=0 FAIL=0 SKIP=0
WHY=""

pass() { PASS=$((PASS + 1)); echo "ok - $1"; }
# ELFTHP_FAIL_FAST=1 (make mutation): the first failure ends the script,
# through its EXIT trap, since one failure is all a mutant needs.
fail() {
    FAIL=$((FAIL + 1)); echo "FAIL - $1: $2"
    [ "${ELFTHP_FAIL_FAST:-0}" = 1 ] && exit 1
    return 0
}
skip() { SKIP=$((SKIP + 1)); echo "skip - $1: $2"; }

# assert DESC CHECK ARGS...: count the result of a check function.
assert() {
    local desc=$1 rc; shift
    WHY=""
    "$@"; rc=$?
    case $rc in
        0) pass "$desc" ;;
        2) skip "$desc" "$WHY" ;;
        *) fail "$desc" "${WHY:-check returned $rc}" ;;
    esac
    return $rc
}

# assert_not DESC CHECK ARGS...: the check must report a failure (rc 1).
assert_not() {
    local desc=$1 rc; shift
    WHY=""
    "$@"; rc=$?
    case $rc in
        1) pass "$desc" ;;
        2) skip "$desc" "$WHY" ;;
        *) fail "$desc" "check unexpectedly passed" ;;
    esac
}

# need DESC REASON CMD...: 0 if CMD (a precondition) succeeds; else count
# skip DESC REASON and return 1.  For checks that only make sense under a
# precondition:  need "$d" "no runner" set_runner x86_64 && assert "$d" ...
# so that a check that cannot run is counted as skipped, never dropped.
need() {
    local desc=$1 reason=$2; shift 2
    "$@" && return 0
    skip "$desc" "$reason"
    return 1
}

# finish: print the summary and exit.
finish() {
    if [ -n "${INTEGRATION_RESULTS:-}" ]; then
        echo "$SCRIPT_NAME: $PASS passed, $FAIL failed, $SKIP skipped"
        echo "$SCRIPT_NAME $PASS $FAIL $SKIP" >> "$INTEGRATION_RESULTS"
    else
        echo "integration: $PASS passed, $FAIL failed, $SKIP skipped"
    fi
    [ "$FAIL" -eq 0 ] && exit 0
    exit 1
}

# --- scratch space -------------------------------------------------------

WORK=$(mktemp -d "${TMPDIR:-/tmp}/elfthp-it.XXXXXX") || exit 1

# What cleanup_hook undoes; scripts add to these (space-separated).
MOUNTS=""       # mount points: unmounted (lazily if busy), then rmdir'ed
HELD=""         # pids of background processes: killed and reaped
IMMUTABLE=""    # files given chattr +i: the flag is cleared
HOLD_PID=""     # the process hold_start started: stopped
PACKAGES=""     # Debian packages the script installed: purged

# cleanup_hook: stop what the script started and unmount what it mounted.
# Runs at exit (before $WORK is removed); a script may call it earlier.
cleanup_hook() {
    local p m
    hold_stop
    for p in $HELD; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done
    HELD=""
    for p in $IMMUTABLE; do chattr -i "$p" 2>/dev/null; done
    IMMUTABLE=""
    for p in $PACKAGES; do dpkg_wait --purge "$p" > /dev/null 2>&1; done
    PACKAGES=""
    for m in $MOUNTS; do
        umount "$m" 2>/dev/null || umount -l "$m" 2>/dev/null
        rmdir "$m" 2>/dev/null
    done
    MOUNTS=""
}

# dpkg_wait ARGS...: dpkg ARGS, waiting (5 minutes at most) while another
# dpkg or APT holds dpkg's lock (a second test run on the machine installs
# its own package meanwhile): dpkg itself gives up at once.  Its output
# and status are dpkg's.
dpkg_wait() {
    local i out rc
    for i in $(seq 1 300); do
        out=$(dpkg "$@" 2>&1); rc=$?
        case $out in
            *"lock"*"by another process"*) [ "$rc" -ne 0 ] && { sleep 1; continue; } ;;
        esac
        break
    done
    [ -z "$out" ] || printf '%s\n' "$out"
    return "$rc"
}

# unmount DIR: umount DIR now and drop it from $MOUNTS; 1 if umount fails.
unmount() {
    umount "$1" || return 1
    MOUNTS=$(for m in $MOUNTS; do [ "$m" = "$1" ] || printf '%s ' "$m"; done)
}

_lib_cleanup() {
    cleanup_hook
    chmod -R u+w "$WORK" 2>/dev/null
    rm -rf "$WORK"
}
trap _lib_cleanup EXIT
trap 'exit 130' INT TERM

# path_without_tool [DIRS]: prints a PATH of its own, $WORK/nopath, with a
# link to every command of DIRS (colon-separated, default $PATH) but
# elfthp-align: a control where the tool is nowhere must not find a copy
# installed on the host (/usr/bin/elfthp-align of the package).
path_without_tool() {
    local d=$WORK/nopath dir f
    if [ ! -d "$d" ]; then
        mkdir -p "$d"
        local IFS=:
        for dir in ${1:-$PATH}; do
            for f in "$dir"/*; do
                [ "${f##*/}" = elfthp-align ] && continue
                [ -x "$f" ] && [ ! -e "$d/${f##*/}" ] && ln -s "$f" "$d/${f##*/}"
            done
        done
    fi
    printf '%s' "$d"
}

# --- arguments and prerequisites -----------------------------------------

# need_builddir "$@": sets BUILD from the first argument.
need_builddir() {
    if [ $# -lt 1 ] || [ ! -f "$1/fixtures.txt" ]; then
        echo "usage: $SCRIPT_NAME BUILDDIR (built by tests/fixtures/build.sh)" >&2
        exit 1
    fi
    BUILD=$(cd "$1" && pwd)
}

# need_tool: without the tool every test is meaningless; that is a failure.
need_tool() {
    if [ ! -x "$TOOL" ]; then
        fail "elfthp-align binary exists" "$TOOL not found or not executable (run make)"
        finish
    fi
}

# fixture_line NAME: sets FX_ARCH FX_FILE FX_MAIN from fixtures.txt; 1 if absent.
fixture_line() {
    local n a f m
    while read -r n a f m; do
        if [ "$n" = "$1" ]; then
            FX_ARCH=$a FX_FILE=$f FX_MAIN=$m
            return 0
        fi
    done < "$BUILD/fixtures.txt"
    return 1
}

# set_runner ARCH: RUNNER=(command prefix) to run ARCH programs; 1 if none.
set_runner() {
    RUNNER=()
    case $1 in
        x86_64)
            [ "$(uname -m)" = x86_64 ] && return 0 ;;
        aarch64)
            [ "$(uname -m)" = aarch64 ] && return 0
            command -v qemu-aarch64 >/dev/null &&
                RUNNER=(qemu-aarch64 -L /usr/aarch64-linux-gnu) && return 0 ;;
        ppc32)
            command -v qemu-ppc >/dev/null &&
                RUNNER=(qemu-ppc -L /usr/powerpc-linux-gnu) && return 0 ;;
    esac
    return 1
}

# --- running the tool ----------------------------------------------------

# run_tool ARGS...: run the tool (limit $T_TIMEOUT s, default 120); T_RC,
# T_OUT, T_ERR.  rc 124 means it was killed for running too long.  A run
# that says "internal error" is counted as a failure here (no_internal_error).
run_tool() {
    timeout "${T_TIMEOUT:-120}" "$TOOL" "$@" > "$WORK/.tool.out" 2> "$WORK/.tool.err" < /dev/null
    T_RC=$?
    T_OUT=$(< "$WORK/.tool.out")
    T_ERR=$(< "$WORK/.tool.err")
    rm -f "$WORK/.tool.out" "$WORK/.tool.err"
    no_internal_error "$T_ERR" "$@"
}

# no_internal_error STDERR ARGS...: "internal error" is what the tool says
# when its own checks catch a bug of its own (the plan check before a
# write): whatever the input, that is a failure of the test, counted at
# once with the arguments of the run.  A test that provokes one on purpose
# sets EXPECT_INTERNAL_ERROR=1 around that run.  Scripts that run the tool
# without run_tool pass its stderr here.
no_internal_error() {
    local err=$1; shift
    case $err in
        *"internal error"*) ;;
        *) return 0 ;;
    esac
    [ -n "${EXPECT_INTERNAL_ERROR:-}" ] && return 0
    fail "no internal error from elfthp-align $*" "stderr: $(printf '%s' "$err" | head -3 | tr '\n' ' ')"
}

# tool_said: the last run_tool's output, for failure reasons.
tool_said() {
    printf 'rc=%s stdout=[%s] stderr=[%s]' "$T_RC" "$T_OUT" "$T_ERR"
}

# file_id FILE: inode, mtime (ns) and size, to prove a file was not touched.
file_id() { stat -c '%i %.9Y %s' "$1" 2>/dev/null; }

# listing DIR: names in DIR (to detect left-over temporary files).
listing() { (cd "$1" && ls -A); }

# plural N WORD: "N WORD" or "N WORDs", as the tool's report writes counts
# (README: "gdb: 1 segment aligned, 2 windows, file +0 bytes").
plural() { [ "$1" -eq 1 ] && echo "$1 $2" || echo "$1 ${2}s"; }

# --- reading ELF files with readelf --------------------------------------

# elf_phdrs FILE: one line per program header, numbers in decimal:
#   idx type offset vaddr paddr filesz memsz flags align
# flags is a string of R, W, E (e.g. "RE"); readelf prints "R E".
elf_phdrs() {
    LC_ALL=C readelf -lW "$1" 2>/dev/null | awk '
        /^Program Headers:/ { inph = 1; next }
        inph && /^ *Type / { next }
        inph && /^ *\[/ { next }
        inph && NF == 0 { if (seen) exit; next }
        inph {
            seen = 1
            fl = ""
            for (i = 7; i < NF; i++) fl = fl $i
            printf "%d %s %s %s %s %s %s %s %s\n", n++, $1, $2, $3, $4, $5, $6, \
                   (fl == "" ? "-" : fl), $NF
        }' | while read -r i t o v p fs ms fl al; do
            [ "$al" = 0 ] && al=0x0
            echo "$i $t $((o)) $((v)) $((p)) $((fs)) $((ms)) $fl $((al))"
        done
}

# elf_sections FILE: one line per section header except index 0:
#   idx name type addr offset size      (numbers in decimal)
elf_sections() {
    LC_ALL=C readelf -SW "$1" 2>/dev/null |
        sed -n 's/^ *\[ *\([0-9][0-9]*\)\] /\1 /p' |
        awk '$1 != 0 { print $1, $2, $3, $4, $5, $6 }' |
        while read -r i n t a o s; do
            echo "$i $n $t $((0x$a)) $((0x$o)) $((0x$s))"
        done
}

# elf_min_page FILE: the base page the tool keeps congruence to (see spec).
elf_min_page() {
    case $(LC_ALL=C readelf -h "$1" 2>/dev/null | sed -n 's/^ *Machine: *//p') in
        *AArch64*|*PowerPC*) echo 65536 ;;
        *) echo 4096 ;;
    esac
}

# windows VADDR FILESZ ALIGN: number of full ALIGN windows in the range.
windows() {
    local lo=$(( ($1 + $3 - 1) / $3 )) hi=$(( ($1 + $2) / $3 ))
    echo $(( hi > lo ? hi - lo : 0 ))
}

# count_eligible FILE [ALIGN]: ELIG_N eligible PT_LOADs with ELIG_W windows.
count_eligible() {
    local a=${2:-$TARGET} i t o v p fs ms fl al w exec=no
    ELIG_N=0 ELIG_W=0 ELIG_CHANGE=0
    LC_ALL=C readelf -hW "$1" 2>/dev/null | grep -q 'Type: *EXEC' && exec=yes
    while read -r i t o v p fs ms fl al; do
        [ "$t" = LOAD ] || continue
        case $fl in *W*) continue ;; esac
        w=$(windows "$v" "$fs" "$a")
        [ "$w" -gt 0 ] || continue
        ELIG_N=$((ELIG_N + 1)) ELIG_W=$((ELIG_W + w))
        # Its header changes: incongruent, or an ET_DYN's p_align too low.
        if [ $(( (o - v) % a )) -ne 0 ] || { [ $exec = no ] && [ "$al" -lt "$a" ]; }; then
            ELIG_CHANGE=$((ELIG_CHANGE + 1))
        fi
    done < <(elf_phdrs "$1")
}

# --- checks --------------------------------------------------------------

# check_congruence FILE [ALIGN]: every non-writable PT_LOAD with a full
# ALIGN window has offset = vaddr (mod ALIGN) and, unless FILE is an
# ET_EXEC (loaded where linked), p_align >= ALIGN; every PT_LOAD has
# offset = vaddr (mod max(p_align, base page)).
check_congruence() {
    local f=$1 a=${2:-$TARGET} i t o v p fs ms fl al m w nload=0 bad=""
    local minpage; minpage=$(elf_min_page "$f")
    # An ET_EXEC loads at its linked addresses: p_align places nothing.
    local exec=no
    LC_ALL=C readelf -hW "$f" 2>/dev/null | grep -q 'Type: *EXEC' && exec=yes
    while read -r i t o v p fs ms fl al; do
        [ "$t" = LOAD ] || continue
        nload=$((nload + 1))
        case $fl in *W*) w=0 ;; *) w=$(windows "$v" "$fs" "$a") ;; esac
        if [ "$w" -gt 0 ]; then
            [ $(( (o - v) % a )) -eq 0 ] ||
                bad="$bad; phdr $i ($fl, $w windows): offset $(printf 0x%x "$o") != vaddr $(printf 0x%x "$v") mod $(printf 0x%x "$a")"
            [ "$al" -ge "$a" ] || [ $exec = yes ] ||
                bad="$bad; phdr $i ($fl, $w windows): p_align $(printf 0x%x "$al") < $(printf 0x%x "$a")"
        fi
        m=$(( al > minpage ? al : minpage ))
        [ $(( (o - v) % m )) -eq 0 ] ||
            bad="$bad; phdr $i ($fl): offset $(printf 0x%x "$o") != vaddr $(printf 0x%x "$v") mod $(printf 0x%x "$m")"
    done < <(elf_phdrs "$f")
    if [ "$nload" -eq 0 ]; then WHY="$f: no PT_LOAD (readelf failed?)"; return 1; fi
    if [ -n "$bad" ]; then WHY="$f${bad#;}"; return 1; fi
    return 0
}

# start_body FILE [ALIGN]: a non-writable PT_LOAD holding a whole ALIGN
# window has both p_vaddr and p_offset multiples of ALIGN (readelf): the
# body --layout start makes, what glibc.elf.thp takes.
start_body() {
    local f=$1 a=${2:-$TARGET} i t o v p fs ms fl al rows=""
    while read -r i t o v p fs ms fl al; do
        [ "$t" = LOAD ] || continue
        rows="$rows; $fl $(printf 0x%x "$o")/$(printf 0x%x "$v")+$(printf 0x%x "$fs")"
        case $fl in *W*) continue ;; esac
        [ $((o % a)) -eq 0 ] && [ $((v % a)) -eq 0 ] && [ "$fs" -ge "$a" ] && return 0
    done < <(elf_phdrs "$f")
    WHY="$f: no read-only PT_LOAD starts on $(printf 0x%x "$a") (offset/vaddr+filesz:${rows#;})"
    return 1
}

# check_p_align FILE [ALIGN]: every PT_LOAD the tool aligns (not
# writable, holding a full ALIGN window) has p_align >= ALIGN (readelf).
# What an in-place rewrite of an already congruent (GNU ld) layout adds.
check_p_align() {
    local f=$1 a=${2:-$TARGET} i t o v p fs ms fl al bad="" n=0
    while read -r i t o v p fs ms fl al; do
        [ "$t" = LOAD ] || continue
        case $fl in *W*) continue ;; esac
        [ "$(windows "$v" "$fs" "$a")" -gt 0 ] || continue
        n=$((n + 1))
        [ "$al" -ge "$a" ] || bad="$bad phdr $i ($fl): p_align $(printf 0x%x "$al")"
    done < <(elf_phdrs "$f")
    if [ "$n" -eq 0 ]; then WHY="$f: no eligible PT_LOAD (readelf failed?)"; return 1; fi
    if [ -n "$bad" ]; then WHY="$f:$bad < $(printf 0x%x "$a")"; return 1; fi
    return 0
}

# _masked FILE OUT: copy FILE to OUT with the ELF header and the program
# header table zeroed; those are expected to change and are compared field
# by field instead.
# _masked FILE OUT [OTHER]: the same, and OTHER's program header table's
# range zeroed too (a split file's table moves: both places are masked).
_masked() {
    local f=$1 out=$2 g phoff phnum phent ehsize
    cp "$f" "$out" || return 1
    for g in "$f" ${3:+"$3"}; do
        eval "$(LC_ALL=C readelf -hW "$g" 2>/dev/null | awk -F: '
            /Start of program headers/ { split($2, x, " "); print "phoff=" x[1] }
            /Number of program headers/ { split($2, x, " "); print "phnum=" x[1] }
            /Size of program headers/ { split($2, x, " "); print "phent=" x[1] }
            /Size of this header/ { split($2, x, " "); print "ehsize=" x[1] }')"
        dd if=/dev/zero of="$out" bs=1 count="${ehsize:-0}" conv=notrunc status=none &&
        dd if=/dev/zero of="$out" bs=1 seek="${phoff:-0}" \
           count=$(( ${phnum:-0} * ${phent:-0} )) conv=notrunc status=none || return 1
    done
}

# check_segment_bytes ORIG NEW: everything but offsets and p_align is the
# same: the ELF header (except e_shoff and e_phoff), each program header's type, vaddr,
# paddr, filesz, memsz, flags, and the file bytes of each program header and
# of each non-NOBITS section (each at its own offset in each file).
check_segment_bytes() {
    local orig=$1 new=$2 bad="" d
    d=$(mktemp -d "$WORK/bytes.XXXXXX")

    # ELF header: all fields but the section header offset (and, for a
    # split file, the program headers' number: compared merged below).
    local split=no hold=""
    [ -n "$(python3 "$LIB_DIR/phdrs.py" heads "$new")" ] && split=yes
    LC_ALL=C readelf -hW "$orig" 2>/dev/null | grep -v 'Start of \(section\|program\) headers' |
        { [ $split = yes ] && grep -v 'Number of program headers' || cat; } > "$d/h1"
    LC_ALL=C readelf -hW "$new" 2>/dev/null | grep -v 'Start of \(section\|program\) headers' |
        { [ $split = yes ] && grep -v 'Number of program headers' || cat; } > "$d/h2"
    cmp -s "$d/h1" "$d/h2" ||
        bad="$bad; ELF header differs: $(diff "$d/h1" "$d/h2" | grep '^[<>]' | tr '\n' ' ')"

    # Program headers: fields other than offset and align; a split
    # PT_LOAD joined back (phdrs.py), and where the file was split, the
    # moved table's PT_PHDR and the PT_LOAD grown over it compared by
    # check_split instead.
    # An unsplit file is read by readelf on both sides, as it always was
    # (hostile tables: PN_XNUM, types readelf names its own way).
    elf_phdrs "$orig" > "$d/p1"
    if [ $split = yes ]; then
        python3 "$LIB_DIR/phdrs.py" merged "$new" > "$d/p2"
    else
        elf_phdrs "$new" > "$d/p2"
    fi
    if [ $split = yes ]; then
        local phoff
        phoff=$(LC_ALL=C readelf -hW "$new" | awk '/Start of program headers/ { print $5 }')
        hold=$(awk -v p="$phoff" '$2 == "LOAD" && $3 <= p && p < $3 + $6 { print $1; exit }' "$d/p2")
    fi
    awk -v s=$split -v h="$hold" '{ if (s == "yes" && $2 == "PHDR") print $1, $2, $8;
        else if (s == "yes" && $1 == h) print $1, $2, $4, $5, $8;
        else print $1, $2, $4, $5, $6, $7, $8 }' "$d/p1" > "$d/pf1"
    awk -v s=$split -v h="$hold" '{ if (s == "yes" && $2 == "PHDR") print $1, $2, $8;
        else if (s == "yes" && $1 == h) print $1, $2, $4, $5, $8;
        else print $1, $2, $4, $5, $6, $7, $8 }' "$d/p2" > "$d/pf2"
    [ -s "$d/pf1" ] || bad="$bad; no program headers in $orig"
    cmp -s "$d/pf1" "$d/pf2" ||
        bad="$bad; program header fields differ: $(diff "$d/pf1" "$d/pf2" | grep '^[<>]' | tr '\n' ' ')"

    # Section headers: everything but the offset column (readelf -SW).
    LC_ALL=C readelf -SW "$orig" 2>/dev/null | sed -n 's/^ *\[ *\([0-9]*\)\] */\1 /p' |
        awk '{ $5 = ""; print }' > "$d/s1"
    LC_ALL=C readelf -SW "$new" 2>/dev/null | sed -n 's/^ *\[ *\([0-9]*\)\] */\1 /p' |
        awk '{ $5 = ""; print }' > "$d/s2"
    cmp -s "$d/s1" "$d/s2" ||
        bad="$bad; section headers differ: $(diff "$d/s1" "$d/s2" | grep '^[<>]' | head -4 | tr '\n' ' ')"

    if [ -z "$bad" ]; then
        _masked "$orig" "$d/m1" && _masked "$new" "$d/m2" "$orig" ||
            { WHY="cannot make masked copies"; rm -rf "$d"; return 1; }
        # Segment bytes, program header by program header.
        local i t o1 o2 fs rest
        paste -d' ' "$d/p1" "$d/p2" | while read -r i t o1 _ _ fs _ _ _ _ _ o2 rest; do
            [ "$fs" -gt 0 ] || continue
            [ $split = yes ] && [ "$t" = PHDR ] && continue
            cmp -s -i "$o1:$o2" -n "$fs" "$d/m1" "$d/m2" ||
                echo "phdr $i ($t) bytes differ (0x$(printf %x "$o1") -> 0x$(printf %x "$o2"), 0x$(printf %x "$fs") bytes)"
        done > "$d/segbad"
        # Section bytes, section by section.
        elf_sections "$orig" > "$d/x1"; elf_sections "$new" > "$d/x2"
        local n ty a s
        paste -d' ' "$d/x1" "$d/x2" | while read -r i n ty a o1 s _ _ _ _ o2 _; do
            [ "$ty" = NOBITS ] && continue
            [ "$s" -gt 0 ] || continue
            cmp -s -i "$o1:$o2" -n "$s" "$d/m1" "$d/m2" ||
                echo "section [$i] $n bytes differ"
        done > "$d/secbad"
        [ -s "$d/segbad" ] && bad="$bad; $(paste -sd';' "$d/segbad")"
        [ -s "$d/secbad" ] && bad="$bad; $(head -5 "$d/secbad" | paste -sd';')"
    fi
    rm -rf "$d"
    if [ -n "$bad" ]; then WHY="${bad#; }"; return 1; fi
    return 0
}

# check_only_align_changed ORIG NEW: same size, program headers equal but
# for p_align, and every byte outside the program header table equal.  A
# split file (--layout start) is compared with its heads and bodies joined
# (phdrs.py), its PT_PHDR and the PT_LOAD grown over the moved table left
# to check_split's own checks, and both tables' places masked.
check_only_align_changed() {
    local orig=$1 new=$2 d s1 s2 split=no
    s1=$(stat -c %s "$orig") s2=$(stat -c %s "$new")
    if [ "$s1" != "$s2" ]; then WHY="size changed: $s1 -> $s2"; return 1; fi
    d=$(mktemp -d "$WORK/align.XXXXXX")
    [ -n "$(python3 "$LIB_DIR/phdrs.py" heads "$new")" ] && split=yes
    elf_phdrs "$orig" > "$d/r1"
    if [ $split = yes ]; then
        python3 "$LIB_DIR/phdrs.py" merged "$new" > "$d/r2"
    else
        elf_phdrs "$new" > "$d/r2"
    fi
    _norm_split_rows "$split" "$new" "$d/r1" > "$d/p1"
    _norm_split_rows "$split" "$new" "$d/r2" > "$d/p2"
    if ! cmp -s "$d/p1" "$d/p2"; then
        WHY="program headers differ beyond p_align: $(diff "$d/p1" "$d/p2" | grep '^[<>]' | tr '\n' ' ')"
        rm -rf "$d"; return 1
    fi
    # Zero the phdr tables (and the ELF header, compared with readelf -h).
    _masked "$orig" "$d/m1" "$new" && _masked "$new" "$d/m2" "$orig"
    LC_ALL=C readelf -hW "$orig" 2>/dev/null |
        { [ $split = yes ] && grep -v 'program headers' || cat; } > "$d/h1"
    LC_ALL=C readelf -hW "$new" 2>/dev/null |
        { [ $split = yes ] && grep -v 'program headers' || cat; } > "$d/h2"
    if ! cmp -s "$d/h1" "$d/h2"; then
        WHY="ELF header changed"; rm -rf "$d"; return 1
    fi
    if ! cmp -s "$d/m1" "$d/m2"; then
        WHY="bytes outside the program header table changed: $(cmp "$d/m1" "$d/m2" 2>&1 | head -1)"
        rm -rf "$d"; return 1
    fi
    rm -rf "$d"
    return 0
}

# _norm_split_rows SPLIT NEW ROWS: elf_phdrs ROWS without p_align; where
# SPLIT is yes, PT_PHDR's place and size and the sizes of the PT_LOAD that
# holds NEW's table left out.
_norm_split_rows() {
    local hold="" phoff
    if [ "$1" = yes ]; then
        phoff=$(LC_ALL=C readelf -hW "$2" | awk '/Start of program headers/ { print $5 }')
        hold=$(python3 "$LIB_DIR/phdrs.py" merged "$2" |
            awk -v p="$phoff" '$2 == "LOAD" && $3 <= p && p < $3 + $6 { print $1; exit }')
    fi
    awk -v s="$1" -v h="$hold" '{ $9 = "";
        if (s == "yes" && $2 == "PHDR") print $1, $2, $8;
        else if (s == "yes" && $1 == h) print $1, $2, $3, $4, $5, $8;
        else print }' "$3"
}

# _elflint FILE: eu-elflint messages with the file name replaced by FILE.
_elflint() {
    # A program header named by its index ("phdr[8]: unknown ... note")
    # is the same header after a split puts one more entry before it.
    eu-elflint -q --gnu-ld "$1" 2>&1 | awk -v f="$1" '{
        while ((i = index($0, f)) > 0)
            $0 = substr($0, 1, i - 1) "FILE" substr($0, i + length(f))
        gsub(/^phdr\[[0-9]+\]/, "phdr[N]")
        print }' | sort -u
}

# check_elflint ORIG NEW: no eu-elflint message for NEW that ORIG lacks.
check_elflint() {
    if ! command -v eu-elflint >/dev/null; then
        WHY="eu-elflint not installed"; return 2
    fi
    local new_msgs heads bodies
    # A split cuts a section (.text) at the window: eu-elflint says it is
    # "not fully contained" in the head, and where no executable section
    # starts in the body, that the body "contains no executable sections".
    # Those, for a head and its body, are the messages the split is
    # allowed (docs/rewrite.md); any other is new.
    heads=$(python3 "$LIB_DIR/phdrs.py" heads "$2" | paste -sd'|')
    bodies=$(python3 "$LIB_DIR/phdrs.py" heads "$2" | awk '{ print $1 + 1 }' | paste -sd'|')
    new_msgs=$(comm -13 <(_elflint "$1") <(_elflint "$2") |
        { if [ -n "$heads" ]; then grep -Ev "^section \[ *[0-9]+\] '[^']*' not fully contained in segment of program header entry ($heads)\$|^loadable segment \[($bodies)\] is executable but contains no executable sections\$"; else cat; fi; })
    if [ -n "$new_msgs" ]; then
        WHY="new eu-elflint messages: $(echo "$new_msgs" | head -5 | tr '\n' ' ')"
        return 1
    fi
    return 0
}

# run_same ORIG NEW [RUNNER...]: both programs exit 0 with equal stdout.
run_same() {
    local orig=$1 new=$2 o1 o2 r1 r2; shift 2
    o1=$(timeout 120 "$@" "$orig" 2>&1); r1=$?
    o2=$(timeout 120 "$@" "$new" 2>&1); r2=$?
    if [ "$r1" -ne 0 ] || [ -z "$o1" ]; then
        WHY="original failed to run (rc $r1): $(echo "$o1" | head -3 | tr '\n' ' ')"; return 1
    fi
    if [ "$r2" -ne 0 ]; then
        WHY="rewritten program failed (rc $r2): $(echo "$o2" | head -3 | tr '\n' ' ')"; return 1
    fi
    if [ "$o1" != "$o2" ]; then
        WHY="output differs: [$o1] vs [$o2]"; return 1
    fi
    return 0
}

# --- small checks for use with assert ------------------------------------

# same_file A B: byte-identical.
same_file() {
    cmp -s "$1" "$2" && return 0
    WHY="$2 differs from $1: $(cmp "$1" "$2" 2>&1 | head -1)"; return 1
}

# same_id FILE ID: file_id of FILE is still ID (same inode, mtime, size).
same_id() {
    local now; now=$(file_id "$1")
    [ "$now" = "$2" ] && return 0
    WHY="$1 was touched: inode/mtime/size '$2' -> '$now'"; return 1
}

# same_listing DIR LISTING: no file appeared or vanished in DIR.
same_listing() {
    local now; now=$(listing "$1")
    [ "$now" = "$2" ] && return 0
    WHY="directory listing changed: [$(echo "$2" | tr '\n' ' ')] -> [$(echo "$now" | tr '\n' ' ')]"
    return 1
}

# equals WHAT GOT WANT: two strings are the same.
equals() {
    [ "$2" = "$3" ] && return 0
    WHY="$1: got [$2], want [$3]"; return 1
}

# rc_is GOT WANT: an exit status is what was expected.
rc_is() {
    [ "$1" -eq "$2" ] && return 0
    WHY="exit $1, expected $2"; return 1
}

# tool_rc N: the last run_tool exited with N.
tool_rc() {
    [ "$T_RC" -eq "$1" ] && return 0
    WHY="expected exit $1: $(tool_said)"; return 1
}

# one_error_line PATH: stderr is exactly one line "elfthp-align: PATH: <text>".
one_error_line() {
    local n=0
    [ -n "$T_ERR" ] && n=$(printf '%s\n' "$T_ERR" | grep -c '')
    if [ -z "$T_ERR" ] || [ "$n" -ne 1 ]; then
        WHY="expected one line on stderr, got $n: $(tool_said)"; return 1
    fi
    case $T_ERR in
        "elfthp-align: $1: "?*) return 0 ;;
    esac
    WHY="stderr is not 'elfthp-align: $1: ...': $(tool_said)"; return 1
}

# no_temp DIR: no temporary file of the tool (NAME.elfthp-XXXXXX or
# .elfthp-XXXXXX) in DIR.
no_temp() {
    local left
    left=$( (cd "$1" && ls -A) | grep -E '(^|\.)elfthp-')
    [ -z "$left" ] && return 0
    WHY="temporary file left in $1: $left"; return 1
}

# no_temp_tree DIR: no temporary file of the tool anywhere under DIR.
no_temp_tree() {
    local left
    left=$(find "$1" -name '*elfthp-*' 2>/dev/null | grep -E '(^|/|\.)elfthp-[^/]*$')
    [ -z "$left" ] && return 0
    WHY="temporary files left under $1: $left"; return 1
}

# tool_err_names FILE: the last run_tool failed with a message naming FILE.
tool_err_names() {
    case $T_ERR in
        *"elfthp-align: $1:"*) return 0 ;;
    esac
    WHY="stderr does not have 'elfthp-align: $1: ...': $(tool_said)"; return 1
}

# refused_as F MSG FIRST FORMAT: the last run_tool refused F: exit 2, one
# stderr line "elfthp-align: F: M" where M holds MSG (the words a test
# expects, e.g. from a generator's refusals.txt) and, when FIRST (the
# first mode's M) is given, is FIRST; with FORMAT json, the file's JSON
# object on stdout says "status":"error" with the message M.
refused_as() {
    local f=$1 msg=$2 first=$3 json=$4 m
    if [ "$T_RC" -ne 2 ]; then WHY="expected exit 2: $(tool_said)"; return 1; fi
    # one_error_line, without its grep: test_hostile.sh runs this 800 times.
    if [[ $T_ERR != "elfthp-align: $f: "?* || $T_ERR == *$'\n'* ]]; then
        WHY="stderr is not one line 'elfthp-align: $f: ...': $(tool_said)"; return 1
    fi
    m=${T_ERR#"elfthp-align: $f: "}
    case $m in
        *"$msg"*) ;;
        *) WHY="the message does not say '$msg': $(tool_said)"; return 1 ;;
    esac
    if [ -n "$first" ] && [ "$m" != "$first" ]; then
        WHY="another message than the first mode's [$first]: $(tool_said)"; return 1
    fi
    if [ "$json" = json ]; then
        case $T_OUT in
            *"\"file\":\"$f\",\"status\":\"error\",\"message\":\"$m\""*) ;;
            *) WHY="no JSON error object with the message: $(tool_said)"; return 1 ;;
        esac
    fi
    return 0
}

# --- package builds --------------------------------------------------------

# checks_ready FILE: --check FILE exits 0 (a build output of the
# examples and build-system tests).
checks_ready() {
    run_tool --check "$1"
    [ "$T_RC" -eq 0 ] && return 0
    WHY="--check $1: exit $T_RC: $(tool_said)"; return 1
}
# prints_line PROG: exit 0 and the example's line.
prints_line() {
    local out rc
    out=$(timeout 60 "$1" 2>&1); rc=$?
    [ "$rc" -eq 0 ] && [ "$out" = "$WANT_LINE" ] && return 0
    WHY="$1: rc $rc, output [$out], want [$WANT_LINE]"; return 1
}
# text_moved ORIG NEW: the text PT_LOAD of NEW starts later in the file.
text_moved() {
    local o n
    o=$(elf_phdrs "$1" | awk '$2 == "LOAD" && $8 == "RE" { print $3 }')
    n=$(elf_phdrs "$2" | awk '$2 == "LOAD" && $8 == "RE" { print $3 }')
    [ -n "$o" ] && [ -n "$n" ] && [ "$n" -gt "$o" ] && return 0
    WHY="text offset $o -> $n: not moved"; return 1
}

# is_ready FILE: elfthp-align --check exits 0 (FILE is as the tool makes it).
is_ready() {
    [ -f "$1" ] || { WHY="$1 not packaged"; return 1; }
    run_tool --check "$1"
    [ "$T_RC" -eq 0 ] && return 0
    WHY="not ready: $(tool_said)"; return 1
}

# not_ready FILE: --check exits 1 (the tool would change FILE).
not_ready() {
    [ -f "$1" ] || { WHY="$1 not packaged"; return 1; }
    run_tool --check "$1"
    [ "$T_RC" -eq 1 ] && return 0
    WHY="expected exit 1: $(tool_said)"; return 1
}

# stripped FILE: no .debug_info left.
stripped() {
    [ -f "$1" ] || { WHY="$1 not packaged"; return 1; }
    readelf -SW "$1" | grep -q '\.debug_info' || return 0
    WHY="$1 still has .debug_info"; return 1
}

# log_has NAME TEXT: the build log $WORK/NAME.log holds TEXT.
log_has() {
    grep -qF -- "$2" "$WORK/$1.log" && return 0
    WHY="$1.log lacks [$2]; its end: $(tail -8 "$WORK/$1.log" | tr '\n' ' ')"; return 1
}

# --- scratch copies -------------------------------------------------------

FRESH_N=0
# fresh_dir: a new empty directory $WORK/fN (N counts up); sets D.
fresh_dir() {
    FRESH_N=$((FRESH_N + 1))
    D=$WORK/f$FRESH_N
    mkdir -p "$D"
}

# fresh [SRC]: fresh_dir holding a copy of SRC (default $FX, the script's
# fixture) as "prog", mode 755.  Sets D (the directory), F (the copy),
# SAVED ($WORK/fN.saved, another copy to compare with) and L (the listing
# of D).
fresh() {
    fresh_dir && cp "${1:-$FX}" "$D/prog" && chmod 755 "$D/prog" || return 1
    F=$D/prog SAVED=$WORK/f$FRESH_N.saved
    cp "$F" "$SAVED" || return 1
    L=$(listing "$D")
}

# --- running programs and reading their mappings -------------------------

# hold_start OUT CMD...: run CMD (a fixture, given --hold as its last
# argument) in the background, output to OUT, and wait (30 s at most)
# until it prints "ready"; HOLD_PID is its pid.  Returns 1 (WHY set, the
# process stopped) if it never does.  One held process at a time.
hold_start() {
    local out=$1 i; shift
    # Empty OUT first: the background child truncates it only once it runs,
    # and a "ready" left by the last run would end the wait at once (the
    # process measured before it mapped anything, its output lost).
    : > "$out" || { WHY="cannot write $out"; return 1; }
    "$@" --hold > "$out" 2>&1 &
    HOLD_PID=$!
    for i in $(seq 1 600); do
        grep -q '^ready$' "$out" 2>/dev/null && return 0
        kill -0 "$HOLD_PID" 2>/dev/null || break
        sleep 0.05
    done
    WHY="$* --hold did not get ready: $(head -3 "$out" | tr '\n' ' ')"
    hold_stop
    return 1
}

hold_stop() {
    if [ -n "$HOLD_PID" ]; then
        kill "$HOLD_PID" 2>/dev/null; wait "$HOLD_PID" 2>/dev/null
    fi
    HOLD_PID=""
}

# pmd_kb PID FILE [x]: FilePmdMapped + ShmemPmdMapped (kB) summed over the
# mappings of FILE in /proc/PID/smaps; with x, executable mappings only.
pmd_kb() {
    awk -v p="$(realpath "$2")" -v xonly="${3:-}" '
        /^[0-9a-f]+-[0-9a-f]+ / { cur = ($6 == p) && (xonly == "" || $2 ~ /x/); next }
        cur && ($1 == "FilePmdMapped:" || $1 == "ShmemPmdMapped:") { kb += $2 }
        END { print kb + 0 }' "/proc/$1/smaps"
}

# run_pmd FILE CMD...: run CMD --hold; RUN_KB (FILE's PMD-mapped kB),
# RUN_XKB (its executable mappings only) and RUN_OUT (what it printed
# before "ready").  Returns 1 (WHY set) if it does not get ready.
run_pmd() {
    local file=$1; shift
    RUN_KB="" RUN_XKB="" RUN_OUT=""
    hold_start "$WORK/.run_pmd.out" "$@" || return 1
    RUN_KB=$(pmd_kb "$HOLD_PID" "$file")
    RUN_XKB=$(pmd_kb "$HOLD_PID" "$file" x)
    hold_stop
    RUN_OUT=$(grep -v '^ready$' "$WORK/.run_pmd.out")
    return 0
}

# drop_cache FILE: write FILE back and drop its page cache (fsync, then
# POSIX_FADV_DONTNEED), as the kernel does under memory pressure.
drop_cache() {
    python3 -c 'import os, sys
fd = os.open(sys.argv[1], os.O_RDONLY)
os.fsync(fd)
os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)' "$1"
}

# cached_bytes FILE: bytes of FILE in the page cache (fincore).
cached_bytes() { fincore -b -n -o RES "$1" | tr -d ' '; }

# --- disturbances by the machine --------------------------------------------
# A positive check of huge text (a run maps W x 2 MiB after the tool put
# the windows in the page cache) fails, without a fault of the tool, when
# other load on the machine takes the huge folios away between the step
# and the run (reclaim, a split, drop_caches) or leaves the kernel no huge
# folio to give the step (thp_file_fallback).  The kernel counts each of
# these; such a failure is tried again, and a failure with no counter
# moved never is.

# machine_events: "name value" lines: the host's reclaim (pgsteal_*),
# huge page splits, page cache that got small folios where it asked for
# huge ones, drop_caches (/proc/vmstat), and the reclaim of this
# process's memory cgroup, which /proc/vmstat does not count: cgroup v2's
# pgsteal (memory.stat), or v1's memory.failcnt of the cgroup and each
# cgroup above it (a limit hit there reclaims here too).
machine_events() {
    local cg d d2
    awk '/^(pgsteal_[a-z]+|thp_split_page|thp_file_fallback[a-z_]*|drop_pagecache) / { print }' /proc/vmstat
    cg=$(sed -n 's/^0:://p' /proc/self/cgroup)
    if [ -r "/sys/fs/cgroup$cg/memory.stat" ]; then
        awk '/^pgsteal / { print "cgroup_pgsteal", $2 }' "/sys/fs/cgroup$cg/memory.stat"
    fi
    cg=$(sed -n 's/^[0-9]*:memory:\(.*\)/\1/p' /proc/self/cgroup)
    d=/sys/fs/cgroup/memory$cg
    if [ -n "$cg" ] && [ -r "$d/memory.failcnt" ]; then
        while [ "$d" != /sys/fs/cgroup ] && [ -r "$d/memory.failcnt" ]; do
            d2=${d#/sys/fs/cgroup/memory}
            echo "memcg_failcnt:${d2:-/} $(cat "$d/memory.failcnt")"
            d=${d%/*}
        done
    fi
}

# events_moved MARK: print "name +N, ..." for each counter of
# machine_events that grew since MARK (its output); 1 if none did.
events_moved() {
    awk 'NR == FNR { was[$1] = $2; next }
         ($1 in was) && $2 > was[$1] { printf "%s%s +%d", sep, $1, $2 - was[$1]; sep = ", "; n++ }
         END { exit n == 0 }' <(printf '%s\n' "$1") <(machine_events)
}

# retry_disturbed CHECK ARGS...: run CHECK (a check function that redoes
# the step under test, then measures; WHY set on failure); a failure while
# the machine reclaimed, split or dropped page cache (events_moved) is
# tried again, 3 tries in all (RETRY_TRY, 1 to 3, tells CHECK which this
# is), each shown in a "# ..." line; a failure
# with nothing moved is at once the check's failure.  After 3 disturbed
# tries the failure says so: a measurement the machine spoiled, never a
# pass.
retry_disturbed() {
    local try mark rc moved
    for try in 1 2 3; do
        mark=$(machine_events)
        WHY="" RETRY_TRY=$try
        "$@"; rc=$?
        [ "$rc" -eq 1 ] || return "$rc"
        moved=$(events_moved "$mark") || return 1
        echo "# try $try of $1: $WHY; meanwhile the machine took page cache ($moved)"
    done
    WHY="$WHY; in each of 3 tries the machine took page cache meanwhile ($moved): the measurement was disturbed, no verdict"
    return 1
}

# kb_is WHAT GOT WANT: a kB figure is exactly what was expected.
kb_is() {
    [ "$2" = "$3" ] && return 0
    WHY="$1: $2 kB, expected $3 kB"; return 1
}

# mount_image FS DIR: a 512 MiB sparse image made with mkfs.FS (ext4, xfs
# or btrfs) in $WORK, loop-mounted at DIR and added to $MOUNTS (the
# script's cleanup_hook unmounts them).  Returns 1 (WHY set) if mkfs
# fails, 2 if the kernel refuses the mount.
mount_image() {
    local fs=$1 dir=$2 img=$WORK/$1.img err
    truncate -s 512M "$img" || return 1
    case $fs in
        ext4) err=$(mkfs.ext4 -q -F "$img" 2>&1) ;;
        xfs) err=$(mkfs.xfs -q -f "$img" 2>&1) ;;
        btrfs) err=$(mkfs.btrfs -q -f "$img" 2>&1) ;;
    esac || { WHY="mkfs.$fs: $err"; return 1; }
    mkdir -p "$dir"
    err=$(mount -o loop "$img" "$dir" 2>&1) || { WHY="mount: $err"; return 2; }
    MOUNTS="$dir ${MOUNTS:-}"
}

# --- strace-delayed runs ------------------------------------------------------

# sysnr NAME: the syscall number of NAME on this machine.
sysnr() {
    printf '#include <sys/syscall.h>\nSYS_%s\n' "$1" | cpp -P 2>/dev/null | tail -n 1
}

# descendants PID: every process below PID.
descendants() {
    local c
    for c in $(cat /proc/"$1"/task/*/children 2>/dev/null); do
        echo "$c"
        descendants "$c"
    done
}

DELAY_US=2000000
DELAY_WHEN=1
DELAY_TIMEOUT=120
DELAY_PREFIX=()
# delayed_start SYSCALL ARGS...: run the tool under strace (itself run by
# the command in the array DELAY_PREFIX, if any), the DELAY_WHEN'th SYSCALL
# (default the first) held for DELAY_US, the whole run killed after
# DELAY_TIMEOUT s; returns once the tool sits in that syscall (TP: its pid;
# SP: the pid to wait for).  1 if it never got there.
delayed_start() {
    local sc=$1 nr i p trace=$1 fails=(); shift
    nr=$(sysnr "$sc")
    # DELAY_FAIL=SYSCALL:error=E: that call fails too (traced with sc:
    # strace tampers only with what it traces, and the last -e trace wins).
    if [ -n "${DELAY_FAIL:-}" ]; then
        trace=$sc,${DELAY_FAIL%%:*}
        fails=(-e inject="$DELAY_FAIL")
    fi
    # LeakSanitizer cannot run under ptrace (make check SANITIZE=1).
    ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
    timeout "$DELAY_TIMEOUT" "${DELAY_PREFIX[@]}" strace -f -qq -o /dev/null -e trace="$trace" \
        -e inject="$sc":delay_enter=$DELAY_US:when=$DELAY_WHEN "${fails[@]}" "$TOOL" "$@" \
        > "$WORK/.d.out" 2> "$WORK/.d.err" < /dev/null &
    SP=$! TP=""
    for i in $(seq 1 400); do
        for p in $(descendants "$SP"); do
            if [ "$(cat /proc/"$p"/comm 2>/dev/null)" = elfthp-align ]; then
                TP=$p
                grep -qs "^$nr " /proc/"$p"/task/*/syscall && return 0
            fi
        done
        kill -0 "$SP" 2>/dev/null || break
        sleep 0.05
    done
    return 1
}

# delayed_wait: wait for the delayed run; T_RC, T_OUT, T_ERR as run_tool.
delayed_wait() {
    wait "$SP"
    T_RC=$?
    T_OUT=$(cat "$WORK/.d.out")
    # strace's own complaints are not the tool's messages.
    T_ERR=$(grep -v '^strace: ' "$WORK/.d.err")
    rm -f "$WORK/.d.out" "$WORK/.d.err"
}
