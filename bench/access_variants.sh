#!/usr/bin/env bash
# Access mode's two launch-path switches against their defaults, after scripts/gpu-check built build-gpu:
#   VTRACE_ACCESS_STREAM_TABLES  per-stream allocation tables, no synchronization when allocations change (default 1)
#   VTRACE_ACCESS_READER         a thread of the tool's own reads launches back as they finish (default 1)
# Optionally (TESTS=ctest regex) the access GPU tests under SWITCHES first; then paired whole-run rounds of memcheck,
# vtrace (defaults) and the variants: `old` (both off, the way before session 39), `st` and `reader` (one on).
# Each variant's per-launch totals are compared with the default run's (a deterministic program: none differ).
# Prints each vtrace run's cost split (from its closing notes) last.
# Usage: bench/access_variants.sh LOGDIR   (ROUNDS=2, ROUNDS_SECONDS=360, PROGRAMS=gpt2_forward,gpt2_train,
#        VARIANTS="old st reader", TESTS=, SWITCHES="VTRACE_ACCESS_READER=0 VTRACE_ACCESS_STREAM_TABLES=0")
set -uo pipefail
logs=${1:?usage: bench/access_variants.sh LOGDIR}
rounds=${ROUNDS:-2}
programs=${PROGRAMS:-gpt2_forward,gpt2_train}
mkdir -p "$logs"
if [ -n "${TESTS:-}" ]; then
  env ${SWITCHES:-VTRACE_ACCESS_READER=0 VTRACE_ACCESS_STREAM_TABLES=0} timeout 150 ctest --preset gpu -j2 \
    --output-on-failure --timeout 120 -R "$TESTS" > "$logs/ctest-switches.log" 2>&1
  echo "tests under ${SWITCHES:-both off}: $(grep -E 'tests passed' "$logs/ctest-switches.log") $(grep -E '\*\*\*(Failed|Timeout)' "$logs/ctest-switches.log" | tr -s ' ' | tr '\n' ';')"
fi
variants=()
for v in ${VARIANTS:-old st reader}; do
  case $v in
    old) variants+=(--variant old:VTRACE_ACCESS_STREAM_TABLES=0,VTRACE_ACCESS_READER=0) ;;
    st) variants+=(--variant st:VTRACE_ACCESS_READER=0) ;;
    reader) variants+=(--variant reader:VTRACE_ACCESS_STREAM_TABLES=0) ;;
  esac
done
timeout "${ROUNDS_SECONDS:-360}" python3 bench/access_overhead.py "$logs/bench" --rounds "$rounds" --no-warmup \
  --programs "$programs" --tools memcheck,vtrace "${variants[@]}" > "$logs/bench.txt" 2>&1
python3 - "$logs/bench.txt" << 'PY'
import json, re, sys
differ = []
print("| program | round | tool | s | findings | partial | records | preparing (tables) | ends | launch calls | read by reader |")
print("|---|---|---|---|---|---|---|---|---|---|---|")
for line in open(sys.argv[1]):
    if not line.startswith("{"):
        continue
    d = json.loads(line)
    if "against_default" in d:
        differ.append(f"{d['program']} round {d['round']}: default vs {d['variant']}: {d['against_default']}")
        continue
    note = next((n for n in d.get("closing_notes", []) if "access mode in" in n), "")
    def grab(pattern):
        m = re.search(pattern, note)
        return m.group(1) if m else ""
    prep = grab(r"([0-9.]+ s) preparing") + (" (" + grab(r"([0-9.]+ s) of it copying") + ")" if "copying" in note else "")
    print(f"| {d['program']} | {d['round']} | {d['tool']} | {d['seconds']:.2f} | {d.get('findings', d.get('errors', ''))} | "
          f"{d.get('partial', '')} | {d.get('records', '')} | {prep} | {grab(r'([0-9.]+ s) at their ends')} | "
          f"{grab(r'launch calls took ([0-9.]+ s)')} | {grab(r'([0-9]+) by the reader thread')} |")
print("\nper-launch loads/stores/atomics/bytes against the default run (a deterministic program: 0 launches differ)")
print("\n".join(differ))
PY
