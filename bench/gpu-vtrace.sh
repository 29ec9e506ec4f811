#!/usr/bin/env bash
# Overhead of `vtrace run` (launch mode) on a PyTorch GPT forward loop (bench/vtrace_gpt_forward.py), untraced vs
# traced, alternating, two runs each, in one session; then, when access mode is built, the wall time of a Triton
# kernel script untraced, under `vtrace run --accesses` and under `compute-sanitizer --tool memcheck` (about 60 s in
# all on an H100). Prints short tables; the traces and the raw timings go to LOGDIR.
# Usage: bench/gpu-vtrace.sh LOGDIR [ITERS]     (run from the repo root after scripts/gpu-check built build-gpu)
set -euo pipefail
logs=${1:?usage: bench/gpu-vtrace.sh LOGDIR [ITERS]}
iters=${2:-500}
vtrace=${VTRACE:-build-gpu/tools/vtrace/vtrace}
py=${PYTHON:-python3}
mkdir -p "$logs"
[ -x "$vtrace" ] || { echo "gpu-vtrace: $vtrace not built"; exit 1; }
"$py" -c 'import torch; assert torch.cuda.is_available()' 2>/dev/null || { echo "gpu-vtrace: no torch+GPU, skipped"; exit 0; }
raw="$logs/vtrace-overhead.txt"
: > "$raw"
run() {  # run LABEL CMD... ; appends "LABEL wall_s loop_s"
  local label=$1; shift
  local t0 t1 out
  t0=$(date +%s.%N)
  out=$("$@" | grep -o 'loop_s=[0-9.]*' | cut -d= -f2)
  t1=$(date +%s.%N)
  echo "$label $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }') $out" | tee -a "$raw" >&2
}
for rep in 1 2; do
  run untraced "$py" bench/vtrace_gpt_forward.py "$iters"
  run traced "$vtrace" run -q -o "$logs/vtrace-gpt.trace.json" -- "$py" bench/vtrace_gpt_forward.py "$iters"
done
kernels=$("$py" -c "import json,sys; print(len(json.load(open(sys.argv[1]))['kernels']))" "$logs/vtrace-gpt.trace.json")
awk -v k="$kernels" -v it="$iters" '
  { n[$1]++; wall[$1] += $2; loop[$1] += $3 }
  END {
    uw = wall["untraced"] / n["untraced"]; tw = wall["traced"] / n["traced"]
    ul = loop["untraced"] / n["untraced"]; tl = loop["traced"] / n["traced"]
    printf "%-26s %10s %10s %9s\n", "vtrace launch mode", "untraced", "traced", "overhead"
    printf "%-26s %9.2fs %9.2fs %8.1f%%\n", "wall time (whole run)", uw, tw, 100 * (tw - uw) / uw
    printf "%-26s %9.2fs %9.2fs %8.1f%%\n", "forward loop (" it " iters)", ul, tl, 100 * (tl - ul) / ul
    printf "kernels traced in the last run: %d (%.0f per forward)\n", k, k / (it + 20)
  }' "$raw"

# Access mode vs memcheck on the same program (wall time of the whole run, Triton cache warm after the first).
access_lib=$(dirname "$vtrace")/libvtrace_access.so
sanitizer=${COMPUTE_SANITIZER:-/usr/local/cuda/compute-sanitizer/compute-sanitizer}
if [ -f "$access_lib" ] && [ -x "$sanitizer" ]; then
  prog=tests/vtrace/samples/triton_add.py
  "$py" "$prog" > /dev/null  # warm Triton's cache
  seconds() { local t0 t1; t0=$(date +%s.%N); timeout 120 "$@" > /dev/null 2>&1; t1=$(date +%s.%N); awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }'; }
  base=$(seconds "$py" "$prog")
  acc=$(seconds "$vtrace" run --accesses -q -o "$logs/vtrace-access-triton.trace.json" -- "$py" "$prog")
  mem=$(seconds "$sanitizer" --tool memcheck "$py" "$prog")
  echo "access $base $acc $mem" >> "$raw"
  printf '\n%-26s %10s %10s %10s\n' "triton_add.py (wall)" untraced "--accesses" memcheck
  printf '%-26s %9ss %9ss %9ss\n' "seconds" "$base" "$acc" "$mem"
fi
