#include "tools/vrender/compare_page.hpp"

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "formats/bench/compare_reader.hpp"
#include "tools/vrender/svg_markup.hpp"
#include "tools/vrender/sweep_lines.hpp"

namespace vtools::vrender {

namespace {

std::string ms(double v) { return std::isfinite(v) ? num(v, v < 1 ? 4 : 3) : "–"; }

// The fields of baseline/candidate (and of their metadata) as facts: source file, GPU, timestamp, ...
void add_side_facts(const vbench::CompareSide& side, const std::string& label, std::vector<Fact>& facts) {
  for (const vbench::CompareSideField& field : side.fields) {
    const std::string value = std::visit(
        [](const auto& v) -> std::string {
          using T = std::decay_t<decltype(v)>;
          if constexpr (std::is_same_v<T, std::string>) return v;
          else if constexpr (std::is_same_v<T, bool>) return v ? "true" : "false";
          else if constexpr (std::is_same_v<T, double>) return num(v, 4);
          else return std::to_string(v);
        },
        field.value);
    if (!value.empty()) facts.push_back({label + " " + field.key, value});
  }
}

/// For a comparison of sweeps: the speedup against B, and against T, one line per config and value of the other
/// axis (where a line moves along the axis), with the line at 1.
void add_sweep_speedups(const std::vector<std::pair<std::string, double>>& speedups, Section& s) {
  for (const bool by_batch : {true, false}) {
    std::vector<SweepPoint> points;
    for (const auto& [key, speedup] : speedups) {
      const std::optional<SweepKey> k = parse_sweep_key(key);
      if (!k || !std::isfinite(speedup)) continue;
      const std::string line = k->config + (by_batch ? " T=" + num(k->seq, 0) : " B=" + num(k->batch, 0));
      const double x = by_batch ? k->batch : k->seq;
      points.push_back({k->config, k->batch, k->seq, speedup,
                        line + (by_batch ? ", B=" : ", T=") + num(x, 0) + ": " + num(speedup, 3) + "×"});
    }
    XYChart chart = sweep_chart(std::string("Speedup vs ") + (by_batch ? "batch size B" : "sequence length T"),
                                sweep_series(points, by_batch), by_batch, {"speedup", "×"});
    chart.ref_lines = {{1.0, "no change"}};
    if (!chart.series.empty()) s.figures.push_back({"", render_xy_chart(chart)});
  }
}

/// A median bar, with a whisker over the repetitions' medians where there are some.
void add_bar(BarSeries& bars, double median_ms, const std::vector<double>& repetitions) {
  bars.values.push_back(median_ms);
  bars.low.push_back(repetitions.empty() ? kNoValue : *std::min_element(repetitions.begin(), repetitions.end()));
  bars.high.push_back(repetitions.empty() ? kNoValue : *std::max_element(repetitions.begin(), repetitions.end()));
}

/// Each repetition's median against its index, a line per config and side: drift across prepared forwards (a
/// trend, one outlier) that the CI's width alone does not show.
void add_repetition_chart(const std::vector<std::pair<std::string, std::vector<double>>>& lines, Section& s) {
  XYChart chart{"Median of each repetition", {}, {"repetition", "", false}, {"median latency", "ms"}, {}, true, {},
                720, 300};
  for (const auto& [name, medians] : lines) {
    XYSeries series{name, {}, {}, {}};
    for (std::size_t i = 0; i < medians.size(); ++i) {
      series.x.push_back(static_cast<double>(i));  // an index into x_labels: whole repetitions on the axis
      while (chart.x_labels.size() <= i) chart.x_labels.push_back(std::to_string(chart.x_labels.size() + 1));
      series.y.push_back(medians[i]);
      series.tooltips.push_back(name + ", repetition " + std::to_string(i + 1) + ": " + ms(medians[i]) + " ms");
    }
    chart.series.push_back(std::move(series));
  }
  if (!chart.series.empty()) s.figures.push_back({"", render_xy_chart(chart)});
}

}  // namespace

Page compare_page(const OrderedJson& json, std::string_view name) {
  const vbench::CompareDocument doc = vbench::read_compare_document(json, name);
  Page page{"Benchmark comparison", std::string(name), {}};
  // Two implementations (vbench run --impl, or two backends): the title names them, as the seed's AS-IS vs TO-BE.
  const std::string& base_impl = doc.baseline.backend;
  const std::string& cand_impl = doc.candidate.backend;
  if (!base_impl.empty() && !cand_impl.empty() && base_impl != cand_impl)
    page.title += ": " + base_impl + " vs " + cand_impl;
  Section sides{"Baseline and candidate", {}, {}, {}, {}, {}};
  add_side_facts(doc.baseline, "baseline", sides.facts);
  add_side_facts(doc.candidate, "candidate", sides.facts);
  page.sections.push_back(std::move(sides));

  Section res{"Results", {}, {}, {}, {}, {}};
  BarChart medians{"Median latency: baseline vs candidate", {}, {}, {"median latency", "ms"}, {}};
  BarSeries base{"baseline", {}, {}, {}, {}}, cand{"candidate", {}, {}, {}, {}};
  BarChart speed{"Speedup (baseline / candidate) with 95% CI", {}, {{"speedup", {}, {}, {}, {}}}, {"speedup", "×"}, {{1.0, "no change"}}};
  PageTable verdicts{"Verdicts", {}, true};
  verdicts.table.headers = {"config", "baseline median ms", "candidate median ms", "speedup", "95% CI", "verdict"};
  verdicts.table.align = {Table::Align::kLeft, Table::Align::kRight, Table::Align::kRight, Table::Align::kRight,
                          Table::Align::kRight, Table::Align::kLeft};
  int faster = 0, slower = 0, same = 0;
  std::vector<std::pair<std::string, double>> speedups;
  std::vector<std::pair<std::string, std::vector<double>>> repetition_lines;
  for (const vbench::CompareRow& c : doc.comparisons) {
    const std::string config = c.config.empty() ? "?" : c.config;
    const double b = c.baseline_median_ms, k = c.candidate_median_ms;
    const double sp = !std::isnan(c.speedup) ? c.speedup : std::isfinite(b) && k > 0 ? b / k : kNoValue;
    const double lo = c.ci_low, hi = c.ci_high;
    const std::string& verdict = c.verdict;
    if (!c.differs.empty()) res.notes.push_back(config + ": the two runs differ in " + c.differs + ".");
    // With repetitions the median bars get whiskers from the lowest to the highest repetition's median.
    const std::vector<double>& base_reps = c.baseline_repetition_medians_ms;
    const std::vector<double>& cand_reps = c.candidate_repetition_medians_ms;
    if (c.ci_over == "repetitions") {
      res.notes.push_back(config + ": 95% CI over the medians of " + std::to_string(c.baseline_repetitions) + " and " +
                          std::to_string(c.candidate_repetitions) + " repetitions" +
                          (base_reps.empty() ? "" : "; the median bars' whiskers span them") + ".");
    }
    if (!base_reps.empty()) repetition_lines.push_back({config + " baseline", base_reps});
    if (!cand_reps.empty()) repetition_lines.push_back({config + " candidate", cand_reps});
    if (c.has_kept_forwards) {
      auto named = [](const std::string& s) { return s.empty() ? std::string("?") : s; };
      res.notes.push_back(config + ": prepare kept different forwards: baseline " + named(c.baseline_forward) +
                          "; candidate " + named(c.candidate_forward) + ".");
    }
    faster += verdict == "faster", slower += verdict == "slower", same += verdict == "same";
    speedups.push_back({config, sp});
    medians.categories.push_back(config);
    speed.categories.push_back(config);
    add_bar(base, b, base_reps);
    add_bar(cand, k, cand_reps);
    auto& s = speed.series[0];
    s.values.push_back(sp);
    s.low.push_back(lo);
    s.high.push_back(hi);
    s.tooltips.push_back(config + ": " + num(sp, 3) + "× [" + num(lo, 3) + ", " + num(hi, 3) + "] " + verdict);
    verdicts.table.add_row({config, ms(b), ms(k), std::isfinite(sp) ? num(sp, 3) + "×" : "–",
                            std::isfinite(lo) ? "[" + num(lo, 3) + ", " + num(hi, 3) + "]" : "–", verdict});
  }
  if (medians.categories.empty()) {
    res.notes.push_back("The document has no comparisons.");
  } else {
    res.notes.push_back(std::to_string(faster) + " faster, " + std::to_string(slower) + " slower, " + std::to_string(same) +
                        " unchanged (speedup > 1 means the candidate is faster; a verdict needs the CI to exclude 1).");
    const double geomean = doc.geomean_speedup;
    const double geomean_n = static_cast<double>(doc.geomean_configs);
    if (std::isfinite(geomean) && geomean_n > 1) {
      res.notes.push_back("Geometric mean of the speedups over " + num(geomean_n, 0) + " configs: " + num(geomean, 3) +
                          "×.");
    }
    medians.series = {std::move(base), std::move(cand)};
    res.figures.push_back({"", render_bar_chart(medians)});
    res.figures.push_back({"", render_bar_chart(speed)});
    add_sweep_speedups(speedups, res);
    add_repetition_chart(repetition_lines, res);
  }
  for (const bool baseline : {true, false}) {
    std::string names;
    for (const std::string& n : baseline ? doc.only_in_baseline : doc.only_in_candidate)
      names += (names.empty() ? "" : ", ") + n;
    if (!names.empty()) res.notes.push_back(std::string("Only in the ") + (baseline ? "baseline" : "candidate") + ": " + names + ".");
  }
  res.tables.push_back(std::move(verdicts));
  page.sections.push_back(std::move(res));
  return page;
}

}  // namespace vtools::vrender
