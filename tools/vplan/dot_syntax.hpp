// Graphviz DOT syntax (https://graphviz.org/doc/info/lang.html), enough for the WS planner's dumps: graphs,
// subgraphs with labels, nodes and edges with attributes. Knows nothing about what the labels mean (ws_dot_reader).
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace vtools::vplan {

using DotAttrs = std::map<std::string, std::string>;

/// Where a statement starts (1-based), for messages about what it says.
struct DotPosition {
  int line = 0, column = 0;
};

struct DotNode {
  std::string id;
  std::string cluster;  ///< innermost subgraph name ("" at graph level)
  DotAttrs attrs;
  DotPosition at;
};

struct DotEdge {
  std::string from, to;
  DotAttrs attrs;
  DotPosition at;
};

struct DotLabel {
  std::string text;
  DotPosition at;  ///< the `label=...` or `graph [...]` statement
};

struct DotGraph {
  std::string name;
  std::map<std::string, DotLabel> cluster_labels;  ///< subgraph name -> label ("" = the graph's own)
  std::vector<DotNode> nodes;
  std::vector<DotEdge> edges;
};

/// Every graph in `text` (comments, `#` lines and the planner's `=== ... ===` marker lines are skipped).
/// Throws Error(kDataError) at name:line:col: "expected '}' to close the '{' at 3:28, got end of file".
std::vector<DotGraph> parse_dot(std::string_view text, std::string_view name);

}  // namespace vtools::vplan
