// Access mode on the host: folds what the device patches summarised per launch (access_records.hpp: an AccessSite per
// block x allocation x kernel argument, a FindingSite per out-of-bounds PC) into the trace's access records, findings
// and per-PC finding counts. Sites name their allocation by start address; the live allocations at the launch turn
// that into an allocation id. Blocks that --blocks leaves out but the device filter could not skip are dropped here
// and counted. Findings keep the first kFirstFindingsPerSite of each (kernel, PC) in full, up to a cap over all, and
// every one is counted.
#pragma once

#include <map>
#include <tuple>

#include "tools/vtrace/access/allocation_map.hpp"
#include "tools/vtrace/access/block_sampling.hpp"
#include "tools/vtrace/access/interval_set.hpp"
#include "tools/vtrace/access/warp_access.hpp"
#include "tools/vtrace/raw_record_reader.hpp"

namespace vtools::vtrace::access {

class AccessAggregator {
 public:
  /// `allocations` is consulted at add() time (the allocations live during that launch).
  AccessAggregator(const AllocationMap& allocations, BlockSampling blocks, std::uint64_t max_findings = 1000);
  /// The sites of one launch (unique per block, allocation and argument, as the device keeps them).
  void add(const LaunchInfo& launch, const std::vector<raw::AccessSite>& sites);
  void add(const LaunchInfo& launch, const raw::FindingSite& site);
  /// Room for `sites` more sites (a capture's total), so a big run grows its records once.
  void reserve(std::size_t sites) { records_.reserve(records_.size() + sites); }
  /// Appends the accesses (kernels in order of first access, then launch, block, allocation), findings and counts;
  /// the records move out, so call it once.
  void finish(Trace& trace);

 private:
  /// (kernel id, launch, block x, y, z, allocation, argument); kernel ids index kernels_.
  using Key =
      std::tuple<std::uint32_t, std::uint64_t, std::int64_t, std::int64_t, std::int64_t, std::int64_t, std::int64_t>;
  /// One site as folded, small (finish() turns it into an Access): ~160 bytes against an Access's ~340.
  struct Record {
    Key key;
    std::vector<std::array<std::uint64_t, 2>> ranges;
    std::uint64_t loads = 0, stores = 0, atomics = 0, bytes_loaded = 0, bytes_stored = 0, bulk_copies = 0;
    std::uint64_t ranges_merged = 0, requests = 0, sectors = 0, lanes = 0;
  };
  std::uint32_t kernel_id(const std::string& name);

  const AllocationMap& allocations_;
  BlockSampling blocks_;
  std::uint64_t max_findings_;
  std::vector<Record> records_;  ///< in arrival order; finish() sorts them by key
  /// Where each add() of sites began in records_: one launch's records, one (kernel, launch) each, so finish() sorts
  /// each run on its own (small, cache-friendly sorts) and then orders the runs.
  std::vector<std::size_t> runs_;
  std::vector<SharedName> kernels_;  ///< one shared copy of each name for all its records
  std::vector<std::vector<std::string>> parameter_types_;  ///< per kernel id, from its demangled name
  std::map<std::string, std::uint32_t> kernel_ids_;
  std::vector<Finding> findings_;
  std::map<std::tuple<std::uint32_t, std::uint64_t>, FindingSite> finding_sites_;  ///< by (kernel id, pc)
  std::uint64_t findings_over_cap_ = 0;
  std::uint64_t skipped_sites_ = 0;
};

}  // namespace vtools::vtrace::access
