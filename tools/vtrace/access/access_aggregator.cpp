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

void AccessAggregator::add(const LaunchInfo& launch, const raw::AccessSite& site) {
  const Dim3 block{site.block[0], site.block[1], site.block[2]};
  if (!blocks_.keeps(linear_block_index(block, launch.grid))) {
    ++skipped_sites_;
    return;
  }
  // The allocation by its start address; ranges stay offsets into it, or absolute outside every allocation.
  std::int64_t allocation = -1;
  std::uint64_t shift = 0;
  if (site.allocation) {
    const Lookup where = allocations_.find(site.allocation, 1);
    if (where.inside && where.offset == 0)
      allocation = where.allocation;
    else
      shift = site.allocation;  // not live here (cannot happen in a well-formed file): absolute addresses
  }
  const std::int64_t argument = site.argument == raw::kNoArgument ? -1 : static_cast<std::int64_t>(site.argument);
  Totals& t = totals_[{kernel_id(launch.kernel), launch.launch, block[0], block[1], block[2], allocation, argument}];
  for (std::uint32_t i = 0; i < site.range_count && i < raw::kRangesPerSite; ++i)
    t.ranges.add(site.ranges[i][0] + shift, site.ranges[i][1] + shift);
  t.loads += site.loads;
  t.stores += site.stores;
  t.atomics += site.atomics;
  t.bytes_loaded += site.bytes_loaded;
  t.bytes_stored += site.bytes_stored;
  t.requests += site.requests;
  t.sectors += site.sectors;
  t.lanes += site.lanes;
  t.bulk_copies += site.bulk_copies;
  t.ranges_merged += site.ranges_merged;
}

void AccessAggregator::add(const LaunchInfo& launch, const raw::FindingSite& site) {
  const std::uint32_t kernel = kernel_id(launch.kernel);
  const Operation op = operation_of_code(site.operation);
  FindingSite& total = finding_sites_[{kernel, site.pc}];
  if (total.kernel.empty()) {
    total.kernel = launch.kernel;
    total.pc_offset = site.pc;
    total.operation = operation_name(op);
  }
  total.count += site.count;
  const std::uint64_t kept = std::min<std::uint64_t>(site.count, raw::kFirstFindingsPerSite);
  for (std::uint64_t i = 0; i < kept; ++i) {
    if (total.listed >= raw::kFirstFindingsPerSite) break;  // the first few of each (kernel, PC), over all launches
    if (findings_.size() >= max_findings_) {
      ++findings_over_cap_;
      continue;
    }
    const raw::FirstFinding& r = site.first[i];
    Finding f;
    f.kernel = launch.kernel;
    f.launch = launch.launch;
    f.block = {r.block[0], r.block[1], r.block[2]};
    f.thread = thread_of_lane(r.thread / 32, r.thread % 32, launch.block_dim);
    f.pc_offset = site.pc;
    f.address = r.address;
    f.size = r.size;
    f.operation = operation_name(op);
    const Lookup where = allocations_.find(r.address, std::max<std::uint32_t>(r.size, 1));
    f.allocation = where.allocation;
    f.distance = where.distance;
    f.argument = where.allocation >= 0 ? launch.arguments.argument_for(where.allocation, r.address) : -1;
    f.argument_type = type_of(parameter_types_[kernel], f.argument);
    findings_.push_back(f);
    ++total.listed;
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
    a.ranges_exact = t.ranges_merged == 0;
    a.ranges_merged = t.ranges_merged;
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
  for (const auto& [key, site] : finding_sites_) {
    trace.finding_sites.push_back(site);
    trace.findings_total += site.count;
  }
  if (findings_over_cap_)
    trace.run.notes.push_back(std::to_string(findings_over_cap_) +
                              " more out-of-bounds accesses were counted but not listed (cap " +
                              std::to_string(max_findings_) + "); finding_sites has every count");
  if (skipped_sites_)
    trace.run.notes.push_back("--blocks " + blocks_.str() + " left out " + std::to_string(skipped_sites_) +
                              " block records on the host");
}

}  // namespace vtools::vtrace::access
