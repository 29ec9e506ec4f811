// layout_dot with libgvc: agread (from memory, IDs in creation order) -> gvLayout("dot") -> gvRenderData("svg"), then the root element is rewritten
// so the graph nests inside pages (no XML prolog, size in px, class "vgraph"). The nesting is checked first
// (dot_nesting) and Graphviz runs in a child process under a time limit (layout_deadline).
#include <graphviz/cgraph.h>
#include <graphviz/gvc.h>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <memory>
#include <regex>
#include <string>

#include "libcommon/error.hpp"
#include "tools/vrender/dot_nesting.hpp"
#include "tools/vrender/graph_layout.hpp"
#include "tools/vrender/layout_deadline.hpp"
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
  if (s.rfind("dot: ", 0) == 0) s = s.substr(5);  // the input name given to agsetfile
  return s;
}

// Object IDs in creation order. Graphviz's default ID discipline uses the address of each name string as its ID, and
// subgraphs (clusters) are ordered by ID, so their order in the SVG would depend on malloc: not deterministic.
struct IdState {
  std::map<std::string, IDTYPE> ids;
  std::map<IDTYPE, std::string> names;
  IDTYPE next_named = 0, next_anonymous = 1;  // named IDs even, anonymous odd, as in Graphviz's default
};

void* id_open(Agraph_t*, Agdisc_t*) { return new IdState; }

long id_map(void* state, int, char* str, IDTYPE* id, int create) {
  auto* s = static_cast<IdState*>(state);
  if (!str) {
    *id = s->next_anonymous;
    s->next_anonymous += 2;
    return 1;
  }
  if (auto it = s->ids.find(str); it != s->ids.end()) {
    *id = it->second;
    return 1;
  }
  if (!create) return 0;
  s->next_named += 2;
  *id = s->next_named;
  s->ids[str] = *id;
  s->names[*id] = str;
  return 1;
}

long id_alloc(void* state, int, IDTYPE id) {
  auto* s = static_cast<IdState*>(state);
  if (id % 2 == 0) return 0;  // only anonymous IDs may be requested
  s->next_anonymous = std::max(s->next_anonymous, id + 2);
  return 1;
}

void id_free(void* state, int, IDTYPE id) {
  auto* s = static_cast<IdState*>(state);
  if (auto it = s->names.find(id); it != s->names.end()) {
    s->ids.erase(it->second);
    s->names.erase(it);
  }
}

char* id_print(void* state, int, IDTYPE id) {
  auto* s = static_cast<IdState*>(state);
  auto it = s->names.find(id);
  return it == s->names.end() ? nullptr : const_cast<char*>(it->second.c_str());
}

void id_close(void* state) { delete static_cast<IdState*>(state); }

void id_register(void*, int, void*) {}

Agiddisc_t g_id_disc = {id_open, id_map, id_alloc, id_free, id_print, id_close, id_register};

// Reads DOT text from memory line by line (as Graphviz's own agmemread does).
struct MemoryChannel {
  std::string_view text;
  std::size_t pos = 0;
};

int memory_read(void* chan, char* buf, int bufsize) {
  auto* c = static_cast<MemoryChannel*>(chan);
  if (bufsize <= 0 || c->pos >= c->text.size()) return 0;
  int n = 0;
  while (n < bufsize && c->pos < c->text.size()) {
    char ch = c->text[c->pos++];
    buf[n++] = ch;
    if (ch == '\n') break;
  }
  return n;
}

// Graphviz's own SVG of `dot`; runs in the layout child (layout_deadline), so its global state starts afresh for
// every graph.
std::string graphviz_svg(std::string_view dot, std::string_view name) {
  g_messages.clear();
  agseterr(AGERR);
  agseterrf(collect_message);
  // One context per process, as Graphviz recommends. Each layout child starts from the parent's untouched Graphviz
  // state, so the same input gives the same bytes however many graphs a run lays out.
  static std::unique_ptr<GVC_t, int (*)(GVC_t*)> gvc(gvContext(), gvFreeContext);
  if (!gvc) throw Error(ExitCode::kUnavailable, "graphviz could not start (gvContext failed)");
  std::string text(dot);
  Agiodisc_t io = {memory_read, AgIoDisc.putstr, AgIoDisc.flush};
  Agdisc_t disc = {&AgMemDisc, &g_id_disc, &io};
  MemoryChannel channel{text, 0};
  static char kInputName[] = "dot";
  agsetfile(kInputName);  // resets the lexer's line counter, which is global and would run on from the previous graph
  agreseterrors();
  Agraph_t* graph = agread(&channel, &disc);
  std::unique_ptr<Agraph_t, int (*)(Agraph_t*)> owned(graph, agclose);
  // A parser that gives up part-way (its stack exhausted by a long edge chain) still returns the graph read so far: an
  // error reported while reading means the text was refused, whatever agread returns.
  if (!graph || agerrors() >= AGERR) {
    std::string msg = first_line(g_messages);
    throw Error(ExitCode::kDataError, "invalid DOT: " + (msg.empty() ? std::string("graphviz could not read the graph") : msg),
                located(name, g_messages));
  }
  if (gvLayout(gvc.get(), graph, "dot") != 0)
    throw Error(ExitCode::kDataError, "graphviz could not lay out the graph: " + first_line(g_messages), {std::string(name)});
  char* data = nullptr;
  unsigned int length = 0;
  int rc = gvRenderData(gvc.get(), graph, "svg", &data, &length);
  gvFreeLayout(gvc.get(), graph);
  if (rc != 0 || !data) throw Error(ExitCode::kUnavailable, "graphviz has no svg renderer (is the graphviz package installed?)");
  std::string svg(data, length);
  gvFreeRenderData(data);
  return svg;
}

}  // namespace

bool graph_layout_available() { return true; }

Svg layout_dot(std::string_view dot, std::string_view name) {
  check_dot_nesting(dot, name);
  const std::string svg = run_with_deadline([&] { return graphviz_svg(dot, name); }, max_layout_seconds(), name);

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
