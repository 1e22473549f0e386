#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# SPDX-FileCopyrightText: 2026 the elfthp-align authors
# gen.sh OUTDIR FIXTURE - write hostile variants of ELF files for elfthp-align.
#
# FIXTURE is an ELF64 little-endian executable or shared library (the tests
# pass the lld-pie fixture, so that a rewrite really moves the text; the
# fuzzer passes a small lld hello world).  gen.sh also compiles a small
# GNU ld PIE hello world (gcc) and derives most refusal cases from it, so
# that they are cheap to run.
#
# Output, in OUTDIR:
#   base/small      the hello world, unmodified     (prints "hello, hostile world")
#   base/fixture    a copy of FIXTURE, unmodified
#   NAME            one file per case
#   cases.txt       "NAME EXPECTED" per line; EXPECTED is
#                     refuse   exit 2, file untouched, message naming it
#                     skip     not ELF, or not a program: exit 0 in every
#                              mode, one line "NAME: skipped: ...", file
#                              untouched
#                     handled  exit 0, the output valid (and runnable where
#                              the input itself runs)
#   origins.txt     "NAME BASE" per line: BASE (small or fixture) is the
#                   file in base/ the case was derived from; "-" for files
#                   that are not derived from an ELF file (empty, text)
#   refusals.txt    "NAME MODES MESSAGE" per refused case: MESSAGE is what
#                   the tool says after "elfthp-align: FILE: " (the exact
#                   problem and the header it names); MODES is "all" (every
#                   mode refuses it) or "plan" (a refusal of the rewrite's
#                   plan: --check --compat, which plans nothing, need not)
#
# Bytes are patched with python3 struct at ELF64 little-endian offsets.
# Exit status 1 if FIXTURE is not ELF64 LE or gcc/python3 are missing.
set -u

if [ $# -ne 2 ]; then
    echo "usage: $0 OUTDIR FIXTURE" >&2
    exit 1
fi
OUT=$1 FIXTURE=$2
[ -f "$FIXTURE" ] || { echo "gen.sh: $FIXTURE: no such file" >&2; exit 1; }
for t in gcc python3; do
    command -v $t >/dev/null || { echo "gen.sh: $t not installed" >&2; exit 1; }
done
mkdir -p "$OUT/base" || exit 1

src=$(mktemp -d "${TMPDIR:-/tmp}/elfthp-gen.XXXXXX") || exit 1
trap 'rm -rf "$src"' EXIT
printf '#include <stdio.h>\nint main(void) { puts("hello, hostile world"); return 0; }\n' > "$src/hello.c"
gcc -O2 -pie -fPIE -o "$OUT/base/small" "$src/hello.c" ||
    { echo "gen.sh: cannot compile the small hello world" >&2; exit 1; }
cp "$FIXTURE" "$OUT/base/fixture" && chmod 755 "$OUT/base/fixture" || exit 1

python3 - "$OUT" <<'PY'
import os, struct, sys

out = sys.argv[1]
small = bytes(open(os.path.join(out, "base/small"), "rb").read())
fixture = bytes(open(os.path.join(out, "base/fixture"), "rb").read())

# --- ELF64 little-endian layout -------------------------------------------
EH = {  # field: (offset, struct format)
    "e_type": (16, "<H"), "e_machine": (18, "<H"), "e_version": (20, "<I"),
    "e_entry": (24, "<Q"), "e_phoff": (32, "<Q"), "e_shoff": (40, "<Q"),
    "e_flags": (48, "<I"), "e_ehsize": (52, "<H"), "e_phentsize": (54, "<H"),
    "e_phnum": (56, "<H"), "e_shentsize": (58, "<H"), "e_shnum": (60, "<H"),
    "e_shstrndx": (62, "<H"),
}
PH = {"p_type": (0, "<I"), "p_flags": (4, "<I"), "p_offset": (8, "<Q"),
      "p_vaddr": (16, "<Q"), "p_paddr": (24, "<Q"), "p_filesz": (32, "<Q"),
      "p_memsz": (40, "<Q"), "p_align": (48, "<Q")}
SH = {"sh_name": (0, "<I"), "sh_type": (4, "<I"), "sh_flags": (8, "<Q"),
      "sh_addr": (16, "<Q"), "sh_offset": (24, "<Q"), "sh_size": (32, "<Q"),
      "sh_link": (40, "<I"), "sh_info": (44, "<I"), "sh_addralign": (48, "<Q"),
      "sh_entsize": (56, "<Q")}
PT_NULL, PT_LOAD, PT_NOTE = 0, 1, 4
PF_X, PF_W = 1, 2
SHT_NOBITS = 8
U64 = 1 << 64

for name, data in (("small", small), ("fixture", fixture)):
    if data[:4] != b"\x7fELF" or data[4] != 2 or data[5] != 1:
        sys.exit("gen.sh: %s is not an ELF64 little-endian file" % name)


class Elf:
    """A mutable copy of an ELF64 LE file with typed field access."""

    def __init__(self, data):
        self.b = bytearray(data)

    def get(self, off, fmt):
        return struct.unpack_from(fmt, self.b, off)[0]

    def put(self, off, fmt, val):
        struct.pack_into(fmt, self.b, off, val % (1 << (8 * struct.calcsize(fmt))))

    def eh(self, f, v=None):
        o, fmt = EH[f]
        if v is None:
            return self.get(o, fmt)
        self.put(o, fmt, v)

    def ph_off(self, i):
        return self.eh("e_phoff") + i * self.eh("e_phentsize")

    def ph(self, i, f, v=None):
        o, fmt = PH[f]
        if v is None:
            return self.get(self.ph_off(i) + o, fmt)
        self.put(self.ph_off(i) + o, fmt, v)

    def sh(self, i, f, v=None):
        o, fmt = SH[f]
        base = self.eh("e_shoff") + i * self.eh("e_shentsize")
        if v is None:
            return self.get(base + o, fmt)
        self.put(base + o, fmt, v)

    def phnum(self):
        return self.eh("e_phnum")

    def loads(self):
        return [i for i in range(self.phnum()) if self.ph(i, "p_type") == PT_LOAD]

    def text(self):
        """Index of the first executable PT_LOAD."""
        for i in self.loads():
            if self.ph(i, "p_flags") & PF_X:
                return i
        raise SystemExit("gen.sh: no executable PT_LOAD")

    def nonalloc_section(self):
        """A section outside every segment with bytes (.comment, .symtab...)."""
        for i in range(1, self.eh("e_shnum")):
            if self.sh(i, "sh_type") != SHT_NOBITS and self.sh(i, "sh_addr") == 0 \
                    and self.sh(i, "sh_size") > 0:
                return i
        raise SystemExit("gen.sh: no non-allocated section")

    def data(self):
        return bytes(self.b)


cases = []   # (name, expected, base, bytes)
refusals = []  # (name, modes, message)


def case(name, expected, base, data, msg=None, modes="all"):
    """msg: what the tool must say of a refused file, after "FILE: ".
    modes: "all", or "plan" for a refusal of the rewrite's plan, which
    --check --compat (no plan: does it load?) need not share."""
    cases.append((name, expected, base, data))
    if expected == "refuse":
        if msg is None:
            sys.exit("gen.sh: refused case %s has no message" % name)
        refusals.append((name, modes, msg))


def first_past(e, size):
    """The first program header with bytes past `size`."""
    for i in range(e.phnum()):
        o, fs = e.ph(i, "p_offset"), e.ph(i, "p_filesz")
        if fs > 0 and (fs > size or o > size - fs):
            return i
    sys.exit("gen.sh: no program header past 0x%x" % size)


def eof(i):
    return "program header %d extends past end of file" % i


def phtab(e):
    return "program header table (%d entries at 0x%x) extends past end of file" \
        % (e.phnum(), e.eh("e_phoff"))


def shoff_past(e):
    return "section header table (e_shoff 0x%x) is past end of file" % e.eh("e_shoff")


def S():
    return Elf(small)


def F():
    return Elf(fixture)


# --- not ELF at all -------------------------------------------------------
case("empty", "skip", "-", b"")
case("not-elf", "skip", "-", b"#!/bin/sh\necho this is not an ELF file\n")
case("magic-only", "refuse", "small", small[:4], "truncated ELF header (4 bytes)")

# --- ELF identification -----------------------------------------------------
e = S(); e.b[4] = 3; case("bad-class", "refuse", "small", e.data(), "unknown ELF class 3")
e = S(); e.b[4] = 0; case("class-none", "refuse", "small", e.data(), "unknown ELF class 0")
# Read as ELF32, the high half of the 64-bit e_shoff is e_shentsize.
e = S(); e.b[4] = 1
case("class-flipped-32", "refuse", "small", e.data(),
     "e_shentsize %d is wrong (expected 40)" % e.get(46, "<H"))
e = S(); e.b[5] = 3; case("bad-data", "refuse", "small", e.data(), "unknown ELF data encoding 3")
e = S(); e.b[5] = 2; case("data-flipped-msb", "skip", "small", e.data())
e = S(); e.b[6] = 0; case("bad-version", "refuse", "small", e.data(), "unknown ELF version 0")

# --- file type --------------------------------------------------------------
e = S(); e.eh("e_type", 1); case("et-rel", "skip", "small", e.data())
e = S(); e.eh("e_type", 4); case("et-core", "skip", "small", e.data())
e = S(); e.eh("e_type", 0); case("et-none", "skip", "small", e.data())
e = S(); e.eh("e_type", 0xfe00); case("et-os-specific", "skip", "small", e.data())

# --- truncation -------------------------------------------------------------
case("trunc-ident", "refuse", "small", small[:10], "truncated ELF header (10 bytes)")
case("trunc-ehdr", "refuse", "small", small[:40], "truncated ELF header (40 of 64 bytes)")
e = S()
case("trunc-phdrs", "refuse", "small", small[:e.eh("e_phoff") + 2 * 56 + 10], shoff_past(e))
# Without section headers, so that the program header checks are reached.
e.eh("e_shoff", 0); e.eh("e_shnum", 0); e.eh("e_shstrndx", 0)
case("trunc-phdrs-noshdrs", "refuse", "small", e.data()[:e.eh("e_phoff") + 2 * 56 + 10],
     phtab(e))
t = e.text(); cut = e.ph(t, "p_offset") + e.ph(t, "p_filesz") // 2
case("trunc-segment-noshdrs", "refuse", "small", e.data()[:cut], eof(first_past(e, cut)))
# The last byte of the last segment cut off: one byte past the end is past it.
last = max((e.ph(i, "p_offset") + e.ph(i, "p_filesz"), i) for i in range(e.phnum()))
case("trunc-one-byte-noshdrs", "refuse", "small", e.data()[:last[0] - 1],
     eof(first_past(e, last[0] - 1)))
e = S(); t = e.text()
case("trunc-segment", "refuse", "small",
     small[:e.ph(t, "p_offset") + e.ph(t, "p_filesz") // 2], shoff_past(e))
e = F(); t = e.text()
case("trunc-segment-fixture", "refuse", "fixture",
     fixture[:e.ph(t, "p_offset") + e.ph(t, "p_filesz") // 2], shoff_past(e))

# --- program header table ---------------------------------------------------
e = S(); e.eh("e_phoff", len(small) + 0x100)
case("phoff-past-eof", "refuse", "small", e.data(), phtab(e))
e = S(); e.eh("e_phoff", U64 - 16); case("phoff-overflow", "refuse", "small", e.data(), phtab(e))
e = S(); e.eh("e_phnum", 1000); case("phnum-too-large", "refuse", "small", e.data(), phtab(e))
e = S(); e.eh("e_phnum", 0xfffe); case("phnum-max", "refuse", "small", e.data(), phtab(e))
e = S(); e.eh("e_phnum", 0); case("phnum-zero", "refuse", "small", e.data(), "no program headers")
e = S(); e.eh("e_phoff", 0); case("phoff-zero", "refuse", "small", e.data(), "no program headers")
e = S(); e.eh("e_phentsize", 32)
case("phentsize-32", "refuse", "small", e.data(), "e_phentsize 32 is wrong (expected 56)")
e = S(); e.eh("e_phentsize", 64)
case("phentsize-64", "refuse", "small", e.data(), "e_phentsize 64 is wrong (expected 56)")
e = S(); e.eh("e_phnum", 0xffff); e.eh("e_shoff", 0); e.eh("e_shnum", 0); e.eh("e_shstrndx", 0)
case("pnxnum-no-shdrs", "refuse", "small", e.data(),
     "e_phnum is PN_XNUM but there are no section headers to hold the count")
e = S(); e.eh("e_phnum", 0xffff); e.sh(0, "sh_info", 0x7fffffff)
case("pnxnum-count-past-eof", "refuse", "small", e.data(),
     "2147483647 program headers: more than the 65535 this tool reads")
e = S(); e.eh("e_phnum", 0xffff); e.sh(0, "sh_info", 0)
case("pnxnum-count-zero", "refuse", "small", e.data(), "no program headers")

# --- segments ---------------------------------------------------------------
e = S(); t = e.text()
e.ph(t, "p_filesz", len(small)); e.ph(t, "p_memsz", len(small))
case("filesz-past-eof", "refuse", "small", e.data(), eof(t))
e = S(); t = e.text(); off = e.ph(t, "p_offset")
# p_offset + p_filesz wraps around to 0x10.
e.ph(t, "p_filesz", U64 - off + 0x10); e.ph(t, "p_memsz", U64 - off + 0x10)
case("filesz-overflow", "refuse", "small", e.data(), eof(t))
e = S(); t = e.text()
e.ph(t, "p_offset", U64 - 0x1000 + (e.ph(t, "p_vaddr") % 0x1000)); e.ph(t, "p_filesz", 0x2000)
e.ph(t, "p_memsz", 0x2000)
case("offset-overflow", "refuse", "small", e.data(), eof(t))
e = S(); w = [i for i in e.loads() if e.ph(i, "p_flags") & PF_W][0]
e.ph(w, "p_memsz", U64 - 1)
case("memsz-overflow", "refuse", "small", e.data(),
     "PT_LOAD %d: address or offset overflows the ELF class" % w)
e = S(); t = e.text(); e.ph(t, "p_memsz", e.ph(t, "p_filesz") - 16)
case("filesz-gt-memsz", "refuse", "small", e.data(),
     "PT_LOAD %d: p_filesz 0x%x exceeds p_memsz" % (t, e.ph(t, "p_filesz")))
e = S(); l0, l1 = e.loads()[:2]
grow = e.ph(l1, "p_offset") - e.ph(l0, "p_offset") + 0x100
e.ph(l0, "p_filesz", grow); e.ph(l0, "p_memsz", grow)
case("overlap-loads", "refuse", "small", e.data(),
     "PT_LOAD %d and PT_LOAD %d overlap in the file" % (l0, l1))
e = S(); t = e.text()
# A second, identical copy of the text PT_LOAD in place of the last header.
last = e.phnum() - 1
po = e.ph_off(t); e.b[e.ph_off(last):e.ph_off(last) + 56] = e.b[po:po + 56]
case("duplicate-load", "refuse", "small", e.data(),
     "PT_LOAD %d and PT_LOAD %d overlap in the file" % (t, last))
e = S(); t = e.text(); e.ph(t, "p_offset", e.ph(t, "p_offset") + 0x10)
case("load-not-congruent", "refuse", "small", e.data(),
     "PT_LOAD %d: p_offset and p_vaddr are not congruent modulo the page size (0x1000)" % t)
e = S(); t = e.text(); e.ph(t, "p_align", 0x3000)
case("align-not-pow2", "refuse", "small", e.data(),
     "PT_LOAD %d: p_align 0x3000 is not a power of two" % t)
e = S()
for i in e.loads():
    e.ph(i, "p_type", PT_NULL)
case("no-load", "refuse", "small", e.data(), "no PT_LOAD segment")
e = S(); n = [i for i in range(e.phnum()) if e.ph(i, "p_type") == PT_NOTE][0]
e.ph(n, "p_offset", len(small) + 0x1000)
case("note-past-eof", "refuse", "small", e.data(), eof(n))

# --- section headers ----------------------------------------------------------
e = S(); e.eh("e_shoff", len(small) + 64)
case("shoff-past-eof", "refuse", "small", e.data(), shoff_past(e))
e = S(); e.eh("e_shoff", U64 - 32); case("shoff-overflow", "refuse", "small", e.data(), shoff_past(e))
e = S(); e.eh("e_shnum", 0xfff0)
case("shnum-too-large", "refuse", "small", e.data(),
     "section header table (65520 entries at 0x%x) extends past end of file" % e.eh("e_shoff"))
e = S(); e.eh("e_shentsize", 40)
case("shentsize-40", "refuse", "small", e.data(), "e_shentsize 40 is wrong (expected 64)")
e = S(); s = e.nonalloc_section(); e.sh(s, "sh_offset", len(small) + 0x1000)
case("section-past-eof", "refuse", "small", e.data(), "section %d extends past end of file" % s)
# One byte past the end: the last byte of the file is the section's last.
e = S(); s = e.nonalloc_section(); e.sh(s, "sh_offset", len(small) - e.sh(s, "sh_size") + 1)
case("section-one-byte-past-eof", "refuse", "small", e.data(),
     "section %d extends past end of file" % s)
e = S(); s = e.nonalloc_section(); e.sh(s, "sh_size", U64 - 8)
case("section-size-overflow", "refuse", "small", e.data(),
     "section %d extends past end of file" % s)

# The section header table inside a PT_LOAD's file range (the read-only data
# segment grown over the gap before the RW one, the table copied there), and
# a RW PT_LOAD that must move (p_align 64 KiB, offset incongruent with it):
# new sh_offset values could only be written over segment bytes.
e = S(); r, w = [i for i in e.loads() if not e.ph(i, "p_flags") & PF_X][1:3]
gap = e.ph(w, "p_offset") - e.ph(r, "p_offset")
e.ph(r, "p_filesz", gap); e.ph(r, "p_memsz", gap)
tbl = bytes(e.b[e.eh("e_shoff"):e.eh("e_shoff") + e.eh("e_shnum") * 64])
at = e.ph(r, "p_offset") + 0x100
if at + len(tbl) > e.ph(w, "p_offset"):
    sys.exit("gen.sh: no room for the section header table in the small program")
e.b[at:at + len(tbl)] = tbl; e.eh("e_shoff", at); e.ph(w, "p_align", 0x10000)
case("shdrs-inside-segment", "refuse", "small", e.data(),
     "the section header table (at 0x%x) lies inside PT_LOAD %d" % (at, r), "plan")

# --- odd but workable: derived from FIXTURE, so that something moves --------
e = F(); e.eh("e_shstrndx", e.eh("e_shnum") + 7)
case("shstrndx-out-of-range", "handled", "fixture", e.data())
e = F(); e.eh("e_shstrndx", 0xffff); e.sh(0, "sh_link", 0x7fffffff)
case("shstrndx-xindex-bogus", "handled", "fixture", e.data())
e = F(); e.eh("e_shoff", 0); e.eh("e_shnum", 0); e.eh("e_shstrndx", 0)
case("no-shdrs", "handled", "fixture", e.data())
e = F(); n = e.phnum(); e.eh("e_phnum", 0xffff); e.sh(0, "sh_info", n)
case("pnxnum-valid", "handled", "fixture", e.data())
e = F()
for i in e.loads():
    e.ph(i, "p_align", 0)
case("align-zero", "handled", "fixture", e.data())
case("trailing-junk", "handled", "fixture", fixture + b"\xa5" * 65536)
e = S(); e.eh("e_shstrndx", e.eh("e_shnum") + 7)
case("shstrndx-out-of-range-small", "handled", "small", e.data())

with open(os.path.join(out, "cases.txt"), "w") as c, \
        open(os.path.join(out, "origins.txt"), "w") as o:
    for name, expected, base, data in cases:
        path = os.path.join(out, name)
        with open(path, "wb") as f:
            f.write(data)
        os.chmod(path, 0o755)
        c.write("%s %s\n" % (name, expected))
        o.write("%s %s\n" % (name, base))
with open(os.path.join(out, "refusals.txt"), "w") as r:
    for name, modes, msg in refusals:
        r.write("%s %s %s\n" % (name, modes, msg))
print("gen.sh: %d cases in %s" % (len(cases), out))
PY
exit $?
