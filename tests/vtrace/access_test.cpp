// Access mode logic that runs without a GPU: interval merging, allocation lookup, block sampling specs, argument
// mapping, the device's shared pieces (find_allocation, find_argument, add_range) against host references on random
// inputs, the cubin symbol reader, and the folding of device site summaries into per-block records and findings.
#include <doctest/doctest.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <random>
#include <sstream>

#include "libcommon/error.hpp"
#include "tools/vtrace/access/access_aggregator.hpp"
#include "tools/vtrace/access/access_capture.hpp"
#include "tools/vtrace/raw_record_writer.hpp"
#include "tools/vtrace/access/argument_mapping.hpp"
#include "tools/vtrace/injection/cubin_symbols.hpp"
#include "tools/vtrace/access/device_block_filter.hpp"

using namespace vtools::vtrace;
using namespace vtools::vtrace::access;
using namespace vtools::vtrace::injection;  // cubin_symbols.hpp

namespace {

using Ranges = std::vector<std::array<std::uint64_t, 2>>;

Allocation allocation(std::uint64_t id, std::uint64_t address, std::uint64_t size) {
  Allocation a;
  a.id = id;
  a.address = address;
  a.size = size;
  return a;
}

std::string spec_error(const std::string& spec) {
  try {
    BlockSampling::parse(spec);
  } catch (const vtools::Error& e) {
    CHECK(e.code() == vtools::ExitCode::kUsage);
    return e.what();
  }
  return "no error";
}

/// A kAccessSite payload as the preload library writes it: the ranges cut to range_count.
std::string site_bytes(const raw::AccessSite& s) {
  return std::string(reinterpret_cast<const char*>(&s),
                     raw::site_record_bytes(std::min<std::uint32_t>(s.range_count, raw::kRangesPerSite)));
}

/// A kLaunchParams payload: (parameter index, value) per word.
std::string param_words(const std::vector<std::pair<std::uint64_t, std::uint64_t>>& words) {
  std::string out;
  for (const auto& [parameter, value] : words) {
    raw::ParamWord w{parameter, value};
    out.append(reinterpret_cast<const char*>(&w), sizeof w);
  }
  return out;
}

/// Warp `warp` of `block` accessing element i (4 bytes) at base + 4 * i * stride for active threads.
WarpAccess warp_over(std::uint64_t base, std::int64_t block, std::uint32_t warp, std::uint64_t first_element,
                     std::uint64_t n, Operation op, std::uint64_t stride = 1) {
  WarpAccess w;
  w.block = {block, 0, 0};
  w.warp = warp;
  w.operation = op;
  for (std::uint32_t lane = 0; lane < 32; ++lane) {
    std::uint64_t i = first_element + lane;
    w.address[lane] = base + 4 * i * stride;
    if (i < n) w.active_mask |= 1u << lane;
  }
  return w;
}

/// What the device patches compute for a launch, on the CPU, with the same shared pieces (find_allocation,
/// find_argument, site_key, add_range): each warp request's lanes grouped by (allocation, argument) into sites, lanes
/// outside every allocation counted per PC with the first few kept. Only the warp intrinsics are done by hand.
struct DeviceModel {
  std::vector<raw::DeviceAllocation> table;
  std::vector<raw::DeviceArgument> arguments;
  std::map<std::uint64_t, raw::AccessSite> sites;     // by key
  std::map<std::uint64_t, raw::FindingSite> findings;  // by pc
  std::uint64_t findings_total = 0;

  explicit DeviceModel(const std::vector<Allocation>& live, const std::vector<std::pair<std::uint32_t, std::uint64_t>>&
                                                                 pointer_arguments = {}) {
    for (const auto& a : live) table.push_back({a.address, a.address + a.size});
    std::sort(table.begin(), table.end(), [](auto& x, auto& y) { return x.start < y.start; });
    for (const auto& [index, value] : pointer_arguments) {
      std::uint32_t at = raw::find_allocation(table.data(), table.size(), value, 1);
      if (at != raw::kNoAllocation) arguments.push_back({value, at, index});
    }
    std::sort(arguments.begin(), arguments.end(), [](auto& x, auto& y) { return x.pointer < y.pointer; });
  }
  raw::AccessSite& site(const Dim3& block, std::uint32_t allocation, std::uint32_t argument) {
    raw::AccessSite& s = sites[raw::site_key(static_cast<std::uint64_t>(block[0]), allocation, argument)];
    s.block[0] = static_cast<std::int32_t>(block[0]);
    s.block[1] = static_cast<std::int32_t>(block[1]);
    s.block[2] = static_cast<std::int32_t>(block[2]);
    s.allocation = allocation == raw::kNoAllocation ? 0 : table[allocation].start;
    s.argument = argument;
    return s;
  }
  void finding(std::uint64_t pc, std::uint32_t op, const Dim3& block, std::uint32_t thread, std::uint64_t address,
               std::uint32_t size) {
    ++findings_total;
    raw::FindingSite& f = findings[pc];
    f.pc = pc;
    f.operation = op;
    if (f.count < raw::kFirstFindingsPerSite)
      f.first[f.count] = {{static_cast<std::int32_t>(block[0]), static_cast<std::int32_t>(block[1]),
                           static_cast<std::int32_t>(block[2])}, thread, address, size, 0};
    ++f.count;
  }
  static void count(raw::AccessSite& s, Operation op, std::uint64_t n, std::uint64_t bytes) {
    if (op == Operation::kLoad || op == Operation::kBulkLoad) {
      s.loads += n;
      s.bytes_loaded += bytes;
    } else if (op == Operation::kStore || op == Operation::kBulkStore) {
      s.stores += n;
      s.bytes_stored += bytes;
    } else {
      s.atomics += n;
      s.bytes_loaded += bytes;
      s.bytes_stored += bytes;
    }
  }
  void bulk_piece(const Dim3& block, std::uint32_t allocation, std::uint64_t address, std::uint64_t bytes,
                  Operation op) {
    std::uint32_t argument = allocation == raw::kNoAllocation
                                 ? raw::kNoArgument
                                 : raw::find_argument(arguments.data(), static_cast<std::uint32_t>(arguments.size()),
                                                      allocation, address);
    raw::AccessSite& s = site(block, allocation, argument);
    std::uint64_t base = allocation == raw::kNoAllocation ? 0 : table[allocation].start;
    count(s, op, 1, bytes);
    ++s.bulk_copies;
    raw::add_range(s.ranges, s.range_count, s.ranges_merged, address - base, address - base + bytes);
  }
  void request(const WarpAccess& w) {
    const std::uint32_t op = static_cast<std::uint32_t>(w.operation);
    if (is_bulk(w.operation)) {
      const std::uint32_t lane = static_cast<std::uint32_t>(__builtin_ctz(w.active_mask));
      const std::uint64_t address = w.address[lane], bytes = w.bytes_per_lane;
      std::uint32_t a = raw::find_allocation(table.data(), table.size(), address, 1);
      std::uint64_t inside = 0;
      if (a != raw::kNoAllocation) {
        inside = std::min<std::uint64_t>(bytes, table[a].end - address);
        bulk_piece(w.block, a, address, inside, w.operation);
      }
      if (inside < bytes) {
        finding(w.pc_offset, op, w.block, w.warp * 32 + lane, address + inside,
                static_cast<std::uint32_t>(bytes - inside));
        bulk_piece(w.block, raw::kNoAllocation, address + inside, bytes - inside, w.operation);
      }
      return;
    }
    std::map<std::uint64_t, std::vector<std::uint32_t>> groups;  // (allocation << 8 | argument) -> lanes
    std::vector<std::uint32_t> where(32);
    for (std::uint32_t lane = 0; lane < 32; ++lane) {
      if (!(w.active_mask >> lane & 1u)) continue;
      std::uint32_t a = raw::find_allocation(table.data(), table.size(), w.address[lane], w.bytes_per_lane);
      std::uint32_t arg = a == raw::kNoAllocation
                              ? raw::kNoArgument
                              : raw::find_argument(arguments.data(), static_cast<std::uint32_t>(arguments.size()), a,
                                                   w.address[lane]);
      where[lane] = a;
      if (a == raw::kNoAllocation)
        finding(w.pc_offset, op, w.block, w.warp * 32 + lane, w.address[lane], w.bytes_per_lane);
      groups[(static_cast<std::uint64_t>(a) << 8) | arg].push_back(lane);
    }
    for (const auto& [key, lanes] : groups) {
      std::uint32_t a = static_cast<std::uint32_t>(key >> 8), arg = static_cast<std::uint32_t>(key & 0xff);
      raw::AccessSite& s = site(w.block, a, arg);
      std::uint64_t base = a == raw::kNoAllocation ? 0 : table[a].start;
      WarpAccess group = w;
      group.active_mask = 0;
      // A whole warp merges a group's lanes in one batch (warp_range_merge.cuh); a partial one adds them in order.
      std::uint64_t batch[32][2];
      std::uint32_t batch_count = 0;
      for (std::uint32_t lane : lanes) {
        group.active_mask |= 1u << lane;
        const std::uint64_t lo = w.address[lane] - base, hi = lo + w.bytes_per_lane;
        if (w.active_mask != 0xffffffffu) raw::add_range(s.ranges, s.range_count, s.ranges_merged, lo, hi);
        batch[batch_count][0] = lo;
        batch[batch_count++][1] = hi;
      }
      if (w.active_mask == 0xffffffffu) raw::add_range_batch(s.ranges, s.range_count, s.ranges_merged, batch, batch_count);
      count(s, w.operation, lanes.size(), lanes.size() * w.bytes_per_lane);
      ++s.requests;
      s.sectors += sectors_touched(group);
      s.lanes += lanes.size();
    }
  }
  /// Hands the launch's sites and finding sites to `agg`, as the host reads them from the raw file.
  void fold(AccessAggregator& agg, const LaunchInfo& launch) const {
    std::vector<raw::AccessSite> all;
    for (const auto& [key, s] : sites) all.push_back(s);
    agg.add(launch, all);
    for (const auto& [pc, f] : findings) agg.add(launch, f);
  }
};

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

}  // namespace

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

TEST_CASE("block_sampling: lists, ranges, every:N and all") {
  BlockSampling s = BlockSampling::parse("10-12,0,5");
  CHECK(s.keeps(0));
  CHECK_FALSE(s.keeps(1));
  CHECK(s.keeps(5));
  CHECK(s.keeps(11));
  CHECK(s.keeps(12));
  CHECK_FALSE(s.keeps(13));
  CHECK(s.str() == "0,5,10-12");
  BlockSampling every = BlockSampling::parse("every:8");
  CHECK(every.keeps(0));
  CHECK(every.keeps(16));
  CHECK_FALSE(every.keeps(17));
  CHECK(BlockSampling::parse("all").keeps(12345));
  CHECK(BlockSampling().str() == "all");
  CHECK(linear_block_index({1, 2, 3}, {4, 5, 6}) == 1 + 2 * 4 + 3 * 20);
  BlockSampling inner = BlockSampling::parse("0-4885,8");  // a range inside an earlier one (found by the fuzzer)
  CHECK(inner.keeps(1000));
  CHECK(inner.str() == "0-4885");
  CHECK(BlockSampling::parse("3-8,0-5,5").str() == "0-8");
  CHECK(BlockSampling::parse("2,1,0").str() == "0,1,2");  // touching ranges stay apart
}

TEST_CASE("block_sampling: bad specs name the column and what was expected") {
  CHECK(spec_error("") == "--blocks:1:1: expected a block index, a range 'A-B', 'every:N' or 'all', got end of spec");
  CHECK(spec_error("0,") == "--blocks:1:3: expected a block index or range after ',', got end of spec");
  CHECK(spec_error("3-x") == "--blocks:1:3: expected the end of the range after '-', got 'x'");
  CHECK(spec_error("5-2") == "--blocks:1:4: expected a range end not below its start 5, got end of spec");
  CHECK(spec_error("every:0") == "--blocks:1:7: the step of 'every:' must be at least 1");
  CHECK(spec_error("every:4x") == "--blocks:1:8: expected end of spec after 'every:N', got 'x'");
  CHECK(spec_error("1;2") == "--blocks:1:2: expected ',' or end of spec, got ';'");
}

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

/// A cp.async.bulk copy as the device patch reports it: one lane (`lane`) of warp 0, the whole size in one record.
static WarpAccess bulk_copy(std::uint64_t address, std::uint32_t bytes, Operation op, std::int64_t block,
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

static std::string read_binary(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  REQUIRE(in);
  std::stringstream bytes;
  bytes << in.rdbuf();
  return bytes.str();
}

TEST_CASE("cubin_tma_functions: the kernel whose SASS holds UTMALDG, not its neighbour; nothing from a non-image") {
  // tests/data/vtrace/tma_kernels.cu built with nvcc -cubin -arch=sm_90a: tma_load issues
  // cp.async.bulk.tensor (UTMALDG), plain does not.
  const std::string cubin = read_binary(VTOOLS_TEST_DATA "/vtrace/tma_kernels.cubin");
  CHECK(cubin_tma_functions(cubin.data(), cubin.size()) == std::vector<std::string>{"_Z8tma_load14CUtensorMap_stPf"});
  const std::string plain = read_binary(VTOOLS_TEST_DATA "/vtrace/two_kernels.cubin");
  CHECK(cubin_tma_functions(plain.data(), plain.size()).empty());
  CHECK(cubin_tma_functions("not an elf", 10).empty());
  for (std::size_t cut = 0; cut < cubin.size(); cut += 97) cubin_tma_functions(cubin.data(), cut);  // no overread
}

TEST_CASE("cubin_function_names: the kernels of a real cubin; anything else is not an ELF image") {
  const std::string cubin = read_binary(VTOOLS_TEST_DATA "/vtrace/two_kernels.cubin");
  auto names = cubin_function_names(cubin.data(), cubin.size());
  REQUIRE(names);
  std::sort(names->begin(), names->end());
  CHECK(*names == std::vector<std::string>{"_Z10scale_rowsPfif", "_Z3addPKfS0_Pfi"});
  CHECK_FALSE(cubin_function_names(nullptr, 0));
  CHECK_FALSE(cubin_function_names("not an elf", 10));
  for (std::size_t cut : {std::size_t(16), std::size_t(64), cubin.size() / 2, cubin.size() - 1}) {
    auto partial = cubin_function_names(cubin.data(), cut);  // a cut image: refused or read within bounds
    if (partial) CHECK(partial->size() <= 2);
  }
}

TEST_CASE("cubin_function_codes: each kernel's code hashed; a changed instruction changes its kernel's hash only") {
  std::string cubin = read_binary(VTOOLS_TEST_DATA "/vtrace/two_kernels.cubin");
  auto codes = cubin_function_codes(cubin.data(), cubin.size());
  REQUIRE(codes.size() == 2);
  std::sort(codes.begin(), codes.end(), [](const FunctionCode& x, const FunctionCode& y) { return x.name < y.name; });
  CHECK(codes[0].name == "_Z10scale_rowsPfif");
  CHECK(codes[1].name == "_Z3addPKfS0_Pfi");
  CHECK(codes[0].hash != codes[1].hash);
  CHECK(codes[0].bytes % 16 == 0);
  CHECK(codes[0].bytes > 0);
  // Flip one byte inside add's code: its hash moves, scale_rows' does not.
  const ElfImage elf(cubin.data(), cubin.size());
  const Elf64_Shdr names = elf.section(elf.header().e_shstrndx);
  for (std::size_t i = 0; i < elf.section_count(); ++i) {
    const Elf64_Shdr sh = elf.section(i);
    if (elf.string_at(names, sh.sh_name) == std::optional<std::string>(".text._Z3addPKfS0_Pfi")) cubin[sh.sh_offset + 8] ^= 1;
  }
  auto changed = cubin_function_codes(cubin.data(), cubin.size());
  std::sort(changed.begin(), changed.end(), [](const FunctionCode& x, const FunctionCode& y) { return x.name < y.name; });
  REQUIRE(changed.size() == 2);
  CHECK(changed[0].hash == codes[0].hash);
  CHECK(changed[1].hash != codes[1].hash);
  CHECK(cubin_function_codes("not an elf", 10).empty());
  for (std::size_t cut = 0; cut < cubin.size(); cut += 97) cubin_function_codes(cubin.data(), cut);  // no overread
  CHECK(function_code_hash(nullptr, 0) == 0xcbf29ce484222325ull);  // FNV-1a's offset basis
}

TEST_CASE("argument_mapping: pointer words map to allocations and name them") {
  AllocationMap m;
  m.add(allocation(1, 0x10000, 4000));
  m.add(allocation(2, 0x20000, 4000));
  auto args = map_pointer_arguments(param_words({{0, 0x10000}, {1, 1000}, {2, 0x20010}, {3, 0}}), m);
  REQUIRE(args.size() == 2);
  CHECK(args[0].index == 0);
  CHECK(args[0].allocation == 1);
  CHECK(args[1].index == 2);
  CHECK(args[1].offset == 0x10);
  std::vector<Allocation> allocations = {allocation(1, 0x10000, 4000), allocation(2, 0x20000, 4000)};
  allocations[1].name = "kept";
  name_allocations(allocations, "void fill(float*, int, float*)", args);
  CHECK(allocations[0].name == "fill.arg0");
  CHECK(allocations[1].name == "kept");
}

TEST_CASE("argument_mapping: parameter types from demangled names") {
  using Types = std::vector<std::string>;
  CHECK(parameter_types("vector_add(float const*, float const*, float*, int)") ==
        Types{"float const*", "float const*", "float*", "int"});
  CHECK(parameter_types("void ns::gemm<float, (int)128>(Tile<float, 2>, float*)") == Types{"Tile<float, 2>", "float*"});
  CHECK(parameter_types("void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>, "
                        "std::array<char*, 1>>(int, at::native::FillFunctor<float>, std::array<char*, 1>)") ==
        Types{"int", "at::native::FillFunctor<float>", "std::array<char*, 1>"});
  CHECK(parameter_types("k(void (*)(int), float*)") == Types{"void (*)(int)", "float*"});
  CHECK(parameter_types("add_kernel").empty());  // Triton: no signature
  CHECK(parameter_types("k()").empty());
  CHECK(parameter_types("k(void)").empty());
  CHECK(argument_label(1, "float const*") == "argument 1 (float const*)");
  CHECK(argument_label(0, "") == "argument 0");
}

TEST_CASE("argument_mapping: an access goes to the argument with the largest pointer at or below it") {
  // One 1 MiB segment holding two tensors (x at +0, y at +4096) and a separate buffer z.
  std::vector<PointerArgument> args = {{0, 0x100000, 1, 0}, {1, 0x101000, 1, 0x1000}, {3, 0x200000, 2, 0}};
  LaunchArguments launch(args);
  CHECK(launch.argument_for(1, 0x100010) == 0);
  CHECK(launch.argument_for(1, 0x101000) == 1);
  CHECK(launch.argument_for(1, 0x1fffff) == 1);
  CHECK(launch.argument_for(2, 0x200400) == 3);
  CHECK(launch.argument_for(2, 0x1ffff0) == 3);  // below every argument into it: the lowest one
  CHECK(launch.argument_for(5, 0x500000) == -1);
  CHECK(LaunchArguments().argument_for(1, 0x100000) == -1);
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

TEST_CASE("access_capture: allocations, launches and device site summaries in file order become the trace") {
  using raw::Tag;
  raw::RecordBatch b;
  b.add_magic();
  b.add(Tag::kProcess, raw::ProcessRecord{77, 0});
  b.add(Tag::kMemory, raw::MemoryRecord{1, 0x10000, 4000, 1, 3, 0, 0});
  raw::LaunchRecord skipped{};
  skipped.kernel_launch = 0;
  b.add(Tag::kLaunch, skipped, "_Z4fillPfif");  // recorded = 0: left out by --kernel/--launch
  raw::LaunchRecord l{};
  l.kernel_launch = 1;
  l.grid[0] = 1, l.grid[1] = 1, l.grid[2] = 1;
  l.block[0] = 32, l.block[1] = 1, l.block[2] = 1;
  l.recorded = 1;
  l.sites = 2;
  l.requests_dropped = 2;
  l.findings = 24;
  b.add(Tag::kLaunch, l, "_Z4fillPfif");
  // fill(float*, int, float): a pointer into the allocation
  b.add_bytes_record(Tag::kLaunchParams, param_words({{0, 0x10000 + 16}, {1, 1000}, {2, 0}}));
  // One warp store at 3968 + 4 * lane: lanes 0..7 inside (argument 0), lanes 8..31 past the end.
  raw::FindingSite f{};
  f.pc = 0x40;
  f.count = 24;
  f.operation = 1;
  for (std::uint32_t i = 0; i < raw::kFirstFindingsPerSite; ++i)
    f.first[i] = {{0, 0, 0}, 8 + i, 0x10000 + 4000 + 4 * i, 4, 0};
  b.add(Tag::kFindingSite, f);
  raw::AccessSite inside{};
  inside.allocation = 0x10000;  // by start address
  inside.argument = 0;
  inside.stores = 8;
  inside.bytes_stored = 32;
  inside.requests = 1;
  inside.sectors = 1;
  inside.lanes = 8;
  inside.range_count = 1;
  inside.ranges[0][0] = 3968;
  inside.ranges[0][1] = 4000;
  raw::AccessSite outside = inside;
  outside.allocation = 0;
  outside.argument = raw::kNoArgument;
  outside.stores = 24;
  outside.bytes_stored = 96;
  outside.lanes = 24;
  outside.sectors = 3;
  outside.ranges[0][0] = 0x10000 + 4000;
  outside.ranges[0][1] = 0x10000 + 4096;
  b.add_bytes_record(Tag::kAccessSite, site_bytes(inside));
  b.add_bytes_record(Tag::kAccessSite, site_bytes(outside));
  b.add(Tag::kMemory, raw::MemoryRecord{2, 0x10000, 4000, 2, 3, 0, 0});
  b.add(Tag::kEnd, raw::EndRecord{0});
  raw::Capture c = raw::read_capture(b.bytes(), "raw.bin");
  CHECK(c.access_order.size() == 4);
  CHECK(c.launches[1].params.size() == 3 * sizeof(raw::ParamWord));
  CHECK(c.launches[1].sites.size() == 2);
  CHECK(c.launches[1].finding_sites.size() == 1);

  Trace t;
  t.run.mode = "accesses";
  add_access_captures({c}, BlockSampling(), 1000, t);
  REQUIRE(t.allocations.size() == 1);
  CHECK(t.allocations[0].freed_ns == std::optional<std::uint64_t>(2));
  CHECK(t.allocations[0].name == "fill.arg0");
  REQUIRE(t.kernels.size() == 1);
  CHECK(t.kernels[0].name == "fill(float*, int, float)");
  CHECK(t.kernels[0].block == Dim3{32, 1, 1});
  CHECK(t.filtered_kernels == 1);
  CHECK(t.dropped_records == 2);
  REQUIRE(t.accesses.size() == 2);  // allocation -1 sorts before allocation 1
  CHECK(t.accesses[1].allocation == 1);
  CHECK(t.accesses[1].stores == 8);
  CHECK(t.accesses[1].ranges == Ranges{{3968, 4000}});
  CHECK(t.accesses[1].argument == 0);  // fill's float* points 16 bytes into the allocation
  CHECK(t.accesses[1].argument_type == "float*");
  CHECK(t.accesses[0].stores == 24);
  CHECK(t.accesses[0].ranges == Ranges{{0x10000 + 4000, 0x10000 + 4096}});
  CHECK(t.findings_total == 24);
  REQUIRE(t.finding_sites.size() == 1);
  CHECK(t.finding_sites[0].count == 24);
  CHECK(t.finding_sites[0].listed == raw::kFirstFindingsPerSite);
  REQUIRE(t.findings.size() == raw::kFirstFindingsPerSite);
  CHECK(t.findings[0].kernel == "fill(float*, int, float)");
  CHECK(t.findings[0].launch == 1);
  CHECK(t.findings[0].thread == Dim3{8, 0, 0});
  CHECK(t.findings[0].distance == 0);
  CHECK(t.findings[0].operation == "store");
  CHECK(t.findings[0].pc_offset == 0x40);
  CHECK(t.findings[0].argument == 0);
  CHECK(t.findings[3].distance == 12);
  CHECK(t.run.notes ==
        std::vector<std::string>{"1 launches were left out by --kernel/--launch",
                                 "launch 1 of fill(float*, int, float): 2 warp requests of 1 blocks found no room in "
                                 "the per-launch site table (raise --max-bytes)",
                                 "2 warp requests found no room in their launch's site table (raise --max-bytes)"});
}

TEST_CASE("raw_record_reader: the access-mode fuzz seed, framed by hand from the documented layouts, reads back") {
  // tests/vtrace/raw_corpus/access.bin: written by a script from raw_records.hpp and access_records.hpp's layouts, so
  // this also pins those layouts (LaunchRecord 72 bytes, AccessSite's fixed part 120, FindingSite 152).
  const std::string bytes = read_binary(VTOOLS_TEST_DATA "/../vtrace/raw_corpus/access.bin");
  std::vector<raw::Capture> captures{raw::read_capture(bytes, "access.bin")};
  CHECK(captures[0].ended);
  CHECK(captures[0].tma_functions == std::vector<std::string>{"_Z8tma_load14CUtensorMap_stPf"});
  Trace t;
  t.run.mode = "accesses";
  add_access_captures(captures, BlockSampling(), 1000, t);
  CHECK(t.findings_total == 24);
  CHECK(t.findings.size() == raw::kFirstFindingsPerSite);
  REQUIRE(t.accesses.size() == 2);
  CHECK(t.accesses[1].ranges == Ranges{{3968, 4000}});
  CHECK(t.accesses[1].argument == 0);
  CHECK(t.tma_kernels.empty());  // a TMA function that never launched
}

TEST_CASE("raw_record_reader: a site record before any launch, or with too many ranges, is refused") {
  auto error_of = [](raw::Tag tag, const raw::AccessSite& site) {
    raw::RecordBatch b;
    b.add_magic();
    b.add(raw::Tag::kProcess, raw::ProcessRecord{1, 0});
    if (tag == raw::Tag::kLaunch) {
      b.add(raw::Tag::kLaunch, raw::LaunchRecord{}, "k");
      tag = raw::Tag::kAccessSite;
    }
    b.add_bytes_record(tag, tag == raw::Tag::kAccessSite ? site_bytes(site) : std::string());
    try {
      raw::read_capture(b.bytes(), "raw.bin");
    } catch (const vtools::Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  CHECK(error_of(raw::Tag::kAccessSite, raw::AccessSite{}) ==
        "raw.bin: byte 32: an access site record before any launch record");
  raw::AccessSite many{};
  many.range_count = raw::kRangesPerSite + 1;
  CHECK(error_of(raw::Tag::kLaunch, many).find("access site with 17 ranges, at most 16") != std::string::npos);
  raw::AccessSite two{};
  two.range_count = 2;
  raw::RecordBatch b;
  b.add_magic();
  b.add(raw::Tag::kProcess, raw::ProcessRecord{1, 0});
  b.add(raw::Tag::kLaunch, raw::LaunchRecord{}, "k");
  b.add_bytes_record(raw::Tag::kAccessSite, site_bytes(two).substr(0, raw::site_record_bytes(1)));  // one range short
  try {
    raw::read_capture(b.bytes(), "raw.bin");
    FAIL("no error");
  } catch (const vtools::Error& e) {
    CHECK(std::string(e.what()).find("for 2 ranges, expected") != std::string::npos);
  }
}

TEST_CASE("access_capture: TMA kernels are named from their code, never from an absence of accesses") {
  using raw::Tag;
  raw::RecordBatch b;
  b.add_magic();
  b.add(Tag::kProcess, raw::ProcessRecord{1, 0});
  b.add_bytes_record(Tag::kTmaFunction, "sm90_xmma_gemm_tma");    // its SASS holds UTMALDG
  b.add_bytes_record(Tag::kTmaFunction, "never_launched_tma");
  raw::LaunchRecord l{};
  l.recorded = 1;
  l.sites = 1;
  b.add(Tag::kLaunch, l, "sm90_xmma_gemm_tma");
  raw::AccessSite scratch{};  // it touched something (a descriptor in its scratch): still a TMA kernel
  scratch.stores = 1;
  b.add_bytes_record(Tag::kAccessSite, site_bytes(scratch));
  l.sites = 0;
  b.add(Tag::kLaunch, l, "silent_kernel");  // no access at all, but no TMA in its code: not listed
  b.add(Tag::kEnd, raw::EndRecord{0});
  Trace t;
  t.run.mode = "accesses";
  add_access_captures({raw::read_capture(b.bytes(), "raw.bin")}, BlockSampling(), 1000, t);
  CHECK(t.tma_kernels == std::vector<std::string>{"sm90_xmma_gemm_tma"});
  REQUIRE(t.run.notes.size() == 1);
  CHECK(t.run.notes[0].rfind("1 kernels issue TMA tensor copies (UTMALDG/UTMASTG in their SASS)", 0) == 0);
}

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

TEST_CASE("block_sampling: linear block index of damaged dims wraps, defined (a fuzzed raw file found the overflow)") {
  CHECK(linear_block_index({3, 2, 1}, {10, 4, 1}) == 3 + 2 * 10 + 1 * 40);
  const std::int64_t big = 29087807391124390;
  CHECK(linear_block_index({0, 1715104876, 0}, {big, 1, 1}) ==
        static_cast<std::uint64_t>(1715104876) * static_cast<std::uint64_t>(big));
}

TEST_CASE("block_sampling: kept counts the blocks of a grid it keeps") {
  CHECK(BlockSampling().kept(100) == 100);
  CHECK(BlockSampling::parse("every:8").kept(100) == 13);  // 0, 8, ..., 96
  CHECK(BlockSampling::parse("every:8").kept(0) == 0);
  CHECK(BlockSampling::parse("0,5,10-12").kept(11) == 3);  // 0, 5, 10
  CHECK(BlockSampling::parse("0,5,10-12").kept(1000) == 5);
  CHECK(BlockSampling::parse("0-5,3-8").kept(1000) == 9);  // overlapping ranges count once
  CHECK(BlockSampling::parse("50-60").kept(10) == 0);
}

TEST_CASE("access_capture: blocks left out by --blocks are counted per recorded launch") {
  using raw::Tag;
  raw::RecordBatch b;
  b.add_magic();
  b.add(Tag::kProcess, raw::ProcessRecord{77, 0});
  raw::LaunchRecord l{};
  l.grid[0] = 10, l.grid[1] = 3, l.grid[2] = 1;  // 30 blocks: every:8 keeps 0, 8, 16, 24
  l.block[0] = 32, l.block[1] = 1, l.block[2] = 1;
  l.recorded = 1;
  b.add(Tag::kLaunch, l, "_Z4fillPfif");
  l.kernel_launch = 1;
  b.add(Tag::kLaunch, l, "_Z4fillPfif");
  b.add(Tag::kEnd, raw::EndRecord{0});
  raw::Capture c = raw::read_capture(b.bytes(), "raw.bin");
  Trace t;
  t.run.mode = "accesses";
  add_access_captures({c}, BlockSampling::parse("every:8"), 1000, t);
  CHECK(std::count(t.run.notes.begin(), t.run.notes.end(),
                   "--blocks every:8 left out 52 blocks of the recorded launches (skipped on the device)") == 1);
  CHECK(t.tma_kernels.empty());  // no access, but no TMA in its code
  Trace none;
  add_access_captures({c}, BlockSampling::parse("100-200"), 1000, none);  // every block sampled out
  CHECK(none.tma_kernels.empty());
  CHECK(std::count(none.run.notes.begin(), none.run.notes.end(),
                   "--blocks 100-200 left out 60 blocks of the recorded launches (skipped on the device)") == 1);
  Trace many;
  std::string list;
  for (int i = 0; i < 17; ++i) list += (i ? "," : "") + std::to_string(i);  // 0..16 kept: 13 of 30 left out, twice
  add_access_captures({c}, BlockSampling::parse(list), 1000, many);
  CHECK(std::count(many.run.notes.begin(), many.run.notes.end(),
                   "--blocks " + BlockSampling::parse(list).str() +
                       " left out 26 blocks of the recorded launches (recorded, then dropped on the host)") == 1);
}
