#include "tools/vplan/triton_placement.hpp"

#include <algorithm>
#include <iterator>
#include <map>
#include <numeric>
#include <utility>

namespace vtools::vplan {

namespace {

struct Interval {
  std::int64_t start = 0;
  std::int64_t end = kForever;
  /// Triton's Interval::intersects (half-open; an empty interval strictly inside another intersects it).
  [[nodiscard]] bool intersects(const Interval& o) const { return start < o.end && o.start < end; }
};

std::int64_t align_up(std::int64_t v, std::int64_t align) {
  align = std::max<std::int64_t>(1, align);
  return (v + align - 1) / align * align;
}

// calculateStarts: a map from offset to the liveness range still free at that offset ("triples"); the lowest is
// taken, and the first buffer (largest first) live in its range and in no other open range gets that offset. The
// range is then split around the buffer's liveness. A range no buffer fits is dropped.
void calculate_starts(const std::vector<SmemItem>& items, const std::vector<int>& order,
                      std::vector<std::int64_t>& offsets) {
  std::multimap<std::int64_t, Interval> triples;  // equal offsets keep insertion order, as std::multimap in Triton
  triples.emplace(0, Interval{});
  std::vector<int> left = order;
  auto live = [&](int i) { return Interval{items[i].start, items[i].end}; };
  while (!left.empty() && !triples.empty()) {
    const std::int64_t offset = triples.begin()->first;
    const Interval range = triples.begin()->second;
    triples.erase(triples.begin());
    auto chosen = std::find_if(left.begin(), left.end(), [&](int i) {
      const Interval x = live(i);
      if (!x.intersects(range)) return false;
      for (const auto& open : triples)
        if (open.second.intersects(x)) return false;
      return true;
    });
    if (chosen == left.end()) continue;
    const int i = *chosen;
    const Interval x = live(i);
    offsets[i] = align_up(offset, items[i].alignment);
    triples.emplace(offsets[i] + items[i].size, Interval{std::max(range.start, x.start), std::min(range.end, x.end)});
    if (range.start < x.start) triples.emplace(offset, Interval{range.start, x.end});
    if (x.end < range.end) triples.emplace(offset, Interval{x.start, range.end});
    left.erase(chosen);
  }
}

// Pairs that may interfere whatever the offsets: overlapping lifetimes, or different regions of one
// warp_specialize. Found by a sweep over starts (so cost follows the number of overlapping pairs, not n^2 over
// the whole function) and per warp_specialize.
std::vector<std::vector<int>> interference_candidates(const std::vector<SmemItem>& items,
                                                      const std::vector<int>& order) {
  std::vector<std::vector<int>> out(items.size());
  std::vector<int> by_start = order;
  std::stable_sort(by_start.begin(), by_start.end(), [&](int a, int b) { return items[a].start < items[b].start; });
  for (std::size_t a = 0; a < by_start.size(); ++a) {
    const int i = by_start[a];
    const Interval xi{items[i].start, items[i].end};
    for (std::size_t b = a + 1; b < by_start.size() && items[by_start[b]].start < items[i].end; ++b) {
      const int j = by_start[b];
      if (!xi.intersects(Interval{items[j].start, items[j].end})) continue;
      out[i].push_back(j);
      out[j].push_back(i);
    }
  }
  std::map<int, std::vector<int>> by_ws;
  for (int i : order)
    if (items[i].ws >= 0) by_ws[items[i].ws].push_back(i);
  for (const auto& group : by_ws) {
    const std::vector<int>& members = group.second;
    for (std::size_t a = 0; a < members.size(); ++a)
      for (std::size_t b = a + 1; b < members.size(); ++b) {
        const int i = members[a], j = members[b];
        if (items[i].region == items[j].region) continue;
        const Interval xi{items[i].start, items[i].end};
        if (xi.intersects(Interval{items[j].start, items[j].end})) continue;  // already a lifetime pair
        out[i].push_back(j);
        out[j].push_back(i);
      }
  }
  return out;
}

}  // namespace

std::vector<std::int64_t> assign_offsets_triton(const std::vector<SmemItem>& items) {
  std::vector<std::int64_t> offsets(items.size(), 0);
  std::vector<int> order;
  for (std::size_t i = 0; i < items.size(); ++i)
    if (items[i].size > 0) order.push_back(static_cast<int>(i));
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return items[a].size > items[b].size; });
  if (order.empty()) return offsets;
  calculate_starts(items, order, offsets);

  // allocate: the starts may still overlap (the paper ignores interference between bumped ranges), so colour the
  // interference graph and move every buffer not of colour 0 above its neighbours, until nothing interferes.
  const auto candidates = interference_candidates(items, order);
  std::vector<std::vector<int>> graph(items.size());
  auto build_graph = [&] {
    bool any = false;
    for (int i : order) {
      graph[i].clear();
      for (int j : candidates[i])
        if (offsets[i] < offsets[j] + items[j].size && offsets[j] < offsets[i] + items[i].size) graph[i].push_back(j);
      any = any || !graph[i].empty();
    }
    return any;
  };
  std::vector<int> colour(items.size(), -1);
  std::vector<char> taken;
  bool interfering = build_graph();
  // Offsets only grow, so Triton reaches a fixed point; the cap guards vplan against inputs (fuzzed, overflowing
  // sizes) where it would take too long: what still interferes then goes above everything, one by one.
  std::size_t passes = 0;
  do {  // Triton runs one colouring even when nothing interferes; it changes nothing then
    if (++passes > 64 + order.size()) {
      std::int64_t top = 0;
      for (int i : order) top = std::max(top, offsets[i] + items[i].size);
      for (int i : order)
        if (!graph[i].empty()) {
          offsets[i] = align_up(top, items[i].alignment);
          top = offsets[i] + items[i].size;
        }
      break;
    }
    for (int i : order) colour[i] = -1;
    colour[order.front()] = 0;
    for (int i : order) {
      taken.assign(graph[i].size() + 1, 0);
      for (int j : graph[i])
        if (colour[j] >= 0 && colour[j] < static_cast<int>(taken.size())) taken[colour[j]] = 1;
      colour[i] = static_cast<int>(std::find(taken.begin(), taken.end(), 0) - taken.begin());
    }
    for (int i : order) {
      std::int64_t above = 0;
      for (int j : graph[i]) above = std::max(above, offsets[j] + items[j].size);
      if (colour[i] != 0) offsets[i] = align_up(above, items[i].alignment);
    }
    interfering = build_graph();
  } while (interfering);
  return offsets;
}

}  // namespace vtools::vplan
