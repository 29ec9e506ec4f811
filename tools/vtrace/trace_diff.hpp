// `vtrace diff BASE CAND`: what changed between two traced runs, kernel by kernel. Kernels are matched by
// (demangled) name, and by launch shape (grid and block) where a name ran with several shapes in one trace, so that
// an elementwise kernel launched over tensors of three sizes is compared size by size; per kernel, each side's calls, total, median and exposed time, the ratio of the medians
// (candidate / base: above 1 is slower) with a 95% interval over the launches, and a verdict that says when the
// interval is too wide to tell. Kernels on one side only are listed as added or removed; totals compare GPU time,
// busy time, launches, kernels and copies. Writers are in trace_diff_writer.hpp.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "libcommon/stats.hpp"
#include "formats/trace/trace_model.hpp"
#include "tools/vtrace/trace_selection.hpp"

namespace vtools::vtrace {

/// One side's totals over the kernels the selection keeps.
struct DiffTotals {
  std::uint64_t launches = 0, kernels = 0;  ///< kernel launches; distinct kernel names
  double gpu_time_ns = 0;  ///< summed kernel durations
  double busy_ns = 0;      ///< time some kernel runs (union of their intervals, per device)
  std::uint64_t copies = 0;
  double copy_ns = 0;
};

/// A kernel present on both sides.
struct KernelDiff {
  std::string name;
  /// "grid 10x1x1 block 128x1x1" when the name ran with several launch shapes in either trace (the row is those
  /// launches of this shape); "" when the name is matched alone.
  std::string launch_shape;
  std::uint64_t base_calls = 0, candidate_calls = 0;
  double base_total_ns = 0, candidate_total_ns = 0;
  double base_median_ns = 0, candidate_median_ns = 0;
  double base_exposed_ns = 0, candidate_exposed_ns = 0;
  double ratio = 0;           ///< candidate median / base median; above 1: slower
  stats::Interval interval;   ///< 95% interval of `ratio`; NaN when a side has one launch
  /// What the interval is taken over: "launches" (a bootstrap of the medians, 5+ launches a side; of at most 2000
  /// launches a side, evenly spaced), "few launches" (Welch's t interval on the logarithms, 2-4 launches a side) or
  /// "none".
  std::string interval_over;
  double change_pct = 0;      ///< (ratio - 1) * 100
  double total_change_ns = 0; ///< candidate total - base total: this kernel's part of the change of the GPU time
  std::string verdict;        ///< "faster", "slower", "same" or "ambiguous"
  /// "same" (every launch on both sides ran one code, by Kernel::code_hash), "changed" (known on both sides and
  /// different) or "unknown" (a trace without code hashes, or a name with two codes in one process).
  std::string code = "unknown";
  /// Of a "slower" or "faster" verdict: "code" when the code changed, "environment" (clocks, neighbours, inputs)
  /// when it is the same code; "" otherwise.
  std::string likely_cause;
  bool regression = false;    ///< "slower" by more than the --fail-on-regression threshold
};

/// A kernel present on one side only.
struct KernelOnly {
  std::string name;
  std::string launch_shape;  ///< as KernelDiff::launch_shape
  std::uint64_t calls = 0;
  double total_ns = 0, median_ns = 0;
};

/// With a --graph selection: the graph's replays (each graph launch runs every kernel node once), each replay's
/// span (first kernel start to last kernel end) compared as the kernels' launches are. A new replay starts where
/// a node runs again, so replays of one graph that overlap on several streams are not told apart.
struct ReplayDiff {
  std::uint32_t base_graph = 0, candidate_graph = 0;
  std::uint64_t base_replays = 0, candidate_replays = 0;
  double base_median_ns = 0, candidate_median_ns = 0;
  double ratio = 0;
  stats::Interval interval;
  std::string interval_over = "none";  ///< as KernelDiff::interval_over, over replays
  double change_pct = 0;
  std::string verdict;
  bool regression = false;
};

struct TraceDiff {
  std::string base_source, candidate_source;
  DiffTotals base, candidate;
  std::vector<KernelDiff> kernels;           ///< by |total_change_ns|, largest first, then name
  std::vector<KernelOnly> added, removed;    ///< by total time, largest first
  std::optional<ReplayDiff> replays;         ///< with a --graph selection only
  double threshold_pct = -1;                 ///< --fail-on-regression; < 0: not asked
  bool busy_regression = false;              ///< busy time grew by more than the threshold
  [[nodiscard]] bool has_regression() const;
};

/// The verdict on a ratio and its 95% interval: "slower" or "faster" when the interval excludes 1; "same" when it
/// contains 1 and lies within [0.95, 1.05]; "ambiguous" when it contains 1 but is wider. Without an interval (NaN: a
/// side with one launch) only a change of 2x or more is called "slower" or "faster", since launch-to-launch noise
/// of one kernel rarely reaches it; anything less is "ambiguous".
std::string diff_verdict(double ratio, stats::Interval interval);

/// The spans of `kernels`' graph replays in launch order (see ReplayDiff); every kernel from one graph.
std::vector<double> graph_replay_spans(std::vector<const Kernel*> kernels);

/// The diff of the kernels `selection` keeps on each side (its --graph applies to each trace on its own: "last"
/// is each run's last graph). `threshold_pct` < 0 marks no regressions. `*_source` name the traces in messages.
/// The traces are taken by value: a caller done with them moves them in, and their kernels are not copied.
TraceDiff diff_traces(Trace base, Trace candidate, const TraceSelection& selection, double threshold_pct,
                      const std::string& base_source, const std::string& candidate_source);

}  // namespace vtools::vtrace
