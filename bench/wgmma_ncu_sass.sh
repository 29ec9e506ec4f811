#!/usr/bin/env bash
# Nsight Compute's full set, with per-SASS-instruction warp stall samples, on the first eager launch of the own wgmma
# GEMM (gpt2's qkv product) per tiling: OUTDIR/VARIANT-sass.csv (the source page) and a digest of the instructions
# with the most stall samples. Usage: bench/wgmma_ncu_sass.sh OUTDIR VARIANT...   (repo root, after a build-gpu build)
set -uo pipefail
out=${1:?usage: bench/wgmma_ncu_sass.sh OUTDIR VARIANT...}
shift
bin=build-gpu/tools/vbench/cuda/wgmma_gemm_bench
mkdir -p "$out"
for variant in "$@"; do
  timeout 240 ncu --set full -k regex:wgmma_gemm_kernel -c 1 -f -o "/tmp/ncu-$variant" "$bin" "$variant" \
    > "/tmp/ncu-$variant.log" 2>&1
  echo "== $variant (exit $?)"
  ncu -i "/tmp/ncu-$variant.ncu-rep" --page source --csv --print-source sass > "$out/$variant-sass.csv" 2>&1
  ncu -i "/tmp/ncu-$variant.ncu-rep" --page details > "$out/$variant-details.txt" 2>&1
  grep -E "Duration|Elapsed Cycles" "$out/$variant-details.txt" | head -3
  head -c 600 "$out/$variant-sass.csv"; echo
done
