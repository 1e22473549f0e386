#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
# SPDX-FileCopyrightText: 2026 the elfthp-align authors
"""json_lines.py SCHEMA [MODE]: validate JSON lines on stdin against SCHEMA.

Every line must be one JSON object that the schema accepts (and, with MODE,
whose "mode" is MODE).  Prints one line per invalid input line and exits 1
if there was any; prints "N lines" and exits 0 otherwise.  An empty input
is an error: a mode that printed nothing was not checked.
"""
import json
import sys

import jsonschema


def main():
    schema = json.load(open(sys.argv[1]))
    mode = sys.argv[2] if len(sys.argv) > 2 else None
    validator = jsonschema.Draft202012Validator(schema)
    bad = n = 0
    for n, line in enumerate(sys.stdin, 1):
        try:
            obj = json.loads(line)
        except ValueError as e:
            print(f"line {n}: not JSON ({e}): {line.strip()[:200]}")
            bad += 1
            continue
        errors = sorted(validator.iter_errors(obj), key=lambda e: e.path)
        if errors:
            # oneOf hides the reason: name the branch that fits best.
            best = jsonschema.exceptions.best_match(errors)
            print(f"line {n}: {best.message[:300]}: {line.strip()[:200]}")
            bad += 1
        elif mode is not None and obj.get("mode") != mode:
            print(f"line {n}: mode {obj.get('mode')!r}, expected {mode!r}")
            bad += 1
    if n == 0:
        print("no lines at all")
        return 1
    if bad:
        return 1
    print(f"{n} lines")
    return 0


if __name__ == "__main__":
    sys.exit(main())
