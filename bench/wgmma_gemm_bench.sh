#!/usr/bin/env bash
# Builds and runs bench/wgmma_gemm_bench.cu on the GPU test machine (one device call, ~1 min): gpt2 bf16's four GEMM
# shapes at M=256, cuBLASLt (best of its heuristic's 8, fp32 out) beside the own wgmma + TMA GEMM in each tile, split
# and cluster shape (1x1: no cluster; CXxCY: X tiles multicast across CX CTAs, W tiles across CY); medians of 101
# launches in µs and the relative error against cuBLASLt. Each variant runs in its own process under a timeout, so a
# hang or fault costs only its own lines. WGMMA_SANITIZE=1 runs each variant under compute-sanitizer memcheck first.
# Usage: bench/wgmma_gemm_bench.sh   (repo root)
set -uo pipefail
bin=${TMPDIR:-/tmp}/wgmma_gemm_bench
nvcc -gencode arch=compute_90a,code=sm_90a -O3 -std=c++17 -lineinfo -o "$bin" bench/wgmma_gemm_bench.cu \
  -lcuda -lcublasLt || exit 1
for v in cublaslt 1x1 2x1 1x4 2x4; do
  if [ -n "${WGMMA_SANITIZE:-}" ] && [ "$v" != cublaslt ]; then
    echo "== compute-sanitizer memcheck: $v"
    timeout 120 compute-sanitizer --tool memcheck "$bin" "$v" | tail -4
  fi
  echo "== $v"
  timeout 60 "$bin" "$v"
  rc=$?
  [ $rc -eq 0 ] || echo "== $v: exit $rc$([ $rc -eq 124 ] && echo ' (timed out: a hang)')"
done
