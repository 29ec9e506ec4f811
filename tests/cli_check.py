#!/usr/bin/env python3
"""Runs one CLI command and asserts its exit code, the prefix of its first stderr line and a regex over stdout.

Usage: cli_check.py --exit N [--stderr-prefix P] [--stdout-regex R] [--stdin FILE] -- CMD ARGS...
Exit 0 when every assertion holds, 1 (with a diff-like report) otherwise. Used by vtools_cli_test in CMake.
An argument spelled {empty} is passed as an empty string (CMake drops "" from a command line).
"""
import argparse
import re
import subprocess
import sys


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--exit", type=int, required=True)
    ap.add_argument("--stderr-prefix")
    ap.add_argument("--stdout-regex")
    ap.add_argument("--stdin")
    ap.add_argument("cmd", nargs=argparse.REMAINDER)
    a = ap.parse_args()
    cmd = a.cmd[1:] if a.cmd and a.cmd[0] == "--" else a.cmd
    cmd = ["" if arg == "{empty}" else arg for arg in cmd]
    stdin = open(a.stdin, "rb") if a.stdin else subprocess.DEVNULL
    p = subprocess.run(cmd, stdin=stdin, capture_output=True, timeout=600)
    out = p.stdout.decode("utf-8", "replace")
    err = p.stderr.decode("utf-8", "replace")
    problems = []
    if p.returncode != a.exit:
        problems.append(f"exit code {p.returncode}, expected {a.exit}")
    if a.stderr_prefix is not None:
        first = err.splitlines()[0] if err.splitlines() else ""
        if not first.startswith(a.stderr_prefix):
            problems.append(f"stderr first line {first!r} does not start with {a.stderr_prefix!r}")
    if a.stdout_regex is not None and not re.search(a.stdout_regex, out, re.MULTILINE):
        problems.append(f"stdout does not match /{a.stdout_regex}/")
    if problems:
        print("command:", " ".join(cmd))
        for pr in problems:
            print("FAIL:", pr)
        print("--- stdout (first 2000 chars)\n" + out[:2000])
        print("--- stderr (first 2000 chars)\n" + err[:2000])
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
