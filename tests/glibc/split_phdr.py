#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
# SPDX-FileCopyrightText: 2026 the elfthp-align authors
"""split_phdr.py IN OUT: the hand-made split of make check-glibc.

A prototype of the layout where text starts on a 2 MiB boundary: the
largest read-only PT_LOAD of IN (ELF64, little-endian) that is congruent
(p_offset = p_vaddr mod 2 MiB) but does not start on a boundary, and holds
a full window after it, becomes two PT_LOADs: a head up to the first
boundary and a body from it.  Only the program header table changes: the
slot comes from a PT_NOTE (the notes stay in the file, unlisted), the
table keeps its size, PT_LOADs stay in address order.  Exit 1 with a
message where no segment or no slot is found.
"""
import struct
import sys

PMD = 2 << 20
PT_LOAD, PT_NOTE = 1, 4
PF_W = 2
FMT = "<IIQQQQQQ"


def main(src, dst):
    data = bytearray(open(src, "rb").read())
    if data[:4] != b"\x7fELF" or data[4] != 2 or data[5] != 1:
        sys.exit(f"{src}: not a little-endian ELF64 file")
    phoff, = struct.unpack_from("<Q", data, 0x20)
    phentsize, phnum = struct.unpack_from("<HH", data, 0x36)
    ph = [list(struct.unpack_from(FMT, data, phoff + i * phentsize))
          for i in range(phnum)]
    best = None
    for i, (t, fl, off, va, pa, fsz, msz, al) in enumerate(ph):
        boundary = (va + PMD - 1) // PMD * PMD
        if (t != PT_LOAD or fl & PF_W or va % PMD == 0 or off % PMD != va % PMD
                or va + fsz < boundary + PMD or fsz != msz):
            continue
        if best is None or fsz > ph[best][5]:
            best = i
    if best is None:
        sys.exit(f"{src}: no congruent read-only PT_LOAD with a full window "
                 "after its first 2 MiB boundary")
    notes = [i for i, p in enumerate(ph) if p[0] == PT_NOTE]
    if not notes:
        sys.exit(f"{src}: no PT_NOTE slot for the body's program header")
    t, fl, off, va, pa, fsz, msz, al = ph[best]
    head_len = (va + PMD - 1) // PMD * PMD - va
    head = [t, fl, off, va, pa, head_len, head_len, al]
    body = [t, fl, off + head_len, va + head_len, pa + head_len,
            fsz - head_len, msz - head_len, al]
    drop = notes[-1]
    out = []
    for i, p in enumerate(ph):
        if i == drop:
            continue
        out.extend([head, body] if i == best else [p])
    for i, p in enumerate(out):
        struct.pack_into(FMT, data, phoff + i * phentsize, *p)
    open(dst, "wb").write(data)
    print(f"{dst}: split at {va + head_len:#x}: head {head_len:#x} bytes, "
          f"body {fsz - head_len:#x} bytes at offset {off + head_len:#x}")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: split_phdr.py IN OUT")
    main(sys.argv[1], sys.argv[2])
