#include "tools/vtrace/trace_diff.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <set>
#include <tuple>
#include <utility>

#include "formats/trace/trace_summary.hpp"

namespace vtools::vtrace {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr std::size_t kMaxBootstrapLaunches = 2000;

/// One side: its summary and each kernel key's launch durations.
struct Side {
  TraceSummary summary;
  std::map<std::string, std::vector<double>> durations;
  std::map<std::string, std::set<std::string>> codes;  ///< code hashes over the launches ("" when unknown)
  DiffTotals totals;
};

/// The kernels and copies `selection` keeps of `trace` (the selection applied once, here), moved out of it: the diff
/// compares times, so allocations, accesses and findings stay behind and are never copied.
Trace timed_part(Trace&& trace, const TraceSelection& selection, std::optional<std::uint32_t> graph) {
  Trace t;
  t.run = std::move(trace.run);
  t.devices = std::move(trace.devices);
  t.kernels = std::move(trace.kernels);
  t.memcpys = std::move(trace.memcpys);
  t.memsets = std::move(trace.memsets);
  return selection.everything() ? t : select_kernels(t, selection, graph);
}

/// Between a kernel's name and its launch shape in a matching key; split again for the output.
constexpr char kShapeMark = '\x1f';

std::string launch_shape(const Kernel& k) { return "grid " + dim3_text(k.grid) + " block " + dim3_text(k.block); }

/// Names that ran with several launch shapes in one trace (either) are matched shape by shape: their key gets the
/// shape. A name with one shape a side is matched by name even where the shapes differ (a recompiled kernel with
/// another block size is one kernel that changed, not one removed and one added).
void key_by_shape(Trace& base, Trace& candidate) {
  std::map<std::string, std::set<std::string>> base_shapes, candidate_shapes;
  for (const Kernel& k : base.kernels) base_shapes[k.name].insert(launch_shape(k));
  for (const Kernel& k : candidate.kernels) candidate_shapes[k.name].insert(launch_shape(k));
  auto several = [](const std::map<std::string, std::set<std::string>>& shapes, const std::string& name) {
    auto it = shapes.find(name);
    return it != shapes.end() && it->second.size() > 1;
  };
  for (Trace* t : {&base, &candidate})
    for (Kernel& k : t->kernels)
      if (several(base_shapes, k.name) || several(candidate_shapes, k.name))
        k.name = k.name.str() + kShapeMark + launch_shape(k);
}

/// {name, launch shape} of a key; the shape is "" for a name matched alone.
std::pair<std::string, std::string> split_key(const std::string& key) {
  const std::size_t at = key.find(kShapeMark);
  if (at == std::string::npos) return {key, ""};
  return {key.substr(0, at), key.substr(at + 1)};
}

Side read_side(const Trace& t) {
  Side s;
  s.summary = summarize_trace(t);
  for (const Kernel& k : t.kernels) {
    s.durations[k.name].push_back(static_cast<double>(k.end_ns >= k.start_ns ? k.end_ns - k.start_ns : 0));
    s.codes[k.name].insert(k.code_hash);
  }
  s.totals.launches = s.summary.launches;
  s.totals.kernels = s.summary.kernels.size();
  s.totals.gpu_time_ns = s.summary.gpu_time_ns;
  s.totals.busy_ns = s.summary.busy_ns;
  for (const CopyStats& c : s.summary.copies) {
    s.totals.copies += c.count;
    s.totals.copy_ns += c.total_ns;
  }
  return s;
}

/// "same" when every launch on both sides ran one known code, "changed" when no code of one side ran on the other,
/// else "unknown" (a code unknown, or codes shared with others: a name with several codes, as template instances that
/// demangle alike, leaves open which code a slower launch ran).
std::string code_verdict(const std::set<std::string>& base, const std::set<std::string>& candidate) {
  if (base.count("") || candidate.count("") || base.empty() || candidate.empty()) return "unknown";
  if (base == candidate) return base.size() == 1 ? "same" : "unknown";
  for (const std::string& code : base)
    if (candidate.count(code)) return "unknown";
  return "changed";
}

/// At most `most` of `xs`, evenly spaced over the launch order: the bootstrap's cost grows with the samples (2000
/// resamples of each), and a kernel launched 13,000 times a side took seconds. The interval gets wider, never
/// narrower; the medians are still over every launch.
std::vector<double> thinned(const std::vector<double>& xs, std::size_t most) {
  if (xs.size() <= most) return xs;
  std::vector<double> out;
  out.reserve(most);
  for (std::size_t i = 0; i < most; ++i) out.push_back(xs[i * xs.size() / most]);
  return out;
}

/// The 95% interval of candidate/base medians and what it is taken over (KernelDiff::interval_over).
std::pair<stats::Interval, std::string> ratio_interval(const std::vector<double>& base,
                                                       const std::vector<double>& candidate) {
  if (base.size() >= 5 && candidate.size() >= 5) {
    // A bootstrap's percentiles need samples; with a handful, Welch's interval (stats.hpp says why). It resamples
    // its sides in one order, always the same one (the shorter, else the smaller, first), so that swapping the two
    // traces gives the reciprocal interval: near 1, resampling noise otherwise flipped "slower" to "same".
    const std::vector<double> b = thinned(base, kMaxBootstrapLaunches), c = thinned(candidate, kMaxBootstrapLaunches);
    const bool swap = std::make_pair(b.size(), b) < std::make_pair(c.size(), c);
    const stats::Interval i = swap ? stats::bootstrap_ratio_of_medians(b, c) : stats::bootstrap_ratio_of_medians(c, b);
    return {swap ? stats::Interval{1 / i.high, 1 / i.low} : i, "launches"};
  }
  if (base.size() >= 2 && candidate.size() >= 2) {
    const stats::Interval i = stats::welch_ratio_interval(candidate, base);
    if (std::isfinite(i.low)) return {i, "few launches"};
  }
  return {{kNaN, kNaN}, "none"};
}

/// The replays of `graph` among `t`'s kernels.
std::vector<double> replay_spans(const Trace& t, std::uint32_t graph) {
  std::vector<const Kernel*> kernels;
  for (const Kernel& k : t.kernels)
    if (k.graph_id == graph) kernels.push_back(&k);
  return graph_replay_spans(std::move(kernels));
}

ReplayDiff diff_replays(const Trace& base, std::uint32_t base_graph, const Trace& candidate,
                        std::uint32_t candidate_graph, double threshold_pct) {
  ReplayDiff r;
  r.base_graph = base_graph;
  r.candidate_graph = candidate_graph;
  const std::vector<double> xb = replay_spans(base, base_graph), xc = replay_spans(candidate, candidate_graph);
  r.base_replays = xb.size();
  r.candidate_replays = xc.size();
  r.base_median_ns = xb.empty() ? 0 : stats::median(xb);
  r.candidate_median_ns = xc.empty() ? 0 : stats::median(xc);
  r.ratio = r.base_median_ns > 0 ? r.candidate_median_ns / r.base_median_ns : kNaN;
  r.change_pct = (r.ratio - 1) * 100;
  std::tie(r.interval, r.interval_over) = ratio_interval(xb, xc);
  r.verdict = diff_verdict(r.ratio, r.interval);
  r.regression = r.verdict == "slower" && stats::exceeds_threshold(r.change_pct, threshold_pct);
  return r;
}

}  // namespace

std::vector<double> graph_replay_spans(std::vector<const Kernel*> kernels) {
  std::stable_sort(kernels.begin(), kernels.end(),
                   [](const Kernel* a, const Kernel* b) { return a->start_ns < b->start_ns; });
  std::vector<double> spans;
  std::set<std::uint64_t> nodes;  // of the replay being gathered
  std::uint64_t first = 0, last = 0;
  for (const Kernel* k : kernels) {
    if (!nodes.empty() && nodes.count(k->graph_node_id)) {
      spans.push_back(static_cast<double>(last - first));
      nodes.clear();
    }
    if (nodes.empty()) first = k->start_ns, last = k->end_ns;
    nodes.insert(k->graph_node_id);
    first = std::min(first, k->start_ns);
    last = std::max(last, k->end_ns);
  }
  if (!nodes.empty()) spans.push_back(static_cast<double>(last - first));
  return spans;
}

std::string diff_verdict(double ratio, stats::Interval interval) {
  if (!std::isfinite(ratio)) return "ambiguous";
  if (!std::isfinite(interval.low) || !std::isfinite(interval.high)) {
    if (ratio >= 2) return "slower";
    if (ratio <= 0.5) return "faster";
    return "ambiguous";
  }
  if (interval.low > 1) return "slower";
  if (interval.high < 1) return "faster";
  return interval.low >= 0.95 && interval.high <= 1.05 ? "same" : "ambiguous";
}

TraceDiff diff_traces(Trace base, Trace candidate, const TraceSelection& selection, double threshold_pct,
                      const std::string& base_source, const std::string& candidate_source) {
  const std::optional<std::uint32_t> base_graph = selected_graph(base, selection, base_source);
  const std::optional<std::uint32_t> candidate_graph = selected_graph(candidate, selection, candidate_source);
  Trace base_kept = timed_part(std::move(base), selection, base_graph);
  Trace candidate_kept = timed_part(std::move(candidate), selection, candidate_graph);
  TraceDiff d;
  if (base_graph && candidate_graph)
    d.replays = diff_replays(base_kept, *base_graph, candidate_kept, *candidate_graph, threshold_pct);
  key_by_shape(base_kept, candidate_kept);
  const Side b = read_side(base_kept);
  const Side c = read_side(candidate_kept);
  d.base_source = base_source;
  d.candidate_source = candidate_source;
  d.base = b.totals;
  d.candidate = c.totals;
  d.threshold_pct = threshold_pct;

  std::map<std::string, const KernelStats*> in_candidate;
  for (const KernelStats& k : c.summary.kernels) in_candidate[k.name] = &k;
  for (const KernelStats& kb : b.summary.kernels) {
    auto it = in_candidate.find(kb.name);
    if (it == in_candidate.end()) {
      const auto [name, shape] = split_key(kb.name);
      d.removed.push_back({name, shape, kb.calls, kb.total_ns, kb.median_ns});
      continue;
    }
    const KernelStats& kc = *it->second;
    in_candidate.erase(it);
    KernelDiff k;
    std::tie(k.name, k.launch_shape) = split_key(kb.name);
    k.base_calls = kb.calls;
    k.candidate_calls = kc.calls;
    k.base_total_ns = kb.total_ns;
    k.candidate_total_ns = kc.total_ns;
    k.base_median_ns = kb.median_ns;
    k.candidate_median_ns = kc.median_ns;
    k.base_exposed_ns = kb.exposed_ns;
    k.candidate_exposed_ns = kc.exposed_ns;
    k.ratio = kb.median_ns > 0 ? kc.median_ns / kb.median_ns : kNaN;
    k.change_pct = (k.ratio - 1) * 100;
    k.total_change_ns = kc.total_ns - kb.total_ns;
    std::tie(k.interval, k.interval_over) = ratio_interval(b.durations.at(kb.name), c.durations.at(kc.name));
    k.verdict = diff_verdict(k.ratio, k.interval);
    k.code = code_verdict(b.codes.at(kb.name), c.codes.at(kc.name));
    if (k.verdict == "slower" || k.verdict == "faster")
      k.likely_cause = k.code == "changed" ? "code" : k.code == "same" ? "environment" : "";
    k.regression = k.verdict == "slower" && stats::exceeds_threshold(k.change_pct, threshold_pct);
    d.kernels.push_back(std::move(k));
  }
  for (const KernelStats& kc : c.summary.kernels)
    if (in_candidate.count(kc.name)) {
      const auto [name, shape] = split_key(kc.name);
      d.added.push_back({name, shape, kc.calls, kc.total_ns, kc.median_ns});
    }

  std::sort(d.kernels.begin(), d.kernels.end(), [](const KernelDiff& x, const KernelDiff& y) {
    const double ax = std::fabs(x.total_change_ns), ay = std::fabs(y.total_change_ns);
    return ax != ay ? ax > ay : std::tie(x.name, x.launch_shape) < std::tie(y.name, y.launch_shape);
  });
  auto by_total = [](const KernelOnly& x, const KernelOnly& y) {
    return x.total_ns != y.total_ns ? x.total_ns > y.total_ns
                                    : std::tie(x.name, x.launch_shape) < std::tie(y.name, y.launch_shape);
  };
  std::sort(d.added.begin(), d.added.end(), by_total);
  std::sort(d.removed.begin(), d.removed.end(), by_total);
  // One run a side gives the busy time no interval: the threshold alone decides.
  d.busy_regression =
      d.base.busy_ns > 0 && stats::exceeds_threshold((d.candidate.busy_ns / d.base.busy_ns - 1) * 100, threshold_pct);
  return d;
}

}  // namespace vtools::vtrace
