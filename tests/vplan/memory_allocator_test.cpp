#include "tools/vplan/memory_allocator.hpp"

#include <doctest/doctest.h>

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
