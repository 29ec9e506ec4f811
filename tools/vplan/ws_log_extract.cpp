#include "tools/vplan/ws_log_extract.hpp"

#include <array>

#include "libcommon/error.hpp"

namespace vtools::vplan {

namespace {

struct Marker {
  std::string_view open, close, kind;
};
constexpr std::array<Marker, 3> kMarkers = {{
    {"=== SMEM Buffer Liveness Graph ===", "=== End SMEM Buffer Liveness Graph ===", "smem_liveness"},
    {"=== TMEM Buffer Liveness Graph ===", "=== End TMEM Buffer Liveness Graph ===", "tmem_liveness"},
    {"=== Combined Key Ops + Channel Graph (DOT format) ===", "=== End Combined Graph ===", "combined_graph"},
}};

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

}  // namespace

std::vector<ExtractedGraph> extract_ws_graphs(std::string_view text, std::string_view name) {
  std::vector<std::string_view> lines;
  for (std::size_t pos = 0; pos <= text.size();) {
    std::size_t nl = text.find('\n', pos);
    if (nl == std::string_view::npos) nl = text.size();
    lines.push_back(text.substr(pos, nl - pos));
    pos = nl + 1;
  }
  std::vector<ExtractedGraph> out;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    std::string_view line = trim(lines[i]);
    const Marker* m = nullptr;
    for (const auto& cand : kMarkers)
      if (line.find(cand.open) != std::string_view::npos) m = &cand;
    if (!m) continue;
    ExtractedGraph g;
    g.kind = std::string(m->kind);
    g.index = static_cast<int>(out.size());
    g.line = static_cast<int>(i) + 1;
    std::size_t j = i + 1;
    bool in_graph = false;
    for (; j < lines.size(); ++j) {
      std::string_view l = trim(lines[j]);
      if (l.find(m->close) != std::string_view::npos) break;
      if (!in_graph && l.substr(0, 7) == "digraph") in_graph = true, g.dot_line = static_cast<int>(j) + 1;
      if (in_graph) g.dot += std::string(lines[j]) + "\n";
    }
    if (j >= lines.size())
      throw Error(ExitCode::kDataError,
                  "expected '" + std::string(m->close) + "' to close the graph, got end of file",
                  SourceLocation{std::string(name), g.line, 1});
    if (!in_graph)
      throw Error(ExitCode::kDataError, "expected a digraph between the markers, got none",
                  SourceLocation{std::string(name), g.line, 1});
    out.push_back(std::move(g));
    i = j;
  }
  return out;
}

}  // namespace vtools::vplan
