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
  python3 - "$out/$variant-sass.csv" <<'PY'
import csv, sys
rows = list(csv.reader(open(sys.argv[1])))
head = next(i for i, r in enumerate(rows) if "Address" in r)
cols, data = rows[head], [r for r in rows[head + 1:] if len(r) == len(rows[head])]
at, src = cols.index("Address"), cols.index("Source")
stall = cols.index("Warp Stall Sampling (All Samples)")
total = sum(float(r[stall] or 0) for r in data)
print(f"{total:.0f} stall samples; the 15 instructions with most:")
for r in sorted(data, key=lambda r: -float(r[stall] or 0))[:15]:
    print(f"  {float(r[stall] or 0):6.0f}  {r[at][-6:]}  {r[src][:90]}")
PY
done
