#!/usr/bin/env python3
"""Summarises a persistent-forward trace (VTOOLS_VBENCH_PERSISTENT_TRACE=FILE vbench run ...): per layer and step,
when its first task was ready, when its last one signalled, and the mean us each task spent in each phase after its
inputs were ready (first data in, math, stores, signal).
Usage: bench/persistent_trace.py TRACE [LAYERS]   (LAYERS: how many layers to list from the start, default 2)"""
import collections
import sys

STEPS = ['ln_1', 'qkv+attn', 'attn_proj', 'ln_2', 'fc', 'fc_proj']  # a layer's steps, in list order


def main():
    lines = open(sys.argv[1]).read().split('\n')
    rows = [[int(x) for x in line.split()] for line in lines[1:] if line.strip()]
    show = int(sys.argv[2]) if len(sys.argv) > 2 else 2
    t0 = min(r[6] for r in rows)
    # Steps: runs of tasks of one kind in list order (two norm steps per layer, the final one last).
    steps = []
    for r in rows:
        if not steps or steps[-1][0] != r[2]:
            steps.append((r[2], []))
        steps[-1][1].append(r)
    print('%-12s %5s %9s %9s %8s %8s %8s %8s %8s' % ('step', 'tasks', 'ready us', 'end us', 'wait', 'data', 'math',
                                                    'store', 'signal'))
    per_layer = 6
    for n, (kind, tasks) in enumerate(steps):
        if n >= show * per_layer and n < len(steps) - per_layer:
            continue
        mean = lambda f: sum(f(r) for r in tasks) / len(tasks) / 1e3
        ready = min(r[7] for r in tasks) - t0
        end = max(r[11] for r in tasks) - t0
        name = '%s.%d' % ('ln_f' if n == len(steps) - 1 else STEPS[n % per_layer], n // per_layer)
        print('%-12s %5d %9.1f %9.1f %8.2f %8.2f %8.2f %8.2f %8.2f' % (
            name, len(tasks), ready / 1e3, end / 1e3,
            mean(lambda r: max(0, r[7] - r[6])), mean(lambda r: r[8] - max(r[7], r[6])),
            mean(lambda r: r[9] - r[8]), mean(lambda r: r[10] - r[9]), mean(lambda r: r[11] - r[10])))
    print('kernel span %.1f us' % ((max(r[11] for r in rows) - t0) / 1e3))


if __name__ == '__main__':
    main()
