// interval_set: merged byte ranges.
#include <doctest/doctest.h>

#include "tools/vtrace/access/interval_set.hpp"
#include "tests/vtrace/access_test_support.hpp"

using namespace vtools::vtrace;
using namespace vtools::vtrace::access;
using namespace vtools::vtrace::access::testing;

TEST_CASE("interval_set: merges overlapping and touching intervals, keeps gaps") {
  IntervalSet s;
  s.add(8, 12);
  s.add(0, 4);
  s.add(4, 8);    // touches both neighbours
  s.add(20, 24);
  s.add(22, 30);  // overlaps
  s.add(40, 40);  // empty, ignored
  CHECK(s.ranges() == Ranges{{0, 12}, {20, 30}});
  CHECK(s.bytes() == 22);
  s.add(0, 100);
  CHECK(s.ranges() == Ranges{{0, 100}});
}
