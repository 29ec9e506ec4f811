// Graphviz DOT syntax (https://graphviz.org/doc/info/lang.html), enough for the WS planner's dumps: graphs,
// subgraphs with labels, nodes and edges with attributes. Knows nothing about what the labels mean (ws_dot_reader).
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace vtools::vplan {

using DotAttrs = std::map<std::string, std::string>;

struct DotNode {
  std::string id;
  std::string cluster;  ///< innermost subgraph name ("" at graph level)
  DotAttrs attrs;
};

struct DotEdge {
  std::string from, to;
  DotAttrs attrs;
};

struct DotGraph {
  std::string name;
  std::map<std::string, std::string> cluster_labels;  ///< subgraph name -> label ("" = the graph's own)
  std::vector<DotNode> nodes;
  std::vector<DotEdge> edges;
};

/// Every graph in `text` (comments, `#` lines and the planner's `=== ... ===` marker lines are skipped).
/// Throws Error(kDataError) at name:line:col: "expected '}' to close the '{' at 3:28, got end of file".
std::vector<DotGraph> parse_dot(std::string_view text, std::string_view name);

}  // namespace vtools::vplan
