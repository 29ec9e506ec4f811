// vtrace merge: the traces of several hosts (or runs) as one document on one clock. Each input's timestamps are
// shifted by the difference of its processes' clock anchors (CUPTI time -> CLOCK_REALTIME) from the first input's,
// ids two inputs share are renumbered, and what cannot be merged (mixed versions or modes, no anchor, the same
// process or rank twice) is refused. Access-mode traces have no timestamps: their records keep their processes
// (renumbered) and allocations (renumbered), and nothing is shifted. Reading and writing the documents is left to the
// caller.
#pragma once

#include <string>
#include <vector>

#include "formats/trace/trace_model.hpp"

namespace vtools::vtrace {

struct MergeInput {
  Trace trace;
  std::string name;  ///< as given on the command line, for messages and merged_from
};

/// How a trace's timestamps map onto CLOCK_REALTIME: the offset of its first process with a CUPTI start anchor, and how
/// far the trace's processes may be off it (that anchor's window, the drift to its end anchor, the spread of the
/// other processes' offsets). nullopt when no process has an anchor.
struct TraceClock {
  std::int64_t offset_ns = 0;
  std::uint64_t uncertainty_ns = 0;
};
std::optional<TraceClock> trace_clock(const Trace& trace);

/// The merged trace: inputs[0]'s clock (its shift is 0), kernels, copies, sets and NVTX ranges in start order,
/// run.merged_from listing every input (the sources of a merged input in its place). Throws Error(kDataError) at
/// the input that cannot be merged; Error(kUsage) for fewer than two inputs.
Trace merge_traces(std::vector<MergeInput> inputs);

}  // namespace vtools::vtrace
