#include "tools/vtrace/api_summary.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "libcommon/stats.hpp"

namespace vtools::vtrace {

namespace {
using Intervals = std::vector<TimeInterval>;
}  // namespace

std::uint64_t idle_covered(const Intervals& busy, const Intervals& blocked) {
  const Intervals b = interval_union(busy), w = interval_union(blocked);
  std::uint64_t covered = 0;
  std::size_t j = 0;
  for (std::size_t i = 0; i + 1 < b.size(); ++i) {  // the gap between busy interval i and i + 1
    const std::uint64_t gap_start = b[i].second, gap_end = b[i + 1].first;
    while (j < w.size() && w[j].second <= gap_start) ++j;
    for (std::size_t k = j; k < w.size() && w[k].first < gap_end; ++k)
      covered += std::min(gap_end, w[k].second) - std::max(gap_start, w[k].first);
  }
  return covered;
}

ApiSummary summarize_api(const Trace& t) {
  ApiSummary s;
  s.recorded = t.run.api || !t.api_calls.empty();
  std::map<std::string, std::vector<double>> by_name;
  for (const ApiCall& c : t.api_calls) {
    by_name[c.name].push_back(static_cast<double>(c.end_ns - c.start_ns));
    s.total_ns += c.end_ns - c.start_ns;
    ++s.calls;
  }
  for (auto& [name, xs] : by_name) {
    ApiFunction f;
    f.name = name;
    f.calls = xs.size();
    const stats::Summary sum = stats::summarize(xs);
    for (double x : xs) f.total_ns += static_cast<std::uint64_t>(x);
    f.share = s.total_ns ? static_cast<double>(f.total_ns) / static_cast<double>(s.total_ns) : 0;
    f.mean_ns = sum.mean;
    f.median_ns = sum.median;
    f.stddev_ns = xs.size() > 1 ? sum.std : 0;
    f.min_ns = static_cast<std::uint64_t>(sum.min);
    f.max_ns = static_cast<std::uint64_t>(sum.max);
    s.functions.push_back(std::move(f));
  }
  std::sort(s.functions.begin(), s.functions.end(), [](const ApiFunction& a, const ApiFunction& b) {
    return a.total_ns != b.total_ns ? a.total_ns > b.total_ns : a.name < b.name;
  });

  std::vector<double> delays;
  for (const Kernel& k : t.kernels) {
    if (!k.launch_ns) continue;
    if (k.start_ns >= *k.launch_ns) delays.push_back(static_cast<double>(k.start_ns - *k.launch_ns));
    else ++s.queue.started_before_launch;
  }
  if (!delays.empty()) {
    std::sort(delays.begin(), delays.end());
    s.queue.kernels = delays.size();
    s.queue.median_ns = stats::percentile_sorted(delays, 50);
    s.queue.p90_ns = stats::percentile_sorted(delays, 90);
    s.queue.max_ns = static_cast<std::uint64_t>(delays.back());
  }

  std::map<std::uint32_t, Intervals> busy;
  std::map<std::uint32_t, std::set<std::int64_t>> users;  // processes that ran kernels on the device
  for (const Kernel& k : t.kernels) {
    busy[k.device_id].emplace_back(k.start_ns, k.end_ns);
    users[k.device_id].insert(k.process_id);
  }
  for (const Memcpy& m : t.memcpys) busy[m.device_id].emplace_back(m.start_ns, m.end_ns);
  for (const Memset& m : t.memsets) busy[m.device_id].emplace_back(m.start_ns, m.end_ns);
  for (auto& [device, intervals] : busy) {
    DeviceIdle d;
    d.device_id = device;
    for (const Device& x : t.devices)
      if (x.id == device) d.name = x.name;
    const Intervals u = interval_union(intervals);
    if (u.empty()) continue;
    d.span_ns = u.back().second - u.front().first;
    for (const auto& [a, b] : u) d.busy_ns += b - a;
    d.idle_ns = d.span_ns - d.busy_ns;
    Intervals blocked;
    const auto& who = users[device];
    for (const ApiCall& c : t.api_calls)
      if (who.empty() || who.count(c.process_id)) blocked.emplace_back(c.start_ns, c.end_ns);
    d.idle_host_blocked_ns = idle_covered(intervals, blocked);
    s.devices.push_back(std::move(d));
  }
  return s;
}

}  // namespace vtools::vtrace
