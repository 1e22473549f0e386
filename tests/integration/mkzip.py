#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
# SPDX-FileCopyrightText: 2026 the elfthp-align authors
"""mkzip.py: the archives test_apk.sh checks, built with python's zipfile.

  mkzip.py OUT KIND L16 L4     write archive OUT of KIND (below), with the
                               arm64 libraries L16 (linked for 16 KiB pages)
                               and L4 (for 4 KiB pages)
  mkzip.py offsets ARCHIVE     one line per entry: NAME DATA_OFFSET, the
                               data offset worked out here from the local
                               header: header_offset + 30 + its name length
                               + its extra length (the local header's own,
                               which zipalign pads, not the central one's)

KINDs: mixed (aligned, unaligned, 4 KiB-linked, compressed, a .so outside
lib/, a manifest), fixable (mixed without the 4 KiB-linked one), clean
(every library stored and 16 KiB-aligned), aab (an app bundle), many
(100000 entries and one clean library), dup (two entries of one name),
dotdot (a library named lib/arm64-v8a/../../evil.so), nul (a NUL byte in
a library's name), huge (an entry whose sizes claim 4 GiB - 2), bomb (300
MiB of zeros, deflated to about 300 KiB), lie (a deflated library whose
sizes claim 1000 bytes), truncated (mixed, cut in
half), cdpast (mixed, its central directory offset past the end),
diskcount (mixed, its end record's entries on this disk one fewer than in
all: an end record libzip refuses as no zip).
"""
import struct
import sys
import warnings
import zipfile

PAGE = 16384


def add(z, name, data, compress=False, align=None):
    """Store or deflate data as name; with align, pad the local extra field
    so that the data starts at a multiple of align (as zipalign does)."""
    zi = zipfile.ZipInfo(name, date_time=(2024, 1, 1, 0, 0, 0))
    zi.compress_type = zipfile.ZIP_DEFLATED if compress else zipfile.ZIP_STORED
    if align:
        off = z.fp.tell() + 30 + len(name.encode())
        pad = (-off) % align
        while 0 < pad < 4:
            pad += align
        if pad:
            zi.extra = b'\xd9\xd9' + struct.pack('<H', pad - 4) + b'\0' * (pad - 4)
    z.writestr(zi, data)


def unaligned(z, name, data):
    """Stored at an offset that is not a multiple of the page."""
    off = z.fp.tell() + 30 + len(name.encode())
    if off % PAGE == 0:
        z.writestr('pad', b'x')
    add(z, name, data)


def build(out, kind, l16, l4):
    lib = 'lib/arm64-v8a/'
    with zipfile.ZipFile(out, 'w') as z:
        if kind in ('mixed', 'fixable', 'truncated', 'cdpast', 'diskcount'):
            z.writestr('AndroidManifest.xml', b'm' * 100)
            add(z, lib + 'libok.so', l16, align=PAGE)
            unaligned(z, lib + 'libunaligned.so', l16)
            if kind != 'fixable':
                add(z, lib + 'lib4k.so', l4, align=PAGE)
            add(z, lib + 'libdeflated.so', l16, compress=True)
            z.writestr('assets/lib/arm64-v8a/notelf.so', b'not ELF')
            add(z, 'lib/arm64-v8a/readme.txt', b'not a library', align=None)
        elif kind == 'clean':
            z.writestr('AndroidManifest.xml', b'm' * 100)
            add(z, lib + 'libok.so', l16, align=PAGE)
            add(z, 'lib/x86_64/libok.so', l16, align=PAGE)
        elif kind == 'aab':
            z.writestr('BundleConfig.pb', b'b')
            z.writestr('base/manifest/AndroidManifest.xml', b'm')
            unaligned(z, 'base/' + lib + 'libok.so', l16)
            add(z, 'base/' + lib + 'lib4k.so', l4, align=PAGE)
            unaligned(z, lib + 'libnotinbundle.so', l4)
        elif kind == 'many':
            for i in range(100000):
                z.writestr('res/r%d' % i, b'')
            add(z, lib + 'libok.so', l16, align=PAGE)
        elif kind == 'dup':
            add(z, lib + 'libok.so', l16, align=PAGE)
            with warnings.catch_warnings():
                warnings.simplefilter('ignore')
                add(z, lib + 'libok.so', l16, align=PAGE)
        elif kind == 'dotdot':
            add(z, lib + 'libok.so', l16, align=PAGE)
            add(z, lib + '../../evil.so', l16, align=PAGE)
        elif kind == 'lie':
            add(z, lib + 'liblie.so', l16, compress=True)
        elif kind in ('nul', 'huge'):
            add(z, lib + 'libok.so', l16, align=PAGE)
            add(z, lib + ('libXnul.so' if kind == 'nul' else 'libhuge.so'),
                l16, compress=(kind == 'huge'))
        elif kind == 'bomb':
            add(z, lib + 'libbomb.so', bytes(300 << 20), compress=True)
    data = bytearray(open(out, 'rb').read())
    if kind == 'nul':
        # zipfile cuts names at a NUL: put it in both headers afterwards.
        data = data.replace(b'libXnul.so', b'lib\0nul.so')
    elif kind in ('huge', 'lie'):
        # The uncompressed size in the local and the central header (of
        # the second entry for huge, the first for lie).
        for sig, at in ((b'PK\3\4', 22), (b'PK\1\2', 24)):
            p = data.find(sig)
            if kind == 'huge':
                p = data.find(sig, p + 1)
            data[p + at:p + at + 4] = struct.pack('<I', 0xfffffffe if
                                                  kind == 'huge' else 1000)
    elif kind == 'truncated':
        data = data[:len(data) // 2]
    elif kind == 'cdpast':
        e = data.rfind(b'PK\5\6')
        data[e + 16:e + 20] = struct.pack('<I', len(data) + 4096)
    elif kind == 'diskcount':
        e = data.rfind(b'PK\5\6')
        n = struct.unpack('<H', data[e + 8:e + 10])[0]
        data[e + 8:e + 10] = struct.pack('<H', n - 1)
    open(out, 'wb').write(data)


def offsets(path):
    raw = open(path, 'rb').read()
    with zipfile.ZipFile(path) as z:
        for zi in z.infolist():
            h = zi.header_offset
            nlen, xlen = struct.unpack('<HH', raw[h + 26:h + 30])
            print(zi.filename, h + 30 + nlen + xlen)


if __name__ == '__main__':
    if sys.argv[1] == 'offsets':
        offsets(sys.argv[2])
    else:
        build(sys.argv[1], sys.argv[2], open(sys.argv[3], 'rb').read(),
              open(sys.argv[4], 'rb').read())
