#include "tools/vtrace/trace_selection.hpp"

#include <algorithm>
#include <cctype>
#include <iterator>
#include <limits>
#include <set>

#include "libcommon/error.hpp"
#include "tools/vtrace/kernel_filter.hpp"

namespace vtools::vtrace {

std::optional<std::uint32_t> selected_graph(const Trace& t, const TraceSelection& selection,
                                            const std::string& source) {
  const std::string& spec = selection.graph;
  if (spec.empty()) return std::nullopt;
  std::set<std::uint32_t> ids;
  const Kernel* last = nullptr;
  for (const auto& k : t.kernels) {
    if (k.graph_id == 0) continue;
    ids.insert(k.graph_id);
    if (last == nullptr || k.start_ns >= last->start_ns) last = &k;
  }
  if (spec == "last") {
    if (last == nullptr) throw Error(ExitCode::kUsage, source + ": no kernel was launched from a CUDA graph");
    return last->graph_id;
  }
  // Graph ids are 32-bit (CUPTI's): up to 10 digits, checked against the range before the cast.
  const bool digits = spec.size() <= 10 &&
                      std::all_of(spec.begin(), spec.end(), [](unsigned char c) { return std::isdigit(c) != 0; });
  if (!digits || std::stoull(spec) > std::numeric_limits<std::uint32_t>::max()) {
    throw Error(ExitCode::kUsage, "--graph: expected a graph id or 'last', got '" + spec + "'");
  }
  const auto id = static_cast<std::uint32_t>(std::stoull(spec));
  if (ids.count(id) == 0) {
    std::string held;
    for (std::uint32_t g : ids) held += (held.empty() ? "" : ", ") + std::to_string(g);
    throw Error(ExitCode::kUsage, source + ": no kernel was launched from CUDA graph " + spec +
                                      (held.empty() ? " (no graph launches at all)" : " (graphs: " + held + ")"));
  }
  return id;
}

Trace select_kernels(const Trace& t, const TraceSelection& selection, std::optional<std::uint32_t> graph) {
  const KernelFilter filter(selection.kernel_regex);
  Trace kept;
  kept.run = t.run;
  kept.devices = t.devices;
  kept.allocations = t.allocations;
  kept.failed_launches = t.failed_launches;
  kept.partial = t.partial;
  kept.dropped_records = t.dropped_records;
  kept.filtered_kernels = t.filtered_kernels;
  std::set<std::string> names;
  for (const auto& k : t.kernels) {
    if ((graph && k.graph_id != *graph) || !filter.keeps(k.name, k.mangled_name)) continue;
    kept.kernels.push_back(k);
    names.insert(k.name);
  }
  if (graph) return kept;
  kept.memcpys = t.memcpys;
  kept.memsets = t.memsets;
  kept.nvtx_ranges = t.nvtx_ranges;  // host-side context for the kernels kept; not tied to any graph
  auto named = [&](const std::string& kernel) { return names.count(kernel) != 0; };
  std::copy_if(t.accesses.begin(), t.accesses.end(), std::back_inserter(kept.accesses),
               [&](const Access& a) { return named(a.kernel); });
  std::copy_if(t.findings.begin(), t.findings.end(), std::back_inserter(kept.findings),
               [&](const Finding& f) { return named(f.kernel); });
  std::copy_if(t.tma_kernels.begin(), t.tma_kernels.end(), std::back_inserter(kept.tma_kernels), named);
  std::copy_if(t.hot_lines.begin(), t.hot_lines.end(), std::back_inserter(kept.hot_lines),
               [&](const HotLine& h) { return named(h.kernel); });
  kept.hot_lines_dropped_requests = t.hot_lines_dropped_requests;
  return kept;
}

TraceSummary summarize_trace(const Trace& trace, const TraceSelection& selection, const std::string& source) {
  const std::optional<std::uint32_t> graph = selected_graph(trace, selection, source);
  if (selection.everything()) return summarize_trace(trace);
  TraceSummary s = summarize_trace(select_kernels(trace, selection, graph), graph);
  s.kernel_regex = selection.kernel_regex;
  s.left_out_launches = trace.kernels.size() - s.launches;
  return s;
}

}  // namespace vtools::vtrace
