#!/usr/bin/env bash
# The quick loop for vbench cuda work on the GPU test machine, in one device call (~90 s): a fresh build with the
# vbench GPU tests (scripts/gpu-check LOGDIR vbench), then every seed config at B=4 T=64 in bf16 and fp32, one
# `vbench run` per config so that each prints its own notes. A line per run: median us, kernels per forward,
# logits rel err vs the cpu backend, and the medians at prepare of each forward the backend chose between (unfused,
# each fused layout). Usage: bench/vbench_seeds.sh OUTDIR [DTYPES] [CONFIGS]   (repo root)
#   DTYPES default "bf16 fp32"; CONFIGS default the six seeds; VBENCH_ITERS (default 100) timed replays;
#   VBENCH_SKIP_CHECK=1 skips the build and tests; VBENCH (binary) and VBENCH_BACKEND (cuda) for a run elsewhere.
set -uo pipefail
out=${1:?usage: bench/vbench_seeds.sh OUTDIR [DTYPES] [CONFIGS]}
dtypes=${2:-bf16 fp32}
configs=${3:-gpt_nano gpt_micro gpt_mini gpt_tile_small gpt_tile_medium gpt_tile_large}
mkdir -p "$out"
if [ -z "${VBENCH_SKIP_CHECK:-}" ]; then
  VTOOLS_GPU_SKIP_BENCH=1 scripts/gpu-check "$out/logs" vbench > "$out/check.txt" 2>&1
  tail -3 "$out/check.txt"
fi
vb=${VBENCH:-build-gpu/tools/vbench/vbench}
for dtype in $dtypes; do
  for config in $configs; do
    json=$out/$config-$dtype.json
    if ! "$vb" run --config "$config" --backend "${VBENCH_BACKEND:-cuda}" --dtype "$dtype" -B 4 -T 64 --warmup 20 \
        --iters "${VBENCH_ITERS:-100}" -o "$json" > "$out/$config-$dtype.log" 2>&1; then
      echo "FAILED $config $dtype:"
      tail -3 "$out/$config-$dtype.log"
      continue
    fi
    python3 - "$json" "$dtype" <<'EOF'
import json, re, sys
doc = json.load(open(sys.argv[1]))
chose = ' '.join(re.sub(r'.*\((median of 15 replays: .*)\)$', r'\1', n)
                 for n in doc['metadata'].get('notes', []) if 'median of 15 replays' in n)
for name, b in doc['benchmarks'].items():
    err = b.get('correctness', {}).get('rel_err', float('nan'))
    print('%-16s %-5s %7.1f us  kernels %-3s  rel err %.1e  %s' % (
        name, sys.argv[2], 1000 * b['timing']['median'], b.get('kernels_per_forward'), err, chose))
for n in doc['metadata'].get('notes', []):
    if 'were not used' in n:
        print('  ' + n)
EOF
  done
done
