// Access mode on the host: folds warp accesses (warp_access.hpp) into the per launch x block x allocation records
// of the trace (merged byte ranges, counts, bytes, sectors and active lanes per request) and turns every lane
// outside all live allocations into an out-of-bounds finding. Blocks left out by --blocks and findings over the cap
// are counted and reported in the run notes. A cp.async.bulk copy counts its whole byte range, one load or store and
// its bytes, split at allocation bounds (the part outside is one finding); it is not a warp request, so it stays out
// of sectors and lanes per request. Each record and finding names the kernel argument that points into its
// allocation ("argument 1", float const*), so a segment holding several tensors gets a record per tensor.
#pragma once

#include <map>
#include <tuple>

#include "tools/vtrace/access/allocation_map.hpp"
#include "tools/vtrace/access/block_sampling.hpp"
#include "tools/vtrace/access/interval_set.hpp"
#include "tools/vtrace/access/warp_access.hpp"

namespace vtools::vtrace::access {

class AccessAggregator {
 public:
  /// `allocations` is consulted at add() time (the allocations live during that launch).
  AccessAggregator(const AllocationMap& allocations, BlockSampling blocks, std::uint64_t max_findings = 1000);
  void add(const LaunchInfo& launch, const WarpAccess& warp);
  /// Appends the accesses (kernels in order of first access, then launch, block, allocation) and findings.
  void finish(Trace& trace) const;

 private:
  struct Totals {
    IntervalSet ranges;
    std::uint64_t loads = 0, stores = 0, atomics = 0, bytes_loaded = 0, bytes_stored = 0;
    std::uint64_t requests = 0, sectors = 0, lanes = 0, bulk_copies = 0;
  };
  /// (kernel id, launch, block x, y, z, allocation, argument); kernel ids index kernels_ (no string per lane).
  using Key =
      std::tuple<std::uint32_t, std::uint64_t, std::int64_t, std::int64_t, std::int64_t, std::int64_t, std::int64_t>;
  std::uint32_t kernel_id(const std::string& name);
  void add_bulk(const LaunchInfo& launch, const WarpAccess& copy);
  /// Lists an out-of-bounds access (or counts it past the cap).
  void add_finding(const LaunchInfo& launch, std::uint32_t kernel, const WarpAccess& w, std::uint32_t lane,
                   std::uint64_t address, std::uint32_t size, const Lookup& where);

  const AllocationMap& allocations_;
  BlockSampling blocks_;
  std::uint64_t max_findings_;
  std::map<Key, Totals> totals_;
  std::vector<std::string> kernels_;
  std::vector<std::vector<std::string>> parameter_types_;  ///< per kernel id, from its demangled name
  std::map<std::string, std::uint32_t> kernel_ids_;
  std::vector<Finding> findings_;
  std::uint64_t findings_over_cap_ = 0;
  std::uint64_t skipped_requests_ = 0;
};

}  // namespace vtools::vtrace::access
