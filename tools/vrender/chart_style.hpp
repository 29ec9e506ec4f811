// The look of every chart and page: series palette, the heat-map colour ramp and the CSS shared by HTML pages and
// standalone SVG (light by default, dark under prefers-color-scheme: dark).
#pragma once

#include <string>

namespace vtools::vrender {

/// Palette colour `i` (cycles through 10 colours readable on light and dark backgrounds); i < 0 -> neutral grey.
std::string palette_color(int i);

/// Viridis-like ramp, t in [0, 1] -> "#rrggbb" (perceptually ordered, colour-blind safe).
std::string ramp_color(double t);

/// CSS for chart classes (.bg .axis .grid .tick .label .ctitle .legend .ref .err .cell ...), with a dark variant.
std::string chart_css();

/// Font stack used in SVG text (no web fonts: works offline).
inline constexpr const char* kFontFamily = "DejaVu Sans, Helvetica, Arial, sans-serif";

}  // namespace vtools::vrender
