#!/usr/bin/env bash
# Why minGPT eager timed through `vbench run --impl` (vbench_impl.torch_gpt) was 1.5-2x slower than the same module in
# the old peer script (bench/peers/torch_gpt.py) in session 33 (RESULTS, "vbench run --impl"): both time one CUDA-event
# pair around each forward, so the protocol should add nothing. Interleaved A/B on one config: peer, --impl, peer,
# --impl, ... REPS times, at ITERS timed forwards and again at 10x ITERS. At B=4 T=64 eager is bound by the host's
# launch rate: if --impl is slower only at the short count, the cause is the fresh child process (CPU clocks and caches
# still cold when 50 forwards of ~1 ms are timed), not the protocol. Prints one table of medians (us) last.
# Session 38 (REPS=2): --impl slower in all four pairs (1.03-2.0x), at 500 forwards as at 50: not the short count.
# Session 39 (PIN="taskset -c 3" REPS=3): --impl faster than the peer in 4 of 6 pairs; every arm within one spread.
# Usage: bench/vbench_impl_ab.sh OUTDIR   (after scripts/gpu-check built build-gpu; CONFIG, DTYPE, REPS, ITERS, PIN)
set -uo pipefail
out=${1:?usage: bench/vbench_impl_ab.sh OUTDIR}
vb=${VBENCH:-build-gpu/tools/vbench/vbench}
py=${PYTHON:-python3}
config=${CONFIG:-gpt_nano}
dtype=${DTYPE:-bf16}
reps=${REPS:-3}
iters=${ITERS:-50}
# PIN="taskset -c 3": every arm on one core (a child inherits it), to take the host's core placement out of the
# comparison: eager at this size is bound by one CPU thread's launch rate, and the peer alone has varied 845-1,836 us
# between calls.
pin=${PIN:-}
mkdir -p "$out"
"$vb" init --config "$config" -o "$out/w.safetensors" || exit 1
median() {  # median DOC.json: the first benchmark's median in us
  "$py" -c 'import json,sys; b=json.load(open(sys.argv[1]))["benchmarks"]; print("%.1f" % (next(iter(b.values()))["timing"]["median"] * 1e3))' "$1" 2>/dev/null || echo "-"
}
# The third arm runs the same adapter without vbench: a request written here, on its standard input, so that a gap
# between the peer and --impl splits into the adapter's code (direct is slow too) and vbench as its parent (only
# --impl is slow).
request() {  # request N: the protocol's request for N timed forwards, no gate
  PYTHONPATH=python "$py" - "$out" "$dtype" "$1" << 'PY'
import json, sys
import numpy as np
import vbench_impl
out, dtype, iters = sys.argv[1], sys.argv[2], int(sys.argv[3])
_, meta = vbench_impl.read_safetensors(f"{out}/w.safetensors")
cfg = {"name": meta.get("config", "w"), "n_layer": int(meta["n_layer"]), "n_head": int(meta["n_head"]),
       "n_embd": int(meta["n_embd"]), "vocab_size": int(meta["vocab_size"]), "block_size": int(meta["block_size"]),
       "tied_head": meta.get("tied_head", "true") == "true"}
np.random.default_rng(0).integers(0, cfg["vocab_size"], 4 * 64, dtype=np.int32).tofile(f"{out}/tokens.i32")
print(json.dumps({"protocol": vbench_impl.PROTOCOL, "version": vbench_impl.VERSION, "config": cfg, "dtype": dtype,
                  "batch_size": 4, "seq_len": 64, "weights": f"{out}/w.safetensors", "tokens": f"{out}/tokens.i32",
                  "warmup": 5, "iters": iters, "min_time_s": 0, "repetitions": 1, "caches": "warm", "gpu": None,
                  "logits": None, "reply": f"{out}/reply.json"}))
PY
}
direct_median() {  # the adapter's reply: median of its samples, us
  "$py" -c 'import json,statistics,sys; r=json.load(open(sys.argv[1])); print("%.1f" % (statistics.median(r["repetitions"][0]["samples_ms"]) * 1e3))' "$out/reply.json" 2>/dev/null || echo "-"
}
rows=()
for n in "$iters" $((10 * iters)); do
  request "$n" > "$out/request-$n.json"
  for r in $(seq "$reps"); do
    $pin "$py" bench/peers/torch_gpt.py --weights "$out/w.safetensors" --dtype "$dtype" -B 4 -T 64 --warmup 5 --iters "$n" \
      --out-eager "$out/peer-$n-$r.json" > /dev/null 2>&1
    $pin "$vb" run --config "$config" --weights "$out/w.safetensors" --dtype "$dtype" -B 4 -T 64 --warmup 5 --iters "$n" -q \
      -o "$out/impl-$n-$r.json" --impl "$py -m vbench_impl.torch_gpt" > /dev/null 2>&1
    rm -f "$out/reply.json"
    PYTHONPATH=python $pin "$py" -m vbench_impl.torch_gpt < "$out/request-$n.json" > /dev/null 2>&1
    rows+=("| $n | $r | $(median "$out/peer-$n-$r.json") | $(median "$out/impl-$n-$r.json") | $(direct_median) |")
    echo "${rows[-1]}"
  done
done
rm -f "$out/w.safetensors" "$out/tokens.i32" "$out/reply.json"
echo "median forward, us ($config $dtype, B=4 T=64; peer script vs --impl vbench_impl.torch_gpt vs the adapter"
echo "run directly on a request, interleaved)"
echo "| timed forwards | rep | peer script | --impl | adapter direct |"
echo "|---|---|---|---|---|"
printf '%s\n' "${rows[@]}"
