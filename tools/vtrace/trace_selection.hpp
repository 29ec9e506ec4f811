// `--graph ID|last` and `--kernel REGEX` of `vtrace summary` and `vtrace export`: which kernel launches of a trace
// they keep. One CUDA graph's kernels (a graph launch runs each of its kernel nodes once), names matching a regex,
// or both. The trace does not tie copies, sets, accesses or findings to a graph launch, so a graph selection leaves
// them out; a name selection keeps the accesses and findings of the kernels it keeps, and every copy.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "formats/trace/trace_model.hpp"
#include "formats/trace/trace_summary.hpp"

namespace vtools::vtrace {

struct TraceSelection {
  std::string graph;         ///< "": every kernel; "last": the graph of the last graph-launched kernel; else an id
  std::string kernel_regex;  ///< "": every name; else as `vtrace run --kernel` (demangled or mangled name)

  [[nodiscard]] bool everything() const { return graph.empty() && kernel_regex.empty(); }
};

/// The graph `selection.graph` names in `trace`, or none when it is empty. Throws Error(kUsage) when it is neither
/// "last" nor a 32-bit number, or names a graph the trace does not hold (the message lists those it holds);
/// `source` names the trace in that message.
std::optional<std::uint32_t> selected_graph(const Trace& trace, const TraceSelection& selection,
                                            const std::string& source);

/// `trace` with only the kernels `selection` keeps, `graph` being selected_graph's answer. Throws Error(kUsage) for
/// a bad regex.
Trace select_kernels(const Trace& trace, const TraceSelection& selection, std::optional<std::uint32_t> graph);

/// summarize_trace (formats/trace/trace_summary.hpp) of the kernels `selection` keeps, with the selection and the
/// launches it left out; selected_graph's errors name the trace as `source`.
TraceSummary summarize_trace(const Trace& trace, const TraceSelection& selection,
                             const std::string& source = "the trace");

}  // namespace vtools::vtrace
