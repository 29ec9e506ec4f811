#!/usr/bin/env python3
"""Per-kernel profile of vbench's timed forwards from a vtrace document.

vbench captures many CUDA graphs while it prepares (one per GEMM candidate it tunes) and times replays of the last
one; a plain `vtrace summary` mixes them all. This keeps the kernels of the last graph launched (graph_id of the
final graph kernel), groups them by name and prints, per forward: calls, mean us per call, us per forward, share.
Usage: bench/vbench_profile.py TRACE.json
"""
import json
import sys
from collections import defaultdict


def main():
    with open(sys.argv[1]) as f:
        kernels = json.load(f)["kernels"]
    graphed = [k for k in kernels if k.get("graph_id", 0) != 0]
    if not graphed:
        sys.exit("vbench_profile: no kernel launched from a CUDA graph in " + sys.argv[1])
    last = graphed[-1]["graph_id"]
    timed = [k for k in graphed if k["graph_id"] == last]
    nodes = {k["graph_node_id"] for k in timed}
    forwards = len(timed) / len(nodes)
    per_name = defaultdict(list)
    for k in timed:
        per_name[k["name"]].append(k["end_ns"] - k["start_ns"])
    total = sum(sum(v) for v in per_name.values()) / forwards
    print(f"graph {last}: {len(nodes)} kernels per forward, {forwards:.0f} forwards, "
          f"{total / 1000:.1f} us of kernel time per forward")
    print(f"{'calls':>6} {'mean us':>8} {'us/fwd':>8} {'share':>6}  kernel")
    for name, durations in sorted(per_name.items(), key=lambda item: -sum(item[1])):
        per_forward = sum(durations) / forwards
        short = name if len(name) <= 90 else name[:87] + "..."
        print(f"{len(durations) / forwards:6.0f} {sum(durations) / len(durations) / 1000:8.2f} "
              f"{per_forward / 1000:8.1f} {per_forward / total:6.1%}  {short}")


if __name__ == "__main__":
    main()
