#include "tools/vrender/trace_page.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <map>

#include "libcommon/human_units.hpp"
#include "libcommon/timeline.hpp"
#include "tools/vrender/chart_frame.hpp"
#include "tools/vrender/json_view.hpp"
#include "tools/vrender/svg_markup.hpp"

namespace vtools::vrender {

namespace {

// Times relative to the first activity; absolute trace timestamps (~1.8e18 ns) lose precision as doubles.
struct Activity {
  double start_ns = 0, end_ns = 0;
  std::string name;  // kernel name or "memcpy <kind>"
  int color = -1;
  std::string detail;
};

struct KernelTotals {
  std::string name;
  std::size_t launches = 0;
  double total_ns = 0, min_ns = 0, max_ns = 0;
  double exposed_ns = 0;  ///< what its launches add to the time some kernel runs (libcommon/timeline.hpp)
};

std::string id_text(const JsonView& obj, std::string_view key) { return obj.text_or(key, "0"); }

// Lane keys sort numerically when ids are numbers ("7" before "13").
std::string sort_key(const std::string& id) {
  bool digits = !id.empty() && id.size() < 20 && std::all_of(id.begin(), id.end(), [](char c) { return c >= '0' && c <= '9'; });
  return digits ? std::string(20 - id.size(), '0') + id : id;
}

std::string dims(const JsonView& obj, std::string_view key) {
  std::string out;
  for (double d : obj.numbers(key)) out += (out.empty() ? "" : ",") + num(d, 0);
  return out.empty() ? "?" : "(" + out + ")";
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

/// Whether NVTX range `r` ended (end_ns a number; null while the range was open at exit).
bool nvtx_ended(const JsonView& r) {
  const OrderedJson* end = r.at("end_ns").raw();
  return end && end->is_number();
}

/// NVTX ranges (vtrace run --nvtx) as lanes above the GPU's: per process and thread, a lane per nesting depth
/// (push/pop ranges nest), each range labelled with its name. A range that never ended runs to `last_ns`; marks
/// are instants and are not drawn. `rel` makes a time relative to the timeline's origin.
template <typename Rel>
std::vector<Lane> nvtx_lanes(const std::vector<JsonView>& ranges, const Rel& rel, double last_ns, double t0,
                             double div) {
  struct Range {
    double start_ns, end_ns;
    std::string name;
  };
  std::map<std::pair<std::string, std::string>, std::vector<Range>> by_thread;
  for (const JsonView& r : ranges) {
    if (const OrderedJson* mark = r.at("mark").raw(); mark && mark->is_boolean() && mark->get<bool>()) continue;
    const std::string domain = r.text_or("domain", "");
    const double start = rel(r, "start_ns");
    by_thread[{sort_key(id_text(r, "process_id")), sort_key(id_text(r, "thread_id"))}].push_back(
        {start, std::max(start, nvtx_ended(r) ? rel(r, "end_ns") : last_ns),
         (domain.empty() ? "" : domain + ": ") + r.text_or("name", "range")});
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

void add_timeline(const JsonView& root, Section& s, std::vector<KernelTotals>& totals) {
  std::map<std::pair<std::string, std::string>, std::vector<Activity>> lanes;
  std::map<std::string, KernelTotals> by_name;
  auto kernels = root.items("kernels"), memcpys = root.items("memcpys"), nvtx = root.items("nvtx_ranges");
  if (nvtx.size() > kMaxTimelineSpans) {
    s.notes.push_back(format_count(nvtx.size()) + " NVTX ranges: too many to draw; vtrace summary lists them.");
    nvtx.clear();
  }
  // The origin: the earliest start, read as an exact integer.
  std::int64_t origin = 0;
  bool have_origin = false;
  for (const auto* list : {&kernels, &memcpys, &nvtx})
    for (const JsonView& a : *list) {
      std::int64_t s = a.integer_or("start_ns", 0);
      origin = have_origin ? std::min(origin, s) : s;
      have_origin = true;
    }
  // Exact while the span fits in 64 bits; a wider one (only a hostile document has it) loses precision, not defined
  // behaviour (signed overflow, found by vrender_document_fuzz).
  auto rel = [&](const JsonView& a, std::string_view key) {
    std::int64_t v = a.integer_or(key, origin), d = 0;
    return __builtin_sub_overflow(v, origin, &d) ? static_cast<double>(v) - static_cast<double>(origin)
                                                 : static_cast<double>(d);
  };
  bool aggregate = kernels.size() + memcpys.size() > kMaxTimelineSpans;
  std::vector<TimeSpan> kernel_spans;  // for the exposed times, as vtrace summary computes them
  std::vector<std::string> kernel_names;
  double t0 = 0, t1 = 0, g0 = 0, g1 = 0;  // all activity; kernels and copies only
  bool any = false, any_gpu = false;
  auto note_time = [&](double a, double b) {
    t0 = any ? std::min(t0, a) : a, t1 = any ? std::max(t1, b) : b;
    any = true;
  };
  for (const JsonView& k : kernels) {
    Activity a{rel(k, "start_ns"), rel(k, "end_ns"), k.text_or("name", k.text_or("mangled_name", "kernel")), 0, ""};
    if (a.end_ns < a.start_ns) a.end_ns = a.start_ns;
    if (!aggregate) a.detail = "grid " + dims(k, "grid") + " block " + dims(k, "block");  // only shown per launch
    note_time(a.start_ns, a.end_ns);
    auto& t = by_name[a.name];
    double d = a.end_ns - a.start_ns;
    t.name = a.name;
    t.min_ns = t.launches ? std::min(t.min_ns, d) : d;
    t.max_ns = std::max(t.max_ns, d);
    t.total_ns += d;
    ++t.launches;
    kernel_spans.push_back({k.integer_or("device_id", 0), a.start_ns, a.end_ns});
    kernel_names.push_back(a.name);
    lanes[{sort_key(id_text(k, "device_id")), sort_key(id_text(k, "stream_id"))}].push_back(std::move(a));
  }
  for (const JsonView& m : memcpys) {
    Activity a{rel(m, "start_ns"), rel(m, "end_ns"), "memcpy " + m.text_or("kind", ""), -1, ""};
    if (a.end_ns < a.start_ns) a.end_ns = a.start_ns;
    a.detail = m.number("bytes") ? format_bytes_of(*m.number("bytes")) : "";
    note_time(a.start_ns, a.end_ns);
    lanes[{sort_key(id_text(m, "device_id")), sort_key(id_text(m, "stream_id"))}].push_back(std::move(a));
  }
  for (const auto& [key, acts] : lanes)
    for (const Activity& a : acts) {
      g0 = any_gpu ? std::min(g0, a.start_ns) : a.start_ns, g1 = any_gpu ? std::max(g1, a.end_ns) : a.end_ns;
      any_gpu = true;
    }
  for (const JsonView& r : nvtx) {
    const double start = rel(r, "start_ns");
    note_time(start, nvtx_ended(r) ? rel(r, "end_ns") : start);
  }
  const std::vector<double> exposed = exposed_times(kernel_spans);
  double busy_ns = 0, kernel_ns = 0;
  for (std::size_t i = 0; i < exposed.size(); ++i) {
    by_name[kernel_names[i]].exposed_ns += exposed[i];
    busy_ns += exposed[i];
    kernel_ns += kernel_spans[i].end - kernel_spans[i].start;
  }
  if (!exposed.empty()) {
    s.notes.push_back("Kernels ran " + format_duration_ns(kernel_ns) + " in all and some kernel ran during " +
                      format_duration_ns(busy_ns) + " (busy); a kernel's exposed time is what it adds to the busy "
                      "time, so a kernel that overlaps others (a programmatic dependent waiting for the one before, "
                      "another stream) exposes less than it runs.");
  }
  for (auto& [name, t] : by_name) totals.push_back(t);
  std::sort(totals.begin(), totals.end(), [](const KernelTotals& a, const KernelTotals& b) {
    return a.total_ns != b.total_ns ? a.total_ns > b.total_ns : a.name < b.name;
  });
  if (!any) {
    s.notes.push_back("The trace has no kernel launches or copies.");
    return;
  }
  std::map<std::string, int> colors;
  LaneChart chart{"Timeline (wheel: zoom, drag: pan, double-click: reset)", {}, {}, 0, 0, true, {}, 1400, 22};
  for (std::size_t i = 0; i < totals.size() && i < 9; ++i) {
    colors[totals[i].name] = static_cast<int>(i);
    chart.legend.push_back(shorten(totals[i].name, 24));
    chart.legend_colors.push_back(static_cast<int>(i));
  }
  if (totals.size() > 9) chart.legend.push_back("other kernels"), chart.legend_colors.push_back(9);
  if (!memcpys.empty()) chart.legend.push_back("copies"), chart.legend_colors.push_back(-1);
  auto [div, unit] = time_unit(t1 - t0);
  chart.x = {"time since first activity", unit};
  chart.x_hi = (t1 - t0) / div;
  std::size_t count = kernels.size() + memcpys.size();
  double bucket_ns = (t1 - t0) / static_cast<double>(kTimelineBuckets);
  // An activity's time bucket; times read from a document may be anything (a span past the doubles' range makes
  // the quotient NaN), and converting a NaN or huge quotient to an integer is undefined: those take bucket 0.
  const auto bucket_of = [&](double start_ns) {
    const double q = (start_ns - t0) / std::max(bucket_ns, 1e-9);
    return q >= 0 && q < 1e18 ? static_cast<long long>(q) : 0LL;
  };
  std::size_t drawn = 0;
  for (Lane& lane : nvtx_lanes(nvtx, rel, t1, t0, div)) {
    drawn += lane.spans.size();
    chart.lanes.push_back(std::move(lane));
  }
  if (!nvtx.empty()) chart.legend.push_back("NVTX ranges (named)"), chart.legend_colors.push_back(-1);
  for (auto& [key, acts] : lanes) {
    std::sort(acts.begin(), acts.end(), [](const Activity& a, const Activity& b) { return a.start_ns < b.start_ns; });
    Lane lane{"GPU " + unpad(key.first) + " · stream " + unpad(key.second), {}};
    for (std::size_t i = 0; i < acts.size();) {
      const Activity& a = acts[i];
      if (!aggregate) {
        int c = a.color < 0 ? -1 : (colors.count(a.name) ? colors[a.name] : 9);
        lane.spans.push_back({(a.start_ns - t0) / div, (a.end_ns - t0) / div, c, "",
                              a.name + "\n" + format_duration_ns(a.end_ns - a.start_ns) + ", " + a.detail});
        ++i;
        continue;
      }
      // One span per time bucket: first start to last end of the activities starting in it.
      const long long b = bucket_of(a.start_ns);
      double end = a.end_ns, busy = 0;
      std::size_t j = i;
      std::map<std::string, double> share;
      for (; j < acts.size() && bucket_of(acts[j].start_ns) == b; ++j) {
        end = std::max(end, acts[j].end_ns);
        busy += acts[j].end_ns - acts[j].start_ns;
        share[acts[j].name] += acts[j].end_ns - acts[j].start_ns;
      }
      auto top = std::max_element(share.begin(), share.end(), [](const auto& x, const auto& y) { return x.second < y.second; });
      int c = top->first.rfind("memcpy", 0) == 0 ? -1 : (colors.count(top->first) ? colors[top->first] : 9);
      lane.spans.push_back({(a.start_ns - t0) / div, (end - t0) / div, c, "",
                            std::to_string(j - i) + " activities, busy " + format_duration_ns(busy) + "; most time: " + top->first});
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

void add_top_kernels(const std::vector<KernelTotals>& totals, Section& s) {
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
    if (i < 15) {
      chart.categories.push_back(shorten(t.name, 24));
      chart.series[0].values.push_back(t.total_ns / per_unit);
      chart.series[0].tooltips.push_back(t.name + ": " + format_duration_ns(t.total_ns) + " over " + format_count(t.launches) + " launches");
    }
    if (i < 50)
      table.table.add_row({shorten(t.name, 60), format_count(t.launches), format_duration_ns(t.total_ns),
                           format_duration_ns(t.total_ns / static_cast<double>(t.launches)), format_duration_ns(t.min_ns),
                           format_duration_ns(t.max_ns), num(all > 0 ? 100 * t.total_ns / all : 0, 1) + "%",
                           format_duration_ns(t.exposed_ns)});
  }
  if (totals.size() > 50) s.notes.push_back("The table lists the 50 kernels with the most time of " + format_count(totals.size()) + ".");
  s.figures.push_back({"", render_bar_chart(chart)});
  s.tables.push_back(std::move(table));
}

/// The CUDA graphs among the kernels, as `vtrace summary` counts them: launches (the most runs of any one kernel
/// node), kernel nodes, kernel launches, kernel time in all and per graph launch. Nothing when no graph ran.
void add_graphs(const JsonView& root, Section& s) {
  struct Graph {
    std::map<std::string, std::uint64_t> node_runs;  // by node id as written (CUPTI ids use all 64 bits)
    std::uint64_t kernels = 0;
    double total_ns = 0;
  };
  std::map<std::int64_t, Graph> graphs;
  for (const JsonView& k : root.items("kernels")) {
    const std::int64_t id = k.integer_or("graph_id", 0);
    if (id <= 0) continue;
    Graph& g = graphs[id];
    ++g.node_runs[k.at("graph_node_id").present() ? k.at("graph_node_id").as_text() : ""];
    ++g.kernels;
    g.total_ns += std::max(0.0, k.number_or("end_ns", 0) - k.number_or("start_ns", 0));
  }
  if (graphs.empty()) return;
  constexpr std::size_t kMaxRows = 50;
  PageTable table{"CUDA graphs", {}, true};
  table.table.headers = {"graph", "launches", "kernel nodes", "kernels", "GPU time", "per launch"};
  table.table.align.assign(6, Table::Align::kRight);
  for (const auto& [id, g] : graphs) {
    if (table.table.rows.size() == kMaxRows) break;
    std::uint64_t launches = 0;
    for (const auto& [node, runs] : g.node_runs) launches = std::max(launches, runs);
    table.table.add_row({num(static_cast<double>(id), 0), format_count(launches), format_count(g.node_runs.size()),
                         format_count(g.kernels), format_duration_ns(g.total_ns),
                         format_duration_ns(g.total_ns / static_cast<double>(launches))});
  }
  if (graphs.size() > kMaxRows) {
    s.notes.push_back("The graph table lists the first " + std::to_string(kMaxRows) + " of " +
                      format_count(graphs.size()) + " CUDA graphs.");
  }
  s.tables.push_back(std::move(table));
}

struct Allocation {
  double address = 0, size = 0;
  std::string name;
};

/// ", argument 0 (float const*)" for an access or finding that vtrace tied to a kernel argument, else "".
std::string argument_suffix(const JsonView& v) {
  double index = v.number_or("argument", -1);
  if (index < 0) return "";
  std::string type = v.text_or("argument_type", "");
  return ", argument " + num(index, 0) + (type.empty() ? "" : " (" + type + ")");
}

/// "file:line[:col]" of a source frame object of a finding (vtrace's source / inlined_at[i]).
std::string source_frame_text(const JsonView& frame) {
  std::string text = frame.text_or("file", "?") + ":" + num(frame.number_or("line", 0), 0);
  if (frame.number_or("column", 0) > 0) text += ":" + num(frame.number_or("column", 0), 0);
  return text;
}

/// Where a finding's instruction came from: "k.cu:12 in f, inlined at k.cu:19", or its source_note (why there is
/// no line), or "" for documents from before vtrace gave source lines.
std::string finding_source(const JsonView& f) {
  const JsonView source = f.at("source");
  if (!source.present()) return f.text_or("source_note", "");
  std::string text = source_frame_text(source);
  if (const std::string function = source.text_or("function", ""); !function.empty())
    text += " in " + shorten(function, 40);
  for (const JsonView& at : source.items("inlined_at")) text += ", inlined at " + source_frame_text(at);
  return text;
}

/// The text of a finding's source line as vtrace read it (leading blanks dropped, shortened), "" when none.
std::string source_text(const JsonView& f) {
  std::string text = f.at("source").text_or("text", "");
  text.erase(0, text.find_first_not_of(" \t"));
  return text.empty() ? text : shorten(text, 60);
}

/// A record's block as a sort key (z, y, x), so blocks order as the grid numbers them; missing dims read as 0.
std::array<double, 3> block_key(const JsonView& record) {
  std::vector<double> b = record.numbers("block");
  b.resize(3, 0);
  return {b[2], b[1], b[0]};
}

/// "(x,y,z)" of a block_key.
std::string block_label(const std::array<double, 3>& key) {
  return "(" + num(key[2], 0) + "," + num(key[1], 0) + "," + num(key[0], 0) + ")";
}

/// The demangled names version 2's access records index by kernel_id (empty for version 1).
std::vector<std::string> access_kernel_names(const JsonView& root) {
  std::vector<std::string> names;
  for (const JsonView& n : root.items("access_kernels")) names.push_back(n.as_text());
  return names;
}

/// An access record's kernel: by kernel_id (version 2), else by name (version 1).
std::string access_kernel(const JsonView& a, const std::vector<std::string>& names) {
  const std::optional<double> id = a.number("kernel_id");
  if (!id) return a.text_or("kernel", "kernel");
  if (*id < 0 || *id >= static_cast<double>(names.size()) || *id != std::floor(*id))
    a.fail("kernel_id", "an index into access_kernels (" + std::to_string(names.size()) + " names)");
  return names[static_cast<std::size_t>(*id)];
}

void add_heat_maps(const JsonView& root, Section& s) {
  std::map<std::string, Allocation> allocs;
  for (const JsonView& a : root.items("allocations"))
    allocs[a.at("id").present() ? a.at("id").as_text() : std::to_string(allocs.size())] = {
        a.number_or("address", 0), a.number_or("size", 0), a.text_or("name", "")};
  struct Group {
    double bytes = 0;
    std::vector<JsonView> rows;
  };
  std::map<std::pair<std::string, std::string>, Group> groups;
  // Findings by (kernel, nearest allocation): each is marked on that pair's map, at its block and bytes.
  std::map<std::pair<std::string, std::string>, std::vector<JsonView>> findings;
  for (const JsonView& f : root.items("findings"))
    if (f.at("allocation").present() && f.at("allocation").as_text() != "-1")
      findings[{f.text_or("kernel", "kernel"), f.at("allocation").as_text()}].push_back(f);
  const std::vector<std::string> kernels = access_kernel_names(root);
  for (const JsonView& a : root.items("accesses")) {
    auto& g = groups[{access_kernel(a, kernels), a.at("allocation").present() ? a.at("allocation").as_text() : "?"}];
    g.bytes += a.number_or("bytes_loaded", 0) + a.number_or("bytes_stored", 0);
    g.rows.push_back(a);
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
    auto it = allocs.find(key.second);
    Allocation alloc = it != allocs.end() ? it->second : Allocation{};
    // Blocks in first-seen order sorted by (z, y, x); byte ranges are absolute addresses when they fall inside the
    // allocation, else offsets into it.
    std::map<std::array<double, 3>, int> block_index;
    double hi = alloc.size;
    for (const JsonView& r : g->rows) {
      block_index.emplace(block_key(r), 0);
      for (const JsonView& range : r.items("ranges")) {
        std::vector<double> lr = range.items("").size() ? range.numbers("") : std::vector<double>{};
        if (lr.size() < 2) range.fail("", "an array [lo, hi)");
        double off = lr[1] >= alloc.address && alloc.address > 0 ? lr[1] - alloc.address : lr[1];
        hi = std::max(hi, off);
      }
    }
    const auto marked = findings.find(key);
    if (marked != findings.end())
      for (const JsonView& f : marked->second) {
        block_index.emplace(block_key(f), 0);
        hi = std::max(hi, f.number_or("address", 0) - alloc.address + f.number_or("size", 1));
      }
    int idx = 0;
    for (auto& [b, i] : block_index) i = idx++;
    // Power-of-two byte bins (at most 64 over the touched range) so 4 KiB tiles land on whole cells.
    double bin = std::exp2(std::ceil(std::log2(std::max(hi, 1.0) / 64)));
    int rows = std::min<int>(idx, 64), cols = std::max(1, static_cast<int>(std::ceil(std::max(hi, 1.0) / bin)));
    double per_row = static_cast<double>(idx) / rows;
    auto row_of = [&](const JsonView& record) {
      return std::min(rows - 1, static_cast<int>(block_index[block_key(record)] / per_row));
    };
    // The argument behind this allocation when every record of the group names the same one.
    std::string argument = argument_suffix(g->rows.front());
    for (const JsonView& r : g->rows)
      if (argument_suffix(r) != argument) argument.clear();
    HeatMap map{"Accesses: " + shorten(key.first, 40) + " × " +
                    (alloc.name.empty() ? "allocation " + key.second : alloc.name) + argument,
                rows, cols, std::vector<double>(static_cast<std::size_t>(rows) * cols, 0.0), {}, {"byte offset in allocation", "B"},
                {per_row > 1 ? "blocks (grouped)" : "block", ""}, 0, bin * cols, "bytes touched", "B", 900,
                std::min(340.0, 110.0 + 28.0 * rows)};
    for (auto& [b, i] : block_index)
      if (static_cast<int>(i / per_row) < rows && map.row_labels.size() <= static_cast<std::size_t>(i / per_row))
        map.row_labels.push_back(block_label(b));
    for (const JsonView& r : g->rows) {
      const int row = row_of(r);
      for (const JsonView& range : r.items("ranges")) {
        std::vector<double> lr = range.numbers("");
        double base = lr[1] >= alloc.address && alloc.address > 0 && lr[0] >= alloc.address ? alloc.address : 0;
        double lo = lr[0] - base, up = lr[1] - base;
        double first = lo / bin;  // a reversed range puts lo far past the columns: clamp before the cast to int
        int c0 = first > 0 ? static_cast<int>(std::min(first, static_cast<double>(cols))) : 0;
        for (int c = c0; c < cols && c * bin < up; ++c)
          map.values[static_cast<std::size_t>(row) * cols + c] += std::max(0.0, std::min(up, (c + 1) * bin) - std::max(lo, c * bin));
      }
    }
    if (marked != findings.end())
      for (const JsonView& f : marked->second) {
        const double offset = std::max(0.0, f.number_or("address", 0) - alloc.address);
        map.marks.push_back({row_of(f), offset, std::max(1.0, f.number_or("size", 1)),
                             "out-of-bounds " + f.text_or("operation", "access") + " of " +
                                 num(f.number_or("size", 0), 0) + " B at byte " + num(offset, 0) + ", block " +
                                 block_label(block_key(f)) + " thread " + dims(f, "thread") +
                                 (f.at("source").present() ? ", " + finding_source(f) : std::string())});
      }
    s.figures.push_back({"", render_heat_map(map)});
  }
}

void add_findings(const JsonView& root, Section& s) {
  auto findings = root.items("findings");
  std::size_t coarsened = 0;
  for (const JsonView& a : root.items("accesses"))
    if (a.boolean("ranges_exact") == std::optional<bool>(false)) ++coarsened;
  if (coarsened)
    s.notes.push_back(std::to_string(coarsened) +
                      " block records touched more than 16 separate ranges of one allocation: their ranges were joined "
                      "over the closest gaps (ranges_exact: false), so the maps cover every byte touched and some "
                      "that were not.");
  const auto total = root.number("findings_total");
  if (findings.empty() && (!total || *total == 0)) {
    if (root.at("accesses").present()) s.notes.push_back("No findings: every access fell inside a live allocation.");
    return;
  }
  auto sites = root.items("finding_sites");
  if (!sites.empty()) {
    PageTable per_pc{"Out-of-bounds accesses per kernel and PC (" + (total ? num(*total, 0) : std::string("?")) +
                         " in all)",
                     {}, true};
    per_pc.table.headers = {"kernel", "pc", "op", "accesses", "listed below"};
    for (const JsonView& x : sites)
      per_pc.table.add_row({shorten(x.text_or("kernel", ""), 60),
                            x.number("pc_offset") ? format_address_of(*x.number("pc_offset")) : "",
                            x.text_or("operation", ""), x.number("count") ? num(*x.number("count"), 0) : "",
                            x.number("listed") ? num(*x.number("listed"), 0) : ""});
    s.tables.push_back(std::move(per_pc));
  }
  PageTable t{"Findings (" + std::to_string(findings.size()) + " listed)", {}, true};
  t.table.headers = {"kind", "kernel", "launch", "block", "thread",     "pc",      "source", "line",
                     "SASS", "address", "size",  "op",    "allocation", "distance"};
  for (const JsonView& f : findings) {
    auto addr = f.number("address");
    t.table.add_row({f.text_or("kind", ""), shorten(f.text_or("kernel", ""), 40), f.number("launch") ? num(*f.number("launch"), 0) : "",
                     dims(f, "block"), dims(f, "thread"), f.number("pc_offset") ? format_address_of(*f.number("pc_offset")) : "",
                     finding_source(f), source_text(f), f.text_or("sass", ""), addr ? format_address_of(*addr) : "", f.number("size") ? num(*f.number("size"), 0) : "",
                     f.text_or("operation", ""),
                     f.at("allocation").present() ? f.at("allocation").as_text() + argument_suffix(f) : "",
                     f.number("distance") ? num(*f.number("distance"), 0) : ""});
  }
  s.tables.push_back(std::move(t));
}

}  // namespace

Page trace_page(const OrderedJson& doc, std::string_view name) {
  JsonView root(&doc, std::string(name), "");
  JsonView run = root.at("run");
  Page page{"Trace: " + run.text_or("command", "run"), std::string(name), {}};
  Section facts{"Run", {}, {}, {}, {}, {}};
  facts.facts.push_back({"command", run.text_or("command", "")});
  if (run.number("exit_status")) facts.facts.push_back({"exit status", num(*run.number("exit_status"), 0)});
  if (run.at("signal").present() && run.at("signal").as_text() != "0") facts.facts.push_back({"signal", run.at("signal").as_text()});
  if (run.at("start_time").present()) facts.facts.push_back({"start", run.at("start_time").as_text()});
  if (run.at("host").present()) facts.facts.push_back({"host", run.at("host").as_text()});
  for (const JsonView& d : root.items("devices")) {
    std::string v = d.text_or("name", "?");
    if (d.at("compute_capability").present()) v += ", CC " + d.at("compute_capability").as_text();
    if (d.number("sm_count")) v += ", " + num(*d.number("sm_count"), 0) + " SMs";
    if (d.number("memory_bytes")) v += ", " + format_bytes_of(*d.number("memory_bytes"));
    facts.facts.push_back({"GPU " + (d.at("id").present() ? d.at("id").as_text() : "?"), v});
  }
  facts.facts.push_back({"launches", format_count(root.items("kernels").size())});
  if (root.boolean("partial").value_or(false)) facts.notes.push_back("Partial trace: the program ended before vtrace flushed everything.");
  if (root.number_or("dropped_records", 0) > 0)
    facts.notes.push_back(format_count_of(root.number_or("dropped_records", 0)) + " records were dropped by the tracer.");
  page.sections.push_back(std::move(facts));

  Section timeline{"Timeline", {}, {}, {}, {}, {}};
  std::vector<KernelTotals> totals;
  add_timeline(root, timeline, totals);
  add_top_kernels(totals, timeline);
  add_graphs(root, timeline);
  page.sections.push_back(std::move(timeline));

  Section access{"Memory accesses", {}, {}, {}, {}, {}};
  add_heat_maps(root, access);
  add_findings(root, access);
  if (!access.figures.empty() || !access.tables.empty() || !access.notes.empty()) page.sections.push_back(std::move(access));
  return page;
}

}  // namespace vtools::vrender
