#include "tools/vplan/memory_allocator.hpp"

#include <algorithm>
#include <numeric>

namespace vtools::vplan {

namespace {

// The placed items whose [start, end) overlaps a new item's, without scanning every placed item: an item that
// contains the new one's start (a segment tree over the distinct starts, stabbed at that start) or starts inside it
// (a scan of the items sorted by start). Items with an empty or inverted interval still "overlap" by the plain test
// (start_j < end_i && start_i < end_j); they are rare (imported plans) and checked one by one.
class OverlapIndex {
 public:
  explicit OverlapIndex(const std::vector<Placement>& items) : items_(items), placed_(items.size(), false) {
    for (std::size_t i = 0; i < items.size(); ++i)
      if (items[i].start < items[i].end) {
        by_start_.push_back(static_cast<int>(i));
        coords_.push_back(items[i].start);
      }
    std::stable_sort(by_start_.begin(), by_start_.end(), [&](int a, int b) { return items[a].start < items[b].start; });
    std::sort(coords_.begin(), coords_.end());
    coords_.erase(std::unique(coords_.begin(), coords_.end()), coords_.end());
    while (leaves_ < coords_.size()) leaves_ *= 2;
    nodes_.resize(2 * leaves_);
  }

  void place(int i) {
    placed_[i] = true;
    const Placement& p = items_[i];
    if (p.size <= 0) return;  // never busy
    if (p.end <= p.start) {
      odd_.push_back(i);
      return;
    }
    // Covers the distinct starts c with start <= c < end.
    std::size_t l = index_of(p.start) + leaves_;
    std::size_t r = static_cast<std::size_t>(std::lower_bound(coords_.begin(), coords_.end(), p.end) - coords_.begin()) +
                    leaves_;
    for (; l < r; l >>= 1, r >>= 1) {
      if (l & 1) nodes_[l++].push_back(i);
      if (r & 1) nodes_[--r].push_back(i);
    }
  }

  /// Calls f(j) once for each placed item j of positive size whose interval overlaps item i's.
  template <class F>
  void for_each_overlapping(int i, F f) const {
    const Placement& p = items_[i];
    auto overlaps = [&](int j) { return items_[j].start < p.end && p.start < items_[j].end && items_[j].size > 0; };
    for (int j : odd_)
      if (overlaps(j)) f(j);
    if (p.end <= p.start) {  // an odd item itself: the plain scan over the normal placed items
      for (int j : by_start_)
        if (placed_[j] && overlaps(j)) f(j);
      return;
    }
    for (std::size_t n = index_of(p.start) + leaves_; n >= 1; n >>= 1)
      for (int j : nodes_[n]) f(j);  // start_j <= start_i < end_j
    auto it = std::upper_bound(by_start_.begin(), by_start_.end(), p.start,
                               [&](int start, int j) { return start < items_[j].start; });
    for (; it != by_start_.end() && items_[*it].start < p.end; ++it)  // start_i < start_j < end_i
      if (placed_[*it] && items_[*it].size > 0) f(*it);
  }

 private:
  std::size_t index_of(int start) const {
    return static_cast<std::size_t>(std::lower_bound(coords_.begin(), coords_.end(), start) - coords_.begin());
  }

  const std::vector<Placement>& items_;
  std::vector<bool> placed_;
  std::vector<int> by_start_;  ///< items with start < end, by start
  std::vector<int> coords_;    ///< their distinct starts
  std::size_t leaves_ = 1;
  std::vector<std::vector<int>> nodes_;  ///< placed items by the canonical nodes of [start, end) over coords_
  std::vector<int> odd_;                 ///< placed items with end <= start and a positive size
};

}  // namespace

std::vector<std::int64_t> assign_offsets_first_fit(const std::vector<Placement>& items) {
  std::vector<int> order(items.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
    if (items[a].size != items[b].size) return items[a].size > items[b].size;
    return items[a].start < items[b].start;
  });
  std::vector<std::int64_t> offsets(items.size(), 0);
  OverlapIndex index(items);
  std::vector<std::pair<std::int64_t, std::int64_t>> busy;  // [offset, offset + size) of overlapping placements
  for (int i : order) {
    const Placement& p = items[i];
    busy.clear();
    index.for_each_overlapping(i, [&](int j) { busy.emplace_back(offsets[j], offsets[j] + items[j].size); });
    std::sort(busy.begin(), busy.end());
    const std::int64_t align = std::max<std::int64_t>(1, p.alignment);
    auto align_up = [align](std::int64_t v) { return (v + align - 1) / align * align; };
    std::int64_t candidate = 0;
    for (const auto& [lo, hi] : busy) {
      if (candidate + p.size <= lo) break;
      candidate = std::max(candidate, align_up(hi));
    }
    offsets[i] = candidate;
    index.place(i);
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
