#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
# SPDX-FileCopyrightText: 2026 the elfthp-align authors
"""check.py [--update] VMDIR RESULTS NAME... - the assertions of make check-vm.

Reads what each guest printed (VMDIR/g/NAME/console.log, see
tests/vm/guest.sh) and checks:
  - the guest booted and finished, and nothing failed to be measured;
  - negative controls: the original fixture (tmpfs, ext4, XFS) and a cp of
    the rewritten one (ext4, XFS) are 0 kB PMD-mapped;
  - tmpfs huge=always: the rewrite is windows x PMD (windows from readelf
    on the host, PMD from the page size; the guest's hpage_pmd_size must
    agree);
  - every figure is 0 or windows x PMD (a partly huge file is a failure);
  - --warm exits 0 exactly when the next run is huge, 1 when it is not;
  - --host's verdict for each file system agrees with what was measured
    there (after the rewrite, after --warm), and so do its probe figures;
  - --report's NOW and AFTER for the guest's own geometry equal what the
    original and the rewritten fixture measured on tmpfs (where only the
    layout decides);
  - --pid's PMD-mapped bytes equal smaps' for the running fixture;
  - in place (ext4, XFS): a process started cold maps 0 kB; where --host
    measured that MADV_COLLAPSE works on the file system (7.2), --warm -n
    predicts every window collapsed in place with 0 B read, --warm while
    the process runs makes every window huge reading 0 B, the same process
    then maps them all without a restart, and --pid says small-folios
    with --warm as the step (no stop and start) before, huge after; where
    it does not (6.1, 6.12: never claimed before 7.2), --pid says stop,
    --warm, start, --warm exits 1 (busy) and the process stays at 0 kB;
  - khugepaged (ext4): under THP madvise a cold process stays at 0 kB; under
    always it becomes every window exactly where --host measured that
    MADV_COLLAPSE works (--host's rule for khugepaged), else 0 kB; a process
    idle under always maps 0 kB, and --pid says huge-in-cache where
    khugepaged collapsed its windows (7.2), small-folios elsewhere;
  - amd64: the split fixtures (--layout start: lld and GNU ld PIEs, an
    ET_EXEC, a library, a cgo program) run under Debian 12's glibc and
    print what the originals print; a damaged one does not (the control);
  - the results equal RESULTS (tests/vm/results.txt, what docs/runtime.md's
    table is made from), the kernel's exact release aside; with --update,
    RESULTS is rewritten instead.
Writes VMDIR/results.txt; prints "ok - ..." or "FAIL - ..." per check and
"check-vm: N passed, N failed"; exits 1 on any failure.
"""
import json
import os
import re
import sys

COLUMNS = ["guest", "release", "arch", "page", "fs", "windows", "full_kb", "orig",
           "rewrite", "cold", "warm", "cp", "aligned", "host"]
HEADER = """\
# SPDX-License-Identifier: BSD-2-Clause
# SPDX-FileCopyrightText: 2026 the elfthp-align authors
# Measured by make check-vm (tests/vm/run.sh --update writes this file; the
# run-time table of docs/runtime.md is made from it by tests/vm/table.sh).
# FilePmdMapped or ShmemPmdMapped (kB) of the rewritten fixture in each guest:
# orig: the fixture as linked; rewrite: the run after elfthp-align -o;
# cold: after fsync + POSIX_FADV_DONTNEED; warm: after that and --warm;
# cp: a cp of the rewritten file; aligned: that cp after `elfthp-align FILE`
# (already aligned); host: --host's verdict for the file system.
# '-' where a case does not apply (a tmpfs has no cache to drop).
"""
PMD = {"4k": 2 << 20, "16k": 32 << 20}


class Checks:
    def __init__(self):
        self.passed = self.failed = 0

    def check(self, ok, what, why=""):
        if ok:
            self.passed += 1
            print(f"ok - {what}")
        else:
            self.failed += 1
            print(f"FAIL - {what}: {why}")
        return ok


def text_windows(phdrs, pmd):
    """Windows of the executable PT_LOAD (readelf -lW output)."""
    for line in phdrs.splitlines():
        f = line.split()
        if len(f) >= 8 and f[0] == "LOAD" and "E" in f[6:-1]:
            vaddr, filesz = int(f[2], 16), int(f[4], 16)
            return max(0, (vaddr + filesz) // pmd - (vaddr + pmd - 1) // pmd)
    return None


def parse_console(text):
    """{(fs, case): kb}, {(fs, what): [json]}, {(fs, what): rc}, [errors]."""
    kb, js, rc, errs = {}, {}, {}, []
    for line in text.splitlines():
        line = line.rstrip("\r")
        m = re.match(r"^VMR (\S+) (\S+) (\d+)$", line)
        if m:
            kb[(m[1], m[2])] = int(m[3])
            continue
        m = re.match(r"^VMX (\S+) (\S+) (\d+)$", line)
        if m:
            rc[(m[1], m[2])] = int(m[3])
            continue
        m = re.match(r"^VMJ (\S+) (\S+) (.*)$", line)
        if m:
            try:
                js.setdefault((m[1], m[2]), []).append(json.loads(m[3]))
            except ValueError:
                js.setdefault((m[1], m[2]), []).append(m[3])
            continue
        if line.startswith("VMERR "):
            errs.append(line[6:])
    return kb, js, rc, errs


def host_verdict(js, fs, what="host"):
    for o in js.get((fs, what), []):
        if isinstance(o, dict) and "path" in o:
            return o
    return None


# What --host's verdict says the rewrite and --warm give.
HOST_MEANS = {
    "huge-after-rewrite-and-warm": (True, True),
    "huge-after-rewrite": (True, False),
    "huge-after-warm": (False, True),
    "no-huge-folios": (False, False),
    "no-huge-page": (False, False),
}


def check_host(c, name, fs, row, js, full):
    v = host_verdict(js, fs)
    if not c.check(v is not None, f"{name} {fs}: --host gives a verdict",
                   f"no path object in {js.get((fs, 'host'))}"):
        return "none"
    status = v["status"]
    means = HOST_MEANS.get(status)
    # The rewrite writes with large writes, then runs its page-cache step
    # (what --warm does): huge where either makes PMD-sized folios.
    got_write = row["rewrite"] == full
    want = means is not None and (means[0] or means[1])
    c.check(means is not None and want == got_write,
            f"{name} {fs}: --host '{status}' agrees with the rewrite ({row['rewrite']} kB)",
            f"--host says the rewrite {'is' if want else 'is not'} huge (its writes "
            f"or its page-cache step); measured {row['rewrite']} of {full} kB")
    probe = v["write_pmd_bytes"] > 0 or v["warm_pmd_bytes"] > 0
    c.check(probe == got_write,
            f"{name} {fs}: --host's write and warm probes ({v['write_pmd_bytes']} B, "
            f"{v['warm_pmd_bytes']} B) agree with the rewrite",
            f"probes {v['write_pmd_bytes']} B, {v['warm_pmd_bytes']} B PMD-mapped, "
            f"the rewrite {row['rewrite']} kB")
    if row["warm"] != "-":
        got_warm = row["warm"] == full
        c.check(means is not None and means[1] == got_warm,
                f"{name} {fs}: --host '{status}' agrees with --warm ({row['warm']} kB)",
                f"--host says --warm {'gives' if means and means[1] else 'does not give'} "
                f"huge pages; measured {row['warm']} of {full} kB")
        c.check((v["warm_pmd_bytes"] > 0) == got_warm,
                f"{name} {fs}: --host's readahead probe ({v['warm_pmd_bytes']} B) agrees with --warm",
                f"probe {v['warm_pmd_bytes']} B PMD-mapped, --warm {row['warm']} kB")
    return status


def own_geometry(report):
    for g in report.get("geometries", []):
        if g["name"] == report.get("geometry"):
            return g
    return None


def check_report(c, name, js, tmpfs, pmd):
    orig = (js.get(("-", "report-orig")) or [None])[0]
    rw = (js.get(("tmpfs", "report-rw")) or [None])[0]
    if not c.check(isinstance(orig, dict) and isinstance(rw, dict),
                   f"{name}: --report --format json on the original and the rewrite",
                   f"{orig} / {rw}"):
        return
    c.check(orig["pmd_bytes"] == pmd, f"{name}: --report's PMD is the guest's ({pmd})",
            f"{orig['pmd_bytes']} ({orig['geometry']})")
    g, gr = own_geometry(orig), own_geometry(rw)
    if not c.check(g is not None and gr is not None,
                   f"{name}: --report has the guest's geometry ({orig['geometry']})", "missing"):
        return
    pairs = [("NOW (original)", g["huge_bytes_now"], tmpfs["orig"]),
             ("AFTER (original)", g["huge_bytes_after"], tmpfs["rewrite"]),
             ("NOW (rewritten)", gr["huge_bytes_now"], tmpfs["rewrite"])]
    for what, model, kb in pairs:
        c.check(model == kb * 1024,
                f"{name}: --report {orig['geometry']} {what} = {model} B, measured on tmpfs",
                f"the model says {model} B, the tmpfs run {kb * 1024} B")


def check_fs(c, row, kb, js, rc):
    """The checks of one file system in one guest; fills ROW's figures."""
    name, fs, full, windows = row["guest"], row["fs"], row["full_kb"], row["windows"]
    cases = ("orig", "rewrite") if fs == "tmpfs" else \
        ("orig", "rewrite", "cold", "warm", "cp", "aligned")
    missing = [k for k in cases if (fs, k) not in kb]
    if not c.check(not missing, f"{name} {fs}: every case measured", f"no figure for {missing}"):
        return False
    for k in cases:
        row[k] = kb[(fs, k)]
        c.check(row[k] in (0, full), f"{name} {fs} {k}: {row[k]} kB is 0 or all {windows} windows",
                f"{row[k]} kB, partly huge ({full} kB is every window)")
    c.check(row["orig"] == 0, f"{name} {fs}: negative control: the original is 0 kB",
            f"{row['orig']} kB")
    if fs == "tmpfs":
        c.check(row["rewrite"] == full, f"{name} tmpfs huge=always: the rewrite is {full} kB",
                f"{row['rewrite']} kB")
    else:
        c.check(row["cp"] == 0, f"{name} {fs}: negative control: a cp of the rewrite is 0 kB",
                f"{row['cp']} kB")
        wrc = rc.get((fs, "warm-rc"))
        c.check(wrc == (0 if row["warm"] == full else 1),
                f"{name} {fs}: --warm exits {wrc}, as the next run is {row['warm']} kB",
                f"exit {wrc}: {js.get((fs, 'warm-rc'))}")
    for k in ("rewrite",) if fs == "tmpfs" else ("rewrite", "cold"):
        p = (js.get((fs, "pid-" + k)) or [None])[0]
        c.check(isinstance(p, dict) and p.get("pmd_mapped_bytes") == row[k] * 1024,
                f"{name} {fs}: --pid on the running fixture ({k}) says {row[k]} kB", f"{p}")
    row["host"] = check_host(c, name, fs, row, js, full)
    return True


def release_at_least(rel, major, minor):
    m = re.match(r"(\d+)\.(\d+)", rel)
    return bool(m) and (int(m[1]), int(m[2])) >= (major, minor)


def collapse_measured(js, fs, what="host"):
    v = host_verdict(js, fs, what)
    return None if v is None else v.get("madv_collapse")


def check_probe_file(c, name, fs, js):
    """MADV_COLLAPSE asked of the fixture file itself (--host FILE, which
    writes nothing there) says what the probe of the directory says."""
    d, f = collapse_measured(js, fs), collapse_measured(js, fs, "host-file")
    c.check(f is not None and f == d,
            f"{name} {fs}: MADV_COLLAPSE asked of the file itself says {f} "
            f"(the directory's probe: {d})", f"{host_verdict(js, fs, 'host-file')}")


def check_inplace(c, name, rel, fs, kb, js, rc, full, windows):
    """A running process's small folios: collapsed in place where it works."""
    if (fs, "run-cold") not in kb:
        c.check(False, f"{name} {fs}: the running process measured", "no run-cold figure")
        return
    collapse = collapse_measured(js, fs)
    c.check(collapse is not None, f"{name} {fs}: --host measures MADV_COLLAPSE ({collapse})",
            f"{host_verdict(js, fs)}")
    if not release_at_least(rel, 7, 2):
        c.check(collapse is False, f"{name} {fs}: no collapse in place claimed before 7.2",
                f"--host says madv_collapse {collapse}")
    c.check(kb[(fs, "run-cold")] == 0, f"{name} {fs}: the process started cold maps 0 kB",
            f"{kb[(fs, 'run-cold')]} kB")
    before = (js.get((fs, "pid-run-cold")) or [{}])[0]
    after = (js.get((fs, "pid-run-warm")) or [{}])[0]
    look = (js.get((fs, "warm-n-run")) or [{}])[0]
    warm = (js.get((fs, "warm-run")) or [{}])[0]
    got = kb.get((fs, "run-warm"))
    fix = before.get("fix") or ""
    hv = host_verdict(js, fs) or {}
    if hv.get("status") == "no-huge-folios":
        # ext4 before 6.16: no huge folio at all; --pid says where to go.
        c.check(before.get("status") == "cannot-be-huge" and "--warm" not in fix and
                got == 0 and rc.get((fs, "warm-run")) == 1,
                f"{name} {fs}: no huge folios: --pid says cannot-be-huge, --warm exits 1, 0 kB",
                f"{before}, exit {rc.get((fs, 'warm-run'))}, {got} kB")
        return
    c.check(before.get("status") == "small-folios",
            f"{name} {fs}: --pid before says small-folios", f"{before}")
    if collapse:
        c.check("--warm" in fix and "stop" not in fix and "start it again" not in fix,
                f"{name} {fs}: --pid's step is --warm while it runs", f"fix: {fix}")
        # --pid, --host FILE and --warm -n itself asked MADV_COLLAPSE of the
        # file while the process mapped its small folios: nothing collapsed.
        c.check(look.get("made_huge") == windows and look.get("read_bytes") == 0 and
                all(s.get("state") == "small-folios-collapse" for s in look.get("window_states", [{}])),
                f"{name} {fs}: --warm -n: {windows} windows collapsed in place, 0 B read", f"{look}")
        c.check(rc.get((fs, "warm-run")) == 0 and warm.get("made_huge") == windows and
                warm.get("read_bytes") == 0,
                f"{name} {fs}: --warm while it runs: {windows} made huge, 0 B read, exit 0",
                f"exit {rc.get((fs, 'warm-run'))}: {warm}")
        c.check(got == full, f"{name} {fs}: the running process maps {full} kB after --warm, "
                f"without a restart", f"{got} kB")
        c.check(after.get("status") == "huge" and after.get("pmd_mapped_bytes") == full * 1024,
                f"{name} {fs}: --pid after says huge ({full} kB)", f"{after}")
    else:
        c.check("stop" in fix, f"{name} {fs}: --pid's step stops the process", f"fix: {fix}")
        c.check(rc.get((fs, "warm-run")) == 1 and got == 0,
                f"{name} {fs}: --warm while it runs leaves it (exit 1) and it maps 0 kB",
                f"exit {rc.get((fs, 'warm-run'))}, {got} kB: {warm}")
        c.check(after.get("pmd_mapped_bytes") == (got or 0) * 1024,
                f"{name} {fs}: --pid after says {got} kB", f"{after}")


def check_khugepaged(c, name, kb, js, full):
    always, madvise = kb.get(("ext4", "khp-always")), kb.get(("ext4", "khp-madvise"))
    collapse = collapse_measured(js, "ext4")
    c.check(madvise == 0, f"{name} ext4: khugepaged under THP madvise leaves a cold process at 0 kB",
            f"{madvise} kB")
    want = full if collapse else 0
    c.check(always == want, f"{name} ext4: khugepaged under THP always gives {want} kB "
            f"(MADV_COLLAPSE measured {collapse})", f"{always} kB")
    # An idle process: khugepaged collapses its windows in the page cache
    # (and takes its page tables), so it maps nothing until it runs them.
    idle = (js.get(("ext4", "pid-khp-idle")) or [{}])[0]
    want = "huge-in-cache" if collapse else "small-folios"
    if (host_verdict(js, "ext4") or {}).get("status") == "no-huge-folios":
        want = "cannot-be-huge"
    c.check(kb.get(("ext4", "khp-idle")) == 0 and idle.get("status") == want,
            f"{name} ext4: an idle process under khugepaged: 0 kB mapped, --pid says {want}",
            f"{kb.get(('ext4', 'khp-idle'))} kB, {idle}")
    # --host's glibc line says "only through the page-cache step" where
    # khugepaged does not collapse text, and names khugepaged where it did.
    host = next((o for o in js.get(("ext4", "host")) or [] if isinstance(o, dict) and o.get("status") == "host"), {})
    advice = host.get("glibc_elf_thp_advice") or ""
    names = bool(always) and host.get("thp_enabled") == "always"
    c.check(("khugepaged collapses it" in advice) == names and ("only through" in advice) != names,
            f"{name} ext4: --host's glibc line {'names' if names else 'does not name'} khugepaged "
            f"(THP {host.get('thp_enabled')}, khugepaged made {always} kB under always)", advice)


def check_guest(c, vm, name):
    g = os.path.join(vm, "g", name)
    failed = os.path.join(g, "failed")
    if os.path.exists(failed):
        c.check(False, f"{name}: prepared", open(failed).read().strip())
        return []
    try:
        guest, arch, page, pkg, rel = open(os.path.join(g, "guest.txt")).read().split()
        console = open(os.path.join(g, "console.log"), errors="replace").read()
        qrc = open(os.path.join(g, "qemu.rc")).read().strip()
        phdrs = open(os.path.join(g, "vmfix.phdrs")).read()
    except (OSError, ValueError) as e:
        c.check(False, f"{name}: booted", f"missing output: {e}")
        return []
    plain = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]|[^\n -~]", "", console)
    tail = " | ".join(plain.splitlines()[-12:])
    if not c.check("\nVMDONE" in console.replace("\r", ""), f"{name} ({pkg}): booted and finished",
                   f"qemu exited {qrc}{' (timed out)' if qrc == '124' else ''}; console: {tail}"):
        return []
    kb, js, rc, errs = parse_console(console)
    for e in errs:
        c.check(False, f"{name}: measured", e)
    pmd = PMD[page]
    guest_pmd = [o for o in js.get(("-", "pmd"), [])]
    c.check(guest_pmd == [pmd], f"{name}: hpage_pmd_size is {pmd}", f"the guest says {guest_pmd}")
    windows = text_windows(phdrs, pmd)
    full = (windows or 0) * pmd // 1024
    c.check(bool(windows), f"{name}: the fixture has {windows} windows of {pmd >> 20} MiB",
            "readelf finds no window")
    rows = []
    disks = [fs for fs in ("ext4", "xfs", "btrfs") if (fs, "orig") in kb]
    for fs in ["tmpfs"] + (disks if "btrfs" in disks else ["ext4", "xfs"]):
        row = {k: "-" for k in COLUMNS}
        row.update(guest=name, release=rel, arch=arch, page=page, fs=fs,
                   windows=windows, full_kb=full)
        if check_fs(c, row, kb, js, rc):
            rows.append(row)
        if fs in ("ext4", "xfs"):
            check_inplace(c, name, rel, fs, kb, js, rc, full, windows)
        if fs != "tmpfs":
            check_probe_file(c, name, fs, js)
    if release_at_least(rel, 7, 2):
        h = next((o for o in js.get(("ext4", "host"), []) if isinstance(o, dict)
                  and o.get("status") == "host"), {})
        c.check(h.get("read_only_thp_for_fs_absent") is True,
                f"{name}: --host finds the config in /usr/lib/modules and says "
                "CONFIG_READ_ONLY_THP_FOR_FS is gone", f"{h}")
    if "btrfs" in disks:
        c.check(collapse_measured(js, "btrfs") is False,
                f"{name} btrfs: --host measures no MADV_COLLAPSE there",
                f"{host_verdict(js, 'btrfs')}")
    check_khugepaged(c, name, kb, js, full)
    if arch == "amd64":
        check_split(c, name, console, js)
    tmpfs = next((r for r in rows if r["fs"] == "tmpfs"), None)
    if tmpfs:
        check_report(c, name, js, tmpfs, pmd)
    return rows


SPLIT_KINDS = ("lld-pie", "bfd-pie", "exec", "lib", "gocgo")


def check_split(c, name, console, js):
    """amd64: the split fixtures run under Debian 12's glibc and print what
    the originals print; the damaged one does not (the control)."""
    runs = {}
    for line in console.replace("\r", "").splitlines():
        m = re.match(r"^VMS (\S+) (\S+) (\d+) ?(.*)$", line)
        if m:
            runs[(m[1], m[2])] = (int(m[3]), m[4])
    for k in SPLIT_KINDS:
        o, t = runs.get(("orig", k)), runs.get(("tool", k))
        if not c.check(o is not None and o[0] == 0 and o[1].startswith("walked, sum "),
                       f"{name}: split fixture {k} as linked runs", f"{o}"):
            continue
        c.check(t == o, f"{name}: {k} split by --layout start runs and prints the same "
                f"under Debian 12's glibc ({o[1]})", f"orig {o}, split {t}")
    ver = " ".join(str(o) for o in js.get(("-", "split-glibc"), []))
    c.check(re.search(r"\b2\.36\b", ver) is not None,
            f"{name}: the split fixtures ran under glibc 2.36 (Debian 12's)", f"ld.so says [{ver}]")
    d, o = runs.get(("damaged", "lld-pie")), runs.get(("orig", "lld-pie"))
    c.check(d is not None and o is not None and d != o,
            f"{name}: control: the split lld-pie with one byte of its body changed "
            "does not print the same", f"orig {o}, damaged {d}")


def fmt(row):
    return " ".join(str(row[k]) for k in COLUMNS)


def read_results(path):
    out = {}
    try:
        for line in open(path):
            if line.strip() and not line.startswith("#"):
                f = line.split()
                out[(f[0], f[4])] = f
    except OSError:
        pass
    return out


def main(argv):
    update = argv[:1] == ["--update"]
    if update:
        argv = argv[1:]
    vm, results, names = argv[0], argv[1], argv[2:]
    c = Checks()
    rows = []
    for name in names:
        rows += check_guest(c, vm, name)
    committed = read_results(results)
    with open(os.path.join(vm, "results.txt"), "w") as f:
        f.write(HEADER + "".join(fmt(r) + "\n" for r in rows))
    if update:
        if c.failed == 0:
            keep = {k: v for k, v in committed.items() if k[0] not in names}
            new = {(r["guest"], r["fs"]): fmt(r).split() for r in rows}
            order = [k for k in committed if k in new or k in keep] + \
                [k for k in new if k not in committed]
            with open(results, "w") as f:
                f.write(HEADER + "".join(" ".join(map(str, (new.get(k) or keep[k]))) + "\n"
                                         for k in order))
            print(f"# wrote {results}")
    else:
        for r in rows:
            want = committed.get((r["guest"], r["fs"]))
            got = fmt(r).split()
            same = want is not None and want[:1] + want[2:] == got[:1] + got[2:]
            c.check(same, f"{r['guest']} {r['fs']}: as in tests/vm/results.txt",
                    f"measured [{' '.join(got)}], committed [{' '.join(want or [])}]"
                    " (make check-vm VM_UPDATE=1 rewrites it and the table of docs/runtime.md)")
    print(f"check-vm: {c.passed} passed, {c.failed} failed")
    return 1 if c.failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
