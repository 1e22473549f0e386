#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# SPDX-FileCopyrightText: 2026 the elfthp-align authors
# test_glibc_host.sh BUILDDIR - --host's glibc.elf.thp (glibc 2.44), read
# from fake roots through ELFTHP_GLIBC_ROOT, never from this host's /etc:
#   - the tunable is there when ld.so names it; glibc 2.36 has none;
#   - off by default; on through GLIBC_TUNABLES (this environment only);
#   - /etc/tunables.conf: in force only once ld.so.cache holds it and is
#     newer (else "run ldconfig"); include lines; [proc:NAME] sections and
#     onlysecure lines are not host-wide; a nonoverridable line beats
#     GLIBC_TUNABLES, an ordinary one does not;
#   - an absolute symbolic link inside the root resolves inside it;
#   - what cannot be read (the root, a conf that is a folder) is exit 2
#     naming it; the JSON object carries the same facts;
#   - the real glibc 2.44 root of make check-glibc, where it was built.
# The fake ld.so and libc are files at the paths the tool's own loader and
# libc have (from ldd), holding the strings the tool looks for.
. "$(dirname "$0")/lib.sh"
need_builddir "$@"
need_tool

LDSO=$(ldd "$TOOL" | sed -n 's/^[[:space:]]*\(\/[^ ]*ld-linux[^ ]*\) .*/\1/p' | head -1)
LIBC=$(ldd "$TOOL" | sed -n 's/.*libc\.so\.[0-9]* => \(\/[^ ]*\) .*/\1/p' | head -1)

# fake_root DIR VERSION HAS_TUNABLE: ld.so and libc of that glibc.
fake_root() {
    mkdir -p "$1$(dirname "$LDSO")" "$1$(dirname "$LIBC")" "$1/etc"
    if [ "$3" = yes ]; then
        printf 'ld.so\0glibc.elf.thp\0glibc.malloc.arena_max\0' > "$1$LDSO"
    else
        printf 'ld.so\0glibc.malloc.arena_max\0' > "$1$LDSO"
    fi
    printf 'GNU C Library (Debian GLIBC %s-3) stable release version %s.\n\0' \
        "$2" "$2" > "$1$LIBC"
}
# ldconfig_ran ROOT: an ld.so.cache that holds the tunable, newer than the conf.
ldconfig_ran() {
    printf 'ld.so-1.7.0\0glibc.elf.thp\0001\0' > "$1/etc/ld.so.cache"
    touch -d '+1 second' "$1/etc/ld.so.cache"
}
# host_line ROOT [ENV...]: --host's glibc.elf.thp line; HOST_RC its status.
host_line() {
    local root=$1; shift
    env -u GLIBC_TUNABLES "$@" ELFTHP_GLIBC_ROOT="$root" "$TOOL" --host \
        > "$WORK/host.out" 2> "$WORK/host.err" < /dev/null
    HOST_RC=$?
    HOST_LINE=$(grep 'glibc.elf.thp' "$WORK/host.out")
}
says() {  # says WANT: the line holds WANT, and the run succeeded
    [ "$HOST_RC" -eq 0 ] || { WHY="exit $HOST_RC: $(cat "$WORK/host.err")"; return 1; }
    grep -qF -- "$1" <<< "$HOST_LINE" && return 0
    WHY="said [$HOST_LINE], not [$1]"; return 1
}

if [ -z "$LDSO" ] || [ -z "$LIBC" ]; then
    fail "ldd names the tool's ld.so and libc" "ldd: $(ldd "$TOOL" 2>&1 | tr '\n' ' ')"
    finish
fi

R=$WORK/root44
fake_root "$R" 2.44 yes
host_line "$R"
assert "2.44, nothing set: off by default" says "glibc.elf.thp is off (the default)"
assert "2.44: the version line is the root's" equals "glibc line" \
    "$(grep '^glibc 2' "$WORK/host.out" | cut -d: -f1)" "glibc 2.44"
host_line "$R" GLIBC_TUNABLES=glibc.malloc.arena_max=2:glibc.elf.thp=1
assert "GLIBC_TUNABLES=...:glibc.elf.thp=1: on, this environment only" \
    says "is on (GLIBC_TUNABLES, in this environment only)"
assert "on: the page-cache step only for running processes" says \
    "the page-cache step is needed only for processes already running"
host_line "$R" GLIBC_TUNABLES=glibc.elf.thp=2
assert "GLIBC_TUNABLES=glibc.elf.thp=2 (out of range): off" says "is off (the default)"

echo 'glibc.elf.thp=1' > "$R/etc/tunables.conf"
host_line "$R"
assert "tunables.conf, no ld.so.cache: off, run ldconfig" says "run ldconfig"
assert_not "tunables.conf, no ld.so.cache: not on" says "is on"
ldconfig_ran "$R"
host_line "$R"
assert "tunables.conf and ldconfig: on (/etc/tunables.conf)" says "is on (/etc/tunables.conf)"
assert_not "... with no ldconfig advice" says "run ldconfig"
touch -d '+5 seconds' "$R/etc/tunables.conf"
host_line "$R"
assert "tunables.conf changed after ldconfig: run ldconfig" says "run ldconfig"
ldconfig_ran "$R"; touch -d '+9 seconds' "$R/etc/ld.so.cache"
host_line "$R" GLIBC_TUNABLES=glibc.elf.thp=0
assert "GLIBC_TUNABLES=0 overrides an ordinary line" says "is off (GLIBC_TUNABLES"
echo '-glibc.elf.thp=1' > "$R/etc/tunables.conf"; touch -d '+9 seconds' "$R/etc/ld.so.cache"
host_line "$R" GLIBC_TUNABLES=glibc.elf.thp=0
assert "a nonoverridable line beats GLIBC_TUNABLES=0" says "is on (/etc/tunables.conf)"
printf '[proc:gcc]\nglibc.elf.thp=1\n@glibc.elf.thp=1\n' > "$R/etc/tunables.conf"
touch -d '+9 seconds' "$R/etc/ld.so.cache"
host_line "$R"
assert "[proc:gcc] and onlysecure lines: not host-wide, off" says "is off (the default)"
mkdir -p "$R/etc/tunables.d"
printf '# the host\ninclude tunables.d/*.conf\n' > "$R/etc/tunables.conf"
printf '  glibc.elf.thp = 1   # THP text\n' > "$R/etc/tunables.d/thp.conf"
touch -d '+9 seconds' "$R/etc/ld.so.cache"
host_line "$R"
assert "include tunables.d/*.conf, comments and blanks: on" says "is on (/etc/tunables.conf)"
# JSON: the same facts (this root, GLIBC_TUNABLES unset).
json_is() {
    local got
    got=$(python3 -c 'import json, sys
d = json.loads(open(sys.argv[1]).readline())
print(json.dumps(d.get(sys.argv[2], "<missing>")))' "$WORK/host2.json" "$1")
    [ "$got" = "$2" ] && return 0
    WHY="$1 is $got, not $2"; return 1
}
env -u GLIBC_TUNABLES ELFTHP_GLIBC_ROOT="$R" "$TOOL" --host --format json \
    > "$WORK/host2.json" 2>&1 < /dev/null
assert "JSON: glibc_elf_thp on" json_is glibc_elf_thp '"on"'
assert "JSON: glibc_elf_thp_from tunables.conf" json_is glibc_elf_thp_from '"tunables.conf"'
assert "JSON: glibc_elf_thp_in_ldso" json_is glibc_elf_thp_in_ldso true
assert "JSON: tunables_conf_thp 1" json_is tunables_conf_thp 1
assert "JSON: glibc_tunables_thp null" json_is glibc_tunables_thp null
assert "JSON: tunables_conf_cached" json_is tunables_conf_cached true
assert "JSON: glibc 2.44" json_is glibc '"2.44"'

# An absolute link in the root resolves in the root, not on this host.
rm -rf "$R/etc/tunables.d"
echo 'glibc.elf.thp=1' > "$R/etc/real-tunables.conf"
ln -sf /etc/real-tunables.conf "$R/etc/tunables.conf"
touch -d '+9 seconds' "$R/etc/ld.so.cache"
host_line "$R"
assert "an absolute link inside the root resolves inside it" says "is on (/etc/tunables.conf)"
rm -f "$R/etc/tunables.conf" && mkdir "$R/etc/tunables.conf"
host_line "$R"
assert "a tunables.conf that cannot be read: exit 2" equals "exit" "$HOST_RC" 2
assert "... naming it" grep -q "/etc/tunables.conf" "$WORK/host.err"
host_line "$WORK/no-such-root"
assert "a missing ELFTHP_GLIBC_ROOT: exit 2" equals "exit" "$HOST_RC" 2
assert "... naming it" grep -q "no-such-root (ELFTHP_GLIBC_ROOT)" "$WORK/host.err"

# glibc 2.36: no tunable, whatever is set.
R36=$WORK/root36
fake_root "$R36" 2.36 no
echo 'glibc.elf.thp=1' > "$R36/etc/tunables.conf"; ldconfig_ran "$R36"
host_line "$R36" GLIBC_TUNABLES=glibc.elf.thp=1
assert "glibc 2.36: has no glibc.elf.thp" says "glibc 2.36 has no glibc.elf.thp (2.44 and later)"
# Negative control: the same root with the tunable's name in its ld.so.
fake_root "$R36" 2.36 yes
host_line "$R36" GLIBC_TUNABLES=glibc.elf.thp=1
assert_not "... and once ld.so names it, it is there" says "has no glibc.elf.thp"

# The real root make check-glibc builds (Debian experimental's 2.44).
REAL=${GLIBC_ROOT:-$REPO_ROOT/build/glibc44/root}
if need "the real glibc 2.44 root: off, then on by GLIBC_TUNABLES" \
        "no $REAL (make check-glibc builds it)" test -e "$REAL/etc/ld.so.cache"; then
    host_line "$REAL"
    assert "the real glibc 2.44 root: the tunable is there, off" says "is off (the default)"
    host_line "$REAL" GLIBC_TUNABLES=glibc.elf.thp=1
    assert "the real glibc 2.44 root: on by GLIBC_TUNABLES" says "is on (GLIBC_TUNABLES"
fi
finish
