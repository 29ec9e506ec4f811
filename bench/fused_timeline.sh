#!/usr/bin/env bash
# Where a fused step (tools/vbench/ops/fused_layer.cu, the small models' one-kernel-per-layer forward) spends its
# time, phase by phase: builds vbench with -DVTOOLS_FUSED_TIMELINE into build-tl/ and runs the forward benchmark of
# each CONFIG; the first and last CTA of some launches print clock64 cycles per phase (FTL lines) and globaltimer ns
# from entry to the programmatic wait's return and to the end. The instrumented kernel runs the second layer norm and
# the fc GEMM twice (ln2b, fcb: the same code again, warm), so its forward is slower and its logits are not checked.
# Usage: bench/fused_timeline.sh OUTDIR [DTYPE [CONFIG...]]   (repo root, GPU test machine; B=4 T=64)
set -uo pipefail
out=${1:?usage: bench/fused_timeline.sh OUTDIR [DTYPE [CONFIG...]]}
dtype=${2:-fp32}
shift 2 2>/dev/null || shift $#
configs=${*:-gpt_nano gpt_tile_small}
mkdir -p "$out"
if ! ldconfig -p | grep -qi openblas && ls .deb/*.deb >/dev/null 2>&1; then  # as scripts/gpu-check does
  for f in .deb/*.deb; do dpkg -x "$f" /tmp/deb-prefix; done
  export CMAKE_PREFIX_PATH=/tmp/deb-prefix/usr
  blasdir=$(dirname "$(find /tmp/deb-prefix -name 'libopenblas*.so*' | head -1)")
  export LD_LIBRARY_PATH=$blasdir:/tmp/deb-prefix/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}
  export CMAKE_LIBRARY_PATH=$blasdir CMAKE_INCLUDE_PATH=/tmp/deb-prefix/usr/include/x86_64-linux-gnu/openblas-pthread
fi
timeout 100 cmake --preset gpu -B build-tl -DCMAKE_CUDA_FLAGS=-DVTOOLS_FUSED_TIMELINE > "$out/tl-configure.log" 2>&1 ||
  { tail -20 "$out/tl-configure.log"; exit 1; }
timeout 400 cmake --build build-tl -j16 --target vbench > "$out/tl-build.log" 2>&1 ||
  { grep -m5 error "$out/tl-build.log"; exit 1; }
for config in $configs; do
  timeout 120 build-tl/tools/vbench/vbench run --config "$config" --backend cuda --dtype "$dtype" -B 4 -T 64 \
    --warmup 5 --iters 300 --no-check -o "$out/tl-$config.json" > "$out/tl-$config.log" 2>&1
  echo "== $config $dtype"
  grep FTL "$out/tl-$config.log" | tail -16
done
