// write_compare_table: the human view of a Comparison (compare.hpp), one row per config.
#include <cmath>
#include <cstdio>

#include "libcommon/human_units.hpp"
#include "libcommon/table.hpp"
#include "tools/vbench/compare.hpp"

namespace vtools::vbench {

namespace {
std::string fixed(double v, const char* fmt) {
  if (!std::isfinite(v)) return "-";
  char buf[64];
  std::snprintf(buf, sizeof buf, fmt, v);
  return buf;
}
}  // namespace

void write_compare_table(const Comparison& cmp, const std::string& format, std::ostream& out) {
  if (format == "csv") {  // raw numbers, one row per config in both; the geometric mean is the JSON's
    Table t;
    t.headers = {"config", "baseline_median_ms", "candidate_median_ms", "baseline_n", "candidate_n", "speedup",
                 "ci_low", "ci_high", "change_pct", "verdict", "regression", "differs", "ci_over",
                 "baseline_repetitions", "candidate_repetitions"};
    for (const auto& c : cmp.configs) {
      t.add_row({c.config, csv_number(c.baseline_median_ms), csv_number(c.candidate_median_ms),
                 std::to_string(c.baseline_n), std::to_string(c.candidate_n), csv_number(c.speedup),
                 csv_number(c.ci_low), csv_number(c.ci_high), csv_number(c.change_pct), c.verdict,
                 c.regression ? "true" : "false", c.differs, c.ci_over(),
                 std::to_string(c.baseline_repetition_medians.size()),
                 std::to_string(c.candidate_repetition_medians.size())});
    }
    write_csv_table(t, out);
    return;
  }
  using A = Table::Align;
  Table t;
  t.headers = {"config", cmp.baseline_backend.empty() ? "baseline" : "baseline: " + cmp.baseline_backend,
               cmp.candidate_backend.empty() ? "candidate" : "candidate: " + cmp.candidate_backend, "speedup",
               "95% CI", "change", "verdict"};
  t.align = {A::kLeft, A::kRight, A::kRight, A::kRight, A::kRight, A::kRight, A::kLeft};
  for (const auto& c : cmp.configs) {
    t.add_row({c.config,
               std::isfinite(c.baseline_median_ms) ? format_duration_ms(c.baseline_median_ms) : "-",
               std::isfinite(c.candidate_median_ms) ? format_duration_ms(c.candidate_median_ms) : "-",
               fixed(c.speedup, "%.3fx"),
               std::isfinite(c.ci_low) ? fixed(c.ci_low, "%.3f") + " .. " + fixed(c.ci_high, "%.3f") : "-",
               fixed(c.change_pct, "%+.1f%%"), c.verdict + (c.regression ? " (regression)" : "")});
  }
  if (format == "markdown") write_markdown_table(t, out);
  else write_text_table(t, out);
  // Names and values below come from the documents, as the table's cells do: escaped as write_text_table escapes
  // those (printable), so a crafted name cannot send control characters to the terminal.
  for (const auto& c : cmp.configs) {
    const std::string config = printable(c.config);
    if (!c.differs.empty()) out << config << ": the runs differ in " << printable(c.differs) << "\n";
    if (!c.baseline_repetition_medians.empty()) {
      out << config << ": 95% CI over the medians of " << c.baseline_repetition_medians.size() << " and "
          << c.candidate_repetition_medians.size() << " repetitions\n";
    }
    if (!c.baseline_forward.empty()) {
      out << config << ": prepare kept different forwards: baseline " << printable(c.baseline_forward)
          << "; candidate " << printable(c.candidate_forward) << "\n";
    }
  }
  if (cmp.geomean_n > 1) {
    out << "geomean speedup over " << cmp.geomean_n << " configs: " << fixed(cmp.geomean_speedup, "%.3fx") << "\n";
  }
  for (const auto& n : cmp.only_in_baseline) out << "only in baseline: " << printable(n) << "\n";
  for (const auto& n : cmp.only_in_candidate) out << "only in candidate: " << printable(n) << "\n";
}

}  // namespace vtools::vbench
