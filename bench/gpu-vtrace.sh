#!/usr/bin/env bash
# Overhead of `vtrace run` (launch mode) on PyTorch GPT forward loops (bench/vtrace_gpt_forward.py): untraced and
# traced runs in pairs (the order inside a pair alternates, so drift and warm caches favour neither), REPS pairs per
# workload, in one session. Workloads: "gpt2" (GPU-bound, like a real inference loop: issue 6's case) and "mini"
# (launch-bound, ~130 short kernels per forward: the worst case for a per-launch cost). The table
# (bench/vtrace_overhead_table.py) gives medians, the paired whole-run overhead with a bootstrap 95% interval and
# where the extra time goes. Then, when access mode is built, the wall time of a Triton kernel script untraced,
# under `vtrace run --accesses` and under `compute-sanitizer --tool memcheck`. About 9 min on an H100 at REPS=8
# (gpt2: 600 iterations, ~24 s a run; mini: ~6 s), the figures in bench/RESULTS.md; the default REPS=2 (~3 min)
# fits scripts/gpu-check's 240 s cap per benchmark, which REPS=8 overran.
# Usage: bench/gpu-vtrace.sh LOGDIR [REPS] [WORKLOADS]   (repo root, after scripts/gpu-check built build-gpu;
#        WORKLOADS default "gpt2 mini")
set -euo pipefail
logs=${1:?usage: bench/gpu-vtrace.sh LOGDIR [REPS] [WORKLOADS]}
reps=${2:-2}
workloads=${3:-gpt2 mini}
vtrace=${VTRACE:-build-gpu/tools/vtrace/vtrace}
py=${PYTHON:-python3}
mkdir -p "$logs"
[ -x "$vtrace" ] || { echo "gpu-vtrace: $vtrace not built"; exit 1; }
"$py" -c 'import torch; assert torch.cuda.is_available()' 2>/dev/null || { echo "gpu-vtrace: no torch+GPU, skipped"; exit 0; }
raw="$logs/vtrace-overhead.txt"
: > "$raw"
seconds() {  # seconds CMD...: wall seconds of CMD (output dropped, 120 s cap)
  local t0 t1
  t0=$(date +%s.%N)
  timeout 120 "$@" > /dev/null 2>&1
  t1=$(date +%s.%N)
  awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.4f", b - a }'
}
run() {  # run WORKLOAD LABEL CMD... ; appends "WORKLOAD LABEL wall_s setup_s loop_s program_s"
  local workload=$1 label=$2; shift 2
  local t0 t1 out
  t0=$(date +%s.%N)
  out=$("$@")
  t1=$(date +%s.%N)
  field() { echo "$out" | grep -o "$1=[0-9.]*" | cut -d= -f2; }
  echo "$workload $label $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }') $(field setup_s) $(field loop_s)" \
    "$(field program_s)" | tee -a "$raw" >&2
}
declare -A iters=([mini]=1000 [gpt2]=600)
specs=()
for workload in $workloads; do
  n=${iters[$workload]}
  trace="$logs/vtrace-$workload.trace.json"
  notes="$logs/vtrace-notes-$workload.txt"
  : > "$notes"
  "$py" bench/vtrace_gpt_forward.py 5 "$workload" > /dev/null  # warm caches (cuBLAS, page cache)
  untraced() { run "$workload" untraced "$py" bench/vtrace_gpt_forward.py "$n" "$workload"; }
  traced() { run "$workload" traced "$vtrace" run -o "$trace" -- "$py" bench/vtrace_gpt_forward.py "$n" "$workload" 2>> "$notes"; }
  for rep in $(seq "$reps"); do
    if [ $((rep % 2)) = 1 ]; then untraced; traced; else traced; untraced; fi
  done
  kernels=$("$py" -c "import json,sys; print(len(json.load(open(sys.argv[1]))['kernels']))" "$trace")
  ls -l "$trace" >> "$raw"
  specs+=("$workload:$n:$kernels:$notes")
done
"$py" bench/vtrace_overhead_table.py "$raw" "${specs[@]}"

# vtrace's fixed cost (loading CUPTI in cuInit, the last flush, building and writing a tiny trace): a CUDA C++
# program of 4 kernels and 3 copies, 15 pairs, median wall seconds.
sample=$(dirname "$vtrace")/../../tests/vtrace/vtrace_launch_sample
if [ -x "$sample" ]; then
  for rep in $(seq 15); do
    echo "fixed $(seconds "$sample" ok) $(seconds "$vtrace" run -q -o "$logs/vtrace-fixed.trace.json" -- "$sample" ok)"
  done >> "$raw"
  grep '^fixed ' "$raw" | "$py" -c '
import statistics, sys
rows = [list(map(float, l.split()[1:])) for l in sys.stdin]
u, t = statistics.median(r[0] for r in rows), statistics.median(r[1] for r in rows)
print(f"\nfixed cost, launch_sample ({len(rows)} pairs): untraced {u:.3f} s, traced {t:.3f} s, vtrace adds {t - u:.3f} s")'
fi

# Access mode vs memcheck on the same program (wall time of the whole run, Triton cache warm after the first).
access_lib=$(dirname "$vtrace")/libvtrace_access.so
sanitizer=${COMPUTE_SANITIZER:-/usr/local/cuda/compute-sanitizer/compute-sanitizer}
if [ -f "$access_lib" ] && [ -x "$sanitizer" ]; then
  prog=tests/vtrace/samples/triton_add.py
  "$py" "$prog" > /dev/null  # warm Triton's cache
  base=$(seconds "$py" "$prog")
  acc=$(seconds "$vtrace" run --accesses -q -o "$logs/vtrace-access-triton.trace.json" -- "$py" "$prog")
  mem=$(seconds "$sanitizer" --tool memcheck "$py" "$prog")
  echo "access $base $acc $mem" >> "$raw"
  printf '\n%-26s %10s %10s %10s\n' "triton_add.py (wall)" untraced "--accesses" memcheck
  printf '%-26s %9.2fs %9.2fs %9.2fs\n' "seconds" "$base" "$acc" "$mem"
fi
