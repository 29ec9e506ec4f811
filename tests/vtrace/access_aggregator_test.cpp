// access_aggregator: the host's fold of device sites and finding sites into access records and findings.
#include <doctest/doctest.h>

#include <algorithm>
#include <tuple>

#include "tools/vtrace/access/access_aggregator.hpp"
#include "tests/vtrace/access_test_support.hpp"

using namespace vtools::vtrace;
using namespace vtools::vtrace::access;
using namespace vtools::vtrace::access::testing;

namespace {

/// `warps` run on the device model over `live`, folded by a fresh aggregator into a trace.
Trace fold_warps(const std::vector<Allocation>& live, const LaunchInfo& launch, const std::vector<WarpAccess>& warps,
                 BlockSampling blocks = BlockSampling(), std::uint64_t max_findings = 1000,
                 const std::vector<std::pair<std::uint32_t, std::uint64_t>>& pointer_arguments = {}) {
  AllocationMap m;
  for (const auto& a : live) m.add(a);
  DeviceModel device(live, pointer_arguments);
  for (const auto& w : warps) device.request(w);
  AccessAggregator agg(m, std::move(blocks), max_findings);
  device.fold(agg, launch);
  Trace t;
  agg.finish(t);
  return t;
}

/// A cp.async.bulk copy as the device patch reports it: one lane (`lane`) of warp 0, the whole size in one record.
WarpAccess bulk_copy(std::uint64_t address, std::uint32_t bytes, Operation op, std::int64_t block,
                     std::uint32_t lane) {
  WarpAccess w;
  w.block = {block, 0, 0};
  w.operation = op;
  w.active_mask = 1u << lane;
  w.address[lane] = address;
  w.bytes_per_lane = bytes;
  w.pc_offset = 0x90;
  return w;
}

}  // namespace

TEST_CASE("access_aggregator: vector add over an odd n gives exact counts and ranges per block") {
  const std::uint64_t n = 1000, a = 0x10000, b = 0x20000, c = 0x30000;
  LaunchInfo launch{"vector_add", 0, {4, 1, 1}, {256, 1, 1}, {}};
  std::vector<WarpAccess> warps;
  for (std::int64_t block = 0; block < 4; ++block)
    for (std::uint32_t warp = 0; warp < 8; ++warp) {
      std::uint64_t first = static_cast<std::uint64_t>(block) * 256 + warp * 32;
      if (first >= n) continue;  // whole warp masked off: no request at all
      warps.push_back(warp_over(a, block, warp, first, n, Operation::kLoad));
      warps.push_back(warp_over(b, block, warp, first, n, Operation::kLoad));
      warps.push_back(warp_over(c, block, warp, first, n, Operation::kStore));
    }
  Trace t = fold_warps({allocation(1, a, 4 * n), allocation(2, b, 4 * n), allocation(3, c, 4 * n)}, launch, warps);
  CHECK(t.findings.empty());
  CHECK(t.findings_total == 0);
  REQUIRE(t.accesses.size() == 12);
  const Access& last_a = t.accesses[9];  // block 3, allocation 1
  CHECK(last_a.block == Dim3{3, 0, 0});
  CHECK(last_a.allocation == 1);
  CHECK(last_a.loads == 232);
  CHECK(last_a.bytes_loaded == 928);
  CHECK(last_a.ranges == Ranges{{3072, 4000}});
  CHECK(last_a.ranges_exact);
  CHECK(last_a.active_lanes_per_request == doctest::Approx(232.0 / 8));  // 7 full warps + one of 8 lanes
  CHECK(last_a.sectors_per_request == doctest::Approx((7 * 4 + 1) / 8.0));
  const Access& first_c = t.accesses[2];  // block 0, allocation 3
  CHECK(first_c.stores == 256);
  CHECK(first_c.loads == 0);
  CHECK(first_c.ranges == Ranges{{0, 1024}});
  CHECK(first_c.sectors_per_request == doctest::Approx(4.0));
  std::uint64_t loads = 0;
  for (const auto& x : t.accesses) loads += x.loads;
  CHECK(loads == 2 * n);
}

TEST_CASE("access_aggregator: an off-by-one read is exactly one finding with block, thread and distance") {
  const std::uint64_t n = 1000, in = 0x10000;
  LaunchInfo launch{"off_by_one", 0, {4, 1, 1}, {256, 1, 1}, {}};
  std::vector<WarpAccess> warps;
  for (std::int64_t block = 0; block < 4; ++block)
    for (std::uint32_t warp = 0; warp < 8; ++warp) {
      std::uint64_t first = static_cast<std::uint64_t>(block) * 256 + warp * 32;
      if (first > n) continue;
      WarpAccess w = warp_over(in, block, warp, first, n + 1, Operation::kLoad);  // i <= n
      w.pc_offset = 0x170;
      warps.push_back(w);
    }
  Trace t = fold_warps({allocation(1, in, 4 * n)}, launch, warps);
  REQUIRE(t.findings.size() == 1);
  CHECK(t.findings_total == 1);
  REQUIRE(t.finding_sites.size() == 1);
  CHECK(t.finding_sites[0].count == 1);
  CHECK(t.finding_sites[0].listed == 1);
  CHECK(t.finding_sites[0].pc_offset == 0x170);
  const Finding& f = t.findings[0];
  CHECK(f.kernel == "off_by_one");
  CHECK(f.block == Dim3{3, 0, 0});
  CHECK(f.thread == Dim3{232, 0, 0});
  CHECK(f.address == in + 4000);
  CHECK(f.size == 4);
  CHECK(f.operation == "load");
  CHECK(f.allocation == 1);
  CHECK(f.distance == 0);
  CHECK(f.pc_offset == 0x170);
  auto outside_it = std::find_if(t.accesses.begin(), t.accesses.end(), [](const Access& x) { return x.allocation == -1; });
  REQUIRE(outside_it != t.accesses.end());
  const Access& outside = *outside_it;
  CHECK(outside.block == Dim3{3, 0, 0});
  CHECK(outside.ranges == Ranges{{in + 4000, in + 4004}});
  CHECK(outside.loads == 1);
}

TEST_CASE("access_aggregator: every finding is counted per PC; the first few of each PC are listed, up to the cap") {
  LaunchInfo launch{"k", 0, {4, 1, 1}, {32, 1, 1}, {}};
  std::vector<WarpAccess> warps;
  for (std::int64_t block = 0; block < 4; ++block) {
    WarpAccess w = warp_over(0x1000, block, 0, 16, 64, Operation::kStore);  // lanes 16..31 past a 128-byte buffer
    w.pc_offset = block < 2 ? 0x10 : 0x20;
    warps.push_back(w);
  }
  Trace t = fold_warps({allocation(1, 0x1000, 128)}, launch, warps, BlockSampling::parse("every:2"), 5);
  CHECK(t.findings_total == 64);  // findings are counted whatever --blocks keeps
  REQUIRE(t.finding_sites.size() == 2);
  CHECK(t.finding_sites[0].count == 32);
  CHECK(t.finding_sites[0].listed == raw::kFirstFindingsPerSite);
  CHECK(t.finding_sites[1].listed == 1);  // the cap of 5 over all
  CHECK(t.findings.size() == 5);
  REQUIRE(t.run.notes.size() == 2);
  CHECK(t.run.notes[0] == "3 more out-of-bounds accesses were counted but not listed (cap 5); finding_sites has every count");
  CHECK(t.run.notes[1] == "--blocks every:2 left out 4 block records on the host");
}

TEST_CASE("access_aggregator: bulk copies count their whole range and bytes, not sectors or lanes per request") {
  LaunchInfo launch{"bulk_copy", 0, {2, 1, 1}, {32, 1, 1}, {}};
  std::vector<WarpAccess> warps;
  for (std::int64_t block = 0; block < 2; ++block) {
    std::uint64_t offset = static_cast<std::uint64_t>(block) * 1024;
    warps.push_back(bulk_copy(0x10000 + offset, 1024, Operation::kBulkLoad, block, 0));
    warps.push_back(bulk_copy(0x20000 + offset, 1024, Operation::kBulkStore, block, 0));
  }
  warps.push_back(warp_over(0x20000, 0, 0, 0, 32, Operation::kStore));  // one ordinary coalesced warp store
  Trace t = fold_warps({allocation(1, 0x10000, 2048), allocation(2, 0x20000, 2048)}, launch, warps);
  CHECK(t.findings.empty());
  REQUIRE(t.accesses.size() == 4);
  const Access& load0 = t.accesses[0];  // block 0, allocation 1
  CHECK(load0.allocation == 1);
  CHECK(load0.ranges == Ranges{{0, 1024}});
  CHECK(load0.loads == 1);
  CHECK(load0.bytes_loaded == 1024);
  CHECK(load0.bulk_copies == 1);
  CHECK(load0.sectors_per_request == 0);  // no warp request
  CHECK(load0.active_lanes_per_request == 0);
  const Access& store0 = t.accesses[1];  // block 0, allocation 2: the bulk store and the warp store
  CHECK(store0.ranges == Ranges{{0, 1024}});
  CHECK(store0.stores == 1 + 32);
  CHECK(store0.bytes_stored == 1024 + 128);
  CHECK(store0.bulk_copies == 1);
  CHECK(store0.sectors_per_request == doctest::Approx(4.0));  // the warp store's alone
  CHECK(store0.active_lanes_per_request == doctest::Approx(32.0));
  CHECK(t.accesses[3].ranges == Ranges{{1024, 2048}});
  CHECK(t.accesses[3].bytes_stored == 1024);
}

TEST_CASE("access_aggregator: a bulk copy running past the end is one finding for the bytes outside") {
  LaunchInfo launch{"bulk_copy", 0, {1, 1, 1}, {64, 1, 1}, {}};
  WarpAccess w = bulk_copy(0x10000 + 3968, 64, Operation::kBulkLoad, 0, 5);  // 32 bytes in, 32 past the end
  w.warp = 1;
  Trace t = fold_warps({allocation(1, 0x10000, 4000)}, launch, {w});
  REQUIRE(t.findings.size() == 1);
  const Finding& f = t.findings[0];
  CHECK(f.address == 0x10000 + 4000);
  CHECK(f.size == 32);
  CHECK(f.operation == "bulk_load");
  CHECK(f.thread == Dim3{37, 0, 0});
  CHECK(f.allocation == 1);
  CHECK(f.distance == 0);
  REQUIRE(t.accesses.size() == 2);
  CHECK(t.accesses[0].allocation == -1);
  CHECK(t.accesses[0].ranges == Ranges{{0x10000 + 4000, 0x10000 + 4032}});
  CHECK(t.accesses[1].allocation == 1);
  CHECK(t.accesses[1].ranges == Ranges{{3968, 4000}});
  CHECK(t.accesses[1].bytes_loaded == 32);
}

TEST_CASE("access_aggregator: sites with the same key are summed, their ranges joined, averages over both") {
  AllocationMap m;
  m.add(allocation(1, 0x10000, 4096));
  AccessAggregator agg(m, BlockSampling());
  LaunchInfo launch{"k", 0, {1, 1, 1}, {32, 1, 1}, {}};
  raw::AccessSite a{};
  a.allocation = 0x10000;
  a.argument = raw::kNoArgument;
  a.loads = 32;
  a.bytes_loaded = 128;
  a.requests = 1;
  a.sectors = 4;
  a.lanes = 32;
  a.range_count = 1;
  a.ranges[0][0] = 0;
  a.ranges[0][1] = 128;
  raw::AccessSite b = a;
  b.sectors = 8;
  b.lanes = 16;
  b.ranges[0][0] = 128;
  b.ranges[0][1] = 256;
  agg.add(launch, {a});
  agg.add(launch, {b});
  Trace t;
  agg.finish(t);
  REQUIRE(t.accesses.size() == 1);
  CHECK(t.accesses[0].loads == 64);
  CHECK(t.accesses[0].ranges == Ranges{{0, 256}});
  CHECK(t.accesses[0].sectors_per_request == doctest::Approx(6.0));
  CHECK(t.accesses[0].active_lanes_per_request == doctest::Approx(24.0));
}

TEST_CASE("access_aggregator: records ordered by kernel, launch, block; a launch folded in several pieces is summed") {
  AllocationMap m;
  m.add(allocation(1, 0x10000, 4096));
  AccessAggregator agg(m, BlockSampling());
  auto site = [](std::int32_t block, std::uint64_t loads) {
    raw::AccessSite s{};
    s.block[0] = block;
    s.allocation = 0x10000;
    s.argument = raw::kNoArgument;
    s.loads = loads;
    s.range_count = 1;
    s.ranges[0][1] = 4;
    return s;
  };
  LaunchInfo a0{"a", 0, {4, 1, 1}, {32, 1, 1}, {}}, a1{"a", 1, {4, 1, 1}, {32, 1, 1}, {}}, b0{"b", 0, {4, 1, 1}, {32, 1, 1}, {}};
  agg.add(a1, {site(2, 1), site(0, 1)});
  agg.add(b0, {site(3, 1), site(1, 1)});
  agg.add(a0, {site(1, 10), site(3, 10)});
  agg.add(a1, {site(0, 100), site(1, 100)});  // a1 again: block 0 summed, block 1 new
  agg.add(a1, {site(0, 1000)});               // and a third time
  Trace t;
  agg.finish(t);
  std::vector<std::tuple<std::string, std::uint64_t, std::int64_t, std::uint64_t>> got;
  for (const Access& x : t.accesses) got.emplace_back(std::string(x.kernel), x.launch, x.block[0], x.loads);
  using Row = std::tuple<std::string, std::uint64_t, std::int64_t, std::uint64_t>;
  CHECK(got == std::vector<Row>{{"a", 0, 1, 10}, {"a", 0, 3, 10}, {"a", 1, 0, 1101}, {"a", 1, 1, 100},
                                {"a", 1, 2, 1}, {"b", 0, 1, 1}, {"b", 0, 3, 1}});
}

TEST_CASE("access_aggregator: a block touching more ranges than a site holds is coarsened, never silent") {
  LaunchInfo launch{"strided", 0, {1, 1, 1}, {32, 1, 1}, {}};
  // One warp, each lane 4 bytes at a stride of 64: 32 disjoint ranges, twice kRangesPerSite.
  Trace t = fold_warps({allocation(1, 0x10000, 4096)}, launch, {warp_over(0x10000, 0, 0, 0, 32, Operation::kLoad, 16)});
  REQUIRE(t.accesses.size() == 1);
  const Access& a = t.accesses[0];
  CHECK_FALSE(a.ranges_exact);
  CHECK(a.ranges_merged == 32 - raw::kRangesPerSite);
  CHECK(a.ranges.size() == raw::kRangesPerSite);
  CHECK(a.ranges.front()[0] == 0);
  CHECK(a.ranges.back()[1] == 31 * 64 + 4);  // the hull is exact
  CHECK(a.loads == 32);
  CHECK(a.bytes_loaded == 128);  // counts stay exact
}

TEST_CASE("access_aggregator: records and findings name the kernel argument of their allocation") {
  const std::uint64_t n = 1000, a = 0x10000, c = 0x30000;
  LaunchInfo launch{"off_by_one(float const*, float*, int)", 0, {4, 1, 1}, {256, 1, 1}, {}};
  launch.arguments = LaunchArguments({{0, a, 1, 0}, {1, c, 3, 0}});
  // lanes 0..8 of the last warp: i = 992..1000, one past the end
  Trace t = fold_warps({allocation(1, a, 4 * n), allocation(3, c, 4 * n)}, launch,
                       {warp_over(a, 3, 7, 3 * 256 + 7 * 32, n + 1, Operation::kLoad),
                        warp_over(c, 3, 7, 3 * 256 + 7 * 32, n, Operation::kStore)},
                       BlockSampling(), 1000, {{0, a}, {1, c}});
  REQUIRE(t.findings.size() == 1);
  CHECK(t.findings[0].argument == 0);
  CHECK(t.findings[0].argument_type == "float const*");
  REQUIRE(t.accesses.size() == 3);  // outside, allocation 1 (argument 0), allocation 3 (argument 1)
  CHECK(t.accesses[0].allocation == -1);
  CHECK(t.accesses[0].argument == -1);
  CHECK(t.accesses[0].argument_type.empty());
  CHECK(t.accesses[1].argument == 0);
  CHECK(t.accesses[1].argument_type == "float const*");
  CHECK(t.accesses[1].loads == 8);
  CHECK(t.accesses[2].argument == 1);
  CHECK(t.accesses[2].argument_type == "float*");
}
