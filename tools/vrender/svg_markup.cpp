#include "tools/vrender/svg_markup.hpp"

#include <cmath>
#include <cstdio>

#include "libcommon/json_scanner.hpp"

namespace vtools::vrender {

std::string xml_escape(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size(); ++i) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    switch (c) {
      case '&': out += "&amp;"; continue;
      case '<': out += "&lt;"; continue;
      case '>': out += "&gt;"; continue;
      case '"': out += "&quot;"; continue;
      case '\'': out += "&#39;"; continue;
      default: break;
    }
    if (c < 0x20 && c != '\n' && c != '\t') {
      out += ' ';  // control characters are not allowed in XML 1.0
    } else if (c < 0x80) {
      out += static_cast<char>(c);
    } else {
      // Copy a well-formed UTF-8 sequence; replace anything else so the SVG stays parseable.
      int len = (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xe ? 3 : (c >> 3) == 0x1e ? 4 : 0;
      bool ok = len > 0 && i + len <= s.size();
      for (int k = 1; ok && k < len; ++k) ok = (static_cast<unsigned char>(s[i + k]) >> 6) == 0x2;
      if (ok) {  // and a character XML 1.0 allows: RFC 3629 UTF-8 (no overlong form, surrogate or code point past
                 // U+10FFFF) other than the noncharacters U+FFFE and U+FFFF
        const std::string_view seq = s.substr(i, len);
        const bool nonchar = seq == "\xef\xbf\xbe" || seq == "\xef\xbf\xbf";
        if (utf8_sequence(seq.data(), seq.data() + seq.size()) == static_cast<std::size_t>(len) && !nonchar)
          out.append(seq);
        else
          out += "\xef\xbf\xbd";  // one replacement for the whole sequence
        i += len - 1;
      } else {
        out += "\xef\xbf\xbd";
      }
    }
  }
  return out;
}

std::string num(double v, int decimals) {
  if (!std::isfinite(v)) return "0";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  std::string s(buf);
  if (s.find('.') != std::string::npos) {
    while (s.back() == '0') s.pop_back();
    if (s.back() == '.') s.pop_back();
  }
  if (s == "-0") s = "0";
  return s;
}

void SvgCanvas::open(double width, double height, std::string_view css_class, std::string_view title) {
  out_ += "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"" + std::string(css_class) + "\" width=\"" + num(width) +
          "\" height=\"" + num(height) + "\" viewBox=\"0 0 " + num(width) + " " + num(height) + "\" role=\"img\">";
  if (!title.empty()) out_ += "<title>" + xml_escape(title) + "</title>";
  out_ += "\n";
}

void SvgCanvas::close() { out_ += "</svg>\n"; }

void SvgCanvas::close_shape(std::string_view tooltip) {
  if (tooltip.empty()) {
    out_ += "/>\n";
  } else {
    out_ += "><title>" + xml_escape(tooltip) + "</title></" ;
  }
}

void SvgCanvas::rect(double x, double y, double w, double h, std::string_view css_class, std::string_view fill,
                     std::string_view tooltip) {
  out_ += "<rect x=\"" + num(x) + "\" y=\"" + num(y) + "\" width=\"" + num(std::max(w, 0.0)) + "\" height=\"" +
          num(std::max(h, 0.0)) + "\"";
  if (!css_class.empty()) out_ += " class=\"" + std::string(css_class) + "\"";
  if (!fill.empty()) out_ += " fill=\"" + std::string(fill) + "\"";
  close_shape(tooltip);
  if (!tooltip.empty()) out_ += "rect>\n";
}

void SvgCanvas::line(double x1, double y1, double x2, double y2, std::string_view css_class) {
  out_ += "<line x1=\"" + num(x1) + "\" y1=\"" + num(y1) + "\" x2=\"" + num(x2) + "\" y2=\"" + num(y2) +
          "\" class=\"" + std::string(css_class) + "\"/>\n";
}

void SvgCanvas::circle(double cx, double cy, double r, std::string_view fill, std::string_view tooltip,
                       std::string_view css_class) {
  out_ += "<circle cx=\"" + num(cx) + "\" cy=\"" + num(cy) + "\" r=\"" + num(r) + "\" fill=\"" + std::string(fill) +
          "\" class=\"" + std::string(css_class) + "\"";
  close_shape(tooltip);
  if (!tooltip.empty()) out_ += "circle>\n";
}

void SvgCanvas::text(double x, double y, std::string_view content, std::string_view css_class, std::string_view anchor,
                     double rotate) {
  out_ += "<text x=\"" + num(x) + "\" y=\"" + num(y) + "\" class=\"" + std::string(css_class) + "\"";
  if (anchor != "start") out_ += " text-anchor=\"" + std::string(anchor) + "\"";
  if (rotate != 0) out_ += " transform=\"rotate(" + num(rotate) + " " + num(x) + " " + num(y) + ")\"";
  out_ += ">" + xml_escape(content) + "</text>\n";
}

void SvgCanvas::polyline(std::string_view points, std::string_view stroke, std::string_view css_class,
                         std::string_view dash) {
  out_ += "<polyline points=\"" + std::string(points) + "\" stroke=\"" + std::string(stroke) + "\" class=\"" +
          std::string(css_class) + "\"";
  if (!dash.empty()) out_ += " stroke-dasharray=\"" + std::string(dash) + "\"";
  out_ += "/>\n";
}

}  // namespace vtools::vrender
