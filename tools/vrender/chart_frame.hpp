// The parts every chart shares: background and title, legend, value axes with grid and ticks, category labels and
// reference lines. Used by the render_* functions of svg_chart.hpp only.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "tools/vrender/axis_scale.hpp"
#include "tools/vrender/svg_chart.hpp"
#include "tools/vrender/svg_markup.hpp"

namespace vtools::vrender {

/// The plot rectangle inside a chart, in px.
struct PlotArea {
  double left = 0, top = 0, right = 0, bottom = 0;
  [[nodiscard]] double width() const { return right - left; }
  [[nodiscard]] double height() const { return bottom - top; }
};

/// Approximate rendered width of `text` at `font_px` (average glyph width; good enough for layout).
double text_width(std::string_view text, double font_px = 12);

/// `text` cut to `max_chars` code points with a trailing ellipsis.
std::string shorten(std::string_view text, std::size_t max_chars);

/// `text` broken at spaces into lines of at most `max_chars` code points (a longer word is cut where it must be), as
/// HTML wraps a paragraph; at least one line, and no more than `max_lines` (the last one then ends in an ellipsis).
std::vector<std::string> wrap_text(std::string_view text, std::size_t max_chars, std::size_t max_lines = 1000);

/// Opens the <svg class="vchart">, paints the background and the title.
void begin_chart(SvgCanvas& svg, double width, double height, const std::string& title);

/// Colour swatches with names, right-aligned so they end at `right`, on baseline `y`. Names that do not fit on one
/// line go into rows of equal-width columns from the left edge, one row per kLegendRowPx below `y`, so every name
/// stays inside the chart (a 20-series trend). Where `dashes` gives an entry a stroke-dasharray, its swatch is a
/// dashed line, as its series is drawn.
void draw_legend(SvgCanvas& svg, const std::vector<std::string>& names, const std::vector<std::string>& colors,
                 double right, double y, const std::vector<std::string>& dashes = {});

/// Distance between the baselines of a wrapped legend's rows, in px.
inline constexpr double kLegendRowPx = 16;

/// The px a legend of `names` ending at `right` takes below its first line (0 when it fits on one): what a chart
/// adds to its height and to the top of its plot.
double legend_extra_height(const std::vector<std::string>& names, double right);

/// Grid lines, ticks and the rotated axis title for a vertical value axis; returns the data -> px scale.
Scale draw_y_axis(SvgCanvas& svg, const PlotArea& area, const Axis& axis, double lo, double hi);

/// Ticks and title for a horizontal numeric axis; returns the data -> px scale.
Scale draw_x_axis(SvgCanvas& svg, const PlotArea& area, const Axis& axis, double lo, double hi, bool grid = true);

/// Category labels centred under `centers` (rotated when they would overlap).
void draw_x_categories(SvgCanvas& svg, const PlotArea& area, const std::vector<std::string>& labels,
                       const std::vector<double>& centers, const std::string& title);

/// Right margin a chart keeps for the labels of its reference lines (16 px without any), so no label covers a mark.
double ref_label_margin(const std::vector<RefLine>& lines);

/// Dashed horizontal lines with labels in the right margin (see ref_label_margin).
void draw_ref_lines(SvgCanvas& svg, const PlotArea& area, const Scale& y, const std::vector<RefLine>& lines);

/// Bottom margin needed by draw_x_categories for these labels at this band width.
double category_margin(const std::vector<std::string>& labels, double band);

}  // namespace vtools::vrender
