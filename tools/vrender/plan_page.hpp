// The vtools.plan page: the budget figures (formats/plan/budget_figures.hpp, as vplan prints them), SMEM and TMEM
// liveness as Gantt charts, the SMEM address space (offset x time), the combined ops + channels graph laid out by
// Graphviz, and tables of buffers, channels and key ops. The plan is read by the format's one reader (plan_json).
#pragma once

#include <string>
#include <string_view>

#include "formats/plan/plan_model.hpp"
#include "tools/vrender/page.hpp"

namespace vtools::vrender {

Page plan_page(const vplan::Plan& plan, std::string_view name);

/// The combined graph built from key ops (clustered by partition; the first 60 ops when none is a key op), the
/// buffers that carry channels (all when there are none) and the channels (producer -> buffer -> consumers).
std::string combined_graph_dot(const vplan::Plan& plan);

}  // namespace vtools::vrender
