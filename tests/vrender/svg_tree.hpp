// A minimal XML reader for tests: parses vrender's SVG/XHTML-ish output into elements (tag, attributes, text,
// children), failing on unbalanced tags, so structure tests can count marks and read tooltips.
#pragma once

#include <doctest/doctest.h>

#include <functional>
#include <map>
#include <memory>
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

}  // namespace vtools::vrender::test
