// Interval lanes (Gantt charts, timelines) and boxes on two numeric axes (render_lane_chart, render_box_chart).
#include <algorithm>
#include <cmath>

#include "tools/vrender/chart_frame.hpp"
#include "tools/vrender/chart_style.hpp"
#include "tools/vrender/svg_chart.hpp"

namespace vtools::vrender {

Svg render_lane_chart(const LaneChart& chart) {
  double lo = chart.x_lo, hi = chart.x_hi;
  if (!std::isfinite(lo) || !std::isfinite(hi)) {
    bool any = false;
    for (const auto& lane : chart.lanes)
      for (const auto& s : lane.spans) {
        lo = any ? std::min(lo, s.start) : s.start;
        hi = any ? std::max(hi, s.end) : s.end;
        any = true;
      }
    if (!any) lo = 0, hi = 1;
  }
  double label_w = 60;
  for (const auto& lane : chart.lanes) label_w = std::max(label_w, text_width(shorten(lane.name, 28), 11) + 16);
  // A legend of several rows (a trace's ten kernels) pushes the lanes down by its extra rows.
  double top = (chart.title.empty() ? 20.0 : 48.0) + legend_extra_height(chart.legend, chart.width - 16);
  double height = top + chart.lane_height * static_cast<double>(std::max<std::size_t>(chart.lanes.size(), 1)) + 48;
  SvgCanvas svg;
  begin_chart(svg, chart.width, height, chart.title);
  PlotArea area{label_w, top, chart.width - 16, height - 48};
  svg.rect(area.left, area.top, area.width(), area.height(), "plot");
  Scale x = draw_x_axis(svg, area, chart.x, lo, hi);
  if (!chart.legend.empty()) {
    std::vector<std::string> colors;
    for (std::size_t i = 0; i < chart.legend.size(); ++i)
      colors.push_back(palette_color(i < chart.legend_colors.size() ? chart.legend_colors[i] : static_cast<int>(i)));
    draw_legend(svg, chart.legend, colors, chart.width - 16, 40);
  }
  for (std::size_t i = 0; i < chart.lanes.size(); ++i) {
    double y = area.top + chart.lane_height * static_cast<double>(i);
    if (i % 2 == 1) svg.rect(area.left, y, area.width(), chart.lane_height, "rowbg");
    svg.text(area.left - 8, y + chart.lane_height / 2 + 4, shorten(chart.lanes[i].name, 28), "tick", "end");
  }
  svg.line(area.left, area.top, area.left, area.bottom, "axis");

  // Spans live in a nested <svg> whose user units are the plot's px at zoom 1, so a script can zoom by viewBox.
  double w = area.width(), h = area.height();
  if (chart.zoomable) {
    svg.raw("<svg class=\"zoomable\" x=\"" + num(area.left) + "\" y=\"" + num(area.top) + "\" width=\"" + num(w) +
            "\" height=\"" + num(h) + "\" viewBox=\"0 0 " + num(w) + " " + num(h) +
            "\" preserveAspectRatio=\"none\">\n");
  }
  double ox = chart.zoomable ? 0 : area.left, oy = chart.zoomable ? 0 : area.top;
  for (std::size_t i = 0; i < chart.lanes.size(); ++i) {
    double y = oy + chart.lane_height * static_cast<double>(i) + 3;
    for (const auto& s : chart.lanes[i].spans) {
      if (s.end < lo || s.start > hi) continue;  // outside a range the chart was given: clipped, not drawn past it
      double x0 = x(std::max(s.start, lo)) - area.left + ox, x1 = x(std::min(s.end, hi)) - area.left + ox;
      double bw = std::max(x1 - x0, 0.6);  // keep very short spans visible
      svg.rect(x0, y, bw, chart.lane_height - 6, "span", palette_color(s.color), s.tooltip);
      if (!chart.zoomable && !s.label.empty() && bw > text_width(s.label, 10) + 6)
        svg.text(x0 + 4, y + chart.lane_height / 2 + 1, s.label, "inbar");
    }
  }
  if (chart.zoomable) svg.raw("</svg>\n");
  svg.close();
  return {svg.take(), chart.width, height};
}

Svg render_box_chart(const BoxChart& chart) {
  SvgCanvas svg;
  begin_chart(svg, chart.width, chart.height, chart.title);
  double xlo = 0, xhi = 1, ylo = 0, yhi = 1;
  bool any = false;
  for (const auto& b : chart.boxes) {
    xlo = any ? std::min(xlo, b.x0) : b.x0, xhi = any ? std::max(xhi, b.x1) : b.x1;
    yhi = any ? std::max(yhi, b.y1) : b.y1;
    any = true;
  }
  for (const auto& r : chart.ref_lines) yhi = std::max(yhi, r.value);
  PlotArea area{80, chart.title.empty() ? 20.0 : 44.0, chart.width - ref_label_margin(chart.ref_lines), chart.height - 48};
  svg.rect(area.left, area.top, area.width(), area.height(), "plot");
  Scale y = draw_y_axis(svg, area, chart.y, ylo, yhi);
  Scale x = draw_x_axis(svg, area, chart.x, xlo, xhi, false);
  for (const auto& b : chart.boxes) {
    double x0 = x(b.x0), x1 = x(b.x1), y0 = y(b.y1), y1 = y(b.y0);
    svg.rect(x0, y0, std::max(x1 - x0, 0.8), std::max(y1 - y0, 0.8), "span", palette_color(b.color), b.tooltip);
    if (!b.label.empty() && x1 - x0 > text_width(b.label, 10) + 6 && y1 - y0 > 12)
      svg.text(x0 + 4, (y0 + y1) / 2 + 4, b.label, "inbar");
  }
  draw_ref_lines(svg, area, y, chart.ref_lines);
  svg.close();
  return {svg.take(), chart.width, chart.height};
}

}  // namespace vtools::vrender
