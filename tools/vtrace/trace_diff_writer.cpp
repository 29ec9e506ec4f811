#include "tools/vtrace/trace_diff_writer.hpp"

#include <cmath>
#include <cstdio>

#include "formats/tracediff/tracediff_totals.hpp"
#include "libcommon/human_units.hpp"
#include "libcommon/table.hpp"
#include "tools/vtrace/summary_writer.hpp"

namespace vtools::vtrace {

namespace {

std::string percent(double pct) {
  if (!std::isfinite(pct)) return "-";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%+.1f%%", pct);
  return buf;
}

std::string ratio_interval(const stats::Interval& i) {
  if (!std::isfinite(i.low) || !std::isfinite(i.high)) return "-";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.3f-%.3f", i.low, i.high);
  return buf;
}

std::string signed_duration(double ns) { return (ns < 0 ? "-" : "+") + format_duration_ns(std::fabs(ns)); }

/// A kernel's name in a table, with its launch shape where it was matched shape by shape.
std::string kernel_cell(const std::string& name, const std::string& shape) {
  return table_kernel_name(name) + (shape.empty() ? "" : " [" + shape + "]");
}

}  // namespace

void write_trace_diff_tables(const TraceDiff& d, bool markdown, std::ostream& out) {
  Table totals;
  totals.headers = {"", "base", "candidate", "change"};
  totals.align = {Table::Align::kLeft, Table::Align::kRight, Table::Align::kRight, Table::Align::kRight};
  for (const DiffTotalRow& row : diff_total_rows(d)) {
    const bool ns = row.unit == DiffTotalRow::Unit::kNanoseconds;
    totals.add_row({std::string(row.name), ns ? format_duration_ns(row.base) : format_count(row.base_count),
                    ns ? format_duration_ns(row.candidate) : format_count(row.candidate_count), percent(row.change())});
  }
  if (d.replays) {
    const ReplayDiff& r = *d.replays;
    totals.add_row({"graph replays", format_count(r.base_replays), format_count(r.candidate_replays),
                    percent(change_pct(static_cast<double>(r.base_replays), static_cast<double>(r.candidate_replays)))});
    totals.add_row({"median replay", format_duration_ns(r.base_median_ns), format_duration_ns(r.candidate_median_ns),
                    percent(r.change_pct) + " (" + ratio_interval(r.interval) + ", " + r.verdict +
                        (r.regression ? ", regression" : "") + ")"});
  }
  out << "base: " << printable(d.base_source) << "\ncandidate: " << printable(d.candidate_source) << "\n\n";
  write_table(totals, markdown, out);

  Table kernels;
  kernels.headers = {"kernel", "calls", "median base", "median cand", "change", "95% CI of ratio", "verdict",
                     "total change", "code"};
  kernels.align = {Table::Align::kLeft,  Table::Align::kRight, Table::Align::kRight,
                   Table::Align::kRight, Table::Align::kRight, Table::Align::kRight,
                   Table::Align::kLeft,  Table::Align::kRight, Table::Align::kLeft};
  for (const KernelDiff& k : d.kernels)
    kernels.add_row({kernel_cell(k.name, k.launch_shape),
                     k.base_calls == k.candidate_calls
                         ? format_count(k.base_calls)
                         : format_count(k.base_calls) + " -> " + format_count(k.candidate_calls),
                     format_duration_ns(k.base_median_ns), format_duration_ns(k.candidate_median_ns),
                     percent(k.change_pct), ratio_interval(k.interval),
                     k.verdict + (k.regression ? " (regression)" : "") +
                         (k.likely_cause.empty() ? "" : ", " + k.likely_cause),
                     signed_duration(k.total_change_ns), k.code});
  out << "\n";
  write_table(kernels, markdown, out);
  for (const auto& [title, list] : {std::pair{"added (candidate only)", &d.added},
                                    std::pair{"removed (base only)", &d.removed}}) {
    if (list->empty()) continue;
    Table t;
    t.headers = {title, "calls", "total", "median"};
    t.align = {Table::Align::kLeft, Table::Align::kRight, Table::Align::kRight, Table::Align::kRight};
    for (const KernelOnly& k : *list)
      t.add_row({kernel_cell(k.name, k.launch_shape), format_count(k.calls), format_duration_ns(k.total_ns),
                 format_duration_ns(k.median_ns)});
    out << "\n";
    write_table(t, markdown, out);
  }
  if (d.threshold_pct >= 0)
    out << "\n" << (d.has_regression() ? "REGRESSION" : "no regression") << " beyond " << d.threshold_pct
        << "% (a kernel" << (d.replays ? " or the graph replay" : "")
        << " slower with a 95% interval above 1, or 2x slower without one"
        << (d.busy_regression ? ", or the busy time" : "")
        << ")\n";
}

void write_trace_diff_csv(const TraceDiff& d, std::ostream& out) {
  Table t;
  t.headers = {"kernel",          "status",          "base_calls",  "candidate_calls", "base_total_ns",
               "candidate_total_ns", "base_median_ns", "candidate_median_ns", "ratio",  "ci_low",
               "ci_high",         "change_pct",      "total_change_ns", "verdict",     "code",
               "likely_cause",    "launch_shape"};
  for (const KernelDiff& k : d.kernels)
    t.add_row({k.name, "both", std::to_string(k.base_calls), std::to_string(k.candidate_calls),
               csv_number(k.base_total_ns), csv_number(k.candidate_total_ns), csv_number(k.base_median_ns),
               csv_number(k.candidate_median_ns), csv_number(k.ratio), csv_number(k.interval.low),
               csv_number(k.interval.high), csv_number(k.change_pct), csv_number(k.total_change_ns), k.verdict,
               k.code, k.likely_cause, k.launch_shape});
  for (const KernelOnly& k : d.added)
    t.add_row({k.name, "added", "", std::to_string(k.calls), "", csv_number(k.total_ns), "", csv_number(k.median_ns),
               "", "", "", "", csv_number(k.total_ns), "", "unknown", "", k.launch_shape});
  for (const KernelOnly& k : d.removed)
    t.add_row({k.name, "removed", std::to_string(k.calls), "", csv_number(k.total_ns), "", csv_number(k.median_ns), "",
               "", "", "", "", csv_number(-k.total_ns), "", "unknown", "", k.launch_shape});
  write_csv_table(t, out);
}

}  // namespace vtools::vtrace
