// Box plots with sample strips on a zoomed value axis (render_distribution_chart of svg_chart.hpp): the latency
// distribution of a bench run, where bars from 0 would all end within a few percent of each other.
#include <algorithm>
#include <cmath>

#include "tools/vrender/chart_frame.hpp"
#include "tools/vrender/chart_style.hpp"
#include "tools/vrender/svg_chart.hpp"

namespace vtools::vrender {

namespace {
constexpr std::size_t kMaxDots = 400;  // per category; more samples are thinned evenly (the quantiles use them all)
}  // namespace

Svg render_distribution_chart(const DistributionChart& chart) {
  SvgCanvas svg;
  begin_chart(svg, chart.width, chart.height, chart.title);
  auto value = [&](const Distribution& d, double v) { return chart.relative ? 100 * v / d.median : v; };
  double lo = 0, hi = 0;
  bool any = false;
  for (const auto& d : chart.items) {
    if (!std::isfinite(d.min) || !std::isfinite(d.max) || (chart.relative && !(d.median > 0))) continue;
    lo = any ? std::min(lo, value(d, d.min)) : value(d, d.min);
    hi = any ? std::max(hi, value(d, d.max)) : value(d, d.max);
    any = true;
  }
  if (!any) lo = 0, hi = 1;
  const double pad = (hi - lo) * 0.05;  // zoomed to the data, a margin each side; nice_ticks rounds outwards
  lo -= pad, hi += pad;

  std::vector<std::string> labels;
  for (const auto& d : chart.items) labels.push_back(d.category);
  PlotArea area{70, chart.title.empty() ? 20.0 : 52.0, chart.width - 16, 0};
  const double band = labels.empty() ? area.width() : area.width() / static_cast<double>(labels.size());
  area.bottom = chart.height - category_margin(labels, band);
  svg.rect(area.left, area.top, area.width(), area.height(), "plot");
  const Scale y = draw_y_axis(svg, area, chart.y, lo, hi);

  std::vector<double> centers;
  for (std::size_t i = 0; i < chart.items.size(); ++i) {
    const Distribution& d = chart.items[i];
    const double cx = area.left + band * (static_cast<double>(i) + 0.5);
    centers.push_back(cx);
    if (!std::isfinite(d.min) || !std::isfinite(d.max) || (chart.relative && !(d.median > 0))) continue;
    const std::string color = palette_color(0);
    const double box_w = std::min(band * 0.3, 40.0), box_x = cx - box_w - 2;
    auto py = [&](double v) { return y(value(d, v)); };
    svg.line(box_x + box_w / 2, py(d.max), box_x + box_w / 2, py(d.min), "err");
    svg.line(box_x + box_w / 4, py(d.max), box_x + box_w * 3 / 4, py(d.max), "err");
    svg.line(box_x + box_w / 4, py(d.min), box_x + box_w * 3 / 4, py(d.min), "err");
    svg.rect(box_x, py(d.p95), box_w, std::max(py(d.p5) - py(d.p95), 1.0), "bar", color, d.tooltip);
    svg.line(box_x, py(d.median), box_x + box_w, py(d.median), "median");
    if (std::isfinite(d.p99)) svg.line(box_x + box_w * 0.15, py(d.p99), box_x + box_w * 0.85, py(d.p99), "err");
    // The samples in a strip right of the box, spread sideways by a fixed pattern so equal values stay visible.
    const std::size_t n = d.samples.size(), step = std::max<std::size_t>(1, (n + kMaxDots - 1) / kMaxDots);
    const double strip_w = std::min(band * 0.3, 40.0);
    for (std::size_t k = 0; k < n; k += step) {
      if (!std::isfinite(d.samples[k])) continue;
      const double jitter = static_cast<double>((k * 7919) % 97) / 96.0;
      svg.circle(cx + 2 + jitter * strip_w, py(d.samples[k]), 1.8, color, "", "dot");
    }
  }
  draw_x_categories(svg, area, labels, centers, "");
  svg.close();
  return {svg.take(), chart.width, chart.height};
}

}  // namespace vtools::vrender
