#include "tools/vtrace/access/access_aggregator.hpp"

#include <algorithm>

namespace vtools::vtrace::access {

namespace {

/// The type of parameter `index`, "" when unknown.
std::string type_of(const std::vector<std::string>& types, std::int64_t index) {
  return index >= 0 && static_cast<std::size_t>(index) < types.size() ? types[static_cast<std::size_t>(index)] : "";
}

}  // namespace

AccessAggregator::AccessAggregator(const AllocationMap& allocations, BlockSampling blocks, std::uint64_t max_findings)
    : allocations_(allocations), blocks_(std::move(blocks)), max_findings_(max_findings) {}

std::uint32_t AccessAggregator::kernel_id(const std::string& name) {
  auto [it, fresh] = kernel_ids_.try_emplace(name, static_cast<std::uint32_t>(kernels_.size()));
  if (fresh) {
    kernels_.push_back(name);
    parameter_types_.push_back(parameter_types(name));
  }
  return it->second;
}

void AccessAggregator::add(const LaunchInfo& launch, const WarpAccess& w) {
  if (!blocks_.keeps(linear_block_index(w.block, launch.grid))) {
    ++skipped_requests_;
    return;
  }
  if (is_bulk(w.operation)) {
    add_bulk(launch, w);
    return;
  }
  // Lanes grouped by the allocation they fall in (-1 = outside all) and the kernel argument they went through; each
  // group is one request for that allocation. Ranges are offsets into the allocation, or absolute addresses outside
  // every allocation.
  struct Group {
    std::int64_t allocation, argument;
    WarpAccess lanes;
    std::vector<std::array<std::uint64_t, 2>> ranges;
  };
  std::vector<Group> groups;  // usually one or two: a linear scan beats a map
  const std::uint32_t kernel = kernel_id(launch.kernel);
  for (std::uint32_t lane = 0; lane < 32; ++lane) {
    if (!(w.active_mask >> lane & 1u)) continue;
    std::uint64_t addr = w.address[lane];
    Lookup where = allocations_.find(addr, w.bytes_per_lane);
    std::int64_t key = where.inside ? where.allocation : -1;
    std::int64_t argument =
        where.inside && !launch.arguments.empty() ? launch.arguments.argument_for(where.allocation, addr) : -1;
    auto g = std::find_if(groups.begin(), groups.end(),
                          [&](const Group& x) { return x.allocation == key && x.argument == argument; });
    if (g == groups.end()) {
      groups.push_back({key, argument, w, {}});
      g = std::prev(groups.end());
      g->lanes.active_mask = 0;
    }
    g->lanes.active_mask |= 1u << lane;
    std::uint64_t lo = where.inside ? where.offset : addr;
    g->ranges.push_back({lo, lo + w.bytes_per_lane});
    if (!where.inside) add_finding(launch, kernel, w, lane, addr, w.bytes_per_lane, where);
  }
  for (auto& group : groups) {
    Totals& t =
        totals_[{kernel, launch.launch, w.block[0], w.block[1], w.block[2], group.allocation, group.argument}];
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
      case Operation::kBulkLoad:
      case Operation::kBulkStore:
        break;  // add_bulk
    }
    ++t.requests;
    t.sectors += sectors_touched(group.lanes);
    t.lanes += lanes;
  }
}

void AccessAggregator::add_finding(const LaunchInfo& launch, std::uint32_t kernel, const WarpAccess& w,
                                   std::uint32_t lane, std::uint64_t address, std::uint32_t size, const Lookup& where) {
  if (findings_.size() >= max_findings_) {
    ++findings_over_cap_;
    return;
  }
  Finding f;
  f.kernel = launch.kernel;
  f.launch = launch.launch;
  f.block = w.block;
  f.thread = thread_of_lane(w.warp, lane, launch.block_dim);
  f.pc_offset = w.pc_offset;
  f.address = address;
  f.size = size;
  f.operation = operation_name(w.operation);
  f.allocation = where.allocation;
  f.distance = where.distance;
  f.argument = where.allocation >= 0 ? launch.arguments.argument_for(where.allocation, address) : -1;
  f.argument_type = type_of(parameter_types_[kernel], f.argument);
  findings_.push_back(f);
}

void AccessAggregator::add_bulk(const LaunchInfo& launch, const WarpAccess& copy) {
  if (!copy.active_mask) return;
  const std::uint32_t lane = static_cast<std::uint32_t>(__builtin_ctz(copy.active_mask));  // the issuing thread
  const std::uint64_t address = copy.address[lane];
  const std::uint32_t kernel = kernel_id(launch.kernel);
  // Each piece (the part in one allocation, or a gap outside all of them) is one load or store of its bytes; a gap
  // is also one finding at its first byte, so a copy running 16 bytes past the end reports those 16 bytes.
  for (const RangePiece& piece : allocations_.split(address, copy.bytes_per_lane)) {
    const std::uint64_t bytes = piece.hi - piece.lo;
    const Lookup where = allocations_.find(piece.lo, bytes);
    if (piece.allocation < 0)
      add_finding(launch, kernel, copy, lane, piece.lo, static_cast<std::uint32_t>(bytes), where);
    const std::uint64_t lo = piece.allocation < 0 ? piece.lo : where.offset;  // absolute outside, else an offset
    const std::int64_t argument =
        piece.allocation < 0 ? -1 : launch.arguments.argument_for(piece.allocation, piece.lo);
    Totals& t = totals_[{kernel, launch.launch, copy.block[0], copy.block[1], copy.block[2], piece.allocation,
                         argument}];
    t.ranges.add(lo, lo + bytes);
    ++t.bulk_copies;
    if (copy.operation == Operation::kBulkLoad) {
      ++t.loads;
      t.bytes_loaded += bytes;
    } else {
      ++t.stores;
      t.bytes_stored += bytes;
    }
  }
}

void AccessAggregator::finish(Trace& trace) const {
  for (const auto& [key, t] : totals_) {
    Access a;
    a.kernel = kernels_[std::get<0>(key)];
    a.launch = std::get<1>(key);
    a.block = {std::get<2>(key), std::get<3>(key), std::get<4>(key)};
    a.allocation = std::get<5>(key);
    a.argument = std::get<6>(key);
    a.argument_type = type_of(parameter_types_[std::get<0>(key)], a.argument);
    a.ranges = t.ranges.ranges();
    a.loads = t.loads;
    a.stores = t.stores;
    a.atomics = t.atomics;
    a.bytes_loaded = t.bytes_loaded;
    a.bytes_stored = t.bytes_stored;
    a.bulk_copies = t.bulk_copies;
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
