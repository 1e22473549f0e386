#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# SPDX-FileCopyrightText: 2026 the elfthp-align authors
# test_debhelper.sh BUILDDIR - dh_elfthp_align and the elfthp-align
# sequence addon (dist/debhelper), as make install puts them in a DESTDIR
# (PATH and PERL5LIB point there); never the host's installed copy.
#   - a Debian source package of two binary packages holding a C program
#     with 5 MiB of text (built with -g), a copy of it under another
#     name, a small program, an object file, firmware-like ELF (no program
#     Linux can load) and a text file, built with `dh $@` and
#     Build-Depends: dh-sequence-elfthp-align (dpkg-buildpackage -b):
#     dh runs dh_strip, then dh_elfthp_align, then dh_makeshlibs and
#     dh_md5sums (the log's order); the packaged programs are ready by
#     elfthp-align --check, stripped, congruent, start-aligned (a
#     read-only PT_LOAD on 2 MiB in address and offset: the command runs
#     the tool with --layout start), keep every segment's bytes and run
#     the same as the control build's; the log names each
#     and nothing else; the small program, the object, the firmware and
#     the text file are packaged as they were (the firmware, named on the
#     tool's command line, would be an error: the command hands the tool
#     the package directory to walk);
#   - installed with dpkg --root (a private root: no host file is
#     written), the program runs and dpkg --verify says nothing;
#     the same file aligned after its md5sum was taken (the command run
#     after dh_md5sums) is what dpkg --verify does report (the control);
#   - the same source without the Build-Depends (the negative control):
#     not ready, the step not in the log; `dh $@ --with elfthp-align`
#     instead of the Build-Depends: ready;
#   - dh_elfthp_align --layout=congruent: ready, congruent, not
#     start-aligned, runs; --layout=bogus fails the build naming it;
#   - DEB_BUILD_OPTIONS=noelfthp: the programs byte-identical to the
#     control build's; -X names a file that stays as linked while the
#     others are aligned; -p and -N select one of the two packages;
#   - a malformed ELF file fails the build with the tool's message naming
#     it; with noelfthp the same source builds.
# Builds run in one directory, so that a build is byte-identical to another
# where the step did not run.  Needs dpkg-buildpackage, debhelper (dh) and
# gcc (scripts/install-deps.sh); without them every check is skipped,
# named and counted.
. "$(dirname "$0")/lib.sh"
need_builddir "$@"
need_tool

ALL="install, builds, dpkg --verify, opt-out, -X, -p/-N, malformed file"
for t in dpkg-buildpackage dh dpkg-deb dpkg gcc strip; do
    if ! command -v "$t" >/dev/null; then
        skip "debhelper: $ALL" "$t not installed (make deps)"
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
SEQ=$DEST/usr/share/perl5/Debian/Debhelper/Sequence/elfthp_align.pm
[ -x "$DEST/usr/bin/dh_elfthp_align" ] && [ -f "$SEQ" ] ||
    { fail "installed: dh_elfthp_align and the sequence" "$(cd "$DEST" && find . -type f)"; finish; }
export PATH=$DEST/usr/bin:$PATH PERL5LIB=$DEST/usr/share/perl5${PERL5LIB:+:$PERL5LIB}
unset DH_VERBOSE DH_QUIET DEB_BUILD_PROFILES
assert "PATH finds the installed dh_elfthp_align and elfthp-align" equals "commands" \
    "$(command -v dh_elfthp_align elfthp-align | tr '\n' ' ')" \
    "$DEST/usr/bin/dh_elfthp_align $DEST/usr/bin/elfthp-align "
if command -v man >/dev/null && command -v groff >/dev/null; then
    warn=$(MANWIDTH=80 man -l "$DEST/usr/share/man/man1/dh_elfthp_align.1" 2>&1 >/dev/null)
    assert "dh_elfthp_align's man page at 80 columns: no warning from groff" equals "warnings" "$warn" ""
else
    skip "dh_elfthp_align's man page at 80 columns" "man or groff not installed"
fi

# --- the source package ------------------------------------------------------------
# A program with 5 MiB of text (never executed: it reads its own bytes), so
# that its R E PT_LOAD holds a full 2 MiB window; -g so that dh_strip has
# something to strip.  "keep" is a copy of it (-X), "small" a program
# with no window, small.o an object, fw.bin firmware for another machine
# (mkelf_unloadable.py, left out of dh_strip and dh_dwz as a package
# would leave it), notes.txt no ELF file.
SRC=$WORK/src
mkdir -p "$SRC/debian/source"
cp "$REPO_ROOT/tests/integration/bigtext.c" "$SRC/bigtext.c"
echo 'int main(void) { return 0; }' > "$SRC/small.c"
echo "not an ELF file" > "$SRC/notes.txt"
python3 "$LIB_DIR/mkelf_unloadable.py" "$SRC/fw.bin" firmware ||
    { fail "the firmware file" "mkelf_unloadable.py failed"; finish; }
# A malformed ELF file (installed only when asked, and left out of
# dh_strip, which would fail on it first): a stripped program with its
# section header table cut off.
gcc -O2 -o "$WORK/plain" "$SRC/bigtext.c" && strip "$WORK/plain" &&
    head -c 200000 "$WORK/plain" > "$SRC/broken" || { fail "the malformed file" "gcc or strip failed"; finish; }
echo '3.0 (native)' > "$SRC/debian/source/format"
cat > "$SRC/debian/changelog" <<'EOF'
elfthp-dhtest (1) unstable; urgency=medium

  * The test package of elfthp-align's test_debhelper.sh.

 -- The elfthp-align authors <elfthp-align@example.org>  Tue, 01 Dec 2026 18:00:00 +0000
EOF
P1=$SRC/debian/elfthp-dhtest P2=$SRC/debian/elfthp-dhtest-extra

# write_source NAME [BUILD-DEPENDS] [DH-ARGS] [RULES-LINES...]: write debian/control
# and debian/rules for the build NAME (the rules lines are make recipes,
# tabs written as \t).
write_source() {
    local name=$1 bd=${2:-} dhargs=${3:-}; shift 3
    cat > "$SRC/debian/control" <<EOF
Source: elfthp-dhtest
Section: misc
Priority: optional
Maintainer: The elfthp-align authors <elfthp-align@example.org>
Build-Depends: debhelper-compat (= 13)${bd:+, $bd}
Standards-Version: 4.6.2
Rules-Requires-Root: no

Package: elfthp-dhtest
Architecture: any
Depends: \${misc:Depends}, \${shlibs:Depends}
Description: a program with 5 MiB of text
 The test package of elfthp-align's test_debhelper.sh.

Package: elfthp-dhtest-extra
Architecture: any
Depends: \${misc:Depends}, \${shlibs:Depends}
Description: the same program, in a second package
 The test package of elfthp-align's test_debhelper.sh.
EOF
    {
        printf '#!/usr/bin/make -f\n%%:\n\tdh $@%s\n\n' "${dhargs:+ $dhargs}"
        printf 'override_dh_auto_build:\n'
        printf '\tgcc -O2 -g -o bigtext bigtext.c\n\tgcc -O2 -g -o small small.c\n'
        printf '\tgcc -O2 -c -o small.o small.c\n\n'
        printf 'override_dh_auto_install:\n'
        printf '\tinstall -D -m 755 bigtext debian/elfthp-dhtest/usr/bin/bigtext\n'
        printf '\tinstall -D -m 755 bigtext debian/elfthp-dhtest/usr/lib/elfthp-dhtest/keep\n'
        printf '\tinstall -D -m 755 small debian/elfthp-dhtest/usr/bin/small\n'
        printf '\tinstall -D -m 644 small.o debian/elfthp-dhtest/usr/lib/elfthp-dhtest/small.o\n'
        printf '\tinstall -D -m 644 fw.bin debian/elfthp-dhtest/usr/lib/firmware/elfthp-dhtest/fw.bin\n'
        printf '\tinstall -D -m 644 notes.txt debian/elfthp-dhtest/usr/share/elfthp-dhtest/notes.txt\n'
        printf '\tinstall -D -m 755 bigtext debian/elfthp-dhtest-extra/usr/bin/bigtext-extra\n'
        printf '\n'
        # Firmware and the malformed file would make them fail first.
        printf 'override_dh_strip:\n\tdh_strip -X/firmware/ -X/broken\n\n'
        printf 'override_dh_dwz:\n\tdh_dwz -X/firmware/ -X/broken\n\n'
        local l
        for l in "$@"; do printf '%b\n' "$l"; done
    } > "$SRC/debian/rules"
    chmod 755 "$SRC/debian/rules"
    BUILD_NAME=$name
}

# build [DEB_BUILD_OPTIONS]: dpkg-buildpackage -b -us -uc of the source
# written last, always in $WORK/b/elfthp-dhtest-1; BRC, the log in
# $WORK/NAME.log, the packages' files extracted in $WORK/NAME.root.
# -d: the build dependency dh-sequence-elfthp-align is the DESTDIR's
# addon here, not an installed package.
build() {
    local name=$BUILD_NAME top=$WORK/b deb
    rm -rf "$top" && mkdir -p "$top" && cp -r "$SRC" "$top/elfthp-dhtest-1"
    (cd "$top/elfthp-dhtest-1" && DEB_BUILD_OPTIONS=${1:-} timeout 300 \
        dpkg-buildpackage -b -us -uc -d) > "$WORK/$name.log" 2>&1
    BRC=$?
    mkdir -p "$WORK/$name.root" "$WORK/$name.debs"
    for deb in "$top"/*.deb; do
        [ -f "$deb" ] || continue
        cp "$deb" "$WORK/$name.debs/"
        dpkg-deb -x "$deb" "$WORK/$name.root"
    done
    return 0
}
# in_order NAME CMD...: dh ran the commands CMD in this order (its
# "   dh_x" or "   debian/rules override_dh_x" lines in NAME.log).
in_order() {
    local log=$WORK/$1.log prev=0 at c; shift
    for c in "$@"; do
        at=$(grep -n "^   \(debian/rules override_\)\?$c\( \|$\)" "$log" | head -1 | cut -d: -f1)
        if [ -z "$at" ] || [ "$at" -le "$prev" ]; then
            WHY="$c at line ${at:-none} of $log, after line $prev: $(grep -o '^   [a-z/_ ]*dh_[a-z0-9_]*' "$log" | tr -d ' ' | tr '\n' ' ')"
            return 1
        fi
        prev=$at
    done
}
# step_lines NAME: the files dh_elfthp_align named in NAME.log.
step_lines() {
    sed -n 's|^\tdebian/\([^:]*\): .*|\1|p' "$WORK/$1.log" | sort | tr '\n' ' '
}
BIG=usr/bin/bigtext KEEP=usr/lib/elfthp-dhtest/keep EXTRA=usr/bin/bigtext-extra

start=$(date +%s)
# --- without the addon: the negative control, and the bytes as linked ---------
write_source off "" ""
build
assert "control: without the addon, dpkg-buildpackage exits 0" equals "exit" "$BRC" 0 ||
    tail -20 "$WORK/off.log"
OFF=$WORK/off.root
for f in $BIG $KEEP $EXTRA; do
    assert "control: without the addon, $f is packaged as linked, not ready" not_ready "$OFF/$f"
done
assert_not "control: without the addon, dh_elfthp_align is not in the log" \
    log_has off "   dh_elfthp_align"

# --- Build-Depends: dh-sequence-elfthp-align ----------------------------------------
# parallel=96: more than the tool's 64 workers, passed through as -j 96.
write_source on dh-sequence-elfthp-align ""
build parallel=96
assert "Build-Depends dh-sequence-elfthp-align, parallel=96: dpkg-buildpackage exits 0" equals "exit" "$BRC" 0 ||
    tail -20 "$WORK/on.log"
assert "dh runs dh_dwz, dh_strip, dh_elfthp_align, dh_makeshlibs, dh_shlibdeps, dh_md5sums in this order" \
    in_order on dh_dwz dh_strip dh_elfthp_align dh_makeshlibs dh_shlibdeps dh_md5sums dh_builddeb
ON=$WORK/on.root
for f in $BIG $KEEP $EXTRA; do
    assert "packaged $f: ready by elfthp-align --check" is_ready "$ON/$f"
    assert "packaged $f: congruent" check_congruence "$ON/$f"
    assert "packaged $f: start-aligned (--layout start)" start_body "$ON/$f"
    assert_not "control: $f as linked is not start-aligned" start_body "$OFF/$f"
    assert "packaged $f: stripped (dh_strip ran first)" stripped "$ON/$f"
    assert "packaged $f: every segment's bytes are the control build's" check_segment_bytes "$OFF/$f" "$ON/$f"
    assert "packaged $f: runs and prints the same as the control build's" run_same "$OFF/$f" "$ON/$f"
done
assert "the small program is packaged as dh_strip left it (no window: the tool's decision)" \
    same_file "$OFF/usr/bin/small" "$ON/usr/bin/small"
assert "the object file is packaged as dh_strip left it (not a program)" \
    same_file "$OFF/usr/lib/elfthp-dhtest/small.o" "$ON/usr/lib/elfthp-dhtest/small.o"
assert "the firmware is packaged as it was (not a program Linux can load)" \
    same_file "$SRC/fw.bin" "$ON/usr/lib/firmware/elfthp-dhtest/fw.bin"
cp "$SRC/fw.bin" "$WORK/fw.named"
run_tool --no-warm --no-sync "$WORK/fw.named"
assert "control: the firmware named on the tool's command line is an error (exit 2)" tool_rc 2
assert "the text file is packaged as it was" same_file "$SRC/notes.txt" "$ON/usr/share/elfthp-dhtest/notes.txt"
assert "the log has a line for each changed file and no other" \
    equals "lines" "$(step_lines on)" \
    "elfthp-dhtest-extra/$EXTRA elfthp-dhtest/$BIG elfthp-dhtest/$KEEP "
assert "... in the tool's words" log_has on "debian/elfthp-dhtest/$BIG: 1 segment aligned"

# --- installed: dpkg --verify ------------------------------------------------------
# A private root: dpkg --root installs there and keeps its database there;
# --force-depends because libc6 is not installed in it (the program runs
# with the host's).
R=$WORK/root
mkdir -p "$R/var/lib/dpkg/info" "$R/var/lib/dpkg/updates" && : > "$R/var/lib/dpkg/status"
dpk() { dpkg --root="$R" --force-not-root --force-depends --force-script-chrootless "$@"; }
out=$(dpk -i "$WORK/on.debs/elfthp-dhtest_1_"*.deb 2>&1)
assert "dpkg --root=... -i of the package: exits 0" equals "exit" "$?" 0 || echo "$out" | tail -5
assert "installed: bigtext is ready" is_ready "$R/$BIG"
out=$("$R/$BIG" 2>&1)
assert "installed: bigtext runs and prints its text's size" equals "output" "${out%%,*}" "5242880 bytes of text"
assert "installed: ... and the same as the control build's" run_same "$OFF/$BIG" "$R/$BIG"
out=$(dpk --verify elfthp-dhtest 2>&1)
assert "installed: dpkg --verify says nothing" equals "dpkg --verify" "$?:$out" "0:"
cp "$OFF/$BIG" "$R/$BIG" && out=$(dpk --verify elfthp-dhtest 2>&1)
assert "control: the file as linked in its place is what dpkg --verify reports" equals "dpkg --verify" \
    "$out" "??5??????   /$BIG"

# The md5sums taken before the step: dh_elfthp_align run after dh_md5sums.
write_source late "" "" "execute_before_dh_builddeb:\n\tdh_elfthp_align"
build
R=$WORK/root.late
mkdir -p "$R/var/lib/dpkg/info" "$R/var/lib/dpkg/updates" && : > "$R/var/lib/dpkg/status"
dpk -i "$WORK/late.debs/elfthp-dhtest_1_"*.deb > /dev/null 2>&1
assert "control: aligned after dh_md5sums, the program is ready" is_ready "$R/$BIG"
out=$(dpk --verify elfthp-dhtest 2>&1)
assert "control: ... and dpkg --verify reports it" equals "dpkg --verify" "$(echo "$out" | sort)" \
    "$(printf '??5??????   /%s\n' $KEEP $BIG | sort)"

# --- dh $@ --with elfthp-align ---------------------------------------------------
write_source with "" "--with elfthp-align"
build
assert "dh \$@ --with elfthp-align: dpkg-buildpackage exits 0" equals "exit" "$BRC" 0
assert "dh \$@ --with elfthp-align: bigtext is ready" is_ready "$WORK/with.root/$BIG"

# --- dh_elfthp_align --layout=congruent: the opt-out of the split --------------------
write_source congruent dh-sequence-elfthp-align "" "override_dh_elfthp_align:\n\tdh_elfthp_align --layout=congruent"
build
assert "--layout=congruent: dpkg-buildpackage exits 0" equals "exit" "$BRC" 0 || tail -20 "$WORK/congruent.log"
for f in $BIG $EXTRA; do
    assert "--layout=congruent: $f is ready" is_ready "$WORK/congruent.root/$f"
    assert "--layout=congruent: $f is congruent" check_congruence "$WORK/congruent.root/$f"
    assert_not "--layout=congruent: $f is not start-aligned" start_body "$WORK/congruent.root/$f"
    assert "--layout=congruent: $f runs the same as the control build's" run_same "$OFF/$f" "$WORK/congruent.root/$f"
done
write_source badlayout dh-sequence-elfthp-align "" "override_dh_elfthp_align:\n\tdh_elfthp_align --layout=bogus"
build
assert "--layout=bogus fails the build" equals "dpkg-buildpackage failed" "$(( BRC != 0 ))" 1
assert "... naming the value" log_has badlayout "--layout=bogus: start or congruent"

# --- DEB_BUILD_OPTIONS=noelfthp --------------------------------------------------------
write_source noelfthp dh-sequence-elfthp-align ""
build noelfthp
assert "DEB_BUILD_OPTIONS=noelfthp: dpkg-buildpackage exits 0" equals "exit" "$BRC" 0
for f in $BIG $EXTRA; do
    assert "DEB_BUILD_OPTIONS=noelfthp: $f is the control build's, byte for byte" \
        same_file "$OFF/$f" "$WORK/noelfthp.root/$f"
done
assert "DEB_BUILD_OPTIONS=noelfthp: the log names no file" equals "lines" "$(step_lines noelfthp)" ""

# --- -X, -p, -N ---------------------------------------------------------------------------
write_source exclude dh-sequence-elfthp-align "" "override_dh_elfthp_align:\n\tdh_elfthp_align -X/elfthp-dhtest/keep"
build
assert "-X: dpkg-buildpackage exits 0" equals "exit" "$BRC" 0
assert "-X/elfthp-dhtest/keep: keep stays as linked, not ready (ready without -X)" \
    not_ready "$WORK/exclude.root/$KEEP"
assert "-X/elfthp-dhtest/keep: ... byte for byte" same_file "$OFF/$KEEP" "$WORK/exclude.root/$KEEP"
assert "-X/elfthp-dhtest/keep: bigtext is ready" is_ready "$WORK/exclude.root/$BIG"
assert "-X/elfthp-dhtest/keep: bigtext-extra is ready" is_ready "$WORK/exclude.root/$EXTRA"

write_source onlyp dh-sequence-elfthp-align "" "override_dh_elfthp_align:\n\tdh_elfthp_align -pelfthp-dhtest-extra"
build
assert "-p: dpkg-buildpackage exits 0" equals "exit" "$BRC" 0
assert "-pelfthp-dhtest-extra: bigtext-extra is ready" is_ready "$WORK/onlyp.root/$EXTRA"
assert "-pelfthp-dhtest-extra: bigtext, in the other package, is not" not_ready "$WORK/onlyp.root/$BIG"

write_source notn dh-sequence-elfthp-align "" "override_dh_elfthp_align:\n\tdh_elfthp_align -Nelfthp-dhtest-extra"
build
assert "-N: dpkg-buildpackage exits 0" equals "exit" "$BRC" 0
assert "-Nelfthp-dhtest-extra: bigtext is ready" is_ready "$WORK/notn.root/$BIG"
assert "-Nelfthp-dhtest-extra: bigtext-extra is not" not_ready "$WORK/notn.root/$EXTRA"

# --- a malformed ELF file ------------------------------------------------------------
# dh_strip and dh_dwz leave it alone (write_source), dh_makeshlibs and
# dh_shlibdeps are told to, so that a failure is dh_elfthp_align's.
write_source bad dh-sequence-elfthp-align "" \
    "execute_after_dh_auto_install:\n\tinstall -D -m 755 broken debian/elfthp-dhtest/usr/lib/elfthp-dhtest/broken" \
    "override_dh_makeshlibs:\n\tdh_makeshlibs -X/broken" "override_dh_shlibdeps:\n\tdh_shlibdeps -X/broken"
build
assert "a malformed ELF file fails the build" equals "dpkg-buildpackage failed" "$(( BRC != 0 ))" 1
assert "... with the tool's message naming it" log_has bad \
    "elfthp-align: debian/elfthp-dhtest/usr/lib/elfthp-dhtest/broken: "
assert "... and dh_elfthp_align's saying how to skip it" log_has bad "DEB_BUILD_OPTIONS=noelfthp"
BUILD_NAME=badoff
build noelfthp
assert "control: with noelfthp the same source builds (the failure is the step's)" \
    equals "exit" "$BRC" 0 || tail -20 "$WORK/badoff.log"
echo "# dpkg-buildpackage: 11 builds in $(( $(date +%s) - start )) s"

finish
