#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
# SPDX-FileCopyrightText: 2026 the elfthp-align authors
# measure.py COMMAND [ARG...] - run COMMAND (its stdout and stderr, read
# through a pipe so that writing them to a log file is not counted as the
# command's writes, go to this one's stderr) and print one JSON line: exit status, wall, user and
# system seconds, and the blocks (512 bytes) it read and wrote through the
# file systems (getrusage's ru_inblock and ru_oublock, from wait4: the
# command and its children).  Used on the host (in the root's chroot) and
# in the guest by tests/system/run.sh and guest.sh.
import json, os, subprocess, sys, time

t0 = time.monotonic()
p = subprocess.Popen(sys.argv[1:], stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
for chunk in iter(lambda: p.stdout.read(65536), b""):
    sys.stderr.buffer.write(chunk)
sys.stderr.flush()
_, status, ru = os.wait4(p.pid, 0)
wall = time.monotonic() - t0
print(json.dumps({"rc": os.waitstatus_to_exitcode(status), "wall_s": round(wall, 2),
                  "user_s": round(ru.ru_utime, 2), "sys_s": round(ru.ru_stime, 2),
                  "read_bytes": ru.ru_inblock * 512, "written_bytes": ru.ru_oublock * 512}))
