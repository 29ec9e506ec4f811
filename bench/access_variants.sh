#!/usr/bin/env bash
# Issue 38's switches not yet run on a GPU, in one device call after scripts/gpu-check built build-gpu:
#   st      VTRACE_ACCESS_STREAM_TABLES=1  per-stream allocation tables, no synchronization when allocations change
#   reader  VTRACE_ACCESS_READER=1         a thread of the tool's own reads launches back as they finish
# First the access GPU tests that judge correctness (planted bugs found exactly, cuBLAS and GPT-2 clean, nothing
# partial) with both switches on, then paired whole-run rounds against memcheck with both switches as variants.
# Prints the tests' verdicts and each vtrace run's cost split (from its closing notes) last.
# Usage: bench/access_variants.sh LOGDIR   (ROUNDS=2, ROUNDS_SECONDS=360, PROGRAMS=gpt2_forward,gpt2_train, TESTS=ctest regex)
set -uo pipefail
logs=${1:?usage: bench/access_variants.sh LOGDIR}
rounds=${ROUNDS:-2}
programs=${PROGRAMS:-gpt2_forward,gpt2_train}
tests=${TESTS:-'vtrace_gpu_access_(sample|torch_loop|gpt2_forward|triton_offbyone)$'}
mkdir -p "$logs"
# Both switches at once (one device call has room for one pass); split them only if this fails.
VTRACE_ACCESS_STREAM_TABLES=1 VTRACE_ACCESS_READER=1 timeout 150 ctest --preset gpu -j2 --output-on-failure \
  --timeout 120 -R "$tests" > "$logs/ctest-switches.log" 2>&1
echo "both switches: $(grep -E 'tests passed' "$logs/ctest-switches.log") $(grep -E '\*\*\*(Failed|Timeout)' "$logs/ctest-switches.log" | tr -s ' ' | tr '\n' ';')"
timeout "${ROUNDS_SECONDS:-360}" python3 bench/access_overhead.py "$logs/bench" --rounds "$rounds" --no-warmup --programs "$programs" \
  --tools memcheck,vtrace --variant st:VTRACE_ACCESS_STREAM_TABLES=1 --variant reader:VTRACE_ACCESS_READER=1 \
  --variant both:VTRACE_ACCESS_STREAM_TABLES=1,VTRACE_ACCESS_READER=1 > "$logs/bench.txt" 2>&1
python3 - "$logs/bench.txt" << 'PY'
import json, re, sys
print("| program | round | tool | s | findings | partial | preparing (tables) | ends | launch calls | read by reader |")
print("|---|---|---|---|---|---|---|---|---|---|")
for line in open(sys.argv[1]):
    if not line.startswith("{"):
        continue
    d = json.loads(line)
    note = next((n for n in d.get("closing_notes", []) if "access mode in" in n), "")
    def grab(pattern):
        m = re.search(pattern, note)
        return m.group(1) if m else ""
    prep = grab(r"([0-9.]+ s) preparing") + (" (" + grab(r"([0-9.]+ s) of it copying") + ")" if "copying" in note else "")
    print(f"| {d['program']} | {d['round']} | {d['tool']} | {d['seconds']:.2f} | {d.get('findings', d.get('errors', ''))} | "
          f"{d.get('partial', '')} | {prep} | {grab(r'([0-9.]+ s) at their ends')} | "
          f"{grab(r'launch calls took ([0-9.]+ s)')} | {grab(r'([0-9]+) by the reader thread')} |")
PY
