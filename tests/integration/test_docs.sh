#!/bin/bash
# test_docs.sh BUILDDIR - the run-time commands the README and the man page
# show are run as written, so they cannot go stale:
#   - the README block between "<!-- tested: runtime" and "<!-- end
#     tested -->" runs line by line in bash on a loop-mounted ext4 image,
#     with only its first line (prog=...) pointed at a copy of the lld
#     fixture named myprog, started with --hold before the --pid line:
#     every line exits 0, --host names ext4, the rewrite aligns, --warm
#     finds the windows huge, and --pid shows them PMD-mapped;
#   - the man page's EXAMPLES has the same lines;
#   - examples/systemd/elfthp-align-warm.service passes
#     systemd-analyze verify (its ExecStart pointed at this build), and so
#     does a unit with the README's ExecStartPre= line; a broken copy
#     does not (so the check can fail); the unit's ExecStart command line
#     runs and warms what ELFTHP_WARM_PATHS names.
. "$(dirname "$0")/lib.sh"
need_builddir "$@"
need_tool


README=$REPO_ROOT/README.md
MAN=$REPO_ROOT/man/elfthp-align.1
UNIT=$REPO_ROOT/examples/systemd/elfthp-align-warm.service

# The README's tested block, without its indent.
block=$(awk '/^<!-- tested: runtime/ { on = 1; next } /^<!-- end tested -->/ { on = 0 }
             on { sub(/^    /, ""); print }' "$README")
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
                *--warm*) case $LINE_OUT in *"huge ("*) pass "README: --warm reports its windows" ;;
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
sed "s|/usr/local/bin/elfthp-align|$TOOL|" "$UNIT" > "$U/elfthp-align-warm.service"
assert "examples/systemd unit passes systemd-analyze verify" verify "$U/elfthp-align-warm.service"
sed 's/^Type=oneshot/Type=oneshoot/' "$U/elfthp-align-warm.service" > "$U/broken.service"
assert_not "a broken copy of it does not" verify "$U/broken.service"
pre=$(grep -m1 '^ *ExecStartPre=' "$README" | sed 's/^ *//')
if [ -z "$pre" ]; then
    fail "README has an ExecStartPre= line" "none found"
else
    printf '[Unit]\nDescription=test\n[Service]\nType=oneshot\nExecStart=/bin/true\n%s\n' \
        "$(printf '%s\n' "$pre" | sed "s|/usr/local/bin/elfthp-align|$TOOL|")" > "$U/svc.service"
    assert "the README's ExecStartPre= unit passes systemd-analyze verify" verify "$U/svc.service"
fi
# The unit's command line, as systemd would run it.
if ! fixture_line lld-pie; then
    skip "the unit's ExecStart runs and warms the files it names" "lld-pie not built"
    finish
fi
cmd=$(sed -n 's/^ExecStart=//p' "$U/elfthp-align-warm.service")
mkdir -p "$WORK/warmdir"
cp "$BUILD/$FX_FILE" "$WORK/warmdir/p1"
"$TOOL" -q "$WORK/warmdir/p1"
drop_cache "$WORK/warmdir/p1"
ELFTHP_WARM_PATHS=$WORK/warmdir
out=$(eval "${cmd//\$ELFTHP_WARM_PATHS/$ELFTHP_WARM_PATHS}" 2>&1); rc=$?
case $rc in
    0|1) pass "the unit's ExecStart runs (exit $rc, which SuccessExitStatus allows)" ;;
    *) fail "the unit's ExecStart runs" "exit $rc: $out" ;;
esac
run_tool --warm --format json "$WORK/warmdir/p1"
case $T_OUT in
    *'"huge_before":0,'*) fail "the unit's ExecStart warmed the files it names" "$T_OUT" ;;
    *'"status":"ready"'*|*'"reasons":[{"code":"no-huge'*) pass "the unit's ExecStart warmed the files it names" ;;
    *) fail "the unit's ExecStart warmed the files it names" "$T_OUT" ;;
esac
finish
