#include "tools/vrender/tracediff_page.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "libcommon/human_units.hpp"
#include "tools/vrender/chart_frame.hpp"
#include "tools/vrender/json_view.hpp"
#include "tools/vrender/svg_markup.hpp"

namespace vtools::vrender {

namespace {

constexpr std::size_t kMaxTableRows = 50;

std::string percent(double pct) { return std::isfinite(pct) ? (pct >= 0 ? "+" : "") + num(pct, 1) + "%" : "–"; }

std::string change_pct(double base, double candidate) {
  return percent(base > 0 ? (candidate / base - 1) * 100 : kNoValue);
}

std::string signed_duration(double ns) { return (ns < 0 ? "-" : "+") + format_duration_ns(std::fabs(ns)); }

/// A kernel's change of total time, whichever side it is on (added: all of its time; removed: minus all of it).
struct KernelChange {
  std::string name, kind;  // kind: "" (both sides), "added", "removed"
  double change_ns = 0;
  std::string detail;
};

/// "busy time: 1.2 ms → 1.3 ms (+8.3%)" for each total of the two sides.
void add_totals(const JsonView& base, const JsonView& cand, std::vector<Fact>& facts) {
  facts.push_back({"base", base.required_string("file")});
  facts.push_back({"candidate", cand.required_string("file")});
  auto time = [&](const char* label, const char* key) {
    const double b = base.required_number(key), c = cand.required_number(key);
    facts.push_back({label, format_duration_ns(b) + " → " + format_duration_ns(c) + " (" + change_pct(b, c) + ")"});
  };
  auto count = [&](const char* label, const char* key) {
    const double b = base.required_number(key), c = cand.required_number(key);
    facts.push_back({label, format_count_of(b) + " → " + format_count_of(c) + " (" + change_pct(b, c) + ")"});
  };
  time("busy time", "busy_ns");
  time("GPU time", "gpu_time_ns");
  count("launches", "launches");
  count("kernels", "kernels");
  count("copies", "copies");
  time("copy time", "copy_ns");
}

/// From the base's GPU time to the candidate's: the kernels with the largest |change| as bars, the rest as one.
void add_waterfall(const JsonView& base, const JsonView& cand, std::vector<KernelChange> changes, Section& s) {
  const double b = base.required_number("gpu_time_ns"), c = cand.required_number("gpu_time_ns");
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
std::string kernel_label(const JsonView& k, std::size_t width) {
  const std::string shape = k.string_or("launch_shape", "");
  return shorten(k.required_string("name"), width) + (shape.empty() ? "" : " [" + shape + "]");
}

std::string interval(const JsonView& k) {
  const double lo = k.number_or("ci_low", kNoValue), hi = k.number_or("ci_high", kNoValue);
  return std::isfinite(lo) && std::isfinite(hi) ? "[" + num(lo, 3) + ", " + num(hi, 3) + "]" : "–";
}

/// Kernels on one side only, as a table; their time goes into the waterfall as a change.
void add_only(const JsonView& root, const char* key, const char* title, double sign, std::vector<KernelChange>& changes,
              Section& s) {
  PageTable t{title, {}, true};
  t.table.headers = {"kernel", "calls", "total", "median"};
  t.table.align = {Table::Align::kLeft, Table::Align::kRight, Table::Align::kRight, Table::Align::kRight};
  const std::vector<JsonView> items = root.required_items(key);
  for (const JsonView& k : items) {
    const std::string name = kernel_label(k, 200);
    const double calls = k.required_number("calls"), total = k.required_number("total_ns");
    const double median = k.required_number("median_ns");
    changes.push_back({name, key, sign * total, format_count_of(calls) + " calls"});
    if (t.table.rows.size() < kMaxTableRows)
      t.table.add_row({kernel_label(k, 60), format_count_of(calls), format_duration_ns(total), format_duration_ns(median)});
  }
  if (items.empty()) return;
  if (items.size() > kMaxTableRows)
    s.notes.push_back(std::string(title) + ": the table lists the first " + std::to_string(kMaxTableRows) + " of " +
                      std::to_string(items.size()) + ".");
  s.tables.push_back(std::move(t));
}

}  // namespace

Page tracediff_page(const OrderedJson& doc, std::string_view name) {
  JsonView root(&doc, std::string(name), "");
  Page page{"Trace diff", std::string(name), {}};
  const JsonView base = root.required_object("base"), cand = root.required_object("candidate");

  Section head{"Base and candidate", {}, {}, {}, {}, {}};
  add_totals(base, cand, head.facts);
  const double threshold = root.number_or("threshold_pct", kNoValue);
  if (std::isfinite(threshold)) head.facts.push_back({"regression threshold", num(threshold, 2) + "%"});
  const JsonView replays = root.at("replays");
  if (replays.present() && replays.raw()->is_object()) {
    const JsonView rb = replays.required_object("base"), rc = replays.required_object("candidate");
    const double b = rb.required_number("median_ns"), c = rc.required_number("median_ns");
    head.facts.push_back({"graph replays", format_count_of(rb.required_number("replays")) + " (graph " +
                                               format_count_of(rb.required_number("graph_id")) + ") → " +
                                               format_count_of(rc.required_number("replays")) + " (graph " +
                                               format_count_of(rc.required_number("graph_id")) + ")"});
    head.facts.push_back({"median replay", format_duration_ns(b) + " → " + format_duration_ns(c) + " (" +
                                               percent(replays.number_or("change_pct", kNoValue)) + ", 95% CI " +
                                               interval(replays) + ", " + replays.required_string("verdict") +
                                               (replays.required_boolean("regression") ? ", regression" : "") + ")"});
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
  const std::vector<JsonView> items = root.required_items("kernels");
  for (const JsonView& k : items) {
    const std::string kname = kernel_label(k, 200);
    const JsonView kb = k.required_object("base"), kc = k.required_object("candidate");
    const double b_calls = kb.required_number("calls"), c_calls = kc.required_number("calls");
    const double b_median = kb.required_number("median_ns"), c_median = kc.required_number("median_ns");
    const double total_change = k.required_number("total_change_ns");
    const std::string verdict = k.required_string("verdict"), code = k.required_string("code");
    const bool regression = k.required_boolean("regression");
    const std::string change = percent(k.number_or("change_pct", kNoValue));
    if (regression) regressed.push_back(kname);
    unknown_code += code == "unknown";
    changes.push_back({kname, "", total_change, "median " + change + ", " + verdict});
    if (table.table.rows.size() < kMaxTableRows)
      table.table.add_row(
          {kernel_label(k, 60),
           b_calls == c_calls ? format_count_of(b_calls) : format_count_of(b_calls) + " → " + format_count_of(c_calls),
           format_duration_ns(b_median), format_duration_ns(c_median), change, interval(k),
           regression ? verdict + " (regression)" : verdict, signed_duration(total_change), code});
  }
  Section added{"Added and removed kernels", {}, {}, {}, {}, {}};
  add_only(root, "added", "Added (candidate only)", 1, changes, added);
  add_only(root, "removed", "Removed (base only)", -1, changes, added);

  if (root.required_boolean("regression")) {
    std::string what;
    for (std::size_t i = 0; i < regressed.size() && i < 5; ++i) what += (i ? ", " : "") + shorten(regressed[i], 60);
    if (regressed.size() > 5) what += " and " + std::to_string(regressed.size() - 5) + " more";
    const bool busy = root.boolean("busy_regression").value_or(false);
    const bool replay_regressed = replays.present() && replays.raw()->is_object() &&
                                  replays.boolean("regression").value_or(false);
    head.notes.push_back(
        "Regression" + (std::isfinite(threshold) ? " beyond " + num(threshold, 2) + "%" : std::string()) + ": " +
        (regressed.empty() ? "" : std::to_string(regressed.size()) + " kernel" + (regressed.size() == 1 ? "" : "s") +
                                      " slower with the 95% interval above 1 (" + what + ")") +
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
  add_waterfall(base, cand, changes, chart);
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
