#!/usr/bin/env python3
"""GPU tests of vtrace on a 2-rank NCCL job (issue 42): rank 1 sleeps SLEEP ms before each all-reduce.

Usage: gpu_ranks_check.py CASE --vtrace BIN
Cases:
  torchrun  vtrace run -- torchrun --nproc_per_node 2 allreduce_straggler.py: one trace of both ranks
  separate  one `vtrace run -o t.%r.json` per rank (as two hosts would), then vtrace merge
Both check `vtrace summary --ranks`: rank 1 is the first straggler, last in (nearly) every all-reduce, and the
median arrival skew is within 10% of the sleep; and that the processes carry their rank, host and clock anchors.
Exit 0 when all hold, 1 with the failures listed, 77 (skipped) with fewer than 2 GPUs or no torch with NCCL.
NCCL's NVLink multicast stays off (NCCL_NVLS_ENABLE=0 ...): it can take a shared host's GPUs out of service.
"""
import argparse
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
SAMPLE = os.path.join(HERE, "samples", "allreduce_straggler.py")
PYTHON = os.environ.get("VTRACE_TEST_PYTHON") or shutil.which("python3") or sys.executable
SLEEP_MS = 20.0
STEPS = 10
NO_MULTICAST = {"NCCL_NVLS_ENABLE": "0", "TORCH_SYMM_MEM_DISABLE_MULTICAST": "1", "NVSHMEM_DISABLE_NVLS": "1"}


def gpu_count():
    p = subprocess.run([PYTHON, "-c", "import torch, torch.distributed as d; "
                        "assert d.is_nccl_available(); print(torch.cuda.device_count())"],
                       capture_output=True, text=True)
    return int(p.stdout.strip()) if p.returncode == 0 and p.stdout.strip().isdigit() else 0


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def environment(**extra):
    env = dict(os.environ, **NO_MULTICAST, **extra)
    for key in ("RANK", "LOCAL_RANK", "WORLD_SIZE", "SLURM_PROCID", "OMPI_COMM_WORLD_RANK", "PMI_RANK"):
        env.pop(key, None)  # the job's own variables only
    env.update(extra)
    return env


def run(cmd, env, failures, what):
    p = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=300)
    if p.returncode != 0:
        failures.append(f"{what}: exit {p.returncode}: {' '.join(cmd)}\n{p.stderr[-3000:]}")
    return p


def check_summary(vtrace, trace, failures, label):
    p = run([vtrace, "summary", "--ranks", "--format", "json", trace], os.environ, failures, label + " summary")
    if p.returncode != 0:
        return
    s = json.loads(p.stdout)
    print(f"{label}: {s['collectives_matched']} collectives, skew median {s['skew_median_ns'] / 1e6:.3f} ms, "
          f"stragglers {s['stragglers']}, unmatched {s['unmatched']}")
    ranks = {r["rank"]: r for r in s["ranks"]}
    if sorted(ranks) != [0, 1]:
        failures.append(f"{label}: ranks {sorted(ranks)}, expected [0, 1]")
        return
    if s["stragglers"][:1] != [1]:
        failures.append(f"{label}: first straggler {s['stragglers'][:1]}, expected [1]")
    all_reduces = [c for c in s["collectives"] if c["operation"] == "AllReduce"]
    if len(all_reduces) < STEPS:
        failures.append(f"{label}: {len(all_reduces)} all-reduces matched, expected at least {STEPS}")
    # The measured steps are the last STEPS all-reduces (the warm-up ones come first).
    steps = all_reduces[-STEPS:]
    late = sum(1 for c in steps if c["last_rank"] == 1)
    if late < STEPS - 1:
        failures.append(f"{label}: rank 1 last in {late} of the {STEPS} slept-before all-reduces")
    skews = sorted(c["skew_ns"] for c in steps)
    median = skews[len(skews) // 2] / 1e6 if skews else 0
    if abs(median - SLEEP_MS) > 0.1 * SLEEP_MS:
        failures.append(f"{label}: median skew {median:.3f} ms, expected {SLEEP_MS} ms +- 10%")
    if ranks[0]["wait_ns"] < ranks[1]["wait_ns"]:
        failures.append(f"{label}: rank 0 waited {ranks[0]['wait_ns']} ns, less than rank 1's {ranks[1]['wait_ns']}")


def check_processes(trace_path, failures, label):
    with open(trace_path) as f:
        t = json.load(f)
    ranked = [p for p in t.get("processes", []) if p.get("rank") is not None]
    if sorted(p["rank"] for p in ranked) != [0, 1]:
        failures.append(f"{label}: processes with ranks {[p.get('rank') for p in ranked]}, expected 0 and 1")
    for p in ranked:
        if p.get("world_size") != 2 or not p.get("host") or not p.get("clock_start"):
            failures.append(f"{label}: process {p} lacks world size 2, host or clock anchor")
    if not all(d.get("uuid", "").startswith("GPU-") and d.get("pci_bus_id") for d in t["devices"]):
        failures.append(f"{label}: devices without UUID or PCI bus: {t['devices']}")


def case_torchrun(vtrace, tmp, failures):
    trace = os.path.join(tmp, "torchrun.json")
    torchrun = [PYTHON, "-m", "torch.distributed.run", "--nproc_per_node", "2", "--master_port", str(free_port()),
                SAMPLE, "--sleep-ms", str(SLEEP_MS), "--steps", str(STEPS)]
    p = run([vtrace, "run", "-o", trace, "--"] + torchrun, environment(), failures, "torchrun")
    if p.returncode == 0:
        check_processes(trace, failures, "torchrun")
        check_summary(vtrace, trace, failures, "torchrun")


def case_separate(vtrace, tmp, failures):
    port = str(free_port())
    procs = []
    for rank in (0, 1):
        env = environment(RANK=str(rank), LOCAL_RANK=str(rank), WORLD_SIZE="2", MASTER_ADDR="127.0.0.1",
                          MASTER_PORT=port)
        cmd = [vtrace, "run", "-o", os.path.join(tmp, "t.%r.json"), "--", PYTHON, SAMPLE,
               "--sleep-ms", str(SLEEP_MS), "--steps", str(STEPS)]
        procs.append((rank, subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)))
    for rank, p in procs:
        out, err = p.communicate(timeout=300)
        if p.returncode != 0:
            failures.append(f"rank {rank}: exit {p.returncode}\n{err[-3000:]}")
    parts = [os.path.join(tmp, f"t.{r}.json") for r in (0, 1)]
    if failures or not all(os.path.exists(x) for x in parts):
        failures.append(f"separate: expected {parts} (the -o pattern's %r)")
        return
    merged = os.path.join(tmp, "merged.json")
    p = run([vtrace, "merge"] + parts + ["-o", merged], os.environ, failures, "merge")
    if p.returncode == 0:
        check_processes(merged, failures, "separate")
        check_summary(vtrace, merged, failures, "separate")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("case", choices=["torchrun", "separate"])
    ap.add_argument("--vtrace", required=True)
    a = ap.parse_args()
    n = gpu_count()
    if n < 2:
        print(f"skipped: {n} GPU(s) with torch + NCCL, 2 needed")
        return 77
    failures = []
    with tempfile.TemporaryDirectory() as tmp:
        {"torchrun": case_torchrun, "separate": case_separate}[a.case](a.vtrace, tmp, failures)
    for f in failures:
        print("FAIL:", f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
