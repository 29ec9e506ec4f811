// access_records: the pieces the device patches share with the host (find_allocation, find_argument, add_range,
// add_range_batch), against host references (IntervalSet, AllocationMap, LaunchArguments) on random inputs.
#include <doctest/doctest.h>

#include <algorithm>
#include <random>
#include <set>
#include <thread>
#include <vector>

#include "tools/vtrace/access/access_records.hpp"
#include "tools/vtrace/access/allocation_map.hpp"
#include "tools/vtrace/access/argument_mapping.hpp"
#include "tools/vtrace/access/interval_set.hpp"
#include "tests/vtrace/access_test_support.hpp"

using namespace vtools::vtrace;
using namespace vtools::vtrace::access;
using namespace vtools::vtrace::access::testing;

namespace {

/// A site's ranges against the exact interval set of what was added: equal while nothing was merged, else sorted,
/// disjoint and apart, with the same hull, every exact range inside one of them.
void check_site_ranges(const std::uint64_t (*r)[2], std::uint32_t count, std::uint64_t merged, const IntervalSet& exact) {
  REQUIRE(count <= raw::kRangesPerSite);
  Ranges got;
  for (std::uint32_t i = 0; i < count; ++i) got.push_back({r[i][0], r[i][1]});
  for (std::size_t i = 0; i + 1 < got.size(); ++i) REQUIRE(got[i][1] < got[i + 1][0]);
  const Ranges want = exact.ranges();
  if (merged == 0) {
    REQUIRE(got == want);
    return;
  }
  REQUIRE(got.front()[0] == want.front()[0]);
  REQUIRE(got.back()[1] == want.back()[1]);
  for (const auto& w : want)
    REQUIRE(std::any_of(got.begin(), got.end(), [&](auto& g) { return g[0] <= w[0] && w[1] <= g[1]; }));
}

}  // namespace

TEST_CASE("add_range: equals an exact interval set until the slots run out, then covers it within the same hull") {
  std::mt19937_64 rng(std::random_device{}());
  for (int round = 0; round < 2000; ++round) {
    std::uint64_t r[raw::kRangesPerSite][2] = {};
    std::uint32_t count = 0;
    std::uint64_t merged = 0;
    IntervalSet exact;
    const int adds = 1 + static_cast<int>(rng() % 40);
    const std::uint64_t span = 64 + rng() % 4096;
    for (int i = 0; i < adds; ++i) {
      std::uint64_t lo = rng() % span, hi = lo + 1 + rng() % 32;
      raw::add_range(r, count, merged, lo, hi);
      exact.add(lo, hi);
    }
    check_site_ranges(r, count, merged, exact);
  }
}

TEST_CASE("fold_hull: the runs a coarsened site took without its lock join its ranges as one more range") {
  std::mt19937_64 rng(std::random_device{}());
  for (int round = 0; round < 1000; ++round) {
    raw::AccessSite s{};
    IntervalSet exact;
    const std::uint64_t span = 64 + rng() % 4096;
    for (int i = 0; i < 20; ++i) {  // coarsened: past kRangesPerSite
      std::uint64_t lo = rng() % span, hi = lo + 1 + rng() % 32;
      raw::add_range(s.ranges, s.range_count, s.ranges_merged, lo, hi);
      exact.add(lo, hi);
    }
    std::uint64_t hull_lo = ~0ull, hull_hi = 0;
    for (int i = 0, runs = static_cast<int>(rng() % 8); i < runs; ++i) {  // as the patches: {~lo, hi} by max
      std::uint64_t lo = rng() % span, hi = lo + 1 + rng() % 32;
      hull_lo = std::min(hull_lo, lo);
      hull_hi = std::max(hull_hi, hi);
      s.hull[0] = std::max(s.hull[0], ~lo);
      s.hull[1] = std::max(s.hull[1], hi);
      ++s.ranges_merged;
      exact.add(lo, hi);
    }
    raw::fold_hull(s);
    CHECK(s.hull[0] == 0);
    CHECK(s.hull[1] == 0);
    REQUIRE(s.range_count <= raw::kRangesPerSite);
    check_site_ranges(s.ranges, s.range_count, s.ranges_merged, exact);
    if (hull_hi)
      CHECK(std::any_of(s.ranges, s.ranges + s.range_count,
                        [&](auto& g) { return g[0] <= hull_lo && hull_hi <= g[1]; }));
  }
}

TEST_CASE("add_range_batch: the union of ranges and batch; past kRangesPerSite the smallest gaps are filled") {
  std::uint64_t r[raw::kRangesPerSite][2] = {{0, 10}, {20, 30}};
  std::uint32_t count = 2;
  std::uint64_t merged = 0;
  const std::uint64_t touching[][2] = {{10, 20}, {40, 41}, {35, 35}, {41, 44}};  // {35, 35} is empty
  raw::add_range_batch(r, count, merged, touching, 4);
  REQUIRE(count == 2);
  CHECK(r[0][0] == 0);
  CHECK(r[0][1] == 30);
  CHECK(r[1][0] == 40);
  CHECK(r[1][1] == 44);
  CHECK(merged == 0);
  // 20 ranges of 1 byte at 0, 10, 20, ...; the gap before 100 is one byte smaller: filled first, then the lowest.
  std::uint64_t many[20][2];
  for (std::uint64_t i = 0; i < 20; ++i) {
    many[i][0] = i * 10;
    many[i][1] = i * 10 + 1;
  }
  many[10][0] = 99;  // [99, 101): 8 bytes after [90, 91)
  count = 0;
  merged = 0;
  raw::add_range_batch(r, count, merged, many, 20);
  REQUIRE(count == raw::kRangesPerSite);
  CHECK(merged == 4);
  CHECK(r[0][0] == 0);
  CHECK(r[0][1] == 31);   // gaps before 10, 20, 30 filled (9 bytes each, the lowest of equal gaps)
  CHECK(r[6][0] == 90);
  CHECK(r[6][1] == 101);  // the 8-byte gap before 99
  CHECK(r[7][0] == 110);
}

TEST_CASE("add_range_batch: exact as an interval set until the slots run out, then within the same hull") {
  std::mt19937_64 rng(std::random_device{}());
  for (int round = 0; round < 3000; ++round) {
    std::uint64_t r[raw::kRangesPerSite][2] = {};
    std::uint32_t count = 0;
    std::uint64_t merged = 0;
    IntervalSet exact;
    const std::uint64_t span = 64 + rng() % 4096;
    for (int batches = 1 + static_cast<int>(rng() % 4); batches > 0; --batches) {
      std::uint64_t batch[32][2];
      const std::uint32_t n = static_cast<std::uint32_t>(rng() % 33);
      for (std::uint32_t i = 0; i < n; ++i) {
        batch[i][0] = rng() % span;
        batch[i][1] = batch[i][0] + rng() % 33;  // some empty
        if (batch[i][1] > batch[i][0]) exact.add(batch[i][0], batch[i][1]);
      }
      raw::add_range_batch(r, count, merged, batch, n);
    }
    check_site_ranges(r, count, merged, exact);
  }
}

TEST_CASE("find_allocation and find_argument: the device's lookups agree with the host's on random tables") {
  std::mt19937_64 rng(std::random_device{}());
  for (int round = 0; round < 300; ++round) {
    AllocationMap m;
    std::vector<Allocation> live;
    std::uint64_t at = 0x100000;
    const int n = static_cast<int>(rng() % 20);
    for (int i = 0; i < n; ++i) {
      at += rng() % 3 ? 256 * (rng() % 8) : 0;  // sometimes back to back
      Allocation a = allocation(static_cast<std::uint64_t>(i) + 1, at, 1 + rng() % 3000);
      at += a.size;
      live.push_back(a);
      m.add(a);
    }
    std::vector<std::pair<std::uint32_t, std::uint64_t>> pointers;
    for (std::uint32_t i = 0; i < 6 && !live.empty(); ++i) {
      const Allocation& a = live[rng() % live.size()];
      pointers.push_back({i, a.address + rng() % a.size});
    }
    DeviceModel device(live, pointers);
    std::vector<std::pair<std::uint64_t, std::uint64_t>> words(pointers.begin(), pointers.end());
    LaunchArguments host(map_pointer_arguments(param_words(words), m));
    for (int probe = 0; probe < 200; ++probe) {
      std::uint64_t address = 0x100000 - 64 + rng() % (at - 0x100000 + 128);
      std::uint32_t size = 1u << (rng() % 5);
      Lookup want = m.find(address, size);
      std::uint32_t got = raw::find_allocation(device.table.data(), device.table.size(), address, size);
      REQUIRE(want.inside == (got != raw::kNoAllocation));
      if (!want.inside) continue;
      REQUIRE(device.table[got].start == live[static_cast<std::size_t>(want.allocation - 1)].address);
      std::uint32_t arg = raw::find_argument(device.arguments.data(), static_cast<std::uint32_t>(device.arguments.size()),
                                             got, address);
      std::int64_t host_arg = host.argument_for(want.allocation, address);
      REQUIRE(host_arg == (arg == raw::kNoArgument ? -1 : static_cast<std::int64_t>(arg)));
    }
  }
}

namespace {

/// A launch header with a PC table of `capacity` entries (2 x capacity slots) in `slots` and `sites`.
raw::DeviceLaunchHeader pc_table(std::vector<raw::HashSlot>& slots, std::vector<raw::PcSite>& sites,
                                 std::uint32_t capacity) {
  slots.assign(2 * capacity, raw::HashSlot{});
  sites.assign(capacity, raw::PcSite{});
  raw::DeviceLaunchHeader h{};
  h.pc_slots = slots.data();
  h.pc_sites = sites.data();
  h.pc_capacity = capacity;
  h.pc_slot_count = 2 * capacity;
  return h;
}

}  // namespace

TEST_CASE("pc table: one entry per PC in order of first use, each request counted once with its lanes and sectors") {
  std::vector<raw::HashSlot> slots;
  std::vector<raw::PcSite> sites;
  raw::DeviceLaunchHeader h = pc_table(slots, sites, 8);
  raw::count_pc_request(&h, 0x7f0000001200, 0, 4, 32, 4, 0);   // a coalesced float load
  raw::count_pc_request(&h, 0x7f0000001240, 1, 4, 16, 16, 0);  // a strided store by half a warp
  raw::count_pc_request(&h, 0x7f0000001200, 0, 4, 31, 4, 0);
  raw::count_pc_request(&h, 0x7f0000001300, 3, 0, 1, 0, 4096);  // a bulk copy
  REQUIRE(h.pcs_used == 3);
  CHECK(sites[0].pc == 0x7f0000001201);  // pc + 1: 0 marks a free slot
  CHECK(sites[0].requests == 2);
  CHECK(sites[0].lanes == 63);
  CHECK(sites[0].sectors == 8);
  CHECK(sites[0].size == 4);
  CHECK(raw::pc_site_bytes(sites[0]) == 63 * 4);
  CHECK(sites[1].operation == 1);
  CHECK(sites[1].sectors == 16);
  CHECK(sites[2].operation == 3);
  CHECK(raw::pc_site_bytes(sites[2]) == 4096);
  CHECK(h.pc_requests_dropped == 0);
}

TEST_CASE("pc table: PCs past its capacity are counted as dropped requests, never lost or overwritten") {
  std::vector<raw::HashSlot> slots;
  std::vector<raw::PcSite> sites;
  raw::DeviceLaunchHeader h = pc_table(slots, sites, 4);
  for (std::uint64_t pc = 0; pc < 10; ++pc)
    for (int r = 0; r <= static_cast<int>(pc); ++r) raw::count_pc_request(&h, 0x1000 + 16 * pc, 0, 8, 32, 8, 0);
  CHECK(h.pcs_used == 8);  // 4 made; 4 more claimed a slot and found no room; 2 found no slot
  std::uint64_t counted = 0;
  for (const auto& s : sites) {
    REQUIRE(s.pc >= 0x1001);
    CHECK(s.requests == (s.pc - 0x1001) / 16 + 1);  // every request of a PC that got an entry
    counted += s.requests;
  }
  CHECK(counted + h.pc_requests_dropped == 55);
  raw::DeviceLaunchHeader off{};  // VTRACE_ACCESS_PCS=0: no table, nothing counted
  raw::count_pc_request(&off, 0x1000, 0, 4, 32, 4, 0);
  CHECK(off.pcs_used == 0);
}

TEST_CASE("pc table: many threads at once count every request exactly once, one entry per PC") {
  std::vector<raw::HashSlot> slots;
  std::vector<raw::PcSite> sites;
  raw::DeviceLaunchHeader h = pc_table(slots, sites, 64);
  constexpr int kThreads = 8, kRequests = 20000, kPcs = 48;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&h, t] {
      std::mt19937 rng(static_cast<unsigned>(t));
      for (int i = 0; i < kRequests; ++i) {
        const std::uint64_t pc = 0x4000 + 16 * (rng() % kPcs);
        raw::count_pc_request(&h, pc, 0, 4, 32, 4, 0);
      }
    });
  for (auto& t : threads) t.join();
  REQUIRE(h.pcs_used == kPcs);
  std::uint64_t requests = 0;
  std::set<std::uint64_t> pcs;
  for (std::uint32_t i = 0; i < kPcs; ++i) {
    requests += sites[i].requests;
    CHECK(sites[i].lanes == 32 * sites[i].requests);
    pcs.insert(sites[i].pc);
  }
  CHECK(pcs.size() == static_cast<std::size_t>(kPcs));
  CHECK(requests == static_cast<std::uint64_t>(kThreads) * kRequests);
  CHECK(h.pc_requests_dropped == 0);
}
