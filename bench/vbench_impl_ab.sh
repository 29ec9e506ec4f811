#!/usr/bin/env bash
# Why minGPT eager timed through `vbench run --impl` (vbench_impl.torch_gpt) was 1.5-2x slower than the same module in
# the old peer script (bench/peers/torch_gpt.py) in session 33 (RESULTS, "vbench run --impl"): both time one CUDA-event
# pair around each forward, so the protocol should add nothing. Interleaved A/B on one config: peer, --impl, peer,
# --impl, ... REPS times, at ITERS timed forwards and again at 10x ITERS. At B=4 T=64 eager is bound by the host's
# launch rate: if --impl is slower only at the short count, the cause is the fresh child process (CPU clocks and caches
# still cold when 50 forwards of ~1 ms are timed), not the protocol. Prints one table of medians (us) last.
# Usage: bench/vbench_impl_ab.sh OUTDIR   (after scripts/gpu-check built build-gpu; CONFIG, DTYPE, REPS, ITERS)
set -uo pipefail
out=${1:?usage: bench/vbench_impl_ab.sh OUTDIR}
vb=${VBENCH:-build-gpu/tools/vbench/vbench}
py=${PYTHON:-python3}
config=${CONFIG:-gpt_nano}
dtype=${DTYPE:-bf16}
reps=${REPS:-3}
iters=${ITERS:-50}
mkdir -p "$out"
"$vb" init --config "$config" -o "$out/w.safetensors" || exit 1
median() {  # median DOC.json: the first benchmark's median in us
  "$py" -c 'import json,sys; b=json.load(open(sys.argv[1]))["benchmarks"]; print("%.1f" % (next(iter(b.values()))["timing"]["median"] * 1e3))' "$1" 2>/dev/null || echo "-"
}
rows=()
for n in "$iters" $((10 * iters)); do
  for r in $(seq "$reps"); do
    "$py" bench/peers/torch_gpt.py --weights "$out/w.safetensors" --dtype "$dtype" -B 4 -T 64 --warmup 5 --iters "$n" \
      --out-eager "$out/peer-$n-$r.json" > /dev/null 2>&1
    "$vb" run --config "$config" --weights "$out/w.safetensors" --dtype "$dtype" -B 4 -T 64 --warmup 5 --iters "$n" -q \
      -o "$out/impl-$n-$r.json" --impl "$py -m vbench_impl.torch_gpt" > /dev/null 2>&1
    rows+=("| $n | $r | $(median "$out/peer-$n-$r.json") | $(median "$out/impl-$n-$r.json") |")
    echo "${rows[-1]}"
  done
done
rm -f "$out/w.safetensors"
echo "median forward, us ($config $dtype, B=4 T=64; peer script vs --impl vbench_impl.torch_gpt, interleaved)"
echo "| timed forwards | rep | peer script | --impl |"
echo "|---|---|---|---|"
printf '%s\n' "${rows[@]}"
