#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
# SPDX-FileCopyrightText: 2026 the elfthp-align authors
"""phdrs.py - program headers of an ELF file, read here (not with readelf,
not with the tool's code), for the integration tests.

  phdrs.py merged FILE
      elf_phdrs' 9 columns (idx type offset vaddr paddr filesz memsz flags
      align, decimal), with every split PT_LOAD (a head whose end is the
      next PT_LOAD's start, in address and offset, with the same flags,
      the second starting on 2 MiB) joined back into one.  A file that
      was not split prints what readelf prints.
  phdrs.py heads FILE
      the indexes of the split heads, one a line.
  phdrs.py vaddr-bytes ORIG NEW
      for every PT_LOAD of ORIG, its file bytes at each address
      [p_vaddr, p_vaddr + p_filesz) are the bytes NEW maps at that address
      (through NEW's own PT_LOADs); exit 1 naming the first difference.
      The ELF header and ORIG's program header table are left out: their
      fields are what a rewrite edits (readelf compares them apart).
  phdrs.py maps PID FILE
      FILE's mappings in /proc/PID/maps, "start end perms offset" in hex,
      start and end less the first mapping's start (the load base).
  phdrs.py fn-in FILE LO HI
      "ADDR NAME" of a function symbol (nm) of FILE in [LO, HI), or nothing.
  phdrs.py body-gap FILE
      exit 0 if the PT_LOAD that follows each body (a read-only PT_LOAD
      on 2 MiB in address and offset, after a head) in the file begins at
      least 2 MiB past the end of the body's last whole window; else 1
      naming it.
  phdrs.py drop-gap FILE OUT
      OUT: FILE with the p_offset of each PT_LOAD after a body's gap
      lowered by the gap's whole windows (headers only: a control).
  phdrs.py start-aligned FILE
      exit 0 if every read-only PT_LOAD holding a whole 2 MiB window
      starts on 2 MiB in both address and offset, or is a head that ends
      where a PT_LOAD that does begins; else 1 naming it.
"""
import struct
import sys

PT_LOAD, PT_PHDR = 1, 6
PF_X, PF_W, PF_R = 1, 2, 4
PMD = 2 << 20


def read_phdrs(path):
    with open(path, 'rb') as f:
        data = f.read()
    if data[:4] != b'\x7fELF':
        sys.exit('%s: not ELF' % path)
    is64 = data[4] == 2
    end = '<' if data[5] == 1 else '>'
    if is64:
        phoff, = struct.unpack_from(end + 'Q', data, 0x20)
        phent, phnum = struct.unpack_from(end + 'HH', data, 0x36)
        fmt = end + 'IIQQQQQQ'
    else:
        phoff, = struct.unpack_from(end + 'I', data, 0x1c)
        phent, phnum = struct.unpack_from(end + 'HH', data, 0x2a)
        fmt = end + 'IIIIIIII'
    out = []
    for i in range(phnum):
        v = struct.unpack_from(fmt, data, phoff + i * phent)
        if is64:
            t, fl, o, va, pa, fs, ms, al = v
        else:
            t, o, va, pa, fs, ms, fl, al = v
        out.append(dict(type=t, flags=fl, offset=o, vaddr=va, paddr=pa,
                        filesz=fs, memsz=ms, align=al))
    return data, out


def is_head(ph, i):
    if i + 1 >= len(ph):
        return False
    a, b = ph[i], ph[i + 1]
    return (a['type'] == PT_LOAD and b['type'] == PT_LOAD and
            a['flags'] == b['flags'] and a['filesz'] == a['memsz'] and
            a['vaddr'] % PMD != 0 and b['vaddr'] % PMD == 0 and
            b['offset'] % PMD == 0 and
            a['vaddr'] + a['memsz'] == b['vaddr'] and
            a['offset'] + a['filesz'] == b['offset'])


def merged(ph):
    out, i = [], 0
    while i < len(ph):
        p = dict(ph[i])
        if is_head(ph, i):
            b = ph[i + 1]
            p['filesz'] += b['filesz']
            p['memsz'] += b['memsz']
            i += 1
        out.append(p)
        i += 1
    return out


TYPES = {0: 'NULL', 1: 'LOAD', 2: 'DYNAMIC', 3: 'INTERP', 4: 'NOTE',
         6: 'PHDR', 7: 'TLS', 0x6474e550: 'GNU_EH_FRAME',
         0x6474e551: 'GNU_STACK', 0x6474e552: 'GNU_RELRO',
         0x6474e553: 'GNU_PROPERTY'}


def flag_text(fl):
    s = ('R' if fl & PF_R else '') + ('W' if fl & PF_W else '') + \
        ('E' if fl & PF_X else '')
    return s or '-'


def type_text(t):
    """The type as readelf -lW names one it does not know."""
    if t in TYPES:
        return TYPES[t]
    if 0x70000000 <= t <= 0x7fffffff:
        return 'LOPROC+0x%x' % (t - 0x70000000)
    if 0x60000000 <= t <= 0x6fffffff:
        return 'LOOS+0x%x' % (t - 0x60000000)
    return '0x%x' % t


def print_rows(ph):
    for i, p in enumerate(ph):
        print(i, type_text(p['type']), p['offset'],
              p['vaddr'], p['paddr'], p['filesz'], p['memsz'],
              flag_text(p['flags']), p['align'])


def mapped_bytes(data, ph, vaddr, n):
    """The n file bytes NEW maps at vaddr, through its PT_LOADs."""
    out = b''
    while n > 0:
        for p in ph:
            if p['type'] == PT_LOAD and p['vaddr'] <= vaddr < \
                    p['vaddr'] + p['filesz']:
                take = min(n, p['vaddr'] + p['filesz'] - vaddr)
                at = p['offset'] + vaddr - p['vaddr']
                out += data[at:at + take]
                vaddr += take
                n -= take
                break
        else:
            return None
    return out


def headers_masked(data, orig_data):
    """data with orig's ELF header and program header table zeroed."""
    is64 = orig_data[4] == 2
    end = '<' if orig_data[5] == 1 else '>'
    if is64:
        phoff, = struct.unpack_from(end + 'Q', orig_data, 0x20)
        ehsize, phent, phnum = struct.unpack_from(end + 'HHH', orig_data, 0x34)
    else:
        phoff, = struct.unpack_from(end + 'I', orig_data, 0x1c)
        ehsize, phent, phnum = struct.unpack_from(end + 'HHH', orig_data, 0x28)
    b = bytearray(data)
    b[0:ehsize] = bytes(ehsize)
    b[phoff:phoff + phent * phnum] = bytes(phent * phnum)
    return bytes(b)


def vaddr_bytes(orig, new):
    d1, p1 = read_phdrs(orig)
    d2, p2 = read_phdrs(new)
    d2 = headers_masked(d2, d1)
    d1 = headers_masked(d1, d1)
    for i, p in enumerate(p1):
        if p['type'] != PT_LOAD or p['filesz'] == 0:
            continue
        want = d1[p['offset']:p['offset'] + p['filesz']]
        got = mapped_bytes(d2, p2, p['vaddr'], p['filesz'])
        if got is None:
            print('PT_LOAD %d: 0x%x..0x%x not mapped from the file in %s' %
                  (i, p['vaddr'], p['vaddr'] + p['filesz'], new))
            return 1
        if got != want:
            k = next(j for j in range(len(want)) if want[j] != got[j])
            print('PT_LOAD %d: byte at 0x%x differs' % (i, p['vaddr'] + k))
            return 1
    return 0


def start_aligned(path):
    _, ph = read_phdrs(path)
    for i, p in enumerate(ph):
        if p['type'] != PT_LOAD or p['flags'] & PF_W:
            continue
        first = -(-p['vaddr'] // PMD) * PMD
        if first + PMD > p['vaddr'] + p['filesz']:
            continue        # no whole window
        if p['vaddr'] % PMD == 0 and p['offset'] % PMD == 0:
            continue
        if is_head(ph, i):
            continue
        print('PT_LOAD %d at 0x%x (offset 0x%x) does not start on 2 MiB' %
              (i, p['vaddr'], p['offset']))
        return 1
    return 0


def gaps(ph):
    """(body index, the PT_LOAD after it, least offset) for each body."""
    out = []
    for i, p in enumerate(ph):
        if i == 0 or not is_head(ph, i - 1):
            continue
        last = (p['vaddr'] + p['filesz']) // PMD * PMD
        least = p['offset'] + (last - p['vaddr']) + PMD
        after = [j for j, q in enumerate(ph) if q['type'] == PT_LOAD and
                 q['filesz'] > 0 and q['offset'] > p['offset']]
        if after:
            out.append((i, min(after, key=lambda j: ph[j]['offset']), least))
    return out


def body_gap(path):
    _, ph = read_phdrs(path)
    for i, j, least in gaps(ph):
        if ph[j]['offset'] < least:
            print('PT_LOAD %d at offset 0x%x follows the body PT_LOAD %d: '
                  'it must begin at 0x%x at the least' %
                  (j, ph[j]['offset'], i, least))
            return 1
    return 0


def drop_gap(path, out):
    data, ph = read_phdrs(path)
    b = bytearray(data)
    is64 = data[4] == 2
    end = '<' if data[5] == 1 else '>'
    phoff, = struct.unpack_from(end + ('Q' if is64 else 'I'), data,
                                0x20 if is64 else 0x1c)
    phent, = struct.unpack_from(end + 'H', data, 0x36 if is64 else 0x2a)
    for i, j, least in gaps(ph):
        body = ph[i]
        drop = (ph[j]['offset'] - (body['offset'] + body['filesz'])) // PMD * PMD
        for k, q in enumerate(ph):
            if q['type'] == PT_LOAD and q['offset'] >= ph[j]['offset']:
                at = phoff + k * phent + (8 if is64 else 4)
                struct.pack_into(end + ('Q' if is64 else 'I'), b, at,
                                 q['offset'] - drop)
    with open(out, 'wb') as f:
        f.write(bytes(b))


def maps(pid, path):
    import os
    real = os.path.realpath(path)
    rows = []
    with open('/proc/%s/maps' % pid) as f:
        for line in f:
            x = line.split()
            if len(x) >= 6 and x[5] == real:
                lo, hi = (int(v, 16) for v in x[0].split('-'))
                rows.append((lo, hi, x[1], x[2]))
    for lo, hi, perms, off in rows:
        print('%x %x %s %s' % (lo - rows[0][0], hi - rows[0][0], perms, off))


def fn_in(path, lo, hi):
    import subprocess
    out = subprocess.run(['nm', '--defined-only', path], capture_output=True,
                         text=True).stdout
    for line in out.splitlines():
        x = line.split()
        if len(x) == 3 and x[1] in 'Tt' and lo <= int(x[0], 16) < hi:
            print(x[0], x[2])
            return


def main():
    cmd = sys.argv[1]
    if cmd == 'maps':
        return maps(sys.argv[2], sys.argv[3])
    if cmd == 'fn-in':
        return fn_in(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]))
    if cmd == 'merged':
        print_rows(merged(read_phdrs(sys.argv[2])[1]))
    elif cmd == 'heads':
        ph = read_phdrs(sys.argv[2])[1]
        for i in range(len(ph)):
            if is_head(ph, i):
                print(i)
    elif cmd == 'vaddr-bytes':
        sys.exit(vaddr_bytes(sys.argv[2], sys.argv[3]))
    elif cmd == 'body-gap':
        sys.exit(body_gap(sys.argv[2]))
    elif cmd == 'drop-gap':
        drop_gap(sys.argv[2], sys.argv[3])
    elif cmd == 'start-aligned':
        sys.exit(start_aligned(sys.argv[2]))
    else:
        sys.exit(__doc__)


if __name__ == '__main__':
    main()
