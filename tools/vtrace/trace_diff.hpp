// `vtrace diff BASE CAND`: what changed between two traced runs, kernel by kernel. Kernels are matched by
// (demangled) name, and by launch shape (grid and block) where a name ran with several shapes in one trace, so that
// an elementwise kernel launched over tensors of three sizes is compared size by size; per kernel, each side's calls, total, median and exposed time, the ratio of the medians
// (candidate / base: above 1 is slower) with a 95% interval over the launches, and a verdict that says when the
// interval is too wide to tell. Kernels on one side only are listed as added or removed; totals compare GPU time,
// busy time, launches, kernels and copies. The model and the document's reader and writer are formats/tracediff;
// the tables and CSV are in trace_diff_writer.hpp.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "formats/trace/trace_model.hpp"
#include "formats/tracediff/tracediff_model.hpp"
#include "libcommon/stats.hpp"
#include "tools/vtrace/trace_selection.hpp"

namespace vtools::vtrace {

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
