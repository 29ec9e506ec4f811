#!/usr/bin/env python3
"""Access mode on real programs against its peer: whole-run wall time of each program of
tests/vtrace/samples/real_programs.py natively, under `compute-sanitizer --tool memcheck` and under
`vtrace run --accesses`, in rounds (the three interleaved in each round, each round starting with the next of them,
so neither drift nor the run before favours one), medians per tool;
and what each run found: memcheck's error count, vtrace's findings_total, partial, dropped_records, records and
coarsened records. Prints a Markdown table for bench/RESULTS.md and writes every run to LOGDIR/access-overhead.json.

Usage: bench/access_overhead.py LOGDIR [--rounds N] [--programs a,b,...] [--vtrace BIN] [--unpatched]
                                [--stages 1,2,3] [--tools native,memcheck,vtrace]
       bench/access_overhead.py LOGDIR --report A/access-overhead.jsonl B/access-overhead.jsonl ...
Every run is also appended to LOGDIR/access-overhead.jsonl as it ends; --report prints the tables from such files
(calls cut off by their time limit included) without running anything.
--stages also runs vtrace with VTRACE_ACCESS_STAGE=N (the patches stop part way: what each part of them costs).
"""
import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPT = os.path.join(HERE, "..", "tests", "vtrace", "samples", "real_programs.py")
PROGRAMS = "torch_loop,gpt2_forward,gpt2_train,compiled,triton_add"


def coarsened(doc):
    """Access records whose ranges were coarsened (version 3 writes rows of access_columns, older traces objects)."""
    columns = doc.get("access_columns")
    if columns:
        at = columns.index("ranges_exact")
        return sum(1 for row in doc["accesses"] if not row[at])
    return sum(1 for x in doc["accesses"] if not x.get("ranges_exact", True))


def launch_totals(doc):
    """Per launch (process, kernel name, launch): loads, stores, atomics, bytes loaded, bytes stored, summed over its
    records, and the same three counts per (argument, allocation size) of the launch. A deterministic program gives
    the same totals under every variant: a launch whose totals differ from the default's lost (or gained) accesses;
    where they differ says whether it is, e.g., a split-K semaphore's spin loads (a small workspace, loads only)."""
    columns = doc.get("access_columns")
    names = doc.get("access_kernels", [])
    fields = ("loads", "stores", "atomics", "bytes_loaded", "bytes_stored")
    totals = {}
    if columns:  # rows: index them (a training step has ~2 M)
        at = {c: i for i, c in enumerate(columns)}
        kernel, launch, pid = at["kernel_id"], at["launch"], at.get("process_id")
        allocation, argument = at.get("allocation"), at.get("argument")
        sizes = {a["id"]: a["size"] for a in doc.get("allocations", [])}
        picks = [at[f] for f in fields]
        rows = doc["accesses"]
        order = {p: i for i, p in enumerate(sorted({r[pid] for r in rows} if pid is not None else {0}))}
        for r in rows:
            key = (order[r[pid]] if pid is not None else 0, names[r[kernel]], r[launch])
            t = totals.get(key)
            if t is None:
                t = totals[key] = ([0, 0, 0, 0, 0], {})
            for i, j in enumerate(picks):
                t[0][i] += r[j]
            where = (r[argument] if argument is not None else None,
                     sizes.get(r[allocation]) if allocation is not None else None)
            w = t[1].setdefault(where, [0, 0, 0])
            for i in range(3):
                w[i] += r[picks[i]]
        return totals
    rows = doc["accesses"]
    # Processes by their order of process id, not the id itself (another run's processes have other ids).
    order = {pid: i for i, pid in enumerate(sorted({x.get("process_id", 0) for x in rows}))}
    for x in rows:
        name = names[x["kernel_id"]] if "kernel_id" in x else x.get("kernel")
        key = (order[x.get("process_id", 0)], name, x["launch"])
        t = totals.setdefault(key, ([0, 0, 0, 0, 0], {}))
        for i, field in enumerate(fields):
            t[0][i] += x.get(field, 0)
    return totals


def compare_totals(reference, totals):
    """How many launches differ from the reference run's, the loads+stores+atomics they differ by, and for the first
    few of them where: per (argument, allocation size), the change in loads, stores and atomics."""
    none = ([0] * 5, {})
    keys = set(reference) | set(totals)
    differ = sorted((k for k in keys if reference.get(k, none)[0] != totals.get(k, none)[0]), key=str)
    delta = sum(abs(sum(reference.get(k, none)[0][:3]) - sum(totals.get(k, none)[0][:3])) for k in differ)
    kernels = {}
    for k in differ:
        kernels[k[1][:100]] = kernels.get(k[1][:100], 0) + 1
    where = []
    for k in differ[:3]:
        a, b = reference.get(k, none)[1], totals.get(k, none)[1]
        for w in sorted(set(a) | set(b), key=str):
            d = [y - x for x, y in zip(a.get(w, [0, 0, 0]), b.get(w, [0, 0, 0]))]
            if any(d):
                where.append({"kernel": k[1][:60], "launch": k[2], "argument": w[0], "allocation_size": w[1],
                              "loads": d[0], "stores": d[1], "atomics": d[2]})
    return {"launches_differ": len(differ), "requests_differ": delta, "kernels_differ": kernels, "where": where[:12]}


def timed(cmd, env=None, timeout=600):
    t0 = time.monotonic()
    p = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=timeout)
    return time.monotonic() - t0, p


LOG = None  # LOGDIR/access-overhead.jsonl: every run as it goes, so a call cut off by its time limit keeps them


def emit(record):
    line = json.dumps(record)
    print(line, flush=True)
    if LOG:
        LOG.write(line + "\n")
        LOG.flush()


def main():
    global LOG
    ap = argparse.ArgumentParser()
    ap.add_argument("logdir")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--programs", default=PROGRAMS)
    ap.add_argument("--vtrace", default="build-gpu/tools/vtrace/vtrace")
    ap.add_argument("--python", default=sys.executable)
    ap.add_argument("--unpatched", action="store_true",
                    help="also run vtrace --accesses with a --kernel no kernel matches: the preload library and its "
                         "callbacks without patched code or recorded launches (what the fixed cost is)")
    ap.add_argument("--stages", default="",
                    help="also run vtrace --accesses with VTRACE_ACCESS_STAGE=N for each N (1 call only, 2 bounds, "
                         "3 counters): what each part of the patches costs")
    ap.add_argument("--tools", default="native,memcheck,vtrace", help="which of native,memcheck,vtrace to run")
    ap.add_argument("--counts", action="store_true",
                    help="also run vtrace --accesses with VTRACE_ACCESS_COUNTS=1 (the patches count byte runs and lock "
                         "holds per kernel; slower, for the closing note's figures)")
    ap.add_argument("--variant", action="append", default=[], metavar="NAME:VAR=VALUE,...",
                    help="also run vtrace --accesses with these environment variables (e.g. the patches' tuning "
                         "switches VTRACE_ACCESS_WARP_MERGE, VTRACE_ACCESS_BACKOFF, VTRACE_ACCESS_GRAIN, "
                         "VTRACE_ACCESS_HULL); repeatable")
    ap.add_argument("--report", metavar="JSONL", nargs="+",
                    help="run nothing: print the tables from the access-overhead.jsonl files of earlier (possibly "
                         "cut-off) runs, their rounds numbered apart")
    ap.add_argument("--no-warmup", dest="warmup", action="store_false",
                    help="do not run each program once, untimed, before the rounds")
    a = ap.parse_args()
    tools = a.tools.split(",")
    os.makedirs(a.logdir, exist_ok=True)
    if a.report:
        runs = []
        for i, path in enumerate(a.report):
            for line in open(path):
                try:
                    run = json.loads(line)
                except json.JSONDecodeError:  # the last line of a run killed while writing it
                    continue
                if "tool" in run and run["tool"] != "warm-up":
                    run["round"] = f"{i}.{run['round']}"
                    runs.append(run)
        a.programs = ",".join(dict.fromkeys(run["program"] for run in runs))  # the files' programs, in order
        report(a, runs)
        return
    LOG = open(os.path.join(a.logdir, "access-overhead.jsonl"), "a")  # a call carrying on in the same LOGDIR adds
    sanitizer = "/usr/local/cuda/compute-sanitizer/compute-sanitizer"
    runs = []
    totals_by_run = {}  # (program, round, tool) -> launch_totals, to compare variants with the default
    if a.warmup:  # the first run of a program pays for cold file caches (imports, kernels): time none of those
        for program in a.programs.split(","):
            s, p = timed([a.python, SCRIPT, program])
            emit({"program": program, "tool": "warm-up", "seconds": s, "exit": p.returncode})
    for r in range(a.rounds):
        for program in a.programs.split(","):
            base = [a.python, SCRIPT, program]
            # The three tools take turns at going first (round r starts with the r-th), so neither a warm
            # cache left by the run before nor drift over the round favours one of them.
            def run_native():
                s, p = timed(base)
                runs.append({"program": program, "tool": "native", "round": r, "seconds": s, "exit": p.returncode})
                emit(runs[-1])  # every run as it goes: a cut-off call keeps what it measured
            def run_memcheck():
                s, p = timed([sanitizer, "--tool", "memcheck", "--print-limit", "5", *base])
                m = re.search(r"ERROR SUMMARY: (\d+) error", p.stdout + p.stderr)
                runs.append({"program": program, "tool": "memcheck", "round": r, "seconds": s, "exit": p.returncode,
                             "errors": int(m.group(1)) if m else None})
                emit(runs[-1])
            def run_vtrace():
                out = os.path.join(tempfile.mkdtemp(prefix="access-bench-"), "t.json")
                for stage in [x for x in a.stages.split(",") if x]:
                    s, p = timed([a.vtrace, "run", "--accesses", "-o", out, "--", *base],
                                 env=dict(os.environ, VTRACE_ACCESS_STAGE=stage))
                    runs.append({"program": program, "tool": f"vtrace-stage{stage}", "round": r, "seconds": s,
                                 "exit": p.returncode, "closing_notes": [line for line in p.stderr.splitlines()
                                                                         if "access mode in process" in line]})
                    emit(runs[-1])
                for variant in a.variant:
                    name, _, assignments = variant.partition(":")
                    env = dict(os.environ, **dict(x.split("=", 1) for x in assignments.split(",") if x))
                    s, p = timed([a.vtrace, "run", "--accesses", "-o", out, "--", *base], env=env)
                    notes = [line for line in p.stderr.splitlines() if "access mode in process" in line]
                    waiting = re.search(r"([0-9.]+) s waiting", notes[0]) if notes else None
                    runs.append({"program": program, "tool": f"vtrace-{name}", "round": r, "seconds": s,
                                 "exit": p.returncode, "waiting": float(waiting.group(1)) if waiting else None,
                                 "coarsened": None, "closing_notes": notes})
                    if os.path.exists(out):
                        doc = json.load(open(out))
                        runs[-1].update(coarsened=coarsened(doc),
                                        records=len(doc["accesses"]), partial=doc["partial"],
                                        findings=doc.get("findings_total"))
                        totals_by_run[(program, r, name)] = launch_totals(doc)
                        os.remove(out)
                    emit(runs[-1])
                if a.counts:
                    s, p = timed([a.vtrace, "run", "--accesses", "-o", out, "--", *base],
                                 env=dict(os.environ, VTRACE_ACCESS_COUNTS="1"))
                    runs.append({"program": program, "tool": "vtrace-counts", "round": r, "seconds": s,
                                 "exit": p.returncode, "closing_notes": [line for line in p.stderr.splitlines()
                                                                         if "access mode in process" in line]})
                    emit(runs[-1])
                s, p = timed([a.vtrace, "run", "--accesses", "-o", out, "--", *base])
                run = {"program": program, "tool": "vtrace", "round": r, "seconds": s, "exit": p.returncode,
                       "closing_notes": [line for line in p.stderr.splitlines()
                                         if "access mode in process" in line or "written to" in line]}
                if os.path.exists(out):
                    doc = json.load(open(out))
                    run.update(findings=doc.get("findings_total"), partial=doc["partial"],
                               dropped=doc["dropped_records"], launches=len(doc["kernels"]),
                               records=len(doc["accesses"]), coarsened=coarsened(doc),
                               tma=len(doc.get("tma_kernels", [])), bytes=os.path.getsize(out),
                               notes=doc["run"]["notes"][:6])
                    reference = launch_totals(doc)
                    totals_by_run[(program, r, "default")] = reference  # round 0's default: the baseline's own spread
                    for (prog, rnd, name), totals in totals_by_run.items():
                        if prog == program and (rnd == r or name == "default") and (rnd, name) != (r, "default"):
                            emit({"program": program, "round": r, "variant": f"{name} (round {rnd})",
                                  "against_default": compare_totals(reference, totals)})
                    os.remove(out)
                else:
                    run["stderr"] = p.stderr[-2000:]
                runs.append(run)
                emit(run)
                if a.unpatched:
                    s, p = timed([a.vtrace, "run", "--accesses", "--kernel", "^no kernel has this name$", "-o", out,
                                  "--", *base])
                    runs.append({"program": program, "tool": "vtrace-unpatched", "round": r, "seconds": s,
                                 "exit": p.returncode, "stderr": p.stderr[-600:]})
                    emit(runs[-1])

            run_tool = {"native": run_native, "memcheck": run_memcheck, "vtrace": run_vtrace}
            for tool in (tools[r % len(tools):] + tools[:r % len(tools)]):
                run_tool[tool]()
    json.dump(runs, open(os.path.join(a.logdir, "access-overhead.json"), "w"), indent=1)
    report(a, runs)
    return 0


def report(a, runs):
    """The Markdown tables of runs: medians per program and tool, variants, paired ratios."""
    if a.unpatched:
        for program in a.programs.split(","):
            xs = [x["seconds"] for x in runs if x["program"] == program and x["tool"] == "vtrace-unpatched"]
            print(f"{program}: vtrace --accesses with nothing patched: median {statistics.median(xs):.2f} s")
    if a.variant:
        print("\n| program | variant | wall s (median) | waiting for patched launches s | records (coarsened) |")
        print("|---|---|---|---|---|")
        for program in a.programs.split(","):
            for variant in a.variant:
                xs = [x for x in runs if x["program"] == program and x["tool"] == "vtrace-" + variant.split(":")[0]]
                if xs:
                    print(f"| {program} | {variant} | {statistics.median(x['seconds'] for x in xs):.2f} | "
                          f"{', '.join(str(x['waiting']) for x in xs)} | {xs[-1].get('records')} "
                          f"({xs[-1].get('coarsened')}) |")
    print("\n| program | native s | memcheck s | vtrace --accesses s | vtrace / memcheck | memcheck errors | "
          "vtrace findings | partial | dropped | launches | records (coarsened) | trace MB |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for program in a.programs.split(","):
        def med(tool):
            xs = [x["seconds"] for x in runs if x["program"] == program and x["tool"] == tool]
            return statistics.median(xs) if xs else float("nan")
        last = ([x for x in runs if x["program"] == program and x["tool"] == "vtrace"] or [{}])[-1]
        mc = ([x for x in runs if x["program"] == program and x["tool"] == "memcheck"] or [{}])[-1]
        print(f"| {program} | {med('native'):.2f} | {med('memcheck'):.2f} | {med('vtrace'):.2f} | "
              f"{med('vtrace') / med('memcheck'):.2f} | {mc.get('errors')} | {last.get('findings')} | "
              f"{last.get('partial')} | {last.get('dropped')} | {last.get('launches')} | "
              f"{last.get('records')} ({last.get('coarsened')}) | {last.get('bytes', 0) / 1e6:.1f} |")
    for program in a.programs.split(","):
        ratios = paired_ratios(runs, program)
        if ratios:
            print(f"{program}: vtrace / memcheck in the same round: {', '.join(f'{r:.2f}' for r in ratios)}; "
                  f"median {statistics.median(ratios):.2f} over {len(ratios)} rounds")


def paired_ratios(runs, program, tool="vtrace", peer="memcheck"):
    """tool's wall time over peer's, per round in which both ran (the machine's drift between rounds cancels)."""
    def by_round(name):
        return {x["round"]: x["seconds"] for x in runs if x["program"] == program and x["tool"] == name}
    mine, theirs = by_round(tool), by_round(peer)
    return [mine[r] / theirs[r] for r in sorted(mine) if r in theirs and theirs[r] > 0]


if __name__ == "__main__":
    sys.exit(main())
