#include "tools/vtrace/access/access_aggregator.hpp"

#include <algorithm>
#include <iterator>

#include "libcommon/parallel_tasks.hpp"

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

void AccessAggregator::add(const LaunchInfo& launch, const raw::SiteRecords& sites) {
  Batch batch;
  batch.sites = sites;
  add_batch(launch, std::move(batch));
}

void AccessAggregator::add(const LaunchInfo& launch, const std::vector<raw::AccessSite>& sites) {
  Batch batch;
  batch.owned = sites;
  for (const raw::AccessSite& site : batch.owned) batch.sites.push_back(reinterpret_cast<const char*>(&site));
  add_batch(launch, std::move(batch));
}

void AccessAggregator::add_batch(const LaunchInfo& launch, Batch batch) {
  if (batch.sites.empty()) return;
  batch.kernel = kernel_id(launch.kernel);
  batch.launch = launch.launch;
  batch.grid = launch.grid;
  // The allocations live now, by start address: sites of one launch mostly name a few, mostly in runs.
  std::uint64_t last = 0;
  for (std::size_t i = 0; i < batch.sites.size(); ++i) {
    const std::uint64_t start = batch.sites.allocation(i);
    if (start && start != last) batch.allocations.emplace_back(start, -1);
    last = start;
  }
  std::sort(batch.allocations.begin(), batch.allocations.end());
  batch.allocations.erase(std::unique(batch.allocations.begin(), batch.allocations.end()), batch.allocations.end());
  for (auto& [start, id] : batch.allocations) {
    const Lookup where = allocations_.find(start, 1);
    id = where.inside && where.offset == 0 ? where.allocation : -1;
  }
  batches_.push_back(std::move(batch));
}

void AccessAggregator::fold(Batch& batch) const {
  batch.records.reserve(batch.sites.size());
  for (std::size_t i = 0; i < batch.sites.size(); ++i) {
    const raw::AccessSite site = batch.sites[i];
    const Dim3 block{site.block[0], site.block[1], site.block[2]};
    if (!blocks_.keeps(linear_block_index(block, batch.grid))) {
      ++batch.skipped;
      continue;
    }
    // The allocation by its start address; ranges stay offsets into it, or absolute outside every allocation.
    std::int64_t allocation = -1;
    std::uint64_t shift = 0;
    if (site.allocation) {
      const auto at = std::lower_bound(batch.allocations.begin(), batch.allocations.end(),
                                       std::pair<std::uint64_t, std::int64_t>(site.allocation, -1));
      allocation = at != batch.allocations.end() && at->first == site.allocation ? at->second : -1;
      if (allocation < 0) shift = site.allocation;  // not live here (not in a well-formed file): absolute addresses
    }
    Record r;
    r.key = {batch.kernel, batch.launch, block[0], block[1], block[2], allocation,
             site.argument == raw::kNoArgument ? -1 : static_cast<std::int64_t>(site.argument)};
    r.ranges.reserve(site.range_count);
    for (std::uint32_t k = 0; k < site.range_count; ++k)
      r.ranges.push_back({site.ranges[k][0] + shift, site.ranges[k][1] + shift});
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
    batch.records.push_back(std::move(r));
  }
  sort_and_join(batch.records);
}

void AccessAggregator::join(Record& into, const Record& r) {
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
  into.requests += r.requests;
  into.sectors += r.sectors;
  into.lanes += r.lanes;
}

void AccessAggregator::sort_and_join(std::vector<Record>& records) {
  std::sort(records.begin(), records.end(), [](const Record& x, const Record& y) { return x.key < y.key; });
  std::size_t kept = 0;  // the device keeps one site per key; a launch folded in several pieces is summed
  for (std::size_t i = 0; i < records.size(); ++i) {
    if (kept > 0 && records[kept - 1].key == records[i].key) {
      join(records[kept - 1], records[i]);
    } else {
      if (kept != i) records[kept] = std::move(records[i]);
      ++kept;
    }
  }
  records.resize(kept);
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
  for_each_task(batches_.size(), [&](std::size_t b) { fold(batches_[b]); });
  // Batches in order of (kernel id, launch); the batches of one launch (folded in several pieces) joined into one.
  std::vector<std::size_t> order(batches_.size());
  for (std::size_t b = 0; b < order.size(); ++b) order[b] = b;
  std::stable_sort(order.begin(), order.end(), [&](std::size_t x, std::size_t y) {
    return std::tie(batches_[x].kernel, batches_[x].launch) < std::tie(batches_[y].kernel, batches_[y].launch);
  });
  std::vector<Batch*> launches;
  for (std::size_t b : order) {
    Batch& batch = batches_[b];
    skipped_sites_ += batch.skipped;
    if (!launches.empty() && launches.back()->kernel == batch.kernel && launches.back()->launch == batch.launch) {
      std::vector<Record>& into = launches.back()->records;
      into.insert(into.end(), std::make_move_iterator(batch.records.begin()),
                  std::make_move_iterator(batch.records.end()));
      sort_and_join(into);
      batch.records = {};
    } else {
      launches.push_back(&batch);
    }
  }
  // Each record into its place in trace.accesses, launches in parallel.
  std::vector<std::size_t> first(launches.size() + 1, trace.accesses.size());
  for (std::size_t l = 0; l < launches.size(); ++l) first[l + 1] = first[l] + launches[l]->records.size();
  resize_touched_in_parallel(trace.accesses, first.back());
  for_each_task(launches.size(), [&](std::size_t l) {
    std::vector<Record>& records = launches[l]->records;
    if (records.empty()) return;
    // A copy of the name per launch: records of one kernel formed on many threads at once would otherwise all
    // count references on one shared counter.
    const SharedName kernel(kernels_[launches[l]->kernel].str());
    const std::vector<std::string>& types = parameter_types_[launches[l]->kernel];
    for (std::size_t i = 0; i < records.size(); ++i) {
      Record& r = records[i];
      Access& a = trace.accesses[first[l] + i];
      a.kernel = kernel;
      a.launch = std::get<1>(r.key);
      a.block = {std::get<2>(r.key), std::get<3>(r.key), std::get<4>(r.key)};
      a.allocation = std::get<5>(r.key);
      a.argument = std::get<6>(r.key);
      a.argument_type = type_of(types, a.argument);
      a.ranges = std::move(r.ranges);
      a.loads = r.loads;
      a.stores = r.stores;
      a.atomics = r.atomics;
      a.bytes_loaded = r.bytes_loaded;
      a.bytes_stored = r.bytes_stored;
      a.bulk_copies = r.bulk_copies;
      a.ranges_merged = r.ranges_merged;
      a.ranges_exact = r.ranges_merged == 0;
      a.sectors_per_request = r.requests ? static_cast<double>(r.sectors) / static_cast<double>(r.requests) : 0;
      a.active_lanes_per_request = r.requests ? static_cast<double>(r.lanes) / static_cast<double>(r.requests) : 0;
    }
    records = {};
  });
  batches_.clear();
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
