// Writes the three graphs of the WS memory planner as Graphviz DOT with the planner's look and labels
// (shared/formats/ws-planner-dot.md): SMEM liveness, TMEM liveness, combined key ops + channels. Barrier arrays
// are left out of the liveness graphs (the planner runs before barriers exist); tables list them.
#pragma once

#include <ostream>
#include <string>
#include <string_view>

#include "formats/plan/plan_model.hpp"

namespace vtools::vplan {

enum class GraphKind { kSmem, kTmem, kCombined };

/// "smem" | "tmem" | "combined"; throws Error(kUsage) with a suggestion otherwise.
GraphKind graph_kind_from_name(std::string_view name);

/// `s` as a DOT double-quoted string: backslash and quote escaped, newlines as \n.
std::string dot_quoted(std::string_view s);

/// Writes one graph; `markers` adds the planner's `=== ... ===` lines around it (as in its debug logs).
void write_dot(const Plan& plan, GraphKind kind, bool markers, std::ostream& out);

}  // namespace vtools::vplan
