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
  SvgCanvas body;
  std::vector<Placed> placed;
  std::deque<Svg> tables;  // stable addresses for Placed::svg
  double pad = 20, y = 36;
  double width = 0;
  body.text(pad, y, page.title, "ptitle");
  width = std::max(width, text_width(page.title, 20) + 2 * pad);
  if (!page.subtitle.empty()) {
    y += 22;
    body.text(pad, y, page.subtitle, "psub");
  }
  y += 16;
  for (const auto& s : page.sections) {
    bool has_image = !s.facts.empty();
    for (const auto& f : s.figures) has_image = has_image || f.in_image;
    for (const auto& t : s.tables) has_image = has_image || t.in_image;
    if (!has_image) continue;
    if (!s.heading.empty()) {
      y += 26;
      body.text(pad, y, s.heading, "phead");
      y += 8;
    }
    // Facts in two columns of "key: value" lines.
    for (std::size_t i = 0; i < s.facts.size(); i += 2) {
      y += 20;
      for (std::size_t k = i; k < std::min(i + 2, s.facts.size()); ++k) {
        double x = pad + static_cast<double>(k - i) * 560;
        body.text(x, y, s.facts[k].key + ":", "pkey");
        body.text(x + 170, y, shorten(s.facts[k].value, 52), "pval");
      }
    }
    for (const auto& n : s.notes) {
      y += 18;
      body.text(pad, y, n, "pnote");
    }
    y += 14;
    Flow flow(pad, y, max_width);
    for (const auto& f : s.figures)
      if (f.in_image) flow.add(f.svg, f.title, placed);
    for (const auto& t : s.tables)
      if (t.in_image) flow.add(tables.emplace_back(render_table(t.table)), t.title, placed);
    y = flow.newline();
    width = std::max(width, flow.width() + 2 * pad);
  }
  width = std::max(width, 760.0);
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
