#include "tools/vtrace/access/access_aggregator.hpp"

#include <algorithm>

namespace vtools::vtrace::access {

AccessAggregator::AccessAggregator(const AllocationMap& allocations, BlockSampling blocks, std::uint64_t max_findings)
    : allocations_(allocations), blocks_(std::move(blocks)), max_findings_(max_findings) {}

void AccessAggregator::add(const LaunchInfo& launch, const WarpAccess& w) {
  if (!blocks_.keeps(linear_block_index(w.block, launch.grid))) {
    ++skipped_requests_;
    return;
  }
  // Lanes grouped by the allocation they fall in (-1 = outside all); each group is one request for that allocation.
  std::map<std::int64_t, WarpAccess> per_allocation;
  for (std::uint32_t lane = 0; lane < 32; ++lane) {
    if (!(w.active_mask >> lane & 1u)) continue;
    std::uint64_t addr = w.address[lane];
    Lookup where = allocations_.find(addr, w.bytes_per_lane);
    std::int64_t key = where.inside ? where.allocation : -1;
    auto [it, fresh] = per_allocation.try_emplace(key, w);
    if (fresh) it->second.active_mask = 0;
    it->second.active_mask |= 1u << lane;
    // Ranges are offsets into the allocation, or absolute addresses outside every allocation.
    Totals& t = totals_[{launch.kernel, launch.launch, w.block[0], w.block[1], w.block[2], key}];
    std::uint64_t lo = where.inside ? where.offset : addr;
    t.ranges.add(lo, lo + w.bytes_per_lane);
    if (!where.inside) {
      if (findings_.size() >= max_findings_) {
        ++findings_over_cap_;
        continue;
      }
      Finding f;
      f.kernel = launch.kernel;
      f.launch = launch.launch;
      f.block = w.block;
      f.thread = thread_of_lane(w.warp, lane, launch.block_dim);
      f.pc_offset = w.pc_offset;
      f.address = addr;
      f.size = w.bytes_per_lane;
      f.operation = operation_name(w.operation);
      f.allocation = where.allocation;
      f.distance = where.distance;
      findings_.push_back(f);
    }
  }
  for (const auto& [key, group] : per_allocation) {
    Totals& t = totals_[{launch.kernel, launch.launch, w.block[0], w.block[1], w.block[2], key}];
    std::uint64_t lanes = static_cast<std::uint64_t>(__builtin_popcount(group.active_mask));
    std::uint64_t bytes = lanes * w.bytes_per_lane;
    switch (w.operation) {
      case Operation::kLoad:
        t.loads += lanes;
        t.bytes_loaded += bytes;
        break;
      case Operation::kStore:
        t.stores += lanes;
        t.bytes_stored += bytes;
        break;
      case Operation::kAtomic:
        t.atomics += lanes;
        t.bytes_loaded += bytes;
        t.bytes_stored += bytes;
        break;
    }
    ++t.requests;
    t.sectors += sectors_touched(group);
    t.lanes += lanes;
  }
}

void AccessAggregator::finish(Trace& trace) const {
  for (const auto& [key, t] : totals_) {
    Access a;
    a.kernel = std::get<0>(key);
    a.launch = std::get<1>(key);
    a.block = {std::get<2>(key), std::get<3>(key), std::get<4>(key)};
    a.allocation = std::get<5>(key);
    a.ranges = t.ranges.ranges();
    a.loads = t.loads;
    a.stores = t.stores;
    a.atomics = t.atomics;
    a.bytes_loaded = t.bytes_loaded;
    a.bytes_stored = t.bytes_stored;
    a.sectors_per_request = t.requests ? static_cast<double>(t.sectors) / static_cast<double>(t.requests) : 0;
    a.active_lanes_per_request = t.requests ? static_cast<double>(t.lanes) / static_cast<double>(t.requests) : 0;
    trace.accesses.push_back(std::move(a));
  }
  trace.findings.insert(trace.findings.end(), findings_.begin(), findings_.end());
  if (findings_over_cap_)
    trace.run.notes.push_back(std::to_string(findings_over_cap_) + " more out-of-bounds accesses were not listed (cap " +
                              std::to_string(max_findings_) + ")");
  if (skipped_requests_)
    trace.run.notes.push_back("--blocks " + blocks_.str() + " left out " + std::to_string(skipped_requests_) +
                              " warp requests");
}

}  // namespace vtools::vtrace::access
