// The vtools.plan page: SMEM and TMEM liveness as Gantt charts, the SMEM address space (offset x time), the combined
// ops + channels graph laid out by Graphviz, and tables of buffers, channels and key ops.
#pragma once

#include <string>
#include <string_view>

#include "libcommon/document.hpp"
#include "tools/vrender/page.hpp"

namespace vtools::vrender {

Page plan_page(const OrderedJson& doc, std::string_view name);

/// The combined graph: the document's `graphs.combined` DOT when present, else one built from key ops (clustered
/// by partition), buffers and channels (producer -> buffer -> consumers).
std::string combined_graph_dot(const OrderedJson& doc, std::string_view name);

}  // namespace vtools::vrender
