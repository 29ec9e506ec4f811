#include "tools/vrender/bench_page.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iterator>
#include <optional>
#include <string_view>

#include "formats/bench/bench_reader.hpp"
#include "formats/bench/benchmark_key.hpp"
#include "libcommon/human_units.hpp"
#include "libcommon/stats.hpp"
#include "tools/vrender/chart_frame.hpp"
#include "tools/vrender/svg_markup.hpp"
#include "tools/vrender/sweep_lines.hpp"

namespace vtools::vrender {

namespace {

constexpr double kNaN = kNoValue;

std::string ms(double v) { return std::isfinite(v) ? num(v, v < 1 ? 4 : v < 100 ? 3 : 1) : "–"; }

/// A size or shape (layers, B, T); "–" where the document has none (num would print NaN as "0").
std::string whole(double v) { return std::isfinite(v) ? num(v, 0) : "–"; }

}  // namespace

BenchRun read_bench(const OrderedJson& doc, std::string_view name) {
  return bench_run_of(vbench::read_bench_document(doc, name), name);
}

BenchRun bench_run_of(const vbench::BenchDocument& doc, std::string_view name) {
  const vbench::BenchMetadata& meta = doc.metadata;
  BenchRun run;
  run.source = std::string(name);
  run.timestamp = !meta.timestamp.empty() ? meta.timestamp : doc.created;
  // Seed field names first, then what vbench adds (device_name on CPU runs, command_line, run settings). Numbers as
  // num(v, 3); a GPU run's threads (0) are not named.
  auto count = [](const std::optional<int>& v) { return v ? num(*v, 3) : std::string(); };
  const std::pair<const char*, std::string> facts[] = {
      {"GPU", meta.gpu_name},
      {"device", meta.device_name},
      {"compute capability", meta.compute_capability},
      {"GPU index", count(meta.gpu_index)},
      {"PCI bus", meta.pci_bus_id},
      {"CUDA", meta.cuda_version},
      {"driver", meta.driver_version},
      {"BLAS", meta.blas_version},
      {"date", meta.timestamp},
      {"command", meta.command},
      {"command", meta.command_line},
      {"host", meta.host},
      {"backend", meta.backend},
      {"dtype", meta.dtype},
      {"batch", count(meta.batch_size)},
      {"sequence", count(meta.seq_len)},
      {"caches", meta.caches},
      {"iterations", count(meta.iters)},
      {"threads", meta.threads.value_or(0) == 0 ? std::string() : count(meta.threads)},
      {"vtools", meta.vtools_version}};
  for (const auto& fact : facts) {  // not a structured binding: clang 14 (the fuzz build) cannot capture one
    const auto& label = fact.first;
    const auto& text = fact.second;
    bool duplicate = std::any_of(run.system.begin(), run.system.end(),
                                 [&](const Fact& f) { return f.key == label || (f.key == "GPU" && f.value == text); });
    if (!text.empty() && !duplicate) run.system.push_back({label, text});
  }
  run.notes = meta.notes;
  run.backend = meta.backend;
  run.device = !meta.gpu_name.empty() ? meta.gpu_name : meta.device_name;
  run.dtype = meta.dtype;
  auto number = [](const std::optional<int>& v) { return v ? static_cast<double>(*v) : kNaN; };
  auto named = [](const std::string& s) { return s.empty() ? std::string("?") : s; };
  for (const vbench::BenchBenchmark& b : doc.benchmarks) {
    BenchResult r;
    r.config = b.name;
    r.n_layer = number(b.n_layer);
    r.n_head = number(b.n_head);
    r.n_embd = number(b.n_embd);
    const vbench::BenchTiming t = b.timing.value_or(vbench::BenchTiming{});
    r.mean_ms = t.mean;
    r.std_ms = t.std;
    r.min_ms = t.min;
    r.max_ms = t.max;
    r.median_ms = t.median;
    r.p5_ms = t.p5;
    r.p95_ms = t.p95;
    r.p99_ms = t.p99;
    r.samples_ms = t.samples_ms;
    r.samples = r.samples_ms.size();
    r.tokens_per_s = b.throughput_tokens_per_sec;
    r.batch_size = number(b.batch_size ? b.batch_size : meta.batch_size);  // as vbench's bench_entries reads them
    r.seq_len = number(b.seq_len ? b.seq_len : meta.seq_len);
    r.roofline_fraction = b.roofline_fraction;
    r.floor_ms = b.floor_ms;
    r.status = b.status;
    for (const vbench::Repetition& x : b.repetitions) r.repetition_medians_ms.push_back(x.median_ms);
    if (const std::optional<vbench::PlanSearch>& search = b.plan_search) {
      r.kept_forward = search->kept;
      r.pinned_from = search->pinned_from;
      // A median the document leaves null reads as +inf: "–" on the page as an absent one.
      for (const vbench::TimedPlan& p : search->timed) r.plans.push_back({named(p.forward), p.median_ms, kNaN, ""});
      for (const vbench::TimedPlan& p : search->playoff) {
        const std::string forward = named(p.forward);
        auto it = std::find_if(r.plans.begin(), r.plans.end(), [&](const PlanTrial& x) { return x.forward == forward; });
        if (it != r.plans.end()) it->playoff_ms = p.median_ms;
      }
      for (const vbench::RejectedPlan& p : search->rejected) {
        r.plans.push_back({named(p.forward), kNaN, kNaN, named(p.reason)});
      }
    }
    run.results.push_back(std::move(r));
  }
  return run;
}

namespace {

BarSeries series_of(const std::vector<BenchResult>& rs, const std::string& name, double BenchResult::*field,
                    double scale = 1) {
  BarSeries s{name, {}, {}, {}, {}};
  for (const auto& r : rs) s.values.push_back(r.*field * scale);
  return s;
}

std::vector<std::string> configs_of(const std::vector<BenchResult>& rs) {
  std::vector<std::string> out;
  for (const auto& r : rs) out.push_back(r.config);
  return out;
}

/// Box plots of each config's samples on a zoomed axis: bars from 0 to min, p5, ..., max would end within a few
/// percent of each other. Configs whose latencies differ by more than 3x share the axis as % of their own median.
DistributionChart latency_distribution(const std::vector<BenchResult>& rs) {
  DistributionChart chart{"Latency distribution (box p5–p95, median line, whiskers min–max, p99 tick, samples)", {},
                          {"latency", "ms"}};
  double lo = INFINITY, hi = 0;
  for (const auto& r : rs) {
    if (std::isfinite(r.median_ms) && r.median_ms > 0) lo = std::min(lo, r.median_ms), hi = std::max(hi, r.median_ms);
    chart.items.push_back({r.config, r.min_ms, r.p5_ms, r.median_ms, r.p95_ms, r.p99_ms, r.max_ms, r.samples_ms,
                           r.config + ": min " + ms(r.min_ms) + ", p5 " + ms(r.p5_ms) + ", median " + ms(r.median_ms) +
                               ", p95 " + ms(r.p95_ms) + ", p99 " + ms(r.p99_ms) + ", max " + ms(r.max_ms) + " ms, " +
                               format_count(r.samples) + " samples"});
  }
  if (hi > 3 * lo) {
    chart.relative = true;
    chart.y = {"latency / median", "%"};
  }
  return chart;
}

void add_run_charts(const BenchRun& run, Section& s) {
  const auto& rs = run.results;
  std::vector<std::string> cats = configs_of(rs);

  BarChart latency{"Latency per config (mean ± std)", cats, {}, {"latency", "ms"}, {}};
  BarSeries lat = series_of(rs, "mean", &BenchResult::mean_ms);
  for (const auto& r : rs) {
    lat.low.push_back(std::isfinite(r.std_ms) ? std::max(r.mean_ms - r.std_ms, 0.0) : kNaN);
    lat.high.push_back(std::isfinite(r.std_ms) ? r.mean_ms + r.std_ms : kNaN);
    lat.tooltips.push_back(r.config + ": mean " + ms(r.mean_ms) + " ms ± " + ms(r.std_ms) + ", median " + ms(r.median_ms) +
                           " ms, p95 " + ms(r.p95_ms) + " ms, " + format_count(r.samples) + " samples");
  }
  latency.series.push_back(std::move(lat));
  s.figures.push_back({"", render_bar_chart(latency)});

  BarChart tput{"Throughput", cats, {series_of(rs, "tokens/s", &BenchResult::tokens_per_s)}, {"throughput", "tokens/s"}, {}};
  s.figures.push_back({"", render_bar_chart(tput)});

  s.figures.push_back({"", render_distribution_chart(latency_distribution(rs))});

  BarChart arch{"Architecture (log scale)", cats, {}, {"size", "", true}, {}};
  arch.series = {series_of(rs, "layers", &BenchResult::n_layer), series_of(rs, "heads", &BenchResult::n_head),
                 series_of(rs, "embedding", &BenchResult::n_embd)};
  s.figures.push_back({"", render_bar_chart(arch)});

  BarChart eff{"Efficiency (throughput per layer)", cats, {{"tokens/s per layer", {}, {}, {}, {}}}, {"tokens/s per layer", ""}, {}};
  for (const auto& r : rs) eff.series[0].values.push_back(r.n_layer > 0 ? r.tokens_per_s / r.n_layer : kNaN);
  s.figures.push_back({"", render_bar_chart(eff)});

  BarChart roof;
  roof.title = "Fraction of the roofline floor reached";
  roof.categories = cats;
  roof.series.push_back(series_of(rs, "roofline", &BenchResult::roofline_fraction, 100));
  roof.y.label = "of roofline";
  roof.y.unit = "%";
  roof.ref_lines.push_back({100, "floor"});
  for (const auto& r : rs)
    roof.series[0].tooltips.push_back(r.config + ": " + num(r.roofline_fraction * 100, 1) + "% (floor " + ms(r.floor_ms) +
                                      " ms, median " + ms(r.median_ms) + " ms)");
  bool any_roof = std::any_of(rs.begin(), rs.end(), [](const BenchResult& r) { return std::isfinite(r.roofline_fraction); });
  if (any_roof) s.figures.push_back({"", render_bar_chart(roof)});
  else s.notes.push_back("No roofline figures in this document (roofline.fraction missing).");

  PageTable t{"Results", {}, true};
  t.table.headers = {"config", "L/H/E", "batch", "seq", "mean ms", "median ms", "p95 ms", "std ms", "noise", "tokens/s",
                     "roofline", "status"};
  t.table.align = {Table::Align::kLeft, Table::Align::kLeft};
  t.table.align.resize(t.table.headers.size(), Table::Align::kRight);
  t.table.align.back() = Table::Align::kLeft;
  for (const auto& r : rs) {
    t.table.add_row({r.config, whole(r.n_layer) + "/" + whole(r.n_head) + "/" + whole(r.n_embd), whole(r.batch_size),
                     whole(r.seq_len), ms(r.mean_ms), ms(r.median_ms), ms(r.p95_ms), ms(r.std_ms),
                     std::isfinite(r.std_ms) && r.mean_ms > 0 ? num(100 * r.std_ms / r.mean_ms, 1) + "%" : "–",
                     std::isfinite(r.tokens_per_s) ? format_count_of(r.tokens_per_s) : "–",
                     std::isfinite(r.roofline_fraction) ? num(r.roofline_fraction * 100, 1) + "%" : "–", r.status});
  }
  s.tables.push_back(std::move(t));
}

/// For a sweep (vbench run --batch/--seq lists): median latency and throughput against B, and against T, one line
/// per config and value of the other axis; an axis that no line varies along gets no chart.
void add_sweep_charts(const std::vector<BenchResult>& rs, Section& s) {
  std::vector<SweepPoint> latency_points, tput_points;
  for (const BenchResult& r : rs) {
    if (!std::isfinite(r.batch_size) || !std::isfinite(r.seq_len) || !std::isfinite(r.median_ms)) continue;
    const std::optional<SweepKey> key = parse_sweep_key(r.config);
    const std::string config = key ? key->config : r.config;
    latency_points.push_back({config, r.batch_size, r.seq_len, r.median_ms,
                              r.config + ": median " + ms(r.median_ms) + " ms"});
    tput_points.push_back({config, r.batch_size, r.seq_len, r.tokens_per_s,
                           r.config + ": " + format_count_of(r.tokens_per_s) + " tokens/s"});
  }
  for (const bool by_batch : {true, false}) {
    const std::string axis = by_batch ? "batch size B" : "sequence length T";
    XYChart latency = sweep_chart("Median latency vs " + axis, sweep_series(latency_points, by_batch), by_batch,
                                  {"median latency", "ms"});
    if (latency.series.empty()) continue;
    XYChart tput = sweep_chart("Throughput vs " + axis, sweep_series(tput_points, by_batch), by_batch,
                               {"throughput", "tokens/s"});
    s.figures.push_back({"", render_xy_chart(latency)});
    s.figures.push_back({"", render_xy_chart(tput)});
  }
}

/// "NVIDIA H100 80GB HBM3" -> "H100 80GB HBM3": short enough for a legend.
std::string shorten_device(std::string device) {
  if (device.rfind("NVIDIA ", 0) == 0) device.erase(0, 7);
  return shorten(device, 24);
}

std::string signed_pct(double pct) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%+.1f%%", pct);
  return buf;
}

/// One table per config whose document lists the forwards its prepare tried (vbench's cuda plan search), fastest
/// first: the kept one marked, each one's time against it, those not used with the reason. HTML only: it is long.
void add_plan_search_tables(const BenchRun& run, Section& s) {
  for (const BenchResult& r : run.results) {
    if (!r.pinned_from.empty()) {
      s.notes.push_back(r.config + ": no search; ran the forward " + r.pinned_from + " named: " + r.kept_forward);
    }
    if (r.plans.empty()) continue;
    std::vector<PlanTrial> plans = r.plans;
    auto key = [](const PlanTrial& p) { return std::isfinite(p.median_ms) ? p.median_ms : INFINITY; };
    std::stable_sort(plans.begin(), plans.end(),
                     [&](const PlanTrial& a, const PlanTrial& b) { return key(a) < key(b); });
    double kept_ms = kNaN;
    for (const PlanTrial& p : plans) {
      if (p.forward == r.kept_forward && p.rejected.empty()) kept_ms = p.median_ms;
    }
    PageTable t{r.config + ": forwards timed at prepare (" + std::to_string(plans.size()) + ")", {}, false};
    t.table.headers = {"forward", "median ms", "playoff ms", "vs kept", ""};
    t.table.align = {Table::Align::kLeft, Table::Align::kRight, Table::Align::kRight, Table::Align::kRight,
                     Table::Align::kLeft};
    for (const PlanTrial& p : plans) {
      const bool kept = p.forward == r.kept_forward && p.rejected.empty();
      const bool compared = std::isfinite(p.median_ms) && std::isfinite(kept_ms) && kept_ms > 0;
      t.table.add_row({p.forward, ms(p.median_ms), ms(p.playoff_ms),
                       compared && !kept ? signed_pct(100 * (p.median_ms / kept_ms - 1)) : "–",
                       kept ? "kept" : !p.rejected.empty() ? "not used: " + p.rejected : ""});
    }
    s.tables.push_back(std::move(t));
  }
}

/// One line of the trend chart: a config measured the same way (backend, device, dtype, B, T) in several runs.
struct TrendLine {
  std::string name;
  std::vector<std::pair<std::size_t, const BenchResult*>> points;  ///< run index, result
};

/// One benchmark's results over the runs, joined as vbench compare pairs them (formats/bench paired_benchmark): by
/// name, else a single run's "gpt2" at B=4 T=64 with a sweep's "gpt2/B:4/T:64". Named by the sweep's key where a
/// run has it, as compare names the pair.
struct TrendBenchmark {
  std::string config;
  std::vector<std::pair<std::size_t, const BenchResult*>> results;  ///< run index, result
};

std::vector<TrendBenchmark> trend_benchmarks(const std::vector<BenchRun>& runs) {
  auto shape_of = [](const BenchResult& r) {
    auto as_int = [](double v) { return std::isfinite(v) ? static_cast<int>(v) : 0; };  // read as an int: in range
    return vbench::BenchmarkShape{r.config, as_int(r.batch_size), as_int(r.seq_len)};
  };
  std::vector<TrendBenchmark> benchmarks;
  std::vector<vbench::BenchmarkShape> earlier;  // the results of the runs before this one, and their benchmarks
  std::vector<std::size_t> earlier_benchmarks;
  for (std::size_t i = 0; i < runs.size(); ++i) {
    std::vector<vbench::BenchmarkShape> shapes;
    std::vector<std::size_t> shape_benchmarks;
    for (const BenchResult& r : runs[i].results) {
      shapes.push_back(shape_of(r));
      std::size_t k = benchmarks.size();
      if (const auto pair = vbench::paired_benchmark(earlier, shapes.back())) k = earlier_benchmarks[*pair];
      if (k == benchmarks.size()) benchmarks.push_back({r.config, {}});
      if (r.config.size() > benchmarks[k].config.size()) benchmarks[k].config = r.config;
      benchmarks[k].results.push_back({i, &r});
      shape_benchmarks.push_back(k);
    }
    earlier.insert(earlier.end(), shapes.begin(), shapes.end());
    earlier_benchmarks.insert(earlier_benchmarks.end(), shape_benchmarks.begin(), shape_benchmarks.end());
  }
  return benchmarks;
}

/// A config whose runs differ in backend, device, dtype, B or T gets a line per setup, named by what differs, and
/// a note: one line through an H100 bf16 run and a CPU fp32 run would read as a 100x regression.
std::vector<TrendLine> trend_lines(const std::vector<BenchRun>& runs, std::vector<std::string>& notes) {
  static const char* kParts[] = {"backend", "device", "dtype", "B", "T"};
  auto setup_of = [](const BenchRun& run, const BenchResult& r) {
    return std::vector<std::string>{run.backend, shorten_device(run.device), run.dtype,
                                    std::isfinite(r.batch_size) ? "B=" + num(r.batch_size, 0) : "",
                                    std::isfinite(r.seq_len) ? "T=" + num(r.seq_len, 0) : ""};
  };
  std::vector<TrendLine> lines;
  for (const TrendBenchmark& benchmark : trend_benchmarks(runs)) {
    const std::string& config = benchmark.config;
    std::vector<std::vector<std::string>> setups;  // distinct, in order of first run
    std::vector<std::vector<std::pair<std::size_t, const BenchResult*>>> points;
    for (const auto& [i, r] : benchmark.results) {
      const std::vector<std::string> setup = setup_of(runs[i], *r);
      auto it = std::find(setups.begin(), setups.end(), setup);
      if (it == setups.end()) {
        setups.push_back(setup);
        points.emplace_back();
        it = setups.end() - 1;
      }
      points[static_cast<std::size_t>(it - setups.begin())].push_back({i, r});
    }
    std::vector<std::size_t> differ;  // parts of the setup that are not the same in every run
    for (std::size_t p = 0; p < std::size(kParts); ++p)
      if (std::any_of(setups.begin(), setups.end(), [&](const auto& s) { return s[p] != setups.front()[p]; }))
        differ.push_back(p);
    std::string what;
    for (std::size_t p : differ) what += std::string(what.empty() ? "" : ", ") + kParts[p];
    if (!differ.empty())
      notes.push_back(config + ": the runs differ in " + what + "; one line per setup, not one trend.");
    for (std::size_t k = 0; k < setups.size(); ++k) {
      std::string name = config;
      for (std::size_t p : differ) {
        const std::string& v = setups[k][p];
        name += (p == differ.front() ? " (" : " ") + (v.empty() ? std::string(kParts[p]) + " ?" : v);
      }
      if (!differ.empty()) name += ")";
      lines.push_back({name, std::move(points[k])});
    }
  }
  return lines;
}

}  // namespace

Page bench_page(std::vector<BenchRun> runs) {
  std::stable_sort(runs.begin(), runs.end(), [](const BenchRun& a, const BenchRun& b) { return a.timestamp < b.timestamp; });
  Page page;
  const BenchRun& last = runs.back();
  page.title = runs.size() == 1 ? "Benchmark results" : "Benchmark history (" + std::to_string(runs.size()) + " runs)";
  page.subtitle = last.source + (last.timestamp.empty() ? "" : " — " + last.timestamp);

  if (runs.size() > 1) {
    Section trend{"Trend over time", {}, {}, {}, {}, {}};
    XYChart chart{"Median latency per config over runs", {}, {"run", ""}, {"median latency", "ms"}, {}, true, {}, 1440, 380};
    for (const auto& run : runs)
      chart.x_labels.push_back(run.timestamp.empty() ? run.source : run.timestamp.substr(0, 19));
    PageTable hist{"Median latency (ms) per run", {}, false};
    hist.table.headers = {"run", "source"};
    const std::vector<TrendLine> lines = trend_lines(runs, trend.notes);
    for (const TrendLine& line : lines) {
      XYSeries s{line.name, {}, {}, {}};
      hist.table.headers.push_back(line.name);
      for (const auto& [i, r] : line.points) {
        s.x.push_back(static_cast<double>(i));
        s.y.push_back(r->median_ms);
        s.tooltips.push_back(line.name + " @ " + chart.x_labels[i] + ": median " + ms(r->median_ms) + " ms (" +
                             runs[i].source + ")");
      }
      chart.series.push_back(std::move(s));
    }
    hist.table.align.assign(hist.table.headers.size(), Table::Align::kRight);
    hist.table.align[1] = Table::Align::kLeft;
    for (std::size_t i = 0; i < runs.size(); ++i) {
      std::vector<std::string> row{chart.x_labels[i], runs[i].source};
      for (const TrendLine& line : lines) {
        auto it = std::find_if(line.points.begin(), line.points.end(), [&](const auto& p) { return p.first == i; });
        row.push_back(it == line.points.end() ? "–" : ms(it->second->median_ms));
      }
      hist.table.add_row(std::move(row));
    }
    trend.figures.push_back({"", render_xy_chart(chart)});
    trend.tables.push_back(std::move(hist));
    page.sections.push_back(std::move(trend));
  }

  Section system{"System", last.system, last.notes, {}, {}, {}};
  if (last.system.empty()) system.notes.push_back("The document has no metadata (GPU, CUDA, driver, command).");
  page.sections.push_back(std::move(system));
  Section charts{runs.size() > 1 ? "Newest run" : "Results", {}, {}, {}, {}, {}};
  if (last.results.empty()) charts.notes.push_back("The document has no benchmarks.");
  else add_run_charts(last, charts);
  add_sweep_charts(last.results, charts);
  for (const BenchResult& r : last.results) {  // how far a prepared forward's median moves from one to the next
    const std::vector<double>& m = r.repetition_medians_ms;
    if (m.size() < 2) continue;
    const auto [lo, hi] = std::minmax_element(m.begin(), m.end());
    char spread[32];
    std::snprintf(spread, sizeof spread, "%.1f%%", 100 * (*hi - *lo) / stats::median(m));
    charts.notes.push_back(r.config + ": " + std::to_string(m.size()) + " repetitions (each a prepare of its own), "
                           "medians " + format_duration_ms(*lo) + " .. " + format_duration_ms(*hi) + " (spread " +
                           spread + ").");
  }
  page.sections.push_back(std::move(charts));
  Section plans{"Plan search at prepare", {}, {}, {}, {}, {}};
  add_plan_search_tables(last, plans);
  if (!plans.tables.empty()) {
    plans.notes.insert(plans.notes.begin(), "Each forward's median over the replays prepare timed it with; the "
                                            "playoff timed the closest ones again in alternating rounds, and the "
                                            "fastest there was kept.");
  }
  if (!plans.tables.empty() || !plans.notes.empty()) page.sections.push_back(std::move(plans));
  return page;
}

}  // namespace vtools::vrender
