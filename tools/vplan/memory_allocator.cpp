#include "tools/vplan/memory_allocator.hpp"

#include <algorithm>
#include <iterator>
#include <map>
#include <memory>
#include <numeric>

namespace vtools::vplan {

namespace {

// A union of offset ranges [lo, hi), kept as disjoint spans (touching ones merged): which offsets some set of
// placed items occupies, whoever they are.
class Spans {
 public:
  void add(std::int64_t lo, std::int64_t hi) {
    auto it = spans_.upper_bound(lo);
    if (it != spans_.begin() && std::prev(it)->second >= lo) --it;
    for (; it != spans_.end() && it->first <= hi; it = spans_.erase(it)) {
      lo = std::min(lo, it->first);
      hi = std::max(hi, it->second);
    }
    spans_.emplace_hint(it, lo, hi);
  }
  /// The end of the span that meets [x, x + size) (size > 0), or x when none does.
  std::int64_t blocked_until(std::int64_t x, std::int64_t size) const {
    auto it = spans_.lower_bound(x + size);  // spans from here start at or past the range's end
    if (it == spans_.begin()) return x;
    return std::max(x, std::prev(it)->second);  // the last span starting before the end reaches furthest
  }

 private:
  std::map<std::int64_t, std::int64_t> spans_;  ///< lo -> hi
};

// Which offsets the placed items whose [start, end) overlaps a new item's occupy, as a few unions of spans instead of
// one list of L items: a segment tree over the distinct starts (two intervals overlap exactly when the later start
// lies in both, so an item stands for the starts it covers, a range of leaves). An item is added to own() of the
// canonical nodes of its range and to sub() of those nodes and their ancestors; the items overlapping a range are
// then sub() of its canonical nodes and own() of their ancestors. Items with an empty or inverted interval still
// "overlap" by the plain test (start_j < end_i && start_i < end_j); they are rare (imported plans) and checked one by
// one.
class BusyIndex {
 public:
  explicit BusyIndex(const std::vector<Placement>& items) : items_(items) {
    for (const Placement& p : items)
      if (p.start < p.end) coords_.push_back(p.start);
    std::sort(coords_.begin(), coords_.end());
    coords_.erase(std::unique(coords_.begin(), coords_.end()), coords_.end());
    while (leaves_ < coords_.size()) leaves_ *= 2;
    own_.resize(2 * leaves_);
    sub_.resize(2 * leaves_);
    seen_.assign(2 * leaves_, -1);
  }

  void place(int i, std::int64_t offset) {
    const Placement& p = items_[i];
    if (p.size <= 0) return;  // never busy
    placed_.push_back({i, offset});
    if (p.end <= p.start) {
      odd_.push_back({i, offset});
      return;
    }
    ++stamp_;
    for_each_canonical(p, [&](std::size_t n) {
      node(own_, n).add(offset, offset + p.size);
      for (; n >= 1 && seen_[n] != stamp_; n >>= 1) {
        seen_[n] = stamp_;
        node(sub_, n).add(offset, offset + p.size);
      }
    });
  }

  /// The lowest offset, a multiple of `align`, where item i (size > 0) overlaps none of the placed items.
  std::int64_t lowest_free(int i, std::int64_t align) {
    const Placement& p = items_[i];
    sets_.clear();
    extra_ = Spans();
    auto overlaps = [&](int j) { return items_[j].start < p.end && p.start < items_[j].end; };
    if (p.end <= p.start) {  // an odd item itself: the plain scan
      for (const auto& [j, offset] : placed_)
        if (overlaps(j)) extra_.add(offset, offset + items_[j].size);
    } else {
      for (const auto& [j, offset] : odd_)
        if (overlaps(j)) extra_.add(offset, offset + items_[j].size);
      ++stamp_;
      for_each_canonical(p, [&](std::size_t n) {
        if (sub_[n]) sets_.push_back(sub_[n].get());
        for (n >>= 1; n >= 1 && seen_[n] != stamp_; n >>= 1) {
          seen_[n] = stamp_;
          if (own_[n]) sets_.push_back(own_[n].get());
        }
      });
    }
    sets_.push_back(&extra_);
    // Every aligned offset skipped lies in a span that meets it, so the first offset no span meets is the lowest.
    std::int64_t x = 0;
    for (bool moved = true; moved;) {
      moved = false;
      for (const Spans* s : sets_)
        for (std::int64_t until; (until = s->blocked_until(x, p.size)) > x; moved = true)
          x = (until + align - 1) / align * align;
    }
    return x;
  }

 private:
  /// Calls f(node) for the canonical nodes of the leaves item p covers.
  template <class F>
  void for_each_canonical(const Placement& p, F f) const {
    std::size_t l = index_of(p.start) + leaves_, r = index_of(p.end) + leaves_;
    for (; l < r; l >>= 1, r >>= 1) {
      if (l & 1) f(l++);
      if (r & 1) f(--r);
    }
  }
  std::size_t index_of(int start) const {
    return static_cast<std::size_t>(std::lower_bound(coords_.begin(), coords_.end(), start) - coords_.begin());
  }
  static Spans& node(std::vector<std::unique_ptr<Spans>>& nodes, std::size_t n) {
    if (!nodes[n]) nodes[n] = std::make_unique<Spans>();
    return *nodes[n];
  }

  const std::vector<Placement>& items_;
  std::vector<int> coords_;  ///< the distinct starts of items with start < end
  std::size_t leaves_ = 1;
  std::vector<std::unique_ptr<Spans>> own_, sub_;     ///< by node; null while empty
  std::vector<int> seen_;                             ///< by node: the stamp of the last walk that visited it
  int stamp_ = 0;
  std::vector<std::pair<int, std::int64_t>> placed_;  ///< (item, offset) of placed items of positive size
  std::vector<std::pair<int, std::int64_t>> odd_;     ///< those with end <= start
  std::vector<const Spans*> sets_;
  Spans extra_;
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
  BusyIndex index(items);
  for (int i : order) {
    // Offsets are never negative, so nothing of positive size can lie under an item of size <= 0 at 0.
    if (items[i].size > 0) offsets[i] = index.lowest_free(i, std::max<std::int64_t>(1, items[i].alignment));
    index.place(i, offsets[i]);
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
