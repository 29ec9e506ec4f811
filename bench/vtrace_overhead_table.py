# Table of bench/gpu-vtrace.sh: reads its raw timing lines ("WORKLOAD LABEL wall_s setup_s loop_s program_s",
# untraced and traced runs in pairs) and vtrace's closing notes, prints per workload the medians, the paired
# whole-run overhead with a bootstrap 95% confidence interval, and where the traced run's extra time goes.
# With runs of a second traced variant (LABEL "api": vtrace run --api), a spec WORKLOAD/api:... gives its table
# against the untraced runs, and the --api runs are compared with the launch-mode ones run by run (the forward loop's
# change against issue 42's +2% budget, by its bootstrap 95% interval).
#   python3 bench/vtrace_overhead_table.py RAW_FILE WORKLOAD[/LABEL]:ITERS:KERNELS:NOTES_FILE...
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


def paired_change(a_rows, b_rows, i):
    """Per rep, (b - a) / a of column i (runs of one rep share an index: the script appends them rep by rep)."""
    n = min(len(a_rows), len(b_rows))
    return [(b_rows[k][i] - a_rows[k][i]) / a_rows[k][i] for k in range(n)]


def change_line(label, changes):
    lo, hi = bootstrap_ci(changes)
    return (f"  {label:<34} median {100 * statistics.median(changes):+.1f}%, 95% CI [{100 * lo:+.1f}%, {100 * hi:+.1f}%], "
            f"pairs {min(changes) * 100:+.1f}%..{max(changes) * 100:+.1f}%")


def budget_verdict(changes, budget):
    """Whether the paired change is within `budget` (a fraction): by where its 95% interval lies."""
    lo, hi = bootstrap_ci(changes)
    if hi <= budget:
        return f"within the +{100 * budget:.0f}% budget (95% CI up to {100 * hi:+.1f}%)"
    if lo > budget:
        return f"OVER the +{100 * budget:.0f}% budget (95% CI from {100 * lo:+.1f}%): make it a flag and say so"
    return f"undecided: the 95% CI [{100 * lo:+.1f}%, {100 * hi:+.1f}%] spans +{100 * budget:.0f}% (more REPS or ITERS)"


def main():
    runs = {}
    for line in open(sys.argv[1]):
        f = line.split()
        if len(f) == 6 and re.fullmatch(r"[a-z]+", f[1]):
            runs.setdefault(f[0], {}).setdefault(f[1], []).append([float(x) for x in f[2:]])
    for spec in sys.argv[2:]:
        name, iters, kernels, notes = spec.split(":", 3)
        workload, _, label = name.partition("/")
        label = label or "traced"
        u, t = runs[workload]["untraced"], runs[workload][label]
        n = min(len(u), len(t))
        col = lambda rows, i: [r[i] for r in rows]  # 0 wall, 1 setup, 2 loop, 3 program
        med = lambda rows, i: statistics.median(col(rows, i))
        outside = lambda rows: statistics.median([r[0] - r[3] for r in rows])
        paired = paired_change(u, t, 0)
        post = post_run_seconds(notes)
        heading = workload if label == "traced" else f"{workload} --{label}"
        print(f"{heading}: {n} pairs, {int(iters)} iterations, {int(kernels)} kernels per traced run")
        print(f"  {'median seconds':<34} {'untraced':>9} {'traced':>9} {'change':>8}")
        for row_label, a, b in (("whole run (wall)", med(u, 0), med(t, 0)),
                                ("start-up to model on GPU", med(u, 1), med(t, 1)),
                                (f"forward loop ({iters} iterations)", med(u, 2), med(t, 2)),
                                ("outside the program", outside(u), outside(t))):
            print(f"  {row_label:<34} {a:9.3f} {b:9.3f} {100 * (b - a) / a:+7.1f}%")
        print(change_line("paired whole-run overhead", paired))
        loop_cost = (med(t, 2) - med(u, 2)) / (int(kernels) * int(iters) / (int(iters) + 20))
        print(f"  {'in-loop cost per launch':<34} {1e6 * loop_cost:.2f} us")
        if post:
            print(f"  {'vtrace after the command':<34} median {statistics.median(post):.2f} s "
                  f"({1e6 * statistics.median(post) / int(kernels):.2f} us per kernel)")
    # --api against launch mode, run by run: what recording the blocking calls adds (issue 42's budget).
    for workload, labels in runs.items():
        if "traced" not in labels or "api" not in labels:
            continue
        t, a = labels["traced"], labels["api"]
        loop = paired_change(t, a, 2)
        print(f"{workload}: --api against launch mode, {min(len(t), len(a))} pairs")
        print(change_line("paired forward-loop change", loop))
        print(change_line("paired whole-run change", paired_change(t, a, 0)))
        print(f"  {'forward loop':<34} {budget_verdict(loop, 0.02)}")


if __name__ == "__main__":
    main()
