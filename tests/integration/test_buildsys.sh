#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# SPDX-FileCopyrightText: 2026 the elfthp-align authors
# test_buildsys.sh [BUILDDIR] - the CMake package (find_package(ElfthpAlign),
# elfthp_align()) and the Meson route (elfthp-align.pc), as make install
# ships them (docs/buildsystems.md).  A DESTDIR install of this tree, with
# the tool under test as its bin/elfthp-align, is the only place the
# examples may find them (CMAKE_PREFIX_PATH; PKG_CONFIG_LIBDIR, so that the
# host's .pc files are not even searched).  examples/cmake-postlink and
# examples/meson-postlink (4 MiB of text: a whole 2 MiB window) are built,
# installed with DESTDIR, and checked:
#   - each found the staged package and tool, not the host's;
#   - the build log has the tool's line for prog (the step ran);
#   - prog in the build tree and in the install are ready (elfthp-align
#     --check), congruent (readelf), and run printing what the control
#     prints; the installed file is the build tree's bytes; the segments'
#     bytes are those the linker wrote;
#   - the control: the same builds from a copy of the staged tree whose
#     elfthp-align is a stand-in that aligns nothing (-o copies, as cp
#     would): they build and run, and every readiness check fails;
#   - Meson with lld: the text moves (the step pads the file);
#   - CMake: cmake --install --strip keeps prog ready; a relink runs the
#     step again; CMAKE_NO_BUILTIN_CHRPATH (install relinks, no step) is
#     warned about; a package whose tool is missing is reported as not
#     found, naming where it looked;
#   - Meson: a second build with nothing to do runs nothing;
#   - nothing was written to the example directories.
# BUILDDIR is accepted for symmetry with the other scripts and not used.
. "$(dirname "$0")/lib.sh"
need_tool

CM_SRC=$REPO_ROOT/examples/cmake-postlink
MS_SRC=$REPO_ROOT/examples/meson-postlink
WANT_LINE="hello from a program with 4096 KiB of padding in its text"
snapshot() { (cd "$1" && find . -exec stat -c '%n %s %.9Y' {} + | sort); }
snap_cm=$(snapshot "$CM_SRC") snap_ms=$(snapshot "$MS_SRC")

# ok_rc RC LOG: a build step exited 0 (else the end of its log).
ok_rc() {
    [ "$1" -eq 0 ] && return 0
    WHY="exit $1: $(tail -5 "$2" | tr '\n' ' ')"; return 1
}
# step_ran LOG: the tool's report line for prog (in place, or -o's "IN -> prog").
step_ran() {
    grep -Eq '(^|/|-> )prog: [0-9]+ segments? aligned, [0-9]+ windows?, file \+[0-9]+ bytes' "$1" &&
        return 0
    WHY="no elfthp-align report line for prog in $1: $(tail -5 "$1" | tr '\n' ' ')"; return 1
}
# has_text FILE TEXT: FILE holds TEXT.
has_text() {
    grep -qF -- "$2" "$1" && return 0
    WHY="$1 does not hold [$2]"; return 1
}

# results NAME BUILT INSTALLED CONTROL: the checks on a build and its install.
results() {
    local n=$1 b=$2 i=$3 c=$4
    assert "$n: prog in the build tree is ready (--check)" checks_ready "$b"
    assert "$n: ... congruent (readelf)" check_congruence "$b"
    assert "$n: ... and runs printing what the control prints" run_same "$c" "$b"
    assert "$n: the installed prog is ready (--check)" checks_ready "$i"
    assert "$n: ... congruent (readelf)" check_congruence "$i"
    assert "$n: ... and runs printing what the control prints" run_same "$c" "$i"
    assert "$n: the installed prog is the build tree's bytes" same_file "$b" "$i"
}
# control NAME BUILT INSTALLED: what the stand-in tool made is not ready.
control() {
    local n=$1 b=$2 i=$3
    assert "$n, control: prog runs and prints its line" prints_line "$b"
    assert_not "$n, control: --check catches the build tree's prog" checks_ready "$b"
    assert_not "$n, control: readelf catches the build tree's prog" check_congruence "$b"
    assert_not "$n, control: --check catches the installed prog" checks_ready "$i"
    assert_not "$n, control: readelf catches the installed prog" check_congruence "$i"
}

for t in cc cmake meson ninja pkg-config; do
    command -v "$t" > /dev/null && continue
    skip "the build-system modules" "$t not installed (make deps installs it)"
    finish
done

# CMake finds the package only where the test says: the host's own copies
# (a package of this tool installed in /usr or /usr/local, which CMake
# searches through its system prefixes and PATH) are ignored.
ign=
for p in /usr /usr/local; do
    for d in share/cmake lib/cmake "lib/$(gcc -print-multiarch 2>/dev/null)/cmake"; do
        ign="$ign${ign:+;}$p/$d/ElfthpAlign"
    done
done
HERMETIC=("-DCMAKE_IGNORE_PATH=$ign" -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF)

# --- a DESTDIR install of this tree, and the control's copy ------------------
DEST=$WORK/dest STAGE=$WORK/dest/usr/local
make -s -C "$REPO_ROOT" install DESTDIR="$DEST" > "$WORK/install.log" 2>&1
assert "make install DESTDIR=...: exits 0" ok_rc "$?" "$WORK/install.log"
# The tool under test ($ELFTHP_ALIGN: a mutant, an ASan build) is the one
# the modules run.
cp "$TOOL" "$STAGE/bin/elfthp-align"
CTRL=$WORK/ctrl
cp -a "$DEST" "$CTRL"
cat > "$CTRL/usr/local/bin/elfthp-align" <<'EOF'
#!/bin/sh
# A stand-in that aligns nothing: -o OUT IN copies, in place does nothing.
out="" last=""
while [ $# -gt 0 ]; do
    case $1 in -o|--output) out=$2; shift ;; esac
    last=$1; shift
done
[ -z "$out" ] || cp "$last" "$out"
EOF

# --- CMake -------------------------------------------------------------------
# cmake_example NAME ROOT [ARGS]: configure, build and install (DESTDIR
# $WORK/NAME-inst) the CMake example with ROOT/usr/local as the prefix
# path; logs in $WORK/NAME.*.log; sets CRC (configure), BRC, IRC.
cmake_example() {
    local n=$1 root=$2; shift 2
    cmake -S "$CM_SRC" -B "$WORK/$n" "${HERMETIC[@]}" -DCMAKE_PREFIX_PATH="$root/usr/local" \
        -DCMAKE_INSTALL_PREFIX=/opt/ex "$@" > "$WORK/$n.conf.log" 2>&1; CRC=$?
    cmake --build "$WORK/$n" > "$WORK/$n.build.log" 2>&1; BRC=$?
    DESTDIR=$WORK/$n-inst cmake --install "$WORK/$n" > "$WORK/$n.inst.log" 2>&1; IRC=$?
}
echo "# CMake: examples/cmake-postlink"
cmake_example cm "$DEST"
assert "cmake: configure exits 0" ok_rc "$CRC" "$WORK/cm.conf.log"
assert "cmake: find_package found the staged package" has_text "$WORK/cm/CMakeCache.txt" \
    "ElfthpAlign_DIR:PATH=$STAGE/share/cmake/ElfthpAlign"
assert "cmake: ... and the tool installed beside it" has_text "$WORK/cm/CMakeCache.txt" \
    "ELFTHP_ALIGN_EXECUTABLE:FILEPATH=$STAGE/bin/elfthp-align"
assert "cmake: build exits 0" ok_rc "$BRC" "$WORK/cm.build.log"
assert "cmake: the POST_BUILD step ran" step_ran "$WORK/cm.build.log"
assert "cmake: cmake --install exits 0" ok_rc "$IRC" "$WORK/cm.inst.log"
cmake_example cm-ctrl "$CTRL"
assert "cmake, control: configure, build and install exit 0" equals "exits" "$CRC $BRC $IRC" "0 0 0"
results cmake "$WORK/cm/prog" "$WORK/cm-inst/opt/ex/bin/prog" "$WORK/cm-ctrl/prog"
assert "cmake: the segments' bytes are the linker's" check_segment_bytes \
    "$WORK/cm-ctrl/prog" "$WORK/cm/prog"
control cmake "$WORK/cm-ctrl/prog" "$WORK/cm-ctrl-inst/opt/ex/bin/prog"

DESTDIR=$WORK/cm-strip cmake --install "$WORK/cm" --strip > "$WORK/cm.strip.log" 2>&1
assert "cmake: cmake --install --strip exits 0" ok_rc "$?" "$WORK/cm.strip.log"
assert "cmake: ... and the stripped prog is ready" checks_ready "$WORK/cm-strip/opt/ex/bin/prog"
assert_not "cmake: ... (it was stripped)" same_file "$WORK/cm/prog" "$WORK/cm-strip/opt/ex/bin/prog"
# Where CMake would relink at install (no POST_BUILD step then), it says so.
cmake -S "$CM_SRC" -B "$WORK/cm-relink" "${HERMETIC[@]}" -DCMAKE_PREFIX_PATH="$STAGE" \
    -DCMAKE_NO_BUILTIN_CHRPATH=ON > "$WORK/cm-relink.log" 2>&1
assert "cmake: CMAKE_NO_BUILTIN_CHRPATH: a warning that install relinks without the step" \
    has_text "$WORK/cm-relink.log" "CMAKE_NO_BUILTIN_CHRPATH makes CMake relink at install"
assert_not "cmake: ... and none without it" has_text "$WORK/cm.conf.log" "CMAKE_NO_BUILTIN_CHRPATH"

rm -f "$WORK/cm/prog"
cmake --build "$WORK/cm" > "$WORK/cm.relink.log" 2>&1
assert "cmake: a relink runs the step again" step_ran "$WORK/cm.relink.log"
assert "cmake: ... and prog is ready" checks_ready "$WORK/cm/prog"

# The package without its tool: not found, saying where it looked.
mkdir -p "$WORK/notool/usr/local/share"
cp -r "$STAGE/share/cmake" "$WORK/notool/usr/local/share/"
PATH=$(path_without_tool) cmake -S "$CM_SRC" -B "$WORK/cm-notool" "${HERMETIC[@]}" -DCMAKE_PREFIX_PATH="$WORK/notool/usr/local" \
    > "$WORK/cm-notool.log" 2>&1
assert_not "cmake, package without its tool: configure fails" ok_rc "$?" "$WORK/cm-notool.log"
assert "cmake, package without its tool: the message names the directory" has_text \
    "$WORK/cm-notool.log" "elfthp-align is not in $WORK/notool/usr/local/bin"

# --- Meson -------------------------------------------------------------------
# meson_example NAME ROOT [ARGS]: as cmake_example, the .pc file from ROOT.
meson_example() {
    local n=$1 root=$2; shift 2
    PKG_CONFIG_LIBDIR=$root/usr/local/share/pkgconfig meson setup "$WORK/$n" "$MS_SRC" \
        --prefix=/opt/ex "$@" > "$WORK/$n.conf.log" 2>&1; CRC=$?
    meson compile -C "$WORK/$n" > "$WORK/$n.build.log" 2>&1; BRC=$?
    DESTDIR=$WORK/$n-inst meson install -C "$WORK/$n" --no-rebuild > "$WORK/$n.inst.log" 2>&1; IRC=$?
}
echo "# Meson: examples/meson-postlink"
meson_example ms "$DEST"
assert "meson: setup exits 0" ok_rc "$CRC" "$WORK/ms.conf.log"
assert "meson: the build runs the staged tool (from the staged .pc)" has_text \
    "$WORK/ms/build.ninja" "$STAGE/share/pkgconfig/../../bin/elfthp-align"
assert "meson: build exits 0" ok_rc "$BRC" "$WORK/ms.build.log"
assert "meson: the custom target ran the tool" step_ran "$WORK/ms.build.log"
assert "meson: meson install exits 0" ok_rc "$IRC" "$WORK/ms.inst.log"
meson_example ms-ctrl "$CTRL"
assert "meson, control: setup, build and install exit 0" equals "exits" "$CRC $BRC $IRC" "0 0 0"
results meson "$WORK/ms/prog" "$WORK/ms-inst/opt/ex/bin/prog" "$WORK/ms-ctrl/prog"
assert "meson: the segments' bytes are the linker's" check_segment_bytes \
    "$WORK/ms/prog-linked" "$WORK/ms/prog"
control meson "$WORK/ms-ctrl/prog" "$WORK/ms-ctrl-inst/opt/ex/bin/prog"

meson compile -C "$WORK/ms" > "$WORK/ms.again.log" 2>&1
assert "meson: a second build exits 0" ok_rc "$?" "$WORK/ms.again.log"
assert_not "meson: ... and does not run the tool again" step_ran "$WORK/ms.again.log"

if need "meson with lld" "ld.lld not installed" command -v ld.lld > /dev/null; then
    meson_example ms-lld "$DEST" -Dc_link_args=-fuse-ld=lld
    assert "meson with lld: setup, build and install exit 0" equals "exits" "$CRC $BRC $IRC" "0 0 0"
    assert "meson with lld: the step moved the text (padded the file)" text_moved \
        "$WORK/ms-lld/prog-linked" "$WORK/ms-lld/prog"
    assert "meson with lld: the installed prog is ready" checks_ready "$WORK/ms-lld-inst/opt/ex/bin/prog"
    assert "meson with lld: ... and runs" prints_line "$WORK/ms-lld-inst/opt/ex/bin/prog"
fi

# ------------------------------------------------------------------------------
assert "nothing was written to examples/cmake-postlink" equals "listing" \
    "$(snapshot "$CM_SRC")" "$snap_cm"
assert "nothing was written to examples/meson-postlink" equals "listing" \
    "$(snapshot "$MS_SRC")" "$snap_ms"

finish
