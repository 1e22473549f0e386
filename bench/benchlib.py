#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
# SPDX-FileCopyrightText: 2026 the elfthp-align authors
"""benchlib.py - small helpers for bench/*.sh (no dependencies but readelf).

  check NEW [ORIG]     readelf congruence quick check of a rewritten file:
                       every non-writable PT_LOAD holding a 2 MiB window has
                       p_offset = p_vaddr (mod 2 MiB) and p_align >= 2 MiB,
                       there is at least one, every PT_LOAD stays congruent
                       mod max(p_align, 4 KiB); with ORIG, the PT_LOADs keep
                       their vaddr, filesz, memsz and flags.  Exit 1 if not.
  check-if NEW [ORIG]  the same, but succeed if NEW does not exist
  windows FILE         "ELIGIBLE CONGRUENT": 2 MiB windows in the non-writable
                       PT_LOADs, and how many of them are usable as laid out
                       (segment congruent mod 2 MiB)
  segcmp ORIG NEW      every PT_LOAD's file bytes are equal (streamed)
  smaps PID PATH       "BASE ALIGNED PMD_KB RSS_KB" for PATH's mappings
  maps-has PID PATH    exit 0 if PATH is mapped in PID
  median FILE          median of the numbers in FILE, one a line
  hf JSON REF [KEY=VAL...]
                       markdown rows from a hyperfine --export-json file:
                       | KEY=VAL cols | command | mean +- sd | min | ratio
                       ratio = mean / mean of the command named REF;
                       --median, --user add median and user-time columns,
                       --rss DIR the median peak RSS from DIR/<command>.rss
                       (characters other than A-Za-z0-9+._- as _)
  hfmean JSON NAME [KEY]  mean (or KEY: median, min, user) seconds of a command
  hfdiff JSON A B      "RATIO (±CI %, verdict)": mean(A)/mean(B) and whether the
                       difference is outside a 95 % interval (Welch, normal approx.)
  hfpool OUT [--order REF] JSON...
                       pool rounds of the same commands into one JSON (in the
                       order of REF, else of first appearance)
  measure-table --machine M --kernel K --thp T --fs F --load L LABEL=JSON...
                       the README's "what does it buy?" table from
                       elfthp-align --measure --format json objects
  sumret FILE          sum of the positive return values in an strace log
"""
import json
import os
import re
import statistics
import subprocess
import sys

PMD = 0x200000
PAGE = 0x1000


def phdrs(path):
    out = subprocess.run(["readelf", "-lW", path], capture_output=True,
                         text=True, check=True, env=dict(os.environ, LC_ALL="C")).stdout
    loads = []
    for line in out.splitlines():
        f = line.split()
        if not f or f[0] != "LOAD":
            continue
        # LOAD off vaddr paddr filesz memsz FLAGS... align
        off, vaddr, filesz, memsz = (int(f[i], 16) for i in (1, 2, 4, 5))
        align = int(f[-1], 16)
        flags = "".join(f[6:-1])
        loads.append(dict(off=off, vaddr=vaddr, filesz=filesz, memsz=memsz,
                          flags=flags, align=align))
    return loads


def nwin(vaddr, filesz, a=PMD):
    return max(0, (vaddr + filesz) // a - (vaddr + a - 1) // a)


def check(new, orig=None):
    loads = phdrs(new)
    if not loads:
        return f"{new}: no PT_LOAD"
    good = 0
    for i, s in enumerate(loads):
        w = 0 if "W" in s["flags"] else nwin(s["vaddr"], s["filesz"])
        if w:
            if (s["vaddr"] - s["off"]) % PMD:
                return f"{new}: LOAD {i} ({w} windows) offset {s['off']:#x} != vaddr {s['vaddr']:#x} mod 2 MiB"
            if s["align"] < PMD:
                return f"{new}: LOAD {i} p_align {s['align']:#x} < 2 MiB"
            good += 1
        m = max(s["align"], PAGE)
        if (s["vaddr"] - s["off"]) % m:
            return f"{new}: LOAD {i} incongruent mod {m:#x}"
    if not good:
        return f"{new}: no eligible segment"
    if orig:
        o = phdrs(orig)
        key = ("vaddr", "filesz", "memsz", "flags")
        if [[s[k] for k in key] for s in o] != [[s[k] for k in key] for s in loads]:
            return f"{new}: PT_LOAD addresses, sizes or flags differ from {orig}"
    return None


def windows(path):
    elig = cong = 0
    for s in phdrs(path):
        if "W" in s["flags"]:
            continue
        w = nwin(s["vaddr"], s["filesz"])
        elig += w
        if (s["vaddr"] - s["off"]) % PMD == 0:
            cong += w
    return elig, cong


def header_ranges(path):
    """File ranges of the ELF header and the program header table (which
    a rewrite changes on purpose); 64- and 32-bit, either byte order."""
    import struct
    with open(path, "rb") as f:
        h = f.read(64)
    end = "<" if h[5] == 1 else ">"
    if h[4] == 2:
        phoff, = struct.unpack_from(end + "Q", h, 32)
        ehsize, phentsize, phnum = struct.unpack_from(end + "HHH", h, 52)
    else:
        phoff, = struct.unpack_from(end + "I", h, 28)
        ehsize, phentsize, phnum = struct.unpack_from(end + "HHH", h, 40)
    return [(0, ehsize), (phoff, phoff + phentsize * phnum)]


def masked_read(f, at, n, masks):
    f.seek(at)
    buf = bytearray(f.read(n))
    for lo, hi in masks:
        lo, hi = max(lo, at), min(hi, at + n)
        if lo < hi:
            buf[lo - at:hi - at] = bytes(hi - lo)
    return bytes(buf)


def segcmp(orig, new):
    """Every PT_LOAD's file bytes are equal, except the ELF header and the
    program header table (compared by `check` field by field)."""
    a, b = phdrs(orig), phdrs(new)
    if len(a) != len(b):
        return "different number of PT_LOADs"
    ma, mb = header_ranges(orig), header_ranges(new)
    with open(orig, "rb") as fa, open(new, "rb") as fb:
        for i, (x, y) in enumerate(zip(a, b)):
            if x["filesz"] != y["filesz"]:
                return f"LOAD {i}: filesz differs"
            done = 0
            while done < x["filesz"]:
                n = min(x["filesz"] - done, 1 << 20)
                if (masked_read(fa, x["off"] + done, n, ma) !=
                        masked_read(fb, y["off"] + done, n, mb)):
                    return f"LOAD {i}: bytes differ near +{done:#x}"
                done += n
    return None


def smaps(pid, path):
    base = None
    pmd = rss = 0
    cur = False
    with open(f"/proc/{pid}/smaps") as f:
        for line in f:
            if re.match(r"^[0-9a-f]+-[0-9a-f]+ ", line):
                parts = line.split(None, 5)
                name = parts[5].strip() if len(parts) > 5 else ""
                cur = name == path
                if cur and base is None:
                    base = int(parts[0].split("-")[0], 16)
            elif cur:
                k, _, v = line.partition(":")
                if k in ("ShmemPmdMapped", "FilePmdMapped"):
                    pmd += int(v.split()[0])
                elif k == "Rss":
                    rss += int(v.split()[0])
    if base is None:
        return "- no 0 0"
    return f"{base:#x} {'yes' if base % PMD == 0 else 'no'} {pmd} {rss}"


def fmt_t(s):
    if s >= 1:
        return f"{s:.3f} s"
    return f"{s * 1000:.2f} ms" if s >= 0.001 else f"{s * 1e6:.0f} µs"


def hf(path, ref, extra):
    """Rows: | EXTRA... | command | mean ± sd | min | runs | mean/ref [| user/ref]
    [| peak RSS] |.  Options among EXTRA: --user adds the user-time ratio,
    --rss DIR adds the median of DIR/<command>.rss (KiB, one a line)."""
    res = json.load(open(path))["results"]
    user = "--user" in extra
    med = "--median" in extra
    rss = None
    if "--rss" in extra:
        rss = extra[extra.index("--rss") + 1]
    extra = [e for e in extra if e not in ("--user", "--median", "--rss", rss)]
    byname = {r["command"]: r for r in res}
    refr = byname.get(ref)
    for r in res:
        ratio = f"{r['mean'] / refr['mean']:.2f}" if refr else "-"
        cols = "".join(f"| {v} " for v in extra)
        line = (f"{cols}| {r['command']} | {fmt_t(r['mean'])} ± {fmt_t(r['stddev'] or 0)} "
                f"| {fmt_t(r['min'])} | {len(r['times'])} | {ratio} |")
        if med:
            line += (f" {fmt_t(r['median'])} | {r['median'] / refr['median']:.2f} |"
                     if refr else " - | - |")
        if user:
            line += (f" {fmt_t(r['user'])} | "
                     f"{r['user'] / refr['user']:.2f} |" if refr else " - | - |")
        if rss is not None:
            f = os.path.join(rss, re.sub(r"[^A-Za-z0-9+._-]", "_", r["command"]) + ".rss")
            if os.path.exists(f):
                vals = [int(x) for x in open(f).read().split()]
                med = statistics.median(vals)
                line += f" {med / 1024:.1f} MiB (n={len(vals)}) |"
            else:
                line += " - |"
        print(line)


def hfmean(path, name, key="mean"):
    for r in json.load(open(path))["results"]:
        if r["command"] == name:
            return r[key]
    raise SystemExit(f"{name} not in {path}")


def hfdiff(path, a, b):
    """'RATIO (±CI95 %, verdict)': mean(a)/mean(b), with a Welch 95 %
    interval on the difference of means (normal approximation)."""
    r = {x["command"]: x for x in json.load(open(path))["results"]}
    x, y = r[a], r[b]
    nx, ny = len(x["times"]), len(y["times"])
    se = (x["stddev"] ** 2 / nx + y["stddev"] ** 2 / ny) ** 0.5
    d = x["mean"] - y["mean"]
    ci = 1.96 * se / y["mean"] * 100
    verdict = "within noise" if abs(d) <= 1.96 * se else (
        "faster" if d < 0 else "slower")
    return f"{x['mean'] / y['mean']:.2f} (±{ci:.0f} %, {verdict})"


def hfpool(out, paths):
    """Merge hyperfine JSON files (rounds of the same commands) into one:
    all times pooled per command, user/system weighted by the runs.  With
    --order FILE first, commands come in FILE's order (FILE not pooled)."""
    pool = {}
    order = []
    if paths[0] == "--order":
        order = [r["command"] for r in json.load(open(paths[1]))["results"]]
        paths = paths[2:]
    for p in paths:
        for r in json.load(open(p))["results"]:
            c = r["command"]
            if c not in pool:
                if c not in order:
                    order.append(c)
                pool[c] = {"times": [], "user": 0.0, "system": 0.0}
            n = len(r["times"])
            pool[c]["times"] += r["times"]
            pool[c]["user"] += r["user"] * n
            pool[c]["system"] += r["system"] * n
    res = []
    for c in order:
        t = pool[c]["times"]
        n = len(t)
        res.append({"command": c, "times": t, "mean": statistics.mean(t),
                    "stddev": statistics.stdev(t) if n > 1 else 0.0,
                    "median": statistics.median(t), "min": min(t), "max": max(t),
                    "user": pool[c]["user"] / n, "system": pool[c]["system"] / n})
    json.dump({"results": res, "pooled_from": paths}, open(out, "w"), indent=1)


def measure_table(opts, rows):
    """The README's "what does it buy?" table from --measure JSON objects:
    one row per LABEL=FILE and comparison (the toggle's small and huge
    rounds; with --before, the original against the rewritten file), the
    machine, kernel and THP mode above it."""
    def metric(d, name, comp):
        for m in d["summary"]:
            if m["metric"] == name and m.get("comparison", "toggle") == comp:
                return m
        return None

    def pct(r):
        return f"{(r - 1) * 100:+.1f} %"

    print(f"Machine: {opts['machine']}; kernel {opts['kernel']}; THP `enabled={opts['thp']}`; "
          f"files on {opts['fs']}; load average {opts['load']}.")
    print()
    print("| workload | comparison | PMD-mapped (huge rounds) | verified pairs | wall, small → huge (medians) "
          "| wall, huge/small (median pair) | user time, huge/small | iTLB misses |")
    print("|---|---|---|---|---|---|---|---|")
    names = {"toggle": "toggle (same file, text small / huge)",
             "before-after": "before → after (the original / the rewritten file)"}
    for label, path in rows:
        d = json.load(open(path))
        kb = sum(f.get("pmd_kB_when_huge") or 0 for f in d["files"])
        comps = d.get("comparisons") or [{"comparison": "toggle", "pairs_run": d["pairs_run"],
                                          "pairs_valid": d["pairs_valid"]}]
        for c in comps:
            comp = c["comparison"]
            w, u, it = (metric(d, m, comp) for m in ("wall_s", "user_s", "itlb_misses"))
            head = f"| {label} | {names.get(comp, comp)} | {kb} kB | {c['pairs_valid']} of {c['pairs_run']} |"
            if not w or not w["pairs"]:
                print(f"{head} - | - | - | - |")
                continue
            noise = ", within noise" if w["within_noise"] else ""
            if w.get("ci_low") is not None:
                span = f"95 % interval {pct(w['ci_low'])} .. {pct(w['ci_high'])}"
            else:
                span = f"pairs {pct(w['ratio_min'])} .. {pct(w['ratio_max'])}, no interval"
            wall = f"{pct(w['ratio_median'])} ({span}{noise})"
            user = f"{pct(u['ratio_median'])}" + (", within noise" if u["within_noise"] else "")
            if u.get("ci_low") is not None:
                user += f" ({pct(u['ci_low'])} .. {pct(u['ci_high'])})"
            if d.get("confounds"):
                user += " (confound: " + "; ".join(str(x) for x in d["confounds"]) + ")"
            if it is None or it["not_available"]:
                itlb = "not available (no PMU on this machine)"
            elif it["pairs"]:
                itlb = pct(it["ratio_median"])
            else:
                itlb = "-"
            print(f"{head} {w['small_median']:.2f} s → {w['huge_median']:.2f} s | {wall} | {user} | {itlb} |")


def main(argv):
    cmd, args = argv[1], argv[2:]
    if cmd in ("check", "check-if"):
        if cmd == "check-if" and not os.path.exists(args[0]):
            return 0
        why = check(args[0], args[1] if len(args) > 1 else None)
        if why:
            print("check failed:", why, file=sys.stderr)
            return 1
        return 0
    if cmd == "windows":
        print(*windows(args[0]))
    elif cmd == "segcmp":
        why = segcmp(args[0], args[1])
        if why:
            print("segcmp failed:", why, file=sys.stderr)
            return 1
    elif cmd == "smaps":
        print(smaps(args[0], args[1]))
    elif cmd == "maps-has":
        with open(f"/proc/{args[0]}/maps") as f:
            return 0 if any(l.rstrip("\n").endswith(" " + args[1]) for l in f) else 1
    elif cmd == "median":
        vals = [float(x) for x in open(args[0]).read().split()]
        print(f"{statistics.median(vals):g}")
    elif cmd == "hf":
        hf(args[0], args[1], args[2:])
    elif cmd == "hfmean":
        print(hfmean(*args))
    elif cmd == "hfdiff":
        print(hfdiff(*args))
    elif cmd == "hfpool":
        hfpool(args[0], args[1:])
    elif cmd == "measure-table":
        opts, rows = {}, []
        while args and args[0].startswith("--"):
            opts[args[0][2:]] = args[1]
            args = args[2:]
        rows = [a.split("=", 1) for a in args]
        measure_table(opts, rows)
    elif cmd == "sumret":
        tot = 0
        for line in open(args[0]):
            m = re.search(r"= (\d+)$", line.strip())
            if m:
                tot += int(m.group(1))
        print(tot)
    else:
        print(__doc__, file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
