// The vtools.tracediff model: what changed between two traced runs, kernel by kernel (vtrace diff computes it in
// tools/vtrace/trace_diff.cpp; this file only holds it). Both sides' totals, the kernels on both sides with their
// ratio of medians, 95% interval and verdict, the kernels on one side only, and a --graph selection's replays.
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "libcommon/stats.hpp"

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
  double ratio = 0;           ///< candidate median / base median; above 1: slower; NaN when the base median is 0
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

/// (candidate / base - 1) * 100; NaN when `base` is not positive. The change of every total that vtrace diff's
/// tables, its document (`gpu_time_change_pct`, `busy_change_pct`) and vrender's page print.
inline double change_pct(double base, double candidate) {
  return base > 0 ? (candidate / base - 1) * 100 : std::numeric_limits<double>::quiet_NaN();
}

struct TraceDiff {
  std::string base_source, candidate_source;  ///< the traces as named in messages (the document's `file`)
  DiffTotals base, candidate;
  std::vector<KernelDiff> kernels;           ///< by |total_change_ns|, largest first, then name
  std::vector<KernelOnly> added, removed;    ///< by total time, largest first
  std::optional<ReplayDiff> replays;         ///< with a --graph selection only
  double threshold_pct = -1;                 ///< --fail-on-regression; < 0: not asked
  bool busy_regression = false;              ///< busy time grew by more than the threshold
  /// A kernel or the graph replay regressed, or the busy time did (what `vtrace diff --fail-on-regression` exits 1
  /// on; the document's `regression`).
  [[nodiscard]] bool has_regression() const {
    return busy_regression || (replays && replays->regression) ||
           std::any_of(kernels.begin(), kernels.end(), [](const KernelDiff& k) { return k.regression; });
  }
};

}  // namespace vtools::vtrace
