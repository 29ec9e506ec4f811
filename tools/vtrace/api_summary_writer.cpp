#include "tools/vtrace/api_summary_writer.hpp"

#include <cstdio>

#include "libcommon/human_units.hpp"
#include "libcommon/table.hpp"

namespace vtools::vtrace {

namespace {

std::string duration(double ns) { return format_duration_ns(ns); }

std::string percent(double share) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f%%", 100.0 * share);
  return buf;
}

}  // namespace

OrderedJson api_summary_to_json(const ApiSummary& s) {
  OrderedJson j;
  j["summary_of"] = "vtools.trace api";
  j["recorded"] = s.recorded;
  j["calls"] = s.calls;
  j["total_ns"] = s.total_ns;
  j["functions"] = OrderedJson::array();
  for (const ApiFunction& f : s.functions)
    j["functions"].push_back({{"name", f.name},
                              {"calls", f.calls},
                              {"total_ns", f.total_ns},
                              {"share", f.share},
                              {"mean_ns", f.mean_ns},
                              {"median_ns", f.median_ns},
                              {"min_ns", f.min_ns},
                              {"max_ns", f.max_ns},
                              {"stddev_ns", f.stddev_ns}});
  j["queue_delay"] = {{"kernels", s.queue.kernels},
                      {"median_ns", s.queue.median_ns},
                      {"p90_ns", s.queue.p90_ns},
                      {"max_ns", s.queue.max_ns},
                      {"started_before_launch", s.queue.started_before_launch}};
  j["devices"] = OrderedJson::array();
  for (const DeviceIdle& d : s.devices)
    j["devices"].push_back({{"device_id", d.device_id},
                            {"name", d.name},
                            {"span_ns", d.span_ns},
                            {"busy_ns", d.busy_ns},
                            {"idle_ns", d.idle_ns},
                            {"idle_host_blocked_ns", d.idle_host_blocked_ns},
                            {"idle_other_ns", d.idle_ns - d.idle_host_blocked_ns}});
  return j;
}

void write_api_summary_tables(const ApiSummary& s, bool markdown, std::ostream& out) {
  if (!s.recorded) {
    out << "no blocking CUDA calls recorded: trace with `vtrace run --api`\n";
    return;
  }
  out << (markdown ? "## " : "") << "Blocking CUDA calls: " << s.calls << " calls, " << duration(static_cast<double>(s.total_ns))
      << " on host threads\n\n";
  Table t;
  t.headers = {"Time (%)", "Total", "Calls", "Avg", "Med", "Min", "Max", "StdDev", "Name"};
  t.align = std::vector<Table::Align>(8, Table::Align::kRight);
  for (const ApiFunction& f : s.functions)
    t.add_row({percent(f.share), duration(static_cast<double>(f.total_ns)), std::to_string(f.calls),
               duration(f.mean_ns), duration(f.median_ns), duration(static_cast<double>(f.min_ns)),
               duration(static_cast<double>(f.max_ns)), format_std_duration_ns(f.stddev_ns, f.calls), f.name});
  write_table(t, markdown, out);
  out << "\n" << (markdown ? "## " : "") << "Queue delay (kernel start - launch call): ";
  if (s.queue.kernels)
    out << s.queue.kernels << (s.queue.kernels == 1 ? " kernel, median " : " kernels, median ")
        << duration(s.queue.median_ns) << ", p90 " << duration(s.queue.p90_ns) << ", max " << duration(static_cast<double>(s.queue.max_ns)) << "\n";
  else if (!s.queue.started_before_launch)
    out << "no kernel has a recorded launch call\n";
  else
    out << "no kernel starts at or after its launch call\n";
  if (const std::uint64_t n = s.queue.started_before_launch) {
    out << "note: " << n
        << (n == 1 ? " kernel starts before its launch call" : " kernels start before their launch call")
        << " (the host and GPU clocks disagree) and " << (n == 1 ? "is" : "are") << " left out of the queue delay\n";
  }
  out << "\n" << (markdown ? "## " : "") << "GPU idle (between each device's first and last activity)\n\n";
  Table d;
  d.headers = {"Device", "Span", "Busy", "Idle", "Idle, host blocked", "Idle, other"};
  d.align = {Table::Align::kLeft, Table::Align::kRight, Table::Align::kRight, Table::Align::kRight,
             Table::Align::kRight, Table::Align::kRight};
  for (const DeviceIdle& x : s.devices) {
    auto part = [&](std::uint64_t ns) {
      return duration(static_cast<double>(ns)) + " (" +
             percent(x.span_ns ? static_cast<double>(ns) / static_cast<double>(x.span_ns) : 0) + ")";
    };
    d.add_row({std::to_string(x.device_id) + (x.name.empty() ? "" : ": " + x.name), duration(static_cast<double>(x.span_ns)),
               part(x.busy_ns), part(x.idle_ns), part(x.idle_host_blocked_ns), part(x.idle_ns - x.idle_host_blocked_ns)});
  }
  write_table(d, markdown, out);
}

}  // namespace vtools::vtrace
