// device_block_filter: --blocks as the device patches apply it, against the host's BlockSampling.
#include <doctest/doctest.h>

#include <string>

#include "tools/vtrace/access/device_block_filter.hpp"
#include "tools/vtrace/access/block_sampling.hpp"

using namespace vtools::vtrace;
using namespace vtools::vtrace::access;

TEST_CASE("device_block_filter: canonical specs fit the device filter and keep what BlockSampling keeps") {
  raw::DeviceBlockFilter f{};
  CHECK(parse_device_block_filter("every:8", f));
  CHECK(f.every == 8);
  CHECK(parse_device_block_filter("0,5,10-12", f));
  CHECK(f.range_count == 3);
  CHECK(f.ranges[2][0] == 10);
  CHECK(f.ranges[2][1] == 12);
  CHECK_FALSE(parse_device_block_filter("all", f));  // nothing to filter: every block is recorded
  CHECK(f.every == 0);
  CHECK(f.range_count == 0);
  std::string seventeen;
  for (int i = 0; i < 17; ++i) seventeen += (i ? "," : "") + std::to_string(2 * i);
  CHECK_FALSE(parse_device_block_filter(seventeen, f));  // more ranges than the header holds: the host filters
  CHECK(f.range_count == 0);
  for (const char* bad : {"", "every:0", "every:x", "1,,2", "5-2", "3-", "-3", "1;2"})
    CHECK_FALSE(parse_device_block_filter(bad, f));
  for (const char* spec : {"every:1", "every:7", "3", "0,5,10-12", "2-4,20-30,99"}) {
    BlockSampling host = BlockSampling::parse(spec);
    REQUIRE(parse_device_block_filter(host.str(), f));
    for (std::uint64_t b = 0; b < 128; ++b) CHECK(device_filter_keeps(f, b) == host.keeps(b));
  }
}
