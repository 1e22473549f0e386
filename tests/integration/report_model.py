# SPDX-License-Identifier: BSD-2-Clause
# SPDX-FileCopyrightText: 2026 the elfthp-align authors
# report_model.py - the independent model of elfthp-align --report and
# --pid used by test_report.sh (see its header for what it models and why).
# Fed only with readelf output and /proc, never with the tool's own numbers.
# Usage: python3 report_model.py CMD ARGS...  (CMD: json text multi plan pid
# base); it prints PASS/FAIL/SKIP/INFO lines, tab-separated, for model().
import json
import math, os, platform, re, subprocess, sys

KiB, MiB = 1 << 10, 1 << 20
PMD_CAP = 32 * MiB
# Geometries of every report (docs/geometry.md, 'The geometries').
GEOMETRIES = [
    ("x86_64-4k", 4 * KiB, 2 * MiB, 0),
    ("arm64-4k", 4 * KiB, 2 * MiB, 64 * KiB),
    ("arm64-16k", 16 * KiB, 32 * MiB, 2 * MiB),
    ("arm64-64k", 64 * KiB, 512 * MiB, 2 * MiB),
]
# readelf's Machine -> (name, largest page its linkers plan for) (man page).
MACHINES = {
    "Advanced Micro Devices X86-64": ("x86_64", 4 * KiB),
    "AArch64": ("aarch64", 64 * KiB),
}
PF_X, PF_W, PF_R = 1, 2, 4

# docs/json.md (JSON OUTPUT, schema 1).  TOP_CMP: what the model predicts.
TOP_KEYS = ["schema", "mode", "file", "status", "machine", "type", "geometry",
            "pmd_bytes", "alignment_bytes", "base_aligned_now",
            "base_aligned_after", "segments", "geometries"]
TOP_CMP = ["schema", "mode", "file", "status", "machine", "type", "geometry",
           "pmd_bytes", "alignment_bytes", "base_aligned_now",
           "base_aligned_after"]
SEG_KEYS = ["index", "flags", "offset", "vaddr", "filesz_bytes",
            "align_bytes", "verdict", "windows_now", "windows_after",
            "kernel_patch_aligns", "glibc_elf_thp", "has_ld_so", "bionic"]
GEO_KEYS = ["name", "page_bytes", "pmd_bytes", "cont_bytes", "measured",
            "translations_now", "translations_after", "huge_bytes_now",
            "huge_bytes_after", "rss_increase_max_bytes", "aslr_bits_lost",
            "growth_bytes"]
# The row of this host's own geometry is measured from the page cache
# (test_nextrun.sh checks its now and after against real runs); of it the
# model predicts what the page cache cannot change.
GEO_CACHE_FREE = ["name", "page_bytes", "pmd_bytes", "cont_bytes",
                  "aslr_bits_lost", "growth_bytes"]
HOST_GEOMETRY = {"x86_64": "x86_64-4k", "aarch64": "arm64-4k"}.get(
    os.uname().machine)


def measured_row(machine, name):
    """Is this the host's own geometry, for a file of the host's machine?"""
    return HOST_GEOMETRY is not None and name == HOST_GEOMETRY and \
        HOST_GEOMETRY.startswith({"x86_64": "x86_64", "aarch64": "arm64"}
                                 .get(machine, "?"))
PID_KEYS = ["schema", "mode", "file", "path_here", "status", "reason", "pids", "commands",
            "dev", "inode", "windows_known", "windows", "windows_placed",
            "windows_resident", "windows_huge", "huge_bytes", "missed_bytes",
            "pmd_mapped_bytes", "resident_bytes", "rss_increase_if_huge_bytes",
            "fs_type", "message", "fix", "command", "page_cache_unknown"]


def readelf(args, path):
    env = dict(os.environ, LC_ALL="C")
    return subprocess.run(["readelf"] + args + [path], capture_output=True,
                          text=True, env=env).stdout


class Layout:
    pass


def read_layout(path):
    L = Layout()
    h = readelf(["-hW"], path)

    def field(name):
        m = re.search(r"^\s*" + re.escape(name) + r":\s*(.*)$", h, re.M)
        if not m:
            raise ValueError("readelf -h: no '%s' in %s" % (name, path))
        return m.group(1).strip()

    L.elf64 = field("Class") == "ELF64"
    L.etype = field("Type").split()[0]          # EXEC or DYN
    mach = field("Machine")
    if mach not in MACHINES:
        raise ValueError("machine %r not modelled" % mach)
    L.machine, L.max_page = MACHINES[mach]
    L.ehsize = int(field("Size of this header").split()[0])
    L.phoff = int(field("Start of program headers").split()[0])
    L.phentsize = int(field("Size of program headers").split()[0])
    L.phnum = int(field("Number of program headers").split()[0])
    L.size = os.path.getsize(path)

    L.phdrs = []
    inph = False
    for line in readelf(["-lW"], path).splitlines():
        if line.startswith("Program Headers:"):
            inph = True
            continue
        if not inph:
            continue
        if not line.strip():
            if L.phdrs:
                break
            continue
        m = re.match(r"^\s+(\S+)\s+(0x[0-9a-f]+)\s+(0x[0-9a-f]+)\s+"
                     r"(0x[0-9a-f]+)\s+(0x[0-9a-f]+)\s+(0x[0-9a-f]+)\s"
                     r"([RWE ]+?)\s+(0x[0-9a-f]+|\d+)$", line)
        if not m:
            continue                            # column titles, interpreter
        fl = m.group(7)
        L.phdrs.append(dict(
            index=len(L.phdrs), type=m.group(1), offset=int(m.group(2), 16),
            vaddr=int(m.group(3), 16), filesz=int(m.group(5), 16),
            memsz=int(m.group(6), 16), align=int(m.group(8), 0),
            flags=(PF_X if "E" in fl else 0) | (PF_W if "W" in fl else 0) |
                  (PF_R if "R" in fl else 0),
            rflags=("R" if "R" in fl else " ") + ("W" if "W" in fl else " ") +
                   ("E" if "E" in fl else " ")))
    if len(L.phdrs) != L.phnum:
        raise ValueError("parsed %d program headers, e_phnum %d"
                         % (len(L.phdrs), L.phnum))
    L.has_interp = any(p["type"] == "INTERP" for p in L.phdrs)

    L.secs = []
    for line in readelf(["-SW"], path).splitlines():
        m = re.match(r"^\s*\[\s*(\d+)\]\s(.*)$", line)
        if not m:
            continue
        t = m.group(2).split()
        if int(m.group(1)) > 0 or t[0] != "NULL":
            t = t[1:]                           # drop the name
        L.secs.append(dict(type=t[0], offset=int(t[2], 16),
                           size=int(t[3], 16), addralign=int(t[-1])))
    dyn = readelf(["-dW"], path)
    L.flags1_pie = bool(re.search(r"\(FLAGS_1\).*\bPIE\b", dyn))
    L.has_soname = "(SONAME)" in dyn
    return L


def takers(L, k, p, pmd):
    """Who takes the PT_LOAD at load time (docs/rewrite.md): glibc 2.44's
    glibc.elf.thp (read-only, page-rounded p_vaddr and p_offset multiples
    of the PMD, a PMD of it; only where an ld.so runs), bionic (PF_X,
    p_align exactly 2 MiB)."""
    page = 4096
    ld_so = k != "static-pie" and not (k == "executable" and
                                       not L.has_interp)
    start = p["vaddr"] // page * page
    off = p["offset"] // page * page
    end = -(-(p["vaddr"] + p["filesz"]) // page) * page
    glibc = (ld_so and not p["flags"] & PF_W and bool(p["flags"] & PF_R) and
             end - start >= pmd and start % pmd == 0 and off % pmd == 0)
    return dict(glibc_elf_thp=glibc, has_ld_so=ld_so,
                bionic=bool(p["flags"] & PF_X) and p["align"] == 0x200000)


def kind(L):
    if L.etype == "EXEC":
        return "executable"
    if L.flags1_pie:
        return "pie" if L.has_interp else "static-pie"
    # A runnable DSO (libc.so.6) has PT_INTERP and a SONAME; an old PIE
    # (before DF_1_PIE) has PT_INTERP only.
    return "pie" if L.has_interp and not L.has_soname else "shared-library"


def pow2(x):
    return x > 0 and x & (x - 1) == 0


def windows(vaddr, filesz, b):
    # Full b-aligned ranges inside [vaddr, vaddr + filesz)
    # (docs/geometry.md, 'Windows').
    if b == 0 or filesz == 0:
        return 0
    return max(0, (vaddr + filesz) // b - -(-vaddr // b))


def congruent(off, vaddr, m):
    return (off - vaddr) % m == 0


def loads(L):
    return [p for p in L.phdrs if p["type"] == "LOAD"]


def fallback_of(geo):
    """arm64 16 KiB: segments without a 32 MiB window get 2 MiB blocks."""
    name, page, pmd, cont = geo
    return cont if pmd <= PMD_CAP and cont >= 2 * MiB else 0


def plan(L, target, min_page, min_align=0, fallback=0):
    """Predict a rewrite: {index: (new_offset, new_align, eligible,
    alignment chosen)}, new file size."""
    order = sorted(loads(L), key=lambda p: (p["offset"], p["index"]))
    # What cannot move: the ELF header, and the program header table where
    # it comes before the second PT_LOAD with bytes; after that (BOLT) the
    # table moves with its segment.
    with_bytes = [p["offset"] for p in order if p["filesz"] > 0]
    hdr_end = L.ehsize
    if len(with_bytes) < 2 or L.phoff < with_bytes[1]:
        hdr_end = max(hdr_end, L.phoff + L.phnum * L.phentsize)
    elig, tgt, verd = {}, {}, {}

    def verdict(p, pinned, t):
        if p["flags"] & PF_W:
            return "writable"
        if windows(p["vaddr"], p["filesz"], t) == 0:
            return "no-window"
        if pinned and not congruent(p["offset"], p["vaddr"],
                                    max(t, p["align"] or 1)):
            return "headers-pinned"
        return "eligible"

    for k, p in enumerate(order):
        pinned = k == 0 or p["offset"] < hdr_end
        t = target
        v = verdict(p, pinned, t)
        if v == "no-window" and fallback:
            t = fallback
            v = verdict(p, pinned, t)
        elig[p["index"]], tgt[p["index"]] = v == "eligible", t
        verd[p["index"]] = v

    def modulus(p):
        m = max(p["align"] if p["align"] > 1 else 1, min_page)
        return max(m, tgt[p["index"]]) if elig[p["index"]] else m

    new_off, blocks, delta = {}, [(0, 0)], 0
    for k, p in enumerate(order):
        if p["filesz"] == 0:
            continue
        nxt = p["offset"]
        if k > 0 and p["offset"] >= hdr_end:
            here = p["offset"] + delta
            nxt = here + (p["vaddr"] - here) % modulus(p)
        delta = nxt - p["offset"]
        new_off[p["index"]] = nxt
        blocks.append((p["offset"], delta))
    for p in order:                             # PT_LOADs without file bytes
        if p["filesz"] == 0:
            d = [dl for (s, dl) in blocks if s <= p["offset"]][-1]
            o = p["offset"] + d
            new_off[p["index"]] = o + (p["vaddr"] - o) % modulus(p)
    # Sections after the last segment keep their alignment.
    tail = max([p["offset"] + p["filesz"] for p in order if p["filesz"]] + [0])
    al = 8 if L.elf64 else 4
    for c in L.secs:
        if (c["type"] != "NOBITS" and c["offset"] >= tail and
                pow2(c["addralign"]) and c["addralign"] <= 1 << 30):
            al = max(al, c["addralign"])
    if tail < L.size and delta % al:
        delta += al - delta % al
    res = {}
    for p in order:
        a = p["align"]
        if min_align > 1:
            a = max(a, min_align)
        # ET_EXEC loads where linked: p_align places nothing there, so a
        # segment congruent as linked keeps its own (man page).
        if elig[p["index"]] and not (
                L.etype == "EXEC" and
                congruent(p["offset"], p["vaddr"], tgt[p["index"]])):
            a = max(a, tgt[p["index"]])
        res[p["index"]] = (new_off[p["index"]], a, elig[p["index"]],
                           tgt[p["index"]], verd[p["index"]])
    return res, L.size + delta


def plan2(L, target, floor, page, min_align=0, fallback=0):
    """The tool's two passes: the machine's largest page (floor) applies
    only to files rewritten anyway; the geometry's own page always does;
    an explicit --page-size (min_align) always applies the floor."""
    if min_align:
        return plan(L, target, floor, min_align, fallback)
    res, size = plan(L, target, max(page, 4 * KiB), 0, fallback)
    changed = size != L.size or any(
        res[p["index"]][0] != p["offset"] or res[p["index"]][1] != p["align"]
        for p in loads(L))
    if not changed:
        return res, size
    return plan(L, target, floor, 0, fallback)


def state(L, P=None):
    out = []
    for p in loads(L):
        q = dict(p)
        if P is not None:
            q["offset"], q["align"] = P[p["index"]][0], P[p["index"]][1]
        out.append(q)
    return out


def measure(S, etype, geo):
    """(translations, huge bytes, windows) of one state for one geometry."""
    name, page, pmd, cont = geo
    maxal = max([q["align"] for q in S if pow2(q["align"])] + [0])

    def usable(q, b):
        return (b > 0 and not q["flags"] & PF_W and
                congruent(q["offset"], q["vaddr"], b) and
                (etype != "DYN" or maxal >= b))

    pmd_counts = pmd <= PMD_CAP
    trans = huge = wins = 0
    for q in S:
        w = windows(q["vaddr"], q["filesz"], pmd) \
            if pmd_counts and usable(q, pmd) else 0
        if q["flags"] & PF_X:
            start = q["vaddr"] // page * page
            end = -(-(q["vaddr"] + q["memsz"]) // page) * page
            c = 0
            if cont and usable(q, cont):
                c = windows(q["vaddr"], q["filesz"], cont) - w * (pmd // cont)
            trans += w + c + (end - start - w * pmd - c * cont) // page
        wins += w
        huge += w * pmd
    return trans, huge, wins


def own_geometry(L, page_size):
    page = page_size or 4 * KiB
    if L.machine == "aarch64":
        return [g for g in GEOMETRIES[1:] if g[1] == page][0]
    return GEOMETRIES[0]


def target_of(geo):
    return geo[2] if geo[2] <= PMD_CAP else geo[3]


def fs_places_by_offset(path):
    """Whether the kernel gives this file's mappings of a PMD or more an
    address congruent to their offset: from the file system's type, as
    docs/loading.md lists them (the tool measures it with mmap instead)."""
    fs = subprocess.run(["stat", "-f", "-c", "%T", path], capture_output=True,
                        text=True).stdout.strip()
    if fs in ("ext2/ext3", "xfs", "btrfs"):
        return True
    if fs == "tmpfs":
        opts = subprocess.run(["findmnt", "-n", "-o", "OPTIONS", "-T", path],
                              capture_output=True, text=True).stdout
        return any(o.startswith("huge=") and o not in ("huge=never",)
                   for o in opts.strip().split(","))
    return False


def placed_base(L, path, target, page_size):
    """A shared library of this host whose base its file system aligns."""
    if (kind(L) != "shared-library" or L.machine != "x86_64" or page_size
            or platform.machine() != "x86_64" or target != 2 * MiB):
        return False
    ls = sorted(loads(L), key=lambda p: p["vaddr"])
    span = max(p["vaddr"] + p["memsz"] for p in ls) - ls[0]["vaddr"]
    return (span >= target and congruent(ls[0]["offset"], ls[0]["vaddr"],
                                         target) and fs_places_by_offset(path))


def expected(path, name, page_size=0):
    L = read_layout(path)
    own = own_geometry(L, page_size)
    target = target_of(own)
    P, _ = plan2(L, target, max(L.max_page, page_size or 4 * KiB),
                 page_size or 4 * KiB, page_size, fallback_of(own))
    dyn = L.etype == "DYN"
    maxal = max([p["align"] for p in loads(L) if pow2(p["align"])] + [0])
    placed = placed_base(L, path, target, page_size)
    base_now = not dyn or maxal >= target or placed
    base_after = not dyn or max(P[i][1] for i in P) >= target
    k = kind(L)
    segs = []
    for p in loads(L):
        ro = not p["flags"] & PF_W
        w = windows(p["vaddr"], p["filesz"], target)
        pmd = own[2]
        segs.append(dict(
            index=p["index"], flags=p["rflags"].replace(" ", ""),
            rflags=p["rflags"], offset=p["offset"],
            vaddr=p["vaddr"], filesz_bytes=p["filesz"], align_bytes=p["align"],
            verdict=P[p["index"]][4], eligible=P[p["index"]][2],
            windows_now=w if ro and base_now and
            congruent(p["offset"], p["vaddr"], target) else 0,
            windows_after=w if P[p["index"]][2] else 0,
            kernel_patch_aligns=(k != "shared-library" and ro and
                                 pmd <= PMD_CAP and p["vaddr"] % pmd == 0 and
                                 p["offset"] % pmd == 0 and
                                 p["filesz"] >= pmd and p["align"] < pmd),
            **takers(L, k, p, pmd)))
    geos = []
    for g in GEOMETRIES:
        gname, page, pmd, cont = g
        t = target_of(g)
        PG, size = plan2(L, t, max(L.max_page, page), page, 0, fallback_of(g))
        tn, hn, _ = measure(state(L), L.etype, g)
        ta, ha, wa = measure(state(L, PG), L.etype, g)
        # The man page: bits the rewrite costs, log2(alignment after /
        # alignment before) for ET_DYN, alignment being the largest
        # power-of-two p_align and at least the page; 0 for ET_EXEC.
        amax = max(PG[i][1] for i in PG if pow2(PG[i][1]))
        before = max([p["align"] for p in loads(L) if pow2(p["align"])] +
                     [page])
        if placed and g == own:     # the host's row: aligned already
            before = max(before, pmd)
        aslr = int(math.log2(amax // before)) if dyn and amax > before else 0
        geos.append(dict(
            name=gname, page_bytes=page, pmd_bytes=pmd, cont_bytes=cont,
            translations_now=tn, translations_after=ta, huge_bytes_now=hn,
            huge_bytes_after=ha, rss_increase_max_bytes=wa * (pmd - page),
            aslr_bits_lost=aslr, growth_bytes=size - L.size))
    return dict(schema=1, mode="report", status="reported", file=name,
                machine=L.machine, type=k, geometry=own[0], pmd_bytes=own[2],
                alignment_bytes=target, base_aligned_now=base_now,
                base_aligned_after=base_after, segments=segs, geometries=geos)


def out(status, desc, why=""):
    print("%s\t%s\t%s" % (status, desc, why.replace("\t", " ").replace("\n", " ")))


def diff_obj(exp, got, keys):
    bad = []
    for k in keys:
        if k not in got:
            bad.append("%s missing (expected %r)" % (k, exp[k]))
        elif got[k] != exp[k] or type(got[k]) != type(exp[k]):
            bad.append("%s expected %r got %r" % (k, exp[k], got[k]))
    return "; ".join(bad)


def check_keys(obj, keys, what):
    if not isinstance(obj, dict):
        return "%s is not an object" % what
    if sorted(obj) != sorted(keys):
        return "%s keys %s, expected exactly %s" % (what, sorted(obj), sorted(keys))
    return ""


def cmd_json(label, path, name, tool_out, page_size=0):
    """Compare the tool's JSON line for one file with the model."""
    exp = expected(path, name, int(page_size))
    lines = [l for l in open(tool_out).read().split("\n") if l]
    if len(lines) != 1:
        out("FAIL", label + ": one JSON line", "got %d lines" % len(lines))
        return
    try:
        got = json.loads(lines[0])
    except ValueError as e:
        out("FAIL", label + ": output is valid JSON", str(e))
        return
    host_file = measured_row(got.get("machine") if isinstance(got, dict)
                             else None, HOST_GEOMETRY)
    bad = check_keys(got, TOP_KEYS + (["page_cache"] if host_file else []),
                     "object")
    for s in got.get("segments", []) if isinstance(got, dict) else []:
        bad = bad or check_keys(s, SEG_KEYS, "segment")
    for g in got.get("geometries", []) if isinstance(got, dict) else []:
        bad = bad or check_keys(g, GEO_KEYS, "geometry")
    out("FAIL" if bad else "PASS", label + ": valid JSON, exact key sets", bad)
    if not isinstance(got, dict):
        return
    out_bad = diff_obj(exp, got, TOP_CMP)
    out("FAIL" if out_bad else "PASS",
        label + ": file machine type geometry pmd base_aligned_now/after", out_bad)
    gs = got.get("segments") or []
    if [s.get("index") for s in gs] != [s["index"] for s in exp["segments"]]:
        out("FAIL", label + ": one segment entry per PT_LOAD",
            "indices %r, expected %r" % ([s.get("index") for s in gs],
                                         [s["index"] for s in exp["segments"]]))
    else:
        for e, g in zip(exp["segments"], gs):
            b = diff_obj(e, g, SEG_KEYS)
            out("FAIL" if b else "PASS", "%s: PT_LOAD %d" % (label, e["index"]), b)
    gg = got.get("geometries") or []
    if [g.get("name") for g in gg] != [g["name"] for g in exp["geometries"]]:
        out("FAIL", label + ": the four geometries in order",
            "got %r" % [g.get("name") for g in gg])
    else:
        for e, g in zip(exp["geometries"], gg):
            meas = measured_row(exp["machine"], e["name"])
            b = diff_obj(e, g, GEO_CACHE_FREE if meas else
                         [k for k in GEO_KEYS if k != "measured"])
            if g.get("measured") is not meas:
                b = (b + "; " if b else "") + "measured %r, expected %r" % (
                    g.get("measured"), meas)
            out("FAIL" if b else "PASS", "%s: geometry %s%s" % (
                label, e["name"], " (measured: page-cache-free keys)"
                if meas else ""), b)


def cmd_multi(label, tool_out, *names):
    """Several files: one valid JSON object per line, in argument order."""
    lines = [l for l in open(tool_out).read().split("\n") if l]
    bad = ""
    if len(lines) != len(names):
        bad = "%d lines for %d files" % (len(lines), len(names))
    for l, n in zip(lines, names):
        try:
            o = json.loads(l)
        except ValueError as e:
            bad = bad or "invalid JSON: %s" % e
            continue
        bad = bad or check_keys(o, TOP_KEYS + (["page_cache"] if "page_cache"
                                               in o else []), "object")
        if not bad and o["file"] != n:
            bad = "file %r, expected %r" % (o["file"], n)
    out("FAIL" if bad else "PASS", label, bad)


UNITS = {"B": 1, "KiB": KiB, "MiB": MiB, "GiB": 1 << 30, "TiB": 1 << 40}


def approx(text, exact):
    """A humanized size ('8.0MiB', '4096B') is the exact value, rounded."""
    m = re.match(r"^([0-9.]+)([KMGT]iB|B)$", text)
    if not m:
        return False
    v = float(m.group(1)) * UNITS[m.group(2)]
    return abs(v - exact) <= max(exact * 0.05, 1)


SEG_ROW = re.compile(r"^  (\d+)\s+([R ][W ][E ]) (0x[0-9a-f]+) (0x[0-9a-f]+)\s+"
                     r"(\S+) (0x[0-9a-f]+) (yes|no)\s+(\d+)\s+(\d+)  (aligns|-)"
                     r"\s+(takes|static|-)\s+(takes|-)$")


def cmd_text(label, path, name, tool_out, page_size=0):
    """The text report of one file (a block of a longer output)."""
    exp = expected(path, name, int(page_size))
    text = open(tool_out).read().split("\n")
    starts = [i for i, l in enumerate(text) if l.startswith(name + ": ")]
    if len(starts) != 1:
        out("FAIL", label + ": one header line for the file",
            "%d lines start with %r" % (len(starts), name + ": "))
        return
    i = starts[0]
    block = []
    for l in text[i + 1:]:
        if not l.startswith("  "):
            break
        block.append(l)
    yn = lambda b: "yes" if b else "no"
    head = "%s: %s %s, %s; load base PMD-aligned: now %s, after %s" % (
        name, exp["machine"], exp["type"], exp["geometry"],
        yn(exp["base_aligned_now"]), yn(exp["base_aligned_after"]))
    # A file of this host's machine: "; page cache: N of M windows huge now".
    out("PASS" if text[i] == head or text[i].startswith(head + "; page cache: ")
        else "FAIL", label + ": text header line",
        "got %r, expected %r" % (text[i], head))
    ok = len(block) >= 2 and block[0].split()[:3] == ["PH", "FLG", "OFFSET"]
    g0 = [j for j, l in enumerate(block) if l.split()[:1] == ["GEOMETRY"]]
    if not ok or len(g0) != 1:
        out("FAIL", label + ": text has a segment and a geometry table",
            "block %r" % block[:3])
        return
    srows, grows = block[1:g0[0]], block[g0[0] + 1:]
    bad = []
    if len(srows) != len(exp["segments"]):
        bad.append("%d segment rows for %d PT_LOADs" % (len(srows),
                                                       len(exp["segments"])))
    for row, e in zip(srows, exp["segments"]):
        m = SEG_ROW.match(row)
        if not m:
            bad.append("row %r does not parse" % row)
            continue
        got = (int(m.group(1)), m.group(2), int(m.group(3), 16),
               int(m.group(4), 16), int(m.group(6), 16), m.group(7) == "yes",
               int(m.group(8)), int(m.group(9)), m.group(10) == "aligns",
               m.group(11), m.group(12) == "takes")
        glibc = ("static" if not e["has_ld_so"] else
                 "takes" if e["glibc_elf_thp"] else "-")
        want = (e["index"], e["rflags"], e["offset"], e["vaddr"],
                e["align_bytes"], e["eligible"], e["windows_now"],
                e["windows_after"], e["kernel_patch_aligns"], glibc,
                e["bionic"])
        if got != want or not approx(m.group(5), e["filesz_bytes"]):
            bad.append("row %r, expected %r filesz %d" % (
                row, want, e["filesz_bytes"]))
    out("FAIL" if bad else "PASS", label + ": text: one row per PT_LOAD",
        "; ".join(bad))
    bad = []
    if len(grows) != len(exp["geometries"]):
        bad.append("%d geometry rows, expected %d" % (len(grows),
                                                      len(exp["geometries"])))
    for row, e in zip(grows, exp["geometries"]):
        f = row.split()
        if len(f) != 12:
            bad.append("row %r has %d columns" % (row, len(f)))
            continue
        meas = measured_row(exp["machine"], e["name"])
        if f[1] != ("measured" if meas else "model"):
            bad.append("row %r: basis %r" % (row, f[1]))
        del f[1]
        ints = (f[0], int(f[4]), int(f[5]), int(f[9]), int(f[10]))
        want = (e["name"], e["translations_now"], e["translations_after"],
                e["aslr_bits_lost"], e["growth_bytes"])
        sizes = [(f[1], e["page_bytes"]), (f[2], e["pmd_bytes"]),
                 (f[6], e["huge_bytes_now"]), (f[7], e["huge_bytes_after"]),
                 (f[8], e["rss_increase_max_bytes"])]
        if meas:
            ints, want = (ints[0],) + ints[3:], (want[0],) + want[3:]
            sizes = sizes[:2]
        okc = (f[3] == "-") if e["cont_bytes"] == 0 else approx(f[3], e["cont_bytes"])
        if ints != want or not okc or not all(approx(a, b) for a, b in sizes):
            bad.append("row %r, expected %r sizes %r cont %d" % (
                row, want, [b for _, b in sizes], e["cont_bytes"]))
    out("FAIL" if bad else "PASS", label + ": text: one row per geometry",
        "; ".join(bad))


def cmd_plan(path):
    """The x86_64-4k plan: 'index offset align' per PT_LOAD, then 'size N'."""
    L = read_layout(path)
    P, size = plan(L, 2 * MiB, L.max_page)
    for i in sorted(P):
        print(i, P[i][0], P[i][1])
    print("size", size)


def smaps(pid, inode):
    """Mappings of a file (by inode) in /proc/PID/smaps, as the test sees them."""
    maps, cur = [], None
    for line in open("/proc/%s/smaps" % pid):
        m = re.match(r"^([0-9a-f]+)-([0-9a-f]+) (\S+) ([0-9a-f]+) (\S+) (\d+)\s*(.*)$", line)
        if m:
            cur = None
            if int(m.group(6)) == inode and m.group(7).startswith("/"):
                cur = dict(start=int(m.group(1), 16), end=int(m.group(2), 16),
                           perms=m.group(3), offset=int(m.group(4), 16),
                           dev=m.group(5), pmd=0, rss=0)
                maps.append(cur)
            continue
        if cur is None:
            continue
        f = line.split()
        if f and f[0] in ("FilePmdMapped:", "ShmemPmdMapped:"):
            cur["pmd"] += int(f[1]) * 1024
        elif f and f[0] == "Rss:":
            cur["rss"] += int(f[1]) * 1024
    return maps


def elf_files(pid):
    """dev:inode of every file mapped executable whose on-disk bytes start
    with ELF magic."""
    seen = set()
    for line in open("/proc/%s/maps" % pid):
        f = line.split(None, 5)
        if len(f) < 6 or int(f[4]) == 0 or not f[5].startswith("/") or \
                "x" not in f[1]:
            continue
        try:
            with open(f[5].strip(), "rb") as fh:
                if fh.read(4) == b"\x7fELF":
                    seen.add("%s:%s" % (f[3], f[4]))
        except OSError:
            pass
    return seen


def pid_windows(pid, path, maps, pmdsz):
    """The file's windows (read-only PT_LOADs, from its headers, as --report
    counts them), those at PMD-aligned addresses and offsets in the
    process, those with a page present (pagemap), and the Rss they would
    add if huge."""
    L = read_layout(path)
    page = os.sysconf("SC_PAGE_SIZE")
    w = placed = wres = extra = 0
    with open("/proc/%s/pagemap" % pid, "rb") as pm:
        for s in loads(L):
            if s["flags"] & PF_W:
                continue
            w += windows(s["vaddr"], s["filesz"], pmdsz)
            va = -(-s["vaddr"] // pmdsz) * pmdsz
            while va + pmdsz <= s["vaddr"] + s["filesz"]:
                off = s["offset"] + va - s["vaddr"]
                va += pmdsz
                m = [m for m in maps if "w" not in m["perms"] and
                     m["offset"] <= off and
                     off + pmdsz <= m["offset"] + m["end"] - m["start"]]
                if not m:
                    continue
                at = m[0]["start"] + off - m[0]["offset"]
                if at % pmdsz or off % pmdsz:
                    continue
                placed += 1
                pm.seek(at // page * 8)
                raw = pm.read(pmdsz // page * 8)
                n = sum(1 for i in range(0, len(raw), 8)
                        if raw[i + 7] & 0x80)           # bit 63: present
                if n:
                    wres += 1
                    extra += pmdsz - n * page
    return w, placed, wres, extra


def cmd_pid(label, pid, path, tool_out, want):
    """--pid PID --format json against smaps, pagemap and the file's
    headers; want: 'huge', 'huge-unsure' or 'plain'."""
    st = os.stat(path)
    pmdsz = 2 * MiB
    try:
        pmdsz = int(open("/sys/kernel/mm/transparent_hugepage/hpage_pmd_size").read())
    except (OSError, ValueError):
        pass
    objs, bad = [], ""
    for l in open(tool_out).read().split("\n"):
        if not l:
            continue
        try:
            o = json.loads(l)
        except ValueError as e:
            bad = bad or "invalid JSON line %r: %s" % (l, e)
            continue
        if "summary" in o:
            continue
        bad = bad or check_keys(o, PID_KEYS, "object")
        objs.append(o)
    if not objs:
        bad = bad or "no output"
    out("FAIL" if bad else "PASS", label + ": one valid JSON object per line, exact keys", bad)
    ids = ["%s:%s" % (o.get("dev"), o.get("inode")) for o in objs]
    dup = sorted(set(i for i in ids if ids.count(i) > 1))
    out("FAIL" if dup else "PASS", label + ": each file once (dev+inode)",
        "repeated: %r" % dup)
    expect_ids = elf_files(pid)
    out("PASS" if set(ids) == expect_ids else "FAIL",
        label + ": every ELF file mapped executable reported",
        "tool %r, /proc/PID/maps %r" % (sorted(set(ids)), sorted(expect_ids)))
    mine = [o for o in objs if o.get("inode") == st.st_ino and
            o.get("file") == os.path.realpath(path)]
    if len(mine) != 1:
        out("FAIL", label + ": the held program is in the output",
            "%d entries for %s (inode %d)" % (len(mine), path, st.st_ino))
        return
    o = mine[0]
    maps = smaps(pid, st.st_ino)
    pmd = sum(m["pmd"] for m in maps)
    rss = sum(m["rss"] for m in maps)
    w, placed, wres, extra = pid_windows(pid, path, maps, pmdsz)
    print("INFO\t%s: tool %s; smaps: %d mappings, PmdMapped %d, Rss %d, "
          "windows %d, placed %d, resident %d, +%d if huge" %
          (label, json.dumps(o), len(maps), pmd, rss, w, placed, wres, extra))
    out("PASS" if o["pids"] == [int(pid)] else "FAIL", label + ": pids = [PID]",
        "pids %r" % o["pids"])
    out("PASS" if o["pmd_mapped_bytes"] == pmd else "FAIL",
        label + ": pmd_mapped_bytes = sum of FilePmdMapped+ShmemPmdMapped in smaps",
        "tool %r, smaps %d" % (o["pmd_mapped_bytes"], pmd))
    out("PASS" if (o["windows"], o["windows_placed"]) == (w, placed) else "FAIL",
        label + ": windows (read-only PT_LOADs) and placed (aligned in the process)",
        "tool (%r, %r), model (%d, %d)" % (o["windows"], o["windows_placed"], w, placed))
    out("PASS" if (o["windows_resident"], o["rss_increase_if_huge_bytes"]) ==
        (wres, extra) else "FAIL",
        label + ": windows_resident and rss_increase_if_huge = pagemap's",
        "tool (%r, %r), pagemap (%d, %d)" % (o["windows_resident"],
                                            o["rss_increase_if_huge_bytes"], wres, extra))
    out("PASS" if o["resident_bytes"] == rss else "FAIL",
        label + ": resident_bytes = sum of Rss in smaps",
        "tool %r, smaps %d" % (o["resident_bytes"], rss))
    if want in ("huge", "huge-unsure"):
        out("PASS" if placed == w else "FAIL", label + ": every window placed",
            "placed %d of %d" % (placed, w))
        if pmd > 0:
            out("PASS" if o["windows_huge"] == pmd // pmdsz and o["status"] in
                ("huge", "partly-huge") else "FAIL",
                label + ": huge windows = PmdMapped / PMD, status huge or partly",
                "windows_huge %r, status %r" % (o["windows_huge"], o["status"]))
        elif want == "huge":
            # The tmpfs got huge pages for the copies: no PMD is a failure.
            out("FAIL", label + ": pmd_mapped > 0",
                "smaps shows no PMD mapping, though the tmpfs holds huge pages")
        else:
            out("SKIP", label + ": pmd_mapped > 0",
                "smaps shows no PMD mapping (no huge folios in the page cache?)")
    else:
        out("PASS" if o["pmd_mapped_bytes"] == 0 else "FAIL", label + ": pmd_mapped 0",
            "pmd_mapped %r" % o["pmd_mapped_bytes"])
        out("PASS" if (o["status"], o["command"]) ==
            ("layout", "elfthp-align -- " + os.path.realpath(path)) else "FAIL",
            label + ": status layout, and the command that rewrites it",
            "status %r, command %r" % (o["status"], o["command"]))


def cmd_base(pid, path):
    """Start of the first mapping of path in /proc/PID/smaps (decimal)."""
    maps = smaps(pid, os.stat(path).st_ino)
    print(min(m["start"] for m in maps) if maps else -1)


if __name__ == "__main__":
    cmd = sys.argv[1]
    args = sys.argv[2:]
    try:
        {"json": cmd_json, "text": cmd_text, "multi": cmd_multi,
         "plan": cmd_plan, "pid": cmd_pid,
         "base": cmd_base}[cmd](*args)
    except (ValueError, OSError, IndexError, KeyError) as e:
        out("FAIL", "model %s %s" % (cmd, " ".join(args[:1])), "model error: %r" % e)
