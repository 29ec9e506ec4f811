// The page for a DOT file: the graph laid out by Graphviz (graph_layout.hpp).
#pragma once

#include <string_view>

#include "tools/vrender/page.hpp"

namespace vtools::vrender {

/// One section with the laid-out graph; exit 69 (Error kUnavailable) when built without Graphviz.
Page dot_page(std::string_view dot, std::string_view name);

}  // namespace vtools::vrender
