#include "tools/vrender/tracediff_page.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "formats/tracediff/tracediff_totals.hpp"
#include "libcommon/human_units.hpp"
#include "tools/vrender/chart_frame.hpp"
#include "tools/vrender/svg_markup.hpp"

namespace vtools::vrender {

namespace {

constexpr std::size_t kMaxTableRows = 50;

std::string percent(double pct) { return std::isfinite(pct) ? (pct >= 0 ? "+" : "") + num(pct, 1) + "%" : "–"; }

std::string count(std::uint64_t n) { return format_count_of(static_cast<double>(n)); }

std::string signed_duration(double ns) { return (ns < 0 ? "-" : "+") + format_duration_ns(std::fabs(ns)); }

/// A kernel's change of total time, whichever side it is on (added: all of its time; removed: minus all of it).
struct KernelChange {
  std::string name, kind;  // kind: "" (both sides), "added", "removed"
  double change_ns = 0;
  std::string detail;
};

/// "busy time: 1.2 ms → 1.3 ms (+8.3%)" for each total of the two sides.
void add_totals(const vtrace::TraceDiff& d, std::vector<Fact>& facts) {
  facts.push_back({"base", d.base_source});
  facts.push_back({"candidate", d.candidate_source});
  for (const vtrace::DiffTotalRow& row : vtrace::diff_total_rows(d)) {
    const bool ns = row.unit == vtrace::DiffTotalRow::Unit::kNanoseconds;
    facts.push_back({std::string(row.name), (ns ? format_duration_ns(row.base) : count(row.base_count)) + " → " +
                                                (ns ? format_duration_ns(row.candidate) : count(row.candidate_count)) +
                                                " (" + percent(row.change()) + ")"});
  }
}

/// From the base's GPU time to the candidate's: the kernels with the largest |change| as bars, the rest as one.
void add_waterfall(const vtrace::TraceDiff& d, std::vector<KernelChange> changes, Section& s) {
  const double b = d.base.gpu_time_ns, c = d.candidate.gpu_time_ns;
  std::stable_sort(changes.begin(), changes.end(), [](const KernelChange& x, const KernelChange& y) {
    return std::fabs(x.change_ns) > std::fabs(y.change_ns);
  });
  const bool small = std::max(b, c) < 1e6;  // label in µs below 1 ms
  const double per_unit = small ? 1e3 : 1e6;
  WaterfallChart chart{"GPU time: base to candidate, by kernel", {}, {"GPU time", small ? "µs" : "ms"}};
  chart.up_name = "slower", chart.down_name = "faster", chart.total_name = "GPU time";
  chart.steps.push_back({"base", b / per_unit, true, "base GPU time: " + format_duration_ns(b)});
  double others = 0, sum = 0;
  std::size_t n_others = 0;
  for (std::size_t i = 0; i < changes.size(); ++i) {
    const KernelChange& k = changes[i];
    sum += k.change_ns;
    if (i >= kWaterfallKernels) {
      others += k.change_ns, ++n_others;
      continue;
    }
    chart.steps.push_back({k.name, k.change_ns / per_unit, false,
                           k.name + (k.kind.empty() ? "" : " (" + k.kind + ")") + ": " + signed_duration(k.change_ns) +
                               (k.detail.empty() ? "" : ", " + k.detail)});
  }
  if (n_others > 0)
    chart.steps.push_back({std::to_string(n_others) + " others", others / per_unit, false,
                           std::to_string(n_others) + " other kernels: " + signed_duration(others)});
  chart.steps.push_back({"candidate", c / per_unit, true, "candidate GPU time: " + format_duration_ns(c)});
  s.figures.push_back({"", render_waterfall_chart(chart)});
  s.notes.push_back("One bar per kernel by the change of its total time (added kernels: all of their time, removed: "
                    "minus all of it), largest change first" +
                    std::string(n_others ? "; the " + std::to_string(n_others) + " smallest changes make one bar" : "") +
                    ". Red: slower, green: faster.");
  // The kernels' changes add up to the change of the GPU time when both come from the same kernels; say so if not.
  if (std::fabs(b + sum - c) > std::max(1.0, 1e-3 * std::max(b, c)))
    s.notes.push_back("The kernels' changes add up to " + signed_duration(sum) + " but the GPU time changed by " +
                      signed_duration(c - b) + ".");
}

/// A kernel row's name, with its launch shape where vtrace diff matched the name shape by shape.
template <class K>
std::string kernel_label(const K& k, std::size_t width) {
  return shorten(k.name, width) + (k.launch_shape.empty() ? "" : " [" + k.launch_shape + "]");
}

std::string interval(const stats::Interval& i) {
  return std::isfinite(i.low) && std::isfinite(i.high) ? "[" + num(i.low, 3) + ", " + num(i.high, 3) + "]" : "–";
}

/// Kernels on one side only, as a table; their time goes into the waterfall as a change.
void add_only(const std::vector<vtrace::KernelOnly>& items, const char* kind, const char* title, double sign,
              std::vector<KernelChange>& changes, Section& s) {
  PageTable t{title, {}, true};
  t.table.headers = {"kernel", "calls", "total", "median"};
  t.table.align = {Table::Align::kLeft, Table::Align::kRight, Table::Align::kRight, Table::Align::kRight};
  for (const vtrace::KernelOnly& k : items) {
    changes.push_back(
        {kernel_label(k, 200), kind, sign * k.total_ns, count(k.calls) + (k.calls == 1 ? " call" : " calls")});
    if (t.table.rows.size() < kMaxTableRows)
      t.table.add_row({kernel_label(k, 60), count(k.calls), format_duration_ns(k.total_ns),
                       format_duration_ns(k.median_ns)});
  }
  if (items.empty()) return;
  if (items.size() > kMaxTableRows)
    s.notes.push_back(std::string(title) + ": the table lists the first " + std::to_string(kMaxTableRows) + " of " +
                      std::to_string(items.size()) + ".");
  s.tables.push_back(std::move(t));
}

}  // namespace

Page tracediff_page(const vtrace::TraceDiff& d, std::string_view name) {
  Page page{"Trace diff", std::string(name), {}};

  Section head{"Base and candidate", {}, {}, {}, {}, {}};
  add_totals(d, head.facts);
  const bool has_threshold = d.threshold_pct >= 0;
  if (has_threshold) head.facts.push_back({"regression threshold", num(d.threshold_pct, 2) + "%"});
  if (d.replays) {
    const vtrace::ReplayDiff& r = *d.replays;
    head.facts.push_back({"graph replays", count(r.base_replays) + " (graph " + count(r.base_graph) + ") → " +
                                               count(r.candidate_replays) + " (graph " + count(r.candidate_graph) + ")"});
    head.facts.push_back({"median replay", format_duration_ns(r.base_median_ns) + " → " +
                                               format_duration_ns(r.candidate_median_ns) + " (" + percent(r.change_pct) +
                                               ", 95% CI " + interval(r.interval) + ", " + r.verdict +
                                               (r.regression ? ", regression" : "") + ")"});
  }

  Section kernels{"Kernels", {}, {}, {}, {}, {}};
  PageTable table{"Kernels on both sides (largest change of total time first)", {}, true};
  table.table.headers = {"kernel", "calls", "median base", "median candidate", "change", "95% CI of ratio",
                         "verdict", "total change", "code"};
  table.table.align = {Table::Align::kLeft,  Table::Align::kRight, Table::Align::kRight,
                       Table::Align::kRight, Table::Align::kRight, Table::Align::kRight,
                       Table::Align::kLeft,  Table::Align::kRight, Table::Align::kLeft};
  std::vector<KernelChange> changes;
  std::vector<std::string> regressed;
  std::size_t unknown_code = 0;
  const std::vector<vtrace::KernelDiff>& items = d.kernels;
  for (const vtrace::KernelDiff& k : items) {
    const std::string kname = kernel_label(k, 200);
    const std::string change = percent(k.change_pct);
    if (k.regression) regressed.push_back(kname);
    unknown_code += k.code == "unknown";
    changes.push_back({kname, "", k.total_change_ns, "median " + change + ", " + k.verdict});
    if (table.table.rows.size() < kMaxTableRows)
      table.table.add_row({kernel_label(k, 60),
                           k.base_calls == k.candidate_calls ? count(k.base_calls)
                                                             : count(k.base_calls) + " → " + count(k.candidate_calls),
                           format_duration_ns(k.base_median_ns), format_duration_ns(k.candidate_median_ns), change,
                           interval(k.interval), k.regression ? k.verdict + " (regression)" : k.verdict,
                           signed_duration(k.total_change_ns), k.code});
  }
  Section added{"Added and removed kernels", {}, {}, {}, {}, {}};
  add_only(d.added, "added", "Added (candidate only)", 1, changes, added);
  add_only(d.removed, "removed", "Removed (base only)", -1, changes, added);

  if (d.has_regression()) {
    std::string what;
    for (std::size_t i = 0; i < regressed.size() && i < 5; ++i) what += (i ? ", " : "") + shorten(regressed[i], 60);
    if (regressed.size() > 5) what += " and " + std::to_string(regressed.size() - 5) + " more";
    const bool busy = d.busy_regression;
    const bool replay_regressed = d.replays && d.replays->regression;
    head.notes.push_back(
        "Regression" + (has_threshold ? " beyond " + num(d.threshold_pct, 2) + "%" : std::string()) + ": " +
        (regressed.empty() ? "" : std::to_string(regressed.size()) + " kernel" + (regressed.size() == 1 ? "" : "s") +
                                      " slower with the 95% interval above 1, or 2x slower where too few launches give no "
                                      "interval (" + what + ")") +
        (busy ? std::string(regressed.empty() ? "" : "; ") + "the busy time grew (one run a side: no interval)" : "") +
        (replay_regressed ? std::string(regressed.empty() && !busy ? "" : "; ") +
                                "the graph replay is slower with the 95% interval above 1"
                          : "") +
        ". vtrace diff --fail-on-regression exits 1 on this.");
  }
  if (!items.empty() && unknown_code == items.size())
    head.notes.push_back("Code identity is unknown for every kernel: the traces carry no code hash, so a change may "
                         "come from the code or from the run (clocks, inputs, other work on the GPU).");

  Section chart{"Change of GPU time", {}, {}, {}, {}, {}};
  add_waterfall(d, changes, chart);
  if (items.empty()) kernels.notes.push_back("No kernel ran on both sides.");
  if (items.size() > kMaxTableRows)
    kernels.notes.push_back("The table lists the " + std::to_string(kMaxTableRows) + " kernels with the largest change of " +
                            std::to_string(items.size()) + ".");
  kernels.notes.push_back("Change: of the median (candidate / base - 1); the interval is of the ratio candidate / base, "
                          "so above 1 is slower. Verdicts need the interval to exclude 1.");
  kernels.tables.push_back(std::move(table));
  page.sections.push_back(std::move(head));
  page.sections.push_back(std::move(chart));
  page.sections.push_back(std::move(kernels));
  if (!added.tables.empty()) page.sections.push_back(std::move(added));
  return page;
}

}  // namespace vtools::vrender
