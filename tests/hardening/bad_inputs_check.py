#!/usr/bin/env python3
"""Runs every malformed input under tests/data/bad/ through the tool that reads it, as tests/data/bad/EXPECTATIONS.tsv
says, and checks the exit code, the first stderr line and that nothing was written to stdout (issue 8).

  bad_inputs_check.py --table EXPECTATIONS.tsv --tool vplan=PATH ... [--have render]

The table: '#' comments and tab-separated rows `file  exit  command  stderr-prefix  [needs]`.
- file: relative to the table's folder; every file there (the table aside) must have a row. A file may have a row
  per tool and subcommand that reads its format (vtrace summary and vrender for a trace; vplan check, table and dot
  and vrender for a plan): those rows must agree, the same exit code and the same stderr after the tool's name
  ("vtrace: error: ..." and "vrender: error: ...").
- command: the tool's name, then its arguments; {file} is the row's file, {data} is tests/data, {tmp} a scratch
  folder (the working directory). The tool's name maps to a binary through --tool NAME=PATH.
- stderr-prefix: the first line of stderr starts with it, after the same substitutions; one that ends with '$' is
  the whole of stderr instead (one line, byte for byte: no echo of the input's bytes after it).
- needs: an optional feature ("render": Graphviz + librsvg); rows whose feature was not passed with --have are
  reported as skipped.
Exit 0 when every row holds, 1 with a report of each failing row otherwise.
"""
import argparse
import os
import shlex
import subprocess
import sys
import tempfile


def read_table(path):
    rows = []
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if not line.strip() or line.startswith("#"):
                continue
            cols = line.split("\t")
            if len(cols) not in (4, 5):
                sys.exit(f"{path}:{n}: expected 4 or 5 tab-separated columns, got {len(cols)}")
            file, code, command, prefix = cols[:4]
            rows.append({"line": n, "file": file, "exit": int(code), "command": command, "stderr": prefix,
                         "needs": cols[4] if len(cols) == 5 else ""})
    return rows


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--table", required=True)
    ap.add_argument("--tool", action="append", default=[], help="NAME=PATH")
    ap.add_argument("--have", action="append", default=[], help="a feature this build has (render)")
    a = ap.parse_args()
    tools = {n: os.path.abspath(p) for n, p in (t.split("=", 1) for t in a.tool)}
    root = os.path.dirname(os.path.abspath(a.table))
    data = os.path.dirname(root)
    rows = read_table(a.table)

    problems = []
    on_disk = {os.path.relpath(os.path.join(d, f), root) for d, _, fs in os.walk(root) for f in fs}
    on_disk.discard(os.path.basename(a.table))
    named = [r["file"] for r in rows]
    for f in sorted(on_disk - set(named)):
        problems.append(f"{f}: no row in {a.table}")
    for r in rows:
        if r["file"] not in on_disk:
            problems.append(f"{a.table}:{r['line']}: {r['file']} does not exist")
    by_file = {}
    for r in rows:
        by_file.setdefault(r["file"], []).append(r)
    for f, same in by_file.items():
        tools_named = [shlex.split(r["command"])[0] for r in same]
        # One row per tool and subcommand (the second word: "check", "table", or vrender's "{file}").
        readers = [tuple(shlex.split(r["command"])[:2]) for r in same]
        if len(set(readers)) < len(readers):
            problems.append(f"{a.table}:{same[-1]['line']}: {f} has more than one row for one tool and subcommand")
        # Every tool that reads the file refuses it alike: one exit code, one message after "<tool>: ".
        told = {(r["exit"], r["stderr"][len(t) + 2:] if r["stderr"].startswith(t + ": ") else r["stderr"])
                for r, t in zip(same, tools_named)}
        if len(told) > 1:
            problems.append(f"{a.table}:{same[-1]['line']}: the tools disagree on {f}: " +
                            "; ".join(f"{t} exits {r['exit']} with '{r['stderr']}'" for r, t in zip(same, tools_named)))

    ran = skipped = 0
    with tempfile.TemporaryDirectory(prefix="bad-inputs-") as tmp:
        for r in rows:
            path = os.path.join(root, r["file"])
            if not os.path.exists(path):
                continue
            if r["needs"] and r["needs"] not in a.have:
                skipped += 1
                print(f"skipped {r['file']}: needs {r['needs']}")
                continue

            def subst(text):
                return text.replace("{file}", path).replace("{data}", data).replace("{tmp}", tmp)

            argv = [subst(w) for w in shlex.split(r["command"])]
            if argv[0] not in tools:
                problems.append(f"{a.table}:{r['line']}: unknown tool '{argv[0]}' (pass --tool {argv[0]}=PATH)")
                continue
            argv[0] = tools[argv[0]]
            try:
                p = subprocess.run(argv, capture_output=True, cwd=tmp, stdin=subprocess.DEVNULL, timeout=120)
            except subprocess.TimeoutExpired:
                problems.append(f"{r['file']}: still running after 120 s: {' '.join(argv)}")
                continue
            ran += 1
            err = p.stderr.decode("utf-8", "replace").splitlines()
            first = err[0] if err else ""
            want = subst(r["stderr"])
            fails = []
            if p.returncode != r["exit"]:
                fails.append(f"exit {p.returncode}, expected {r['exit']}")
            if want.endswith("$"):
                whole = (want[:-1] + "\n").encode("utf-8")
                if p.stderr != whole:
                    fails.append(f"stderr {p.stderr!r}\n    is not exactly {whole!r}")
            elif not first.startswith(want):
                fails.append(f"stderr {first!r}\n    does not start with {want!r}")
            if p.stdout:
                fails.append(f"{len(p.stdout)} bytes on stdout: a failed run must not write output")
            for f in fails:
                problems.append(f"{r['file']} ({a.table}:{r['line']}): {f}")
    print(f"{ran} bad inputs checked, {skipped} skipped, {len(problems)} problems")
    for pr in problems:
        print("FAIL:", pr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
