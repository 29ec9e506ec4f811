#!/usr/bin/env python3
"""Validates a JSON document against a vtools schema (draft 2020-12) with `python3 -m jsonschema`.

  schema_check.py --expect valid|invalid SCHEMA DOC
  schema_check.py --expect valid --run SCHEMA -- CMD...   (validates CMD's stdout)
Exit 0 when the outcome matches --expect, 1 otherwise, 77 when the jsonschema module is missing (test skipped).
"""
import argparse
import os
import subprocess
import sys
import tempfile


def validate(schema, doc):
    # The CLI of Debian 12's jsonschema (4.10): exit 0 when valid, non-zero with the errors on stderr otherwise.
    p = subprocess.run([sys.executable, "-m", "jsonschema", "-i", doc, schema], capture_output=True, text=True)
    return p.returncode == 0, (p.stdout + p.stderr).strip()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--expect", choices=["valid", "invalid"], required=True)
    ap.add_argument("--run", action="store_true")
    ap.add_argument("schema")
    ap.add_argument("rest", nargs=argparse.REMAINDER)
    a = ap.parse_args()
    try:
        import jsonschema  # noqa: F401
    except ImportError:
        print("jsonschema module missing (install python3-jsonschema)")
        return 77
    if a.run:
        cmd = a.rest[1:] if a.rest and a.rest[0] == "--" else a.rest
        p = subprocess.run(cmd, capture_output=True)
        if p.returncode != 0:
            print("command failed with", p.returncode, ":", " ".join(cmd))
            print(p.stderr.decode("utf-8", "replace")[:2000])
            return 1
        with tempfile.NamedTemporaryFile("wb", suffix=".json", delete=False) as f:
            f.write(p.stdout)
            doc = f.name
    else:
        doc = a.rest[0]
    ok, report = validate(a.schema, doc)
    if a.run:
        os.unlink(doc)
    if ok != (a.expect == "valid"):
        print(f"expected {a.expect}, got {'valid' if ok else 'invalid'}: {doc}\n{report[:3000]}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
