#!/usr/bin/env bash
# Where one vbench forward spends its time, per kernel, on the GPU test machine: vtrace on `vbench run` (the timed
# graph's replays only: `summary --graph last`), the table printed. Builds build-gpu/ first when it lacks the tools
# (scripts/gpu-check without tests or benchmarks). Usage: bench/vbench_profile.sh OUTDIR [CONFIG] [DTYPE]   (repo
# root; defaults gpt2 bf16, B=4 T=64). Environment, e.g. VTOOLS_VBENCH_WGMMA, passes through to vbench. Where the
# kept forward launches kernels as programmatic dependents, each one's time includes its wait for the one before
# (man vtrace, LIMITS): the table is sorted by the "exposed/launch" column, what each kernel adds to the replay; set
# VTOOLS_VBENCH_PROGRAMMATIC=0 for per-kernel times without the overlap.
set -uo pipefail
out=${1:?usage: bench/vbench_profile.sh OUTDIR [CONFIG] [DTYPE]}
config=${2:-gpt2}
dtype=${3:-bf16}
mkdir -p "$out"
vb=build-gpu/tools/vbench/vbench
vtrace=build-gpu/tools/vtrace/vtrace
if [ ! -x "$vb" ] || [ ! -x "$vtrace" ]; then
  VTOOLS_GPU_SKIP_TESTS=1 VTOOLS_GPU_SKIP_BENCH=1 scripts/gpu-check "$out/logs" > "$out/build.txt" 2>&1 ||
    { tail -20 "$out/build.txt"; exit 1; }
fi
trace=$out/$config-$dtype.trace.json
timeout 180 "$vtrace" run -q -o "$trace" -- "$vb" run --config "$config" --backend cuda --dtype "$dtype" -B 4 -T 64 \
  --warmup 5 --iters 50 --no-check -o "$out/$config-$dtype.json" > "$out/profile.log" 2>&1 ||
  { echo "vtrace run failed:"; tail -5 "$out/profile.log"; exit 1; }
timeout 60 "$vtrace" summary --graph last --sort exposed --format table "$trace" -o "$out/$config-$dtype-kernels.txt" ||
  { echo "vtrace summary failed"; exit 1; }
cat "$out/$config-$dtype-kernels.txt"
