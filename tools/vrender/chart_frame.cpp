#include "tools/vrender/chart_frame.hpp"

#include <algorithm>
#include <cmath>

#include "tools/vrender/chart_style.hpp"

namespace vtools::vrender {

namespace {
std::size_t utf8_length(std::string_view s) {
  std::size_t n = 0;
  for (char c : s) n += (static_cast<unsigned char>(c) & 0xc0) != 0x80;
  return n;
}
// Bytes of the first `code_points` code points of `s` (all of it when shorter).
std::size_t prefix_bytes(std::string_view s, std::size_t code_points) {
  std::size_t i = 0;
  for (std::size_t n = 0; i < s.size(); ++i)
    if ((static_cast<unsigned char>(s[i]) & 0xc0) != 0x80 && n++ == code_points) break;
  return i;
}
}  // namespace

double text_width(std::string_view text, double font_px) { return static_cast<double>(utf8_length(text)) * font_px * 0.6; }

std::string shorten(std::string_view text, std::size_t max_chars) {
  if (utf8_length(text) <= max_chars || max_chars < 2) return std::string(text);
  return std::string(text.substr(0, prefix_bytes(text, max_chars - 1))) + "\xe2\x80\xa6";
}

std::vector<std::string> wrap_text(std::string_view text, std::size_t max_chars, std::size_t max_lines) {
  max_chars = std::max<std::size_t>(max_chars, 8);
  std::vector<std::string> lines{""};
  std::size_t i = 0;
  while (i < text.size()) {
    std::size_t end = text.find(' ', i);
    if (end == std::string_view::npos) end = text.size();
    std::string_view word = text.substr(i, end - i);
    i = end + 1;
    if (word.empty()) continue;
    std::string& line = lines.back();
    std::size_t room = line.empty() ? max_chars : max_chars - std::min(max_chars, utf8_length(line) + 1);
    if (utf8_length(word) <= room) {
      line += (line.empty() ? "" : " ") + std::string(word);
      continue;
    }
    if (!line.empty()) lines.emplace_back();
    while (utf8_length(word) > max_chars) {  // a path or URL longer than a line: cut it, as overflow-wrap does
      const std::size_t cut = prefix_bytes(word, max_chars);
      lines.back() = std::string(word.substr(0, cut));
      lines.emplace_back();
      word = word.substr(cut);
    }
    lines.back() = std::string(word);
  }
  if (lines.size() > max_lines) {
    lines.resize(max_lines);
    std::string& last = lines.back();
    if (utf8_length(last) + 2 <= max_chars) {
      last += " \xe2\x80\xa6";
    } else {
      last = last.substr(0, prefix_bytes(last, max_chars - 1)) + "\xe2\x80\xa6";
    }
  }
  return lines;
}

void begin_chart(SvgCanvas& svg, double width, double height, const std::string& title) {
  svg.open(width, height, "vchart", title);
  svg.rect(0, 0, width, height, "bg");
  if (!title.empty()) svg.text(12, 20, shorten(title, static_cast<std::size_t>(width / 8.5)), "ctitle");
}

namespace {

constexpr double kLegendLeft = 12;

/// A legend's entries (swatch, gap, name, space), their widths, and where they go: one right-aligned line, or
/// `columns` columns of `column_px` from kLegendLeft.
struct LegendLayout {
  std::vector<std::string> names;
  std::vector<double> widths;
  bool one_line = true;
  std::size_t columns = 1, rows = 1;
  double column_px = 0, total_px = 0;
};

LegendLayout layout_legend(const std::vector<std::string>& names, double right) {
  LegendLayout l;
  const double max_text_px = std::max(right - kLegendLeft - 28, 60.0);  // a name wider than the chart is cut
  for (const std::string& n : names) {
    l.names.push_back(text_width(n, 11) <= max_text_px ? n : shorten(n, static_cast<std::size_t>(max_text_px / 6.6)));
    l.widths.push_back(12 + 4 + text_width(l.names.back(), 11) + 12);
    l.total_px += l.widths.back();
    l.column_px = std::max(l.column_px, l.widths.back());
  }
  l.one_line = right - l.total_px >= kLegendLeft;
  if (!l.one_line && !names.empty()) {
    // The last column's trailing space may run past `right`: columns * column_px - 12 + kLegendLeft <= right.
    l.columns = std::max<std::size_t>(1, static_cast<std::size_t>(right / l.column_px));
    l.rows = (names.size() + l.columns - 1) / l.columns;
  }
  return l;
}

}  // namespace

void draw_legend(SvgCanvas& svg, const std::vector<std::string>& names, const std::vector<std::string>& colors,
                 double right, double y, const std::vector<std::string>& dashes) {
  if (names.size() < 2 && colors.size() < 2) return;
  const LegendLayout l = layout_legend(names, right);
  double x = right - l.total_px;
  for (std::size_t i = 0; i < names.size(); ++i) {
    double row_y = y;
    if (!l.one_line) {  // row by row, so the names read in series order
      x = kLegendLeft + static_cast<double>(i % l.columns) * l.column_px;
      row_y = y + static_cast<double>(i / l.columns) * kLegendRowPx;
    }
    if (i < dashes.size() && !dashes[i].empty()) {
      svg.rect(x, row_y - 9, 12, 10, "", "transparent", names[i]);  // the hover target; the line shows the dash
      svg.polyline(num(x) + "," + num(row_y - 4) + " " + num(x + 12) + "," + num(row_y - 4), colors[i], "line",
                   dashes[i]);
    } else {
      svg.rect(x, row_y - 9, 12, 10, "", colors[i], names[i]);
    }
    svg.text(x + 16, row_y, l.names[i], "legend");
    x += l.widths[i];
  }
}

double legend_extra_height(const std::vector<std::string>& names, double right) {
  if (names.size() < 2) return 0;
  return static_cast<double>(layout_legend(names, right).rows - 1) * kLegendRowPx;
}

Scale draw_y_axis(SvgCanvas& svg, const PlotArea& area, const Axis& axis, double lo, double hi) {
  Ticks t = ticks_for(axis, lo, hi, std::max(2, static_cast<int>(area.height() / 50)));
  Scale s{t.lo, t.hi, area.bottom, area.top, axis.log};
  for (double v : t.values) {
    double y = s(v);
    svg.line(area.left, y, area.right, y, "grid");
    svg.text(area.left - 6, y + 4, format_tick(v, t.step, axis.unit), "tick", "end");
  }
  svg.line(area.left, area.top, area.left, area.bottom, "axis");
  std::string title = axis_title(axis);
  if (!title.empty()) svg.text(14, (area.top + area.bottom) / 2, title, "label", "middle", -90);
  return s;
}

Scale draw_x_axis(SvgCanvas& svg, const PlotArea& area, const Axis& axis, double lo, double hi, bool grid) {
  Ticks t = ticks_for(axis, lo, hi, std::max(2, static_cast<int>(area.width() / 90)));
  Scale s{t.lo, t.hi, area.left, area.right, axis.log};
  for (double v : t.values) {
    double x = s(v);
    if (grid) svg.line(x, area.top, x, area.bottom, "grid");
    svg.line(x, area.bottom, x, area.bottom + 4, "axis");
    svg.text(x, area.bottom + 16, format_tick(v, t.step, axis.unit), "tick", "middle");
  }
  svg.line(area.left, area.bottom, area.right, area.bottom, "axis");
  std::string title = axis_title(axis);
  if (!title.empty()) svg.text((area.left + area.right) / 2, area.bottom + 34, title, "label", "middle");
  return s;
}

double category_margin(const std::vector<std::string>& labels, double band) {
  double widest = 0;
  for (const auto& l : labels) widest = std::max(widest, text_width(shorten(l, 24), 11));
  if (widest <= band - 4) return 40;
  return std::min(widest, 24 * 6.6) * 0.6 + 34;
}

void draw_x_categories(SvgCanvas& svg, const PlotArea& area, const std::vector<std::string>& labels,
                       const std::vector<double>& centers, const std::string& title) {
  double band = centers.size() > 1 ? centers[1] - centers[0] : area.width();
  double widest = 0;
  for (const auto& l : labels) widest = std::max(widest, text_width(shorten(l, 24), 11));
  bool rotate = widest > band - 4;
  // With very many categories, label every k-th one so labels never overlap.
  std::size_t every = rotate ? std::max<std::size_t>(1, static_cast<std::size_t>(std::ceil(14 / std::max(band, 1e-9)))) : 1;
  for (std::size_t i = 0; i < labels.size() && i < centers.size(); i += every) {
    if (rotate) {
      svg.text(centers[i] + 3, area.bottom + 12, shorten(labels[i], 24), "tick", "end", -35);
    } else {
      svg.text(centers[i], area.bottom + 16, labels[i], "tick", "middle");
    }
  }
  svg.line(area.left, area.bottom, area.right, area.bottom, "axis");
  if (!title.empty() && !rotate) svg.text((area.left + area.right) / 2, area.bottom + 34, title, "label", "middle");
}

double ref_label_margin(const std::vector<RefLine>& lines) {
  double widest = 0;
  for (const auto& r : lines) widest = std::max(widest, text_width(r.label, 11));
  return std::max(16.0, widest + 12);
}

void draw_ref_lines(SvgCanvas& svg, const PlotArea& area, const Scale& y, const std::vector<RefLine>& lines) {
  for (const auto& r : lines) {
    double py = y(r.value);
    if (py < area.top - 0.5 || py > area.bottom + 0.5) continue;
    svg.line(area.left, py, area.right, py, "ref");
    svg.text(area.right + 4, py + 4, r.label, "reflabel");
  }
}

}  // namespace vtools::vrender
