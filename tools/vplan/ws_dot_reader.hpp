// Reads the WS memory planner's own DOT dumps (SmemBufferLiveness, TmemBufferLiveness, CombinedGraph; marker lines
// allowed, several graphs per text allowed) into a plan, so they render like vplan's own. Labels are read as
// shared/formats/ws-planner-dot.md describes them; a graph of another name is refused.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "formats/plan/plan_model.hpp"

namespace vtools::vplan {

struct WsDotText {
  std::string text;
  std::string name;
};

/// Parses `text` (finish_imported_plan applied). Throws Error(kDataError) at name:line:col on malformed DOT
/// ("expected '}' ..., got ...") or a graph that is not one of the planner's three.
Plan read_ws_dot(std::string_view text, std::string_view name);

/// Several dumps of one kernel (a TRITON_DUMP_WS_GRAPHS directory) read as one plan: buffers come from the liveness
/// graphs, channels are tied to them by id, ops and partitions come from the combined graph.
Plan read_ws_dot_texts(const std::vector<WsDotText>& texts);

}  // namespace vtools::vplan
