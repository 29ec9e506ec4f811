#!/usr/bin/env bash
# Where the qkv + attention kernel (tools/vbench/ops/wgmma_attention.cu) spends its cycles, phase by phase: builds
# vbench with -DVTOOLS_QKV_TIMELINE into build-tl/ and runs one forward benchmark, whose kernel launches print
# clock64 phase lengths (init, first stage's wait, the first ring of stages, the rest of the K loop, the q/k/v tiles,
# scores and softmax, p v, the output stores); prints the last few. Programmatic launches are off
# (VTOOLS_VBENCH_PROGRAMMATIC=0), so "first-stage" is the copy latency, not the wait for the kernel before. The
# instrumented kernel has more registers and may not be the one vbench keeps; the lines come from its trials.
# Usage: bench/qkv_timeline.sh OUTDIR [CONFIG]   (repo root, GPU test machine; default gpt2, bf16 B=4 T=64)
set -uo pipefail
out=${1:?usage: bench/qkv_timeline.sh OUTDIR [CONFIG]}
config=${2:-gpt2}
mkdir -p "$out"
timeout 100 cmake --preset gpu -B build-tl -DCMAKE_CUDA_FLAGS=-DVTOOLS_QKV_TIMELINE > "$out/tl-configure.log" 2>&1 ||
  { tail -20 "$out/tl-configure.log"; exit 1; }
timeout 400 cmake --build build-tl -j16 --target vbench > "$out/tl-build.log" 2>&1 ||
  { grep -m5 error "$out/tl-build.log"; exit 1; }
VTOOLS_VBENCH_PROGRAMMATIC=0 timeout 120 build-tl/tools/vbench/vbench run --config "$config" --backend cuda \
  --dtype bf16 -B 4 -T 64 --warmup 5 --iters 300 --no-check -o "$out/tl-$config.json" > "$out/tl-$config.log" 2>&1
grep QKVTL "$out/tl-$config.log" | tail -6
