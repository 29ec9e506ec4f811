// Line and scatter charts over a numeric or categorical x axis (render_xy_chart of svg_chart.hpp).
#include <algorithm>
#include <cmath>

#include "tools/vrender/chart_frame.hpp"
#include "tools/vrender/chart_style.hpp"
#include "tools/vrender/svg_chart.hpp"

namespace vtools::vrender {

Svg render_xy_chart(const XYChart& chart) {
  std::vector<std::string> names, colors, dashes;
  for (std::size_t k = 0; k < chart.series.size(); ++k) {
    names.push_back(chart.series[k].name);
    colors.push_back(palette_color(static_cast<int>(k)));
    dashes.push_back(chart.lines ? series_dash(static_cast<int>(k)) : "");
  }
  // A legend of more rows than one makes the chart that much taller, so the plot keeps its height.
  const double legend_px = legend_extra_height(names, chart.width - 16);
  const double height = chart.height + legend_px;
  SvgCanvas svg;
  begin_chart(svg, chart.width, height, chart.title);
  double xlo = 0, xhi = 0, ylo = 0, yhi = 0;
  bool any = false;
  for (const auto& s : chart.series) {
    for (std::size_t i = 0; i < s.x.size() && i < s.y.size(); ++i) {
      if (!std::isfinite(s.x[i]) || !std::isfinite(s.y[i])) continue;
      if (!any) xlo = xhi = s.x[i], ylo = yhi = s.y[i];
      xlo = std::min(xlo, s.x[i]), xhi = std::max(xhi, s.x[i]);
      ylo = std::min(ylo, s.y[i]), yhi = std::max(yhi, s.y[i]);
      any = true;
    }
  }
  for (const auto& r : chart.ref_lines) ylo = std::min(ylo, r.value), yhi = std::max(yhi, r.value);
  if (!chart.y.log) ylo = std::min(ylo, 0.0);
  bool categorical = !chart.x_labels.empty();
  if (categorical) xlo = -0.5, xhi = static_cast<double>(chart.x_labels.size()) - 0.5;

  PlotArea area{70, (chart.title.empty() ? 20.0 : 52.0) + legend_px, chart.width - ref_label_margin(chart.ref_lines),
                0};
  double band = categorical ? area.width() / static_cast<double>(chart.x_labels.size()) : 0;
  area.bottom = height - (categorical ? category_margin(chart.x_labels, band) : 44);
  svg.rect(area.left, area.top, area.width(), area.height(), "plot");
  Scale y = draw_y_axis(svg, area, chart.y, ylo, yhi);
  Scale x{xlo, xhi, area.left, area.right, false};
  if (categorical) {
    std::vector<double> centers;
    for (std::size_t i = 0; i < chart.x_labels.size(); ++i) centers.push_back(x(static_cast<double>(i)));
    draw_x_categories(svg, area, chart.x_labels, centers, axis_title(chart.x));
  } else {
    x = draw_x_axis(svg, area, chart.x, xlo, xhi);
  }

  draw_legend(svg, names, colors, chart.width - 16, 40, dashes);
  draw_ref_lines(svg, area, y, chart.ref_lines);

  for (std::size_t k = 0; k < chart.series.size(); ++k) {
    const auto& s = chart.series[k];
    std::string color = palette_color(static_cast<int>(k));
    const double dx = (static_cast<double>(k) - static_cast<double>(chart.series.size() - 1) / 2) * chart.dodge_px;
    auto px = [&](double v) { return x(v) + dx; };
    if (chart.lines) {
      std::string points;
      for (std::size_t i = 0; i < s.x.size() && i < s.y.size(); ++i) {
        if (!std::isfinite(s.x[i]) || !std::isfinite(s.y[i])) continue;
        points += (points.empty() ? "" : " ") + num(px(s.x[i])) + "," + num(y(s.y[i]));
      }
      if (!points.empty()) svg.polyline(points, color, "line", dashes[k]);
    }
    for (std::size_t i = 0; i < s.x.size() && i < s.y.size(); ++i) {
      if (!std::isfinite(s.x[i]) || !std::isfinite(s.y[i])) continue;
      std::string tip = i < s.tooltips.size() && !s.tooltips[i].empty()
                            ? s.tooltips[i]
                            : s.name + ": " + format_tick(s.y[i], std::abs(s.y[i]) / 1000, chart.y.unit) +
                                  (chart.y.unit.empty() || chart.y.unit == "%" || chart.y.unit == "B" ? "" : " " + chart.y.unit);
      svg.circle(px(s.x[i]), y(s.y[i]), chart.lines ? 3.5 : 4, color, tip);
    }
  }
  svg.close();
  return {svg.take(), chart.width, height};
}

}  // namespace vtools::vrender
