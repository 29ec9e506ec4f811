// How deeply a DOT text nests its braces, checked before Graphviz sees it: dot's layout time grows with the
// nesting of clusters (5000 nested clusters take minutes) and its parser gives up on deeper texts without saying
// why. The layout itself is graph_layout's.
#pragma once

#include <string_view>

namespace vtools::vrender {

/// The deepest brace nesting laid out (the graph's own body is 1); vplan's planner-dump reader allows the same.
constexpr int kMaxDotNesting = 100;

/// Throws Error(kDataError) at name:line:col of the first '{' nested deeper than kMaxDotNesting. Braces inside
/// strings ("..."), HTML labels (<...>), comments and '#' lines do not count, as Graphviz's lexer skips them.
void check_dot_nesting(std::string_view dot, std::string_view name);

}  // namespace vtools::vrender
