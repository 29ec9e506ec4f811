// What each vtrace subcommand is asked to do; main.cpp binds flags to these, the library acts on them.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "libcommon/cli.hpp"
#include "tools/vtrace/trace_selection.hpp"

namespace vtools::vtrace {

struct RunOptions {
  std::vector<std::string> command;  ///< CMD ARGS... after "--"
  std::string kernel_regex;          ///< --kernel: keep only matching kernels ("" = all)
  bool accesses = false;             ///< --accesses: access mode (Compute Sanitizer API)
  std::int64_t launch = -1;          ///< --launch N: access mode records only the Nth launch of each kernel
  std::string blocks;                ///< --blocks SPEC: access mode block sampling ("0,5,10-12", "every:8")
  std::uint64_t max_bytes = 256ull << 20;  ///< --max-bytes: largest device buffer of one recorded launch (access mode)
  /// --capture-range none|cudaProfilerApi (nsys's name): cudaProfilerApi keeps only what was launched between a
  /// cudaProfilerStart and the next cudaProfilerStop (launch mode).
  std::string capture_range = "none";
  /// --nvtx: also record the program's NVTX ranges and each kernel's launch call (thread, host time), which places
  /// kernels in ranges; off by default, as the launch-call records cost ~0.6 us per launch (bench/RESULTS.md).
  bool nvtx = false;
  /// --api: also record the calls that can block the host (synchronizes, synchronous copies and sets, frees) and each
  /// kernel's launch call (its queue delay); off by default for the same ~0.6 us per launch.
  bool api = false;
  /// --require-gpu: exit 69 when the machine cannot trace (no NVIDIA driver); without it the command runs untraced
  /// and the trace says why, so a CI step or Makefile under vtrace still works on a CPU-only runner.
  bool require_gpu = false;
  OutputOptions output;
};

struct SummaryOptions {
  std::string input = "-";
  TraceSelection selection;  ///< --graph ID|last, --kernel REGEX
  /// --sort total|exposed|calls|name: the kernels' order (trace_summary.hpp); "" when not given (total).
  std::string sort;
  /// --ranks: per rank, per collective and stragglers (rank_summary.hpp) instead of the per-kernel tables.
  bool ranks = false;
  /// --api: the blocking CUDA calls, queue delays and GPU idle time (api_summary.hpp) of a trace made with run --api.
  bool api = false;
  /// --by kernel|line: per kernel (the default), or per kernel and source line: the hot lines of an access-mode trace
  /// (line_summary.hpp).
  std::string by = "kernel";
  OutputOptions output;      ///< --format json|table|markdown|csv
};

struct ExportOptions {
  std::string input = "-";
  bool chrome = false;       ///< --chrome (the only export format so far)
  TraceSelection selection;  ///< --graph ID|last, --kernel REGEX
  OutputOptions output;
};

struct DiffOptions {
  std::string base, candidate;  ///< trace documents; one of them may be '-' (stdin)
  TraceSelection selection;     ///< --graph ID|last (on each side), --kernel REGEX
  std::optional<double> fail_on_regression;  ///< --fail-on-regression PCT: exit 1 past it
  OutputOptions output;         ///< --format json|table|markdown|csv
};

struct MergeOptions {
  std::vector<std::string> inputs;  ///< trace documents (one of them may be '-')
  OutputOptions output;
};

struct CheckOptions {
  std::string input = "-";
  OutputOptions output;
};

/// Each returns the process exit code. run: the command's exit status (128 + N for signal N).
int run_command(const RunOptions& options);
int summary_command(const SummaryOptions& options);
int export_command(const ExportOptions& options);
int check_command(const CheckOptions& options);
/// 0, or 1 (kCheckFailed) when --fail-on-regression finds a regression.
int diff_command(const DiffOptions& options);
int merge_command(const MergeOptions& options);

}  // namespace vtools::vtrace
