#!/usr/bin/env bash
# Nsight Compute on the first eager launch of the own wgmma GEMM (gpt2's qkv product, bench/wgmma_gemm_bench.cpp) per
# tiling, and on the layer-norm kernel: duration, DRAM / L2 / SM throughput, occupancy and warp stalls, to see why a
# tiling is slower than the HBM floor. Full reports in OUTDIR/ncu-VARIANT.txt; a digest on stdout.
# Usage: bench/wgmma_ncu.sh OUTDIR [VARIANT...]   (repo root, after a build-gpu build; default 128x1x1 128x2x1)
set -uo pipefail
out=${1:?usage: bench/wgmma_ncu.sh OUTDIR [VARIANT...]}
shift
bin=build-gpu/tools/vbench/cuda/wgmma_gemm_bench
mkdir -p "$out"
for v in "${@:-128x1x1 128x2x1}"; do
  for variant in $v; do
    timeout 240 ncu -k regex:wgmma_gemm_kernel -c 1 --section SpeedOfLight --section MemoryWorkloadAnalysis \
      --section LaunchStats --section Occupancy --section WarpStateStats --section SchedulerStats --section SourceCounters \
      "$bin" "$variant" > "$out/ncu-$variant.txt" 2>&1
    echo "== ncu $variant (exit $?)"
    grep -E "wgmma_gemm_kernel|Duration|DRAM Throughput|L2 Cache Throughput|L1/TEX Cache Throughput|Compute \(SM\)|Achieved Occupancy|Cluster Size|Grid Size|Registers Per|No Eligible|Issued Warp|Stall|ERR" \
      "$out/ncu-$variant.txt" | head -30
  done
done
