#!/usr/bin/env python3
"""Runs vrender on one annotated bad input and checks the exit code and error line its leading comment promises.

The comment is `// expect exit N: MESSAGE-PREFIX` (DOT) or a "//" member (JSON); `<file>` stands for the path.
Files without a comment (truncated JSON) pass --exit/--stderr-prefix on the command line instead.
Usage: bad_input_check.py VRENDER FILE [--exit N --stderr-prefix P]
"""
import re
import subprocess
import sys


def main():
    vrender, path = sys.argv[1], sys.argv[2]
    text = open(path, encoding="utf-8", errors="replace").read()
    m = re.search(r'expect exit (\d+): (.*?)(?:"\s*,|\n)', text)
    if m:
        code, prefix = int(m.group(1)), m.group(2).replace("<file>", path)
    else:
        code, prefix = int(sys.argv[sys.argv.index("--exit") + 1]), sys.argv[sys.argv.index("--stderr-prefix") + 1]
    p = subprocess.run([vrender, path, "-o", "-", "--format", "html"], capture_output=True, timeout=120)
    err = p.stderr.decode("utf-8", "replace")
    first = err.splitlines()[0] if err.splitlines() else ""
    problems = []
    if p.returncode != code:
        problems.append(f"exit {p.returncode}, expected {code}")
    if not first.startswith(prefix):
        problems.append(f"stderr {first!r} does not start with {prefix!r}")
    if p.stdout:
        problems.append(f"{len(p.stdout)} bytes on stdout: a failed run must not write output")
    for pr in problems:
        print("FAIL:", pr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
