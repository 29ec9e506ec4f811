#include "tools/vplan/memory_allocator.hpp"

#include <algorithm>
#include <iterator>
#include <map>
#include <memory>
#include <numeric>
#include <optional>

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

// The placed items whose [start, end) overlaps a new item's, listed without scanning every placed item: an item that
// contains the new one's start (a segment tree over the distinct starts, stabbed at that start) or starts inside it
// (a scan of the items sorted by start). Items with an empty or inverted interval still "overlap" by the plain test
// (start_j < end_i && start_i < end_j); they are rare (imported plans) and checked one by one. Cheap while few items
// are live at once; past a limit the caller asks SpanIndex instead.
class ScanIndex {
 public:
  explicit ScanIndex(const std::vector<Placement>& items) : items_(items), placed_(items.size(), false) {
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

  /// Appends [offset, offset + size) of each placed item of positive size whose interval overlaps item i's to
  /// `busy`, unless that takes more than `limit` steps (then false; `busy` is then partial). An item with end <= start
  /// is scanned plainly, without a limit.
  bool collect(int i, const std::vector<std::int64_t>& offsets, std::size_t limit,
               std::vector<std::pair<std::int64_t, std::int64_t>>& busy) const {
    const Placement& p = items_[i];
    auto overlaps = [&](int j) { return items_[j].start < p.end && p.start < items_[j].end && items_[j].size > 0; };
    auto add = [&](int j) { busy.emplace_back(offsets[j], offsets[j] + items_[j].size); };
    for (int j : odd_)
      if (overlaps(j)) add(j);
    if (p.end <= p.start) {  // an odd item itself: the plain scan over the normal placed items
      for (int j : by_start_)
        if (placed_[j] && overlaps(j)) add(j);
      return true;
    }
    std::size_t steps = 0;
    for (std::size_t n = index_of(p.start) + leaves_; n >= 1; n >>= 1) {
      if ((steps += nodes_[n].size()) > limit) return false;
      for (int j : nodes_[n]) add(j);  // start_j <= start_i < end_j
    }
    auto it = std::upper_bound(by_start_.begin(), by_start_.end(), p.start,
                               [&](int start, int j) { return start < items_[j].start; });
    for (; it != by_start_.end() && items_[*it].start < p.end; ++it) {  // start_i < start_j < end_i
      if (++steps > limit) return false;
      if (placed_[*it] && items_[*it].size > 0) add(*it);
    }
    return true;
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

// Which offsets the placed items whose [start, end) overlaps a new item's occupy, as a few unions of spans instead of
// one list of L items (for many items live at once): a segment tree over the distinct starts (two intervals overlap
// exactly when the later start lies in both, so an item stands for the starts it covers, a range of leaves). An item
// is added to own() of the canonical nodes of its range and to sub() of those nodes and their ancestors; the items
// overlapping a range are then sub() of its canonical nodes and own() of their ancestors. Placed items with an empty
// or inverted interval (rare: imported plans) are checked one by one.
class SpanIndex {
 public:
  explicit SpanIndex(const std::vector<Placement>& items) : items_(items) {
    for (const Placement& p : items)
      if (p.start < p.end) coords_.push_back(p.start);
    std::sort(coords_.begin(), coords_.end());
    coords_.erase(std::unique(coords_.begin(), coords_.end()), coords_.end());
    while (leaves_ < coords_.size()) leaves_ *= 2;
    own_.resize(2 * leaves_);
    sub_.resize(2 * leaves_);
    seen_.assign(2 * leaves_, -1);
    // Every query is known up front (an item's own range), so only the nodes queries will read are kept: sub() of
    // their canonical nodes, own() of those nodes' strict ancestors.
    needs_sub_.assign(2 * leaves_, 0);
    needs_own_.assign(2 * leaves_, 0);
    for (const Placement& p : items)
      if (p.size > 0 && p.start < p.end) for_each_canonical(p, [&](std::size_t n) { needs_sub_[n] = 1; });
    std::vector<char> below(2 * leaves_, 0);  // a node needing sub() at or under n
    for (std::size_t n = 2 * leaves_ - 1; n >= 1; --n) {
      const bool children = n < leaves_ && (below[2 * n] || below[2 * n + 1]);
      below[n] = needs_sub_[n] || children;
      needs_own_[n] = children;
    }
  }

  void place(int i, std::int64_t offset) {
    const Placement& p = items_[i];
    if (p.size <= 0) return;  // never busy
    if (p.end <= p.start) {
      odd_.push_back({i, offset});
      return;
    }
    ++stamp_;
    for_each_canonical(p, [&](std::size_t n) {
      if (needs_own_[n]) node(own_, n).add(offset, offset + p.size);
      for (; n >= 1 && seen_[n] != stamp_; n >>= 1) {
        seen_[n] = stamp_;
        if (needs_sub_[n]) node(sub_, n).add(offset, offset + p.size);
      }
    });
  }

  /// The lowest offset, a multiple of `align`, where item i (size > 0, start < end) overlaps none of the placed items.
  std::int64_t lowest_free(int i, std::int64_t align) {
    const Placement& p = items_[i];
    sets_.clear();
    extra_ = Spans();
    auto overlaps = [&](int j) { return items_[j].start < p.end && p.start < items_[j].end; };
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
  std::vector<char> needs_sub_, needs_own_;          ///< by node: whether a query reads its sub(), own()
  std::vector<int> seen_;                             ///< by node: the stamp of the last walk that visited it
  int stamp_ = 0;
  std::vector<std::pair<int, std::int64_t>> odd_;     ///< those with end <= start
  std::vector<const Spans*> sets_;
  Spans extra_;
};

}  // namespace

std::vector<std::int64_t> assign_offsets_first_fit(const std::vector<Placement>& items) {
  // A few hundred overlapping items are sorted and scanned faster than spans are kept; past that, spans (built once,
  // from every item placed so far) keep it near-linear.
  constexpr std::size_t kScanLimit = 256;
  std::vector<int> order(items.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
    if (items[a].size != items[b].size) return items[a].size > items[b].size;
    return items[a].start < items[b].start;
  });
  std::vector<std::int64_t> offsets(items.size(), 0);
  ScanIndex scan(items);
  std::optional<SpanIndex> spans;
  std::vector<std::pair<std::int64_t, std::int64_t>> busy;  // [offset, offset + size) of overlapping placements
  for (std::size_t k = 0; k < order.size(); ++k) {
    const int i = order[k];
    const Placement& p = items[i];
    const std::int64_t align = std::max<std::int64_t>(1, p.alignment);
    busy.clear();
    // Offsets are never negative, so nothing of positive size can lie under an item of size <= 0 at 0.
    if (p.size <= 0) {
    } else if (scan.collect(i, offsets, kScanLimit, busy)) {
      std::sort(busy.begin(), busy.end());
      std::int64_t candidate = 0;
      for (const auto& [lo, hi] : busy) {
        if (candidate + p.size <= lo) break;
        candidate = std::max(candidate, (hi + align - 1) / align * align);
      }
      offsets[i] = candidate;
    } else {
      if (!spans) {
        spans.emplace(items);
        for (std::size_t m = 0; m < k; ++m) spans->place(order[m], offsets[order[m]]);
      }
      offsets[i] = spans->lowest_free(i, align);
    }
    scan.place(i);
    if (spans) spans->place(i, offsets[i]);
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

PeakUsage concurrent_peak_usage(const std::vector<Placement>& items, const std::vector<std::pair<int, int>>& region_of) {
  PeakUsage best = peak_usage(items);
  std::map<std::pair<int, int>, std::vector<int>> regions;  // (warp_specialize, region) -> items
  for (std::size_t i = 0; i < items.size(); ++i)
    if (region_of[i].first >= 0) regions[region_of[i]].push_back(static_cast<int>(i));
  std::vector<int> ws_ids;
  for (const auto& [key, members] : regions)
    if (ws_ids.empty() || ws_ids.back() != key.first) ws_ids.push_back(key.first);
  auto across = [](const Placement& p, int ws) { return p.start < ws && ws < p.end; };
  // Bytes live across each warp_specialize: a difference array over the sorted ids, not a scan per op.
  std::vector<std::int64_t> total(ws_ids.size() + 1, 0);
  for (const Placement& p : items) {
    const auto lo = std::upper_bound(ws_ids.begin(), ws_ids.end(), p.start) - ws_ids.begin();
    const auto hi = std::lower_bound(ws_ids.begin(), ws_ids.end(), p.end) - ws_ids.begin();
    if (lo < hi) total[lo] += p.size, total[hi] -= p.size;
  }
  for (std::size_t w = 1; w < total.size(); ++w) total[w] += total[w - 1];
  std::vector<std::pair<int, PeakUsage>> region_peaks;  // (index into ws_ids, the region's own peak)
  for (const auto& [key, members] : regions) {
    std::vector<Placement> own;
    for (int i : members) own.push_back(items[i]);
    PeakUsage p = peak_usage(own);
    for (int& l : p.live) l = members[l];
    const int w = static_cast<int>(std::lower_bound(ws_ids.begin(), ws_ids.end(), key.first) - ws_ids.begin());
    total[w] += p.peak;
    region_peaks.emplace_back(w, std::move(p));
  }
  int winner = -1;
  for (std::size_t w = 0; w < ws_ids.size(); ++w)
    if (total[w] > (winner < 0 ? best.peak : total[winner])) winner = static_cast<int>(w);
  if (winner < 0) return best;
  best = {total[winner], ws_ids[winner], {}, true};
  for (std::size_t i = 0; i < items.size(); ++i)
    if (across(items[i], best.at)) best.live.push_back(static_cast<int>(i));
  for (const auto& [w, p] : region_peaks)
    if (w == winner) best.live.insert(best.live.end(), p.live.begin(), p.live.end());
  std::sort(best.live.begin(), best.live.end());
  return best;
}

}  // namespace vtools::vplan
