#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
# SPDX-FileCopyrightText: 2026 the elfthp-align authors
"""gen-cost.py OUTDIR - hostile ELF files that cost a careless reader dearly.

Each file is built from scratch (an ELF header, program headers, section
headers, a few bytes of content); none of them is meant to run.  Several
are sparse: their apparent size is far larger than what is on disk.

  dyn-5g        ELF64: PT_DYNAMIC claims 5 GiB (the file is 5 GiB, sparse)
  shnum-4m      ELF64: 4,194,304 section headers (e_shnum 0, the count in
                section 0), a 256 MiB table of holes
  loads-65534   ELF64: 65534 PT_LOADs of 16 bytes each
  nobits-130000 ELF64: 130000 SHT_NOBITS sections in the bss of the last
                of 65000 PT_LOADs (a scan per section was 8.5e9 steps)
  grow-align    ELF64: an RW PT_LOAD with p_align 2^36 that its offset does
                not meet (a rewrite would pad the file by up to 64 GiB)
  grow-section  ELF64: a .comment with sh_addralign 1 GiB after the text
  elf32-wrap    ELF32 big-endian: RW p_vaddr + p_memsz passes 2^32
  shoff-odd     ELF64: a valid file whose section header table starts at
                an offset that is not a multiple of 8 (accepted)

cases.txt gets "NAME EXPECTED": refuse (exit 2 with one message) or accept
(exit 0).  refusals.txt gets "NAME MODES MESSAGE" for each refused file:
MESSAGE is what the tool says after "FILE: " (the start of it, where the
rest depends on the host's limits); MODES is "all" (every mode refuses
it) or "plan" (a refusal of the rewrite's plan, which --check --compat,
planning nothing, need not share).  messages.txt names two more that cost nothing but were once
misjudged: pinned-text (a first PT_LOAD that holds the headers and an
incongruent 4 MiB text: only a relink helps) and align-unmet-first (a
first PT_LOAD too small for a window whose p_align its offset does not
meet: nothing to change), and split-64k (planned for every geometry
but 64 KiB pages, where a section would split: --report shows that row
as unplanned and the rest as usual).  Every file with a 2 MiB window is made so that a rewrite would
change it.
"""
import os
import struct
import sys

PT_LOAD, PT_DYNAMIC = 1, 2
PF_X, PF_W, PF_R = 1, 2, 4
SHT_PROGBITS, SHT_NOBITS, SHT_STRTAB = 1, 8, 3
SHF_ALLOC, SHF_WRITE = 2, 1
MiB, GiB = 1 << 20, 1 << 30


class Elf:
    def __init__(self, cls=64, big=False):
        self.cls, self.e = cls, ">" if big else "<"
        self.phdrs, self.shdrs = [], []
        self.chunks = []            # (offset, bytes)
        self.size = 0

    def ehsize(self):
        return 64 if self.cls == 64 else 52

    def phentsize(self):
        return 56 if self.cls == 64 else 32

    def shentsize(self):
        return 64 if self.cls == 64 else 40

    def load(self, flags, off, vaddr, filesz, memsz=None, align=0x1000,
             ptype=PT_LOAD):
        self.phdrs.append((ptype, flags, off, vaddr, filesz,
                           filesz if memsz is None else memsz, align))

    def section(self, name, stype, flags, addr, off, size, align=1):
        self.shdrs.append((name, stype, flags, addr, off, size, align))

    def put(self, off, data):
        self.chunks.append((off, data))

    def phdr_bytes(self):
        out = bytearray()
        for t, f, o, v, fs, ms, a in self.phdrs:
            if self.cls == 64:
                out += struct.pack(self.e + "IIQQQQQQ", t, f, o, v, v, fs, ms, a)
            else:
                out += struct.pack(self.e + "IIIIIIII", t, o, v, v, fs, ms, f, a)
        return bytes(out)

    def shdr_bytes(self):
        out = bytearray()
        for n, t, f, a, o, s, al in self.shdrs:
            if self.cls == 64:
                out += struct.pack(self.e + "IIQQQQIIQQ", n, t, f, a, o, s, 0, 0, al, 0)
            else:
                out += struct.pack(self.e + "IIIIIIIIII", n, t, f, a, o, s, 0, 0, al, 0)
        return bytes(out)

    def write(self, path, phoff, shoff=0, shnum=None, size=None, machine=62,
              etype=3, shnum0=None):
        ident = b"\x7fELF" + bytes([2 if self.cls == 64 else 1,
                                    2 if self.e == ">" else 1, 1]) + bytes(9)
        nsh = len(self.shdrs) if shnum is None else shnum
        if nsh >= 0xff00:
            # Extended numbering: e_shnum 0, the count in section 0's sh_size.
            n, t, f, a, o, _, al = self.shdrs[0]
            self.shdrs[0] = (n, t, f, a, o, nsh, al)
            nsh = 0
        phnum = len(self.phdrs)
        if self.cls == 64:
            eh = ident + struct.pack(self.e + "HHIQQQIHHHHHH", etype, machine, 1,
                                     0, phoff, shoff, 0, 64, 56, phnum,
                                     64 if shoff else 0, nsh, 0)
        else:
            eh = ident + struct.pack(self.e + "HHIIIIIHHHHHH", etype, machine, 1,
                                     0, phoff, shoff, 0, 52, 32, phnum,
                                     40 if shoff else 0, nsh, 0)
        with open(path, "wb") as f:
            f.write(eh)
            f.seek(phoff)
            f.write(self.phdr_bytes())
            for off, data in self.chunks:
                f.seek(off)
                f.write(data)
            if shoff and self.shdrs:
                f.seek(shoff)
                f.write(self.shdr_bytes())
            if size is not None:
                f.truncate(size)


def text_file(cls=64, big=False, text=4 * MiB):
    """Headers in a first R PT_LOAD; an R E text of `text` bytes whose
    offset is 4 KiB off its address modulo 2 MiB (a rewrite pads it)."""
    e = Elf(cls, big)
    e.load(PF_R, 0, 0, 0x1000)
    e.load(PF_R | PF_X, 0x1000, 0x2000 + 0x1000 * 0, text)
    e.put(0x1000, b"\xc3" * 16)
    return e


def main(out):
    os.makedirs(out, exist_ok=True)
    cases = []
    refusals = []   # (name, modes, message): see refusals.txt above

    # PT_DYNAMIC claims 5 GiB of a sparse 5 GiB file.
    e = text_file()
    e.load(PF_R | PF_W, 0x401000, 0x402000, 5 * GiB, ptype=PT_DYNAMIC)
    e.write(os.path.join(out, "dyn-5g"), 64, size=0x401000 + 5 * GiB)
    cases.append(("dyn-5g", "accept"))

    # 4 Mi section headers: e_shnum 0, the count in section 0's sh_size.
    e = text_file()
    n = 4 << 20
    shoff = 0x401000
    e.put(shoff, struct.pack("<IIQQQQIIQQ", 0, 0, 0, 0, 0, n, 0, 0, 0, 0))
    e.write(os.path.join(out, "shnum-4m"), 64, shoff=shoff, shnum=0,
            size=shoff + n * 64)
    cases.append(("shnum-4m", "refuse"))
    refusals.append(("shnum-4m", "all", "4194304 section headers: more than "
                     "the 262144 this tool reads"))

    # 65534 PT_LOADs of 16 bytes each, 64 KiB apart in memory.
    e = Elf()
    nload = 65534
    phoff = 64
    first = phoff + nload * 56
    e.load(PF_R, 0, 0, (first + 0xfff) & ~0xfff)
    base = (first + 0xfff) & ~0xfff
    for i in range(1, nload):
        # Congruent modulo 2 MiB, so every impact rule looks at each.
        off = base + i * 16
        e.load(PF_R, off, 0x40000000 + i * 0x200000 + (off & 0x1fffff), 16)
    e.write(os.path.join(out, "loads-65534"), phoff, size=base + nload * 16 + 16)
    cases.append(("loads-65534", "accept"))

    # 130000 SHT_NOBITS sections in the bss of the last of 65000 PT_LOADs.
    e = Elf()
    nload, nsec = 65000, 130000
    phoff = 64
    base = (phoff + (nload + 1) * 56 + 0xfff) & ~0xfff
    e.load(PF_R, 0, 0, base)
    for i in range(1, nload):
        off = base + i * 16
        e.load(PF_R, off, 0x10000000 + i * 0x10000 + (off & 0xfff), 16)
    rw = base + nload * 16 + 0x1000 & ~0xfff
    e.load(PF_R | PF_W, rw, 0x80000000 + rw, 0x100, 0x1000000)
    e.section(0, 0, 0, 0, 0, 0, 0)
    for i in range(nsec):
        e.section(0, SHT_NOBITS, SHF_ALLOC | SHF_WRITE,
                  0x80000000 + rw + 0x100 + i * 16, rw + 0x100, 16, 16)
    e.write(os.path.join(out, "nobits-130000"), phoff, shoff=rw + 0x1000,
            size=rw + 0x1000 + (nsec + 1) * 64)
    cases.append(("nobits-130000", "accept"))

    # An RW PT_LOAD with p_align 2^36 its offset does not meet.
    e = text_file()
    e.load(PF_R | PF_W, 0x401100, 0x10000000000 + 0x2100, 0x100, align=1 << 36)
    e.write(os.path.join(out, "grow-align"), 64, size=0x402000)
    cases.append(("grow-align", "refuse"))
    refusals.append(("grow-align", "plan", "PT_LOAD 2: its alignment would "
                     "grow the file by 68715286528 bytes, more than the"))

    # A .comment with sh_addralign 1 GiB after the last PT_LOAD.
    e = text_file()
    e.section(0, 0, 0, 0, 0, 0, 0)
    e.section(0, SHT_PROGBITS, 0, 0, 0x401010, 16, GiB)
    e.put(0x401010, b"GCC: (hostile)\0\0")
    e.write(os.path.join(out, "grow-section"), 64, shoff=0x401040,
            size=0x401040 + 2 * 64)
    cases.append(("grow-section", "refuse"))
    refusals.append(("grow-section", "plan", "the alignment (sh_addralign) of "
                     "the sections after the last PT_LOAD would grow the file "
                     "by 1073741824 bytes, more than the"))

    # ELF32 big-endian: RW p_vaddr + p_memsz passes 2^32.
    e = text_file(cls=32, big=True)
    e.load(PF_R | PF_W, 0x401000, 0x10402000, 0x100, 0xffffffff)
    e.write(os.path.join(out, "elf32-wrap"), 52, size=0x402000, machine=20)
    cases.append(("elf32-wrap", "refuse"))
    refusals.append(("elf32-wrap", "all", "PT_LOAD 2: address or offset "
                     "overflows the ELF class"))

    # A valid file whose section header table is at an odd offset.
    e = text_file()
    e.section(0, 0, 0, 0, 0, 0, 0)
    e.section(0, SHT_PROGBITS, 0, 0, 0x401000, 3, 1)
    e.put(0x401000, b"abc")
    e.write(os.path.join(out, "shoff-odd"), 64, shoff=0x401003,
            size=0x401003 + 2 * 64)
    cases.append(("shoff-odd", "accept"))

    # Not costly, but misjudged once (messages.txt, not cases.txt):
    # the first PT_LOAD holds the headers and a 4 MiB text 4 KiB off its
    # address modulo 2 MiB, so no rewrite can align it ("pinned") ...
    e = Elf()
    e.load(PF_R | PF_X, 0, 0x1000, 4 * MiB)
    e.load(PF_R | PF_W, 4 * MiB, 0x1000 + 4 * MiB + 0x200000, 0x100)
    e.write(os.path.join(out, "pinned-text"), 64, size=4 * MiB + 0x100)
    # ... and a first PT_LOAD too small for a window whose p_align of
    # 2 MiB its offset does not meet: nothing a rewrite would change.
    e = Elf()
    e.load(PF_R, 0, 0x1000, 0x1000, align=2 * MiB)
    e.load(PF_R | PF_X, 0x1000, 0x2000, 0x1000)
    e.write(os.path.join(out, "align-unmet-first"), 64, size=0x2000)
    # ... and one that every geometry but the 64 KiB ones can plan: its RW
    # PT_LOAD is congruent modulo 4 KiB but not 64 KiB, and a section
    # spans it and the PT_LOAD before, so with 64 KiB pages the two
    # would have to move apart.
    e = Elf()
    e.load(PF_R, 0, 0, 0x3000)
    e.load(PF_R | PF_W, 0x3000, 0x25000, 0x1000)
    e.load(PF_R | PF_X, 0x4000, 0x1005000, 4 * MiB)
    e.section(0, 0, 0, 0, 0, 0, 0)
    e.section(0, SHT_PROGBITS, SHF_ALLOC, 0x2800, 0x2800, 0x1000, 16)
    e.write(os.path.join(out, "split-64k"), 64, shoff=0x404000,
            size=0x404000 + 2 * 64)
    with open(os.path.join(out, "messages.txt"), "w") as f:
        f.write("pinned-text\nalign-unmet-first\nsplit-64k\n")

    with open(os.path.join(out, "cases.txt"), "w") as f:
        for name, want in cases:
            f.write("%s %s\n" % (name, want))
    with open(os.path.join(out, "refusals.txt"), "w") as f:
        for name, modes, msg in refusals:
            f.write("%s %s %s\n" % (name, modes, msg))


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: gen-cost.py OUTDIR")
    main(sys.argv[1])
