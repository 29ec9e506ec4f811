// layout_dot with libgvc: agmemread -> gvLayout("dot") -> gvRenderData("svg"), then the root element is rewritten
// so the graph nests inside pages (no XML prolog, size in px, class "vgraph").
#include <graphviz/cgraph.h>
#include <graphviz/gvc.h>

#include <cstdlib>
#include <memory>
#include <regex>
#include <string>

#include "libcommon/error.hpp"
#include "tools/vrender/graph_layout.hpp"
#include "tools/vrender/svg_markup.hpp"

namespace vtools::vrender {

namespace {

std::string g_messages;  // Graphviz reports errors through a global callback; layout is single-threaded.

int collect_message(char* text) {
  g_messages += text;
  return 0;
}

SourceLocation located(std::string_view name, const std::string& message) {
  std::smatch m;
  static const std::regex kLine("line ([0-9]+)");
  if (std::regex_search(message, m, kLine)) return {std::string(name), std::atoi(m[1].str().c_str()), 0};
  return {std::string(name), 0, 0};
}

std::string first_line(std::string s) {
  if (auto p = s.find('\n'); p != std::string::npos) s.resize(p);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\r')) s.pop_back();
  if (s.rfind("Error: ", 0) == 0 || s.rfind("error: ", 0) == 0) s = s.substr(7);
  return s;
}

}  // namespace

bool graph_layout_available() { return true; }

Svg layout_dot(std::string_view dot, std::string_view name) {
  g_messages.clear();
  agseterr(AGERR);
  agseterrf(collect_message);
  std::unique_ptr<GVC_t, int (*)(GVC_t*)> gvc(gvContext(), gvFreeContext);
  if (!gvc) throw Error(ExitCode::kUnavailable, "graphviz could not start (gvContext failed)");
  std::string text(dot);
  Agraph_t* graph = agmemread(text.c_str());
  if (!graph) {
    std::string msg = first_line(g_messages);
    throw Error(ExitCode::kDataError, "invalid DOT: " + (msg.empty() ? std::string("graphviz could not read the graph") : msg),
                located(name, g_messages));
  }
  std::unique_ptr<Agraph_t, int (*)(Agraph_t*)> owned(graph, agclose);
  if (gvLayout(gvc.get(), graph, "dot") != 0)
    throw Error(ExitCode::kDataError, "graphviz could not lay out the graph: " + first_line(g_messages), {std::string(name)});
  char* data = nullptr;
  unsigned int length = 0;
  int rc = gvRenderData(gvc.get(), graph, "svg", &data, &length);
  gvFreeLayout(gvc.get(), graph);
  if (rc != 0 || !data) throw Error(ExitCode::kUnavailable, "graphviz has no svg renderer (is the graphviz package installed?)");
  std::string svg(data, length);
  gvFreeRenderData(data);

  // Keep the viewBox, drop the prolog and the pt-sized root; 1 graph unit = 1 px.
  std::size_t open = svg.find("<svg");
  std::size_t close = open == std::string::npos ? open : svg.find('>', open);
  static const std::regex kViewBox("viewBox=\"([-0-9.]+) ([-0-9.]+) ([0-9.]+) ([0-9.]+)\"");
  std::smatch m;
  std::string head = close == std::string::npos ? "" : svg.substr(open, close - open);
  if (close == std::string::npos || !std::regex_search(head, m, kViewBox))
    throw Error(ExitCode::kInternal, "graphviz returned SVG without a viewBox");
  double w = std::stod(m[3].str()), h = std::stod(m[4].str());
  std::string body = svg.substr(close + 1);
  if (auto end = body.rfind("</svg>"); end != std::string::npos) body.resize(end);
  std::string out = "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"vgraph\" width=\"" + num(w) + "\" height=\"" + num(h) +
                    "\" viewBox=\"" + m[1].str() + " " + m[2].str() + " " + m[3].str() + " " + m[4].str() + "\">" + body +
                    "</svg>\n";
  // Graphviz's SVG carries comments with the graph name and version; drop them for stable bytes.
  static const std::regex kComment("<!--[\\s\\S]*?-->\\n?");
  out = std::regex_replace(out, kComment, "");
  return {out, w, h};
}

}  // namespace vtools::vrender
