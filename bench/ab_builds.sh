#!/usr/bin/env bash
# A/B of two builds of vbench in one device call: A = HEAD as committed, B = HEAD with PATCH applied (patch -p1, e.g.
# `git diff > .deb/b.patch` of a variant; keep it in a carried, git-ignored folder). Both are built with
# scripts/gpu-check (no tests), then run alternately, ROUNDS times (default 2), each run its own process:
# bench/vbench_seeds.sh with VBENCH=<that build>. Prints one line per run, prefixed A1, B1, A2, ...; the documents
# and logs go under OUTDIR/A1 ... Session 11 reverted the programmatic launches on such a run.
# Usage: bench/ab_builds.sh OUTDIR PATCH [DTYPES] [CONFIGS]   (repo root; carry .deb for OpenBLAS)
set -uo pipefail
out=${1:?usage: bench/ab_builds.sh OUTDIR PATCH [DTYPES] [CONFIGS]}
patch_file=$(realpath "${2:?usage: bench/ab_builds.sh OUTDIR PATCH [DTYPES] [CONFIGS]}")
dtypes=${3:-bf16}
configs=${4:-gpt2 gpt_micro}
mkdir -p "$out"
b=/tmp/ab-build-b
rm -rf "$b" && mkdir -p "$b" && git archive HEAD | tar -x -C "$b"
[ -d .deb ] && cp -r .deb "$b/"
(cd "$b" && patch -p1 < "$patch_file" > "$out/patch.log") || { echo "PATCH does not apply (see $out/patch.log)"; exit 1; }
# One after the other: the first unpacks the carried OpenBLAS packages that both use.
VTOOLS_GPU_SKIP_TESTS=1 VTOOLS_GPU_SKIP_BENCH=1 scripts/gpu-check "$out/build-a" > /dev/null 2>&1
(cd "$b" && VTOOLS_GPU_SKIP_TESTS=1 VTOOLS_GPU_SKIP_BENCH=1 scripts/gpu-check "$out/build-b" > /dev/null 2>&1)
for v in A B; do
  bin=build-gpu/tools/vbench/vbench
  [ $v = B ] && bin=$b/build-gpu/tools/vbench/vbench
  [ -x "$bin" ] || { echo "build $v failed (see $out/build-$(echo $v | tr AB ab))"; exit 1; }
done
for round in $(seq 1 "${ROUNDS:-2}"); do
  for v in A B; do
    bin=build-gpu/tools/vbench/vbench
    [ $v = B ] && bin=$b/build-gpu/tools/vbench/vbench
    VBENCH=$bin VBENCH_SKIP_CHECK=1 bench/vbench_seeds.sh "$out/$v$round" "$dtypes" "$configs" | sed "s/^/$v$round /"
  done
done
