#include "tools/vrender/chart_style.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace vtools::vrender {

std::string palette_color(int i) {
  // Tableau 10: distinct hues of similar lightness, readable on white and on near-black.
  static const char* kColors[] = {"#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f",
                                  "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac"};
  if (i < 0) return "#8c8c8c";
  return kColors[i % 10];
}

std::string series_dash(int i) {
  static const char* kDashes[] = {"6 3", "2 3", "8 3 2 3"};
  if (i < 10) return "";
  return kDashes[(i / 10 - 1) % 3];
}

std::string ramp_color(double t) {
  // Viridis sampled at 9 points, linearly interpolated.
  static const int kStops[9][3] = {{68, 1, 84},    {71, 44, 122},  {59, 81, 139},  {44, 113, 142}, {33, 144, 141},
                                   {39, 173, 129}, {92, 200, 99},  {170, 220, 50}, {253, 231, 37}};
  if (!std::isfinite(t)) t = 0;
  t = std::clamp(t, 0.0, 1.0) * 8;
  int i = std::min(static_cast<int>(t), 7);
  double f = t - i;
  char buf[8];
  int rgb[3];
  for (int c = 0; c < 3; ++c) rgb[c] = static_cast<int>(std::lround(kStops[i][c] + f * (kStops[i + 1][c] - kStops[i][c])));
  std::snprintf(buf, sizeof buf, "#%02x%02x%02x", rgb[0], rgb[1], rgb[2]);
  return buf;
}

std::string chart_css() {
  return R"(svg.vchart{font-family:DejaVu Sans,Helvetica,Arial,sans-serif;font-size:12px}
.vchart .bg{fill:#ffffff}
.vchart .plot{fill:#fafafa}
.vchart .axis{stroke:#555555;stroke-width:1}
.vchart .grid{stroke:#e3e3e3;stroke-width:1}
.vchart .tick{fill:#444444;font-size:11px}
.vchart .label{fill:#333333;font-size:12px}
.vchart .ctitle{fill:#111111;font-size:14px;font-weight:bold}
.vchart .legend{fill:#333333;font-size:11px}
.vchart .inbar{fill:#ffffff;font-size:10px}
.vchart .ref{stroke:#c0392b;stroke-width:1.5;stroke-dasharray:6 4}
.vchart .reflabel{fill:#c0392b;font-size:11px}
.vchart .err{stroke:#222222;stroke-width:1.2}
.vchart .line{fill:none;stroke-width:2}
.vchart .span{stroke:#ffffff;stroke-width:0.5}
.vchart .cell{stroke:none}
.vchart .mark{fill:none;stroke:#d62728;stroke-width:2}
.vchart .th{fill:#111111;font-size:12px;font-weight:bold}
.vchart .td{fill:#222222;font-size:12px}
.vchart .rowbg{fill:#f2f2f2}
.vchart .pt{stroke:#ffffff;stroke-width:1}
.vchart .dot{stroke:none;fill-opacity:0.5}
.vchart .median{stroke:#111111;stroke-width:2.5}
.vchart .link{stroke:#777777;stroke-width:1;stroke-dasharray:3 2}
@media (prefers-color-scheme: dark){
.vchart .bg{fill:#1e1e1e}
.vchart .plot{fill:#252525}
.vchart .axis{stroke:#aaaaaa}
.vchart .grid{stroke:#3a3a3a}
.vchart .tick{fill:#cccccc}
.vchart .label,.vchart .legend,.vchart .td{fill:#dddddd}
.vchart .ctitle,.vchart .th{fill:#f0f0f0}
.vchart .err,.vchart .median{stroke:#eeeeee}
.vchart .rowbg{fill:#2a2a2a}
.vchart .span,.vchart .pt{stroke:#1e1e1e}
.vchart .ref{stroke:#ff6b5b}
.vchart .reflabel{fill:#ff6b5b}
}
)";
}

}  // namespace vtools::vrender
