#include "tools/vbench/bench_table.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <optional>

#include "libcommon/human_units.hpp"
#include "libcommon/table.hpp"

namespace vtools::vbench {

namespace {

/// "failed (timeout)" where an implementation's benchmark failed other than at the gate; else the status.
std::string status_text(const ConfigResult& r) {
  return r.failure_kind.empty() ? r.status : r.status + " (" + r.failure_kind + ")";
}
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

/// One row per benchmark with raw numbers (ms, tokens/s, FLOPs, bytes; empty where absent), for dataframes.
void write_bench_csv(const BenchRun& run, std::ostream& out) {
  Table t;
  t.headers = {"name",    "config",  "batch_size", "seq_len", "dtype",  "caches",  "backend",  "status",
               "median_ms", "mean_ms", "std_ms",   "min_ms",  "max_ms", "p5_ms",   "p95_ms",   "p99_ms",
               "samples", "tokens_per_s", "flops", "bytes", "floor_ms", "roofline_fraction", "kernels_per_forward",
               "rel_err", "max_abs_err", "top1_agreement", "repetitions", "repetition_min_median_ms",
               "repetition_max_median_ms"};
  for (const auto& r : run.results) {
    const bool timed = r.timing.n > 0;  // a document read back may keep its summary without samples
    const stats::Summary& s = r.timing;
    auto timing = [&](double v) { return timed ? csv_number(v) : std::string(); };
    // --repetitions: how many, and the range of their medians (the drift one timing's statistics cannot show).
    const std::vector<double> medians = repetition_medians(r.repetitions);
    const auto [lo, hi] = std::minmax_element(medians.begin(), medians.end());
    t.add_row({r.name, r.config.name, std::to_string(r.shape.batch), std::to_string(r.shape.seq),
               dtype_name(run.settings.dtype), cache_state_name(run.settings.caches), run.backend, status_text(r),
               timing(s.median), timing(s.mean), timing(s.std), timing(s.min), timing(s.max), timing(s.p5),
               timing(s.p95), timing(s.p99), std::to_string(r.timing.n), timing(r.tokens_per_s),
               csv_number(r.cost.flops), csv_number(r.cost.bytes),
               r.floor.floor_ms > 0 ? csv_number(r.floor.floor_ms) : "",
               timed && r.roofline_fraction > 0 ? csv_number(r.roofline_fraction) : "",
               std::to_string(r.kernels_per_forward), r.correctness ? csv_number(r.correctness->rel_err) : "",
               r.correctness ? csv_number(r.correctness->max_abs_err) : "",
               r.correctness ? csv_number(r.correctness->top1_agreement) : "",
               timed ? std::to_string(std::max<std::size_t>(1, medians.size())) : "",
               medians.empty() ? "" : csv_number(*lo), medians.empty() ? "" : csv_number(*hi)});
  }
  write_csv_table(t, out);
}

}  // namespace

void write_bench_table(const BenchRun& run, const std::string& format, std::ostream& out) {
  if (format == "csv") {
    write_bench_csv(run, out);
    return;
  }
  using A = Table::Align;
  Table t;
  // noise: the samples' relative standard deviation (nvbench's "Noise"), to tell a stable median from a lucky one.
  t.headers = {"config", "status", "median", "p95", "noise", "tokens/s", "floor", "of floor", "rel err", "top-1"};
  t.align = {A::kLeft,  A::kLeft,  A::kRight, A::kRight, A::kRight,
             A::kRight, A::kRight, A::kRight, A::kRight, A::kRight};
  for (const auto& r : run.results) {
    const bool timed = r.timing.n > 0;  // a document read back may keep its summary without samples
    t.add_row({r.name, status_text(r), timed ? format_duration_ms(r.timing.median) : "-",
               timed ? format_duration_ms(r.timing.p95) : "-",
               timed && r.timing.n > 1 && r.timing.mean > 0 ? fixed(100 * r.timing.std / r.timing.mean, "%.1f%%") : "-",
               timed ? format_si(r.tokens_per_s) : "-",
               r.floor.floor_ms > 0 ? format_duration_ms(r.floor.floor_ms) : "-",
               timed && r.roofline_fraction > 0 ? fixed(100 * r.roofline_fraction, "%.1f%%") : "-",
               r.correctness ? fixed(r.correctness->rel_err, "%.2e") : "-",
               r.correctness ? fixed(100 * r.correctness->top1_agreement, "%.0f%%") : "-"});
  }
  out << "vbench: " << run.backend << (run.device.name.empty() ? "" : " (" + run.device.name + ")") << ", "
      << dtype_name(run.settings.dtype);
  if (run.settings.shapes.size() == 1) {
    out << ", B=" << run.settings.shapes[0].batch << " T=" << run.settings.shapes[0].seq;
  }
  out << (run.settings.caches == CacheState::kCold ? ", cold caches" : "") << "\n";
  if (format == "markdown") write_markdown_table(t, out);
  else write_text_table(t, out);
  // Why an implementation's benchmark failed other than at the gate (vbench run --impl).
  for (const auto& r : run.results) {
    if (!r.failure.empty()) out << r.name << ": " << r.failure_kind << ": " << r.failure << "\n";
  }
  // A GPU held below its maximum clock while timed makes slower numbers than the code deserves: say so.
  for (const auto& r : run.results) {
    if (!r.clocks || (r.clocks->sm_mhz >= r.clocks->sm_max_mhz && r.clocks->limits.empty())) continue;
    out << r.name << ": SM clock " << r.clocks->sm_mhz << " of " << r.clocks->sm_max_mhz << " MHz while timed";
    for (std::size_t i = 0; i < r.clocks->limits.size(); ++i) out << (i ? ", " : " (") << r.clocks->limits[i];
    out << (r.clocks->limits.empty() ? "" : ")") << "\n";
  }
  // Faster than the floor: the peaks it comes from were measured low (cpu: on a busy machine, see the notes).
  for (const auto& r : run.results) {
    if (r.timing.n == 0 || !(r.roofline_fraction > 1)) continue;
    out << r.name << ": " << fixed(100 * r.roofline_fraction, "%.1f%%")
        << " of the floor: the peaks the floor comes from were measured low; the document's notes say how noisy\n";
  }
  // How far the repetitions' medians are apart: the drift between prepared forwards that one timing cannot show.
  for (const auto& r : run.results) {
    if (r.repetitions.size() < 2) continue;
    const std::vector<double> medians = repetition_medians(r.repetitions);
    const auto [lo, hi] = std::minmax_element(medians.begin(), medians.end());
    out << r.name << ": " << medians.size() << " repetitions, medians " << format_duration_ms(*lo) << " .. "
        << format_duration_ms(*hi) << " (spread " << fixed(100 * (*hi - *lo) / stats::median(medians), "%.1f%%")
        << ")\n";
  }
  // Which forward prepare kept, and how close the next one came: a small margin means another run may keep it.
  for (const auto& r : run.results) {
    if (!r.plan_search) continue;
    if (!r.plan_search->pinned_from.empty()) {
      out << r.name << ": ran the forward " << r.plan_search->pinned_from << " named (no search at prepare): "
          << r.plan_search->kept << "\n";
      continue;
    }
    out << r.name << ": kept the fastest of " << r.plan_search->timed.size() << " forwards timed at prepare";
    if (const std::optional<double> margin = runner_up_margin(*r.plan_search)) {
      out << " (next " << fixed(100 * *margin, "+%.1f%%") << ")";
    }
    out << ": " << r.plan_search->kept << "\n";
  }
}

}  // namespace vtools::vbench
