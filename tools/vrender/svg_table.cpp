// Tables drawn as SVG text (render_table of svg_chart.hpp), for SVG and PNG pages that have no HTML <table>.
#include <algorithm>

#include "tools/vrender/chart_frame.hpp"
#include "tools/vrender/svg_chart.hpp"

namespace vtools::vrender {

Svg render_table(const Table& table, std::size_t max_rows) {
  constexpr double kRow = 20, kPad = 14;
  std::size_t shown = std::min(table.rows.size(), max_rows);
  std::vector<double> widths(table.headers.size(), 0);
  auto cell = [](const std::vector<std::string>& row, std::size_t c) { return c < row.size() ? shorten(row[c], 40) : ""; };
  for (std::size_t c = 0; c < widths.size(); ++c) {
    widths[c] = text_width(table.headers[c], 12.5);
    for (std::size_t r = 0; r < shown; ++r) widths[c] = std::max(widths[c], text_width(cell(table.rows[r], c), 12));
    widths[c] += kPad;
  }
  double width = 16;
  for (double w : widths) width += w;
  double extra = table.rows.size() > shown ? kRow : 0;
  double height = kRow * static_cast<double>(shown + 1) + 10 + extra;
  SvgCanvas svg;
  svg.open(width, height, "vchart", "");
  svg.rect(0, 0, width, height, "bg");
  auto right = [&](std::size_t c) { return c < table.align.size() && table.align[c] == Table::Align::kRight; };
  double x = 8;
  for (std::size_t c = 0; c < widths.size(); ++c) {
    svg.text(right(c) ? x + widths[c] - kPad / 2 : x + kPad / 2, 15, table.headers[c], "th", right(c) ? "end" : "start");
    x += widths[c];
  }
  svg.line(8, kRow + 2, width - 8, kRow + 2, "axis");
  for (std::size_t r = 0; r < shown; ++r) {
    double y = kRow * static_cast<double>(r + 1) + 4;
    if (r % 2 == 1) svg.rect(8, y, width - 16, kRow, "rowbg");
    x = 8;
    for (std::size_t c = 0; c < widths.size(); ++c) {
      svg.text(right(c) ? x + widths[c] - kPad / 2 : x + kPad / 2, y + 15, cell(table.rows[r], c), "td",
               right(c) ? "end" : "start");
      x += widths[c];
    }
  }
  if (extra > 0)
    svg.text(8 + kPad / 2, kRow * static_cast<double>(shown + 1) + 19,
             "\xe2\x80\xa6 " + std::to_string(table.rows.size() - shown) + " more rows (see the HTML page)", "legend");
  svg.close();
  return {svg.take(), width, height};
}

}  // namespace vtools::vrender
