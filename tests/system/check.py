#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
# SPDX-FileCopyrightText: 2026 the elfthp-align authors
# check.py SYSDIR - the verdicts of make check-system (tests/system/run.sh),
# from what the host recorded (SYSDIR/host: the converge runs in the tool's
# root) and what each guest printed (SYSDIR/g/NAME/results.txt).  Writes
# SYSDIR/results.txt: one line a check, PASS or FAIL, then the numbers;
# exits 1 if any check failed.
#
# The unit's command exits 2 when a file in /usr is refused.  Each refused
# file is listed with its reason and its class: "hardlinks" (a file with
# several names: mesa's DRI drivers) and "foreign" (an ELF file Linux would
# not load here: firmware for other machines) are the two classes known
# today (tracker issue 29, fixed on branch h29-links); a refusal of any
# other kind is "other".  Either way the check fails: the harness reports,
# it does not excuse.
import json, os, re, sys

SYS = sys.argv[1]
HOST = os.path.join(SYS, "host")
lines, failed = [], 0


def verdict(ok, name, detail=""):
    global failed
    failed += 0 if ok else 1
    lines.append(f"{'PASS' if ok else 'FAIL'} {name}" + (f": {detail}" if detail else ""))


def note(text):
    lines.append(f"     {text}")


def read(path, default=""):
    try:
        with open(path, errors="replace") as f:
            return f.read()
    except OSError:
        return default


def classify(msg):
    if re.search(r"hard link", msg):
        return "hardlinks"
    # qemu's firmware for other machines: PT_LOADs Linux would refuse.
    if re.search(r"not congruent modulo the page size|machine|architecture|"
                 r"not loadable|e_machine", msg):
        return "foreign"
    return "other"


def refusals(text):
    """[(path, message, class)] for each error line of the tool."""
    out = []
    for line in text.splitlines():
        m = re.match(r"elfthp-align: (/[^:]*): (.*)", line)
        if m:
            out.append((m.group(1), m.group(2), classify(m.group(2))))
    return out


def run_record(name):
    j = read(os.path.join(HOST, name + ".json"))
    try:
        rec = json.loads(j)
    except ValueError:
        rec = {"rc": -1}
    changed = [f for f in (l.split(" ", 2) for l in
               read(os.path.join(HOST, name + ".changed")).splitlines()) if len(f) == 3]
    rec["changed"] = len(changed)
    inodes = {i: int(size) for i, size, _ in changed}
    rec["changed_files"] = len(inodes)
    rec["changed_bytes"] = sum(inodes.values())
    rec["refused"] = refusals(read(os.path.join(HOST, name + ".err")))
    return rec


def rc_verdict(name, rec, ok_codes):
    """PASS if the exit status is one of ok_codes; an exit 2 lists every refusal."""
    classes = sorted({c for _, _, c in rec["refused"]})
    ok = rec["rc"] in ok_codes
    detail = f"exit {rec['rc']}"
    if rec["refused"]:
        detail += f", {len(rec['refused'])} refused ({', '.join(classes)})"
        if set(classes) <= {"hardlinks", "foreign"}:
            detail += ": only the known classes (tracker issue 29, branch h29-links)"
    verdict(ok, name, detail)
    for path, msg, cls in rec["refused"]:
        note(f"[{cls}] {path}: {msg}")


def link_groups(path):
    """The sets of names that share an inode, from find -printf '%i %n %p'."""
    by = {}
    for line in read(path).splitlines():
        f = line.split(" ", 2)
        if len(f) == 3:
            by.setdefault(f[0], set()).add(f[2])
    return sorted(tuple(sorted(g)) for g in by.values())


def host_checks():
    cmd = read(os.path.join(HOST, "execstart")).strip()
    lines.append(f"# the unit's command: {cmd}")
    before, first = run_record("check-before"), run_record("first")
    second, after = run_record("second"), run_record("check-after")
    # Its getrusage writes are not the tool's: the first read of a fresh copy
    # updates atimes (relatime), and `cat` over the same files counts as much.
    todo = read(os.path.join(HOST, "check-before.err")).count(": fix: ")
    verdict(todo > 0 and before["changed"] == 0,
            "host: --check before the converge names files to fix, changes none",
            f"{todo} files to fix, {before['changed']} files changed "
            f"({before.get('written_bytes')} bytes written, getrusage)")
    rc_verdict("host: --check before the converge exits 1", before, (1,))
    rc_verdict("host: first converge (the unit's command, chroot, the root's /usr)", first, (0, 1))
    verdict(first["changed"] > 0, "host: the first converge rewrote files",
            f"{first['changed']} names, {first['changed_files']} files of "
            f"{first['changed_bytes']} bytes, "
            f"{first.get('written_bytes', '?')} bytes written, {first.get('wall_s', '?')} s")
    rc_verdict("host: second run of the unit's command", second, (0, 1))
    verdict(second["changed"] == 0 and second.get("written_bytes") == 0,
            "host: the second run writes nothing",
            f"{second['changed']} files changed, {second.get('written_bytes')} bytes written")
    rc_verdict("host: --check after the converge (every file aligned)", after, (0,))
    groups = {n: link_groups(os.path.join(HOST, n)) for n in ("hardlinks-before", "hardlinks")}
    verdict(groups["hardlinks-before"] == groups["hardlinks"] and groups["hardlinks"],
            "host: hard-linked names are still one file each after the converge",
            f"{len(groups['hardlinks-before'])} groups before, {len(groups['hardlinks'])} after, "
            f"{sum(map(len, groups['hardlinks']))} names")
    # Time is reported, not judged: the host is shared and the guests boot
    # beside it (a performance goal belongs to bench/, not to a check).
    print(f"# host: second run {second.get('wall_s')} s (user {second.get('user_s')} "
          f"sys {second.get('sys_s')}), --check {after.get('wall_s')} s "
          f"(user {after.get('user_s')} sys {after.get('sys_s')})")
    return {"first": first, "second": second, "check": after, "before": before}


def guest(name):
    g = os.path.join(SYS, "g", name)
    kv, logs = {}, {}
    for line in read(os.path.join(g, "results.txt")).splitlines():
        if line.startswith("SYS "):
            parts = line.split(" ", 2)
            key = parts[1]
            val = parts[2] if len(parts) > 2 else ""
            if key == "work":
                kv.setdefault("work", []).append(val)
            else:
                kv[key] = val
        elif line.startswith("SYSLOG "):
            _, what, text = (line.split(" ", 2) + [""])[:3]
            logs.setdefault(what, []).append(text)
    kv["done"] = "SYSDONE" in read(os.path.join(g, "results.txt"))
    kv["qemu_rc"] = read(os.path.join(g, "qemu.rc")).strip()
    kv["boot_s"] = read(os.path.join(g, "boot_s")).strip()
    return kv, logs


def guest_checks(name):
    kv, logs = guest(name)
    p = f"{name} guest:"
    verdict(kv["done"] and kv["qemu_rc"] == "0", f"{p} booted, ran the checks, powered off",
            f"qemu exit {kv['qemu_rc']} after {kv['boot_s']} s, "
            f"{kv.get('uname', '?')}, root {kv.get('rootfs', '?')}, "
            f"checks done at {kv.get('total_uptime_s', '?')} s uptime")
    failed_units = kv.get("failed_units", "?").split()
    verdict(kv.get("state") == "running" and not failed_units,
            f"{p} systemctl is-system-running says running, no failed unit",
            f"{kv.get('state', '?')} at {kv.get('uptime_s', '?')} s uptime; "
            f"failed: {' '.join(failed_units) or 'none'}")
    works = kv.get("work", [])
    for w in works:
        n, res = (w.split() + ["?"])[:2]
        verdict(res == "pass", f"{p} workload {n}", "; ".join(logs.get(n, []))[:400])
    want = 6 + (1 if name == "tool" else 0)
    verdict(len(works) == want, f"{p} all {want} workload programs ran", f"{len(works)} reported")
    try:
        pid = json.loads(kv.get("pid_json", "{}")).get("summary", {})
    except ValueError:
        pid = {}
    smaps = int(kv.get("smaps_total_kb", "0") or 0)
    return kv, logs, pid, smaps


def tool_guest_checks(kv, logs, pid, smaps):
    p = "tool guest:"
    unit = kv.get("unit", "?").split()
    ok = unit[:2] == ["enabled", "success"]
    verdict(ok, f"{p} elfthp-align.service at boot (enabled, succeeded)",
            f"{' '.join(unit)}, ran {kv.get('unit_boot_s', '?')} s")
    if not ok:
        for path, msg, cls in refusals("\n".join(logs.get("unitlog", []))):
            note(f"[{cls}] {path}: {msg}")
    verdict(kv.get("timer", "").split() == ["enabled", "active"], f"{p} elfthp-align.timer",
            kv.get("timer", "?"))
    try:
        second = json.loads(kv.get("second", "{}"))
    except ValueError:
        second = {}
    rec = {"rc": second.get("rc", -1), "refused": refusals("\n".join(logs.get("second", [])))}
    rc_verdict(f"{p} second run of the unit's command", rec, (0, 1))
    verdict(second.get("written_bytes") == 0 and kv.get("second_changed") == "0",
            f"{p} the second run writes nothing",
            f"{kv.get('second_changed')} files changed, {second.get('written_bytes')} bytes "
            f"written, {second.get('read_bytes')} read, {second.get('wall_s')} s")
    try:
        third, check = json.loads(kv.get("third", "{}")), json.loads(kv.get("check", "{}"))
    except ValueError:
        third, check = {}, {}
    tw, cw = third.get("wall_s"), check.get("wall_s")
    # Like --check, the steady state reads no data: judged by bytes, not
    # by TCG's wall time (reported), which the other guest's boot skews.
    verdict(third.get("written_bytes") == 0 and third.get("read_bytes") == 0,
            f"{p} a third run writes nothing and reads no data (as --check)",
            f"third {tw} s, {third.get('read_bytes')} bytes read; --check {cw} s (TCG)")
    verdict(pid.get("huge_bytes", 0) > 0 and smaps > 0,
            f"{p} elfthp-align --pid all finds huge text, and smaps agrees",
            f"--pid all: {pid.get('huge_bytes', 0) >> 10} kB huge, "
            f"{pid.get('missed_bytes', 0) >> 10} kB could be; FilePmdMapped {smaps} kB "
            f"({kv.get('smaps_files', '')})")
    verdict(kv.get("upgrade_before_check") == "1" and kv.get("upgrade_after_check") == "0",
            f"{p} a file upgraded (package bytes back) is rewritten by the unit",
            f"{kv.get('upgrade_file')}: "
            f"--check before {kv.get('upgrade_before_check')}, unit "
            f"{kv.get('upgrade_unit')}, --check after {kv.get('upgrade_after_check')}")


def main():
    h = host_checks()
    tool = guest_checks("tool")
    tool_guest_checks(*tool)
    ctl = guest_checks("control")
    ts, cs = tool[3], ctl[3]
    verdict(ts > cs, "control guest: less huge text than the tool's (FilePmdMapped, all processes)",
            f"tool {ts} kB, control {cs} kB; control --pid all: "
            f"{ctl[2].get('huge_bytes', 0) >> 10} kB huge, {ctl[2].get('missed_bytes', 0) >> 10} kB could be")
    f, s, c = h["first"], h["second"], h["check"]
    lines.append("# numbers: first converge "
                 f"{f.get('wall_s')} s wall ({f.get('user_s')} user, {f.get('sys_s')} sys), "
                 f"{f.get('written_bytes')} bytes written, {f['changed_files']} files replaced "
                 f"({f['changed']} names, {f['changed_bytes']} bytes); second run {s.get('wall_s')} s, "
                 f"{s.get('written_bytes')} bytes written; --check {c.get('wall_s')} s; "
                 f"boots: tool {tool[0]['boot_s']} s, control {ctl[0]['boot_s']} s")
    passed = sum(1 for l in lines if l.startswith("PASS"))
    lines.append(f"check-system: {passed} passed, {failed} failed")
    text = "\n".join(lines) + "\n"
    with open(os.path.join(SYS, "results.txt"), "w") as out:
        out.write(text)
    sys.stdout.write(text)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
