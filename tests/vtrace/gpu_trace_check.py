#!/usr/bin/env python3
"""GPU tests of `vtrace run` (launch mode): runs a traced program and asserts exact kernels, grids and counts.

Usage: gpu_trace_check.py CASE --vtrace BIN [--sample BIN]
Cases: sample_ok, sample_exit3, sample_abort, sample_badlaunch, sample_nocuda, sample_filter, sample_ranges, torch,
torch_ranges, triton, diff_same, diff_triton, diff_vbench (--vbench BIN).
Exit 0 when every assertion holds, 1 with the failures listed, 77 (skipped) when no GPU (or no torch/triton).
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile


def have_gpu():
    smi = shutil.which("nvidia-smi")
    if not smi:
        return False
    p = subprocess.run([smi, "-L"], capture_output=True, text=True)
    return p.returncode == 0 and "GPU" in p.stdout


# The interpreter for the PyTorch/Triton workloads: $VTRACE_TEST_PYTHON, else python3 on PATH (torch may live in a
# virtual environment that the interpreter running this script does not see).
PYTHON = os.environ.get("VTRACE_TEST_PYTHON") or shutil.which("python3") or sys.executable


def have_module(name):
    p = subprocess.run([PYTHON, "-c", f"import {name}, torch; assert torch.cuda.is_available()"], capture_output=True)
    return p.returncode == 0


class Checker:
    def __init__(self):
        self.failures = []

    def eq(self, what, got, want):
        if got != want:
            self.failures.append(f"{what}: got {got!r}, expected {want!r}")

    def true(self, what, cond):
        if not cond:
            self.failures.append(what)


def trace_of(vtrace, cmd, extra=(), env=None):
    out = os.path.join(tempfile.mkdtemp(prefix="vtrace-gpu-"), "t.json")
    p = subprocess.run([vtrace, "run", *extra, "-o", out, "--", *cmd], capture_output=True, text=True, timeout=600,
                       env=env)
    sys.stderr.write(p.stderr)
    if not os.path.exists(out):
        print(f"FAIL: vtrace wrote no trace (exit {p.returncode}): {' '.join(cmd)}")
        sys.exit(1)
    return p, access_objects(json.load(open(out))), out


def access_objects(doc):
    """The trace with its access records as objects that name their kernel: version 3 writes rows of
    access_columns, and both 2 and 3 name the kernel by kernel_id into access_kernels."""
    columns = doc.get("access_columns")
    if columns:
        doc["accesses"] = [dict(zip(columns, row)) for row in doc.get("accesses", [])]
    for a in doc.get("accesses", []):
        a["kernel"] = doc["access_kernels"][a["kernel_id"]]
    return doc


def diff_of(vtrace, base, cand, extra=()):
    """`vtrace diff BASE CAND --format json` as a dict, and its exit status."""
    p = subprocess.run([vtrace, "diff", base, cand, "--format", "json", *extra], capture_output=True, text=True,
                       timeout=600)
    sys.stderr.write(p.stderr)
    if p.returncode not in (0, 1):
        print(f"FAIL: vtrace diff exited {p.returncode}")
        sys.exit(1)
    return json.loads(p.stdout), p.returncode


def check_code_hashes(c, doc, what):
    """Every launch names its code: the module-load records reached the trace (CUPTI or Sanitizer callbacks)."""
    missing = sorted({k["name"][:80] for k in doc["kernels"] if not k.get("code_hash")})
    c.true(f"{what}: {len(missing)} kernels without code_hash: {missing[:5]}", not missing)


def kernels_named(doc, name):
    return [k for k in doc["kernels"] if k["name"] == name]


FILL = "fill(float*, int, float)"
SCALE = "scale2d(float*, int, int)"


def check_sample_work(c, doc, kernels=True):
    fills = kernels_named(doc, FILL)
    c.eq("fill launches", len(fills), 3)
    for k in fills:
        c.eq("fill grid", k["grid"], [4, 1, 1])
        c.eq("fill block", k["block"], [256, 1, 1])
        c.eq("fill mangled name", k["mangled_name"], "_Z4fillPfif")
        c.true("fill ends after it starts", k["end_ns"] > k["start_ns"])
    scales = kernels_named(doc, SCALE)
    c.eq("scale2d launches", len(scales), 1)
    for k in scales:
        c.eq("scale2d grid", k["grid"], [8, 4, 1])
        c.eq("scale2d block", k["block"], [16, 16, 1])
        c.eq("scale2d dynamic smem", k["dynamic_shared_bytes"], 1024)
    starts = [k["start_ns"] for k in doc["kernels"]]
    c.eq("kernels sorted by start", starts, sorted(starts))
    # Exactly one copy each way of the sample's 4000 bytes, one memset of 16384 (the runtime may add its own).
    c.eq("htod copies of 4000 bytes", [m["bytes"] for m in doc["memcpys"] if m["kind"] == "htod"].count(4000), 1)
    c.eq("dtoh copies of 4000 bytes", [m["bytes"] for m in doc["memcpys"] if m["kind"] == "dtoh"].count(4000), 1)
    c.eq("memsets of 16384 bytes", [m["bytes"] for m in doc["memsets"]].count(16384), 1)
    sizes = sorted(a["size"] for a in doc["allocations"] if a["memory_kind"] == "device")
    c.true(f"device allocations of 4000 and 16384 bytes among {sizes}", 4000 in sizes and 16384 in sizes)
    c.true("a device with a name and SMs", doc["devices"] and doc["devices"][0]["name"] and doc["devices"][0]["sm_count"] > 0)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("case")
    ap.add_argument("--vtrace", required=True)
    ap.add_argument("--sample")
    ap.add_argument("--vbench")
    ap.add_argument("--scripts", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "samples"))
    a = ap.parse_args()
    if not have_gpu():
        print("no GPU: skipped")
        return 77
    c = Checker()
    if a.case == "sample_ok":
        p, doc, path = trace_of(a.vtrace, [a.sample, "ok"])
        c.eq("exit status", p.returncode, 0)
        c.eq("stdout passes through", p.stdout, "launch_sample: done 3\n")
        c.eq("partial", doc["partial"], False)
        c.eq("dropped", doc["dropped_records"], 0)
        c.eq("run.exit_status", doc["run"]["exit_status"], 0)
        check_sample_work(c, doc)
        s = subprocess.run([a.vtrace, "summary", "--format", "json", path], capture_output=True, text=True)
        summary = json.loads(s.stdout)
        rows = {k["name"]: k for k in summary["kernels"]}
        c.eq("summary fill calls", rows.get(FILL, {}).get("calls"), 3)
        # Real CUPTI times: the exposed times sum to the busy time, which no kernel's total undercuts.
        exposed = sum(k["exposed_ns"] for k in summary["kernels"])
        c.true(f"exposed times sum to busy_ns ({exposed} vs {summary['busy_ns']})",
               abs(exposed - summary["busy_ns"]) <= 1e-6 * max(1.0, summary["busy_ns"]))
        c.true("busy_ns within the GPU time", 0 < summary["busy_ns"] <= summary["gpu_time_ns"] + 1e-6)
        c.true("each kernel's exposed time within its total", all(k["exposed_ns"] <= k["total_ns"] + 1e-6
                                                                   for k in summary["kernels"]))
        c.eq("check exit", subprocess.run([a.vtrace, "check", path], capture_output=True).returncode, 0)
        e = subprocess.run([a.vtrace, "export", "--chrome", path], capture_output=True, text=True)
        events = [x for x in json.loads(e.stdout)["traceEvents"] if x["ph"] == "X" and x["cat"] == "kernel"]
        c.eq("chrome kernel events", len(events), 4)
    elif a.case == "sample_exit3":
        p, doc, _ = trace_of(a.vtrace, [a.sample, "exit3"])
        c.eq("exit status", p.returncode, 3)
        c.eq("run.exit_status", doc["run"]["exit_status"], 3)
        c.eq("partial", doc["partial"], False)
        check_sample_work(c, doc)
    elif a.case == "sample_abort":
        p, doc, _ = trace_of(a.vtrace, [a.sample, "abort"])
        c.eq("exit status", p.returncode, 134)
        c.eq("run.signal", doc["run"]["signal"], 6)
        c.eq("partial", doc["partial"], True)
        c.eq("fill launches flushed at the abort", len(kernels_named(doc, FILL)), 3)
    elif a.case == "sample_badlaunch":
        p, doc, path = trace_of(a.vtrace, [a.sample, "badlaunch"])
        c.eq("exit status", p.returncode, 0)
        c.true(f"a failed launch of fill recorded: {doc['failed_launches']}",
               any(f["kernel"] == FILL and "Launch" in f["api"] for f in doc["failed_launches"]))
        c.eq("fill launches that ran", len(kernels_named(doc, FILL)), 3)
        c.eq("check exit", subprocess.run([a.vtrace, "check", path], capture_output=True).returncode, 1)
    elif a.case == "sample_nocuda":
        p, doc, _ = trace_of(a.vtrace, [a.sample, "nocuda"])
        c.eq("exit status", p.returncode, 0)
        c.eq("kernels", doc["kernels"], [])
        c.eq("processes", doc["run"]["process_ids"], [])
        c.eq("partial", doc["partial"], False)
    elif a.case == "sample_filter":
        p, doc, _ = trace_of(a.vtrace, [a.sample, "ok"], ["--kernel", "^scale"])
        c.eq("kernels kept", [k["name"] for k in doc["kernels"]], [SCALE])
        c.eq("filtered", doc["filtered_kernels"], 3)
    elif a.case == "sample_ranges":
        # Without --capture-range the calls change nothing; with it, only the second fill, scale2d and the dtoh copy.
        p, doc, _ = trace_of(a.vtrace, [a.sample, "ranges"])
        c.eq("exit status", p.returncode, 0)
        check_sample_work(c, doc)
        c.eq("ranges listed without the option", len(doc["run"]["capture_ranges"]), 2)
        c.eq("no NVTX without --nvtx", doc.get("nvtx_ranges"), [])
        c.true("no launch calls without --nvtx", all(k.get("launch_ns") is None for k in doc["kernels"]))
        p, doc, path = trace_of(a.vtrace, [a.sample, "ranges"], ["--capture-range", "cudaProfilerApi", "--nvtx"])
        c.eq("exit status", p.returncode, 0)
        c.eq("run.capture_range", doc["run"]["capture_range"], "cudaProfilerApi")
        ranges = doc["run"]["capture_ranges"]
        c.eq("ranges", len(ranges), 2)
        if len(ranges) == 2:
            c.true(f"the first range is closed and ordered: {ranges[0]}",
                   ranges[0]["end_ns"] is not None and ranges[0]["start_ns"] < ranges[0]["end_ns"])
            c.eq("the second range has no stop", ranges[1]["end_ns"], None)
        fills = kernels_named(doc, FILL)
        c.eq("fill launches in the range", len(fills), 1)
        c.eq("scale2d launches in the range", len(kernels_named(doc, SCALE)), 1)
        c.eq("kernels left out", doc["filtered_kernels"], 2)
        copies = [(m["kind"], m["bytes"]) for m in doc["memcpys"]]
        c.eq("copies of 4000 bytes in the ranges", [x for x in copies if x[1] == 4000], [("dtoh", 4000)])
        c.eq("memsets of 16384 bytes (before any range)", [m["bytes"] for m in doc["memsets"]].count(16384), 0)
        if fills and ranges:
            c.true("the kept fill ran after the first start", fills[0]["start_ns"] >= ranges[0]["start_ns"])
        s = subprocess.run([a.vtrace, "summary", "--format", "json", path], capture_output=True, text=True)
        summary = json.loads(s.stdout)
        c.eq("summary fill calls", {k["name"]: k["calls"] for k in summary["kernels"]}.get(FILL), 1)
        # NVTX (--nvtx; recorded whatever --capture-range says): the sample's range, mark and domain range, on its
        # thread.
        nvtx = {(r["domain"], r["name"]): r for r in doc.get("nvtx_ranges", [])}
        c.eq("NVTX ranges and marks", sorted(nvtx), [("", "after fills"), ("", "fills"), ("sample", "copy back")])
        fills_range = nvtx.get(("", "fills"), {})
        c.true(f"the fills range ended after it started: {fills_range}",
               fills_range.get("end_ns") is not None and fills_range["end_ns"] > fills_range["start_ns"])
        c.true("the fills range holds the start of the kept fill",
               bool(fills and fills_range) and fills_range["start_ns"] < fills[0]["start_ns"])
        c.eq("the mark", nvtx.get(("", "after fills"), {}).get("mark"), True)
        c.true("one thread", len({r["thread_id"] for r in nvtx.values()}) == 1)
        # Each kernel's launch call: the NVTX thread, a host time before the kernel ran; so the "fills" range holds
        # the kernels kept (the second fill and scale2d), "copy back" none.
        threads = {r["thread_id"] for r in nvtx.values()}
        for k in doc["kernels"]:
            c.true(f"{k['name']} launched by the NVTX thread {threads}: {k.get('thread_id')}", k.get("thread_id") in threads)
            c.true(f"{k['name']} launch call before it ran", k.get("launch_ns") is not None and k["launch_ns"] < k["start_ns"])
        c.eq("summary NVTX rows (domain, name, count, kernels)",
             sorted((r["domain"], r["name"], r["count"], r["kernels"]) for r in summary["nvtx_ranges"]),
             [("", "fills", 1, 2), ("sample", "copy back", 1, 0)])
    elif a.case == "torch_ranges":
        if not have_module("torch"):
            return 77
        p, doc, path = trace_of(a.vtrace, [PYTHON, os.path.join(a.scripts, "torch_ops.py"), "--profile"],
                                ["--capture-range", "cudaProfilerApi", "--nvtx"])
        c.eq("exit status", p.returncode, 0)
        names = [k["name"] for k in doc["kernels"]]
        softmax = [n for n in names if "softmax" in n.lower()]
        c.eq(f"softmax kernels in the range ({set(softmax)})", len(softmax), 2)
        c.eq("ranges", [r["end_ns"] is not None for r in doc["run"]["capture_ranges"]], [True])
        c.true(f"kernels left out (randn, 3 iterations, the final sum): {doc['filtered_kernels']}",
               doc["filtered_kernels"] >= 6)
        iterations = [r for r in doc.get("nvtx_ranges", []) if r["name"] == "iteration"]
        c.eq("NVTX iteration ranges (all 5: NVTX is not cut by --capture-range)", len(iterations), 5)
        c.true("each iteration range ended", all(r["end_ns"] and r["end_ns"] > r["start_ns"] for r in iterations))
        s = subprocess.run([a.vtrace, "summary", "--format", "json", path], capture_output=True, text=True)
        rows = {r["name"]: r for r in json.loads(s.stdout)["nvtx_ranges"]}
        c.eq("kernels launched inside the iteration ranges (every kernel kept)", rows.get("iteration", {}).get("kernels"),
             len(doc["kernels"]))
    elif a.case == "torch":
        if not have_module("torch"):
            return 77
        p, doc, _ = trace_of(a.vtrace, [PYTHON, os.path.join(a.scripts, "torch_ops.py")])
        c.eq("exit status", p.returncode, 0)
        names = [k["name"] for k in doc["kernels"]]
        softmax = [n for n in names if "softmax" in n.lower()]
        gemm = [n for n in names if re.search(r"gemm|xmma|cutlass|Kernel2", n, re.I)]
        c.eq(f"softmax kernels ({set(softmax)})", len(softmax), 5)
        c.true(f"at least 5 GEMM kernels, got {len(gemm)} of {sorted(set(names))}", len(gemm) >= 5)
        c.eq("partial", doc["partial"], False)
    elif a.case == "api":  # run --api: torch_ops.py ends in torch.cuda.synchronize() and float(y.sum())
        if not have_module("torch"):
            return 77
        p, doc, path = trace_of(a.vtrace, [PYTHON, os.path.join(a.scripts, "torch_ops.py")], ["--api"])
        c.eq("exit status", p.returncode, 0)
        c.eq("run.api", doc["run"].get("api"), True)
        calls = doc.get("api_calls", [])
        names = sorted({x["name"] for x in calls})
        c.true(f"cudaDeviceSynchronize among the blocking calls {names}", "cudaDeviceSynchronize" in names)
        c.true(f"no CUPTI version suffix left in {names}", not any(re.search(r"_v\d{4,}$", n) for n in names))
        c.true("every call has a thread and ends after it starts",
               all(x["thread_id"] and x["end_ns"] >= x["start_ns"] for x in calls))
        launched = [k for k in doc["kernels"] if k.get("launch_ns")]
        c.eq("kernels with a launch call (queue delay)", len(launched), len(doc["kernels"]))
        s = subprocess.run([a.vtrace, "summary", "--api", "--format", "json", path], capture_output=True, text=True)
        c.eq("summary --api exit", s.returncode, 0)
        summary = json.loads(s.stdout)
        c.eq("summary --api calls", summary["calls"], len(calls))
        c.true(f"queue delays of every kernel: {summary['queue_delay']}",
               summary["queue_delay"]["kernels"] == len(doc["kernels"]))
        for d in summary["devices"]:
            c.true(f"device {d['device_id']}: idle while blocked within idle ({d})",
                   0 <= d["idle_host_blocked_ns"] <= d["idle_ns"] <= d["span_ns"])
        t = subprocess.run([a.vtrace, "summary", "--api", "--format", "table", path], capture_output=True, text=True)
        print(t.stdout)
    elif a.case == "triton":
        if not have_module("triton"):
            return 77
        p, doc, _ = trace_of(a.vtrace, [PYTHON, os.path.join(a.scripts, "triton_add.py")])
        c.eq("exit status", p.returncode, 0)
        adds = kernels_named(doc, "add_kernel")
        c.eq("add_kernel launches", len(adds), 3)
        for k in adds:
            c.eq("add_kernel grid", k["grid"], [10, 1, 1])
            c.eq("add_kernel block", k["block"], [128, 1, 1])
    elif a.case == "diff_same":
        # The same program twice: every kernel the same code, nothing added or removed, no change blamed on code.
        _, doc_a, path_a = trace_of(a.vtrace, [a.sample, "ok"])
        _, doc_b, path_b = trace_of(a.vtrace, [a.sample, "ok"])
        check_code_hashes(c, doc_a, "sample")
        d, _ = diff_of(a.vtrace, path_a, path_b)
        c.eq("added", d["added"], [])
        c.eq("removed", d["removed"], [])
        c.eq("codes", sorted({k["code"] for k in d["kernels"]}), ["same"])
        c.true("no change put down to code", all(k.get("likely_cause") != "code" for k in d["kernels"]))
    elif a.case == "diff_triton":
        # add_kernel compiled with BLOCK 1024 and 512: same name, other code; torch's own kernels unchanged.
        if not have_module("triton"):
            return 77
        script = [PYTHON, os.path.join(a.scripts, "triton_add.py")]
        _, doc_a, path_a = trace_of(a.vtrace, script)
        _, doc_b, path_b = trace_of(a.vtrace, script, env=dict(os.environ, TRITON_ADD_BLOCK="512"))
        check_code_hashes(c, doc_a, "triton_add")
        check_code_hashes(c, doc_b, "triton_add BLOCK=512")
        d, _ = diff_of(a.vtrace, path_a, path_b)
        code = {k["name"]: k["code"] for k in d["kernels"]}
        c.eq("add_kernel code", code.get("add_kernel"), "changed")
        others = {n: v for n, v in code.items() if n != "add_kernel"}
        c.true(f"torch's kernels matched: {others}", len(others) >= 1)
        c.true(f"torch's kernels the same code: {others}", all(v == "same" for v in others.values()))
    elif a.case == "diff_vbench":
        # vbench gpt2 bf16: the unfused forward twice (the same binary: no code changed, whatever cuBLASLt's tuning
        # picked), then against a run that searches (its own wgmma kernels appear as added).
        run = [a.vbench, "run", "--config", "gpt2", "--backend", "cuda", "--dtype", "bf16", "--iters", "5",
               "--warmup", "2", "-o", os.devnull]
        _, doc_a, path_a = trace_of(a.vtrace, run + ["--forward", "unfused"])
        _, doc_b, path_b = trace_of(a.vtrace, run + ["--forward", "unfused"])
        _, doc_s, path_s = trace_of(a.vtrace, run)
        check_code_hashes(c, doc_a, "vbench unfused")
        d, _ = diff_of(a.vtrace, path_a, path_b)
        c.true("kernels matched", len(d["kernels"]) >= 5)
        c.eq("codes, same forward twice", sorted({k["code"] for k in d["kernels"]}), ["same"])
        c.true("no change put down to code", all(k.get("likely_cause") != "code" for k in d["kernels"]))
        d, _ = diff_of(a.vtrace, path_a, path_s)
        c.eq("codes, unfused against a search", sorted({k["code"] for k in d["kernels"]}), ["same"])
        c.true(f"the search's kernels added ({len(d['added'])})", len(d["added"]) >= 1)
        print(f"diff_vbench: {len(d['kernels'])} matched, {len(d['added'])} added, {len(d['removed'])} removed; "
              f"busy {d['base']['busy_ns'] / 1e6:.1f} -> {d['candidate']['busy_ns'] / 1e6:.1f} ms")
    else:
        print(f"unknown case {a.case}")
        return 2
    for f in c.failures:
        print("FAIL:", f)
    return 1 if c.failures else 0


if __name__ == "__main__":
    sys.exit(main())
