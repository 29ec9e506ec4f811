#include "tools/vbench/bench_table.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <optional>

#include "libcommon/human_units.hpp"
#include "libcommon/table.hpp"

namespace vtools::vbench {

namespace {
std::string fixed(double v, const char* fmt) {
  char buf[64];
  std::snprintf(buf, sizeof buf, fmt, v);
  return buf;
}
/// How much slower the runner-up of a plan search was than the forward kept: from the playoff when there was one
/// (its medians are the ones the choice was made on), else from the first timing; nullopt with one forward timed.
std::optional<double> runner_up_margin(const PlanSearch& search) {
  std::vector<double> ms;
  for (const TimedPlan& p : search.playoff.empty() ? search.timed : search.playoff) {
    if (std::isfinite(p.median_ms)) ms.push_back(p.median_ms);
  }
  if (ms.size() < 2) return std::nullopt;
  std::partial_sort(ms.begin(), ms.begin() + 2, ms.end());
  return ms[0] > 0 ? std::optional<double>(ms[1] / ms[0] - 1) : std::nullopt;
}

}  // namespace

void write_bench_table(const BenchRun& run, const std::string& format, std::ostream& out) {
  using A = Table::Align;
  Table t;
  t.headers = {"config", "status", "median", "p95", "tokens/s", "floor", "of floor", "rel err", "top-1"};
  t.align = {A::kLeft, A::kLeft, A::kRight, A::kRight, A::kRight, A::kRight, A::kRight, A::kRight, A::kRight};
  for (const auto& r : run.results) {
    const bool timed = !r.samples_ms.empty();
    t.add_row({r.name, r.status, timed ? format_duration_ms(r.timing.median) : "-",
               timed ? format_duration_ms(r.timing.p95) : "-", timed ? format_si(r.tokens_per_s) : "-",
               r.floor.floor_ms > 0 ? format_duration_ms(r.floor.floor_ms) : "-",
               timed && r.roofline_fraction > 0 ? fixed(100 * r.roofline_fraction, "%.1f%%") : "-",
               r.correctness ? fixed(r.correctness->rel_err, "%.2e") : "-",
               r.correctness ? fixed(100 * r.correctness->top1_agreement, "%.0f%%") : "-"});
  }
  out << "vbench: " << run.backend << " (" << run.device.name << "), " << dtype_name(run.settings.dtype);
  if (run.settings.shapes.size() == 1) {
    out << ", B=" << run.settings.shapes[0].batch << " T=" << run.settings.shapes[0].seq;
  }
  out << (run.settings.caches == CacheState::kCold ? ", cold caches" : "") << "\n";
  if (format == "markdown") write_markdown_table(t, out);
  else write_text_table(t, out);
  // A GPU held below its maximum clock while timed makes slower numbers than the code deserves: say so.
  for (const auto& r : run.results) {
    if (!r.clocks || (r.clocks->sm_mhz >= r.clocks->sm_max_mhz && r.clocks->limits.empty())) continue;
    out << r.name << ": SM clock " << r.clocks->sm_mhz << " of " << r.clocks->sm_max_mhz << " MHz while timed";
    for (std::size_t i = 0; i < r.clocks->limits.size(); ++i) out << (i ? ", " : " (") << r.clocks->limits[i];
    out << (r.clocks->limits.empty() ? "" : ")") << "\n";
  }
  // Which forward prepare kept, and how close the next one came: a small margin means another run may keep it.
  for (const auto& r : run.results) {
    if (!r.plan_search) continue;
    out << r.name << ": kept the fastest of " << r.plan_search->timed.size() << " forwards timed at prepare";
    if (const std::optional<double> margin = runner_up_margin(*r.plan_search)) {
      out << " (next " << fixed(100 * *margin, "+%.1f%%") << ")";
    }
    out << ": " << r.plan_search->kept << "\n";
  }
}

}  // namespace vtools::vbench
