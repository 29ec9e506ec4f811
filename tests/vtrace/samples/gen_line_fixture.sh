#!/usr/bin/env bash
# Prints what the CUDA toolkit's own tools say about the line-table fixture (tests/data/vtrace/line_kernels.cubin),
# for the lead to run on the GPU machine (nvdisasm is not installed where vtools is built) and commit as the
# expected tables of tests/vtrace/source_map_test.cpp:
#   tests/data/vtrace/line_kernels.lineinfo.txt  nvdisasm --print-line-info -c  (PC -> file:line, inlined at)
#   tests/data/vtrace/line_kernels.sass.txt      nvdisasm -c                    (what sass_listing parses)
#   tests/data/vtrace/line_kernels_noline.sass.txt
# Usage: tests/vtrace/samples/gen_line_fixture.sh [OUTDIR]   (default: tests/data/vtrace)
set -euo pipefail
cd "$(dirname "$0")/../../.."
out=${1:-tests/data/vtrace}
nvdisasm=$(command -v nvdisasm || echo "${CUDA_HOME:-/usr/local/cuda}/bin/nvdisasm")
[ -x "$nvdisasm" ] || { echo "gen_line_fixture: nvdisasm not found" >&2; exit 69; }
"$nvdisasm" --version | tail -1
"$nvdisasm" --print-line-info -c tests/data/vtrace/line_kernels.cubin > "$out/line_kernels.lineinfo.txt"
"$nvdisasm" -c tests/data/vtrace/line_kernels.cubin > "$out/line_kernels.sass.txt"
"$nvdisasm" -c tests/data/vtrace/line_kernels_noline.cubin > "$out/line_kernels_noline.sass.txt"
# The lines the unit tests expect, for a look by eye: offbyone +0xc0 (the load) at line 12, +0xf0 (the store) at 13,
# +0x0 at 9; scaled +0xc0 at line 6 inlined at 19.
grep -n -E '^\s*//## File|/\*0000\*/|/\*00c0\*/|/\*00f0\*/|\.text\.' "$out/line_kernels.lineinfo.txt" | head -40
wc -l "$out"/line_kernels*.txt
