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
# VARIANTS are the traced runs measured against the untraced one: "traced" (launch mode, the default) and "api"
# (`vtrace run --api`: blocking CUDA calls and launch calls recorded too). With both, the table also gives --api's
# cost over launch mode (issue 42's budget: +2% on the GPU-bound gpt2 loop); the runs of a rep go in a rotating
# order (each variant takes each place equally often). ITERS=N sets every workload's iterations; EXTRAS=0 leaves
# out the fixed-cost and access-mode parts. The --api check in ~2 min on one H200:
#   ITERS=150 EXTRAS=0 bench/gpu-vtrace.sh LOGDIR 4 gpt2 "traced api"
# Usage: bench/gpu-vtrace.sh LOGDIR [REPS] [WORKLOADS] [VARIANTS]   (repo root, after scripts/gpu-check built
#        build-gpu; WORKLOADS default "gpt2 mini", VARIANTS default "traced")
set -euo pipefail
logs=${1:?usage: bench/gpu-vtrace.sh LOGDIR [REPS] [WORKLOADS] [VARIANTS]}
reps=${2:-2}
workloads=${3:-gpt2 mini}
variants=${4:-traced}
for v in $variants; do
  case $v in traced|api) ;; *) echo "gpu-vtrace: unknown variant '$v' (traced, api)"; exit 2 ;; esac
done
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
declare -A flags=([traced]="" [api]="--api")
specs=()
for workload in $workloads; do
  n=${ITERS:-${iters[$workload]}}
  suffix() { [ "$1" = traced ] || echo "-$1"; }  # launch mode keeps its file names: vtrace-gpt2.trace.json
  trace_of() { echo "$logs/vtrace-$workload$(suffix "$1").trace.json"; }
  notes_of() { echo "$logs/vtrace-notes-$workload$(suffix "$1").txt"; }
  for v in $variants; do : > "$(notes_of "$v")"; done
  "$py" bench/vtrace_gpt_forward.py 5 "$workload" > /dev/null  # warm caches (cuBLAS, page cache)
  measure() {  # measure LABEL: one run of this workload, untraced or under vtrace with the variant's flags
    if [ "$1" = untraced ]; then
      run "$workload" untraced "$py" bench/vtrace_gpt_forward.py "$n" "$workload"
    else
      # shellcheck disable=SC2086  # the variant's flags are words
      run "$workload" "$1" "$vtrace" run ${flags[$1]} -o "$(trace_of "$1")" -- "$py" bench/vtrace_gpt_forward.py "$n" \
        "$workload" 2>> "$(notes_of "$1")"
    fi
  }
  labels=(untraced $variants)
  for rep in $(seq "$reps"); do  # rotate the order: with one variant, untraced first in odd reps, as before
    for i in $(seq 0 $((${#labels[@]} - 1))); do
      measure "${labels[$(((rep - 1 + i) % ${#labels[@]}))]}"
    done
  done
  for v in $variants; do
    trace=$(trace_of "$v")
    kernels=$("$py" -c "import json,sys; print(len(json.load(open(sys.argv[1]))['kernels']))" "$trace")
    ls -l "$trace" >> "$raw"
    if [ "$v" = traced ]; then specs+=("$workload:$n:$kernels:$(notes_of "$v")"); else specs+=("$workload/$v:$n:$kernels:$(notes_of "$v")"); fi
  done
done
"$py" bench/vtrace_overhead_table.py "$raw" "${specs[@]}"
[ "${EXTRAS:-1}" = 0 ] && exit 0

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
