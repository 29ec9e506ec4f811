// Graph layout of DOT text with Graphviz's C library (libgvc, engine "dot") into SVG. Built only when CMake found
// libgvc (VTOOLS_HAVE_RENDER); otherwise graph_layout_unavailable.cpp answers exit 69.
#pragma once

#include <string_view>

#include "tools/vrender/svg_chart.hpp"

namespace vtools::vrender {

/// True when this build can lay out graphs.
bool graph_layout_available();

/// Lays out `dot` (a DOT graph; `name` is used in messages) and returns <svg class="vgraph"> sized in px.
/// Throws Error kDataError for DOT Graphviz refuses (its message, with the line when it gives one), for braces nested
/// deeper than kMaxDotNesting, and for a layout past max_layout_seconds() or one that crashes Graphviz;
/// kUnavailable when built without Graphviz.
Svg layout_dot(std::string_view dot, std::string_view name);

}  // namespace vtools::vrender
