#!/usr/bin/env bash
# The first GPU run of the own wgmma GEMM (tools/vbench/ops/wgmma_gemm.cu, timed by bench/wgmma_gemm_bench.cpp,
# written in session 10 without device time), in one device call (~5 min): a fresh build, the wgmma GPU tests (a hang
# or fault there shows first), the standalone bench against cuBLASLt, gpt2 and two bf16 seeds with and without
# VTOOLS_VBENCH_WGMMA=1 (two alternating rounds), then the rest of the vbench GPU tests. Logs under OUTDIR.
# Usage: bench/wgmma_first_run.sh OUTDIR   (repo root; carry .deb for OpenBLAS as scripts/gpu-check says)
set -uo pipefail
out=${1:?usage: bench/wgmma_first_run.sh OUTDIR}
mkdir -p "$out"
VTOOLS_GPU_SKIP_TESTS=1 VTOOLS_GPU_SKIP_BENCH=1 scripts/gpu-check "$out/logs" > "$out/build.txt" 2>&1
tail -4 "$out/build.txt"
tests=build-gpu/tools/vbench/cuda/tests/vbench_cuda_gpu_tests
wgmma_cases='wgmma*,transpose*'
echo "== wgmma GPU tests"
timeout 300 "$tests" -tc="$wgmma_cases" > "$out/wgmma-tests.log" 2>&1
echo "exit $?"
grep -E "wgmma .* rel err|ERROR|FAILED|skipped|test cases" "$out/wgmma-tests.log" | head -40
echo "== bench/wgmma_gemm_bench.sh"
timeout 420 bench/wgmma_gemm_bench.sh > "$out/wgmma-bench.log" 2>&1
echo "exit $?"
cat "$out/wgmma-bench.log"
for round in 1 2; do
  for on in 0 1; do
    echo "== forwards, VTOOLS_VBENCH_WGMMA=$on, round $round"
    VTOOLS_VBENCH_WGMMA=$on VBENCH_SKIP_CHECK=1 timeout 300 bench/vbench_seeds.sh "$out/fwd-$on-$round" bf16 \
      "gpt2 gpt_tile_large gpt_micro"
  done
done
echo "== the other vbench GPU tests"
timeout 400 "$tests" -tce="$wgmma_cases" > "$out/other-tests.log" 2>&1
echo "exit $?"
grep -E "ERROR|FAILED|test cases" "$out/other-tests.log" | tail -10
