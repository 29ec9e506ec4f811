#include "tools/vplan/triton_placement.hpp"

#include <doctest/doctest.h>

#include <random>

using namespace vtools::vplan;

TEST_CASE("triton_placement: disjoint lifetimes share offsets, overlapping ones do not") {
  // a [0,10) 100 B, b [5,15) 50 B, c [10,20) 100 B. Starts: a at 0 leaves slots (100, [0,10)) and (0, [0,inf));
  // c fits the second (clear of [0,10)), which splits into (0, [0,20)) and (0, [10,inf)); b is live in every open
  // slot until only (100, [10,20)) is left.
  std::vector<SmemItem> items = {{100, 1, 0, 10}, {50, 1, 5, 15}, {100, 1, 10, 20}};
  CHECK(assign_offsets_triton(items) == std::vector<std::int64_t>{0, 100, 0});
}

TEST_CASE("triton_placement: regions of one warp_specialize never share memory, whatever their lifetimes") {
  SmemItem x{64, 16, 0, 5, 7, 1}, y{64, 128, 5, 10, 7, 2};
  // Both start at 0; they interfere, y (colour 1) moves above x and up to its alignment.
  CHECK(assign_offsets_triton({x, y}) == std::vector<std::int64_t>{0, 128});
  y.region = 1;  // one region: program order, so disjoint lifetimes share
  CHECK(assign_offsets_triton({x, y}) == std::vector<std::int64_t>{0, 0});
  y.ws = 8;  // another warp_specialize
  y.region = 2;
  CHECK(assign_offsets_triton({x, y}) == std::vector<std::int64_t>{0, 0});
}

TEST_CASE("triton_placement: empty buffers take no part, the function's own buffer lives throughout") {
  std::vector<SmemItem> items = {{0, 1, 0, 10}, {8, 4, 0, kForever}, {16, 16, 3, 4}};
  // The 16-byte buffer goes first (largest) at 0; the function's 8 bytes, live with it, above it.
  CHECK(assign_offsets_triton(items) == std::vector<std::int64_t>{0, 16, 0});
}

TEST_CASE("triton_placement: no two interfering buffers overlap, offsets aligned (random modules)") {
  std::mt19937 rng(43);
  for (int round = 0; round < 200; ++round) {
    CAPTURE(round);
    std::vector<SmemItem> items(1 + rng() % 40);
    for (auto& it : items) {
      it.size = static_cast<std::int64_t>(rng() % 5 == 0 ? 0 : 1 + rng() % 4096);
      it.alignment = std::int64_t{1} << (rng() % 11);
      it.start = static_cast<int>(rng() % 50);
      it.end = rng() % 20 == 0 ? kForever : it.start + 1 + static_cast<int>(rng() % 30);
      if (rng() % 3 == 0) {
        it.ws = static_cast<int>(rng() % 2);
        it.region = static_cast<int>(rng() % 3);
      }
    }
    const auto off = assign_offsets_triton(items);
    for (std::size_t i = 0; i < items.size(); ++i) {
      CHECK(off[i] % items[i].alignment == 0);
      for (std::size_t j = 0; j < i; ++j) {
        const SmemItem &a = items[i], &b = items[j];
        if (a.size == 0 || b.size == 0) continue;
        const bool live_together = a.start < b.end && b.start < a.end;
        const bool concurrent = a.ws >= 0 && a.ws == b.ws && a.region != b.region;
        if (live_together || concurrent) CHECK((off[i] + a.size <= off[j] || off[j] + b.size <= off[i]));
      }
    }
  }
}
