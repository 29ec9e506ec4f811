// Human tables of a BenchRun (`--format table|markdown`, or a TTY stdout): one row per config with status, median,
// p95, tokens/s, floor and fraction, correctness; and `--format csv`: one row per benchmark with the raw numbers.
#pragma once

#include <ostream>
#include <string>

#include "tools/vbench/harness.hpp"

namespace vtools::vbench {

/// `format` is "table", "markdown" or "csv".
void write_bench_table(const BenchRun& run, const std::string& format, std::ostream& out);

}  // namespace vtools::vbench
