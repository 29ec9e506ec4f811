// `--blocks SPEC`: which blocks access mode records. SPEC is "all", a list of linear block indices and inclusive
// ranges ("0,5,10-12"), or "every:N" (blocks 0, N, 2N, ...). Blocks left out are counted, never silently lost. The
// device patches apply the same spec where it fits (device_block_filter.hpp); this class filters on the host too.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "formats/trace/trace_model.hpp"

namespace vtools::vtrace::access {

class BlockSampling {
 public:
  /// Everything.
  BlockSampling() = default;
  /// Throws Error(kUsage) at "--blocks:1:<column>" saying what was expected, e.g.
  /// "expected a block index or range after ',', got end of spec".
  static BlockSampling parse(std::string_view spec);
  [[nodiscard]] bool keeps(std::uint64_t linear_block) const;
  /// How many of blocks 0 .. `blocks` - 1 it keeps.
  [[nodiscard]] std::uint64_t kept(std::uint64_t blocks) const;
  /// The spec in canonical form ("all", "every:8", "0,5,10-12").
  [[nodiscard]] std::string str() const;

 private:
  bool all_ = true;
  std::uint64_t every_ = 0;
  std::vector<std::pair<std::uint64_t, std::uint64_t>> ranges_;  // inclusive, sorted, overlaps merged
};

/// x + y * grid.x + z * grid.x * grid.y (CUDA's linear block order).
std::uint64_t linear_block_index(const Dim3& block, const Dim3& grid);

}  // namespace vtools::vtrace::access
