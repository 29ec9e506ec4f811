#include "tools/vplan/memory_allocator.hpp"

#include <algorithm>
#include <numeric>

namespace vtools::vplan {

std::vector<std::int64_t> assign_offsets_first_fit(const std::vector<Placement>& items) {
  std::vector<int> order(items.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
    if (items[a].size != items[b].size) return items[a].size > items[b].size;
    return items[a].start < items[b].start;
  });
  std::vector<std::int64_t> offsets(items.size(), 0);
  std::vector<int> placed;
  std::vector<std::pair<std::int64_t, std::int64_t>> busy;  // [offset, offset + size) of overlapping placements
  for (int i : order) {
    const Placement& p = items[i];
    busy.clear();
    for (int j : placed)
      if (items[j].start < p.end && p.start < items[j].end && items[j].size > 0)
        busy.emplace_back(offsets[j], offsets[j] + items[j].size);
    std::sort(busy.begin(), busy.end());
    const std::int64_t align = std::max<std::int64_t>(1, p.alignment);
    auto align_up = [align](std::int64_t v) { return (v + align - 1) / align * align; };
    std::int64_t candidate = 0;
    for (const auto& [lo, hi] : busy) {
      if (candidate + p.size <= lo) break;
      candidate = std::max(candidate, align_up(hi));
    }
    offsets[i] = candidate;
    placed.push_back(i);
  }
  return offsets;
}

PeakUsage peak_usage(const std::vector<Placement>& items) {
  // Sweep over start/end events: +size at start, -size at end; ends sort before starts at the same op.
  std::vector<std::pair<int, std::int64_t>> events;
  for (const auto& p : items) {
    if (p.end <= p.start) continue;
    events.emplace_back(p.start, p.size);
    events.emplace_back(p.end, -p.size);
  }
  std::sort(events.begin(), events.end());
  PeakUsage out;
  std::int64_t live = 0;
  for (std::size_t i = 0; i < events.size(); ++i) {
    live += events[i].second;
    bool last_at_op = i + 1 == events.size() || events[i + 1].first != events[i].first;
    if (last_at_op && live > out.peak) {
      out.peak = live;
      out.at = events[i].first;
    }
  }
  for (std::size_t i = 0; i < items.size(); ++i)
    if (out.peak > 0 && items[i].start <= out.at && out.at < items[i].end) out.live.push_back(static_cast<int>(i));
  return out;
}

}  // namespace vtools::vplan
