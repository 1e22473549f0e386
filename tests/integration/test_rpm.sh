#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# SPDX-FileCopyrightText: 2026 the elfthp-align authors
# test_rpm.sh BUILDDIR - rpmbuild with elfthp-align's build-root policy
# (dist/rpm: macros.elfthp-align and brp-elfthp-align), as make install
# puts them in a DESTDIR; never the host's installed copy.
#   - the installed macros name the installed script and tool, and keep
#     every step of the installed rpm's own %__os_install_post, in order,
#     with brp-elfthp-align after them (a list that lacks one of rpm's
#     steps is caught: the control); on this host no later macro file
#     replaces the list;
#   - rpmbuild -bb of a small spec (a C program with 5 MiB of text, built
#     with -g, linked by GNU ld and by lld): the packaged programs are
#     ready by elfthp-align --check, start-aligned (a read-only PT_LOAD
#     on 2 MiB in address and offset: --layout start), stripped (brp-strip
#     ran, before the
#     step: the build log's order), run and print the same as the plain
#     build; the log names what changed; a non-ELF file is packaged as it
#     was and not mentioned;
#   - the same spec with %global __brp_elfthp_align %{nil}: the programs
#     are packaged as linked, not ready (the negative control), and the
#     step is not in the log; %undefine __brp_elfthp_align too;
#   - %global _elfthp_align_layout congruent: ready, congruent, not
#     start-aligned, runs; a bad value fails the build naming it;
#   - a malformed ELF file in the build root fails the build with the
#     tool's message naming it; opted out, the same spec builds (so the
#     failure is the step's, not brp-strip's);
#   - a vendor macro file read after macros.d (as Fedora's
#     /usr/lib/rpm/redhat/macros) that sets its own %__os_install_post
#     drops the step, and the spec line docs/packaging.md gives brings it
#     back.
# Needs rpmbuild, rpm2cpio and cpio (scripts/install-deps.sh); without
# them every check is skipped, named and counted.
. "$(dirname "$0")/lib.sh"
need_builddir "$@"
need_tool

ALL="install, macros, builds, opt-out, malformed file, vendor macros"
for t in rpmbuild rpm rpm2cpio cpio gcc; do
    if ! command -v "$t" >/dev/null; then
        skip "rpm: $ALL" "$t not installed (make deps)"
        finish
    fi
done

# --- the installed files ------------------------------------------------------
DEST=$WORK/dest
out=$(make -s -C "$REPO_ROOT" install DESTDIR="$DEST" PREFIX=/usr SYSCONFDIR=/etc \
      UNITDIR=/lib/systemd/system 2>&1)
assert "make install DESTDIR=...: exits 0" equals "exit" "$?:$out" "0:"
# The tool under test ($ELFTHP_ALIGN: a mutant, an ASan build) is the one
# the build runs.
cp "$TOOL" "$DEST/usr/bin/elfthp-align"
MACROS=$DEST/usr/lib/rpm/macros.d/macros.elfthp-align
HOOK=$DEST/etc/rpm/macros.elfthp-align-hook
BRP=$DEST/usr/share/elfthp-align/brp-elfthp-align
[ -f "$MACROS" ] && [ -f "$HOOK" ] && [ -x "$BRP" ] ||
    { fail "installed: macros, hook and brp script" "$(cd "$DEST" && find . -type f)"; finish; }
# The DESTDIR's macros name /usr paths; a copy names them in the DESTDIR.
M=$WORK/macros.elfthp-align
sed "s|/usr/|$DEST/usr/|g" "$MACROS" > "$M"
# rpm's macro path on this host, with the installed files read where rpm
# would read them: the macros among macros.d (before the platform and
# vendor files), the hook among /etc/rpm/macros.* (after them).  Hermetic:
# the globs are expanded here without any elfthp-align file (a package of
# this tool installed on the host puts its own macros in macros.d and its
# hook in /etc/rpm), and the administrator's files (/etc/rpm/*) and
# ~/.rpmmacros are not read: the test reads only the files it names.
HOST_PATH=$(rpm --showrc | sed -n 's/^Macro path: //p')
# host_files GLOB: the files GLOB names on this host, colon-separated,
# less any elfthp-align file.
host_files() {
    local f out=
    for f in $1; do
        case $f in *elfthp-align*) continue ;; esac
        [ -e "$f" ] && out=$out${out:+:}$f
    done
    printf '%s' "$out"
}
MACROS_D=$(host_files '/usr/lib/rpm/macros.d/macros.*')
# macro_path MACROS HOOK [VENDOR]: VENDOR is read where the vendor's file
# is (Fedora's /usr/lib/rpm/redhat/macros), after the platform file.
macro_path() {
    local e out=
    while read -r e; do
        case $e in
        /usr/lib/rpm/macros.d/macros.\*) e=$MACROS_D${1:+${MACROS_D:+:}$1} ;;
        /usr/lib/rpm/fileattrs/\*.attr) e=$e${3:+:$3} ;;
        /etc/rpm/macros.\*) e=${2:-} ;;
        /etc/*|\~/*) e= ;;
        esac
        [ -n "$e" ] && out=$out${out:+:}$e
    done <<< "$(printf '%s\n' "$HOST_PATH" | tr : '\n')"
    printf '%s\n' "$out"
}
host_reads() {	# host_reads PATH: what PATH reads of the host's configuration
    printf '%s\n' "$1" | tr : '\n' | grep -v -e "^$WORK/" -e "^$DEST/" |
        grep -e elfthp -e '^/etc/' -e '^~' -e '^[^/]'
}
evalm() {	# evalm PATH EXPR [ARGS...]: EXPR with the macro path PATH
    local mp=$1 expr=$2; shift 2
    HOME=$WORK rpm --macros="$mp" "$@" --eval "$expr"
}
assert "macros: %__elfthp_align is the installed tool" equals "macro" \
    "$(evalm "$(macro_path "$MACROS")" '%{__elfthp_align}')" "/usr/bin/elfthp-align"
assert "macros: %__brp_elfthp_align runs the installed script on it" equals "macro" \
    "$(evalm "$(macro_path "$MACROS")" '%{__brp_elfthp_align}')" \
    "/usr/share/elfthp-align/brp-elfthp-align /usr/bin/elfthp-align start"
assert "hermetic: the macro path reads no /etc/rpm file, no ~/.rpmmacros and no installed elfthp-align macros" \
    equals "files" "$(host_reads "$(macro_path "$M" "$HOOK" "$WORK/vendor.macros")")" ""
assert_not "control: rpm's own macro path reads them (/etc/rpm/macros.*)" \
    equals "files" "$(host_reads "$HOST_PATH")" ""
HOST_LIST=$(evalm "$(macro_path)" '%{__os_install_post}')
STEP="$DEST/usr/share/elfthp-align/brp-elfthp-align $DEST/usr/bin/elfthp-align start"
assert "macros: the hook's %__os_install_post is this host's list, then the step" equals "list" \
    "$(evalm "$(macro_path "$M" "$HOOK")" '%{__os_install_post}' | sed '/^ *$/d')" \
    "$(printf '%s\n%s\n' "$HOST_LIST" "$STEP" | sed '/^ *$/d')"
assert "macros: ... and stays so when expanded twice (the definition is put back)" equals "steps" \
    "$(evalm "$(macro_path "$M" "$HOOK")" '%{__os_install_post}%{__os_install_post}' | grep -c brp-elfthp-align)" 2
assert "control: the macros alone do not change the list (the platform file is read after macros.d)" \
    equals "list" "$(evalm "$(macro_path "$M")" '%{__os_install_post}')" "$HOST_LIST"
assert "opted out: %__brp_elfthp_align %{nil} leaves this host's list as it was" equals "list" \
    "$(evalm "$(macro_path "$M" "$HOOK")" '%{__os_install_post}' -D '__brp_elfthp_align %{nil}' | sed '/^ *$/d')" \
    "$(printf '%s\n' "$HOST_LIST" | sed '/^ *$/d')"

# --- the spec ---------------------------------------------------------------------
# A program with 5 MiB of text (never executed: it reads its own bytes), so
# that its R E PT_LOAD holds a full 2 MiB window; -g so that brp-strip has
# something to strip.
SRC=$WORK/src
mkdir -p "$SRC"
cp "$REPO_ROOT/tests/integration/bigtext.c" "$SRC/bigtext.c"
echo "not an ELF file" > "$SRC/notes.txt"
PROGS="bigtext"
command -v ld.lld >/dev/null && PROGS="bigtext bigtext-lld"
gcc -O2 -g -o "$WORK/plain" "$SRC/bigtext.c" ||
    { fail "the plain build compiles" "gcc failed"; finish; }
# A malformed ELF file brp-strip leaves alone (stripped: file(1) does not
# say "not stripped"): the plain program, stripped, its section header
# table cut off.
strip -o "$WORK/stripped" "$WORK/plain" &&
    head -c 200000 "$WORK/stripped" > "$SRC/broken" || { fail "the malformed file" "strip failed"; finish; }

# spec NAME [PREAMBLE-LINE] [broken]: write $WORK/NAME.spec.
spec() {
    local name=$1 line=${2:-} broken=${3:-}
    {
        echo "$line"
        cat <<EOF
Name: elfthp-rpmtest
Version: 1
Release: 1
Summary: a program with 5 MiB of text
License: BSD-2-Clause
Source0: bigtext.c
Source1: notes.txt
Source2: broken

%description
The test program of elfthp-align's test_rpm.sh.

%build
gcc -O2 -g -o bigtext %{SOURCE0}
EOF
        [ "$PROGS" = bigtext ] || echo 'gcc -O2 -g -fuse-ld=lld -o bigtext-lld %{SOURCE0}'
        echo '%install'
        for p in $PROGS; do echo "install -D -m 755 $p %{buildroot}/usr/bin/$p"; done
        echo 'install -D -m 644 %{SOURCE1} %{buildroot}/usr/share/doc/elfthp-rpmtest/notes.txt'
        [ -n "$broken" ] && echo 'install -D -m 755 %{SOURCE2} %{buildroot}/usr/lib/elfthp-rpmtest/broken'
        echo '%files'
        for p in $PROGS; do echo "/usr/bin/$p"; done
        echo /usr/share/doc/elfthp-rpmtest/notes.txt
        [ -n "$broken" ] && echo /usr/lib/elfthp-rpmtest/broken
    } > "$WORK/$name.spec"
}

# build NAME [VENDOR]: rpmbuild -bb NAME.spec in a private topdir, with the
# host's macro path and the installed macros and hook (macro_path), on 96
# CPUs (_smp_build_ncpus: more than the tool's 64 workers); BRC,
# the log in $WORK/NAME.log, the payload extracted in $WORK/NAME.root.
build() {
    local name=$1 top=$WORK/$1.top mp
    mp=$(macro_path "$M" "$HOOK" "${2:-}")
    mkdir -p "$top/SOURCES" "$WORK/tmp" "$WORK/$name.root"
    cp "$SRC"/* "$top/SOURCES/"
    HOME=$WORK timeout 300 rpmbuild -bb --macros="$mp" --define "_topdir $top" \
        --define "_tmppath $WORK/tmp" --define "_smp_build_ncpus 96" \
        "$WORK/$name.spec" > "$WORK/$name.log" 2>&1
    BRC=$?
    local rpmf; rpmf=$(ls "$top"/RPMS/*/*.rpm 2>/dev/null | head -1)
    [ -n "$rpmf" ] && (cd "$WORK/$name.root" && rpm2cpio "$rpmf" | cpio -idm --quiet)
    return 0
}
# strip_then_align NAME: the trace of %install runs brp-strip, then the step.
strip_then_align() {
    local s a
    s=$(grep -n '^+ .*/brp-strip ' "$WORK/$1.log" | head -1 | cut -d: -f1)
    a=$(grep -n '^+ .*/brp-elfthp-align ' "$WORK/$1.log" | head -1 | cut -d: -f1)
    [ -n "$s" ] && [ -n "$a" ] && [ "$s" -lt "$a" ] && return 0
    WHY="brp-strip at line ${s:-none}, brp-elfthp-align at ${a:-none} of $1.log"; return 1
}

start=$(date +%s)
# --- with the step -------------------------------------------------------------------
spec on
build on
assert "rpmbuild -bb: exits 0" equals "exit" "$BRC" 0 || tail -20 "$WORK/on.log"
assert "rpmbuild: brp-strip runs before brp-elfthp-align" strip_then_align on
for p in $PROGS; do
    f=$WORK/on.root/usr/bin/$p
    assert "packaged $p: ready by elfthp-align --check" is_ready "$f"
    assert "packaged $p: congruent" check_congruence "$f"
    assert "packaged $p: start-aligned (--layout start)" start_body "$f"
    assert "packaged $p: stripped (brp-strip ran)" stripped "$f"
    assert "packaged $p: runs and prints the same as the plain build" run_same "$WORK/plain" "$f"
    assert "the build log names what changed in $p" log_has on "brp-elfthp-align: /usr/bin/$p: "
done
assert "the non-ELF file is packaged as it was" same_file "$SRC/notes.txt" \
    "$WORK/on.root/usr/share/doc/elfthp-rpmtest/notes.txt"
# step_lines NAME: the lines the step printed in NAME.log, the file names.
step_lines() { sed -n 's/^brp-elfthp-align: \(\/[^:]*\): .*/\1/p' "$WORK/$1.log" | sort | tr '\n' ' '; }
assert "the step printed a line for each program and nothing else (not the non-ELF file)" \
    equals "lines" "$(step_lines on)" "$(for p in $PROGS; do printf '/usr/bin/%s ' "$p"; done)"

# --- opted out: the negative control --------------------------------------------------
spec off '%global __brp_elfthp_align %{nil}'
build off
assert "opted out (%global __brp_elfthp_align %{nil}): rpmbuild exits 0" equals "exit" "$BRC" 0
for p in $PROGS; do
    f=$WORK/off.root/usr/bin/$p
    assert "control: opted out, $p is packaged as linked, not ready" not_ready "$f"
    assert "control: opted out, $p still stripped and runs the same" run_same "$WORK/plain" "$f"
    assert_not "control: opted out, $p is not start-aligned" start_body "$f"
done
assert_not "control: opted out, the step is not in the log" log_has off "brp-elfthp-align"
spec undef '%undefine __brp_elfthp_align'
build undef
assert "opted out (%undefine __brp_elfthp_align): bigtext not ready" not_ready "$WORK/undef.root/usr/bin/bigtext"

# --- %_elfthp_align_layout congruent: the opt-out of the split --------------------------
spec congruent '%global _elfthp_align_layout congruent'
build congruent
assert "%global _elfthp_align_layout congruent: rpmbuild exits 0" equals "exit" "$BRC" 0 ||
    tail -20 "$WORK/congruent.log"
for p in $PROGS; do
    f=$WORK/congruent.root/usr/bin/$p
    assert "_elfthp_align_layout congruent: $p is ready" is_ready "$f"
    assert "_elfthp_align_layout congruent: $p is congruent" check_congruence "$f"
    assert_not "_elfthp_align_layout congruent: $p is not start-aligned" start_body "$f"
    assert "_elfthp_align_layout congruent: $p runs the same as the plain build" run_same "$WORK/plain" "$f"
done
spec badlayout '%global _elfthp_align_layout bogus'
build badlayout
assert "_elfthp_align_layout bogus fails the build" equals "rpmbuild failed" "$(( BRC != 0 ))" 1
assert "... naming the value" log_has badlayout "layout 'bogus': start or congruent"

# --- a malformed ELF file ----------------------------------------------------------
spec bad '' broken
build bad
assert "a malformed ELF file fails the build" equals "rpmbuild failed" "$(( BRC != 0 ))" 1
assert "... with the tool's message naming it" log_has bad \
    "elfthp-align: ./usr/lib/elfthp-rpmtest/broken: "
assert "... and the script's line saying how to opt out" log_has bad "%global __brp_elfthp_align %{nil}"
spec badoff '%global __brp_elfthp_align %{nil}' broken
build badoff
assert "control: opted out, the same spec builds (brp-strip left the file alone)" \
    equals "exit" "$BRC" 0

# --- a vendor's list (Fedora's /usr/lib/rpm/redhat/macros) ---------------------------
# Read after macros.d and the platform file, with a step of its own: the
# hook keeps the vendor's list, its own step included, and adds the step.
cat > "$WORK/vendor.macros" <<'EOF'
%__brp_vendor_step echo vendor step ran
%__os_install_post \
    %{?__brp_compress} \
    %{?__brp_strip} \
    %{?__brp_vendor_step} \
    %{?__brp_remove_la_files} \
%{nil}
EOF
spec vendor
build vendor "$WORK/vendor.macros"
assert "a vendor's list: rpmbuild exits 0" equals "exit" "$BRC" 0
assert "a vendor's list: its own step ran" log_has vendor "vendor step ran"
assert "a vendor's list: bigtext is ready" is_ready "$WORK/vendor.root/usr/bin/bigtext"
assert "a vendor's list: ... after the vendor's brp-strip" strip_then_align vendor
echo "# rpmbuild: 8 builds in $(( $(date +%s) - start )) s"

finish
