#!/usr/bin/env bash
# A/B of a vbench change on the GPU test machine, in one session: "after" = the working tree (built by
# scripts/gpu-check into build-gpu, vbench GPU tests run), "before" = the tree with PATCH reversed (build-before).
# Three alternating gpt2 bf16 runs, then the six seed configs in bf16 and gpt_nano fp32 once each; medians in us.
# AB_CONFIGS (a --config list, default gpt2), AB_DTYPE (default bf16) and AB_REPS (default 3) change the alternating
# runs; AB_SEEDS=0 leaves out the seeds; AB_SEED_CONFIGS replaces the bf16 seed list. AB_AFTER_ENVS (space-separated
# NAME=VALUE words) runs "after" once per word with that variable set (e.g. "VTOOLS_X=1 VTOOLS_X=2"; outputs
# after-<word>-...). Make PATCH with `git diff -- tools/vbench > .deb/change.patch` (.deb/ is git-ignored; carry it
# to the device).
# Usage: bench/vbench_ab.sh OUTDIR PATCH      (repo root)
set -uo pipefail
out=${1:?usage: bench/vbench_ab.sh OUTDIR PATCH}
patch_file=${2:?usage: bench/vbench_ab.sh OUTDIR PATCH}
mkdir -p "$out"
VTOOLS_GPU_SKIP_BENCH=1 scripts/gpu-check $out/logs vbench > $out/check.txt 2>&1; tail -4 $out/check.txt
patch -s -R -p1 < "$patch_file" && cmake --preset gpu -B build-before > /dev/null 2>&1 &&
  cmake --build build-before -j16 --target vbench > "$out/before-build.log" 2>&1
echo "before build $?"
patch -s -p1 < "$patch_file"
. "$(dirname "$0")/vbench_lib.sh"
run() {  # run VBENCH CONFIGS DTYPE OUT.json
  vbench_timed_run "$@" || echo "FAILED $1 $2"
}
med() { vbench_medians "$1" us; }  # med BENCH.json: "config=median_us ..."
variants="before"
for e in ${AB_AFTER_ENVS:-}; do variants="$variants after-$e"; done
[ -z "${AB_AFTER_ENVS:-}" ] && variants="before after"
bin() { if [ "$1" = before ]; then echo build-before/tools/vbench/vbench; else echo build-gpu/tools/vbench/vbench; fi; }
with() {  # with VARIANT COMMAND...: COMMAND with the variant's variable set
  local v=$1; shift
  case $v in after-*) (export "${v#after-}"; "$@") ;; *) "$@" ;; esac
}
for r in $(seq "${AB_REPS:-3}"); do
  for v in $variants; do
    with "$v" run "$(bin "$v")" "${AB_CONFIGS:-gpt2}" "${AB_DTYPE:-bf16}" "$out/$v-ab-$r.json"
    echo "$v ${AB_CONFIGS:-gpt2} ${AB_DTYPE:-bf16} rep $r: $(med "$out/$v-ab-$r.json")"
  done
done
[ "${AB_SEEDS:-1}" = 0 ] && exit 0
seeds=${AB_SEED_CONFIGS:-gpt_nano,gpt_micro,gpt_mini,gpt_tile_small,gpt_tile_medium,gpt_tile_large}
for v in $variants; do
  with "$v" run "$(bin "$v")" "$seeds" bf16 "$out/$v-seeds.json"
  echo "$v seeds bf16: $(med "$out/$v-seeds.json")"
  with "$v" run "$(bin "$v")" gpt_nano fp32 "$out/$v-nano32.json"; echo "$v gpt_nano fp32: $(med "$out/$v-nano32.json")"
done
