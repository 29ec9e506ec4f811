// Scratch memory Triton 3.6 gives ops for their own use (layout conversions, reductions, scans, atomics, TMA
// descriptors, histograms, warp_specialize captures), sized by its rules (lib/Analysis/Allocation.cpp and
// Utility.cpp of triton-lang/triton, release 3.6). Only sizes: placement is the allocator's (budget.cpp).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tools/vplan/ttgir_module.hpp"

namespace vtools::vplan {

/// Alignment of op scratch in Triton's allocator (warp_specialize captures and the function's warp indices excepted).
inline constexpr std::int64_t kScratchAlignment = 128;

struct ScratchSize {
  std::int64_t bytes = 0;     ///< 0: the op needs no scratch (or vplan does not know it needs any)
  std::int64_t alignment = kScratchAlignment;
  bool exact = true;          ///< false: an upper bound (see `why`)
  std::string why;            ///< for inexact sizes: what vplan could not know, one clause
};

/// The scratch `op` needs. `used` says whether the op's first result has users (atomics need scratch only then);
/// `threads_per_warp` is the module's (32 on NVIDIA). Layouts are read from `module`'s aliases.
ScratchSize op_scratch(const Op& op, const Module& module, bool used, int threads_per_warp);

/// Whether op_scratch's answer for `op` depends on `used` (atomics): only these ops' results need looking up.
bool scratch_depends_on_use(const Op& op);

/// A blocked layout's parameters (`#ttg.blocked<{sizePerThread = [..], threadsPerWarp = [..], warpsPerCTA = [..]}>`).
struct BlockedLayout {
  std::vector<std::int64_t> size_per_thread, threads_per_warp, warps_per_cta;
};

/// Reads a blocked layout from its alias or inline text; false for other layouts (mma, slice, linear, ...).
bool parse_blocked_layout(const std::string& text, BlockedLayout& out);

}  // namespace vtools::vplan
