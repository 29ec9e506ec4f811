#include "formats/trace/trace_summary.hpp"

#include <algorithm>
#include <limits>
#include <map>
#include <set>

#include "libcommon/stats.hpp"
#include "libcommon/timeline.hpp"

namespace vtools::vtrace {

namespace {

std::vector<KernelStats> kernel_stats(const Trace& t, double& gpu_time_ns) {
  std::map<std::string, std::vector<const Kernel*>> by_name;
  for (const auto& k : t.kernels) by_name[k.name].push_back(&k);
  std::vector<KernelStats> out;
  gpu_time_ns = 0;
  for (const auto& [name, launches] : by_name) {
    std::vector<double> durations;
    KernelStats s;
    s.name = name;
    s.calls = launches.size();
    s.grid = launches.front()->grid;
    s.block = launches.front()->block;
    for (const Kernel* k : launches) {
      durations.push_back(static_cast<double>(k->end_ns - k->start_ns));
      if (k->grid != s.grid) s.grid_varies = true;
      s.registers_per_thread = std::max(s.registers_per_thread, k->registers_per_thread);
      s.shared_bytes = std::max(s.shared_bytes, k->static_shared_bytes + k->dynamic_shared_bytes);
    }
    stats::Summary d = stats::summarize(durations);
    s.mean_ns = d.mean;
    s.median_ns = d.median;
    s.std_ns = d.n > 1 ? d.std : 0;
    s.min_ns = d.min;
    s.max_ns = d.max;
    s.total_ns = d.mean * static_cast<double>(d.n);
    gpu_time_ns += s.total_ns;
    out.push_back(s);
  }
  for (auto& s : out) s.share = gpu_time_ns > 0 ? s.total_ns / gpu_time_ns : 0;
  return out;  // by name; summarize_trace puts them in KernelOrder::kTotal
}

/// Each kernel's exposed time (KernelStats::exposed_ns) by name, and their sum (the busy time).
std::map<std::string, double> exposed_by_name(const Trace& t, double& busy_ns) {
  const std::vector<double> exposed = launch_exposed_ns(t);
  std::map<std::string, double> by_name;
  busy_ns = 0;
  for (std::size_t i = 0; i < t.kernels.size(); ++i) {
    by_name[t.kernels[i].name] += exposed[i];
    busy_ns += exposed[i];
  }
  return by_name;
}

std::vector<CopyStats> copy_stats(const Trace& t) {
  std::map<std::string, CopyStats> by_kind;
  for (const auto& m : t.memcpys) {
    CopyStats& s = by_kind[m.kind];
    s.kind = m.kind;
    ++s.count;
    s.bytes += m.bytes;
    s.total_ns += static_cast<double>(m.end_ns - m.start_ns);
  }
  std::vector<CopyStats> out;
  for (auto& [kind, s] : by_kind) {
    s.gb_per_s = s.total_ns > 0 ? static_cast<double>(s.bytes) / s.total_ns : 0;
    out.push_back(s);
  }
  return out;
}

std::vector<NvtxStats> nvtx_stats(const Trace& t) {
  // Kernels per (process, thread) of their launch call, in launch order.
  std::map<std::pair<std::int64_t, std::uint32_t>, std::vector<const Kernel*>> launched;
  for (const Kernel& k : t.kernels)
    if (k.launch_ns) launched[{k.process_id, k.thread_id}].push_back(&k);
  for (auto& [thread, kernels] : launched) {
    std::stable_sort(kernels.begin(), kernels.end(),
                     [](const Kernel* a, const Kernel* b) { return *a->launch_ns < *b->launch_ns; });
  }
  struct Totals {
    std::vector<double> host_ns;
    NvtxStats gpu;  // kernels, kernel_ns, gpu_span_ns
  };
  std::map<std::pair<std::string, std::string>, Totals> by_name;  // (domain, name)
  for (const auto& r : t.nvtx_ranges) {
    if (r.mark || r.end_ns == 0) continue;
    Totals& totals = by_name[{r.domain, r.name}];
    totals.host_ns.push_back(static_cast<double>(r.end_ns - r.start_ns));
    const auto thread = launched.find({r.process_id, r.thread_id});
    if (thread == launched.end()) continue;
    const std::vector<const Kernel*>& kernels = thread->second;
    auto first = std::lower_bound(kernels.begin(), kernels.end(), r.start_ns,
                                  [](const Kernel* k, std::uint64_t ns) { return *k->launch_ns < ns; });
    std::uint64_t gpu_start = std::numeric_limits<std::uint64_t>::max(), gpu_end = 0;
    for (auto k = first; k != kernels.end() && *(*k)->launch_ns <= r.end_ns; ++k) {
      ++totals.gpu.kernels;
      totals.gpu.kernel_ns += static_cast<double>((*k)->end_ns - (*k)->start_ns);
      gpu_start = std::min(gpu_start, (*k)->start_ns);
      gpu_end = std::max(gpu_end, (*k)->end_ns);
    }
    if (gpu_end > 0) totals.gpu.gpu_span_ns += static_cast<double>(gpu_end - gpu_start);
  }
  std::vector<NvtxStats> out;
  for (auto& [key, totals] : by_name) {
    const std::vector<double>& ns = totals.host_ns;
    const stats::Summary s = stats::summarize(ns);
    out.push_back({key.second, key.first, ns.size(), s.mean * static_cast<double>(ns.size()), s.mean, s.median,
                   s.min, s.max, totals.gpu.kernels, totals.gpu.kernel_ns, totals.gpu.gpu_span_ns});
  }
  std::stable_sort(out.begin(), out.end(), [](const NvtxStats& a, const NvtxStats& b) { return a.total_ns > b.total_ns; });
  return out;
}

std::vector<AccessStats> access_stats(const Trace& t) {
  std::map<std::string, AccessStats> by_kernel;
  // A launch is (process, launch index): a merged trace of a job's ranks has every rank's launch 0 of a kernel.
  std::map<std::string, std::set<std::pair<std::int64_t, std::uint64_t>>> launches;
  std::map<std::string,
           std::set<std::tuple<std::int64_t, std::uint64_t, std::int64_t, std::int64_t, std::int64_t>>> blocks;
  std::map<std::string, double> weighted_sectors, requests;
  for (const auto& a : t.accesses) {
    AccessStats& s = by_kernel[a.kernel];
    s.kernel = a.kernel;
    launches[a.kernel].insert({a.process_id, a.launch});
    blocks[a.kernel].insert({a.process_id, a.launch, a.block[0], a.block[1], a.block[2]});
    s.loads += a.loads;
    s.stores += a.stores;
    s.atomics += a.atomics;
    s.bytes_loaded += a.bytes_loaded;
    s.bytes_stored += a.bytes_stored;
    // Weighted by the warp-level accesses the average was taken over: bulk copies are not among them.
    double n = static_cast<double>(a.loads + a.stores + a.atomics - std::min(a.bulk_copies, a.loads + a.stores));
    weighted_sectors[a.kernel] += a.sectors_per_request * n;
    requests[a.kernel] += n;
  }
  // Exact counts per kernel from finding_sites; documents from before them count the listed findings.
  for (const auto& f : t.finding_sites) {
    AccessStats& s = by_kernel[f.kernel];
    s.kernel = f.kernel;
    s.findings += f.count;
  }
  if (t.finding_sites.empty())
    for (const auto& f : t.findings) {
      AccessStats& s = by_kernel[f.kernel];
      s.kernel = f.kernel;
      ++s.findings;
    }
  for (const auto& name : t.tma_kernels) {
    AccessStats& s = by_kernel[name];
    s.kernel = name;
    s.tma = true;
  }
  std::vector<AccessStats> out;
  for (auto& [name, s] : by_kernel) {
    s.launches = launches[name].size();
    s.blocks = blocks[name].size();
    s.sectors_per_request = requests[name] > 0 ? weighted_sectors[name] / requests[name] : 0;
    out.push_back(s);
  }
  return out;
}

std::vector<GraphStats> graph_stats(const Trace& t) {
  std::map<std::uint32_t, GraphStats> by_id;
  std::map<std::uint32_t, std::map<std::uint64_t, std::uint64_t>> node_runs;
  for (const auto& k : t.kernels) {
    if (k.graph_id == 0) continue;
    GraphStats& g = by_id[k.graph_id];
    g.id = k.graph_id;
    ++g.kernels;
    g.gpu_time_ns += static_cast<double>(k.end_ns - k.start_ns);
    ++node_runs[k.graph_id][k.graph_node_id];
  }
  std::vector<GraphStats> out;
  for (auto& [id, g] : by_id) {
    g.kernel_nodes = node_runs[id].size();
    for (const auto& [node, runs] : node_runs[id]) g.launches = std::max(g.launches, runs);
    g.gpu_time_per_launch_ns = g.gpu_time_ns / static_cast<double>(g.launches);
    out.push_back(g);
  }
  return out;
}

}  // namespace

std::vector<double> launch_exposed_ns(const Trace& trace) {
  std::uint64_t origin = std::numeric_limits<std::uint64_t>::max();
  for (const auto& k : trace.kernels) origin = std::min(origin, k.start_ns);
  std::vector<TimeSpan> spans;  // in ns from the earliest start
  for (const auto& k : trace.kernels)
    spans.push_back({k.device_id, k.start_ns - origin, std::max(k.end_ns, k.start_ns) - origin});
  return exposed_times(spans);
}

std::optional<KernelOrder> kernel_order(const std::string& name) {
  if (name == "total") return KernelOrder::kTotal;
  if (name == "exposed") return KernelOrder::kExposed;
  if (name == "calls") return KernelOrder::kCalls;
  if (name == "name") return KernelOrder::kName;
  return std::nullopt;
}

void sort_kernels(TraceSummary& summary, KernelOrder order) {
  auto key = [order](const KernelStats& k) {
    switch (order) {
      case KernelOrder::kExposed: return k.exposed_ns;
      case KernelOrder::kCalls: return static_cast<double>(k.calls);
      default: return k.total_ns;
    }
  };
  std::stable_sort(summary.kernels.begin(), summary.kernels.end(), [&](const KernelStats& a, const KernelStats& b) {
    if (order == KernelOrder::kName) return a.name < b.name;
    if (key(a) != key(b)) return key(a) > key(b);
    if (a.total_ns != b.total_ns) return a.total_ns > b.total_ns;
    return a.name < b.name;
  });
}

TraceSummary summarize_trace(const Trace& t, std::optional<std::uint32_t> graph) {
  TraceSummary s;
  s.graph = graph;
  s.kernels = kernel_stats(t, s.gpu_time_ns);
  const std::map<std::string, double> exposed = exposed_by_name(t, s.busy_ns);
  for (auto& k : s.kernels) {
    k.exposed_ns = exposed.at(k.name);
    k.exposed_share = s.busy_ns > 0 ? k.exposed_ns / s.busy_ns : 0;
  }
  sort_kernels(s, KernelOrder::kTotal);
  s.graphs = graph_stats(t);
  if (s.graph && !s.graphs.empty()) {
    const auto launches = static_cast<double>(s.graphs.front().launches);
    for (auto& k : s.kernels) {
      k.calls_per_launch = static_cast<double>(k.calls) / launches;
      k.time_per_launch_ns = k.total_ns / launches;
      k.exposed_per_launch_ns = k.exposed_ns / launches;
    }
  }
  s.copies = copy_stats(t);
  s.accesses = access_stats(t);
  s.nvtx = nvtx_stats(t);
  s.launches = t.kernels.size();
  std::uint64_t first = std::numeric_limits<std::uint64_t>::max(), last = 0;
  auto span = [&](std::uint64_t a, std::uint64_t b) {
    first = std::min(first, a);
    last = std::max(last, b);
  };
  for (const auto& k : t.kernels) span(k.start_ns, k.end_ns);
  for (const auto& m : t.memcpys) span(m.start_ns, m.end_ns);
  for (const auto& m : t.memsets) span(m.start_ns, m.end_ns);
  s.span_ns = last >= first ? last - first : 0;
  s.failed_launches = t.failed_launches.size();
  s.findings = t.findings_in_all();  // every one, not just those listed
  s.dropped_records = t.dropped_records;
  s.partial = t.partial;
  return s;
}

}  // namespace vtools::vtrace
