// Writers of a Page: one self-contained HTML file (inline SVG and CSS, a few lines of JS for timeline zoom, nothing
// fetched) or one SVG that stacks the figures under titles (also the input of PNG rasterising).
#pragma once

#include <ostream>
#include <string>

#include "tools/vrender/page.hpp"

namespace vtools::vrender {

/// HTML5 page; `generator` goes into the footer and a <meta name="generator">.
void write_html_page(const Page& page, const std::string& generator, std::ostream& out);

/// One SVG: page title, facts, then every in_image figure and table, flowed into rows at most `max_width` px wide.
void write_svg_page(const Page& page, std::ostream& out, double max_width = 1480);

}  // namespace vtools::vrender
