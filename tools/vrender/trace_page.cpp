#include "tools/vrender/trace_page.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <map>

#include "formats/trace/line_summary.hpp"
#include "formats/trace/rank_summary.hpp"
#include "formats/trace/rank_summary_tables.hpp"
#include "formats/trace/trace_summary.hpp"
#include "libcommon/human_units.hpp"
#include "tools/vrender/chart_frame.hpp"
#include "tools/vrender/svg_markup.hpp"

namespace vtools::vrender {

namespace {

using vtrace::Trace;

// Times relative to the first activity; absolute trace timestamps (~1.8e18 ns) lose precision as doubles.
struct Activity {
  double start_ns = 0, end_ns = 0;
  std::string_view name;  // kernel name or "memcpy <kind>": the trace's string, or one add_timeline keeps
  int color = -1;         // 0 a kernel, -1 a copy
  std::size_t index = 0;  // in the trace's kernels or memcpys: the tooltip's details are made where one is shown
};

/// A kernel as the page names it: vtrace's demangled name, "kernel" when the trace has none.
const std::string& kernel_label(const std::string& name) {
  static const std::string kUnnamed = "kernel";
  return name.empty() ? kUnnamed : name;
}

// Lane keys sort numerically ("7" before "13").
template <typename Id>
std::string sort_key(Id id) {
  const std::string text = std::to_string(id);
  return text.size() < 20 && text[0] != '-' ? std::string(20 - text.size(), '0') + text : text;
}

/// "(x,y,z)" of a grid, block or thread.
std::string dims(const vtrace::Dim3& d) {
  return "(" + std::to_string(d[0]) + "," + std::to_string(d[1]) + "," + std::to_string(d[2]) + ")";
}

// Time unit for the timeline axis so tick labels stay short.
std::pair<double, std::string> time_unit(double span_ns) {
  if (span_ns < 2e4) return {1, "ns"};
  if (span_ns < 2e7) return {1e3, "µs"};
  return {1e6, "ms"};
}

/// An id as sort_key padded it, without the padding.
std::string unpad(const std::string& key) {
  const auto p = key.find_first_not_of('0');
  return p == std::string::npos ? std::string("0") : key.substr(key.size() == 20 ? p : 0);
}

/// `v` - `origin` in ns as a double: exact while the difference fits 53 bits, never an overflow.
double since(std::uint64_t v, std::uint64_t origin) {
  return v >= origin ? static_cast<double>(v - origin) : -static_cast<double>(origin - v);
}

/// The rank each device's kernels ran under (a merged trace numbers devices apart, so one device is one rank), for
/// traces whose processes carry the launcher's rank; empty for others.
std::map<std::uint32_t, std::int64_t> rank_of_device(const Trace& trace) {
  std::map<std::int64_t, std::int64_t> rank_of_process;
  for (const vtrace::Process& p : trace.processes)
    if (p.rank >= 0) rank_of_process[p.id] = p.rank;
  std::map<std::uint32_t, std::int64_t> ranks;
  if (rank_of_process.empty()) return ranks;
  for (const vtrace::Kernel& k : trace.kernels)
    if (auto it = rank_of_process.find(k.process_id); it != rank_of_process.end()) ranks.emplace(k.device_id, it->second);
  return ranks;
}

/// NVTX ranges (vtrace run --nvtx) as lanes above the GPU's: per process and thread, a lane per nesting depth
/// (push/pop ranges nest), each range labelled with its name. A range that never ended runs to `last_ns`; marks
/// are instants and are not drawn. Times are relative to `origin`.
std::vector<Lane> nvtx_lanes(const std::vector<vtrace::NvtxRange>& ranges, std::uint64_t origin, double last_ns,
                             double t0, double div) {
  struct Range {
    double start_ns, end_ns;
    std::string name;
  };
  std::map<std::pair<std::string, std::string>, std::vector<Range>> by_thread;
  for (const vtrace::NvtxRange& r : ranges) {
    if (r.mark) continue;
    const double start = since(r.start_ns, origin);
    by_thread[{sort_key(r.process_id), sort_key(r.thread_id)}].push_back(
        {start, std::max(start, r.end_ns != 0 ? since(r.end_ns, origin) : last_ns),
         (r.domain.empty() ? "" : r.domain + ": ") + (r.name.empty() ? "range" : r.name)});
  }
  std::vector<Lane> lanes;
  for (auto& [thread, list] : by_thread) {
    std::stable_sort(list.begin(), list.end(), [](const Range& a, const Range& b) { return a.start_ns < b.start_ns; });
    std::vector<Lane> depth_lanes;
    std::vector<double> open_ends;  // ends of the ranges around the current one, innermost last
    for (const Range& r : list) {
      while (!open_ends.empty() && open_ends.back() <= r.start_ns) open_ends.pop_back();
      const std::size_t depth = open_ends.size();
      open_ends.push_back(r.end_ns);
      if (depth_lanes.size() <= depth) depth_lanes.push_back({"", {}});  // named below
      depth_lanes[depth].spans.push_back({(r.start_ns - t0) / div, (r.end_ns - t0) / div, -1, r.name,
                                          r.name + "\n" + format_duration_ns(r.end_ns - r.start_ns) + " (NVTX)"});
    }
    for (std::size_t d = 0; d < depth_lanes.size(); ++d) {
      depth_lanes[d].name = "process " + unpad(thread.first) + " · thread " + unpad(thread.second) + " · NVTX" +
                            (d > 0 ? " " + std::to_string(d + 1) : "");
      lanes.push_back(std::move(depth_lanes[d]));
    }
  }
  return lanes;
}

/// An image cannot zoom: where NVTX ranges stretch the timeline far past the GPU's work (a 104 ms range around
/// 147 µs of kernels), SVG/PNG get `chart` fitted to the kernels and copies instead, the ranges clipped, and a
/// note says so; HTML keeps the whole, zoomable timeline. Times in `chart` are (ns - t0) / div.
void add_fitted_timeline(const LaneChart& chart, double t0, double t1, double div, double g0, double g1, bool any_gpu,
                         Section& s) {
  if (!any_gpu || !(g1 - g0 < 0.5 * (t1 - t0))) return;
  const double pad = std::max((g1 - g0) * 0.02, 1.0);
  const double f0 = std::max(t0, g0 - pad), f1 = std::min(t1, g1 + pad);
  const auto fit_scale = time_unit(f1 - f0);  // not a structured binding: clang 14 cannot capture those (fuzz build)
  const double fit_div = fit_scale.first;
  const auto& fit_unit = fit_scale.second;
  LaneChart fitted = chart;
  fitted.title = "Timeline of the kernels and copies (NVTX ranges clipped)";
  fitted.zoomable = false;
  fitted.x = {"time since the first kernel or copy", fit_unit};  // short tick labels, not "104.14k µs"
  fitted.x_lo = (f0 - g0) / fit_div;
  fitted.x_hi = (f1 - g0) / fit_div;
  const auto refit = [&](double x) { return (x * div + t0 - g0) / fit_div; };
  for (Lane& lane : fitted.lanes)
    for (LaneSpan& span : lane.spans) span.start = refit(span.start), span.end = refit(span.end);
  s.figures.back().in_image = false;
  s.figures.push_back({"", render_lane_chart(fitted), true, false});
  s.notes.push_back("SVG/PNG: the timeline shows the " + format_duration_ns(g1 - g0) + " of kernels and copies, " +
                    format_duration_ns(g0 - t0) + " after the first activity; NVTX ranges over " +
                    format_duration_ns(t1 - t0) +
                    " are clipped to it (the HTML page's timeline covers the whole trace and zooms).");
}

void add_timeline(const Trace& trace, const vtrace::TraceSummary& summary, Section& s) {
  // Per (device, stream), in id order; activities name themselves by a view of the trace's strings (a 10^6-launch
  // trace would otherwise copy every kernel name once more).
  std::map<std::pair<std::uint32_t, std::uint32_t>, std::vector<Activity>> lanes;
  std::map<std::string, std::string> copy_labels;  // kind -> "memcpy <kind>"
  const auto& kernels = trace.kernels;
  const auto& memcpys = trace.memcpys;
  static const std::vector<vtrace::NvtxRange> kNone;
  const bool draw_nvtx = trace.nvtx_ranges.size() <= kMaxTimelineSpans;
  const auto& nvtx = draw_nvtx ? trace.nvtx_ranges : kNone;
  if (!draw_nvtx)
    s.notes.push_back(format_count(trace.nvtx_ranges.size()) + " NVTX ranges: too many to draw; vtrace summary lists them.");
  // The origin: the earliest start.
  std::uint64_t origin = std::numeric_limits<std::uint64_t>::max();
  for (const auto& k : kernels) origin = std::min(origin, k.start_ns);
  for (const auto& m : memcpys) origin = std::min(origin, m.start_ns);
  for (const auto& r : nvtx) origin = std::min(origin, r.start_ns);
  bool aggregate = kernels.size() + memcpys.size() > kMaxTimelineSpans;
  double t0 = 0, t1 = 0, g0 = 0, g1 = 0;  // all activity; kernels and copies only
  bool any = false, any_gpu = false;
  auto note_time = [&](double a, double b) {
    t0 = any ? std::min(t0, a) : a, t1 = any ? std::max(t1, b) : b;
    any = true;
  };
  std::vector<Activity>* last_lane = nullptr;  // the last one used: launches come in runs on one stream
  std::pair<std::uint32_t, std::uint32_t> last_key;
  const auto lane_of = [&](std::uint32_t device, std::uint32_t stream) -> std::vector<Activity>& {
    if (!last_lane || last_key != std::pair(device, stream)) last_key = {device, stream}, last_lane = &lanes[last_key];
    return *last_lane;
  };
  {  // each lane's size first: no vector of 10^5+ activities grows by copying itself
    std::map<std::pair<std::uint32_t, std::uint32_t>, std::size_t> sizes;
    for (const vtrace::Kernel& k : kernels) ++sizes[{k.device_id, k.stream_id}];
    for (const vtrace::Memcpy& m : memcpys) ++sizes[{m.device_id, m.stream_id}];
    for (const auto& [key, n] : sizes) lanes[key].reserve(n);
  }
  for (std::size_t i = 0; i < kernels.size(); ++i) {
    const vtrace::Kernel& k = kernels[i];
    Activity a{since(k.start_ns, origin), since(k.end_ns, origin), kernel_label(k.name), 0, i};
    note_time(a.start_ns, a.end_ns);
    lane_of(k.device_id, k.stream_id).push_back(a);
  }
  for (std::size_t i = 0; i < memcpys.size(); ++i) {
    const vtrace::Memcpy& m = memcpys[i];
    const std::string& label = copy_labels.try_emplace(m.kind, "memcpy " + m.kind).first->second;
    Activity a{since(m.start_ns, origin), since(m.end_ns, origin), label, -1, i};
    if (a.end_ns < a.start_ns) a.end_ns = a.start_ns;  // the reader checks kernels' ends, not copies'
    note_time(a.start_ns, a.end_ns);
    lane_of(m.device_id, m.stream_id).push_back(a);
  }
  // What a launch's tooltip adds: a kernel's grid and block, a copy's bytes.
  const auto detail = [&](const Activity& a) {
    if (a.color < 0) return format_bytes_of(static_cast<double>(memcpys[a.index].bytes));
    return "grid " + dims(kernels[a.index].grid) + " block " + dims(kernels[a.index].block);
  };
  for (const auto& [key, acts] : lanes)
    for (const Activity& a : acts) {
      g0 = any_gpu ? std::min(g0, a.start_ns) : a.start_ns, g1 = any_gpu ? std::max(g1, a.end_ns) : a.end_ns;
      any_gpu = true;
    }
  for (const vtrace::NvtxRange& r : nvtx) {
    const double start = since(r.start_ns, origin);
    note_time(start, r.end_ns != 0 ? since(r.end_ns, origin) : start);
  }
  if (!kernels.empty()) {
    s.notes.push_back("Kernels ran " + format_duration_ns(summary.gpu_time_ns) + " in all and some kernel ran during " +
                      format_duration_ns(summary.busy_ns) + " (busy); a kernel's exposed time is what it adds to the busy "
                      "time, so a kernel that overlaps others (a programmatic dependent waiting for the one before, "
                      "another stream) exposes less than it runs.");
  }
  if (!any) {
    s.notes.push_back("The trace has no kernel launches or copies.");
    return;
  }
  const auto& totals = summary.kernels;
  std::map<std::string, int, std::less<>> colors;
  const auto color_of = [&](std::string_view name) {
    const auto it = colors.find(name);
    return it != colors.end() ? it->second : 9;
  };
  LaneChart chart{"Timeline (wheel: zoom, drag: pan, double-click: reset)", {}, {}, 0, 0, true, {}, 1400, 22};
  for (std::size_t i = 0; i < totals.size() && i < 9; ++i) {
    colors[kernel_label(totals[i].name)] = static_cast<int>(i);
    chart.legend.push_back(shorten(kernel_label(totals[i].name), 24));
    chart.legend_colors.push_back(static_cast<int>(i));
  }
  if (totals.size() > 9) chart.legend.push_back("other kernels"), chart.legend_colors.push_back(9);
  if (!memcpys.empty()) chart.legend.push_back("copies"), chart.legend_colors.push_back(-1);
  auto [div, unit] = time_unit(t1 - t0);
  chart.x = {"time since first activity", unit};
  chart.x_hi = (t1 - t0) / div;
  std::size_t count = kernels.size() + memcpys.size();
  double bucket_ns = (t1 - t0) / static_cast<double>(kTimelineBuckets);
  // An activity's time bucket; a span past the doubles' range makes the quotient NaN or huge, and converting that to
  // an integer is undefined: those take bucket 0.
  const auto bucket_of = [&](double start_ns) {
    const double q = (start_ns - t0) / std::max(bucket_ns, 1e-9);
    return q >= 0 && q < 1e18 ? static_cast<long long>(q) : 0LL;
  };
  const std::map<std::uint32_t, std::int64_t> device_ranks = rank_of_device(trace);
  std::size_t drawn = 0;
  for (Lane& lane : nvtx_lanes(nvtx, origin, t1, t0, div)) {
    drawn += lane.spans.size();
    chart.lanes.push_back(std::move(lane));
  }
  if (!nvtx.empty()) chart.legend.push_back("NVTX ranges (named)"), chart.legend_colors.push_back(-1);
  for (auto& [key, acts] : lanes) {
    std::sort(acts.begin(), acts.end(), [](const Activity& a, const Activity& b) { return a.start_ns < b.start_ns; });
    const auto rank = device_ranks.find(key.first);
    Lane lane{(rank != device_ranks.end() ? "rank " + std::to_string(rank->second) + " · " : std::string()) + "GPU " +
                  std::to_string(key.first) + " · stream " + std::to_string(key.second),
              {}};
    for (std::size_t i = 0; i < acts.size();) {
      const Activity& a = acts[i];
      if (!aggregate) {
        int c = a.color < 0 ? -1 : color_of(a.name);
        lane.spans.push_back({(a.start_ns - t0) / div, (a.end_ns - t0) / div, c, "",
                              std::string(a.name) + "\n" + format_duration_ns(a.end_ns - a.start_ns) + ", " +
                                  detail(a)});
        ++i;
        continue;
      }
      // One span per time bucket: first start to last end of the activities starting in it.
      const long long b = bucket_of(a.start_ns);
      double end = a.end_ns, busy = 0;
      std::size_t j = i;
      std::map<std::string_view, double> share;  // ordered as the names themselves: ties go to the same one
      for (; j < acts.size() && bucket_of(acts[j].start_ns) == b; ++j) {
        end = std::max(end, acts[j].end_ns);
        busy += acts[j].end_ns - acts[j].start_ns;
        share[acts[j].name] += acts[j].end_ns - acts[j].start_ns;
      }
      auto top = std::max_element(share.begin(), share.end(), [](const auto& x, const auto& y) { return x.second < y.second; });
      int c = top->first.starts_with("memcpy") ? -1 : color_of(top->first);
      lane.spans.push_back({(a.start_ns - t0) / div, (end - t0) / div, c, "",
                            std::to_string(j - i) + " activities, busy " + format_duration_ns(busy) +
                                "; most time: " + std::string(top->first)});
      i = j;
    }
    drawn += lane.spans.size();
    chart.lanes.push_back(std::move(lane));
  }
  if (aggregate)
    s.notes.push_back("Aggregated: " + format_count(count) + " launches and copies drawn as " + format_count(drawn) +
                      " spans (" + std::to_string(kTimelineBuckets) + " time buckets per lane; hover a span for its count).");
  s.figures.push_back({"", render_lane_chart(chart)});
  add_fitted_timeline(chart, t0, t1, div, g0, g1, any_gpu, s);
}

void add_top_kernels(const vtrace::TraceSummary& summary, Section& s) {
  const auto& totals = summary.kernels;
  if (totals.empty()) return;
  double all = 0;
  for (const auto& t : totals) all += t.total_ns;
  bool small = totals.front().total_ns < 1e6;  // label in µs below 1 ms
  double per_unit = small ? 1e3 : 1e6;
  BarChart chart{"Top kernels by total time", {}, {{"total", {}, {}, {}, {}}}, {"total time", small ? "µs" : "ms"}, {}, 900, 360};
  PageTable table{"Kernels by total time", {}, true};
  table.table.headers = {"kernel", "launches", "total", "mean", "min", "max", "share", "exposed"};
  table.table.align = {Table::Align::kLeft};
  table.table.align.resize(8, Table::Align::kRight);
  for (std::size_t i = 0; i < totals.size(); ++i) {
    const auto& t = totals[i];
    const std::string name = kernel_label(t.name);
    if (i < 15) {
      chart.categories.push_back(shorten(name, 24));
      chart.series[0].values.push_back(t.total_ns / per_unit);
      chart.series[0].tooltips.push_back(name + ": " + format_duration_ns(t.total_ns) + " over " +
                                         format_count(t.calls) + (t.calls == 1 ? " launch" : " launches"));
    }
    if (i < 50)
      table.table.add_row({shorten(name, 60), format_count(t.calls), format_duration_ns(t.total_ns),
                           format_duration_ns(t.total_ns / static_cast<double>(t.calls)), format_duration_ns(t.min_ns),
                           format_duration_ns(t.max_ns), num(all > 0 ? 100 * t.total_ns / all : 0, 1) + "%",
                           format_duration_ns(t.exposed_ns)});
  }
  if (totals.size() > 50) s.notes.push_back("The table lists the 50 kernels with the most time of " + format_count(totals.size()) + ".");
  s.figures.push_back({"", render_bar_chart(chart)});
  s.tables.push_back(std::move(table));
}

/// The CUDA graphs among the kernels (the trace summary's): launches (the most runs of any one kernel node), kernel
/// nodes, kernel launches, kernel time in all and per graph launch. Nothing when no graph ran.
void add_graphs(const vtrace::TraceSummary& summary, Section& s) {
  if (summary.graphs.empty()) return;
  constexpr std::size_t kMaxRows = 50;
  PageTable table{"CUDA graphs", {}, true};
  table.table.headers = {"graph", "launches", "kernel nodes", "kernels", "GPU time", "per launch"};
  table.table.align.assign(6, Table::Align::kRight);
  for (const vtrace::GraphStats& g : summary.graphs) {
    if (table.table.rows.size() == kMaxRows) break;
    table.table.add_row({std::to_string(g.id), format_count(g.launches), format_count(g.kernel_nodes),
                         format_count(g.kernels), format_duration_ns(g.gpu_time_ns),
                         format_duration_ns(g.gpu_time_per_launch_ns)});
  }
  if (summary.graphs.size() > kMaxRows) {
    s.notes.push_back("The graph table lists the first " + std::to_string(kMaxRows) + " of " +
                      format_count(summary.graphs.size()) + " CUDA graphs.");
  }
  s.tables.push_back(std::move(table));
}

/// A distributed job's trace (processes with the launcher's rank): the shared rank analysis (formats/trace
/// rank_summary, as `vtrace summary --ranks` shows it): per rank, stragglers, the collectives with the largest skew.
void add_ranks(const Trace& trace, Page& page) {
  bool any_rank = false;
  for (const vtrace::Process& p : trace.processes) any_rank = any_rank || p.rank >= 0;
  if (!any_rank || rank_of_device(trace).empty()) return;  // no kernel of a ranked process: nothing to compare
  if (!trace.has_kernel_times()) return;  // ranks have no timeline to compare (the access rows name them)
  const vtrace::RankSummary summary = vtrace::summarize_ranks(trace);
  const vtrace::RankTables tables = vtrace::rank_summary_tables(summary);
  Section s{"Ranks", {}, {tables.headline}, {}, {}, {}};
  s.tables.push_back({"Ranks", tables.ranks, true});
  s.tables.push_back({"Stragglers (most often last to a collective first)", tables.stragglers, true});
  if (!tables.collectives.rows.empty())
    s.tables.push_back({"Collectives with the largest arrival skew (at most " +
                            std::to_string(vtrace::kRankCollectiveRows) + ")",
                        tables.collectives, true});
  for (const std::string& note : summary.notes) s.notes.push_back(note);
  page.sections.push_back(std::move(s));
}

/// ", argument 0 (float const*)" for an access or finding that vtrace tied to a kernel argument, else "".
std::string argument_suffix(std::int64_t index, const std::string& type) {
  if (index < 0) return "";
  return ", argument " + std::to_string(index) + (type.empty() ? "" : " (" + type + ")");
}

/// "file:line[:col]" of a source frame of a finding.
std::string source_frame_text(const vtrace::SourceFrame& frame) {
  std::string text = (frame.file.empty() ? "?" : frame.file) + ":" + std::to_string(frame.line);
  if (frame.column > 0) text += ":" + std::to_string(frame.column);
  return text;
}

/// Where a finding's instruction came from: "k.cu:12 in f, inlined at k.cu:19", or its source_note (why there is
/// no line), or "" for traces from before vtrace gave source lines.
std::string finding_source(const vtrace::Finding& f) {
  if (!f.source) return f.source_note;
  std::string text = source_frame_text(*f.source);
  if (!f.source->function.empty()) text += " in " + shorten(f.source->function, 40);
  for (const vtrace::SourceFrame& at : f.source->inlined_at) text += ", inlined at " + source_frame_text(at);
  return text;
}

/// The text of a finding's source line as vtrace read it (leading blanks dropped, shortened), "" when none.
std::string source_text(const vtrace::Finding& f) {
  std::string text = f.source ? f.source->text : "";
  text.erase(0, text.find_first_not_of(" \t"));
  return text.empty() ? text : shorten(text, 60);
}

/// A block as a sort key (z, y, x), so blocks order as the grid numbers them.
std::array<std::int64_t, 3> block_key(const vtrace::Dim3& block) { return {block[2], block[1], block[0]}; }

/// "(x,y,z)" of a block_key.
std::string block_label(const std::array<std::int64_t, 3>& key) { return dims({key[2], key[1], key[0]}); }

void add_heat_maps(const Trace& trace, Section& s) {
  struct Group {
    double bytes = 0;
    std::vector<const vtrace::Access*> rows;
  };
  std::map<std::pair<std::string, std::string>, Group> groups;  // by kernel and allocation id as text
  // Findings by (kernel, nearest allocation): each is marked on that pair's map, at its block and bytes.
  std::map<std::pair<std::string, std::string>, std::vector<const vtrace::Finding*>> findings;
  for (const vtrace::Finding& f : trace.findings)
    if (f.allocation != -1) findings[{kernel_label(f.kernel), std::to_string(f.allocation)}].push_back(&f);
  for (const vtrace::Access& a : trace.accesses) {
    auto& g = groups[{kernel_label(a.kernel), std::to_string(a.allocation)}];
    g.bytes += static_cast<double>(a.bytes_loaded) + static_cast<double>(a.bytes_stored);
    g.rows.push_back(&a);
  }
  if (groups.empty()) return;
  std::vector<std::pair<std::pair<std::string, std::string>, Group*>> order;
  for (auto& [key, g] : groups) order.emplace_back(key, &g);
  std::stable_sort(order.begin(), order.end(), [](const auto& a, const auto& b) { return a.second->bytes > b.second->bytes; });
  if (order.size() > kMaxHeatMaps)
    s.notes.push_back("Showing the " + std::to_string(kMaxHeatMaps) + " (kernel, allocation) pairs with the most traffic of " +
                      std::to_string(order.size()) + ".");
  for (std::size_t m = 0; m < order.size() && m < kMaxHeatMaps; ++m) {
    const auto& [key, g] = order[m];
    const vtrace::Allocation* found = nullptr;
    for (const vtrace::Allocation& a : trace.allocations)
      if (std::to_string(a.id) == key.second) found = &a;  // the last of an id
    const double alloc_address = found ? static_cast<double>(found->address) : 0;
    const double alloc_size = found ? static_cast<double>(found->size) : 0;
    // Blocks in first-seen order sorted by (z, y, x); byte ranges are absolute addresses when they fall inside the
    // allocation, else offsets into it.
    std::map<std::array<std::int64_t, 3>, int> block_index;
    double hi = alloc_size;
    for (const vtrace::Access* r : g->rows) {
      block_index.emplace(block_key(r->block), 0);
      for (const auto& range : r->ranges) {
        const double up = static_cast<double>(range[1]);
        hi = std::max(hi, up >= alloc_address && alloc_address > 0 ? up - alloc_address : up);
      }
    }
    const auto marked = findings.find(key);
    if (marked != findings.end())
      for (const vtrace::Finding* f : marked->second) {
        block_index.emplace(block_key(f->block), 0);
        hi = std::max(hi, static_cast<double>(f->address) - alloc_address + static_cast<double>(f->size));
      }
    int idx = 0;
    for (auto& [b, i] : block_index) i = idx++;
    // Power-of-two byte bins (at most 64 over the touched range) so 4 KiB tiles land on whole cells.
    double bin = std::exp2(std::ceil(std::log2(std::max(hi, 1.0) / 64)));
    int rows = std::min<int>(idx, 64), cols = std::max(1, static_cast<int>(std::ceil(std::max(hi, 1.0) / bin)));
    double per_row = static_cast<double>(idx) / rows;
    auto row_of = [&](const vtrace::Dim3& block) {
      return std::min(rows - 1, static_cast<int>(block_index[block_key(block)] / per_row));
    };
    // The argument behind this allocation when every record of the group names the same one.
    std::string argument = argument_suffix(g->rows.front()->argument, g->rows.front()->argument_type);
    for (const vtrace::Access* r : g->rows)
      if (argument_suffix(r->argument, r->argument_type) != argument) argument.clear();
    const std::string alloc_name =
        found && !found->name.empty() ? found->name : "allocation " + key.second;
    HeatMap map{"Accesses: " + shorten(key.first, 40) + " × " + alloc_name + argument,
                rows, cols, std::vector<double>(static_cast<std::size_t>(rows) * cols, 0.0), {}, {"byte offset in allocation", "B"},
                {per_row > 1 ? "blocks (grouped)" : "block", ""}, 0, bin * cols, "bytes touched", "B", 900,
                std::min(340.0, 110.0 + 28.0 * rows)};
    for (auto& [b, i] : block_index)
      if (static_cast<int>(i / per_row) < rows && map.row_labels.size() <= static_cast<std::size_t>(i / per_row))
        map.row_labels.push_back(block_label(b));
    for (const vtrace::Access* r : g->rows) {
      const int row = row_of(r->block);
      for (const auto& range : r->ranges) {
        const double lo_abs = static_cast<double>(range[0]), up_abs = static_cast<double>(range[1]);
        double base = up_abs >= alloc_address && alloc_address > 0 && lo_abs >= alloc_address ? alloc_address : 0;
        double lo = lo_abs - base, up = up_abs - base;
        double first = lo / bin;
        int c0 = first > 0 ? static_cast<int>(std::min(first, static_cast<double>(cols))) : 0;
        for (int c = c0; c < cols && c * bin < up; ++c)
          map.values[static_cast<std::size_t>(row) * cols + c] += std::max(0.0, std::min(up, (c + 1) * bin) - std::max(lo, c * bin));
      }
    }
    if (marked != findings.end())
      for (const vtrace::Finding* f : marked->second) {
        const double offset = std::max(0.0, static_cast<double>(f->address) - alloc_address);
        map.marks.push_back({row_of(f->block), offset, std::max(1.0, static_cast<double>(f->size)),
                             "out-of-bounds " + (f->operation.empty() ? std::string("access") : f->operation) +
                                 " of " + std::to_string(f->size) + " B at byte " + num(offset, 0) + ", block " +
                                 block_label(block_key(f->block)) + " thread " + dims(f->thread) +
                                 (f->source ? ", " + finding_source(*f) : std::string())});
      }
    s.figures.push_back({"", render_heat_map(map)});
  }
}

/// "4200 (rank 1, node1)": a process as the findings tables name it.
std::string process_label(const Trace& trace, std::int64_t id) {
  std::string text = id == 0 ? "not recorded" : std::to_string(id);
  for (const vtrace::Process& p : trace.processes) {
    if (p.id != id || (p.rank < 0 && p.host.empty())) continue;
    text += " (" + (p.rank >= 0 ? "rank " + std::to_string(p.rank) + (p.host.empty() ? "" : ", ") : "") + p.host + ")";
  }
  return text;
}

void add_findings(const Trace& trace, Section& s) {
  std::size_t coarsened = 0;
  for (const vtrace::Access& a : trace.accesses)
    if (!a.ranges_exact) ++coarsened;
  if (coarsened)
    s.notes.push_back(std::to_string(coarsened) +
                      " block records touched more than 16 separate ranges of one allocation: their ranges were joined "
                      "over the closest gaps (ranges_exact: false), so the maps cover every byte touched and some "
                      "that were not.");
  if (trace.findings.empty() && trace.findings_total == 0) {
    if (trace.run.mode == "accesses" || !trace.accesses.empty())
      s.notes.push_back("No findings: every access fell inside a live allocation.");
    return;
  }
  if (!trace.finding_sites.empty()) {
    PageTable per_pc{"Out-of-bounds accesses per kernel and PC (" + std::to_string(trace.findings_total) + " in all)",
                     {}, true};
    per_pc.table.headers = {"kernel", "pc", "op", "accesses", "listed below"};
    if (trace.processes.size() > 1) per_pc.table.headers.insert(per_pc.table.headers.begin() + 1, "process");
    for (const vtrace::FindingSite& x : trace.finding_sites) {
      std::vector<std::string> row{shorten(x.kernel, 60), format_address_of(static_cast<double>(x.pc_offset)),
                                   x.operation, std::to_string(x.count), std::to_string(x.listed)};
      if (trace.processes.size() > 1) row.insert(row.begin() + 1, process_label(trace, x.process_id));
      per_pc.table.add_row(std::move(row));
    }
    s.tables.push_back(std::move(per_pc));
  }
  PageTable t{"Findings (" + std::to_string(trace.findings.size()) + " listed)", {}, true};
  t.table.headers = {"kind", "kernel", "launch", "block", "thread",     "pc",      "source", "line",
                     "SASS", "address", "size",  "op",    "allocation", "distance"};
  // A trace of several processes (a merged trace of a job's ranks) has each rank's launch 0: say whose it is.
  const bool processes = trace.processes.size() > 1;
  if (processes) t.table.headers.insert(t.table.headers.begin() + 2, "process");
  for (const vtrace::Finding& f : trace.findings) {
    std::vector<std::string> row{f.kind, shorten(f.kernel, 40), std::to_string(f.launch), dims(f.block),
                                 dims(f.thread), format_address_of(static_cast<double>(f.pc_offset)),
                                 finding_source(f), source_text(f), f.sass,
                                 format_address_of(static_cast<double>(f.address)), std::to_string(f.size),
                                 f.operation, std::to_string(f.allocation) + argument_suffix(f.argument, f.argument_type),
                                 std::to_string(f.distance)};
    if (processes) row.insert(row.begin() + 2, process_label(trace, f.process_id));
    t.table.add_row(std::move(row));
  }
  s.tables.push_back(std::move(t));
}

/// Access mode's hot lines: per kernel (most bytes first), its source lines hottest first, as `vtrace summary --by
/// line` prints them (formats/trace line_summary); instruction rows (no line information) show their SASS.
void add_hot_lines(const Trace& trace, Page& page) {
  if (trace.hot_lines.empty()) return;
  constexpr std::size_t kMaxKernels = 20;
  const vtrace::LineSummary summary = vtrace::summarize_lines(trace);
  Section s{"Hot source lines", {}, {}, {}, {}, {}};
  s.notes.push_back("Per kernel and source line (the innermost frame: an inlined callee's line, a Triton kernel's "
                    "Python line), its global loads, stores and atomics over all recorded launches, counted per warp "
                    "request; rows without a line are single instructions with their SASS.");
  if (summary.dropped_requests)
    s.notes.push_back(format_count(summary.dropped_requests) +
                      " warp requests at PCs past their launch's PC table are not in these tables.");
  for (std::size_t i = 0; i < summary.kernels.size() && i < kMaxKernels; ++i) {
    const vtrace::KernelLines& k = summary.kernels[i];
    std::string title = shorten(k.kernel, 80) + ": " + format_count(k.total.requests) + " warp requests, " +
                        format_bytes_of(static_cast<double>(k.total.bytes_loaded)) + " loaded, " +
                        format_bytes_of(static_cast<double>(k.total.bytes_stored)) + " stored";
    if (k.lines.size() > vtrace::kLineTableRows)
      title += " (the " + std::to_string(vtrace::kLineTableRows) + " hottest of " + std::to_string(k.lines.size()) +
               " rows)";
    s.tables.push_back({title, vtrace::kernel_lines_table(k), false});
  }
  if (summary.kernels.size() > kMaxKernels)
    s.notes.push_back("The " + std::to_string(kMaxKernels) + " kernels that moved the most bytes of " +
                      std::to_string(summary.kernels.size()) + " are shown; vtrace summary --by line lists all.");
  page.sections.push_back(std::move(s));
}

/// The command as one line ("" when not recorded).
std::string command_text(const std::vector<std::string>& command) {
  std::string out;
  for (const std::string& word : command) out += (out.empty() ? "" : " ") + word;
  return out;
}

}  // namespace

Page trace_page(const Trace& trace, std::string_view name) {
  const vtrace::RunInfo& run = trace.run;
  const vtrace::TraceSummary summary = vtrace::summarize_trace(trace);
  Page page{"Trace: " + (run.command.empty() ? std::string("run") : command_text(run.command)), std::string(name), {}};
  Section facts{"Run", {}, {}, {}, {}, {}};
  facts.facts.push_back({"command", command_text(run.command)});
  facts.facts.push_back({"exit status", std::to_string(run.exit_status)});
  if (run.signal != 0) facts.facts.push_back({"signal", std::to_string(run.signal)});
  if (!run.start_time.empty()) facts.facts.push_back({"start", run.start_time});
  if (!run.host.empty()) facts.facts.push_back({"host", run.host});
  for (const vtrace::Device& d : trace.devices) {
    std::string v = d.name.empty() ? "?" : d.name;
    if (!d.compute_capability.empty()) v += ", CC " + d.compute_capability;
    if (d.sm_count > 0) v += ", " + std::to_string(d.sm_count) + " SMs";
    if (d.memory_bytes > 0) v += ", " + format_bytes_of(static_cast<double>(d.memory_bytes));
    facts.facts.push_back({"GPU " + std::to_string(d.id), v});
  }
  facts.facts.push_back({"launches", format_count(trace.kernels.size())});
  if (trace.partial) facts.notes.push_back("Partial trace: the program ended before vtrace flushed everything.");
  if (trace.dropped_records > 0)
    facts.notes.push_back(format_count(trace.dropped_records) + " records were dropped by the tracer.");
  page.sections.push_back(std::move(facts));

  Section timeline{"Timeline", {}, {}, {}, {}, {}};
  add_timeline(trace, summary, timeline);
  add_top_kernels(summary, timeline);
  add_graphs(summary, timeline);
  page.sections.push_back(std::move(timeline));
  add_ranks(trace, page);

  Section access{"Memory accesses", {}, {}, {}, {}, {}};
  add_heat_maps(trace, access);
  add_findings(trace, access);
  if (!access.figures.empty() || !access.tables.empty() || !access.notes.empty()) page.sections.push_back(std::move(access));
  add_hot_lines(trace, page);
  return page;
}

}  // namespace vtools::vrender
