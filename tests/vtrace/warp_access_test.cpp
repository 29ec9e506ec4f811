// warp_access: thread indices of lanes and 32-byte sectors per warp request.
#include <doctest/doctest.h>

#include "tools/vtrace/access/warp_access.hpp"
#include "tests/vtrace/access_test_support.hpp"

using namespace vtools::vtrace;
using namespace vtools::vtrace::access;
using namespace vtools::vtrace::access::testing;

TEST_CASE("warp_access: thread indices and sectors per request") {
  CHECK(thread_of_lane(1, 3, {16, 16, 1}) == Dim3{3, 2, 0});
  CHECK(thread_of_lane(0, 31, {256, 1, 1}) == Dim3{31, 0, 0});
  // 32 consecutive floats: 128 bytes = 4 sectors when aligned; stride 2 floats: 8 sectors; stride 8: 32 sectors.
  CHECK(sectors_touched(warp_over(0x1000, 0, 0, 0, 1000, Operation::kLoad)) == 4);
  CHECK(sectors_touched(warp_over(0x1000, 0, 0, 0, 1000, Operation::kLoad, 2)) == 8);
  CHECK(sectors_touched(warp_over(0x1000, 0, 0, 0, 1000, Operation::kLoad, 8)) == 32);
  // Misaligned by 4 bytes: the 128 bytes span 5 sectors. Only 8 active lanes: 1 sector.
  CHECK(sectors_touched(warp_over(0x1004, 0, 0, 0, 1000, Operation::kLoad)) == 5);
  CHECK(sectors_touched(warp_over(0x1000, 0, 0, 0, 8, Operation::kLoad)) == 1);
}
