// Waterfall charts: a start total, one floating bar per change, an end total (render_waterfall_chart of
// svg_chart.hpp).
#include <algorithm>
#include <cmath>

#include "tools/vrender/chart_frame.hpp"
#include "tools/vrender/chart_style.hpp"
#include "tools/vrender/svg_chart.hpp"

namespace vtools::vrender {

Svg render_waterfall_chart(const WaterfallChart& chart) {
  SvgCanvas svg;
  begin_chart(svg, chart.width, chart.height, chart.title);
  const std::size_t n = chart.steps.size();

  // Running totals before and after each step; the axis spans all of them.
  std::vector<double> from(n), to(n);
  double running = 0, lo = kNoValue, hi = kNoValue;
  for (std::size_t i = 0; i < n; ++i) {
    const auto& s = chart.steps[i];
    const double v = std::isfinite(s.value) ? s.value : 0;
    from[i] = s.total ? 0 : running;
    const double next = s.total ? v : running + v;
    to[i] = running = std::isfinite(next) ? next : running;  // two changes near DBL_MAX add up to inf: no axis for it
    for (const double e : {to[i], s.total ? to[i] : from[i]}) {
      lo = std::isfinite(lo) ? std::min(lo, e) : e;
      hi = std::isfinite(hi) ? std::max(hi, e) : e;
    }
  }
  if (n == 0) lo = 0, hi = 1;
  // Totals far above 0 with small changes between them: a bar from 0 would hide the changes, so zoom the axis
  // (ticks show where it starts) and draw totals from the plot's foot.
  const bool zoomed = lo > 0 && hi - lo < 0.1 * hi;
  if (zoomed) {
    const double pad = std::max((hi - lo) * 0.15, hi * 1e-6);
    lo -= pad, hi += pad;
  } else {
    lo = std::min(lo, 0.0), hi = std::max(hi, 0.0);
  }
  if (hi <= lo) hi = lo + 1;

  PlotArea area{70, chart.title.empty() ? 20.0 : 52.0, chart.width - 16, 0};
  std::vector<std::string> labels;
  for (const auto& s : chart.steps) labels.push_back(s.label);
  const double band = n ? area.width() / static_cast<double>(n) : area.width();
  area.bottom = chart.height - category_margin(labels, band);
  svg.rect(area.left, area.top, area.width(), area.height(), "plot");
  Scale y = draw_y_axis(svg, area, chart.y, lo, hi);
  if (zoomed) svg.text(area.left, area.top - 8, "axis does not start at 0", "tick");  // above the plot, clear of bars

  const int total_color = 0;
  draw_legend(svg, {chart.total_name, chart.up_name, chart.down_name},
              {palette_color(total_color), palette_color(chart.up_color), palette_color(chart.down_color)},
              chart.width - 16, 40);

  const std::string unit = chart.y.unit.empty() || chart.y.unit == "%" ? chart.y.unit : " " + chart.y.unit;
  std::vector<double> centers;
  const double bar = band * 0.7;
  for (std::size_t i = 0; i < n; ++i) {
    const auto& s = chart.steps[i];
    const double x = area.left + band * static_cast<double>(i) + (band - bar) / 2;
    centers.push_back(x + bar / 2);
    const double y0 = s.total ? (zoomed ? area.bottom : y(0)) : y(from[i]), y1 = y(to[i]);
    const int color = s.total          ? total_color
                      : to[i] > from[i]  ? chart.up_color
                      : to[i] < from[i]  ? chart.down_color
                                         : -1;  // no change: grey
    const std::string tip = !s.tooltip.empty() ? s.tooltip
                            : s.label + ": " + (s.total || s.value < 0 ? "" : "+") +
                                  format_tick(s.value, std::abs(s.value) / 1000, chart.y.unit) + unit;
    // At least 1 px, so a change too small for the scale still shows where it is.
    const double h = std::max(std::abs(y1 - y0), 1.0);
    svg.rect(x, std::min(y0, y1) - (std::abs(y1 - y0) < 1 ? 0.5 : 0), bar, h, "bar", palette_color(color), tip);
    if (i + 1 < n) svg.line(x + bar, y1, x + band, y1, "link");
  }
  draw_x_categories(svg, area, labels, centers, "");
  svg.close();
  return {svg.take(), chart.width, chart.height};
}

}  // namespace vtools::vrender
