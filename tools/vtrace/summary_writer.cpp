#include "tools/vtrace/summary_writer.hpp"

#include <cmath>
#include <cstdio>

#include "libcommon/human_units.hpp"
#include "libcommon/table.hpp"

namespace vtools::vtrace {

namespace {

std::string fixed(double v, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

/// Where a demangled name's parameter list starts: the first '(' outside template arguments that does not open
/// "(anonymous namespace)" (cutting at the first '(' left "ns::" of every kernel in an anonymous namespace); npos
/// when there is none.
std::size_t parameter_list(const std::string& name) {
  static constexpr std::string_view kAnonymous = "(anonymous namespace)";
  int angle = 0;
  for (std::size_t i = 0; i < name.size(); ++i) {
    if (name[i] == '<') {
      ++angle;
    } else if (name[i] == '>' && angle > 0) {
      --angle;
    } else if (name[i] == '(' && angle == 0) {
      if (name.compare(i, kAnonymous.size(), kAnonymous) != 0) return i;
      i += kAnonymous.size() - 1;
    }
  }
  return std::string::npos;
}

}  // namespace

constexpr std::size_t kMaxNameWidth = 80;
std::string table_kernel_name(const std::string& name) {
  std::string s = name;
  if (display_width(s) <= kMaxNameWidth) return s;
  if (auto paren = parameter_list(s); paren != std::string::npos && paren > 0) s.resize(paren);
  if (s.rfind("void ", 0) == 0) s.erase(0, 5);
  static constexpr std::string_view kAnonymousScope = "(anonymous namespace)::";
  for (std::size_t at; (at = s.find(kAnonymousScope)) != std::string::npos;) s.erase(at, kAnonymousScope.size());
  return cut_to_width(s, kMaxNameWidth);
}

OrderedJson summary_to_json(const TraceSummary& s) {
  OrderedJson j;
  j["summary_of"] = "vtools.trace";
  j["launches"] = s.launches;
  j["gpu_time_ns"] = s.gpu_time_ns;
  j["busy_ns"] = s.busy_ns;
  j["span_ns"] = s.span_ns;
  j["failed_launches"] = s.failed_launches;
  j["findings"] = s.findings;
  j["dropped_records"] = s.dropped_records;
  j["partial"] = s.partial;
  j["selection"] = OrderedJson{{"graph", s.graph ? OrderedJson(*s.graph) : OrderedJson(nullptr)},
                               {"kernel", s.kernel_regex.empty() ? OrderedJson(nullptr) : OrderedJson(s.kernel_regex)},
                               {"left_out_launches", s.left_out_launches}};
  j["kernels"] = OrderedJson::array();
  for (const auto& k : s.kernels) {
    j["kernels"].push_back(OrderedJson{{"name", k.name},
                                       {"calls", k.calls},
                                       {"total_ns", k.total_ns},
                                       {"mean_ns", k.mean_ns},
                                       {"median_ns", k.median_ns},
                                       {"min_ns", k.min_ns},
                                       {"max_ns", k.max_ns},
                                       {"std_ns", k.std_ns},
                                       {"share", k.share},
                                       {"exposed_ns", k.exposed_ns},
                                       {"exposed_share", k.exposed_share},
                                       {"grid", k.grid},
                                       {"grid_varies", k.grid_varies},
                                       {"block", k.block},
                                       {"registers_per_thread", k.registers_per_thread},
                                       {"shared_bytes", k.shared_bytes}});
    if (s.graph) {
      j["kernels"].back()["calls_per_launch"] = k.calls_per_launch;
      j["kernels"].back()["time_per_launch_ns"] = k.time_per_launch_ns;
      j["kernels"].back()["exposed_per_launch_ns"] = k.exposed_per_launch_ns;
    }
  }
  j["graphs"] = OrderedJson::array();
  for (const auto& g : s.graphs)
    j["graphs"].push_back(OrderedJson{{"id", g.id},
                                      {"launches", g.launches},
                                      {"kernel_nodes", g.kernel_nodes},
                                      {"kernels", g.kernels},
                                      {"gpu_time_ns", g.gpu_time_ns},
                                      {"gpu_time_per_launch_ns", g.gpu_time_per_launch_ns}});
  j["memcpys"] = OrderedJson::array();
  for (const auto& c : s.copies)
    j["memcpys"].push_back(OrderedJson{
        {"kind", c.kind}, {"count", c.count}, {"bytes", c.bytes}, {"total_ns", c.total_ns}, {"gb_per_s", c.gb_per_s}});
  j["nvtx_ranges"] = OrderedJson::array();
  for (const auto& r : s.nvtx)
    j["nvtx_ranges"].push_back(OrderedJson{{"name", r.name},
                                           {"domain", r.domain},
                                           {"count", r.count},
                                           {"total_ns", r.total_ns},
                                           {"mean_ns", r.mean_ns},
                                           {"median_ns", r.median_ns},
                                           {"min_ns", r.min_ns},
                                           {"max_ns", r.max_ns},
                                           {"kernels", r.kernels},
                                           {"kernel_ns", r.kernel_ns},
                                           {"gpu_span_ns", r.gpu_span_ns}});
  j["accesses"] = OrderedJson::array();
  for (const auto& a : s.accesses)
    j["accesses"].push_back(OrderedJson{{"kernel", a.kernel},
                                        {"launches", a.launches},
                                        {"blocks", a.blocks},
                                        {"loads", a.loads},
                                        {"stores", a.stores},
                                        {"atomics", a.atomics},
                                        {"bytes_loaded", a.bytes_loaded},
                                        {"bytes_stored", a.bytes_stored},
                                        {"sectors_per_request", a.sectors_per_request},
                                        {"findings", a.findings},
                                        {"tma", a.tma}});
  return j;
}

void write_summary_tables(const TraceSummary& s, bool markdown, std::ostream& out) {
  using A = Table::Align;
  const bool per_launch = s.graph && !s.graphs.empty();
  Table kernels;
  kernels.headers = {"kernel", "calls", "total", "mean", "median", "min", "max", "std", "share", "grid", "block",
                     "regs", "smem"};
  kernels.align.assign(kernels.headers.size(), A::kRight);
  kernels.align[0] = A::kLeft;
  // After the share: the exposed time (KernelStats::exposed_ns), or with a graph what one launch of it spends in each
  // kernel and exposes.
  constexpr int kAfterShare = 9;
  const std::vector<std::string> after_share =
      per_launch ? std::vector<std::string>{"calls/launch", "per launch", "exposed/launch"}
                 : std::vector<std::string>{"exposed"};
  kernels.headers.insert(kernels.headers.begin() + kAfterShare, after_share.begin(), after_share.end());
  kernels.align.insert(kernels.align.begin() + kAfterShare, after_share.size(), A::kRight);
  for (const auto& k : s.kernels) {
    std::vector<std::string> row = {table_kernel_name(k.name), format_count(k.calls), format_duration_ns(k.total_ns),
                                    format_duration_ns(k.mean_ns), format_duration_ns(k.median_ns),
                                    format_duration_ns(k.min_ns), format_duration_ns(k.max_ns),
                                    format_std_duration_ns(k.std_ns, k.calls), fixed(100 * k.share, 1) + "%",
                                    k.grid_varies ? "varies" : dim3_text(k.grid), dim3_text(k.block),
                                    std::to_string(k.registers_per_thread), format_bytes(k.shared_bytes)};
    if (per_launch) {
      const bool whole = k.calls_per_launch == std::floor(k.calls_per_launch);  // fractions: a partial launch
      row.insert(row.begin() + kAfterShare,
                 {fixed(k.calls_per_launch, whole ? 0 : 2), format_duration_ns(k.time_per_launch_ns),
                  format_duration_ns(k.exposed_per_launch_ns)});
    } else {
      row.insert(row.begin() + kAfterShare, format_duration_ns(k.exposed_ns));
    }
    kernels.add_row(row);
  }
  out << format_count(s.launches) << " kernel launches, " << format_duration_ns(s.gpu_time_ns) << " of GPU time, "
      << format_duration_ns(s.busy_ns) << " busy" << (s.partial ? " (partial trace)" : "");
  if (s.graph || !s.kernel_regex.empty()) {
    out << "; selected";
    if (s.graph) out << ": CUDA graph " << *s.graph;
    if (!s.kernel_regex.empty()) out << (s.graph ? ", " : ": ") << "kernels matching '" << s.kernel_regex << "'";
    out << " (" << format_count(s.left_out_launches) << " launches left out"
        << (s.graph ? "; copies, NVTX ranges and accesses are not tied to a graph and are not shown)" : ")");
  }
  out << "\n";
  if (per_launch) {
    const GraphStats& g = s.graphs.front();
    out << "graph " << g.id << ": " << format_count(g.launches) << " launches of " << format_count(g.kernel_nodes)
        << " kernel nodes, " << format_duration_ns(g.gpu_time_per_launch_ns) << " of kernel time and "
        << format_duration_ns(s.busy_ns / static_cast<double>(g.launches)) << " busy per launch\n";
  }
  out << "\n";
  write_table(kernels, markdown, out);
  if (!s.graphs.empty() && !s.graph) {
    Table graphs;
    graphs.headers = {"graph", "launches", "kernel nodes", "kernels", "GPU time", "per launch"};
    graphs.align = {A::kRight, A::kRight, A::kRight, A::kRight, A::kRight, A::kRight};
    for (const auto& g : s.graphs)
      graphs.add_row({std::to_string(g.id), format_count(g.launches), format_count(g.kernel_nodes),
                      format_count(g.kernels), format_duration_ns(g.gpu_time_ns),
                      format_duration_ns(g.gpu_time_per_launch_ns)});
    out << "\n";
    write_table(graphs, markdown, out);
  }
  if (!s.copies.empty()) {
    Table copies;
    copies.headers = {"memcpy", "count", "bytes", "time", "GB/s"};
    copies.align = {A::kLeft, A::kRight, A::kRight, A::kRight, A::kRight};
    for (const auto& c : s.copies)
      copies.add_row({c.kind, format_count(c.count), format_bytes(c.bytes), format_duration_ns(c.total_ns),
                      fixed(c.gb_per_s, 2)});
    out << "\n";
    write_table(copies, markdown, out);
  }
  if (!s.nvtx.empty()) {
    Table nvtx;
    nvtx.headers = {"NVTX range", "count", "total", "mean", "median", "min", "max", "kernels", "kernel time",
                    "GPU span"};
    nvtx.align = {A::kLeft,  A::kRight, A::kRight, A::kRight, A::kRight,
                  A::kRight, A::kRight, A::kRight, A::kRight, A::kRight};
    for (const auto& r : s.nvtx)
      nvtx.add_row({r.domain.empty() ? r.name : r.domain + ": " + r.name, format_count(r.count),
                    format_duration_ns(r.total_ns), format_duration_ns(r.mean_ns), format_duration_ns(r.median_ns),
                    format_duration_ns(r.min_ns), format_duration_ns(r.max_ns), format_count(r.kernels),
                    format_duration_ns(r.kernel_ns), format_duration_ns(r.gpu_span_ns)});
    out << "\n";
    write_table(nvtx, markdown, out);
  }
  if (!s.accesses.empty()) {
    Table acc;
    acc.headers = {"kernel", "launches", "blocks", "loaded", "stored", "sectors/req", "findings", "note"};
    acc.align = {A::kLeft, A::kRight, A::kRight, A::kRight, A::kRight, A::kRight, A::kRight, A::kLeft};
    for (const auto& a : s.accesses)
      acc.add_row({a.kernel, format_count(a.launches), format_count(a.blocks), format_bytes(a.bytes_loaded),
                   format_bytes(a.bytes_stored), fixed(a.sectors_per_request, 2), format_count(a.findings),
                   a.tma ? "TMA copies not visible" : ""});
    out << "\n";
    write_table(acc, markdown, out);
  }
  if (s.failed_launches || s.dropped_records)
    out << "\n" << format_count(s.failed_launches) << " failed launches, " << format_count(s.dropped_records)
        << " dropped records\n";
}

void write_summary_csv(const TraceSummary& s, std::ostream& out) {
  const bool per_launch = s.graph && !s.graphs.empty();
  Table t;
  t.headers = {"kernel", "calls", "total_ns", "mean_ns", "median_ns", "min_ns", "max_ns", "std_ns", "share",
               "exposed_ns", "exposed_share"};
  if (per_launch) {
    t.headers.insert(t.headers.end(), {"calls_per_launch", "time_per_launch_ns", "exposed_per_launch_ns"});
  }
  t.headers.insert(t.headers.end(), {"grid", "block", "registers_per_thread", "shared_bytes"});
  for (const auto& k : s.kernels) {
    std::vector<std::string> row = {k.name,
                                    std::to_string(k.calls),
                                    csv_number(k.total_ns),
                                    csv_number(k.mean_ns),
                                    csv_number(k.median_ns),
                                    csv_number(k.min_ns),
                                    csv_number(k.max_ns),
                                    k.calls > 1 ? csv_number(k.std_ns) : "",
                                    csv_number(k.share),
                                    csv_number(k.exposed_ns),
                                    csv_number(k.exposed_share)};
    if (per_launch) {
      row.insert(row.end(), {csv_number(k.calls_per_launch), csv_number(k.time_per_launch_ns),
                             csv_number(k.exposed_per_launch_ns)});
    }
    row.insert(row.end(), {k.grid_varies ? "varies" : dim3_text(k.grid), dim3_text(k.block),
                           std::to_string(k.registers_per_thread), std::to_string(k.shared_bytes)});
    t.add_row(std::move(row));
  }
  write_csv_table(t, out);
}

}  // namespace vtools::vtrace
