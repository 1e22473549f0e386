#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# SPDX-FileCopyrightText: 2026 the elfthp-align authors
# test_docs.sh BUILDDIR - every command the README and the man page's
# EXAMPLES show is run here, and every output sample the README shows is
# what the tool prints now, so that neither can go stale.
#
# Markers (invisible when rendered):
#   README   <!-- tested: KIND (why/how) -->  BLOCK  <!-- end tested -->
#            <!-- sample: KIND -->  $ COMMAND + output  <!-- end sample -->
#            <!-- untested: REASON -->  right before a block: a counted skip
#   man page .\" tested: KIND   right before a .Bd -literal or .Dl in EXAMPLES
#
#   - inventory: every code block of the README (but the Usage synopsis,
#     which is not a command) and every display in the man page's EXAMPLES
#     carries a marker; an unmarked one fails (shown on a made-up README);
#   - each tested block runs in a scratch directory with its example paths
#     pointed at fixture copies (/usr/bin/gdb, /usr/local/bin/myprog,
#     libLLVM-15.so.1, prog, dist/, /mnt/huge: see subst), by KIND:
#       newcomer     make -n on each line's targets (make check cannot run
#                    itself, nor install packages); examples/demo.sh (what
#                    make demo runs) in a copy of the tree; install-deps.sh
#                    installs the build line's packages;
#       build        the Makefile's pkg-config modules are exactly those
#                    of the line's -dev packages (dpkg -S); apt-get -s
#                    accepts the line; its make builds a copy of the source
#                    with a pkg-config that knows only those modules;
#       lines        each line exits 0 (prog rewritten, gdb not);
#       ci-check     the block as a script: exit 1 and its message on a
#                    dist/ that needs a rewrite, exit 0 after it;
#       postlink     a Makefile with the rule links the fixture with lld:
#                    exit 0, aligned, runs;
#       tmpfs-proof  the block as a script (errexit; root; the fixture gets
#                    --hold): exit 0, ShmemPmdMapped > 0, --pid names prog;
#                    without its rewrite line, no ShmemPmdMapped > 0;
#       runtime      line by line on an ext4 image (below);
#       unit         systemd-analyze verify (below);
#       cargo-post, cargo-linker  the Cargo recipes on a crate
#       compat      --check --compat on the lld PIE: exit 3, the relink named
#       keep        the path-list line, pointed at a list here and a copy
#                    of the lld fixture: the program is listed, and the
#                    unit's command on the list aligns it; the units the
#                    systemctl line names are the ones dist/ ships
#       synopsis    the Usage forms, against elfthp-align --help
#                    named myprog: exit 0, the result ready (--check 0);
#   - samples: scripts/docs-samples.sh --check (regenerate: make
#     docs-samples); a copy with one sample changed must differ;
#   - the README's runtime block (between "<!-- tested: runtime" and "<!--
#     end tested -->") runs line by line in bash on a loop-mounted ext4
#     image, with only its first line (prog=...) pointed at a copy of the lld
#     fixture named myprog, started with --hold before the --pid line:
#     every line exits 0, --host names ext4, the rewrite aligns, --warm
#     finds the windows huge, and --pid shows them PMD-mapped;
#     the man page's EXAMPLES has the same lines;
#   - dist/elfthp-align.service.in passes systemd-analyze verify (its
#     bindir pointed at this build), and so does a unit with the README's
#     ExecStartPre= line; a broken copy does not (so the check can fail);
#     the unit's ExecStart command line runs on the path list it names and
#     aligns what it lists (test_upgrade.sh takes it through upgrades and
#     reclaim).
. "$(dirname "$0")/lib.sh"
need_builddir "$@"
need_tool


README=$REPO_ROOT/README.md
MAN=$REPO_ROOT/man/elfthp-align.1
UNIT=$REPO_ROOT/dist/elfthp-align.service.in
TOOLDIR=$(dirname "$TOOL")

# --- inventory --------------------------------------------------------------

# readme_blocks FILE: one line per code block: "LINENO STATE WHAT", STATE
# tested, sample, untested (WHAT: the reason), synopsis or UNMARKED.
readme_blocks() {
    awk '
        function start(   st, w) {
            if (mark != "") { st = mark; w = mkind }
            else if (pend != "") { st = "untested"; w = pend }
            else if (usage && !synopsis_done) { st = "synopsis"; w = "the Usage synopsis" }
            else { st = "UNMARKED"; w = $0 }
            if (usage) synopsis_done = 1
            print NR, st, w
            pend = ""
        }
        /^## / { usage = ($0 == "## Usage"); }
        /^ *<!-- (tested|sample): / { mark = ($2 == "sample:" ? "sample" : "tested"); mkind = $3; prev = "m"; next }
        /^ *<!-- end (tested|sample) -->/ { mark = ""; prev = "m"; next }
        /^ *<!-- untested: / { pend = $0; sub(/^ *<!-- untested: /, "", pend); sub(/ *-->$/, "", pend); prev = "m"; next }
        /^ *```/ { if (!fence) start(); fence = !fence; prev = "c"; next }
        fence { next }
        /^    +[^ ]/ { if (prev == "b" || prev == "m") start(); prev = (prev == "b" || prev == "m" || prev == "c") ? "c" : "t"; next }
        /^ *$/ { prev = (prev == "c") ? "cb" : "b"; if (prev == "cb") prev = "b"; next }
        { prev = "t" }' "$1"
}
# Blank lines inside a code block: the next indented line continues it in
# Markdown; here it would count as a new block, which must then be marked
# too: a false alarm, never a miss.

# inventory FILE LABEL [quiet]: pass, fail per unmarked block, skip per
# untested (not counted with quiet).
inventory() {
    local n=0 bad="" ln st what
    while read -r ln st what; do
        n=$((n + 1))
        case $st in
            tested|sample) ;;
            untested) [ -n "${3:-}" ] || skip "$2:$ln code block" "$what" ;;
            synopsis) [ -n "${3:-}" ] || skip "$2:$ln code block" "$what, not a command" ;;
            *) bad="$bad [$2:$ln: $what]" ;;
        esac
    done < <(readme_blocks "$1")
    [ -z "$bad" ] && { WHY="$n blocks"; return 0; }
    WHY="unmarked:$bad"; return 1
}
assert "README: every code block is tested, a sample or says why not" inventory "$README" README.md
printf '# x\n\n## Usage\n\n    synopsis\n\n<!-- tested: lines -->\n    ok\n<!-- end tested -->\n\ntext\n\n    rm -rf dist/\n' > "$WORK/fake.md"
assert_not "a README with an unmarked command block fails the inventory" inventory "$WORK/fake.md" fake.md quiet

# man_blocks: one line per display in EXAMPLES: "LINENO KIND|UNMARKED".
man_blocks() {
    awk '/^\.Sh EXAMPLES/ { ex = 1; next } /^\.Sh / { ex = 0 }
         ex && /^\.\\" (tested|untested): / { k = $3; next }
         ex && (/^\.Dl / || /^\.Bd -literal/) { print NR, (k == "" ? "UNMARKED" : k); k = ""; next }
         ex && !/^\.\\"/ { k = "" }' "$MAN"
}
um=$(man_blocks | awk '$2 == "UNMARKED" { printf " line %s", $1 }')
nm=$(man_blocks | wc -l)
[ -z "$um" ] && [ "$nm" -gt 0 ] && pass "man page: all $nm displays in EXAMPLES are marked tested" ||
    fail "man page: every display in EXAMPLES is marked tested" "unmarked:$um ($nm displays)"

# --- the blocks -------------------------------------------------------------

B=$WORK/blocks
mkdir -p "$B"
# README blocks: $B/readme.N (indent removed), .kind, .line.
awk -v d="$B" '
    /^ *<!-- tested: / { n++; f = d "/readme." n; print $3 > (f ".kind"); close(f ".kind")
                          print NR > (f ".line"); close(f ".line"); on = 1; ind = -1; printf "" > f; next }
    /^ *<!-- end tested -->/ { on = 0; close(f); next }
    on { if (ind < 0) { match($0, /^ */); ind = RLENGTH } print substr($0, ind + 1) > f }' "$README"
# Man page blocks: $B/man.N (roff escapes \e and \& undone, "$ " removed).
awk -v d="$B" '
    function out(t) { gsub(/\\e/, "\\", t); gsub(/\\&/, "", t); print t > f }
    /^\.Sh EXAMPLES/ { ex = 1; next } /^\.Sh / { ex = 0 }
    ex && /^\.\\" tested: / { n++; f = d "/man." n; print $3 > (f ".kind"); close(f ".kind")
                              print NR > (f ".line"); close(f ".line"); pend = 1; printf "" > f; next }
    ex && pend && /^\.Dl / { t = $0; sub(/^\.Dl /, "", t); sub(/^\$ /, "", t); out(t); close(f); pend = 0; next }
    ex && pend && /^\.Bd -literal/ { bd = 1; pend = 0; next }
    bd && /^\.Ed/ { bd = 0; close(f); next }
    bd { out($0) }' "$MAN"

fixture_line lld-pie || { fail "lld-pie fixture" "not built"; finish; }
LLD=$BUILD/$FX_FILE
fixture_line shared && LIB=$BUILD/$FX_FILE
fixture_line gnu-pie && GNU=$BUILD/$FX_FILE

# new_dir: D, a fresh directory: prog (the lld PIE, rewritten), gdb (the lld
# PIE), libLLVM-15.so.1 (the GNU ld library), myprog, dist/ (needs a rewrite).
nd=0
new_dir() {
    nd=$((nd + 1)); D=$WORK/run.$nd
    mkdir -p "$D/dist"
    cp "$LLD" "$D/prog"; "$TOOL" -q "$D/prog"
    cp "$LLD" "$D/gdb"; cp "$LLD" "$D/myprog"; cp "$LIB" "$D/libLLVM-15.so.1"
    cp "$LLD" "$D/dist/lld-pie"; cp "$LIB" "$D/dist/libbig.so"; cp "$GNU" "$D/dist/gnu-pie"
}
# subst TEXT: the example paths pointed into $D.
subst() {
    local t=$1
    t=${t//\/usr\/local\/bin\/elfthp-align/$TOOL}
    t=${t//\/usr\/local\/share\/elfthp-align\/elfthp-link/$REPO_ROOT/examples/cargo/elfthp-link}
    t=${t//\/usr\/bin\/gdb/$D/gdb}
    t=${t//\/usr\/lib\/x86_64-linux-gnu\/libLLVM-15.so.1/$D/libLLVM-15.so.1}
    t=${t//\/usr\/local\/bin\/myprog/$D/myprog}
    t=${t//\/mnt\/huge/$D/mnt/huge}
    printf '%s\n' "$t"
}
# sh_in DIR SCRIPT [bash options]: run SCRIPT in DIR with the tool on PATH,
# in its own process group (killed after); OUT, RC.
sh_in() {
    local dir=$1 script=$2 sp; shift 2
    # Not a group leader, setsid does not fork: bash keeps the pid $! and
    # leads a session of its own, whose leftovers (a program started with
    # & that a failing script did not kill) are killed after it.
    (cd "$dir" && PATH="$TOOLDIR:$PATH" ELFTHP_ALIGN=$TOOL exec setsid bash "$@" -c "$script" \
        > "$WORK/sh.out" 2>&1 < /dev/null) &
    sp=$!
    wait "$sp"; RC=$?
    pkill -KILL -s "$sp" 2>/dev/null
    OUT=$(cat "$WORK/sh.out")
}
# rc_out WANT: RC is WANT (else WHY has the output).
rc_out() { [ "$RC" -eq "$1" ] && return 0; WHY="exit $RC, expected $1: $(head -c 600 <<< "$OUT")"; return 1; }
has() { grep -qE -- "$1" <<< "$OUT" && return 0; WHY="output lacks /$1/: $(head -c 600 <<< "$OUT")"; return 1; }
lacks() { grep -qE -- "$1" <<< "$OUT" || return 0; WHY="output has /$1/"; return 1; }

# each_line TEXT DESC: every line (not blank or a comment) exits 0 in $D.
each_line() {
    local line
    while IFS= read -r line; do
        case $line in ''|'#'*) continue ;; esac
        sh_in "$D" "$line"
        assert "$2: [$line] exits 0" rc_out 0
    done <<< "$1"
}

run_newcomer() {   # the first two README lines
    local line targets
    while IFS= read -r line; do
        targets=${line%%#*}; targets=${targets#make }
        make -n -C "$REPO_ROOT" $targets > "$WORK/make-n.out" 2>&1; RC=$? OUT=$(cat "$WORK/make-n.out")
        assert "$1: make -n $targets (the targets exist)" rc_out 0
    done <<< "$2"
    assert "$1: scripts/install-deps.sh is valid sh" sh -n "$REPO_ROOT/scripts/install-deps.sh"
    mkdir -p "$WORK/tree/examples" "$WORK/tree/tests"
    cp "$REPO_ROOT/examples/demo.sh" "$WORK/tree/examples/"
    cp -r "$REPO_ROOT/tests/fixtures" "$WORK/tree/tests/"
    cp "$TOOL" "$WORK/tree/elfthp-align"
    sh_in "$WORK/tree" "sh examples/demo.sh"
    assert "$1: examples/demo.sh (make demo) runs in a copy of the tree" rc_out 0 &&
        assert "$1: the demo's rewritten program prints the same" has '^\(identical output\)$'
}

run_build() {
    local cmd=$2 pkgs mods m pc want got
    pkgs=${cmd#apt-get install }; pkgs=${pkgs%% && *}
    [ "${cmd##* && }" = make ] || fail "$1: ends with && make" "$cmd"
    # ELF_CFLAGS: every module the build needs a header of (libzip's is
    # needed, though the library is opened at run time).
    mods=$(sed -n 's/^ELF_CFLAGS *= *$(shell $(PKG_CONFIG) --cflags \(.*\))$/\1/p' "$REPO_ROOT/Makefile")
    got=$(for m in $mods; do pc=$(pkg-config --variable=pcfiledir "$m")/$m.pc
              dpkg -S "$(realpath "$pc")" 2>/dev/null | sed 's/:.*//' | head -1; done | sort -u | tr '\n' ' ')
    want=$(tr ' ' '\n' <<< "$pkgs" | grep -- '-dev$' | sort -u | tr '\n' ' ')
    assert "$1: the Makefile's pkg-config modules ($mods) are those of the line's -dev packages" \
        equals "packages" "$got" "$want"
    for m in $pkgs; do
        grep -q "^BUILD=.*\b$m\b" "$REPO_ROOT/scripts/install-deps.sh" ||
            fail "$1: make deps installs $m" "not in install-deps.sh's BUILD"
    done
    if command -v apt-get >/dev/null && [ -d /var/lib/apt/lists ]; then
        apt-get install -s $pkgs > "$WORK/apt.out" 2>&1; RC=$? OUT=$(cat "$WORK/apt.out")
        assert "$1: apt-get install -s accepts the packages" rc_out 0
    else
        skip "$1: apt-get install" "no apt-get here"
    fi
    # make, with a pkg-config that knows only the Makefile's modules.
    local C=$WORK/srccopy
    mkdir -p "$C"
    (cd "$REPO_ROOT" && cp -r Makefile VERSION src include man examples "$C/")
    find "$C" \( -name '*.o' -o -name '*.d' \) -delete
    printf '#!/bin/sh\nfor a; do case $a in -*) ;; %s) ;; *) echo "only %s" >&2; exit 1 ;; esac; done\nexec pkg-config "$@"\n' \
        "$(tr ' ' '|' <<< "$mods")" "$mods" > "$WORK/pkgconf-only"
    chmod +x "$WORK/pkgconf-only"
    sh_in "$C" "${cmd##* && } -j2 PKG_CONFIG=$WORK/pkgconf-only"
    assert "$1: make builds with only those modules" rc_out 0 &&
        assert "$1: the built tool runs" "$C/elfthp-align" -V > /dev/null
}

run_ci() {
    sh_in "$D" "$2"
    assert "$1: exit 1 on a dist/ that needs a rewrite" rc_out 1 &&
        assert "$1: and says to run elfthp-align -r dist/" has 'elfthp-align -r dist/'
    "$TOOL" -r -q "$D/dist/"
    sh_in "$D" "$2"
    assert "$1: exit 0 after elfthp-align -r dist/" rc_out 0
}

run_postlink() {
    cp "$BUILD"/obj/x86_64/big_*.o "$D/"; rm -f "$D/prog"
    { echo 'OBJS = big_main.o big_funcs.o big_blob.o'
      echo 'LDFLAGS = -fuse-ld=lld -pie'
      printf '%s\n' "$2"; } > "$D/Makefile"
    sh_in "$D" "make prog"
    assert "$1: make prog with the rule exits 0" rc_out 0 || return
    assert "$1: prog is aligned" check_congruence "$D/prog"
    run_tool --check "$D/prog"
    assert "$1: --check prog exits 0" tool_rc 0
    assert "$1: prog runs" "$D/prog" > /dev/null
}

run_tmpfs() {
    local s
    [ "$(id -u)" -eq 0 ] || { skip "$1" "mounting a tmpfs needs root"; return; }
    cp "$LLD" "$D/prog"                   # the original: the block rewrites it
    s=$(subst "$2"); s=${s//\/prog &/\/prog --hold &}
    MOUNTS="$D/mnt/huge $MOUNTS"
    sh_in "$D" "$s" -e
    assert "$1: runs (errexit) and exits 0" rc_out 0 || return
    assert "$1: ShmemPmdMapped > 0 for the rewritten program" has 'ShmemPmdMapped: +[1-9]'
    assert "$1: --pid \"\$pid\" lists the program" has "$D/mnt/huge/prog"
    # The original's rodata PT_LOAD is congruent (offset = address), so on
    # the 1 in 512 runs whose random base is 2 MiB-aligned, tmpfs maps it
    # with PMDs even unrewritten: a second or third start decides.
    local try
    for try in 1 2 3; do
        cp "$LLD" "$D/prog"
        sh_in "$D" "$(sed 's/^elfthp-align prog .*/: not rewritten/' <<< "$s")" -e
        has 'ShmemPmdMapped: +[1-9]' || break
    done
    assert_not "$1: without the rewrite, ShmemPmdMapped > 0 (the check can fail)" has 'ShmemPmdMapped: +[1-9]'
}

run_cargo() {
    command -v cargo >/dev/null || { skip "$1" "cargo not installed"; return; }
    local C=$D/crate
    mkdir -p "$C/src"
    printf '[package]\nname = "myprog"\nversion = "0.1.0"\nedition = "2018"\n' > "$C/Cargo.toml"
    python3 -c 'import sys; sys.stdout.buffer.write(bytes((i * 7919 >> 3) & 255 for i in range(4 << 20)))' > "$C/blob.bin"
    printf 'static B: &[u8] = include_bytes!("../blob.bin");\nfn main() { println!("{}", B.iter().step_by(4093).map(|&b| b as u64).sum::<u64>()); }\n' > "$C/src/main.rs"
    export CARGO_HOME=$BUILD/cargo-home CARGO_NET_OFFLINE=true
    case $3 in
        cargo-post) D=$C each_line "$2" "$1" ;;
        cargo-linker)
            mkdir -p "$C/.cargo"; subst "$2" > "$C/.cargo/config.toml"
            sh_in "$C" "cargo build --release"
            assert "$1: cargo build --release with the linker set exits 0" rc_out 0 ;;
    esac
    run_tool --check "$C/target/release/myprog"
    assert "$1: target/release/myprog is ready (--check exits 0)" tool_rc 0
}

# run_compat DESC TEXT: the --compat line on the lld PIE, which shares
# 16 KiB pages between permissions: exit 3, the relink named.
run_compat() {
    sh_in "$D" "$(subst "$2")"
    assert "$1: exits 3 (needs a relink)" rc_out 3
    assert "$1: names the two PT_LOADs and -z max-page-size=0x4000" \
        has 'needs a relink for 16KiB pages: PT_LOAD [0-9]+: shares .* with PT_LOAD [0-9]+.*-z max-page-size=0x4000'
}

# run_keep DESC TEXT: the path list line, then the units it enables.
run_keep() {
    local list=$D/etc/elfthp-align/paths u
    mkdir -p "${list%/*}"
    cp "$LLD" "$D/myprog"
    sh_in "$D" "$(sed -n 1p <<< "$2" | sed "s|/etc/elfthp-align/paths|$list|; s|/usr/bin/myprog|$D/myprog|")"
    assert "$1: the first line lists the program" equals "list" "$RC:$(cat "$list")" "0:$D/myprog"
    sh_in "$D" "$(sed -n 's/^ExecStart=@BINDIR@\/elfthp-align/elfthp-align/p' "$UNIT" | sed "s|@SYSCONFDIR@/elfthp-align/paths|$list|")"
    assert "$1: the unit's command on that list exits 0" rc_out 0
    assert "$1: ... and aligns the listed program" check_congruence "$D/myprog"
    for u in $(sed -n 2p <<< "$2" | grep -o 'elfthp-align\.[a-z]*'); do
        assert "$1: dist/ ships $u" equals "file" "$(ls "$REPO_ROOT/dist/$u" "$REPO_ROOT/dist/$u.in" 2>/dev/null | wc -l)" 1
    done
}

# forms TEXT: one line per "elfthp-align ..." form, continuation lines
# joined, blanks squeezed, "usage:" dropped.
forms() {
    sed 's/^usage: //' <<< "$1" | awk '
        { sub(/^ +/, ""); gsub(/ +/, " ") }
        /^elfthp-align/ { if (f != "") print f; f = $0; next }
        { f = f " " $0 } END { if (f != "") print f }'
}
# run_synopsis DESC TEXT: the README's forms are --help's, in order.
run_synopsis() {
    local help
    help=$("$TOOL" --help | sed -n '1,/^$/p')
    assert "$1: the same forms as --help" equals "forms" "$(forms "$2")" "$(forms "$help")"
}

RUNTIME_BLOCK=""
for kf in $(ls "$B"/readme.*.kind "$B"/man.*.kind 2>/dev/null | sort -t. -k2,2 -k3,3n); do
    f=${kf%.kind} kind=$(cat "$kf") src=README.md
    case $f in */man.*) src=man/elfthp-align.1 ;; esac
    desc="$src:$(cat "$f.line") ($kind)"
    text=$(cat "$f")
    new_dir
    case $kind in
        newcomer) run_newcomer "$desc" "$text" ;;
        build) run_build "$desc" "$text" ;;
        lines) each_line "$(subst "$text")" "$desc" ;;
        ci-check) run_ci "$desc" "$text" ;;
        postlink) run_postlink "$desc" "$text" ;;
        tmpfs-proof) run_tmpfs "$desc" "$text" ;;
        cargo-post|cargo-linker) run_cargo "$desc" "$text" "$kind" ;;
        compat) run_compat "$desc" "$text" ;;
        keep) run_keep "$desc" "$text" ;;
        synopsis) run_synopsis "$desc" "$text" ;;
        runtime) [ "$src" = README.md ] && RUNTIME_BLOCK=$text
                 [ "$src" != README.md ] && pass "$desc: counted with the README's runtime block" ;;
        unit) [ "$src" = README.md ] && PRE_BLOCK=$text
              [ "$src" != README.md ] && pass "$desc: counted with the README's unit block" ;;
        *) fail "$desc" "no handler for kind $kind" ;;
    esac
done

# --- samples ----------------------------------------------------------------

while IFS= read -r line; do
    case $line in
        same:*) pass "README ${line#same: }: as the tool prints it" ;;
        skip:*) w=${line#skip: }; skip "README ${w%%: *}" "${w#*: }" ;;
        differ:*) fail "README ${line#differ: }" "differs from what the tool prints" ;;
        *) echo "$line" ;;
    esac
done < <(bash "$REPO_ROOT/scripts/docs-samples.sh" --check "$README" 2>&1)
awk 'BEGIN { on = 0 } /^<!-- sample: scratch -->/ && !done { on = 1 }
     on { print } on && /^<!-- end sample -->/ { on = 0; done = 1 }' "$README" |
    sed '3s/[0-9] windows/99 windows/' > "$WORK/one-sample.md"
bash "$REPO_ROOT/scripts/docs-samples.sh" --check "$WORK/one-sample.md" > /dev/null 2>&1; rc=$?
assert "a changed sample makes docs-samples.sh --check fail" rc_is "$rc" 1

# --- the runtime block ------------------------------------------------------

block=$RUNTIME_BLOCK
if [ -z "$block" ]; then
    fail "README has the tested runtime block" "no lines between the markers"
    finish
fi
pass "README has the tested runtime block ($(printf '%s\n' "$block" | wc -l) lines)"

# The man page shows the same lines (in its EXAMPLES, .Bd -literal).
missing=""
while IFS= read -r line; do
    grep -qxF -- "$line" "$MAN" || missing="$missing [$line]"
done <<< "$block"
[ -z "$missing" ] && pass "the man page shows the same lines" ||
    fail "the man page shows the same lines" "missing:$missing"

# run_line LINE: one README line in bash, with $prog as the block's first
# line left it, and "elfthp-align" on PATH naming $TOOL (whatever its own
# name: ELFTHP_ALIGN may be a wrapper).
mkdir -p "$WORK/bin" && ln -sf "$TOOL" "$WORK/bin/elfthp-align"
run_line() {
    LINE_OUT=$(PATH="$WORK/bin:$PATH" prog="$PROG" bash -c "$1" 2>&1)
}

if ! fixture_line lld-pie; then
    skip "README runtime block" "lld-pie not built"
elif [ "$(id -u)" -ne 0 ]; then
    skip "README runtime block" "loop mounts need root"
else
    M=$WORK/ext4
    mount_image ext4 "$M"; rc=$?
    if [ $rc -eq 2 ]; then
        skip "README runtime block" "the kernel refuses ext4: $WHY"
    elif [ $rc -ne 0 ]; then
        fail "README runtime block: ext4 image" "$WHY"
    else
        PROG=$M/myprog
        cp "$BUILD/$FX_FILE" "$PROG"
        n=0
        while IFS= read -r line; do
            n=$((n + 1))
            [ $n -eq 1 ] && continue              # prog=...: set above
            case $line in
                *--pid*)
                    drop_cache "$PROG"
                    "$TOOL" --warm -q "$PROG" >/dev/null
                    hold_start "$WORK/hold.out" "$PROG" ||
                        { fail "README: $line" "$WHY"; continue; } ;;
            esac
            run_line "$line"
            rc=$?
            assert "README line $n runs: $line" rc_is "$rc" 0 ||
                echo "$LINE_OUT" | head -5
            case $line in
                *--host*) case $LINE_OUT in *"ext4 on $M"*) pass "README: --host names ext4" ;;
                              *) fail "README: --host names ext4" "$LINE_OUT" ;; esac ;;
                *--warm*) case $LINE_OUT in *"windows huge"*) pass "README: --warm reports its windows" ;;
                              *) fail "README: --warm reports its windows" "$LINE_OUT" ;; esac ;;
                *--pid*) kb=$(pmd_kb "$HOLD_PID" "$PROG")
                         assert "README: the program runs huge (--pid's row)" \
                             kb_is "myprog" "$kb" "$(count_eligible "$PROG"; echo $((ELIG_W * 2048)))"
                         case $LINE_OUT in *"$PROG"*) pass "README: --pid lists the program" ;;
                             *) fail "README: --pid lists the program" "$LINE_OUT" ;; esac
                         hold_stop ;;
                *) ;;
            esac
        done <<< "$block"
        assert "README: the program it rewrote is aligned" check_congruence "$PROG"
    fi
fi

# --- the boot unit ---------------------------------------------------------
if ! command -v systemd-analyze >/dev/null; then
    skip "systemd unit" "systemd-analyze is not installed"
    finish
fi
# verify UNITFILE: systemd-analyze verify, no message at all.
verify() {
    local out
    out=$(systemd-analyze verify --man=no "$1" 2>&1) && [ -z "$out" ] && return 0
    WHY="systemd-analyze verify $(basename "$1"): $out"; return 1
}
U=$WORK/units
mkdir -p "$U"
sed "s|@BINDIR@|$(dirname "$TOOL")|; s|@SYSCONFDIR@|$WORK/etc|g" "$UNIT" > "$U/elfthp-align.service"
assert "dist/ unit passes systemd-analyze verify" verify "$U/elfthp-align.service"
sed 's/^Type=oneshot/Type=oneshoot/' "$U/elfthp-align.service" > "$U/broken.service"
assert_not "a broken copy of it does not" verify "$U/broken.service"
pre=$(grep -m1 '^ExecStartPre=' <<< "${PRE_BLOCK:-}")
if [ -z "$pre" ]; then
    fail "README has an ExecStartPre= line" "none found"
else
    printf '[Unit]\nDescription=test\n[Service]\nType=oneshot\nExecStart=/bin/true\n%s\n' \
        "$(printf '%s\n' "$pre" | sed "s|/usr/local/bin/elfthp-align|$TOOL|")" > "$U/svc.service"
    assert "the README's ExecStartPre= unit passes systemd-analyze verify" verify "$U/svc.service"
fi
# The unit's command line, as systemd would run it, on the list it names.
if ! fixture_line lld-pie; then
    skip "the unit's ExecStart runs and aligns the files it lists" "lld-pie not built"
    finish
fi
cmd=$(sed -n 's/^ExecStart=//p' "$U/elfthp-align.service")
mkdir -p "$WORK/etc/elfthp-align" "$WORK/listed"
cp "$BUILD/$FX_FILE" "$WORK/listed/p1"
printf '# listed\n%s\n' "$WORK/listed" > "$WORK/etc/elfthp-align/paths"
out=$($cmd 2>&1); rc=$?
case $rc in
    0|1) pass "the unit's ExecStart runs (exit $rc, which SuccessExitStatus allows)" ;;
    *) fail "the unit's ExecStart runs" "exit $rc: $out" ;;
esac
assert "the unit's ExecStart aligned the file in the directory it lists" check_congruence "$WORK/listed/p1"
finish
