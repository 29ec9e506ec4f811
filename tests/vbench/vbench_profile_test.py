#!/usr/bin/env python3
"""bench/vbench_profile.py keeps only the last graph's kernels: a synthetic trace with a tuning graph (graph 3, a
slow candidate) before the timed one (graph 7: 3 nodes x 4 replays) and one launch outside any graph."""
import json
import os
import subprocess
import sys
import tempfile

script = os.path.join(os.path.dirname(__file__), "..", "..", "bench", "vbench_profile.py")


def kernel(name, graph, node, start, duration_ns):
    return {"name": name, "graph_id": graph, "graph_node_id": node, "start_ns": start, "end_ns": start + duration_ns}


kernels = [kernel("setup", 0, 2**64 - 1, 0, 10_000)]
kernels += [kernel("gemm_candidate_slow", 3, n, 100_000 + n * 1000, 50_000) for n in range(5)]
t = 1_000_000
for replay in range(4):
    for node, (name, us) in enumerate([("layernorm", 2), ("gemm", 6), ("layernorm", 2)]):
        kernels.append(kernel(name, 7, node, t, us * 1000))
        t += 10_000
with tempfile.TemporaryDirectory() as tmp:
    path = os.path.join(tmp, "t.json")
    with open(path, "w") as f:
        json.dump({"format": "vtools.trace", "kernels": kernels}, f)
    out = subprocess.run([sys.executable, script, path], capture_output=True, text=True, check=True).stdout
    empty = os.path.join(tmp, "empty.json")
    with open(empty, "w") as f:
        json.dump({"kernels": [kernels[0]]}, f)
    refused = subprocess.run([sys.executable, script, empty], capture_output=True, text=True)
lines = out.splitlines()
expected_head = "graph 7: 3 kernels per forward, 4 forwards, 10.0 us of kernel time per forward"
ok = lines[0] == expected_head and "candidate" not in out and "setup" not in out
ok = ok and lines[2].split()[:4] == ["1", "6.00", "6.0", "60.0%"] and lines[2].endswith("gemm")
ok = ok and lines[3].split()[:4] == ["2", "2.00", "4.0", "40.0%"] and lines[3].endswith("layernorm")
ok = ok and refused.returncode != 0 and "no kernel launched from a CUDA graph" in refused.stderr
if not ok:
    sys.exit("unexpected output:\n" + out + refused.stderr)
