// Chart models and their SVG renderers: grouped bars with error bars, waterfalls, lines/scatter, heat maps with a colour scale,
// interval lanes (Gantt, timelines) and boxes on two numeric axes (address space), plus tables drawn as SVG.
// Each render_* returns one standalone <svg> element; output is deterministic (same model -> same bytes) and every
// mark carries a <title> tooltip. Colours of text/axes come from CSS classes (chart_style.hpp) so light and dark
// schemes both read well.
#pragma once

#include <limits>
#include <string>
#include <vector>

#include "libcommon/table.hpp"
#include "tools/vrender/axis_scale.hpp"

namespace vtools::vrender {

inline constexpr double kNoValue = std::numeric_limits<double>::quiet_NaN();

/// A rendered chart: SVG markup and its size in px.
struct Svg {
  std::string markup{};
  double width = 0, height = 0;
};

/// A horizontal reference line ("limit 228 KiB", "speedup 1.0").
struct RefLine {
  double value = 0;
  std::string label{};
};

/// One series of a bar chart: one value per category; NaN = no bar. `low`/`high` (optional, same length) are the
/// absolute ends of an error bar. `tooltips` (optional) replace the default "series, category: value" text.
struct BarSeries {
  std::string name{};
  std::vector<double> values, low, high;
  std::vector<std::string> tooltips{};
};

struct BarChart {
  std::string title{};
  std::vector<std::string> categories{};
  std::vector<BarSeries> series{};  ///< one bar per series in each category group
  Axis y{};
  std::vector<RefLine> ref_lines{};
  double width = 720, height = 340;
};

/// Points of a line/scatter series; `x` numeric, or category indices when XYChart::x_labels is set.
struct XYSeries {
  std::string name{};
  std::vector<double> x, y;
  std::vector<std::string> tooltips{};
};

struct XYChart {
  std::string title{};
  std::vector<XYSeries> series{};
  Axis x, y;
  std::vector<std::string> x_labels{};  ///< when set, x values are indices into these labels
  bool lines = true;                  ///< false: scatter only
  std::vector<RefLine> ref_lines{};
  double width = 720, height = 340;
  /// Series k is drawn (k - (n - 1) / 2) * dodge_px to the side, so points of several series at one x and y stay
  /// apart (a sweep's lines); tooltips keep the exact values.
  double dodge_px = 0;
};

/// rows x cols cells, values row-major; NaN or 0 = empty cell. Columns span [x_lo, x_hi) on the x axis.
/// A spot to mark on a heat map (an out-of-bounds access): row, x range, and what the tooltip says.
struct HeatMark {
  int row = 0;
  double x = 0, width = 0;
  std::string tooltip{};
};

struct HeatMap {
  std::string title{};
  int rows = 0, cols = 0;
  std::vector<double> values{};
  std::vector<std::string> row_labels{};  ///< shown when there is room (at most ~24 rows)
  Axis x, y;
  double x_lo = 0, x_hi = 1;
  std::string value_label{};  ///< colour scale title, e.g. "bytes touched"
  std::string value_unit{};
  double width = 720, height = 360;
  std::vector<HeatMark> marks{};  ///< drawn as red outlines over the cells, at least 4 px wide
};

/// An interval [start, end) on a lane; colour index into the palette (-1 = neutral grey).
struct LaneSpan {
  double start = 0, end = 0;
  int color = 0;
  std::string label{};  ///< drawn inside the bar when it fits
  std::string tooltip{};
};

struct Lane {
  std::string name{};
  std::vector<LaneSpan> spans{};
};

/// Gantt chart / timeline: one row per lane, spans on a shared x axis. `zoomable` puts the spans in a nested
/// <svg class="zoomable"> whose viewBox the page's script changes (wheel = zoom, drag = pan, double-click = reset).
struct LaneChart {
  std::string title{};
  std::vector<Lane> lanes{};
  Axis x{};
  double x_lo = kNoValue, x_hi = kNoValue;  ///< NaN: from the data
  bool zoomable = false;
  std::vector<std::string> legend{};  ///< names shown as a legend, of palette colours 0..n-1 ...
  double width = 900;
  double lane_height = 22;
  std::vector<int> legend_colors{};  ///< ... or of these palette indices when set (-1 = grey)
};

/// A rectangle on two numeric axes (x0..x1, y0..y1).
struct Box {
  double x0 = 0, x1 = 0, y0 = 0, y1 = 0;
  int color = 0;
  std::string label, tooltip;
};

struct BoxChart {
  std::string title{};
  std::vector<Box> boxes{};
  Axis x, y;
  std::vector<RefLine> ref_lines{};
  double width = 720, height = 360;
};

/// One category's distribution: its quantiles and (optionally) the raw samples, drawn as a strip of dots.
struct Distribution {
  std::string category{};
  double min = 0, p5 = 0, median = 0, p95 = 0, p99 = 0, max = 0;
  std::vector<double> samples{};
  std::string tooltip{};
};

/// Box plots on a zoomed value axis (not from 0): whisker min..max, box p5..p95, a line at the median, a tick at
/// p99, and the samples beside the box. `relative` plots each category as % of its own median, for categories
/// whose latencies differ by orders of magnitude.
struct DistributionChart {
  std::string title{};
  std::vector<Distribution> items{};
  Axis y{};
  bool relative = false;
  double width = 720, height = 340;
};

/// One bar of a waterfall: a change from the running total, or (`total`) the running total itself, drawn from the
/// axis' foot and resetting the running total to `value`.
struct WaterfallStep {
  std::string label{};
  double value = 0;
  bool total = false;
  std::string tooltip{};  ///< empty: "label: value unit"
};

/// A waterfall from one total to another: increases in `up_color`, decreases in `down_color`, no change in grey,
/// totals in palette colour 0, dashed links at the running total between neighbours. The value axis starts at 0 unless every running
/// total lies far above it (a small change of a large total); then it is zoomed and says so.
struct WaterfallChart {
  std::string title{};
  std::vector<WaterfallStep> steps{};
  Axis y{};
  std::string up_name = "increase", down_name = "decrease", total_name = "total";  ///< legend
  int up_color = 2, down_color = 4;  ///< palette indices (red, green)
  double width = 900, height = 380;
};

Svg render_bar_chart(const BarChart& chart);
Svg render_waterfall_chart(const WaterfallChart& chart);
Svg render_distribution_chart(const DistributionChart& chart);
Svg render_xy_chart(const XYChart& chart);
Svg render_heat_map(const HeatMap& map);
Svg render_lane_chart(const LaneChart& chart);
Svg render_box_chart(const BoxChart& chart);
/// A table as SVG text rows (for SVG/PNG pages; HTML pages use <table>). At most `max_rows` rows, then "… N more".
Svg render_table(const Table& table, std::size_t max_rows = 40);

}  // namespace vtools::vrender
