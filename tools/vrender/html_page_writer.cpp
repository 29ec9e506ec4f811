// write_html_page: the Page as one offline HTML file (see page_writers.hpp).
#include <algorithm>

#include "tools/vrender/chart_style.hpp"
#include "tools/vrender/page_writers.hpp"
#include "tools/vrender/svg_markup.hpp"

namespace vtools::vrender {

namespace {

constexpr const char* kPageCss = R"(:root{color-scheme:light dark;--fg:#1a1a1a;--bg:#ffffff;--muted:#666666;--card:#f5f5f5;--border:#dddddd}
@media (prefers-color-scheme: dark){:root{--fg:#e6e6e6;--bg:#161616;--muted:#a8a8a8;--card:#222222;--border:#3a3a3a}}
body{font-family:DejaVu Sans,Helvetica,Arial,sans-serif;margin:24px auto;max-width:1500px;padding:0 16px;color:var(--fg);background:var(--bg);font-size:14px;line-height:1.45}
h1{font-size:22px;margin:0 0 4px}
h2{font-size:18px;margin:28px 0 10px;border-bottom:1px solid var(--border);padding-bottom:4px}
.sub{color:var(--muted);margin:0 0 16px}
dl.facts{display:grid;grid-template-columns:max-content 1fr;gap:3px 16px;background:var(--card);padding:12px 16px;border-radius:6px;border:1px solid var(--border)}
dl.facts dt{color:var(--muted)}
dl.facts dd{margin:0;font-family:DejaVu Sans Mono,monospace;overflow-wrap:anywhere}
.figs{display:flex;flex-wrap:wrap;gap:16px;margin:12px 0}
figure{margin:0;border:1px solid var(--border);border-radius:6px;overflow:hidden;max-width:100%;min-width:0}
figure svg{display:block;width:100%;height:auto}
figcaption{padding:4px 10px;font-weight:bold}
table{border-collapse:collapse;margin:8px 0 16px;font-size:13px}
th,td{padding:4px 10px;border-bottom:1px solid var(--border);text-align:left}
td.num,th.num{text-align:right;font-variant-numeric:tabular-nums}
th{background:var(--card)}
caption{text-align:left;font-weight:bold;padding:4px 0}
.note{color:var(--muted);font-style:italic;margin:4px 0}
pre{background:var(--card);padding:8px;overflow:auto;max-height:400px}
footer{color:var(--muted);margin-top:32px;font-size:12px}
)";

// Wheel zooms, drag pans, double-click resets the viewBox of every svg.zoomable (timeline spans).
constexpr const char* kZoomScript = R"(document.querySelectorAll('svg.zoomable').forEach(function(s){
var vb=s.viewBox.baseVal,x0=vb.x,w0=vb.width,drag=null;
function clamp(x,w){return Math.max(x0,Math.min(x0+w0-w,x));}
s.addEventListener('wheel',function(e){e.preventDefault();var r=s.getBoundingClientRect(),f=(e.clientX-r.left)/r.width,c=vb.x+f*vb.width;
var w=Math.min(w0,Math.max(w0/10000,vb.width*(e.deltaY<0?0.8:1.25)));vb.x=clamp(c-f*w,w);vb.width=w;},{passive:false});
s.addEventListener('mousedown',function(e){drag=[e.clientX,vb.x];});
window.addEventListener('mouseup',function(){drag=null;});
s.addEventListener('mousemove',function(e){if(!drag)return;var r=s.getBoundingClientRect();vb.x=clamp(drag[1]-(e.clientX-drag[0])*vb.width/r.width,vb.width);});
s.addEventListener('dblclick',function(){vb.x=x0;vb.width=w0;});});
)";

void write_table(const PageTable& t, std::ostream& out) {
  auto num_col = [&](std::size_t c) { return c < t.table.align.size() && t.table.align[c] == Table::Align::kRight; };
  out << "<table>";
  if (!t.title.empty()) out << "<caption>" << xml_escape(t.title) << "</caption>";
  out << "<thead><tr>";
  for (std::size_t c = 0; c < t.table.headers.size(); ++c)
    out << (num_col(c) ? "<th class=\"num\">" : "<th>") << xml_escape(t.table.headers[c]) << "</th>";
  out << "</tr></thead>\n<tbody>\n";
  for (const auto& row : t.table.rows) {
    out << "<tr>";
    for (std::size_t c = 0; c < row.size(); ++c) out << (num_col(c) ? "<td class=\"num\">" : "<td>") << xml_escape(row[c]) << "</td>";
    out << "</tr>\n";
  }
  out << "</tbody></table>\n";
}

}  // namespace

void write_html_page(const Page& page, const std::string& generator, std::ostream& out) {
  out << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      << "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
      << "<meta name=\"color-scheme\" content=\"light dark\">\n"
      << "<meta name=\"generator\" content=\"" << xml_escape(generator) << "\">\n"
      << "<title>" << xml_escape(page.title) << "</title>\n<style>\n"
      << kPageCss << chart_css() << "</style>\n</head>\n<body>\n<header><h1>" << xml_escape(page.title) << "</h1>";
  if (!page.subtitle.empty()) out << "<p class=\"sub\">" << xml_escape(page.subtitle) << "</p>";
  out << "</header>\n";
  bool zoomable = false;
  for (const auto& s : page.sections) {
    out << "<section>\n";
    if (!s.heading.empty()) out << "<h2>" << xml_escape(s.heading) << "</h2>\n";
    if (!s.facts.empty()) {
      out << "<dl class=\"facts\">\n";
      for (const auto& f : s.facts) out << "<dt>" << xml_escape(f.key) << "</dt><dd>" << xml_escape(f.value) << "</dd>\n";
      out << "</dl>\n";
    }
    for (const auto& n : s.notes) out << "<p class=\"note\">" << xml_escape(n) << "</p>\n";
    if (std::any_of(s.figures.begin(), s.figures.end(), [](const Figure& f) { return f.in_html; })) {
      out << "<div class=\"figs\">\n";
      for (const auto& f : s.figures) {
        if (!f.in_html) continue;
        zoomable = zoomable || f.svg.markup.find("class=\"zoomable\"") != std::string::npos;
        // A figure may shrink to 3/4 of its drawn width (never grow past it), so two 720 px charts share a row of
        // a 1400 px window instead of stacking with the right half empty.
        if (f.svg.width > 0) {
          out << "<figure style=\"flex:1 1 " << num(0.75 * (f.svg.width + 2)) << "px;max-width:"
              << num(f.svg.width + 2) << "px\">";
        } else {
          out << "<figure>";
        }
        if (!f.title.empty()) out << "<figcaption>" << xml_escape(f.title) << "</figcaption>";
        out << "\n" << f.svg.markup << "</figure>\n";
      }
      out << "</div>\n";
    }
    for (const auto& t : s.tables) write_table(t, out);
    if (!s.preformatted.empty()) out << "<pre>" << xml_escape(s.preformatted) << "</pre>\n";
    out << "</section>\n";
  }
  out << "<footer>Rendered by " << xml_escape(generator) << ". Hover marks for details.</footer>\n";
  if (zoomable) out << "<script>\n" << kZoomScript << "</script>\n";
  out << "</body>\n</html>\n";
}

}  // namespace vtools::vrender
