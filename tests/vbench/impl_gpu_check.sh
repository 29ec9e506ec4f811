#!/usr/bin/env bash
# GPU checks of `vbench run --impl` (label gpu; exit 77 without a GPU, torch or transformers):
#   hf CONFIG DTYPE  the HF adapter (python -m vbench_impl.hf_gpt2) passes the gate and is timed
#   compile          the torch.compile adapter's document compares with vbench cuda's (one comparison, a verdict)
#   example          the compiled example (vbench's cuda backend behind the protocol) passes the gate
# Usage: impl_gpu_check.sh VBENCH EXAMPLE PYTHON MODE [CONFIG DTYPE]
set -uo pipefail
vb=$1 example=$2 py=$3 mode=$4
command -v nvidia-smi > /dev/null && nvidia-smi -L > /dev/null 2>&1 || { echo "skipped: no GPU"; exit 77; }
[ "$mode" = hf ] && need="torch, transformers"
"$py" -c "import torch, numpy; assert torch.cuda.is_available()" 2> /dev/null || { echo "skipped: no CUDA torch"; exit 77; }
[ "$mode" != hf ] || "$py" -c "import transformers" 2> /dev/null || { echo "skipped: no transformers"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
status_of() { "$py" -c "import json,sys; d=json.load(open(sys.argv[1])); print(' '.join(b['status'] for b in d['benchmarks'].values()))" "$1"; }
case $mode in
  hf)
    "$vb" run --impl "$py -m vbench_impl.hf_gpt2" --config "$5" --dtype "$6" -B 2 -T 64 --warmup 2 --iters 10 -q \
      -o "$tmp/hf.json" || fail "hf $5 $6: exit $?"
    [ "$(status_of "$tmp/hf.json")" = ok ] || fail "hf $5 $6: status $(status_of "$tmp/hf.json")"
    "$vb" show "$tmp/hf.json" --format markdown ;;
  compile)
    "$vb" run --backend cuda --config gpt_nano --dtype bf16 -B 4 -T 64 --iters 30 -q -o "$tmp/cuda.json" || fail "cuda run"
    "$vb" run --impl "$py -m vbench_impl.torch_gpt --compile" --config gpt_nano --dtype bf16 -B 4 -T 64 --iters 30 -q \
      -o "$tmp/compile.json" || fail "compile run: exit $?"
    [ "$(status_of "$tmp/compile.json")" = ok ] || fail "compile: status $(status_of "$tmp/compile.json")"
    "$vb" compare "$tmp/cuda.json" "$tmp/compile.json" -o "$tmp/cmp.json" || fail "compare: exit $?"
    "$py" - "$tmp/cmp.json" << 'PY' || fail "compare document"
import json, sys
c = json.load(open(sys.argv[1]))
assert c["baseline"]["backend"] == "cuda" and c["candidate"]["backend"] == "torch-compile", c["candidate"]
(row,) = c["comparisons"]
assert row["verdict"] in ("faster", "slower", "same") and row["speedup"] > 0, row
print(f"cuda vs torch-compile gpt_nano bf16: speedup {row['speedup']:.2f} ({row['verdict']})")
PY
    ;;
  example)
    "$vb" run --impl "$example" --config gpt_nano --dtype bf16 -B 4 -T 64 --iters 10 -q -o "$tmp/ex.json" \
      || fail "example: exit $?"
    [ "$(status_of "$tmp/ex.json")" = ok ] || fail "example: status $(status_of "$tmp/ex.json")" ;;
  *) echo "unknown mode $mode"; exit 2 ;;
esac
echo "ok: $mode ${5:-} ${6:-}"
