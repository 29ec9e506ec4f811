// A minimal XML reader for tests: parses vrender's SVG/XHTML-ish output into elements (tag, attributes, text,
// children), failing on unbalanced tags, so structure tests can count marks and read tooltips.
#pragma once

#include <doctest/doctest.h>

#include <algorithm>
#include <functional>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

namespace vtools::vrender::test {

struct Element {
  std::string tag;
  std::map<std::string, std::string> attrs;
  std::string text;  ///< concatenated direct text (entities left as written)
  std::vector<std::unique_ptr<Element>> children;

  [[nodiscard]] std::string attr(const std::string& name) const {
    auto it = attrs.find(name);
    return it == attrs.end() ? "" : it->second;
  }
  /// Every descendant (pre-order) matching `pred`.
  void collect(const std::function<bool(const Element&)>& pred, std::vector<const Element*>& out) const {
    for (const auto& c : children) {
      if (pred(*c)) out.push_back(c.get());
      c->collect(pred, out);
    }
  }
  [[nodiscard]] std::vector<const Element*> find(const std::string& tag, const std::string& css_class = "") const {
    std::vector<const Element*> out;
    collect([&](const Element& e) { return e.tag == tag && (css_class.empty() || e.attr("class") == css_class); }, out);
    return out;
  }
  /// Text of the <title> child ("" when none).
  [[nodiscard]] std::string title() const {
    for (const auto& c : children)
      if (c->tag == "title") return c->text;
    return "";
  }
};

/// Parses `xml` (from its first '<svg' or '<html') into a root whose children are the top-level elements.
/// Throws std::runtime_error with the offset on malformed input.
inline std::unique_ptr<Element> parse_xml(std::string_view xml) {
  auto root = std::make_unique<Element>();
  std::vector<Element*> stack{root.get()};
  std::size_t i = 0;
  auto fail = [&](const std::string& why) { throw std::runtime_error(why + " at offset " + std::to_string(i)); };
  while (i < xml.size()) {
    if (xml[i] != '<') {
      std::size_t next = xml.find('<', i);
      if (next == std::string_view::npos) next = xml.size();
      stack.back()->text += std::string(xml.substr(i, next - i));
      i = next;
      continue;
    }
    if (xml.substr(i, 4) == "<!--") {
      i = xml.find("-->", i);
      if (i == std::string_view::npos) fail("unterminated comment");
      i += 3;
      continue;
    }
    if (xml.substr(i, 2) == "<!" || xml.substr(i, 2) == "<?") {
      i = xml.find('>', i) + 1;
      continue;
    }
    std::size_t end = xml.find('>', i);
    if (end == std::string_view::npos) fail("unterminated tag");
    std::string_view tag = xml.substr(i + 1, end - i - 1);
    // <style>/<script> bodies are raw text.
    if (tag == "style" || tag == "script") {
      std::size_t close = xml.find("</" + std::string(tag) + ">", end);
      if (close == std::string_view::npos) fail("unterminated raw element");
      i = close + tag.size() + 3;
      continue;
    }
    i = end + 1;
    if (tag.front() == '/') {
      if (stack.size() < 2 || stack.back()->tag != tag.substr(1)) fail("unbalanced </" + std::string(tag.substr(1)) + ">");
      stack.pop_back();
      continue;
    }
    bool self_close = tag.back() == '/';
    if (self_close) tag.remove_suffix(1);
    auto el = std::make_unique<Element>();
    std::size_t p = tag.find_first_of(" \n\t");
    el->tag = std::string(tag.substr(0, p));
    while (p != std::string_view::npos && p < tag.size()) {
      std::size_t eq = tag.find('=', p);
      if (eq == std::string_view::npos) break;
      std::size_t name_start = tag.find_first_not_of(" \n\t", p);
      std::string name(tag.substr(name_start, eq - name_start));
      if (tag[eq + 1] != '"') fail("unquoted attribute " + name);
      std::size_t close = tag.find('"', eq + 2);
      if (close == std::string_view::npos) fail("unterminated attribute " + name);
      el->attrs[name] = std::string(tag.substr(eq + 2, close - eq - 2));
      p = close + 1;
    }
    Element* raw = el.get();
    stack.back()->children.push_back(std::move(el));
    static const char* kVoid[] = {"meta", "br", "hr", "img", "link", "input"};
    bool is_void = self_close;
    for (const char* v : kVoid) is_void = is_void || raw->tag == v;
    if (!is_void) stack.push_back(raw);
  }
  if (stack.size() != 1) throw std::runtime_error("unclosed <" + stack.back()->tag + ">");
  return root;
}

/// The marks of a chart's <svg> (its own children, not a nested <svg>'s) that reach past its viewBox, as
/// "tag class at x,y": rects, circles, lines, polyline points, and unrotated text at 0.6 em per character (the
/// layout's own estimate, chart_frame text_width). Empty when everything is inside.
inline std::vector<std::string> marks_outside_viewbox(const Element& svg) {
  double w = 0, h = 0;
  {
    std::istringstream box(svg.attr("viewBox"));
    double x0 = 0, y0 = 0;
    box >> x0 >> y0 >> w >> h;
  }
  std::vector<std::string> out;
  auto check = [&](const Element& e, double x0, double y0, double x1, double y1) {
    const double slack = 0.5;
    if (x0 < -slack || y0 < -slack || x1 > w + slack || y1 > h + slack)
      out.push_back(e.tag + " " + e.attr("class") + " at " + std::to_string(x0) + "," + std::to_string(y0) + " '" +
                    e.text + "'");
  };
  auto d = [](const Element& e, const char* name) {
    const std::string v = e.attr(name);
    return v.empty() ? 0.0 : std::stod(v);
  };
  for (const auto& c : svg.children) {
    const Element& e = *c;
    if (e.tag == "rect") {
      check(e, d(e, "x"), d(e, "y"), d(e, "x") + d(e, "width"), d(e, "y") + d(e, "height"));
    } else if (e.tag == "circle") {
      const double r = d(e, "r");
      check(e, d(e, "cx") - r, d(e, "cy") - r, d(e, "cx") + r, d(e, "cy") + r);
    } else if (e.tag == "line") {
      check(e, std::min(d(e, "x1"), d(e, "x2")), std::min(d(e, "y1"), d(e, "y2")), std::max(d(e, "x1"), d(e, "x2")),
            std::max(d(e, "y1"), d(e, "y2")));
    } else if (e.tag == "polyline") {
      std::istringstream points(e.attr("points"));
      for (std::string point; points >> point;) {
        const double x = std::stod(point.substr(0, point.find(','))), y = std::stod(point.substr(point.find(',') + 1));
        check(e, x, y, x, y);
      }
    } else if (e.tag == "text" && e.attr("transform").empty()) {
      std::size_t chars = 0;  // code points, an entity as one
      for (std::size_t i = 0; i < e.text.size(); ++i) {
        if ((static_cast<unsigned char>(e.text[i]) & 0xc0) == 0x80) continue;
        ++chars;
        if (e.text[i] == '&') i = e.text.find(';', i);
      }
      const double font = e.attr("class") == "ctitle" ? 14 : e.attr("class") == "label" ? 12 : 11;
      const double width = static_cast<double>(chars) * font * 0.6, x = d(e, "x"), y = d(e, "y");
      const std::string anchor = e.attr("text-anchor");
      const double left = anchor == "end" ? x - width : anchor == "middle" ? x - width / 2 : x;
      check(e, left, y - font, left + width, y);
    }
  }
  return out;
}

}  // namespace vtools::vrender::test
