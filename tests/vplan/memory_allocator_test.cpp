#include "tools/vplan/memory_allocator.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <random>

using namespace vtools::vplan;

TEST_CASE("memory_allocator: disjoint lifetimes share offsets, overlapping ones do not") {
  // a [0,10) 100 bytes, b [5,15) 50 bytes, c [10,20) 100 bytes: c may reuse a's memory, b may not.
  std::vector<Placement> items = {{100, 1, 0, 10}, {50, 1, 5, 15}, {100, 1, 10, 20}};
  auto off = assign_offsets_first_fit(items);
  CHECK(off[0] == 0);
  CHECK(off[2] == 0);
  CHECK(off[1] == 100);
}

TEST_CASE("memory_allocator: largest first, offsets aligned") {
  std::vector<Placement> items = {{24, 8, 0, 10}, {1024, 1024, 0, 10}, {24, 8, 0, 10}};
  auto off = assign_offsets_first_fit(items);
  CHECK(off[1] == 0);
  CHECK(off[0] == 1024);
  CHECK(off[2] == 1048);
}

TEST_CASE("memory_allocator: peak is the largest sum live at one op, with the buffers live there") {
  std::vector<Placement> items = {{100, 1, 0, 10}, {50, 1, 5, 15}, {100, 1, 10, 20}, {7, 1, 3, 3}};
  PeakUsage p = peak_usage(items);
  CHECK(p.peak == 150);
  CHECK(p.at == 5);
  CHECK(p.live == std::vector<int>{0, 1});
  CHECK(peak_usage({}).peak == 0);
}

namespace {

// The plain first-fit the interval index replaced: every placed item scanned for each new one (quadratic). Kept as
// the reference the fast path must match offset for offset.
std::vector<std::int64_t> reference_first_fit(const std::vector<Placement>& items) {
  std::vector<int> order(items.size());
  for (std::size_t i = 0; i < items.size(); ++i) order[i] = static_cast<int>(i);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
    if (items[a].size != items[b].size) return items[a].size > items[b].size;
    return items[a].start < items[b].start;
  });
  std::vector<std::int64_t> offsets(items.size(), 0);
  std::vector<int> placed;
  std::vector<std::pair<std::int64_t, std::int64_t>> busy;
  for (int i : order) {
    const Placement& p = items[i];
    busy.clear();
    for (int j : placed)
      if (items[j].start < p.end && p.start < items[j].end && items[j].size > 0)
        busy.emplace_back(offsets[j], offsets[j] + items[j].size);
    std::sort(busy.begin(), busy.end());
    const std::int64_t align = std::max<std::int64_t>(1, p.alignment);
    std::int64_t candidate = 0;
    for (const auto& [lo, hi] : busy) {
      if (candidate + p.size <= lo) break;
      candidate = std::max(candidate, (hi + align - 1) / align * align);
    }
    offsets[i] = candidate;
    placed.push_back(i);
  }
  return offsets;
}

}  // namespace

TEST_CASE("memory_allocator: first-fit matches the plain scan on random intervals, odd ones included") {
  std::mt19937 rng(20261129);
  for (int round = 0; round < 400; ++round) {
    CAPTURE(round);
    const int n = 1 + static_cast<int>(rng() % 120);
    const int span = 1 + static_cast<int>(rng() % 200);
    std::vector<Placement> items;
    for (int i = 0; i < n; ++i) {
      Placement p;
      const int kind = static_cast<int>(rng() % 20);
      p.size = kind == 0 ? 0 : kind == 1 ? -static_cast<std::int64_t>(rng() % 64) : 1 + rng() % 4096;
      if (rng() % 4 == 0) p.size = 1024 * (1 + rng() % 4);  // ties in size: the start order decides
      p.alignment = std::int64_t{1} << (rng() % 11);
      p.start = static_cast<int>(rng() % span);
      p.end = kind == 2 ? p.start - static_cast<int>(rng() % 5) : p.start + 1 + static_cast<int>(rng() % (span / 4 + 1));
      items.push_back(p);
    }
    CHECK(assign_offsets_first_fit(items) == reference_first_fit(items));
  }
}
