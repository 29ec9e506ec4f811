#!/usr/bin/env bash
# Overhead of `vbench run --impl` on the GPU machine: vbench cuda vs HF eager (vbench_impl.hf_gpt2) vs minGPT eager and
# torch.compile (vbench_impl.torch_gpt) through the protocol, beside the old peer script (bench/peers/torch_gpt.py),
# on the six seed configs and gpt2, bf16, B=4 T=64, the same seeded weights everywhere. torch.compile only on gpt_nano
# and gpt2 (its compile takes ~30 s per config), as bench/gpu-vbench.sh does. Prints one table of medians (us) last.
# Usage: bench/vbench_impl.sh OUTDIR   (after scripts/gpu-check has built build-gpu; VBENCH=... to use another;
# CONFIGS=a,b and COMPILE_CONFIGS=a,b (empty: no torch.compile) to run fewer; PIN="taskset -c 3" runs every arm on one
# core: eager at B=4 T=64 is bound by the host's launch rate, and unpinned runs of the same module differed up to 2x,
# bench/RESULTS.md session 39)
# Runs in about 4 minutes on an H200.
set -euo pipefail
out=${1:?usage: bench/vbench_impl.sh OUTDIR}
vb=${VBENCH:-build-gpu/tools/vbench/vbench}
py=${PYTHON:-python3}
pin=${PIN:-}
mkdir -p "$out"
configs=${CONFIGS:-gpt_nano,gpt_micro,gpt_mini,gpt_tile_small,gpt_tile_medium,gpt_tile_large,gpt2}
compile_configs=${COMPILE_CONFIGS-gpt_nano,gpt2}
common=(--config "$configs" --dtype bf16 -B 4 -T 64 --warmup 5 --iters 50 -q)
# A failed benchmark (gate, crash) still leaves its document: say so and go on to the next step.
step() { local t0=$SECONDS rc=0; echo "== $1" >&2; shift; "$@" || rc=$?; echo "   $((SECONDS - t0)) s, exit $rc" >&2; }
step "vbench cuda" $pin "$vb" run --backend cuda "${common[@]}" -o "$out/cuda.json"
step "--impl hf-gpt2, torch-eager (one call)" $pin "$vb" run "${common[@]}" -o "$out/{impl}.json" \
  --impl "$py -m vbench_impl.hf_gpt2" --impl "$py -m vbench_impl.torch_gpt"
[ -z "$compile_configs" ] || step "--impl torch-compile" $pin "$vb" run --config "$compile_configs" --dtype bf16 -B 4 -T 64 --warmup 5 --iters 50 -q \
  -o "$out/torch-compile.json" --impl "$py -m vbench_impl.torch_gpt --compile"
# The old peer script on the same weights (vbench init with the same seed as the runs above).
weights=()
for c in ${configs//,/ }; do
  "$vb" init --config "$c" -o "$out/$c.safetensors"
  weights+=("$out/$c.safetensors")
done
step "peer script (eager all, compile gpt_nano,gpt2)" $pin "$py" bench/peers/torch_gpt.py --weights "${weights[@]}" \
  --dtype bf16 -B 4 -T 64 --warmup 5 --iters 50 --compile-configs "$compile_configs" \
  --out-eager "$out/peer-eager.json" --out-compile "$out/peer-compile.json" > "$out/peer.log"
rm -f "$out"/*.safetensors
for impl in hf-gpt2 torch-eager torch-compile; do
  "$vb" compare "$out/cuda.json" "$out/$impl.json" --format table > "$out/cuda-vs-$impl.txt" || true
done
"$py" - "$out" << 'PY'
import json, os, sys
out = sys.argv[1]
cols = [("vbench cuda", "cuda.json"), ("hf-gpt2 --impl", "hf-gpt2.json"), ("torch-eager --impl", "torch-eager.json"),
        ("peer eager", "peer-eager.json"), ("torch-compile --impl", "torch-compile.json"),
        ("peer compile", "peer-compile.json")]
docs = {}
for title, f in cols:
    p = os.path.join(out, f)
    docs[title] = json.load(open(p))["benchmarks"] if os.path.exists(p) else {}
names = list(docs["vbench cuda"]) or ["gpt_nano"]
print("median forward, us (bf16, B=4 T=64; --impl samples are CUDA events inside the implementation)")
print("| config | " + " | ".join(t for t, _ in cols) + " |")
print("|---" * (len(cols) + 1) + "|")
for n in names:
    cells = []
    for t, _ in cols:
        b = docs[t].get(n)
        cells.append(f"{b['timing']['median'] * 1e3:.1f}" if b and "timing" in b else
                     (b.get("status", "-") if b else "-"))
    print(f"| {n} | " + " | ".join(cells) + " |")
PY
