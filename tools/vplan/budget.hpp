// The budget: target limits (ttg.target), offsets and peaks for SMEM and TMEM, whether the plan fits, and the
// reconciliation with Triton's own shared-memory total when it is known.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "formats/plan/plan_model.hpp"
#include "tools/vplan/triton_placement.hpp"
#include "tools/vplan/ttgir_module.hpp"

namespace vtools::vplan {

struct TargetLimits {
  std::int64_t smem_bytes = 232448;  ///< per block (opt-in maximum)
  std::int64_t tmem_cols = 0;        ///< 512 on sm_100-class GPUs, 0 where there is no tensor memory
  bool known = false;
};

/// "cuda:90" / "cuda:100" -> limits (sm_90, sm_100/103: 232448 bytes; sm_80: 166912; sm_86/89/120: 101376;
/// TMEM 512 columns on sm_100/103). Unknown targets get the sm_90 figures and known = false.
TargetLimits limits_for_target(const std::string& target);

/// Bytes Triton 3.6 reserves to pass a warp_specialize op's captures to its partitions, packed tightly with no
/// padding (WarpSpecializeOp::getCaptureSizeAlign; the buffer itself is aligned to 8): a scalar takes its bytes
/// (i1: 1), a pointer, tensor descriptor or TMEM memdesc 8, a shared-memory memdesc its lowered struct (an 8-byte
/// base pointer plus an i32 offset per dimension). Reproduces the compiler's offsets on the bundled fixtures.
std::int64_t warp_specialize_capture_bytes(const Op& ws);

/// Assigns SMEM byte offsets (triton_placement) and TMEM column and lane offsets (tmem_placement) as Triton places
/// them, computes peaks and fits, and writes notes that reconcile with `triton_shared` when given. vplan's TMEM
/// total is the end of its highest allocation rounded as Triton rounds ttg.tensor_memory_size; the verdict takes
/// the module's figure when the IR carries it.
/// Scratch is placed like any buffer (live at its op). When every SMEM buffer carries the compiler's offset
/// (post-allocation IR), the total is the end of the highest buffer at those offsets, else at vplan's own.
/// `compiler_shared` / `compiler_tmem` are the module's ttg.shared / ttg.tensor_memory_size when present;
/// `unknown_scratch` names scratch whose size is an upper bound (its notes say why). `allocator_view` (by buffer
/// id, liveness.hpp) is how Triton's allocators see each buffer; empty: each buffer's own liveness, no regions.
/// `tmem_row_groups` (by buffer id, -1: none) joins TMEM buffers that must share lanes (tmem_placement.hpp).
struct CompilerTotals {
  std::optional<std::int64_t> shared_bytes;
  std::optional<std::int64_t> tmem_cols;
};
void compute_budget(Plan& plan, const TargetLimits& limits, std::int64_t capture_bytes,
                    std::optional<std::int64_t> triton_shared, const CompilerTotals& compiler = {},
                    const std::vector<std::pair<int, std::string>>& unknown_scratch = {},
                    const std::vector<SmemItem>& allocator_view = {},
                    const std::vector<int>& tmem_row_groups = {});

}  // namespace vtools::vplan
