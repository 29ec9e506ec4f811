#!/usr/bin/env bash
# The first GPU run of the own wgmma kernels (tools/vbench/ops/wgmma_gemm.cu, timed by bench/wgmma_gemm_bench.cpp,
# written in session 10 without device time). Phases, in order (WGMMA_PHASES picks some; default all):
#   build    a fresh build (scripts/gpu-check without its tests and benchmarks), ~4 min
#   tests    the wgmma GPU tests alone (a hang or fault shows here first), ~1 min
#   bench    bench/wgmma_gemm_bench.sh: each tiling and the layer-norm kernel against cuBLASLt (graphs, cold L2), ~1 min
#   forwards gpt2 and two bf16 seeds with and without VTOOLS_VBENCH_WGMMA=1, two alternating rounds, ~3 min
#   others   the rest of the vbench GPU tests, ~2 min
# One device command may run 10 minutes: run "build tests bench" in one call and "forwards others" in the next
# (the build stays on a warm machine). Logs under OUTDIR.
# Usage: WGMMA_PHASES="build tests bench" bench/wgmma_first_run.sh OUTDIR   (repo root; carry .deb for OpenBLAS)
set -uo pipefail
out=${1:?usage: bench/wgmma_first_run.sh OUTDIR}
phases=" ${WGMMA_PHASES:-build tests bench forwards others} "
mkdir -p "$out"
tests=build-gpu/tools/vbench/cuda/tests/vbench_cuda_gpu_tests
wgmma_cases='wgmma*,transpose*'
if [[ $phases == *" build "* ]]; then
  VTOOLS_GPU_SKIP_TESTS=1 VTOOLS_GPU_SKIP_BENCH=1 scripts/gpu-check "$out/logs" > "$out/build.txt" 2>&1
  tail -4 "$out/build.txt"
fi
if [[ $phases == *" tests "* ]]; then
  echo "== wgmma GPU tests"
  timeout 300 "$tests" -tc="$wgmma_cases" > "$out/wgmma-tests.log" 2>&1
  echo "exit $?"
  grep -E "wgmma .* rel err|ERROR|FAILED|skipped|test cases" "$out/wgmma-tests.log" | head -40
fi
if [[ $phases == *" bench "* ]]; then
  echo "== bench/wgmma_gemm_bench.sh"
  timeout 420 bench/wgmma_gemm_bench.sh > "$out/wgmma-bench.log" 2>&1
  echo "exit $?"
  cat "$out/wgmma-bench.log"
fi
if [[ $phases == *" forwards "* ]]; then
  for round in 1 2; do
    for on in 0 1; do
      echo "== forwards, VTOOLS_VBENCH_WGMMA=$on, round $round"
      VTOOLS_VBENCH_WGMMA=$on VBENCH_SKIP_CHECK=1 timeout 300 bench/vbench_seeds.sh "$out/fwd-$on-$round" bf16 \
        "gpt2 gpt_tile_large gpt_micro"
    done
  done
fi
if [[ $phases == *" others "* ]]; then
  echo "== the other vbench GPU tests"
  timeout 400 "$tests" -tce="$wgmma_cases" > "$out/other-tests.log" 2>&1
  echo "exit $?"
  grep -E "ERROR|FAILED|test cases" "$out/other-tests.log" | tail -10
fi
