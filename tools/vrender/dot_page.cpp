#include "tools/vrender/dot_page.hpp"

#include "tools/vrender/graph_layout.hpp"

namespace vtools::vrender {

Page dot_page(std::string_view dot, std::string_view name) {
  Page page{"Graph", std::string(name), {}};
  Section s{"", {}, {}, {}, {}, {}};
  s.figures.push_back({std::string(name), layout_dot(dot, name)});
  page.sections.push_back(std::move(s));
  return page;
}

}  // namespace vtools::vrender
