// allocation_map: the live allocation of an address, or the nearest one and how far off.
#include <doctest/doctest.h>

#include "tools/vtrace/access/allocation_map.hpp"
#include "tests/vtrace/access_test_support.hpp"

using namespace vtools::vtrace;
using namespace vtools::vtrace::access;
using namespace vtools::vtrace::access::testing;

TEST_CASE("allocation_map: inside, past the end, before the start, and no allocation") {
  AllocationMap m;
  CHECK(m.find(0x1000, 4).allocation == -1);
  m.add(allocation(1, 0x1000, 4000));
  m.add(allocation(2, 0x3000, 256));
  Lookup in = m.find(0x1000 + 3996, 4);
  CHECK(in.inside);
  CHECK(in.allocation == 1);
  CHECK(in.offset == 3996);
  Lookup past = m.find(0x1000 + 4000, 4);  // one float past a 4000-byte buffer
  CHECK_FALSE(past.inside);
  CHECK(past.allocation == 1);
  CHECK(past.distance == 0);
  Lookup straddle = m.find(0x1000 + 3998, 4);
  CHECK_FALSE(straddle.inside);
  CHECK(straddle.distance == 0);
  Lookup before = m.find(0x3000 - 8, 4);  // nearer to allocation 2's start than to 1's end
  CHECK(before.allocation == 2);
  CHECK(before.distance == -8);
  CHECK(m.remove(0x3000));
  CHECK_FALSE(m.remove(0x3000));
  CHECK(m.find(0x3000, 4).allocation == 1);
}

TEST_CASE("allocation_map: split cuts a range at allocation bounds, gaps included") {
  AllocationMap m;
  m.add(allocation(1, 0x1000, 4000));  // [0x1000, 0x1fa0)
  m.add(allocation(2, 0x2000, 256));   // [0x2000, 0x2100)
  auto pieces = [&](std::uint64_t address, std::uint64_t size) {
    std::vector<std::array<std::int64_t, 3>> out;
    for (const RangePiece& p : m.split(address, size))
      out.push_back({p.allocation, static_cast<std::int64_t>(p.lo), static_cast<std::int64_t>(p.hi)});
    return out;
  };
  using Pieces = std::vector<std::array<std::int64_t, 3>>;
  CHECK(pieces(0x1000, 1024) == Pieces{{1, 0x1000, 0x1400}});
  CHECK(pieces(0x1f80, 64) == Pieces{{1, 0x1f80, 0x1fa0}, {-1, 0x1fa0, 0x1fc0}});  // 32 bytes past the end
  CHECK(pieces(0x1f90, 0x200) == Pieces{{1, 0x1f90, 0x1fa0}, {-1, 0x1fa0, 0x2000}, {2, 0x2000, 0x2100},
                                        {-1, 0x2100, 0x2190}});
  CHECK(pieces(0x800, 16) == Pieces{{-1, 0x800, 0x810}});
  CHECK(pieces(0x1000, 0).empty());
}
