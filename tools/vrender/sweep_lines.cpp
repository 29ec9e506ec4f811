#include "tools/vrender/sweep_lines.hpp"

#include <algorithm>
#include <cstdlib>
#include <utility>

#include "tools/vrender/svg_markup.hpp"

namespace vtools::vrender {

std::optional<SweepKey> parse_sweep_key(const std::string& key) {
  const std::size_t b = key.rfind("/B:"), t = key.rfind("/T:");
  if (b == std::string::npos || t == std::string::npos || t < b) return std::nullopt;
  char* end = nullptr;
  const std::string batch = key.substr(b + 3, t - b - 3), seq = key.substr(t + 3);
  const double bv = std::strtod(batch.c_str(), &end);
  if (batch.empty() || *end != '\0' || !(bv > 0)) return std::nullopt;
  const double tv = std::strtod(seq.c_str(), &end);
  if (seq.empty() || *end != '\0' || !(tv > 0)) return std::nullopt;
  return SweepKey{key.substr(0, b), bv, tv};
}

std::vector<XYSeries> sweep_series(const std::vector<SweepPoint>& points, bool by_batch) {
  std::vector<std::pair<std::string, std::vector<const SweepPoint*>>> lines;
  for (const SweepPoint& p : points) {
    const std::string line = p.config + (by_batch ? " T=" + num(p.seq, 0) : " B=" + num(p.batch, 0));
    auto it = std::find_if(lines.begin(), lines.end(), [&](const auto& l) { return l.first == line; });
    if (it == lines.end()) it = lines.insert(lines.end(), {line, {}});
    it->second.push_back(&p);
  }
  auto x_of = [by_batch](const SweepPoint* p) { return by_batch ? p->batch : p->seq; };
  std::vector<XYSeries> series;
  for (auto& [line, members] : lines) {
    std::stable_sort(members.begin(), members.end(), [&](const auto* a, const auto* b) { return x_of(a) < x_of(b); });
    if (x_of(members.front()) == x_of(members.back())) continue;
    XYSeries s{line, {}, {}, {}};
    for (const SweepPoint* p : members) {
      s.x.push_back(x_of(p));
      s.y.push_back(p->y);
      s.tooltips.push_back(p->tooltip);
    }
    series.push_back(std::move(s));
  }
  return series;
}

XYChart sweep_chart(std::string title, std::vector<XYSeries> series, bool by_batch, Axis y) {
  Axis x{by_batch ? "batch size B" : "sequence length T", "", true, {}};
  for (const XYSeries& s : series) x.ticks.insert(x.ticks.end(), s.x.begin(), s.x.end());
  XYChart chart{std::move(title), std::move(series), std::move(x), std::move(y), {}, true, {}, 720, 340};
  chart.dodge_px = 5;
  return chart;
}

}  // namespace vtools::vrender
