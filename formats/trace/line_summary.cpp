#include "formats/trace/line_summary.hpp"

#include <algorithm>
#include <cstdio>
#include <map>
#include <tuple>

#include "libcommon/human_units.hpp"

namespace vtools::vtrace {

namespace {

std::uint64_t bytes_moved(const HotLine& h) { return h.bytes_loaded + h.bytes_stored; }
std::uint64_t accesses(const HotLine& h) { return h.loads + h.stores + h.atomics; }

void add(HotLine& into, const HotLine& h) {
  into.pcs += h.pcs;
  into.loads += h.loads;
  into.stores += h.stores;
  into.atomics += h.atomics;
  into.bytes_loaded += h.bytes_loaded;
  into.bytes_stored += h.bytes_stored;
  into.requests += h.requests;
  into.sectors += h.sectors;
  into.lanes += h.lanes;
  into.bulk_copies += h.bulk_copies;
  into.findings += h.findings;
}

std::string fixed(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f", v);
  return buf;
}

/// At most `width` columns, leading blanks dropped, cut with "..." (cut_to_width).
std::string cut(const std::string& text, std::size_t width) {
  const std::size_t first = text.find_first_not_of(" \t");
  return cut_to_width(first == std::string::npos ? "" : text.substr(first), width);
}

}  // namespace

LineSummary summarize_lines(const Trace& trace) {
  LineSummary s;
  s.dropped_requests = trace.hot_lines_dropped_requests;
  using Key = std::tuple<bool, std::string, std::uint32_t, std::string, std::uint64_t>;
  std::map<std::string, std::map<Key, HotLine>> kernels;
  for (const HotLine& h : trace.hot_lines) {
    const bool instruction = h.file.empty();
    const Key key{instruction, h.file, h.line, h.function, instruction ? h.pc_offset : 0};
    auto [it, fresh] = kernels[h.kernel].try_emplace(key, h);
    if (fresh) continue;
    HotLine& row = it->second;
    add(row, h);
    // Rows of one line from two documents' selections name the same PCs: the larger count, not the sum.
    row.pcs = std::max(row.pcs - h.pcs, h.pcs);
    row.pc_offset = std::min(row.pc_offset, h.pc_offset);
  }
  for (auto& [name, rows] : kernels) {
    KernelLines k;
    k.kernel = name;
    k.total.kernel = name;
    for (auto& [key, row] : rows) {
      add(k.total, row);
      k.lines.push_back(std::move(row));
    }
    std::stable_sort(k.lines.begin(), k.lines.end(), [](const HotLine& a, const HotLine& b) {
      return std::make_tuple(bytes_moved(a), accesses(a)) > std::make_tuple(bytes_moved(b), accesses(b));
    });
    s.kernels.push_back(std::move(k));
  }
  std::stable_sort(s.kernels.begin(), s.kernels.end(), [](const KernelLines& a, const KernelLines& b) {
    return bytes_moved(a.total) > bytes_moved(b.total);
  });
  return s;
}

std::string hot_line_place(const HotLine& h) {
  if (h.file.empty()) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "pc +0x%llx", static_cast<unsigned long long>(h.pc_offset));
    return buf;
  }
  const std::size_t slash = h.file.find_last_of('/');
  return (slash == std::string::npos ? h.file : h.file.substr(slash + 1)) + ":" + std::to_string(h.line);
}

Table kernel_lines_table(const KernelLines& k) {
  using Align = Table::Align;
  Table t;
  t.headers = {"line", "function", "pcs", "loads", "stores", "atomics", "loaded", "stored", "sectors/req",
               "lanes/req", "findings", "source"};
  t.align.assign(t.headers.size(), Align::kRight);
  t.align[0] = t.align[1] = t.align.back() = Align::kLeft;
  for (std::size_t i = 0; i < k.lines.size() && i < kLineTableRows; ++i) {
    const HotLine& h = k.lines[i];
    t.add_row({hot_line_place(h), cut(h.function, 40), format_count(h.pcs), format_count(h.loads),
               format_count(h.stores), format_count(h.atomics), format_bytes(h.bytes_loaded),
               format_bytes(h.bytes_stored), h.requests ? fixed(h.sectors_per_request()) : "-",
               h.requests ? fixed(h.active_lanes_per_request()) : "-", format_count(h.findings),
               cut(h.file.empty() ? h.sass : h.text, 60)});
  }
  return t;
}

}  // namespace vtools::vtrace
