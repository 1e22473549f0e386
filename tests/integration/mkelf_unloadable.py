#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
# SPDX-FileCopyrightText: 2026 the elfthp-align authors
# mkelf_unloadable.py OUT [KIND]: a small hand-made ELF64 x86_64 ET_EXEC,
# as firmware for another machine looks to the tool: one PT_LOAD whose
# p_offset (0x100) and p_vaddr (0x10000) differ modulo 4096, so Linux never
# maps it as a program, and otherwise well formed (no section headers).
#   KIND firmware  (default) that file
#   KIND past-eof  the PT_LOAD's p_filesz runs past the end of the file
#   KIND overlap   a second PT_LOAD shares file bytes with the first
# The last two are malformed: still errors, whatever the congruence.
import struct
import sys

out = sys.argv[1]
kind = sys.argv[2] if len(sys.argv) > 2 else "firmware"
off, vaddr, size = 0x100, 0x10000, 0x200
loads = [(off, vaddr, size if kind != "past-eof" else size * 16)]
if kind == "overlap":
    loads.append((off + 0x80, vaddr + 0x1080, 0x80))
ehdr = struct.pack("<16sHHIQQQIHHHHHH", b"\x7fELF\x02\x01\x01" + bytes(9),
                   2, 62, 1, vaddr, 64, 0, 0, 64, 56, len(loads), 64, 0, 0)
phdrs = b"".join(struct.pack("<IIQQQQQQ", 1, 5, o, v, v, fs, fs, 0x1000)
                 for o, v, fs in loads)
body = ehdr + phdrs
body += bytes(off - len(body)) + bytes([0xF4]) * size
with open(out, "wb") as f:
    f.write(body)
