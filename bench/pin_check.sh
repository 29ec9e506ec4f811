#!/usr/bin/env bash
# What pinning the forward buys: gpt2 bf16 (B=4 T=64) searched three times and pinned to the first search's forward
# three times, alternating; per run the wall time (prepare included), the kept forward and the median.
# Usage: bench/pin_check.sh VBENCH OUTDIR
set -uo pipefail
vb=$1 out=$2
mkdir -p "$out"
args=(--config gpt2 --backend cuda --dtype bf16 -B 4 -T 64 --warmup 20 --iters 200 --no-check -q)
line() {  # DOC NAME SECONDS
  python3 - "$@" << 'PY'
import json, sys
b = json.load(open(sys.argv[1]))["benchmarks"]["gpt2"]
p = b["plan_search"]
us = b["timing"]["median"] * 1e3
print(f"{sys.argv[2]:>9} {sys.argv[3]:>6} s {us:7.1f} us {len(p['timed']):3d} timed  {p['kept']}")
PY
}
run() {  # NAME ARGS...
  local name=$1; shift
  local t0=$(date +%s%N)
  "$vb" run "${args[@]}" "$@" -o "$out/$name.json" || { echo "$name: exit $?"; return; }
  local ds=$((($(date +%s%N) - t0) / 100000000))
  line "$out/$name.json" "$name" "$((ds / 10)).$((ds % 10))"
}
run searched1
for i in 1 2 3; do
  run "pinned$i" --forwards-from "$out/searched1.json"
  [ $i -lt 3 ] && run "searched$((i + 1))"
done
"$vb" compare "$out/searched1.json" "$out/pinned3.json" --format table
