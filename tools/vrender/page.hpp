// The page model every document is turned into: sections of facts, notes, figures (rendered SVG) and tables. The
// page builders (bench_page, plan_page, ...) fill it; html_page_writer and svg_page_writer lay it out.
#pragma once

#include <string>
#include <vector>

#include "libcommon/table.hpp"
#include "tools/vrender/svg_chart.hpp"

namespace vtools::vrender {

struct Figure {
  std::string title{};  ///< drawn above the figure (charts carry their own title inside the SVG; graphs do not)
  Svg svg{};
  bool in_image = true;  ///< part of SVG/PNG output
  bool in_html = true;   ///< part of HTML output (false: a still version of a figure the HTML page zooms instead)
};

struct PageTable {
  std::string title{};
  Table table{};
  bool in_image = false;  ///< also drawn into SVG/PNG output
};

struct Fact {
  std::string key, value;
};

struct Section {
  std::string heading{};
  std::vector<Fact> facts{};
  std::vector<std::string> notes{};  ///< e.g. what was aggregated or left out
  std::vector<Figure> figures{};
  std::vector<PageTable> tables{};
  std::string preformatted{};  ///< shown verbatim in HTML only (e.g. DOT source when no layout engine is built)
};

struct Page {
  std::string title{};
  std::string subtitle{};
  std::vector<Section> sections{};
};

}  // namespace vtools::vrender
