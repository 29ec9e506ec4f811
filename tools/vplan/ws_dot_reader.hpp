// Reads the WS memory planner's own DOT dumps (SmemBufferLiveness, TmemBufferLiveness, CombinedGraph; marker lines
// allowed, several graphs per text allowed) into a plan, so they render like vplan's own. Labels are read as
// shared/formats/ws-planner-dot.md describes them; a graph of another name is refused.
#pragma once

#include <string_view>

#include "tools/vplan/plan_model.hpp"

namespace vtools::vplan {

/// Parses `text`. Throws Error(kDataError) at name:line:col on malformed DOT ("expected '}' ..., got ...") or a
/// graph that is not one of the planner's three.
Plan read_ws_dot(std::string_view text, std::string_view name);

/// Adds `part` to `into`: buffers matched by space + name + liveness, channels and ops by id.
void merge_ws_plan(Plan& into, Plan part);

/// Fills what dumps do not carry: placeholder ops up to the highest id named, partitions, peaks and fits
/// (offsets by vplan's allocator; the limit from the target when known, else sm_90's).
void finish_imported_plan(Plan& plan);

}  // namespace vtools::vplan
