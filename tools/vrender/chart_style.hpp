// The look of every chart and page: series palette, the heat-map colour ramp and the CSS shared by HTML pages and
// standalone SVG (light by default, dark under prefers-color-scheme: dark).
#pragma once

#include <string>

namespace vtools::vrender {

/// Palette colour `i` (cycles through 10 colours readable on light and dark backgrounds); i < 0 -> neutral grey.
std::string palette_color(int i);

/// Stroke dash of line series `i`: "" (solid) for the first 10, which have a palette colour each, then a dash per
/// further 10 ("6 3", "2 3", "8 3 2 3", cycling), so series 11 reads apart from series 1 in its colour.
std::string series_dash(int i);

/// Viridis-like ramp, t in [0, 1] -> "#rrggbb" (perceptually ordered, colour-blind safe).
std::string ramp_color(double t);

/// CSS for chart classes (.bg .axis .grid .tick .label .ctitle .legend .ref .err .cell ...), with a dark variant.
std::string chart_css();

/// Font stack used in SVG text (no web fonts: works offline).
inline constexpr const char* kFontFamily = "DejaVu Sans, Helvetica, Arial, sans-serif";

}  // namespace vtools::vrender
