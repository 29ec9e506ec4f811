#!/usr/bin/env bash
# Runs build-gpu's wgmma_gemm_bench (bench/wgmma_gemm_bench.cpp) on the GPU test machine: gpt2 bf16's four layer
# products at B=4 T=64 through their cuBLASLt plan and through the own wgmma GEMM in each tiling (WGMMA_VARIANTS
# picks some), one process each under a timeout (a hang or fault costs only its own lines): median µs of one launch
# in a graph of launches on L2-cold weight copies and the relative error against cuBLASLt; then each projection +
# layer norm as the forward runs them against the fused wgmma kernel. `WGMMA_VARIANTS=head` times the fp32 LM head
# (bench/RESULTS.md, session 15).
# WGMMA_SANITIZE=1 runs each tiling under compute-sanitizer memcheck first. Builds with
# scripts/gpu-check first when build-gpu has no binary. Usage: bench/wgmma_gemm_bench.sh   (repo root)
set -uo pipefail
bin=build-gpu/tools/vbench/cuda/wgmma_gemm_bench
[ -x "$bin" ] || VTOOLS_GPU_SKIP_TESTS=1 VTOOLS_GPU_SKIP_BENCH=1 scripts/gpu-check /tmp/wgmma-build > /dev/null 2>&1
[ -x "$bin" ] || { echo "no $bin: the build failed (see /tmp/wgmma-build)"; exit 1; }
variants=${WGMMA_VARIANTS:-cublaslt 128x1x1 64x1x1 128x2x4 128x2x1 64x1x4 layernorm}
for v in $variants; do
  if [ -n "${WGMMA_SANITIZE:-}" ] && [ "$v" != cublaslt ]; then  # (layernorm: cuBLASLt's kernels too)
    echo "== compute-sanitizer memcheck: $v"
    timeout 180 compute-sanitizer --tool memcheck "$bin" "$v" | tail -4
  fi
  echo "== $v"
  timeout 60 "$bin" "$v"
  rc=$?
  [ $rc -eq 0 ] || echo "== $v: exit $rc$([ $rc -eq 124 ] && echo ' (timed out: a hang)')"
done
