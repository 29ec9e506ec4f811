// Shared by vtrace's access-mode tests: allocations and kernel parameter words made by hand, a warp over a strided
// array, the device patches' per-launch work redone on the CPU (DeviceModel), and fixture files read as bytes.
#pragma once

#include <doctest/doctest.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "tools/vtrace/access/access_aggregator.hpp"
#include "tools/vtrace/access/access_records.hpp"
#include "tools/vtrace/access/allocation_map.hpp"
#include "tools/vtrace/access/warp_access.hpp"

namespace vtools::vtrace::access::testing {

using Ranges = std::vector<std::array<std::uint64_t, 2>>;

inline Allocation allocation(std::uint64_t id, std::uint64_t address, std::uint64_t size) {
  Allocation a;
  a.id = id;
  a.address = address;
  a.size = size;
  return a;
}

/// A kLaunchParams payload: (parameter index, value) per word.
inline std::string param_words(const std::vector<std::pair<std::uint64_t, std::uint64_t>>& words) {
  std::string out;
  for (const auto& [parameter, value] : words) {
    raw::ParamWord w{parameter, value};
    out.append(reinterpret_cast<const char*>(&w), sizeof w);
  }
  return out;
}

/// Warp `warp` of `block` accessing element i (4 bytes) at base + 4 * i * stride for active threads.
inline WarpAccess warp_over(std::uint64_t base, std::int64_t block, std::uint32_t warp, std::uint64_t first_element,
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

/// The bytes of a fixture file (a cubin, a raw record file).
inline std::string read_binary(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  REQUIRE(in);
  std::stringstream bytes;
  bytes << in.rdbuf();
  return bytes.str();
}

}  // namespace vtools::vtrace::access::testing
