// SVG text building blocks: XML escaping, deterministic number formatting and a small element writer. Charts
// (svg_chart.hpp) compose these; nothing here knows about data.
#pragma once

#include <string>
#include <string_view>

namespace vtools::vrender {

/// Escapes & < > " ' so `s` is safe as XML text or an attribute value. Invalid UTF-8 bytes become U+FFFD.
std::string xml_escape(std::string_view s);

/// Deterministic decimal: at most `decimals` digits after the point, trailing zeros dropped, "-0" -> "0",
/// NaN/inf -> "0" (SVG has no NaN). Independent of the C++ locale.
std::string num(double v, int decimals = 2);

/// Appends SVG elements to a string. Every shape may carry a tooltip (`<title>` child, shown on hover).
class SvgCanvas {
 public:
  /// Opens `<svg>` with width/height/viewBox in px; `css_class` goes on the root element.
  void open(double width, double height, std::string_view css_class, std::string_view title);
  void close();

  void rect(double x, double y, double w, double h, std::string_view css_class, std::string_view fill = "",
            std::string_view tooltip = "");
  void line(double x1, double y1, double x2, double y2, std::string_view css_class);
  void circle(double cx, double cy, double r, std::string_view fill, std::string_view tooltip = "",
              std::string_view css_class = "pt");
  /// `anchor` is start|middle|end; `rotate` degrees around (x, y).
  void text(double x, double y, std::string_view content, std::string_view css_class, std::string_view anchor = "start",
            double rotate = 0);
  /// `dash`: a stroke-dasharray ("6 3"), or "" for a solid line.
  void polyline(std::string_view points, std::string_view stroke, std::string_view css_class,
                std::string_view dash = "");
  /// Raw markup (already escaped), e.g. a nested <svg>.
  void raw(std::string_view markup) { out_ += markup; }

  [[nodiscard]] const std::string& str() const { return out_; }
  std::string take() { return std::move(out_); }

 private:
  void close_shape(std::string_view tooltip);
  std::string out_;
};

}  // namespace vtools::vrender
