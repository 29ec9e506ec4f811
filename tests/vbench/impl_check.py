#!/usr/bin/env python3
"""CLI checks of `vbench run --impl` (the external-forward protocol) on the CPU, with the numpy implementation
(python/vbench_impl/numpy_gpt.py) and the compiled example: one run per way an implementation can go right or wrong,
each asserting the exit code, the error line, the document written (schema-valid, the benchmark marked with the
reason) and that no working file is left behind.

Usage: impl_check.py VBENCH PYTHON EXAMPLE BENCH_SCHEMA IMPL_SCHEMA WORKDIR
"""
import json
import os
import shutil
import signal
import subprocess
import sys
import time

import jsonschema

VB, PY, EXAMPLE, BENCH_SCHEMA, IMPL_SCHEMA, WORK = sys.argv[1:7]
TINY = ["--n-layer", "2", "--n-head", "2", "--n-embd", "8", "--vocab", "37", "--block", "16", "--warmup", "1",
        "--iters", "3"]
SHAPE = ["-B", "2", "-T", "5"]
NUMPY = f"{PY} -m vbench_impl.numpy_gpt"
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)


def run(name, impl_args, flags=(), exit_code=0, err=None, impl=None):
    """Runs vbench with one --impl (or `impl`, a list of --impl values) in a fresh TMPDIR; returns the document."""
    tmp = os.path.join(WORK, name + ".tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    os.makedirs(tmp)
    out = os.path.join(WORK, name + ".json")
    impls = impl if impl is not None else [f"{NUMPY} {impl_args}".strip()]
    cmd = [VB, "run", *TINY, *([] if "-B" in flags else SHAPE), *flags, "-o", out]
    for i in impls:
        cmd += ["--impl", i]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=300, env={**os.environ, "TMPDIR": tmp})
    lines = [l for l in p.stderr.splitlines() if l.startswith("vbench: error: ")]
    check(p.returncode == exit_code, f"{name}: exit {p.returncode}, expected {exit_code}\n{p.stderr}")
    if err is not None:
        check(any(err in l for l in lines), f"{name}: no error line with {err!r} in\n{p.stderr}")
    else:
        check(not lines, f"{name}: unexpected error lines {lines}")
    check(os.listdir(tmp) == [], f"{name}: left {os.listdir(tmp)} in TMPDIR")
    if "{impl}" in out or not os.path.exists(out):
        return None
    with open(out) as f:
        doc = json.load(f)
    jsonschema.validate(doc, json.load(open(BENCH_SCHEMA)))
    return doc


def only(doc):
    (b,) = doc["benchmarks"].values()
    return b


def interrupt():
    """^C (SIGINT to vbench alone, as a terminal sends it to vbench's group, not the child's): exit 130, the
    implementation's whole group killed, nothing left in TMPDIR."""
    tmp = os.path.join(WORK, "interrupt.tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    os.makedirs(tmp)
    pidfile = os.path.join(WORK, "interrupt.pid")
    if os.path.exists(pidfile):
        os.remove(pidfile)
    p = subprocess.Popen([VB, "run", *TINY, *SHAPE, "-o", os.path.join(WORK, "interrupt.json"), "--impl",
                          f"sleep 60 & echo $! > {pidfile}.tmp && mv {pidfile}.tmp {pidfile}; wait"],
                         env={**os.environ, "TMPDIR": tmp}, stderr=subprocess.PIPE)
    for _ in range(200):
        if os.path.exists(pidfile):
            break
        time.sleep(0.05)
    p.send_signal(signal.SIGINT)
    p.wait(timeout=30)
    check(p.returncode == 130, f"interrupt: exit {p.returncode}, expected 130")
    sleeper = int(open(pidfile).read())
    for _ in range(100):
        try:
            os.kill(sleeper, 0)
        except ProcessLookupError:
            break
        time.sleep(0.05)
    else:
        check(False, "interrupt: the implementation's child still runs")
    check(os.listdir(tmp) == [], f"interrupt: left {os.listdir(tmp)} in TMPDIR")
    check(not os.path.exists(os.path.join(WORK, "interrupt.json")), "interrupt: wrote a document")


def main():
    if subprocess.run([PY, "-c", "import numpy"], capture_output=True).returncode != 0:
        print("impl_check: skipped: no numpy for", PY, "(scripts/install-deps installs python3-numpy)")
        return 77
    os.makedirs(WORK, exist_ok=True)
    impl_schema = json.load(open(IMPL_SCHEMA))
    reply_copy = os.path.join(WORK, "reply.copy.json")
    request_copy = os.path.join(WORK, "request.copy.json")
    # Right: gated against the cpu backend, every statistic vbench's own, the implementation named.
    doc = run("ok", "", impl=[f"tee {request_copy} | {NUMPY} --copy-reply {reply_copy}"],
              flags=["--repetitions", "2"])
    b = only(doc)
    check(b["status"] == "ok" and b["backend"] == "numpy-gpt", f"ok: status {b['status']} backend {b['backend']}")
    check(b["correctness"]["passed"] and b["correctness"]["reference"] == "cpu-fp32", "ok: gate")
    check(b["timing"]["n"] == 6 and len(b["repetitions"]) == 2, f"ok: {b['timing']['n']} samples")
    check(doc["metadata"]["implementation"]["name"] == "numpy-gpt", "ok: implementation")
    check(doc["metadata"]["gpu_name"] is None, "ok: a host implementation has no gpu_name")
    for path in (request_copy, reply_copy):
        jsonschema.validate(json.load(open(path)), impl_schema)
    # The request's other settings reach the implementation: --no-check (no logits asked), --min-time, cold
    # caches, a sweep of shapes (one process per benchmark).
    b = only(run("no_check", "", flags=["--no-check"]))
    check(b["status"] == "unchecked" and "correctness" not in b, f"no_check: {b['status']}")
    b = only(run("min_time", "", flags=["--min-time", "0.05", "--caches", "cold"]))
    check(b["timing"]["n"] > 3 and sum(b["timing"]["samples_ms"]) >= 50 and b["caches"] == "cold",
          f"min_time: {b['timing']['n']} samples")
    doc = run("sweep", "", flags=["-B", "1,2", "-T", "3,5"])
    check(sorted(doc["benchmarks"]) == ["custom/B:1/T:3", "custom/B:1/T:5", "custom/B:2/T:3", "custom/B:2/T:5"] and
          all(b["status"] == "ok" for b in doc["benchmarks"].values()), f"sweep: {list(doc['benchmarks'])}")
    # The document goes to stdout untouched by what the implementation prints there.
    p = subprocess.run([VB, "run", *TINY, *SHAPE, "--impl", f"echo noise; {NUMPY}"], capture_output=True, text=True)
    check(p.returncode == 0 and json.loads(p.stdout)["metadata"]["backend"] == "numpy-gpt", "stdout: not JSON")
    check("noise" in p.stderr, "stdout: the implementation's stdout is not on stderr")
    # Wrong: each marked with its reason, the document written whole, exit 1 (65 for a malformed reply).
    b = only(run("wrong_logits", "--scale-logits 1.5", exit_code=1, err="logits failed the correctness gate"))
    check(b["status"] == "failed" and not b["correctness"]["passed"] and "timing" not in b, "wrong_logits: record")
    b = only(run("timeout", "--sleep 30", flags=["--impl-timeout", "1"], exit_code=1,
                 err="custom: timed out after 1 s (killed)"))
    check(b["failure"]["kind"] == "timeout", "timeout: kind")
    b = only(run("crash", "--crash", exit_code=1, err="custom: "))
    check(b["failure"]["kind"] == "crash" and ("signal 11" in b["failure"]["reason"] or "139" in
                                               b["failure"]["reason"]), f"crash: {b['failure']}")
    b = only(run("exit3", "--exit 3", exit_code=1, err="custom: exited with status 3"))
    check(b["failure"] == {"kind": "crash", "reason": "exited with status 3"}, "exit3: failure")
    b = only(run("not_json", "--reply-text 'not json'", exit_code=65, err="custom: malformed reply:1:1: "))
    check(b["failure"]["kind"] == "malformed", "not_json: kind")
    run("short_logits", "--short-logits", exit_code=65,
        err="custom: malformed logits: logits file holds 1476 bytes, expected 1480 (float32 [2][5][37])")
    run("few_samples", "--samples 1", exit_code=65,
        err="custom: malformed reply: repetitions[0] has 1 samples, expected at least 3 (--iters)")
    run("no_reply", "", impl=["true"], exit_code=65,
        err="custom: malformed reply: the implementation exited 0 but wrote none")
    # Several implementations: one document each, named after them; then compared across implementations.
    run("{impl}", "", impl=[f"{NUMPY} --name a", f"{NUMPY} --name b"])
    for n in ("a", "b"):
        check(json.load(open(os.path.join(WORK, n + ".json")))["metadata"]["backend"] == n, f"several: {n}.json")
    doc = run("example", "", impl=[f"{EXAMPLE} --backend cpu"])
    check(only(doc)["backend"] == "vbench-impl-example-cpu" and only(doc)["status"] == "ok", "compiled example")
    p = subprocess.run([VB, "compare", os.path.join(WORK, "example.json"), os.path.join(WORK, "a.json")],
                       capture_output=True, text=True)
    cmp = json.loads(p.stdout) if p.returncode == 0 else {}
    check(cmp.get("baseline", {}).get("backend") == "vbench-impl-example-cpu" and
          cmp.get("candidate", {}).get("backend") == "a" and len(cmp.get("comparisons", [])) == 1,
          f"compare across implementations: {p.returncode} {p.stderr}")
    interrupt()
    print(f"impl_check: {len(failures)} failure(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
