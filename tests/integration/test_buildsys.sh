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
#   - Meson: a second build with nothing to do runs nothing; meson test
#     runs the aligned prog (testlog.json);
#   - CMake, cross (aarch64, a toolchain file with
#     CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY): the example finds the staged
#     package (NO_CMAKE_FIND_ROOT_PATH), its aarch64 prog is ready and runs
#     under qemu-aarch64; the control: without the keyword configure fails,
#     -DElfthpAlign_DIR= finds it; the target's package in the root (a tool
#     that does not run here) is not found; a re-rooted decoy is not taken;
#   - Meson, examples/meson-library: libbig.so is linked under its installed
#     name (SONAME), programs link the aligned file (build tree and meson
#     test load it), the installed libbig.so is ready and the installed prog
#     runs with it; a versioned library (SONAME libbig.so.1) as the docs
#     write it; the control: the old pattern (shared_library('big-linked'))
#     installs a prog that does not start;
#   - nothing was written to the example directories.
# BUILDDIR is accepted for symmetry with the other scripts and not used.
. "$(dirname "$0")/lib.sh"
need_tool

CM_SRC=$REPO_ROOT/examples/cmake-postlink
MS_SRC=$REPO_ROOT/examples/meson-postlink
ML_SRC=$REPO_ROOT/examples/meson-library
WANT_LINE="hello from a program with 4096 KiB of padding in its text"
LIB_LINE="hello from a library with 4096 KiB of padding in its text"
snapshot() { (cd "$1" && find . -exec stat -c '%n %s %.9Y' {} + | sort); }
snap_cm=$(snapshot "$CM_SRC") snap_ms=$(snapshot "$MS_SRC") snap_ml=$(snapshot "$ML_SRC")

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

# has_words FILE TEXT: FILE holds TEXT, with lines joined (CMake wraps its
# messages).
has_words() {
    tr -s ' \n' '  ' < "$1" | grep -qF -- "$2" && return 0
    WHY="$1 does not hold [$2]"; return 1
}
# prints_with LINE PROG [RUNNER...]: PROG (run by RUNNER) exits 0 printing LINE.
prints_with() {
    local want=$1 prog=$2 out rc; shift 2
    out=$(timeout 60 "$@" "$prog" 2>&1); rc=$?
    [ "$rc" -eq 0 ] && [ "$out" = "$want" ] && return 0
    WHY="$prog: rc $rc, output [$out], want [$want]"; return 1
}
# machine_is FILE MACHINE: readelf's Machine line names MACHINE.
machine_is() {
    LC_ALL=C readelf -hW "$1" 2>/dev/null | grep -q "Machine: *$2\$" && return 0
    WHY="$1: $(LC_ALL=C readelf -hW "$1" 2>&1 | grep Machine), want $2"; return 1
}
# dyn_has FILE TAG [NAME]: FILE's dynamic section has TAG [NAME] (readelf
# -d); without NAME, TAG at all.
dyn_has() {
    local pat="($2) "
    [ -n "${3-}" ] && pat="($2) .*\[$3\]"
    LC_ALL=C readelf -dW "$1" 2>/dev/null | grep -q "$pat" && return 0
    WHY="$1: $(LC_ALL=C readelf -dW "$1" 2>&1 | grep "($2)" | tr -s ' ' | tr '\n' ' '), want $2 [${3-}]"
    return 1
}
# loads FILE LIB PATH [ENV...]: ldd FILE (with ENV) resolves LIB to PATH.
loads() {
    local f=$1 lib=$2 want=$3 got; shift 3
    got=$(env "$@" ldd "$f" 2>&1 | awk -v l="$lib" '$1 == l { print $3 }')
    [ "$got" = "$want" ] && return 0
    WHY="ldd $f: $lib => [$got], want [$want]"; return 1
}
# meson_test_ran BUILD NAME PROG LINE: meson test's log (testlog.json) has
# the test NAME passed, its command ending in PROG, printing LINE.
meson_test_ran() {
    local got want
    got=$(python3 - "$1/meson-logs/testlog.json" "$2" <<'PY' 2>&1
import json, sys
for line in open(sys.argv[1]):
    t = json.loads(line)
    if t["name"] == sys.argv[2]:
        print(t["result"], t["command"][-1], t["stdout"].strip())
PY
)
    want="OK $3 $4"
    [ "$got" = "$want" ] && return 0
    WHY="meson test $2 in $1: got [$got], want [$want]"; return 1
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
[ "$1" = --version ] && echo "elfthp-align 0.2.0 (a stand-in that aligns nothing)" && exit 0
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

# --- CMake, a cross build ---------------------------------------------------
# The usual toolchain file: the target's root for libraries, headers and
# packages only, programs from the build machine.  toolchain FILE ROOT [MODE]
# (MODE: CMAKE_FIND_ROOT_PATH_MODE_PROGRAM, default NEVER).
toolchain() {
    cat > "$1" <<EOF
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_FIND_ROOT_PATH $2)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM ${3:-NEVER})
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
EOF
}
echo "# CMake: a cross build (aarch64)"
if need "cmake cross build" "aarch64-linux-gnu-gcc not installed (make deps installs it)" \
        command -v aarch64-linux-gnu-gcc > /dev/null &&
    need "cmake cross build" "qemu-aarch64 not installed (make deps installs qemu-user)" \
        set_runner aarch64; then
    TC=$WORK/aarch64.cmake
    toolchain "$TC" /usr/aarch64-linux-gnu
    cmake_example cx "$DEST" -DCMAKE_TOOLCHAIN_FILE="$TC"
    assert "cmake cross: configure exits 0" ok_rc "$CRC" "$WORK/cx.conf.log"
    assert "cmake cross: find_package found the staged package (NO_CMAKE_FIND_ROOT_PATH)" \
        has_text "$WORK/cx/CMakeCache.txt" "ElfthpAlign_DIR:PATH=$STAGE/share/cmake/ElfthpAlign"
    assert "cmake cross: build exits 0" ok_rc "$BRC" "$WORK/cx.build.log"
    assert "cmake cross: the POST_BUILD step ran" step_ran "$WORK/cx.build.log"
    assert "cmake cross: cmake --install exits 0" ok_rc "$IRC" "$WORK/cx.inst.log"
    assert "cmake cross: prog is an aarch64 program" machine_is "$WORK/cx/prog" AArch64
    assert "cmake cross: prog is ready (--check)" checks_ready "$WORK/cx/prog"
    assert "cmake cross: ... congruent (readelf)" check_congruence "$WORK/cx/prog"
    assert "cmake cross: ... and runs (${RUNNER[*]:-natively}), printing its line" \
        prints_with "$WANT_LINE" "$WORK/cx/prog" "${RUNNER[@]}"
    assert "cmake cross: the installed prog is ready" checks_ready "$WORK/cx-inst/opt/ex/bin/prog"
    cmake_example cx-ctrl "$CTRL" -DCMAKE_TOOLCHAIN_FILE="$TC"
    assert "cmake cross, control: configure, build and install exit 0" equals "exits" \
        "$CRC $BRC $IRC" "0 0 0"
    assert "cmake cross, control: prog runs" prints_with "$WANT_LINE" "$WORK/cx-ctrl/prog" "${RUNNER[@]}"
    assert_not "cmake cross, control: --check catches prog" checks_ready "$WORK/cx-ctrl/prog"
    assert_not "cmake cross, control: readelf catches prog" check_congruence "$WORK/cx-ctrl/prog"

    # A project whose find_package lacks the keyword: the toolchain file
    # confines the search to the target's root, and ElfthpAlign_DIR is the way.
    PLAIN=$WORK/cm-plain
    cp -r "$CM_SRC" "$PLAIN"
    sed -i 's/ NO_CMAKE_FIND_ROOT_PATH)/)/' "$PLAIN/CMakeLists.txt"
    cmake -S "$PLAIN" -B "$WORK/cx-plain" "${HERMETIC[@]}" -DCMAKE_TOOLCHAIN_FILE="$TC" \
        -DCMAKE_PREFIX_PATH="$STAGE" > "$WORK/cx-plain.log" 2>&1
    assert_not "cmake cross, without NO_CMAKE_FIND_ROOT_PATH: configure fails" ok_rc "$?" \
        "$WORK/cx-plain.log"
    assert "cmake cross, without NO_CMAKE_FIND_ROOT_PATH: ... ElfthpAlign not found" has_text \
        "$WORK/cx-plain.log" 'Could not find a package configuration file provided by "ElfthpAlign"'
    cmake -S "$PLAIN" -B "$WORK/cx-dir" "${HERMETIC[@]}" -DCMAKE_TOOLCHAIN_FILE="$TC" \
        -DElfthpAlign_DIR="$STAGE/share/cmake/ElfthpAlign" > "$WORK/cx-dir.log" 2>&1
    assert "cmake cross, -DElfthpAlign_DIR=: configure exits 0" ok_rc "$?" "$WORK/cx-dir.log"
    assert "cmake cross, -DElfthpAlign_DIR=: ... with the staged tool" has_text \
        "$WORK/cx-dir/CMakeCache.txt" "ELFTHP_ALIGN_EXECUTABLE:FILEPATH=$STAGE/bin/elfthp-align"

    # The target's own package in its root (its tool an aarch64 program):
    # found by the plain find_package, reported as not found at configure.
    TROOT=$WORK/troot
    mkdir -p "$TROOT/opt/tgt/share" "$TROOT/opt/tgt/bin"
    cp -r "$STAGE/share/cmake" "$TROOT/opt/tgt/share/"
    cp "$WORK/cx-ctrl/prog" "$TROOT/opt/tgt/bin/elfthp-align"
    toolchain "$WORK/troot.cmake" "$TROOT"
    cmake -S "$PLAIN" -B "$WORK/cx-troot" "${HERMETIC[@]}" -DCMAKE_TOOLCHAIN_FILE="$WORK/troot.cmake" \
        -DCMAKE_PREFIX_PATH=/opt/tgt > "$WORK/cx-troot.log" 2>&1
    assert_not "cmake cross, the target's package: configure fails" ok_rc "$?" "$WORK/cx-troot.log"
    assert "cmake cross, the target's package: ... its tool does not run here" has_words \
        "$WORK/cx-troot.log" "$TROOT/opt/tgt/bin/elfthp-align does not run on this machine"
    # Programs searched in the root too (MODE_PROGRAM BOTH): the tool beside
    # the package is taken, not a decoy at the re-rooted path.
    mkdir -p "$TROOT$STAGE/bin"
    printf '#!/bin/sh\necho "elfthp-align decoy"\n' > "$TROOT$STAGE/bin/elfthp-align"
    chmod +x "$TROOT$STAGE/bin/elfthp-align"
    toolchain "$WORK/both.cmake" "$TROOT" BOTH
    cmake -S "$PLAIN" -B "$WORK/cx-both" "${HERMETIC[@]}" -DCMAKE_TOOLCHAIN_FILE="$WORK/both.cmake" \
        -DElfthpAlign_DIR="$STAGE/share/cmake/ElfthpAlign" > "$WORK/cx-both.log" 2>&1
    assert "cmake cross, programs searched in the root: configure exits 0" ok_rc "$?" \
        "$WORK/cx-both.log"
    assert "cmake cross, programs searched in the root: the staged tool, not a re-rooted one" \
        has_text "$WORK/cx-both/CMakeCache.txt" "ELFTHP_ALIGN_EXECUTABLE:FILEPATH=$STAGE/bin/elfthp-align"
fi

# --- Meson -------------------------------------------------------------------
# meson_example NAME ROOT [ARGS]: as cmake_example, the .pc file from ROOT;
# SRC (default examples/meson-postlink) is the project.
meson_example() {
    local n=$1 root=$2; shift 2
    PKG_CONFIG_LIBDIR=$root/usr/local/share/pkgconfig meson setup "$WORK/$n" "${SRC:-$MS_SRC}" \
        --prefix=/opt/ex --libdir=lib "$@" > "$WORK/$n.conf.log" 2>&1; CRC=$?
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
# meson test runs the aligned file, the custom_target's prog (checked ready
# above), not prog-linked (the control's --check catches that file).
meson test -C "$WORK/ms" > "$WORK/ms.test.log" 2>&1
assert "meson test: exits 0" ok_rc "$?" "$WORK/ms.test.log"
assert "meson test: ran the aligned prog, printing its line" meson_test_ran "$WORK/ms" prog \
    "$WORK/ms/prog" "$WANT_LINE"
assert_not "meson test, control: prog-linked is not ready" checks_ready "$WORK/ms/prog-linked"

if need "meson with lld" "ld.lld not installed" command -v ld.lld > /dev/null; then
    meson_example ms-lld "$DEST" -Dc_link_args=-fuse-ld=lld
    assert "meson with lld: setup, build and install exit 0" equals "exits" "$CRC $BRC $IRC" "0 0 0"
    assert "meson with lld: the step moved the text (padded the file)" text_moved \
        "$WORK/ms-lld/prog-linked" "$WORK/ms-lld/prog"
    assert "meson with lld: the installed prog is ready" checks_ready "$WORK/ms-lld-inst/opt/ex/bin/prog"
    assert "meson with lld: ... and runs" prints_line "$WORK/ms-lld-inst/opt/ex/bin/prog"
fi

# --- Meson, a shared library ------------------------------------------------
echo "# Meson: examples/meson-library"
SRC=$ML_SRC meson_example ml "$DEST"
assert "meson library: setup, build and install exit 0" equals "exits" "$CRC $BRC $IRC" "0 0 0"
assert "meson library: the custom target ran the tool" has_text "$WORK/ml.build.log" \
    "linked/libbig.so -> libbig.so: "
assert "meson library: linked under its installed name (SONAME libbig.so)" dyn_has \
    "$WORK/ml/linked/libbig.so" SONAME libbig.so
assert "meson library: prog records libbig.so" dyn_has "$WORK/ml/prog" NEEDED libbig.so
assert "meson library: libbig.so in the build tree is ready (--check)" checks_ready "$WORK/ml/libbig.so"
assert "meson library: ... congruent (readelf)" check_congruence "$WORK/ml/libbig.so"
assert "meson library: ... with the linker's segment bytes" check_segment_bytes \
    "$WORK/ml/linked/libbig.so" "$WORK/ml/libbig.so"
assert_not "meson library, control: the linker's libbig.so is not ready" checks_ready \
    "$WORK/ml/linked/libbig.so"
assert "meson library: prog in the build tree loads the aligned libbig.so" loads \
    "$WORK/ml/prog" libbig.so "$WORK/ml/libbig.so"
meson test -C "$WORK/ml" > "$WORK/ml.test.log" 2>&1
assert "meson library: meson test exits 0" ok_rc "$?" "$WORK/ml.test.log"
assert "meson library: ... ran prog, printing its line" meson_test_ran "$WORK/ml" prog \
    "$WORK/ml/prog" "$LIB_LINE"
MLI=$WORK/ml-inst/opt/ex
assert "meson library: the installed libbig.so is ready (--check)" checks_ready "$MLI/lib/libbig.so"
assert "meson library: ... the build tree's bytes" same_file "$WORK/ml/libbig.so" "$MLI/lib/libbig.so"
assert_not "meson library: the installed prog has no build-tree RUNPATH" dyn_has "$MLI/bin/prog" RUNPATH
assert "meson library: the installed prog loads the installed libbig.so" loads \
    "$MLI/bin/prog" libbig.so "$MLI/lib/libbig.so" LD_LIBRARY_PATH="$MLI/lib"
assert "meson library: ... and runs, printing its line" prints_with "$LIB_LINE" \
    "$MLI/bin/prog" env LD_LIBRARY_PATH="$MLI/lib"

# A versioned library, as docs/buildsystems.md writes it: installed under
# its SONAME libbig.so.1 (and libbig.so, a link to it); programs link the
# library as linked and record libbig.so.1.
VER=$WORK/ml-ver-src
mkdir -p "$VER/linked"
cp "$ML_SRC"/*.[ch] "$VER/"
echo "libbig_linked = shared_library('big', '../big.c', soversion: '1')" > "$VER/linked/meson.build"
cat > "$VER/meson.build" <<'EOF'
project('meson_library_versioned', 'c', meson_version: '>= 0.61')
elfthp_align = find_program(dependency('elfthp-align', native: true, method: 'pkg-config')
  .get_variable(pkgconfig: 'elfthp_align'))
subdir('linked')
libbig = custom_target('libbig', input: libbig_linked, output: 'libbig.so.1',
  command: [elfthp_align, '--output', '@OUTPUT@', '@INPUT@'], build_by_default: true,
  install: true, install_dir: get_option('libdir'), install_mode: 'rwxr-xr-x')
install_symlink('libbig.so', pointing_to: 'libbig.so.1', install_dir: get_option('libdir'))
executable('prog', 'main.c', link_with: libbig_linked, install: true)
EOF
SRC=$VER meson_example ml-ver "$DEST"
MVI=$WORK/ml-ver-inst/opt/ex
assert "meson library, versioned: setup, build and install exit 0" equals "exits" \
    "$CRC $BRC $IRC" "0 0 0"
assert "meson library, versioned: prog records libbig.so.1" dyn_has "$WORK/ml-ver/prog" NEEDED libbig.so.1
assert "meson library, versioned: the installed libbig.so.1 is ready" checks_ready "$MVI/lib/libbig.so.1"
assert "meson library, versioned: ... and libbig.so links to it" equals "libbig.so" \
    "$(readlink "$MVI/lib/libbig.so")" libbig.so.1
assert "meson library, versioned: the installed prog loads it" loads \
    "$MVI/bin/prog" libbig.so.1 "$MVI/lib/libbig.so.1" LD_LIBRARY_PATH="$MVI/lib"
assert "meson library, versioned: ... and runs, printing its line" prints_with "$LIB_LINE" \
    "$MVI/bin/prog" env LD_LIBRARY_PATH="$MVI/lib"

# The control: the program pattern applied to a library as it stood, linked
# as big-linked beside the copy; programs record libbig-linked.so.
OLD=$WORK/ml-old-src
mkdir -p "$OLD"
cp "$ML_SRC"/*.[ch] "$OLD/"
cat > "$OLD/meson.build" <<'EOF'
project('meson_library_old', 'c')
elfthp_align = find_program(dependency('elfthp-align', native: true, method: 'pkg-config')
  .get_variable(pkgconfig: 'elfthp_align'))
libbig_linked = shared_library('big-linked', 'big.c')
libbig = custom_target('libbig', input: libbig_linked, output: 'libbig.so',
  command: [elfthp_align, '--output', '@OUTPUT@', '@INPUT@'], build_by_default: true,
  install: true, install_dir: get_option('libdir'), install_mode: 'rwxr-xr-x')
executable('prog', 'main.c', link_with: libbig_linked, install: true)
EOF
SRC=$OLD meson_example ml-old "$DEST"
assert "meson library, old pattern: setup, build and install exit 0" equals "exits" \
    "$CRC $BRC $IRC" "0 0 0"
assert "meson library, old pattern: prog records libbig-linked.so" dyn_has \
    "$WORK/ml-old/prog" NEEDED libbig-linked.so
assert_not "meson library, old pattern: the installed prog does not start" prints_with "$LIB_LINE" \
    "$WORK/ml-old-inst/opt/ex/bin/prog" env LD_LIBRARY_PATH="$WORK/ml-old-inst/opt/ex/lib"
LD_LIBRARY_PATH="$WORK/ml-old-inst/opt/ex/lib" "$WORK/ml-old-inst/opt/ex/bin/prog" \
    > "$WORK/ml-old.run.log" 2>&1
assert "meson library, old pattern: ... for want of libbig-linked.so" has_text \
    "$WORK/ml-old.run.log" "libbig-linked.so: cannot open shared object file"

# ------------------------------------------------------------------------------
assert "nothing was written to examples/cmake-postlink" equals "listing" \
    "$(snapshot "$CM_SRC")" "$snap_cm"
assert "nothing was written to examples/meson-postlink" equals "listing" \
    "$(snapshot "$MS_SRC")" "$snap_ms"
assert "nothing was written to examples/meson-library" equals "listing" \
    "$(snapshot "$ML_SRC")" "$snap_ml"

finish
