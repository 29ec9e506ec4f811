#include "tools/vtrace/trace_diff.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <set>

#include "tools/vtrace/trace_summary.hpp"

namespace vtools::vtrace {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr std::size_t kMaxBootstrapLaunches = 2000;

/// One side: its summary and each kernel name's launch durations.
struct Side {
  TraceSummary summary;
  std::map<std::string, std::vector<double>> durations;
  std::map<std::string, std::set<std::string>> codes;  ///< code hashes over the launches ("" when unknown)
  DiffTotals totals;
};

/// The selection is applied once, here; the summary then takes the kept kernels as they are.
Side read_side(const Trace& trace, const TraceSelection& selection, const std::string& source) {
  Side s;
  const Trace kept =
      selection.everything() ? Trace{} : select_kernels(trace, selection, selected_graph(trace, selection, source));
  const Trace& t = selection.everything() ? trace : kept;
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

/// "same" when every launch on both sides ran one known code, "changed" when both sides' codes are known and
/// differ, else "unknown".
std::string code_verdict(const std::set<std::string>& base, const std::set<std::string>& candidate) {
  if (base.count("") || candidate.count("") || base.empty() || candidate.empty()) return "unknown";
  return base == candidate && base.size() == 1 ? "same" : "changed";
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

}  // namespace

bool TraceDiff::has_regression() const {
  return busy_regression || std::any_of(kernels.begin(), kernels.end(), [](const KernelDiff& k) { return k.regression; });
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

TraceDiff diff_traces(const Trace& base, const Trace& candidate, const TraceSelection& selection,
                      double threshold_pct, const std::string& base_source, const std::string& candidate_source) {
  const Side b = read_side(base, selection, base_source);
  const Side c = read_side(candidate, selection, candidate_source);
  TraceDiff d;
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
      d.removed.push_back({kb.name, kb.calls, kb.total_ns, kb.median_ns});
      continue;
    }
    const KernelStats& kc = *it->second;
    in_candidate.erase(it);
    KernelDiff k;
    k.name = kb.name;
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
    const std::vector<double>& xb = b.durations.at(kb.name);
    const std::vector<double>& xc = c.durations.at(kc.name);
    k.interval = {kNaN, kNaN};
    k.interval_over = "none";
    if (xb.size() >= 5 && xc.size() >= 5) {
      // A bootstrap's percentiles need samples; with a handful, Welch's interval (stats.hpp says why).
      k.interval = stats::bootstrap_ratio_of_medians(thinned(xc, kMaxBootstrapLaunches), thinned(xb, kMaxBootstrapLaunches));
      k.interval_over = "launches";
    } else if (xb.size() >= 2 && xc.size() >= 2) {
      k.interval = stats::welch_ratio_interval(xc, xb);
      if (std::isfinite(k.interval.low)) k.interval_over = "few launches";
    }
    k.verdict = diff_verdict(k.ratio, k.interval);
    k.code = code_verdict(b.codes.at(kb.name), c.codes.at(kc.name));
    if (k.verdict == "slower" || k.verdict == "faster")
      k.likely_cause = k.code == "changed" ? "code" : k.code == "same" ? "environment" : "";
    k.regression = threshold_pct >= 0 && k.verdict == "slower" && k.change_pct > threshold_pct;
    d.kernels.push_back(std::move(k));
  }
  for (const KernelStats& kc : c.summary.kernels)
    if (in_candidate.count(kc.name)) d.added.push_back({kc.name, kc.calls, kc.total_ns, kc.median_ns});

  std::sort(d.kernels.begin(), d.kernels.end(), [](const KernelDiff& x, const KernelDiff& y) {
    const double ax = std::fabs(x.total_change_ns), ay = std::fabs(y.total_change_ns);
    return ax != ay ? ax > ay : x.name < y.name;
  });
  auto by_total = [](const KernelOnly& x, const KernelOnly& y) {
    return x.total_ns != y.total_ns ? x.total_ns > y.total_ns : x.name < y.name;
  };
  std::sort(d.added.begin(), d.added.end(), by_total);
  std::sort(d.removed.begin(), d.removed.end(), by_total);
  // One run a side gives the busy time no interval: the threshold alone decides.
  d.busy_regression = threshold_pct >= 0 && d.base.busy_ns > 0 &&
                      (d.candidate.busy_ns / d.base.busy_ns - 1) * 100 > threshold_pct;
  return d;
}

}  // namespace vtools::vtrace
