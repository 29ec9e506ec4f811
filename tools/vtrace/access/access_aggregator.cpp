#include "tools/vtrace/access/access_aggregator.hpp"

#include <algorithm>

namespace vtools::vtrace::access {

AccessAggregator::AccessAggregator(const AllocationMap& allocations, BlockSampling blocks, std::uint64_t max_findings)
    : allocations_(allocations), blocks_(std::move(blocks)), max_findings_(max_findings) {}

std::uint32_t AccessAggregator::kernel_id(const std::string& name) {
  auto [it, fresh] = kernel_ids_.try_emplace(name, static_cast<std::uint32_t>(kernels_.size()));
  if (fresh) kernels_.push_back(name);
  return it->second;
}

void AccessAggregator::add(const LaunchInfo& launch, const WarpAccess& w) {
  if (!blocks_.keeps(linear_block_index(w.block, launch.grid))) {
    ++skipped_requests_;
    return;
  }
  // Lanes grouped by the allocation they fall in (-1 = outside all); each group is one request for that allocation.
  // Ranges are offsets into the allocation, or absolute addresses outside every allocation.
  struct Group {
    std::int64_t allocation;
    WarpAccess lanes;
    std::vector<std::array<std::uint64_t, 2>> ranges;
  };
  std::vector<Group> groups;  // usually one or two: a linear scan beats a map
  for (std::uint32_t lane = 0; lane < 32; ++lane) {
    if (!(w.active_mask >> lane & 1u)) continue;
    std::uint64_t addr = w.address[lane];
    Lookup where = allocations_.find(addr, w.bytes_per_lane);
    std::int64_t key = where.inside ? where.allocation : -1;
    auto g = std::find_if(groups.begin(), groups.end(), [&](const Group& x) { return x.allocation == key; });
    if (g == groups.end()) {
      groups.push_back({key, w, {}});
      g = std::prev(groups.end());
      g->lanes.active_mask = 0;
    }
    g->lanes.active_mask |= 1u << lane;
    std::uint64_t lo = where.inside ? where.offset : addr;
    g->ranges.push_back({lo, lo + w.bytes_per_lane});
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
  std::uint32_t kernel = groups.empty() ? 0 : kernel_id(launch.kernel);
  for (auto& group : groups) {
    Totals& t = totals_[{kernel, launch.launch, w.block[0], w.block[1], w.block[2], group.allocation}];
    // Coalesce the lanes' ranges first: a coalesced warp adds one interval, not 32.
    std::sort(group.ranges.begin(), group.ranges.end());
    std::array<std::uint64_t, 2> run = group.ranges.front();
    for (const auto& r : group.ranges) {
      if (r[0] <= run[1]) {
        run[1] = std::max(run[1], r[1]);
      } else {
        t.ranges.add(run[0], run[1]);
        run = r;
      }
    }
    t.ranges.add(run[0], run[1]);
    std::uint64_t lanes = static_cast<std::uint64_t>(__builtin_popcount(group.lanes.active_mask));
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
    t.sectors += sectors_touched(group.lanes);
    t.lanes += lanes;
  }
}

void AccessAggregator::finish(Trace& trace) const {
  for (const auto& [key, t] : totals_) {
    Access a;
    a.kernel = kernels_[std::get<0>(key)];
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
