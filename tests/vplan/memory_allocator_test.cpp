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

TEST_CASE("memory_allocator: concurrent peak counts every region of a warp_specialize at its own peak") {
  // warp_specialize at op 10; a [0,12) lives across it; region 0 holds b [1,3) 40 and c [3,5) 60 (sequential);
  // region 1 holds d [6,8) 30; e [10,11) is the op's own scratch. By op ids alone the peak is 160 at op 3; run
  // at once, the regions peak together: 100 + 60 + 30.
  std::vector<Placement> items = {{100, 1, 0, 12}, {40, 1, 1, 3}, {60, 1, 3, 5}, {30, 1, 6, 8}, {5, 1, 10, 11}};
  std::vector<std::pair<int, int>> regions = {{-1, 0}, {10, 0}, {10, 0}, {10, 1}, {-1, 0}};
  CHECK(peak_usage(items).peak == 160);
  PeakUsage p = concurrent_peak_usage(items, regions);
  CHECK(p.peak == 190);
  CHECK(p.at == 10);
  CHECK(p.live == std::vector<int>{0, 2, 3});
  // Without regions it is peak_usage; a region whose partners hold nothing keeps peak_usage's op.
  CHECK(concurrent_peak_usage(items, std::vector<std::pair<int, int>>(5, {-1, 0})).at == 3);
  regions[3] = {-1, 0};
  p = concurrent_peak_usage(items, regions);
  CHECK(p.peak == 160);
  CHECK(p.at == 3);
}

namespace {

// The plain first-fit, every placed item scanned for each new one (quadratic): the definition the fast path (spans
// over a segment tree of lifetimes) must match offset for offset.
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

// Random placements: sizes of 0, negative, distinct or tied; power-of-two alignments; lifetimes short, long (many
// items live at once, nested or staggered) or inverted.
std::vector<Placement> random_items(std::mt19937_64& rng) {
  const int n = 1 + static_cast<int>(rng() % (rng() % 8 == 0 ? 1500 : 120));
  const int span = 1 + static_cast<int>(rng() % 400);
  const int max_life = 1 + static_cast<int>(rng() % (rng() % 3 == 0 ? span : span / 8 + 1));
  const std::int64_t max_size = std::int64_t{1} << (1 + rng() % 16);
  const int max_align_log = static_cast<int>(rng() % 12);
  std::vector<Placement> items;
  for (int i = 0; i < n; ++i) {
    Placement p;
    const int kind = static_cast<int>(rng() % 20);
    p.size = kind == 0   ? 0
             : kind == 1 ? -static_cast<std::int64_t>(rng() % 64)
                         : 1 + static_cast<std::int64_t>(rng() % max_size);
    if (rng() % 4 == 0) p.size = 1024 * (1 + static_cast<std::int64_t>(rng() % 4));  // ties: the start order decides
    p.alignment = std::int64_t{1} << (rng() % (max_align_log + 1));
    if (rng() % 16 == 0) p.alignment = static_cast<std::int64_t>(rng() % 3) - 1;  // 0 and -1 mean 1; 1 itself
    p.start = static_cast<int>(rng() % span);
    p.end = kind == 2 ? p.start - static_cast<int>(rng() % 5) : p.start + 1 + static_cast<int>(rng() % max_life);
    items.push_back(p);
  }
  return items;
}

void check_against_reference(std::uint64_t seed, int rounds) {
  std::mt19937_64 rng(seed);
  for (int round = 0; round < rounds; ++round) {
    CAPTURE(seed);
    CAPTURE(round);
    const std::vector<Placement> items = random_items(rng);
    const auto got = assign_offsets_first_fit(items), want = reference_first_fit(items);
    REQUIRE(got.size() == want.size());
    for (std::size_t i = 0; i < got.size(); ++i)
      if (got[i] != want[i]) {
        FAIL_CHECK("item " << i << " (size " << items[i].size << ", alignment " << items[i].alignment << ", ["
                           << items[i].start << ", " << items[i].end << ")): offset " << got[i] << ", reference "
                           << want[i]);
        break;
      }
  }
}

}  // namespace

TEST_CASE("memory_allocator: first-fit matches the plain scan on random intervals, odd ones included") {
  check_against_reference(20261129, 600);
  const std::uint64_t fresh = std::random_device{}();  // fresh inputs each run; a failure prints the seed
  check_against_reference(fresh, 300);
}

TEST_CASE("memory_allocator: many buffers live at once stack in size order, gaps filled first-fit") {
  // 3000 nested lifetimes [i, 6000 - i): every one overlaps every other, so offsets are the sizes stacked largest
  // first; then a short-lived small buffer after all of them ends goes to offset 0.
  std::vector<Placement> items;
  for (int i = 0; i < 3000; ++i) items.push_back({64 * (1 + i % 4), 64, i, 6000 - i});
  items.push_back({64, 64, 6000, 6001});
  const auto off = assign_offsets_first_fit(items);
  CHECK(off == reference_first_fit(items));
  CHECK(off[3] == 0);       // the first of the 256-byte ones
  CHECK(off[7] == 256);
  CHECK(off[0] == 750 * 256 + 750 * 192 + 750 * 128);  // the first 64-byte one, above every larger one
  CHECK(off[3000] == 0);
}
