# Helpers shared by the vbench A/B scripts (vbench_ab.sh, vbench_variants.sh); source it, do not run it.
# One timed run is the same everywhere, so that their medians compare: B=4 T=64, 20 warm-up and 100 timed replays,
# no correctness check (the GPU tests cover that), on the CUDA backend.

# vbench_timed_run VBENCH CONFIGS DTYPE OUT.json: one timed `vbench run`; its status (output discarded).
vbench_timed_run() {
  "$1" run --config "$2" --backend cuda --dtype "$3" -B 4 -T 64 --warmup 20 --iters 100 --no-check -o "$4" \
    > /dev/null 2>&1
}

# vbench_medians OUT.json [UNIT]: "config=median ..." in us (UNIT appended to each, e.g. "us"), on one line.
vbench_medians() {
  python3 -c "import json, sys; d = json.load(open(sys.argv[1])); print(' '.join('%s=%.1f%s' % (k.split('/')[-1],
1000 * v['timing']['median'], sys.argv[2]) for k, v in d['benchmarks'].items()))" "$1" "${2:-}" 2>&1 | head -c 600
}
