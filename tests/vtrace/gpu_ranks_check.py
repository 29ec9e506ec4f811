#!/usr/bin/env python3
"""GPU tests of vtrace on a 2-rank NCCL job (issue 42): rank 1 sleeps SLEEP ms before each all-reduce.

Usage: gpu_ranks_check.py CASE --vtrace BIN
Cases:
  torchrun  vtrace run -- torchrun --nproc_per_node 2 allreduce_straggler.py: one trace of both ranks
  separate  one `vtrace run -o t.%r.json` per rank (as two hosts would), then vtrace merge
Both check `vtrace summary --ranks`: rank 1 is the first straggler, last in (nearly) every all-reduce, and the
median arrival skew is within 10% of the sleep; and that the processes carry their rank, host and clock anchors.
  access_torchrun  vtrace run --accesses -- torchrun ... rank_kernels.py traces only torchrun's own process (the
                   preload stays inert in children): no kernel, and a note says so and what to do; then
                   torchrun --no-python ... vtrace run --accesses -o t.%r.json -- python rank_kernels.py + vtrace
                   merge: rows name their process, each rank's launch 0 of a kernel apart, each rank on its GPU
  access_separate  one `vtrace run --accesses -o t.%r.json` per rank started by hand, then vtrace merge: the same
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
ACCESS_SAMPLE = os.path.join(HERE, "samples", "rank_kernels.py")
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


def check_access_ranks(trace_path, failures, label):
    """Access mode (issue 42): the two ranks' records stay apart by process, and each rank's kernels ran on its GPU."""
    check_processes(trace_path, failures, label)
    with open(trace_path) as f:
        t = json.load(f)
    rank_of = {p["id"]: p.get("rank") for p in t.get("processes", [])}
    if t.get("access_columns", [])[-1:] != ["process_id"]:
        failures.append(f"{label}: access_columns {t.get('access_columns')} do not end in process_id")
        return
    launches = {}  # (kernel id, launch) -> ranks with that launch
    for row in t["accesses"]:
        launches.setdefault((row[0], row[1]), set()).add(rank_of.get(row[-1]))
    if not any(ranks == {0, 1} for ranks in launches.values()):
        failures.append(f"{label}: no kernel launch index has access rows of both ranks: {launches}")
    uuid_of = {d["id"]: d.get("uuid") for d in t["devices"]}
    gpus = {}  # rank -> UUIDs of its kernels' devices
    for k in t["kernels"]:
        gpus.setdefault(rank_of.get(k["process_id"]), set()).add(uuid_of.get(k.get("device_id", 0)))
    if sorted(gpus) != [0, 1] or any(len(u) != 1 for u in gpus.values()) or gpus[0] == gpus[1]:
        failures.append(f"{label}: each rank's kernels should run on one GPU of its own: {gpus}")
    print(f"{label}: {len(t['kernels'])} launches, {len(t['accesses'])} access rows, GPUs by rank {gpus}")


def case_access_torchrun(vtrace, tmp, failures):
    trace = os.path.join(tmp, "access_torchrun.json")
    torchrun = [PYTHON, "-m", "torch.distributed.run", "--nproc_per_node", "2", "--master_port", str(free_port())]
    p = run([vtrace, "run", "--accesses", "-o", trace, "--"] + torchrun + [ACCESS_SAMPLE], environment(), failures,
            "access torchrun")
    if p.returncode == 0:
        with open(trace) as f:
            t = json.load(f)
        if t["kernels"] or not any("launched no kernel: access mode traces only the command's own process" in n
                                   for n in t["run"]["notes"]):
            failures.append(f"access torchrun: expected no kernel and the note on untraced children, got "
                            f"{len(t['kernels'])} kernels, notes {t['run']['notes']}")
    # vtrace inside each rank, then merged.
    torchrun[-1] = str(free_port())
    run(torchrun + ["--no-python", vtrace, "run", "--accesses", "-o", os.path.join(tmp, "r.%r.json"), "--", PYTHON,
                    ACCESS_SAMPLE], environment(), failures, "torchrun of vtrace --accesses")
    if failures:
        return
    merged = os.path.join(tmp, "access_torchrun_merged.json")
    p = run([vtrace, "merge", os.path.join(tmp, "r.0.json"), os.path.join(tmp, "r.1.json"), "-o", merged],
            os.environ, failures, "access merge")
    if p.returncode == 0:
        check_access_ranks(merged, failures, "access torchrun per rank")


def case_access_separate(vtrace, tmp, failures):
    parts = []
    for rank in (0, 1):
        env = environment(RANK=str(rank), LOCAL_RANK=str(rank), WORLD_SIZE="2")
        parts.append(os.path.join(tmp, f"a.{rank}.json"))
        run([vtrace, "run", "--accesses", "-o", os.path.join(tmp, "a.%r.json"), "--", PYTHON, ACCESS_SAMPLE], env,
            failures, f"access rank {rank}")
    if failures:
        return
    merged = os.path.join(tmp, "access_merged.json")
    p = run([vtrace, "merge"] + parts + ["-o", merged], os.environ, failures, "access merge")
    if p.returncode == 0:
        check_access_ranks(merged, failures, "access separate")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("case", choices=["torchrun", "separate", "access_torchrun", "access_separate"])
    ap.add_argument("--vtrace", required=True)
    a = ap.parse_args()
    n = gpu_count()
    if n < 2:
        print(f"skipped: {n} GPU(s) with torch + NCCL, 2 needed")
        return 77
    failures = []
    with tempfile.TemporaryDirectory() as tmp:
        {"torchrun": case_torchrun, "separate": case_separate, "access_torchrun": case_access_torchrun,
         "access_separate": case_access_separate}[a.case](a.vtrace, tmp, failures)
    for f in failures:
        print("FAIL:", f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
