#!/usr/bin/env bash
# Several versions of one vbench source file timed against each other in one device call (vbench_ab.sh takes one
# patch). Builds the working tree (scripts/gpu-check: the vbench GPU tests run on it unless AB_TESTS=0), then for each
# VARIANT copies it over FILE, rebuilds vbench in the same build-gpu/ (only FILE and what includes it recompile: ~40 s
# for tools/vbench/ops/fused_layer.cu) and keeps the binary; FILE is restored at the end. Then AB_REPS (default 2)
# alternating rounds over "tree" and every variant: `vbench run` of AB_CONFIGS in AB_DTYPE (defaults: the five fused
# fp32 seeds), and once each AB_CONFIGS2 in AB_DTYPE2 (default gpt_nano,gpt_tile_small bf16; empty: none). Medians in
# us, one line per run. Keep the variants in a carried, git-ignored folder (.deb/), e.g. `git show HEAD:FILE >
# .deb/head.cu` to time the tree against HEAD.
# Usage: bench/vbench_variants.sh OUTDIR FILE VARIANT...      (repo root, GPU test machine)
set -uo pipefail
out=${1:?usage: bench/vbench_variants.sh OUTDIR FILE VARIANT...}
file=${2:?usage: bench/vbench_variants.sh OUTDIR FILE VARIANT...}
shift 2
[ $# -gt 0 ] || { echo "vbench_variants: no VARIANT given"; exit 2; }
mkdir -p "$out/bin"
t0=$(date +%s)
stamp() { echo "[$(( $(date +%s) - t0 )) s] $*"; }
VTOOLS_GPU_SKIP_TESTS=$([ "${AB_TESTS:-1}" = 0 ] && echo 1 || echo 0) VTOOLS_GPU_SKIP_BENCH=1 \
  scripts/gpu-check "$out/logs" vbench > "$out/check.txt" 2>&1
grep -E "tests passed|Failed|BUILD FAILED" "$out/check.txt"
cp build-gpu/tools/vbench/vbench "$out/bin/tree" || { echo "vbench_variants: the tree did not build"; exit 1; }
cp "$file" "$out/tree-source"
names="tree"
for v in "$@"; do
  name=$(basename "$v")
  cp "$v" "$file"
  if cmake --build build-gpu -j16 --target vbench > "$out/build-$name.log" 2>&1; then
    cp build-gpu/tools/vbench/vbench "$out/bin/$name" && names="$names $name"
  else
    echo "vbench_variants: $name did not build (see $out/build-$name.log)"
  fi
done
cp "$out/tree-source" "$file"
stamp "built: $names"
. "$(dirname "$0")/vbench_lib.sh"
run() {  # run NAME CONFIGS DTYPE ROUND: one timed run, its medians on one line
  local json="$out/$1-$3-$4.json"
  if vbench_timed_run "$out/bin/$1" "$2" "$3" "$json"; then
    echo "$1 $3 $(vbench_medians "$json")"
  else
    echo "$1 $3 FAILED"
  fi
}
for r in $(seq "${AB_REPS:-2}"); do
  for n in $names; do run "$n" "${AB_CONFIGS:-gpt_nano,gpt_tile_small,gpt_micro,gpt_tile_medium,gpt_mini}" \
    "${AB_DTYPE:-fp32}" "$r"; done
done
configs2=${AB_CONFIGS2-gpt_nano,gpt_tile_small}
[ -n "$configs2" ] && for n in $names; do run "$n" "$configs2" "${AB_DTYPE2:-bf16}" 1; done
stamp finished
