#!/usr/bin/env bash
# The persistent forward on the GPU test machine in one call: build (scripts/gpu-check, tests left to the caller's
# regex), its GPU test case (SKIP_TEST=1: not), then the configs in bf16 with prepare's timed candidates (notes)
# printed, the persistent kernel's per-task trace (VTOOLS_VBENCH_PERSISTENT_TRACE) summarised by
# bench/persistent_trace.py and kept in OUTDIR/trace-CONFIG-TIME.txt.
# Usage: bench/persistent_check.sh OUTDIR [CONFIGS]      (repo root; CONFIGS default gpt2)
set -uo pipefail
out=${1:?usage: bench/persistent_check.sh OUTDIR [CONFIGS]}
configs=${2:-gpt2}
mkdir -p "$out"
VTOOLS_GPU_SKIP_TESTS=1 VTOOLS_GPU_SKIP_BENCH=1 scripts/gpu-check "$out/logs" > "$out/check.txt" 2>&1
tail -3 "$out/check.txt"
t=build-gpu/tools/vbench/cuda/tests/vbench_cuda_gpu_tests
if [ "${SKIP_TEST:-0}" != 1 ]; then
  timeout 120 $t -tc='persistent*' -s > "$out/test.log" 2>&1
  echo "persistent test exit $?"
  grep -E "persistent forward C|ERROR|FAILED|test cases|assertions" "$out/test.log" | head -30
fi
for c in ${configs//,/ }; do
  VTOOLS_VBENCH_PERSISTENT_TRACE=$out/trace-$c.txt timeout 180 build-gpu/tools/vbench/vbench run --config "$c" \
    --backend cuda --dtype bf16 -B 4 -T 64 --warmup 20 --iters 100 -o "$out/$c.json" > "$out/$c.log" 2>&1
  echo "vbench $c exit $?"; tail -3 "$out/$c.log"
  python3 - "$out/$c.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for k, v in d['benchmarks'].items():
    print(k, 'median %.1f us' % (1000 * v['timing']['median']), 'kernels', v.get('kernels_per_forward'),
          'rel err', v.get('correctness', {}).get('rel_err'))
def notes(o):
    if isinstance(o, dict):
        for k, v in o.items():
            if k == 'notes':
                yield from v
            else:
                yield from notes(v)
for n in notes(d):
    print('note:', n[:400])
    for part in n.split(', '):
        if 'persistent' in part or 'not used' in part:
            print('  ', part)
PY
  bench/persistent_trace.py "$out/trace-$c.txt" 2
  mv "$out/trace-$c.txt" "$out/trace-$c-$(date +%s).txt"
done
