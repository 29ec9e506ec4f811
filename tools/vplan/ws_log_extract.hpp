// Pulls the WS planner's graphs out of a debug log (or a TRITON_DUMP_WS_GRAPHS file) by their marker lines
// (shared/formats/ws-planner-dot.md "Markers"), replacing the awk/sed recipes. Only the digraph is kept.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace vtools::vplan {

struct ExtractedGraph {
  std::string kind;  ///< "smem_liveness", "tmem_liveness" or "combined_graph" (the planner's file prefixes)
  int index = 0;     ///< one counter over all kinds, in log order (as the planner numbers its files)
  int line = 0;      ///< line of the opening marker
  int dot_line = 0;  ///< line where `digraph` starts
  std::string dot;   ///< from `digraph` to its closing `}` line
};

/// Every marked graph in `text`. Throws Error(kDataError) at name:line for an opening marker without its
/// closing marker or without a digraph inside.
std::vector<ExtractedGraph> extract_ws_graphs(std::string_view text, std::string_view name);

}  // namespace vtools::vplan
