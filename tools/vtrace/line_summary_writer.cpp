#include "tools/vtrace/line_summary_writer.hpp"

#include <cstdio>

#include "libcommon/human_units.hpp"
#include "libcommon/table.hpp"
#include "tools/vtrace/summary_writer.hpp"

namespace vtools::vtrace {

namespace {

OrderedJson counts_json(const HotLine& h) {
  return OrderedJson{{"pcs", h.pcs},
                     {"loads", h.loads},
                     {"stores", h.stores},
                     {"atomics", h.atomics},
                     {"bytes_loaded", h.bytes_loaded},
                     {"bytes_stored", h.bytes_stored},
                     {"requests", h.requests},
                     {"sectors", h.sectors},
                     {"lanes", h.lanes},
                     {"bulk_copies", h.bulk_copies},
                     {"sectors_per_request", h.sectors_per_request()},
                     {"active_lanes_per_request", h.active_lanes_per_request()},
                     {"findings", h.findings}};
}

}  // namespace

OrderedJson line_summary_to_json(const LineSummary& s) {
  OrderedJson j;
  j["summary_of"] = "vtools.trace";
  j["by"] = "line";
  j["dropped_requests"] = s.dropped_requests;
  j["kernels"] = OrderedJson::array();
  for (const KernelLines& k : s.kernels) {
    OrderedJson kernel{{"kernel", k.kernel}};
    kernel.update(counts_json(k.total));
    kernel["lines"] = OrderedJson::array();
    for (const HotLine& h : k.lines) {
      OrderedJson row{{"file", h.file.empty() ? OrderedJson(nullptr) : OrderedJson(h.file)},
                      {"line", h.file.empty() ? OrderedJson(nullptr) : OrderedJson(h.line)},
                      {"function", h.function},
                      {"pc_offset", h.pc_offset}};
      row.update(counts_json(h));
      row["text"] = h.text;
      row["sass"] = h.sass;
      row["note"] = h.note;
      kernel["lines"].push_back(std::move(row));
    }
    j["kernels"].push_back(std::move(kernel));
  }
  return j;
}

void write_line_summary_tables(const LineSummary& s, bool markdown, std::ostream& out) {
  std::size_t rows = 0;
  for (const KernelLines& k : s.kernels) rows += k.lines.size();
  out << s.kernels.size() << (s.kernels.size() == 1 ? " kernel, " : " kernels, ") << rows
      << (rows == 1 ? " line" : " lines") << " with global accesses";
  if (s.dropped_requests)
    out << "; " << format_count(s.dropped_requests) << " warp requests at PCs past their launch's PC table not shown";
  out << "\n";
  if (s.kernels.empty())
    out << "(no hot lines: not an access-mode trace, or one made with VTRACE_ACCESS_PCS=0 or before hot lines)\n";
  for (const KernelLines& k : s.kernels) {
    out << "\n" << (markdown ? "### " : "") << table_kernel_name(k.kernel) << ": " << format_count(k.total.requests)
        << " warp requests, " << format_bytes(k.total.bytes_loaded) << " loaded, " << format_bytes(k.total.bytes_stored)
        << " stored, " << format_count(k.total.findings) << " out-of-bounds";
    if (k.lines.size() > kLineTableRows) out << " (the " << kLineTableRows << " hottest of " << k.lines.size() << " rows)";
    out << "\n" << (markdown ? "\n" : "");
    write_table(kernel_lines_table(k), markdown, out);
  }
}

void write_line_summary_csv(const LineSummary& s, std::ostream& out) {
  Table t;
  t.headers = {"kernel",   "file",    "line",       "function",     "pc_offset", "pcs",
               "loads",    "stores",  "atomics",    "bytes_loaded", "bytes_stored", "requests",
               "sectors",  "lanes",   "bulk_copies", "sectors_per_request", "active_lanes_per_request",
               "findings", "text",    "sass"};
  for (const KernelLines& k : s.kernels)
    for (const HotLine& h : k.lines)
      t.add_row({k.kernel, h.file, h.file.empty() ? "" : std::to_string(h.line), h.function,
                 std::to_string(h.pc_offset), std::to_string(h.pcs), std::to_string(h.loads),
                 std::to_string(h.stores), std::to_string(h.atomics), std::to_string(h.bytes_loaded),
                 std::to_string(h.bytes_stored), std::to_string(h.requests), std::to_string(h.sectors),
                 std::to_string(h.lanes), std::to_string(h.bulk_copies), csv_number(h.sectors_per_request()),
                 csv_number(h.active_lanes_per_request()), std::to_string(h.findings), h.text, h.sass});
  write_csv_table(t, out);
}

}  // namespace vtools::vtrace
