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

void AccessAggregator::add(const LaunchInfo& launch, const std::vector<raw::AccessSite>& sites) {
  if (sites.empty()) return;
  const std::uint32_t kernel = kernel_id(launch.kernel);
  runs_.push_back(records_.size());
  std::uint64_t last_start = 0;  // sites of one launch mostly name a few allocations: look each up once in a row
  std::int64_t last_allocation = -1;
  for (const raw::AccessSite& site : sites) {
    const Dim3 block{site.block[0], site.block[1], site.block[2]};
    if (!blocks_.keeps(linear_block_index(block, launch.grid))) {
      ++skipped_sites_;
      continue;
    }
    // The allocation by its start address; ranges stay offsets into it, or absolute outside every allocation.
    std::int64_t allocation = -1;
    std::uint64_t shift = 0;
    if (site.allocation) {
      if (site.allocation != last_start) {
        const Lookup where = allocations_.find(site.allocation, 1);
        last_start = site.allocation;
        last_allocation = where.inside && where.offset == 0 ? where.allocation : -1;
      }
      allocation = last_allocation;
      if (allocation < 0) shift = site.allocation;  // not live here (not in a well-formed file): absolute addresses
    }
    Record r;
    r.key = {kernel, launch.launch, block[0], block[1], block[2], allocation,
             site.argument == raw::kNoArgument ? -1 : static_cast<std::int64_t>(site.argument)};
    r.ranges.reserve(site.range_count);
    for (std::uint32_t i = 0; i < site.range_count && i < raw::kRangesPerSite; ++i)
      r.ranges.push_back({site.ranges[i][0] + shift, site.ranges[i][1] + shift});
    r.loads = site.loads;
    r.stores = site.stores;
    r.atomics = site.atomics;
    r.bytes_loaded = site.bytes_loaded;
    r.bytes_stored = site.bytes_stored;
    r.bulk_copies = site.bulk_copies;
    r.ranges_merged = site.ranges_merged;
    r.requests = site.requests;
    r.sectors = site.sectors;
    r.lanes = site.lanes;
    records_.push_back(std::move(r));
  }
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

void AccessAggregator::finish(Trace& trace) {
  // Sorted through an index (records are big, keys are not), each record moved once into its Access.
  // Each add()'s run of records shares its (kernel, launch): sorted within, then the runs by their first key, and
  // runs of equal (kernel, launch) (a launch folded twice) merged so that equal keys end up side by side.
  std::vector<std::uint32_t> order(records_.size());
  for (std::uint32_t i = 0; i < order.size(); ++i) order[i] = i;
  const auto by_key = [&](std::uint32_t x, std::uint32_t y) { return records_[x].key < records_[y].key; };
  std::vector<std::pair<std::size_t, std::size_t>> runs;  // [begin, end) into order
  for (std::size_t r = 0; r < runs_.size(); ++r) {
    const std::size_t begin = runs_[r], end = r + 1 < runs_.size() ? runs_[r + 1] : order.size();
    if (begin == end) continue;
    std::sort(order.begin() + static_cast<std::ptrdiff_t>(begin), order.begin() + static_cast<std::ptrdiff_t>(end),
              by_key);
    runs.emplace_back(begin, end);
  }
  const auto head = [&](const std::pair<std::size_t, std::size_t>& run) {
    const Key& k = records_[order[run.first]].key;
    return std::make_tuple(std::get<0>(k), std::get<1>(k));
  };
  std::stable_sort(runs.begin(), runs.end(), [&](const auto& x, const auto& y) { return head(x) < head(y); });
  std::vector<std::uint32_t> sorted;
  sorted.reserve(order.size());
  std::size_t group = 0;  // where the runs with the current (kernel, launch) begin in sorted
  for (std::size_t r = 0; r < runs.size(); ++r) {
    const std::size_t middle = sorted.size();
    sorted.insert(sorted.end(), order.begin() + static_cast<std::ptrdiff_t>(runs[r].first),
                  order.begin() + static_cast<std::ptrdiff_t>(runs[r].second));
    if (r > 0 && head(runs[r - 1]) == head(runs[r]))
      std::inplace_merge(sorted.begin() + static_cast<std::ptrdiff_t>(group),
                         sorted.begin() + static_cast<std::ptrdiff_t>(middle), sorted.end(), by_key);
    else
      group = middle;
  }
  order = std::move(sorted);
  runs_.clear();
  trace.accesses.reserve(trace.accesses.size() + records_.size());
  const Key* last = nullptr;
  std::uint64_t requests = 0, sectors = 0, lanes = 0;  // of the last Access, for its per-request averages
  auto per_request = [&](Access& a) {
    a.sectors_per_request = requests ? static_cast<double>(sectors) / static_cast<double>(requests) : 0;
    a.active_lanes_per_request = requests ? static_cast<double>(lanes) / static_cast<double>(requests) : 0;
  };
  for (std::uint32_t i : order) {
    Record& r = records_[i];
    if (last && *last == r.key) {  // the device keeps one site per key; a launch folded twice is summed
      Access& into = trace.accesses.back();
      IntervalSet joined;
      for (const auto& range : into.ranges) joined.add(range[0], range[1]);
      for (const auto& range : r.ranges) joined.add(range[0], range[1]);
      into.ranges = joined.ranges();
      into.loads += r.loads;
      into.stores += r.stores;
      into.atomics += r.atomics;
      into.bytes_loaded += r.bytes_loaded;
      into.bytes_stored += r.bytes_stored;
      into.bulk_copies += r.bulk_copies;
      into.ranges_merged += r.ranges_merged;
      into.ranges_exact = into.ranges_merged == 0;
      requests += r.requests;
      sectors += r.sectors;
      lanes += r.lanes;
      per_request(into);
      continue;
    }
    last = &r.key;
    Access a;
    a.kernel = kernels_[std::get<0>(r.key)];
    a.launch = std::get<1>(r.key);
    a.block = {std::get<2>(r.key), std::get<3>(r.key), std::get<4>(r.key)};
    a.allocation = std::get<5>(r.key);
    a.argument = std::get<6>(r.key);
    a.argument_type = type_of(parameter_types_[std::get<0>(r.key)], a.argument);
    a.ranges = std::move(r.ranges);
    a.loads = r.loads;
    a.stores = r.stores;
    a.atomics = r.atomics;
    a.bytes_loaded = r.bytes_loaded;
    a.bytes_stored = r.bytes_stored;
    a.bulk_copies = r.bulk_copies;
    a.ranges_merged = r.ranges_merged;
    a.ranges_exact = r.ranges_merged == 0;
    requests = r.requests;
    sectors = r.sectors;
    lanes = r.lanes;
    per_request(a);
    trace.accesses.push_back(std::move(a));
  }
  records_.clear();
  records_.shrink_to_fit();
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
