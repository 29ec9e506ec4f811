# Table of bench/gpu-vtrace.sh: reads its raw timing lines ("WORKLOAD LABEL wall_s setup_s loop_s program_s",
# untraced and traced runs in pairs) and vtrace's closing notes, prints per workload the medians, the paired
# whole-run overhead with a bootstrap 95% confidence interval, and where the traced run's extra time goes.
#   python3 bench/vtrace_overhead_table.py RAW_FILE WORKLOAD:ITERS:KERNELS:NOTES_FILE...
import random
import re
import statistics
import sys


def bootstrap_ci(values, rounds=5000, seed=1):
    """95% interval of the median of `values`, resampled with replacement (fixed seed: the table is reproducible)."""
    rng = random.Random(seed)
    medians = sorted(statistics.median(rng.choices(values, k=len(values))) for _ in range(rounds))
    return medians[int(0.025 * rounds)], medians[int(0.975 * rounds) - 1]


def post_run_seconds(notes_file):
    """vtrace's own time after the command, from its notes: '(20.0 MB in 0.09 s)' or '(122.3 MiB in 430 ms)'."""
    seconds = []
    for m in re.finditer(r"\([0-9.]+ [KMG]?i?B in ([0-9.]+) (s|ms|us)\)", open(notes_file).read()):
        seconds.append(float(m.group(1)) * {"s": 1, "ms": 1e-3, "us": 1e-6}[m.group(2)])
    return seconds


def main():
    runs = {}
    for line in open(sys.argv[1]):
        f = line.split()
        if len(f) == 6 and f[1] in ("untraced", "traced"):
            runs.setdefault(f[0], {}).setdefault(f[1], []).append([float(x) for x in f[2:]])
    for spec in sys.argv[2:]:
        workload, iters, kernels, notes = spec.split(":", 3)
        u, t = runs[workload]["untraced"], runs[workload]["traced"]
        n = min(len(u), len(t))
        col = lambda rows, i: [r[i] for r in rows]  # 0 wall, 1 setup, 2 loop, 3 program
        med = lambda rows, i: statistics.median(col(rows, i))
        outside = lambda rows: statistics.median([r[0] - r[3] for r in rows])
        paired = [(t[i][0] - u[i][0]) / u[i][0] for i in range(n)]
        lo, hi = bootstrap_ci(paired)
        post = post_run_seconds(notes)
        print(f"{workload}: {n} pairs, {int(iters)} iterations, {int(kernels)} kernels per traced run")
        print(f"  {'median seconds':<34} {'untraced':>9} {'traced':>9} {'change':>8}")
        for label, a, b in (("whole run (wall)", med(u, 0), med(t, 0)),
                            ("start-up to model on GPU", med(u, 1), med(t, 1)),
                            (f"forward loop ({iters} iterations)", med(u, 2), med(t, 2)),
                            ("outside the program", outside(u), outside(t))):
            print(f"  {label:<34} {a:9.3f} {b:9.3f} {100 * (b - a) / a:+7.1f}%")
        print(f"  {'paired whole-run overhead':<34} median {100 * statistics.median(paired):+.1f}%, "
              f"95% CI [{100 * lo:+.1f}%, {100 * hi:+.1f}%], pairs {min(paired) * 100:+.1f}%..{max(paired) * 100:+.1f}%")
        loop_cost = (med(t, 2) - med(u, 2)) / (int(kernels) * int(iters) / (int(iters) + 20))
        print(f"  {'in-loop cost per launch':<34} {1e6 * loop_cost:.2f} us")
        if post:
            print(f"  {'vtrace after the command':<34} median {statistics.median(post):.2f} s "
                  f"({1e6 * statistics.median(post) / int(kernels):.2f} us per kernel)")


if __name__ == "__main__":
    main()
