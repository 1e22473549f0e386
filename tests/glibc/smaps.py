#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
# SPDX-FileCopyrightText: 2026 the elfthp-align authors
"""smaps.py PID NAME: what process PID maps of the file named NAME (its
last path component), from /proc/PID/smaps, as one line of words:
  hg=yes|no body=N huge=N pmd_kb=N
hg: a read-only mapping of it shows VmFlags hg (glibc madvised it); body:
the full 2 MiB windows of those mappings; huge: FilePmdMapped over all its
mappings, in windows; pmd_kb: the same in kB; windows: one letter per body
window, in address order, from /proc/PID/pagemap and /proc/kpageflags:
H one PMD-sized folio (or larger) starts at the window, s its first page is
in a smaller folio, - its first page is not present.  Exit 1 if it maps
nothing of that name (a failed measurement, never a verdict)."""
import re
import struct
import sys

PMD = 2 << 20
HEAD = re.compile(r"^([0-9a-f]+)-([0-9a-f]+) (\S+) ([0-9a-f]+) \S+ \d+\s+(.*)$")


KPF_COMPOUND_HEAD, KPF_COMPOUND_TAIL = 15, 16


def window_letters(pid, hg):
    """One letter per full window of the hg mappings (see the top)."""
    out = ""
    with open(f"/proc/{pid}/pagemap", "rb") as pm, open("/proc/kpageflags", "rb") as kf:
        def flags(addr):
            pm.seek(addr // 4096 * 8)
            e, = struct.unpack("<Q", pm.read(8))
            if not e >> 63 & 1:
                return None
            kf.seek((e & ((1 << 55) - 1)) * 8)
            return struct.unpack("<Q", kf.read(8))[0]
        for m in hg:
            w = (m["start"] + PMD - 1) // PMD * PMD
            while w + PMD <= m["end"]:
                f0, f1 = flags(w), flags(w + PMD - 4096)
                if f0 is None:
                    out += "-"
                elif f0 >> KPF_COMPOUND_HEAD & 1 and f1 is not None and f1 >> KPF_COMPOUND_TAIL & 1:
                    out += "H"
                else:
                    out += "s"
                w += PMD
    return out or "none"


def main(pid, name):
    maps, cur = [], None
    with open(f"/proc/{pid}/smaps") as f:
        for line in f:
            m = HEAD.match(line)
            if m:
                cur = {"start": int(m[1], 16), "end": int(m[2], 16),
                       "perm": m[3], "path": m[5].strip(), "pmd": 0, "flags": ""}
                maps.append(cur)
            elif cur is not None and line.startswith("FilePmdMapped:"):
                cur["pmd"] = int(line.split()[1])
            elif cur is not None and line.startswith("VmFlags:"):
                cur["flags"] = line.split(":", 1)[1].split()
    mine = [m for m in maps if m["path"].rsplit("/", 1)[-1] == name]
    if not mine:
        sys.exit(f"smaps.py: pid {pid} maps no file named {name}")
    hg = [m for m in mine if "hg" in m["flags"] and "w" not in m["perm"]]
    body = sum(max(0, m["end"] // PMD - (m["start"] + PMD - 1) // PMD)
               for m in hg)
    kb = sum(m["pmd"] for m in mine)
    print(f"hg={'yes' if hg else 'no'} body={body} huge={kb // 2048} pmd_kb={kb} "
          f"windows={window_letters(pid, hg)}")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
