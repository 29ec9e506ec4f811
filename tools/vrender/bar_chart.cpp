// Grouped bar charts with optional error bars and reference lines (render_bar_chart of svg_chart.hpp).
#include <algorithm>
#include <cmath>

#include "tools/vrender/chart_frame.hpp"
#include "tools/vrender/chart_style.hpp"
#include "tools/vrender/svg_chart.hpp"

namespace vtools::vrender {

namespace {
double at(const std::vector<double>& v, std::size_t i) { return i < v.size() ? v[i] : kNoValue; }
}  // namespace

Svg render_bar_chart(const BarChart& chart) {
  std::vector<std::string> names, colors;
  for (std::size_t k = 0; k < chart.series.size(); ++k) {
    names.push_back(chart.series[k].name);
    colors.push_back(palette_color(static_cast<int>(k)));
  }
  const double legend_px = legend_extra_height(names, chart.width - 16);  // taller by the legend's extra rows
  const double height = chart.height + legend_px;
  SvgCanvas svg;
  begin_chart(svg, chart.width, height, chart.title);
  std::size_t n_cat = chart.categories.size(), n_ser = std::max<std::size_t>(chart.series.size(), 1);

  double lo = 0, hi = 0;
  bool any = false;
  for (const auto& s : chart.series) {
    for (std::size_t i = 0; i < n_cat; ++i) {
      for (double v : {at(s.values, i), at(s.low, i), at(s.high, i)}) {
        if (!std::isfinite(v) || (chart.y.log && v <= 0)) continue;
        lo = any ? std::min(lo, v) : (chart.y.log ? v : std::min(0.0, v));
        hi = any ? std::max(hi, v) : v;
        any = true;
      }
    }
  }
  for (const auto& r : chart.ref_lines) hi = std::max(hi, r.value);
  if (!any) lo = 0, hi = chart.y.log ? 10 : 1;

  PlotArea area{70, (chart.title.empty() ? 20.0 : 52.0) + legend_px, chart.width - ref_label_margin(chart.ref_lines),
                0};
  double band = n_cat ? (area.right - area.left) / static_cast<double>(n_cat) : area.width();
  area.bottom = height - category_margin(chart.categories, band);
  svg.rect(area.left, area.top, area.width(), area.height(), "plot");
  Scale y = draw_y_axis(svg, area, chart.y, lo, hi);

  draw_legend(svg, names, colors, chart.width - 16, 40);

  double group = band * 0.8, bar = group / static_cast<double>(n_ser);
  double base = chart.y.log ? y.d0 : std::clamp(0.0, y.d0, y.d1);
  std::vector<double> centers;
  for (std::size_t i = 0; i < n_cat; ++i) {
    double gx = area.left + band * static_cast<double>(i) + (band - group) / 2;
    centers.push_back(area.left + band * (static_cast<double>(i) + 0.5));
    for (std::size_t k = 0; k < chart.series.size(); ++k) {
      const auto& s = chart.series[k];
      double v = at(s.values, i);
      if (!std::isfinite(v) || (chart.y.log && v <= 0)) continue;
      double x = gx + bar * static_cast<double>(k);
      double y0 = y(base), y1 = y(v);
      std::string tip = i < s.tooltips.size() && !s.tooltips[i].empty()
                            ? s.tooltips[i]
                            : (s.name.empty() ? "" : s.name + ", ") + chart.categories[i] + ": " +
                                  format_tick(v, std::abs(v) / 1000, chart.y.unit) +
                                  (chart.y.unit.empty() || chart.y.unit == "%" || chart.y.unit == "B" ? "" : " " + chart.y.unit);
      svg.rect(x + bar * 0.06, std::min(y0, y1), bar * 0.88, std::abs(y1 - y0), "bar", palette_color(static_cast<int>(k)), tip);
      double el = at(s.low, i), eh = at(s.high, i);
      if (std::isfinite(el) && std::isfinite(eh)) {
        double cx = x + bar / 2, cap = std::min(bar * 0.25, 6.0);
        svg.line(cx, y(eh), cx, y(el), "err");
        svg.line(cx - cap, y(eh), cx + cap, y(eh), "err");
        svg.line(cx - cap, y(el), cx + cap, y(el), "err");
      }
    }
  }
  draw_ref_lines(svg, area, y, chart.ref_lines);
  draw_x_categories(svg, area, chart.categories, centers, "");
  svg.close();
  return {svg.take(), chart.width, height};
}

}  // namespace vtools::vrender
