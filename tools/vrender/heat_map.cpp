// Heat maps: a grid of cells coloured on a viridis ramp with a colour-scale bar (render_heat_map of svg_chart.hpp).
#include <algorithm>
#include <cmath>

#include "tools/vrender/chart_frame.hpp"
#include "tools/vrender/chart_style.hpp"
#include "tools/vrender/svg_chart.hpp"

namespace vtools::vrender {

Svg render_heat_map(const HeatMap& map) {
  SvgCanvas svg;
  begin_chart(svg, map.width, map.height, map.title);
  double vmax = 0;
  for (double v : map.values)
    if (std::isfinite(v)) vmax = std::max(vmax, v);
  bool show_rows = !map.row_labels.empty() && map.rows <= 24;
  double left = 70;
  if (show_rows)
    for (const auto& l : map.row_labels) left = std::max(left, text_width(shorten(l, 22), 11) + 30);
  PlotArea area{left, map.title.empty() ? 26.0 : 46.0, map.width - 90, map.height - 44};
  svg.rect(area.left, area.top, area.width(), area.height(), "plot");
  // Cells are placed with the axis scale, which may extend past x_hi to a round tick.
  Scale x = draw_x_axis(svg, area, map.x, map.x_lo, map.x_hi, false);
  svg.line(area.left, area.top, area.left, area.bottom, "axis");
  std::string ytitle = axis_title(map.y);
  if (!ytitle.empty()) svg.text(14, (area.top + area.bottom) / 2, ytitle, "label", "middle", -90);

  int rows = std::max(map.rows, 1), cols = std::max(map.cols, 1);
  double ch = area.height() / rows;
  double col_span = (map.x_hi - map.x_lo) / cols;
  for (int r = 0; r < map.rows; ++r) {
    std::string row_name = r < static_cast<int>(map.row_labels.size()) ? map.row_labels[r] : std::to_string(r);
    if (show_rows) svg.text(area.left - 6, area.top + ch * (r + 0.5) + 4, shorten(row_name, 22), "tick", "end");
    for (int c = 0; c < map.cols; ++c) {
      std::size_t i = static_cast<std::size_t>(r) * map.cols + c;
      double v = i < map.values.size() ? map.values[i] : kNoValue;
      if (!std::isfinite(v) || v == 0) continue;
      double x0 = map.x_lo + col_span * c;
      std::string tip = row_name + ", " + format_tick(x0, col_span, map.x.unit) + " .. " +
                        format_tick(x0 + col_span, col_span, map.x.unit) + ": " +
                        format_tick(v, std::abs(v) / 1000, map.value_unit) + " " + map.value_label;
      svg.rect(x(x0), area.top + ch * r, x(x0 + col_span) - x(x0) + 0.05, ch + 0.05, "cell", ramp_color(vmax > 0 ? v / vmax : 0),
               tip);
    }
  }
  for (const HeatMark& m : map.marks) {  // outlines over the cells: a finding stays visible on any colour
    if (m.row < 0 || m.row >= map.rows) continue;
    double x0 = x(m.x), w = std::max(4.0, x(m.x + m.width) - x0);
    svg.rect(x0 - (w > 4.0 ? 0 : 2), area.top + ch * m.row, w, ch, "mark", "", m.tooltip);
  }
  if (!show_rows && map.rows > 0) {
    svg.text(area.left - 6, area.top + 10, map.row_labels.empty() ? "0" : shorten(map.row_labels.front(), 10), "tick", "end");
    svg.text(area.left - 6, area.bottom, map.row_labels.empty() ? std::to_string(map.rows - 1) : shorten(map.row_labels.back(), 10),
             "tick", "end");
  }

  // Colour scale: a vertical ramp from 0 (bottom) to the maximum (top).
  double sx = area.right + 16, steps = 32, sh = area.height() / steps;
  for (int k = 0; k < steps; ++k) svg.rect(sx, area.bottom - sh * (k + 1), 14, sh + 0.05, "cell", ramp_color((k + 0.5) / steps));
  Ticks t = nice_ticks(0, std::max(vmax, 1e-12), 4);
  for (double v : t.values) {
    if (v > vmax * 1.0001) continue;
    double py = area.bottom - (vmax > 0 ? v / vmax : 0) * area.height();
    svg.line(sx + 14, py, sx + 18, py, "axis");
    svg.text(sx + 20, py + 4, format_tick(v, t.step, map.value_unit), "tick");
  }
  if (!map.value_label.empty()) svg.text(map.width - 6, area.top - 8, map.value_label, "legend", "end");
  svg.close();
  return {svg.take(), map.width, map.height};
}

}  // namespace vtools::vrender
