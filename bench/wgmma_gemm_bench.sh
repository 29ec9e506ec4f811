#!/usr/bin/env bash
# Builds and runs bench/wgmma_gemm_bench.cu on the GPU test machine (one device call, ~30 s): gpt2 bf16's four GEMM
# shapes at M=256, cuBLASLt (best of its heuristic's 8, fp32 out) beside the own wgmma + TMA GEMM in each tile and
# split; medians of 101 launches in µs and the relative error against cuBLASLt. WGMMA_SANITIZE=1 runs it once
# under compute-sanitizer memcheck first. Usage: bench/wgmma_gemm_bench.sh   (repo root)
set -euo pipefail
nvcc -gencode arch=compute_90a,code=sm_90a -O3 -std=c++17 -lineinfo -o /tmp/wgmma_gemm_bench \
  bench/wgmma_gemm_bench.cu -lcuda -lcublasLt
if [ -n "${WGMMA_SANITIZE:-}" ]; then
  timeout 300 compute-sanitizer --tool memcheck /tmp/wgmma_gemm_bench | tail -15
fi
timeout 120 /tmp/wgmma_gemm_bench
