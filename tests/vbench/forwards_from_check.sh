#!/usr/bin/env bash
# vbench run --forwards-from and --forward end to end on the GPU: a run pinned to a searched run's forwards keeps
# each benchmark's forward and GEMM algorithms, searches nothing (plan_search.pinned_from, no timed forwards), passes
# the gate, and `vbench compare` names no different forward; a forward that does not exist is exit 2 with no output
# file. Exit 77 without a GPU.
# Usage: forwards_from_check.sh VBENCH
set -uo pipefail
vb=$1
command -v nvidia-smi > /dev/null && nvidia-smi -L > /dev/null 2>&1 || exit 77
fail() { echo "FAIL: $*"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
args=(--config gpt_nano,gpt_tile_small --backend cuda --dtype bf16 -B 1,4 -T 32 --warmup 2 --iters 20 -q)
"$vb" run "${args[@]}" -o "$tmp/searched.json" || fail "the searched run exited $?"
"$vb" run "${args[@]}" --forwards-from "$tmp/searched.json" -o "$tmp/pinned.json" || fail "the pinned run exited $?"
python3 - "$tmp/searched.json" "$tmp/pinned.json" << 'PY' || fail "the pinned run is not the searched run's forwards"
import json, sys
searched, pinned = (json.load(open(p))["benchmarks"] for p in sys.argv[1:3])
assert searched.keys() == pinned.keys(), (searched.keys(), pinned.keys())
for key, s in searched.items():
    p = pinned[key]
    assert p["status"] == "ok", (key, p["status"])
    assert p["plan_search"]["kept"] == s["plan_search"]["kept"], key
    assert p["plan_search"]["gemm_algorithms"] == s["plan_search"]["gemm_algorithms"], key
    assert p["plan_search"]["pinned_from"] == sys.argv[1], key
    assert p["plan_search"]["timed"] == [] and "pinned_from" not in s["plan_search"], key
    print(f"{key}: {s['timing']['median'] * 1e3:.1f} us searched, {p['timing']['median'] * 1e3:.1f} us pinned: "
          f"{s['plan_search']['kept']}")
PY
"$vb" compare "$tmp/searched.json" "$tmp/pinned.json" -o "$tmp/cmp.json" || [ $? = 1 ] || fail "compare exited $?"
python3 -c 'import json, sys; d = json.load(open(sys.argv[1]))
assert len(d["comparisons"]) == 4 and all(c["kept_forwards"] is None for c in d["comparisons"]), d' "$tmp/cmp.json" ||
  fail "compare names different forwards for pinned runs"
"$vb" run --config gpt_nano --backend cuda --forward "no such forward" --iters 1 -q -o "$tmp/none.json" 2> "$tmp/err"
rc=$?
[ $rc = 2 ] || fail "--forward 'no such forward' exited $rc, not 2"
grep -q "^vbench: error: --forward: no forward named 'no such forward' runs gpt_nano (B=4 T=64) in fp32" "$tmp/err" ||
  fail "--forward 'no such forward' said: $(cat "$tmp/err")"
[ ! -e "$tmp/none.json" ] || fail "a refused --forward left an output file"
"$vb" run --config gpt_nano --backend cuda --forward unfused --iters 5 -q -o "$tmp/unfused.json" ||
  fail "--forward unfused exited $?"
python3 -c 'import json, sys; b = json.load(open(sys.argv[1]))["benchmarks"]["gpt_nano"]
assert b["status"] == "ok" and b["plan_search"]["kept"] == "unfused" and b["plan_search"]["pinned_from"] == "--forward", b
print("--forward unfused:", round(b["timing"]["median"] * 1e3, 1), "us,", b["kernels_per_forward"], "kernels")' \
  "$tmp/unfused.json" || fail "--forward unfused did not run the unfused forward"
echo "ok"
