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
  /// The sites of one launch (unique per block, allocation and argument, as the device keeps them). The records
  /// are referred to, not copied: they must outlive finish().
  void add(const LaunchInfo& launch, const raw::SiteRecords& sites);
  /// The same from unpacked sites, which are copied.
  void add(const LaunchInfo& launch, const std::vector<raw::AccessSite>& sites);
  void add(const LaunchInfo& launch, const raw::FindingSite& site);
  /// Appends the accesses (kernels in order of first access, then launch, block, allocation), findings and counts.
  /// The sites of each add() are folded into records on their own, on several cores; call it once.
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
  /// The sites of one add(), folded by finish() into records sorted by key, equal keys summed.
  struct Batch {
    std::uint32_t kernel = 0;
    std::uint64_t launch = 0;
    Dim3 grid{1, 1, 1};
    raw::SiteRecords sites;
    std::vector<raw::AccessSite> owned;  ///< add(vector): the copies `sites` points into
    /// Each start address the sites name and its allocation id at add() time (-1: no live allocation starts there),
    /// sorted by address.
    std::vector<std::pair<std::uint64_t, std::int64_t>> allocations;
    std::vector<Record> records;
    std::uint64_t skipped = 0;  ///< sites of blocks --blocks leaves out
  };
  void add_batch(const LaunchInfo& launch, Batch batch);
  void fold(Batch& batch) const;
  static void join(Record& into, const Record& r);
  /// Sorts `records` by key and sums the records of equal keys.
  static void sort_and_join(std::vector<Record>& records);
  std::uint32_t kernel_id(const std::string& name);

  const AllocationMap& allocations_;
  BlockSampling blocks_;
  std::uint64_t max_findings_;
  std::vector<Batch> batches_;  ///< in add() order
  std::vector<SharedName> kernels_;  ///< one shared copy of each name for all its records
  std::vector<std::vector<std::string>> parameter_types_;  ///< per kernel id, from its demangled name
  std::map<std::string, std::uint32_t> kernel_ids_;
  std::vector<Finding> findings_;
  std::map<std::tuple<std::uint32_t, std::uint64_t>, FindingSite> finding_sites_;  ///< by (kernel id, pc)
  std::uint64_t findings_over_cap_ = 0;
  std::uint64_t skipped_sites_ = 0;
};

}  // namespace vtools::vtrace::access
