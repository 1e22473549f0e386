#!/bin/bash
# test_report.sh BUILDDIR - elfthp-align --report and --pid.
#
# --report: the expected numbers come from an independent model (python3,
# below) fed only with `readelf -hW -lW -SW -dW` of each file, written from
# the definitions (man page: THE REPORT and PAGE GEOMETRIES; README;
# docs/geometry.md, 'Windows' and 'The --report model'), never from the
# tool's own output:
#   - eligibility, windows_now/after, seed_patch, base_aligned_now/after;
#   - per geometry (x86_64-4k, arm64-4k, arm64-16k, arm64-64k): TLB
#     translations now/after, huge bytes now/after, rss_increase_max,
#     aslr_bits_lost and file_growth.
# The "after" state is PREDICTED by the model (the planner's rules: each
# eligible PT_LOAD gets the smallest offset >= its old one, shifted by what
# came before, congruent to p_vaddr modulo its alignment: the PMD up to
# 32 MiB, else the contiguous block; with arm64 16 KiB pages a segment
# without a 32 MiB window falls back to the 2 MiB block; every other PT_LOAD
# stays congruent modulo max(p_align, the geometry's page, the machine's
# largest page); the first PT_LOAD and the headers never move).  As a
# cross-check of the prediction, not of the report, the x86_64-4k plan is
# also compared with a real `elfthp-align -o` rewrite read back with readelf.
# aslr_bits_lost follows the man page: log2(alignment after / alignment
# before) for ET_DYN (largest power-of-two p_align, at least the page), 0
# for ET_EXEC.  The machine's largest page is a floor only for a file that
# is rewritten anyway; the geometry's own page always applies (plan2).
#
# Files: lld-pie (windows_now 0, windows_after > 0), the same rewritten
# (now == after), hello worlds for x86_64 and aarch64 (nothing eligible),
# libbig.so and libbig-lld.so (shared-library, no seed_patch), ET_EXEC
# (aslr 0), static PIE, aarch64 (64 KiB congruence), and --page-size 16k.
# JSON: one valid object per line per file with the exact key sets of
# src/report.c.  Text: a header line and one row per PT_LOAD and per
# geometry.  --report never writes (inode, mtime, size, bytes and directory
# listing unchanged).
#
# --pid: on a tmpfs mounted with huge=always (root; skipped with the reason
# if the mount fails) a rewritten lld-pie runs with --hold; the tool's
# pmd_mapped for it equals FilePmdMapped + ShmemPmdMapped (kB x 1024) summed
# over its mappings in /proc/PID/smaps as read here, is > 0, windows_resident
# <= windows, eligible true; the unrewritten lld-pie from the same tmpfs has
# pmd_mapped 0 and eligible false.  For both, windows, windows_resident,
# rss_increase_if_huge and resident_bytes are recomputed from smaps and
# pagemap, and every mapped ELF file is listed once.  A process of another user (the tool run
# as nobody against pid 1) and a pid that cannot exist give exit 2 and a
# message.
. "$(dirname "$0")/lib.sh"
need_builddir "$@"
need_tool

if ! command -v python3 >/dev/null; then
    skip "--report model" "python3 not installed (the model is written in python3)"
    finish
fi
# The interpreter itself: a version-manager shim costs seconds per call.
PY=$(python3 -c 'import sys; print(sys.executable)' 2>/dev/null)
[ -x "$PY" ] || PY=python3

MODEL=$WORK/model.py
cat > "$MODEL" <<'PYEOF'
import json, math, os, re, subprocess, sys

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
PF_X, PF_W = 1, 2

TOP_KEYS = ["file", "machine", "type", "geometry", "pmd", "alignment",
            "base_aligned_now",
            "base_aligned_after", "segments", "geometries"]
SEG_KEYS = ["index", "flags", "offset", "vaddr", "filesz", "align",
            "eligible", "windows_now", "windows_after", "seed_patch"]
GEO_KEYS = ["name", "page", "pmd", "cont", "translations_now",
            "translations_after", "huge_bytes_now", "huge_bytes_after",
            "rss_increase_max", "aslr_bits_lost", "file_growth"]
PID_KEYS = ["pid", "file", "dev", "inode", "pmd_mapped", "eligible",
            "windows", "windows_resident", "resident_bytes",
            "rss_increase_if_huge", "why", "why_message"]


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
            flags=(PF_X if "E" in fl else 0) | (PF_W if "W" in fl else 0),
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
    hdr_end = max(L.ehsize, L.phoff + L.phnum * L.phentsize)
    order = sorted(loads(L), key=lambda p: (p["offset"], p["index"]))
    elig, tgt = {}, {}

    def verdict(p, pinned, t):
        if p["flags"] & PF_W:
            return "writable"
        if windows(p["vaddr"], p["filesz"], t) == 0:
            return "no-window"
        if pinned and not congruent(p["offset"], p["vaddr"],
                                    max(t, p["align"] or 1)):
            return "pinned"
        return "eligible"

    for k, p in enumerate(order):
        pinned = k == 0 or p["offset"] < hdr_end
        t = target
        v = verdict(p, pinned, t)
        if v == "no-window" and fallback:
            t = fallback
            v = verdict(p, pinned, t)
        elig[p["index"]], tgt[p["index"]] = v == "eligible", t

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
        if elig[p["index"]]:
            a = max(a, tgt[p["index"]])
        res[p["index"]] = (new_off[p["index"]], a, elig[p["index"]],
                           tgt[p["index"]])
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


def expected(path, name, page_size=0):
    L = read_layout(path)
    own = own_geometry(L, page_size)
    target = target_of(own)
    P, _ = plan2(L, target, max(L.max_page, page_size or 4 * KiB),
                 page_size or 4 * KiB, page_size, fallback_of(own))
    dyn = L.etype == "DYN"
    maxal = max([p["align"] for p in loads(L) if pow2(p["align"])] + [0])
    base_now = not dyn or maxal >= target
    base_after = not dyn or max(P[i][1] for i in P) >= target
    k = kind(L)
    segs = []
    for p in loads(L):
        ro = not p["flags"] & PF_W
        w = windows(p["vaddr"], p["filesz"], target)
        pmd = own[2]
        segs.append(dict(
            index=p["index"], flags=p["rflags"], offset=p["offset"],
            vaddr=p["vaddr"], filesz=p["filesz"], align=p["align"],
            eligible=P[p["index"]][2],
            windows_now=w if ro and base_now and
            congruent(p["offset"], p["vaddr"], target) else 0,
            windows_after=w if P[p["index"]][2] else 0,
            seed_patch=(k != "shared-library" and ro and pmd <= PMD_CAP and
                        p["vaddr"] % pmd == 0 and p["offset"] % pmd == 0 and
                        p["filesz"] >= pmd and p["align"] < pmd)))
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
        aslr = int(math.log2(amax // before)) if dyn and amax > before else 0
        geos.append(dict(
            name=gname, page=page, pmd=pmd, cont=cont, translations_now=tn,
            translations_after=ta, huge_bytes_now=hn, huge_bytes_after=ha,
            rss_increase_max=wa * (pmd - page),
            aslr_bits_lost=aslr,
            file_growth=size - L.size))
    return dict(file=name, machine=L.machine, type=k, geometry=own[0],
                pmd=own[2], alignment=target, base_aligned_now=base_now,
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
    bad = check_keys(got, TOP_KEYS, "object")
    for s in got.get("segments", []) if isinstance(got, dict) else []:
        bad = bad or check_keys(s, SEG_KEYS, "segment")
    for g in got.get("geometries", []) if isinstance(got, dict) else []:
        bad = bad or check_keys(g, GEO_KEYS, "geometry")
    out("FAIL" if bad else "PASS", label + ": valid JSON, exact key sets", bad)
    if not isinstance(got, dict):
        return
    out_bad = diff_obj(exp, got, TOP_KEYS[:7])
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
            b = diff_obj(e, g, GEO_KEYS)
            out("FAIL" if b else "PASS", "%s: geometry %s" % (label, e["name"]), b)


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
        bad = bad or check_keys(o, TOP_KEYS, "object")
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
                     r"(\S+) (0x[0-9a-f]+) (yes|no)\s+(\d+)\s+(\d+)  (aligns|-)$")


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
    out("PASS" if text[i] == head else "FAIL", label + ": text header line",
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
               int(m.group(8)), int(m.group(9)), m.group(10) == "aligns")
        want = (e["index"], e["flags"], e["offset"], e["vaddr"], e["align"],
                e["eligible"], e["windows_now"], e["windows_after"],
                e["seed_patch"])
        if got != want or not approx(m.group(5), e["filesz"]):
            bad.append("row %r, expected %r filesz %d" % (row, want, e["filesz"]))
    out("FAIL" if bad else "PASS", label + ": text: one row per PT_LOAD",
        "; ".join(bad))
    bad = []
    if len(grows) != len(exp["geometries"]):
        bad.append("%d geometry rows, expected %d" % (len(grows),
                                                      len(exp["geometries"])))
    for row, e in zip(grows, exp["geometries"]):
        f = row.split()
        if len(f) != 11:
            bad.append("row %r has %d columns" % (row, len(f)))
            continue
        ints = (f[0], int(f[4]), int(f[5]), int(f[9]), int(f[10]))
        want = (e["name"], e["translations_now"], e["translations_after"],
                e["aslr_bits_lost"], e["file_growth"])
        sizes = [(f[1], e["page"]), (f[2], e["pmd"]), (f[6], e["huge_bytes_now"]),
                 (f[7], e["huge_bytes_after"]), (f[8], e["rss_increase_max"])]
        okc = (f[3] == "-") if e["cont"] == 0 else approx(f[3], e["cont"])
        if ints != want or not okc or not all(approx(a, b) for a, b in sizes):
            bad.append("row %r, expected %r sizes %r cont %d" % (
                row, want, [b for _, b in sizes], e["cont"]))
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
    """dev:inode of every mapped file whose on-disk bytes start with ELF magic."""
    seen = set()
    for line in open("/proc/%s/maps" % pid):
        f = line.split(None, 5)
        if len(f) < 6 or int(f[4]) == 0 or not f[5].startswith("/"):
            continue
        try:
            with open(f[5].strip(), "rb") as fh:
                if fh.read(4) == b"\x7fELF":
                    seen.add("%s:%s" % (f[3], f[4]))
        except OSError:
            pass
    return seen


def cmd_pid(label, pid, path, tool_out, want):
    """--pid PID --format json against smaps; want: 'huge' or 'plain'."""
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
        label + ": every mapped ELF file reported",
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
    # Windows of the read-only mappings, and their pages present in pagemap.
    page = os.sysconf("SC_PAGE_SIZE")
    w = wres = extra = 0
    with open("/proc/%s/pagemap" % pid, "rb") as pm:
        for m in maps:
            if "w" in m["perms"]:
                continue
            va = -(-m["start"] // pmdsz) * pmdsz
            while va + pmdsz <= m["end"]:
                w += 1
                pm.seek(va // page * 8)
                raw = pm.read(pmdsz // page * 8)
                n = sum(1 for i in range(0, len(raw), 8)
                        if raw[i + 7] & 0x80)           # bit 63: present
                if n:
                    wres += 1
                    extra += pmdsz - n * page
                va += pmdsz
    print("INFO\t%s: tool %s; smaps: %d mappings, PmdMapped %d, Rss %d, "
          "windows %d, resident %d, +%d if huge" % (label, json.dumps(o),
                                                  len(maps), pmd, rss, w,
                                                  wres, extra))
    out("PASS" if o["pmd_mapped"] == pmd else "FAIL",
        label + ": pmd_mapped = sum of FilePmdMapped+ShmemPmdMapped in smaps",
        "tool %r, smaps %d" % (o["pmd_mapped"], pmd))
    out("PASS" if o["windows_resident"] <= o["windows"] else "FAIL",
        label + ": windows_resident <= windows",
        "%r > %r" % (o["windows_resident"], o["windows"]))
    out("PASS" if o["windows"] == w else "FAIL",
        label + ": windows = PMD ranges inside its read-only mappings",
        "tool %r, smaps %d" % (o["windows"], w))
    out("PASS" if (o["windows_resident"], o["rss_increase_if_huge"]) ==
        (wres, extra) else "FAIL",
        label + ": windows_resident and rss_increase_if_huge = pagemap's",
        "tool (%r, %r), pagemap (%d, %d)" % (o["windows_resident"],
                                            o["rss_increase_if_huge"], wres, extra))
    out("PASS" if o["resident_bytes"] == rss else "FAIL",
        label + ": resident_bytes = sum of Rss in smaps",
        "tool %r, smaps %d" % (o["resident_bytes"], rss))
    if want == "huge":
        out("PASS" if o["eligible"] is True else "FAIL", label + ": eligible true",
            "eligible %r" % o["eligible"])
        if pmd > 0:
            out("PASS" if o["pmd_mapped"] > 0 else "FAIL", label + ": pmd_mapped > 0",
                "pmd_mapped %r" % o["pmd_mapped"])
        else:
            out("SKIP", label + ": pmd_mapped > 0",
                "smaps shows no PMD mapping (no huge folios in the page cache?)")
    else:
        out("PASS" if o["pmd_mapped"] == 0 else "FAIL", label + ": pmd_mapped 0",
            "pmd_mapped %r" % o["pmd_mapped"])
        out("PASS" if o["eligible"] is False else "FAIL", label + ": eligible false",
            "eligible %r" % o["eligible"])


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
PYEOF

# model CMD ARGS...: run the model, turn its PASS/FAIL/SKIP lines into
# results (INFO lines are printed as comments).
model() {
    local st d r
    while IFS=$'\t' read -r st d r; do
        case $st in
            PASS) pass "$d" ;;
            FAIL) fail "$d" "$r" ;;
            SKIP) skip "$d" "$r" ;;
            INFO) echo "# $d" ;;
            *) echo "$st $d $r" ;;
        esac
    done < <("$PY" "$MODEL" "$@")
}

# --- files ----------------------------------------------------------------

F=$WORK/files
mkdir -p "$F"
declare -A SRC=()          # label -> file given to the tool (relative to $F)
LABELS=()
add() { SRC[$1]=$2; LABELS+=("$1"); }

for n in lld-pie lld-nopie gnu-pie gnu-nopie gnu-noseparate gnu-static-pie \
         shared lld-shared aarch64-pie aarch64-lld-pie; do
    if fixture_line "$n"; then
        cp "$BUILD/$FX_FILE" "$F/$FX_FILE" && add "$n" "$FX_FILE"
    else
        skip "$n: --report" "fixture not built"
    fi
done

# A small hello world: nothing in it holds a 2 MiB window.
if printf '#include <stdio.h>\nint main(void) { puts("hello"); return 0; }\n' \
        > "$WORK/hello.c" && gcc -O2 -o "$F/hello" "$WORK/hello.c" 2>/dev/null; then
    add hello hello
elif fixture_line shared; then
    echo "# no gcc: the small program shared-main stands in for hello world"
    cp "$BUILD/$FX_MAIN" "$F/hello" && add hello hello
else
    skip "hello: --report" "no gcc and no small fixture"
fi

if command -v aarch64-linux-gnu-gcc >/dev/null &&
        aarch64-linux-gnu-gcc -O2 -o "$F/hello-aarch64" "$WORK/hello.c" 2>/dev/null; then
    add hello-aarch64 hello-aarch64
else
    skip "hello-aarch64: --report" "no aarch64-linux-gnu-gcc"
fi

# Rewritten (already aligned) copies: "now" must equal "after".
for n in lld-pie lld-shared; do
    [ -n "${SRC[$n]:-}" ] || continue
    run_tool -q -o "$F/${SRC[$n]}.aligned" "$F/${SRC[$n]}"
    if assert "$n: rewrite a copy with -o" tool_rc 0; then
        add "$n-aligned" "${SRC[$n]}.aligned"
    fi
done

cd "$F" || exit 1

# --- the model against the tool, file by file --------------------------------

for l in "${LABELS[@]}"; do
    f=${SRC[$l]}
    id0=$(file_id "$f"); ls0=$(listing .); sum0=$(cksum < "$f")
    run_tool --report --format json "$f"
    if ! assert "$l: --report --format json exits 0" tool_rc 0; then
        continue
    fi
    printf '%s\n' "$T_OUT" > "$WORK/out.json"
    model json "$l" "$f" "$f" "$WORK/out.json"
    run_tool --report "$f"
    if assert "$l: --report (text) exits 0" tool_rc 0; then
        printf '%s\n' "$T_OUT" > "$WORK/out.txt"
        model text "$l" "$f" "$f" "$WORK/out.txt"
    fi
    never_wrote() {
        same_id "$f" "$id0" && same_listing . "$ls0" || return 1
        [ "$(cksum < "$f")" = "$sum0" ] && return 0
        WHY="$f bytes changed"; return 1
    }
    assert "$l: --report wrote nothing" never_wrote
done

# --- what the report must show for each kind of file ------------------------

# jq-free access to the tool's JSON: jget FILE EXPR (python expression on o).
jget() {
    "$PY" -c 'import json,sys
o = json.loads(sys.stdin.readline())
S = {s["index"]: s for s in o["segments"]}
G = {g["name"]: g for g in o["geometries"]}
v = eval(sys.argv[1])
print(json.dumps(v) if isinstance(v, bool) else v)' "$2" < "$1"
}
report_json() { "$TOOL" --report --format json "$1" > "$WORK/r.json" 2>/dev/null; }

# expect_eq DESC GOT WANT
expect_eq() {
    if [ "$2" = "$3" ]; then pass "$1"; else fail "$1" "got '$2', expected '$3'"; fi
}

if [ -n "${SRC[lld-pie]:-}" ] && report_json "${SRC[lld-pie]}"; then
    expect_eq "lld-pie: x86_64-4k: windows_now is 0" \
        "$(jget "$WORK/r.json" 'sum(s["windows_now"] for s in o["segments"])')" 0
    expect_eq "lld-pie: x86_64-4k: windows_after > 0" \
        "$(jget "$WORK/r.json" 'sum(s["windows_after"] for s in o["segments"]) > 0')" true
    expect_eq "lld-pie: x86_64-4k: huge_bytes_now 0, huge_bytes_after > 0" \
        "$(jget "$WORK/r.json" '(G["x86_64-4k"]["huge_bytes_now"], G["x86_64-4k"]["huge_bytes_after"] > 0)')" "(0, True)"
    expect_eq "lld-pie: x86_64-4k: fewer translations after" \
        "$(jget "$WORK/r.json" 'G["x86_64-4k"]["translations_after"] < G["x86_64-4k"]["translations_now"]')" true
    expect_eq "lld-pie: x86_64-4k: file_growth 4096 (text moves by 0x1000)" \
        "$(jget "$WORK/r.json" 'G["x86_64-4k"]["file_growth"]')" 4096
    # log2(largest p_align after / page): 2M/4K, 2M/4K, 2M/16K (arm64-16k
    # falls back to 2 MiB blocks: no 32 MiB window here), 2M/64K.
    expect_eq "lld-pie: aslr_bits_lost 9, 9, 7, 5" \
        "$(jget "$WORK/r.json" '[g["aslr_bits_lost"] for g in o["geometries"]]')" "[9, 9, 7, 5]"
    expect_eq "lld-pie: arm64-16k: 2 MiB blocks cut translations (514 -> 133)" \
        "$(jget "$WORK/r.json" '(G["arm64-16k"]["translations_now"], G["arm64-16k"]["translations_after"])')" "(514, 133)"
fi

for l in lld-pie-aligned lld-shared-aligned; do
    [ -n "${SRC[$l]:-}" ] && report_json "${SRC[$l]}" || continue
    expect_eq "$l: windows_now = windows_after for every PT_LOAD" \
        "$(jget "$WORK/r.json" 'all(s["windows_now"] == s["windows_after"] for s in o["segments"])')" true
    expect_eq "$l: windows_now > 0" \
        "$(jget "$WORK/r.json" 'sum(s["windows_now"] for s in o["segments"]) > 0')" true
    expect_eq "$l: base aligned now and after" \
        "$(jget "$WORK/r.json" '(o["base_aligned_now"], o["base_aligned_after"])')" "(True, True)"
    expect_eq "$l: every geometry: translations and huge bytes now = after" \
        "$(jget "$WORK/r.json" '[g["name"] for g in o["geometries"] if (g["translations_now"], g["huge_bytes_now"]) != (g["translations_after"], g["huge_bytes_after"])]')" "[]"
    expect_eq "$l: x86_64-4k and arm64-4k: file_growth 0" \
        "$(jget "$WORK/r.json" '(G["x86_64-4k"]["file_growth"], G["arm64-4k"]["file_growth"])')" "(0, 0)"
done

if [ -n "${SRC[hello]:-}" ] && report_json "${SRC[hello]}"; then
    expect_eq "hello: no PT_LOAD eligible" \
        "$(jget "$WORK/r.json" '[s["index"] for s in o["segments"] if s["eligible"] or s["windows_now"] or s["windows_after"] or s["seed_patch"]]')" "[]"
    expect_eq "hello: no huge bytes, no RSS increase, same translations, any geometry" \
        "$(jget "$WORK/r.json" '[g["name"] for g in o["geometries"] if g["huge_bytes_now"] or g["huge_bytes_after"] or g["rss_increase_max"] or g["translations_now"] != g["translations_after"]]')" "[]"
    expect_eq "hello: x86_64-4k file_growth 0" \
        "$(jget "$WORK/r.json" 'G["x86_64-4k"]["file_growth"]')" 0
    expect_eq "hello: aslr_bits_lost 0 (the rewrite aligns nothing)" \
        "$(jget "$WORK/r.json" '[g["aslr_bits_lost"] for g in o["geometries"]]')" "[0, 0, 0, 0]"
fi
# The same for an aarch64 hello world, whose p_align is already 64 KiB.
if [ -n "${SRC[hello-aarch64]:-}" ] && report_json "${SRC[hello-aarch64]}"; then
    expect_eq "hello-aarch64: no PT_LOAD eligible" \
        "$(jget "$WORK/r.json" '[s["index"] for s in o["segments"] if s["eligible"]]')" "[]"
fi

for l in shared lld-shared lld-shared-aligned; do
    [ -n "${SRC[$l]:-}" ] && report_json "${SRC[$l]}" || continue
    expect_eq "$l: type shared-library" "$(jget "$WORK/r.json" 'o["type"]')" shared-library
    expect_eq "$l: seed_patch false for every PT_LOAD" \
        "$(jget "$WORK/r.json" '[s["index"] for s in o["segments"] if s["seed_patch"] is not False]')" "[]"
done
# libbig-lld.so's first PT_LOAD (offset 0, vaddr 0, > 2 MiB, p_align 4 KiB)
# would meet the seed patch's rule but for being a shared library.
if [ -n "${SRC[lld-shared]:-}" ]; then
    expect_eq "lld-shared: the model's seed rule would match PT_LOAD 1 of an executable" \
        "$(elf_phdrs "${SRC[lld-shared]}" | awk '$2 == "LOAD" { print ($3 == 0 && $4 == 0 && $6 >= 2097152 && $9 < 2097152) ? "yes" : "no"; exit }')" yes
fi

for l in gnu-nopie lld-nopie; do
    [ -n "${SRC[$l]:-}" ] && report_json "${SRC[$l]}" || continue
    expect_eq "$l: type executable, base aligned now" \
        "$(jget "$WORK/r.json" '(o["type"], o["base_aligned_now"])')" "('executable', True)"
    expect_eq "$l: aslr_bits_lost 0 for every geometry" \
        "$(jget "$WORK/r.json" '[g["aslr_bits_lost"] for g in o["geometries"]]')" "[0, 0, 0, 0]"
done
if [ -n "${SRC[gnu-static-pie]:-}" ] && report_json "${SRC[gnu-static-pie]}"; then
    expect_eq "gnu-static-pie: type static-pie" "$(jget "$WORK/r.json" 'o["type"]')" static-pie
fi
if [ -n "${SRC[gnu-pie]:-}" ] && report_json "${SRC[gnu-pie]}"; then
    expect_eq "gnu-pie: type pie" "$(jget "$WORK/r.json" 'o["type"]')" pie
fi

# --- the model's x86_64-4k plan against a real rewrite ---------------------

# Not a test of the report: it shows the model predicts what the rewriter
# does, so that its "after" numbers rest on the right layout.
plan_matches() {
    local orig=$1 new=$2 exp got
    exp=$("$PY" "$MODEL" plan "$orig")
    got=$(elf_phdrs "$new" | awk '$2 == "LOAD" { print $1, $3, $9 }'; echo "size $(stat -c %s "$new")")
    [ "$exp" = "$got" ] && return 0
    WHY="model [$(echo "$exp" | tr '\n' ',')] rewrite [$(echo "$got" | tr '\n' ',')]"
    return 1
}
for l in lld-pie gnu-pie gnu-nopie shared lld-shared gnu-static-pie hello; do
    [ -n "${SRC[$l]:-}" ] || continue
    run_tool -q -o "$WORK/planned" "${SRC[$l]}"
    [ "$T_RC" -eq 0 ] || { fail "$l: model plan = rewrite" "rewrite failed: $(tool_said)"; continue; }
    assert "$l: model's x86_64-4k plan = offsets, aligns, size of an -o rewrite" \
        plan_matches "${SRC[$l]}" "$WORK/planned"
    rm -f "$WORK/planned"
done

# --- several files, --page-size, errors --------------------------------------

multi=()
for l in lld-pie shared hello gnu-nopie; do
    [ -n "${SRC[$l]:-}" ] && multi+=("${SRC[$l]}")
done
if [ ${#multi[@]} -ge 2 ]; then
    run_tool --report --format json "${multi[@]}"
    if assert "several files: --report --format json exits 0" tool_rc 0; then
        printf '%s\n' "$T_OUT" > "$WORK/multi.json"
        model multi "several files: one JSON object per line, in order" \
            "$WORK/multi.json" "${multi[@]}"
    fi
    run_tool --report "${multi[@]}"
    if assert "several files: --report (text) exits 0" tool_rc 0; then
        printf '%s\n' "$T_OUT" > "$WORK/multi.txt"
        for f in "${multi[@]}"; do
            model text "several files: $f" "$f" "$f" "$WORK/multi.txt"
        done
    fi
fi

if [ -n "${SRC[aarch64-pie]:-}" ]; then
    run_tool --report --format json --page-size 16k "${SRC[aarch64-pie]}"
    if assert "aarch64-pie --page-size 16k: exits 0" tool_rc 0; then
        printf '%s\n' "$T_OUT" > "$WORK/out.json"
        model json "aarch64-pie --page-size 16k" "${SRC[aarch64-pie]}" \
            "${SRC[aarch64-pie]}" "$WORK/out.json" 16384
    fi
fi

printf 'not an ELF file\n' > "$F/notelf"
run_tool --report "$F/notelf"
assert "--report of a non-ELF file: exit 2" tool_rc 2
assert "--report of a non-ELF file: message names it" tool_err_names "$F/notelf"

cd "$REPO_ROOT" || exit 1

# --- --pid: errors -----------------------------------------------------------

pid_denied() {
    local me
    [ "$(awk '/^Uid:/ { print $2 }' /proc/1/status 2>/dev/null)" = 65534 ] && {
        WHY="pid 1 belongs to nobody here"; return 2; }
    if [ "$(id -u)" -eq 0 ]; then
        command -v setpriv >/dev/null || { WHY="setpriv not installed"; return 2; }
        # The tool must be reachable by nobody: a world-readable copy.
        me=$WORK/nobody
        mkdir -p "$me" && chmod 711 "$WORK" &&
            cp "$TOOL" "$me/elfthp-align" && chmod 755 "$me" "$me/elfthp-align" ||
            { WHY="cannot make a copy of the tool for nobody"; return 2; }
        timeout 30 setpriv --reuid=65534 --regid=65534 --clear-groups \
            "$me/elfthp-align" --pid 1 > "$WORK/nobody.out" 2> "$WORK/nobody.err"
        T_RC=$?
        rm -rf "$me"
    else
        timeout 30 "$TOOL" --pid 1 > "$WORK/nobody.out" 2> "$WORK/nobody.err"
        T_RC=$?
    fi
    T_OUT=$(cat "$WORK/nobody.out") T_ERR=$(cat "$WORK/nobody.err")
    [ "$T_RC" -eq 2 ] || { WHY="expected exit 2: $(tool_said)"; return 1; }
    case $T_ERR in
        *"pid 1"*[Pp]ermission*|*"pid 1"*owner*) ;;
        *) WHY="no clear message (pid 1, permission/owner): $(tool_said)"; return 1 ;;
    esac
    [ -z "$T_OUT" ] || { WHY="printed a report: $(tool_said)"; return 1; }
    return 0
}
assert "--pid 1 as nobody: exit 2, permission message" pid_denied

pid_missing() {
    local p; p=$(cat /proc/sys/kernel/pid_max)   # pids are below pid_max
    run_tool --pid "$p" --format json
    [ "$T_RC" -eq 2 ] || { WHY="expected exit 2: $(tool_said)"; return 1; }
    case $T_ERR in
        *"pid $p"*"no such process"*) ;;
        *) WHY="no clear message: $(tool_said)"; return 1 ;;
    esac
    [ -z "$T_OUT" ] || { WHY="printed a report: $(tool_said)"; return 1; }
}
assert "--pid of a process that cannot exist: exit 2, 'no such process'" pid_missing

run_tool --pid notapid
assert "--pid notapid: exit 2" tool_rc 2

# --- --pid on a huge=always tmpfs ---------------------------------------------

MNT="" HELD=""
cleanup_hook() {
    local p
    for p in $HELD; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done
    HELD=""
    if [ -n "$MNT" ]; then
        umount "$MNT" 2>/dev/null || umount -l "$MNT" 2>/dev/null
        rmdir "$MNT" 2>/dev/null
        MNT=""
    fi
}

# hold PROG: start PROG --hold, wait for "ready"; sets HPID.  1 if it failed.
hold() {
    local n
    "$1" --hold > "$1.out" 2>&1 &
    HPID=$!
    HELD="$HELD $HPID"
    for n in $(seq 1 300); do
        grep -q '^ready$' "$1.out" 2>/dev/null && return 0
        kill -0 "$HPID" 2>/dev/null || break
        sleep 0.1
    done
    WHY="$1 --hold did not get ready: $(head -3 "$1.out" | tr '\n' ' ')"
    return 1
}
unhold() {
    kill "$HPID" 2>/dev/null; wait "$HPID" 2>/dev/null
    HELD=$(echo "$HELD" | tr ' ' '\n' | grep -vx "$HPID" | tr '\n' ' ')
}

pid_tests() {
    if [ "$(uname -m)" != x86_64 ]; then
        skip "--pid on tmpfs" "host is $(uname -m); the fixture checked is x86_64"; return
    fi
    if [ -z "${SRC[lld-pie-aligned]:-}" ]; then
        skip "--pid on tmpfs" "no rewritten lld-pie"; return
    fi
    local err
    MNT=$(mktemp -d "${TMPDIR:-/tmp}/elfthp-pid.XXXXXX") || return
    if ! err=$(mount -t tmpfs -o huge=always,size=256M tmpfs "$MNT" 2>&1); then
        rmdir "$MNT"; MNT=""
        skip "--pid on tmpfs" "cannot mount tmpfs with huge=always: ${err:-not root?}"
        return
    fi
    cp "$F/${SRC[lld-pie-aligned]}" "$MNT/aligned" &&
        cp "$F/${SRC[lld-pie]}" "$MNT/orig" || { fail "--pid: copy to tmpfs" "cp failed"; return; }

    if assert "--pid: rewritten lld-pie holds on tmpfs" hold "$MNT/aligned"; then
        run_tool --pid "$HPID" --format json
        if assert "--pid (rewritten): exit 0" tool_rc 0; then
            printf '%s\n' "$T_OUT" > "$WORK/pid.json"
            model pid "--pid (rewritten)" "$HPID" "$MNT/aligned" "$WORK/pid.json" huge
        fi
        run_tool --pid "$HPID"
        text_ok() {
            [ "$T_RC" -eq 0 ] || { WHY="$(tool_said)"; return 1; }
            echo "$T_OUT" | head -1 | grep -q 'PMD-MAPPED.*ELIGIBLE.*WINDOWS' ||
                { WHY="no header: $(tool_said)"; return 1; }
            [ "$(echo "$T_OUT" | grep -c " $MNT/aligned\$")" -eq 1 ] ||
                { WHY="not one row for $MNT/aligned: $(tool_said)"; return 1; }
        }
        assert "--pid (text): header and one row for the program" text_ok
        unhold
    fi

    # The original: its text can never be congruent.  Its first PT_LOAD
    # (headers and rodata, offset = vaddr) is PMD-mapped only if the kernel
    # happens to pick a 2 MiB-aligned base; start it again if so.
    local try base
    for try in 1 2 3; do
        assert "--pid: original lld-pie holds on tmpfs" hold "$MNT/orig" || return
        base=$("$PY" "$MODEL" base "$HPID" "$MNT/orig")
        [ $(( base % 2097152 )) -ne 0 ] && break
        echo "# original mapped at a 2 MiB-aligned base by chance; again"
        unhold
    done
    run_tool --pid "$HPID" --format json
    if assert "--pid (original): exit 0" tool_rc 0; then
        printf '%s\n' "$T_OUT" > "$WORK/pid.json"
        model pid "--pid (original)" "$HPID" "$MNT/orig" "$WORK/pid.json" plain
    fi
    unhold
}
pid_tests
cleanup_hook

finish
