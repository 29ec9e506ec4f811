#include "tools/vbench/bench_table.hpp"

#include <cstdio>

#include "libcommon/human_units.hpp"
#include "libcommon/table.hpp"

namespace vtools::vbench {

namespace {
std::string fixed(double v, const char* fmt) {
  char buf[64];
  std::snprintf(buf, sizeof buf, fmt, v);
  return buf;
}
}  // namespace

void write_bench_table(const BenchRun& run, const std::string& format, std::ostream& out) {
  using A = Table::Align;
  Table t;
  t.headers = {"config", "status", "median", "p95", "tokens/s", "floor", "of floor", "rel err", "top-1"};
  t.align = {A::kLeft, A::kLeft, A::kRight, A::kRight, A::kRight, A::kRight, A::kRight, A::kRight, A::kRight};
  for (const auto& r : run.results) {
    const bool timed = !r.samples_ms.empty();
    t.add_row({r.config.name, r.status, timed ? format_duration_ms(r.timing.median) : "-",
               timed ? format_duration_ms(r.timing.p95) : "-", timed ? format_si(r.tokens_per_s) : "-",
               r.floor.floor_ms > 0 ? format_duration_ms(r.floor.floor_ms) : "-",
               timed && r.roofline_fraction > 0 ? fixed(100 * r.roofline_fraction, "%.1f%%") : "-",
               r.correctness ? fixed(r.correctness->rel_err, "%.2e") : "-",
               r.correctness ? fixed(100 * r.correctness->top1_agreement, "%.0f%%") : "-"});
  }
  out << "vbench: " << run.backend << " (" << run.device.name << "), " << dtype_name(run.settings.dtype) << ", B="
      << run.settings.batch << " T=" << run.settings.seq
      << (run.settings.caches == CacheState::kCold ? ", cold caches" : "") << "\n";
  if (format == "markdown") write_markdown_table(t, out);
  else write_text_table(t, out);
  // A GPU held below its maximum clock while timed makes slower numbers than the code deserves: say so.
  for (const auto& r : run.results) {
    if (!r.clocks || (r.clocks->sm_mhz >= r.clocks->sm_max_mhz && r.clocks->limits.empty())) continue;
    out << r.config.name << ": SM clock " << r.clocks->sm_mhz << " of " << r.clocks->sm_max_mhz << " MHz while timed";
    for (std::size_t i = 0; i < r.clocks->limits.size(); ++i) out << (i ? ", " : " (") << r.clocks->limits[i];
    out << (r.clocks->limits.empty() ? "" : ")") << "\n";
  }
}

}  // namespace vtools::vbench
