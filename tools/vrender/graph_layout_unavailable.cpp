// layout_dot for builds without Graphviz (VTOOLS_HAVE_RENDER off): every layout request exits 69.
#include "libcommon/error.hpp"
#include "tools/vrender/graph_layout.hpp"

namespace vtools::vrender {

bool graph_layout_available() { return false; }

Svg layout_dot(std::string_view, std::string_view name) {
  throw Error(ExitCode::kUnavailable,
              "graph layout needs Graphviz (libgvc), which this vrender was built without; install libgraphviz-dev and "
              "rebuild, or run 'dot -Tsvg' yourself",
              {std::string(name)});
}

}  // namespace vtools::vrender
