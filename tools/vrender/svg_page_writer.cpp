// write_svg_page: the Page's figures stacked into one SVG under their titles (see page_writers.hpp).
#include <algorithm>
#include <deque>

#include "tools/vrender/chart_frame.hpp"
#include "tools/vrender/chart_style.hpp"
#include "tools/vrender/page_writers.hpp"

namespace vtools::vrender {

namespace {

struct Placed {
  double x, y;
  const Svg* svg;
  std::string title;
};

// Flows boxes left to right, wrapping at max_width; returns the y below the last row.
class Flow {
 public:
  Flow(double left, double y, double max_width) : left_(left), x_(left), y_(y), max_width_(max_width) {}
  void add(const Svg& svg, const std::string& title, std::vector<Placed>& out) {
    double h = svg.height + (title.empty() ? 0 : 26);
    if (x_ > left_ && x_ + svg.width > left_ + max_width_) newline();
    out.push_back({x_, y_, &svg, title});
    x_ += svg.width + 16;
    row_h_ = std::max(row_h_, h);
    width_ = std::max(width_, x_ - 16);
  }
  double newline() {
    if (row_h_ > 0) y_ += row_h_ + 16;
    x_ = left_;
    row_h_ = 0;
    return y_;
  }
  [[nodiscard]] double width() const { return width_; }

 private:
  double left_, x_, y_, max_width_, row_h_ = 0, width_ = 0;
};

}  // namespace

void write_svg_page(const Page& page, std::ostream& out, double max_width) {
  auto in_image = [](const Section& s) {
    bool any = !s.facts.empty();
    for (const auto& f : s.figures) any = any || f.in_image;
    for (const auto& t : s.tables) any = any || t.in_image;
    return any;
  };
  // The page is as wide as its widest row of figures (at least 760 px); text is wrapped to that width, as the HTML
  // page wraps it to the window, so nothing runs past the right edge.
  std::deque<Svg> tables;  // stable addresses for Placed::svg
  std::vector<std::vector<std::pair<const Svg*, std::string>>> boxes;
  double pad = 20, width = 760;
  for (const auto& s : page.sections) {
    auto& row = boxes.emplace_back();
    if (!in_image(s)) continue;
    for (const auto& f : s.figures)
      if (f.in_image) row.push_back({&f.svg, f.title});
    for (const auto& t : s.tables)
      if (t.in_image) row.push_back({&tables.emplace_back(render_table(t.table)), t.title});
    std::vector<Placed> scratch;
    Flow flow(pad, 0, max_width);
    for (const auto& [svg, title] : row) flow.add(*svg, title, scratch);
    width = std::max(width, flow.width() + 2 * pad);
  }
  width = std::max(width, text_width(page.title, 20) + 2 * pad);
  const auto line_chars = [&](double font_px, double room) { return static_cast<std::size_t>(room / (font_px * 0.6)); };

  SvgCanvas body;
  std::vector<Placed> placed;
  double y = 36;
  body.text(pad, y, page.title, "ptitle");
  if (!page.subtitle.empty()) {
    for (const auto& line : wrap_text(page.subtitle, line_chars(13, width - 2 * pad))) {
      y += 22;
      body.text(pad, y, line, "psub");
    }
  }
  y += 16;
  // Facts in two columns of "key: value" lines when the page is wide enough; long values wrap in their column.
  const double key_w = 170, column_w = std::max(560.0, (width - 2 * pad) / 2);
  const std::size_t value_chars = line_chars(13, column_w - key_w - 16);
  for (std::size_t si = 0; si < page.sections.size(); ++si) {
    const Section& s = page.sections[si];
    if (!in_image(s)) continue;
    if (!s.heading.empty()) {
      y += 26;
      body.text(pad, y, s.heading, "phead");
      y += 8;
    }
    const std::size_t per_row = width - 2 * pad >= 2 * column_w ? 2 : 1;
    for (std::size_t i = 0; i < s.facts.size(); i += per_row) {
      std::size_t lines = 1;
      for (std::size_t k = i; k < std::min(i + per_row, s.facts.size()); ++k) {
        double x = pad + static_cast<double>(k - i) * column_w;
        body.text(x, y + 20, s.facts[k].key + ":", "pkey");
        const std::vector<std::string> value = wrap_text(s.facts[k].value, value_chars, 4);
        for (std::size_t l = 0; l < value.size(); ++l)
          body.text(x + key_w, y + 20 + 17 * static_cast<double>(l), value[l], "pval");
        lines = std::max(lines, value.size());
      }
      y += 20 + 17 * static_cast<double>(lines - 1);
    }
    for (const auto& n : s.notes) {
      for (const auto& line : wrap_text(n, line_chars(13, width - 2 * pad))) {
        y += 18;
        body.text(pad, y, line, "pnote");
      }
    }
    y += 14;
    Flow flow(pad, y, max_width);
    for (const auto& [svg, title] : boxes[si]) flow.add(*svg, title, placed);
    y = flow.newline();
  }
  double height = y + pad;

  out << "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"vchart vpage\" width=\"" << num(width) << "\" height=\""
      << num(height) << "\" viewBox=\"0 0 " << num(width) << " " << num(height) << "\">\n<title>" << xml_escape(page.title)
      << "</title>\n<style>\n"
      << chart_css()
      << ".vpage .ptitle{font-size:20px;font-weight:bold;fill:#111111}\n.vpage .psub,.vpage .pnote{font-size:13px;fill:#555555}\n"
         ".vpage .phead{font-size:16px;font-weight:bold;fill:#111111}\n.vpage .pkey{font-size:13px;fill:#666666}\n"
         ".vpage .pval{font-size:13px;fill:#111111}\n.vpage .ftitle{font-size:14px;font-weight:bold;fill:#111111}\n"
         "@media (prefers-color-scheme: dark){.vpage .ptitle,.vpage .phead,.vpage .pval,.vpage .ftitle{fill:#f0f0f0}"
         ".vpage .psub,.vpage .pnote,.vpage .pkey{fill:#aaaaaa}}\n</style>\n"
      << "<rect class=\"bg\" x=\"0\" y=\"0\" width=\"" << num(width) << "\" height=\"" << num(height) << "\"/>\n"
      << body.str();
  for (const auto& p : placed) {
    double fy = p.y;
    if (!p.title.empty()) {
      out << "<text x=\"" << num(p.x) << "\" y=\"" << num(fy + 18) << "\" class=\"ftitle\">" << xml_escape(p.title) << "</text>\n";
      fy += 26;
    }
    out << "<g transform=\"translate(" << num(p.x) << "," << num(fy) << ")\">\n" << p.svg->markup << "</g>\n";
  }
  out << "</svg>\n";
}

}  // namespace vtools::vrender
