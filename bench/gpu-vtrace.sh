#!/usr/bin/env bash
# Overhead of `vtrace run` (launch mode) on PyTorch GPT forward loops (bench/vtrace_gpt_forward.py): untraced and
# traced runs alternate, REPS of each per workload, in one session; medians are compared. Workloads: "mini"
# (launch-bound, ~130 short kernels per forward: the worst case for a per-launch cost) and "gpt2" (GPU-bound).
# Then, when access mode is built, the wall time of a Triton kernel script untraced, under `vtrace run --accesses`
# and under `compute-sanitizer --tool memcheck`. About 3 min on an H100. Prints short tables; traces and raw timings
# go to LOGDIR.
# Usage: bench/gpu-vtrace.sh LOGDIR [REPS]     (run from the repo root after scripts/gpu-check built build-gpu)
set -euo pipefail
logs=${1:?usage: bench/gpu-vtrace.sh LOGDIR [REPS]}
reps=${2:-7}
vtrace=${VTRACE:-build-gpu/tools/vtrace/vtrace}
py=${PYTHON:-python3}
mkdir -p "$logs"
[ -x "$vtrace" ] || { echo "gpu-vtrace: $vtrace not built"; exit 1; }
"$py" -c 'import torch; assert torch.cuda.is_available()' 2>/dev/null || { echo "gpu-vtrace: no torch+GPU, skipped"; exit 0; }
raw="$logs/vtrace-overhead.txt"
: > "$raw"
run() {  # run WORKLOAD LABEL CMD... ; appends "WORKLOAD LABEL wall_s loop_s program_s"
  local workload=$1 label=$2; shift 2
  local t0 t1 out
  t0=$(date +%s.%N)
  out=$("$@")
  t1=$(date +%s.%N)
  loop=$(echo "$out" | grep -o 'loop_s=[0-9.]*' | cut -d= -f2)
  program=$(echo "$out" | grep -o 'program_s=[0-9.]*' | cut -d= -f2)
  echo "$workload $label $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }') $loop $program" | tee -a "$raw" >&2
}
declare -A iters=([mini]=1000 [gpt2]=60)
declare -A kernels
for workload in mini gpt2; do
  n=${iters[$workload]}
  trace="$logs/vtrace-$workload.trace.json"
  "$py" bench/vtrace_gpt_forward.py 5 "$workload" > /dev/null  # warm caches (cuBLAS, page cache)
  for rep in $(seq "$reps"); do
    run "$workload" untraced "$py" bench/vtrace_gpt_forward.py "$n" "$workload"
    run "$workload" traced "$vtrace" run -o "$trace" -- "$py" bench/vtrace_gpt_forward.py "$n" "$workload" \
      2>> "$logs/vtrace-notes-$workload.txt"
  done
  kernels[$workload]=$("$py" -c "import json,sys; print(len(json.load(open(sys.argv[1]))['kernels']))" "$trace")
  ls -l "$trace" >> "$raw"
done
printf '%-34s %9s %9s %9s\n' "vtrace launch mode (median of $reps)" untraced traced overhead
for workload in mini gpt2; do
  grep "^$workload " "$raw" | awk -v w="$workload" -v it="${iters[$workload]}" -v k="${kernels[$workload]}" '
    function median(a, n,   i, j, t) {
      for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
      return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
    }
    $2 == "untraced" { uw[++nu] = $3; ul[nu] = $4; up[nu] = $5 }
    $2 == "traced" { tw[++nt] = $3; tl[nt] = $4; tp[nt] = $5 }
    END {
      # Pairs first: median() sorts its array in place.
      for (i = 1; i <= nt && i <= nu; i++) { pw[i] = (tw[i] - uw[i]) / uw[i]; pl[i] = (tl[i] - ul[i]) / ul[i] }
      mw = median(uw, nu); Mw = median(tw, nt); ml = median(ul, nu); Ml = median(tl, nt)
      mp = median(up, nu); Mp = median(tp, nt)
      printf "%-34s %8.2fs %8.2fs %8.1f%%\n", w ": wall time (whole run)", mw, Mw, 100 * (Mw - mw) / mw
      printf "%-34s %8.2fs %8.2fs %8.1f%%\n", w ": forward loop (" it " iters)", ml, Ml, 100 * (Ml - ml) / ml
      printf "%-34s %8.2fs %8.2fs\n", w ": outside the program", mw - mp, Mw - Mp
      n = nt < nu ? nt : nu
      printf "%-34s wall %.1f%%, loop %.1f%% (median over %d pairs)\n", w ": paired overhead", 100 * median(pw, n),
             100 * median(pl, n), n
      printf "%-34s %d kernels (%.0f per forward), %.2f us per launch in the loop\n", w ": traced", k,
             k / (it + 20), 1e6 * (Ml - ml) / (k * it / (it + 20))
    }'
  echo "$workload: vtrace after the command: $(grep -o '([0-9.]* [KMG]*i*B in [0-9.]* [mun]*s)' "$logs/vtrace-notes-$workload.txt" | tr '\n' ' ')"
done

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
