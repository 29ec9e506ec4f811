// The budget: target limits (ttg.target), offsets and peaks for SMEM and TMEM, whether the plan fits, and the
// reconciliation with Triton's own shared-memory total when it is known.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "formats/plan/plan_model.hpp"
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

/// Bytes Triton reserves to pass a warp_specialize op's captures to its partitions, as Triton packs them:
/// each capture in order at its alignment (i1..i32/f32: 4 bytes, i64/f64/pointers: 8; a memdesc is its lowered
/// struct, an 8-byte base pointer plus an i32 offset per dimension, aligned to 8), total rounded up to 8. This
/// reproduces Triton's totals on the bundled fixtures; it is vplan's reading of Triton, not Triton's code.
std::int64_t warp_specialize_capture_bytes(const Op& ws);

/// Assigns SMEM byte offsets and TMEM column offsets (memory_allocator), computes peaks and fits, and writes
/// notes that reconcile with `triton_shared` when given. TMEM allocations are rounded up to a power of two of at
/// least 32 columns, as tcgen05.alloc requires.
/// Scratch is placed like any buffer (live at its op). When every SMEM buffer carries the compiler's offset
/// (post-allocation IR), the total is the end of the highest buffer at those offsets, else at vplan's own.
/// `compiler_shared` / `compiler_tmem` are the module's ttg.shared / ttg.tensor_memory_size when present;
/// `unknown_scratch` names scratch whose size is an upper bound (its notes say why).
struct CompilerTotals {
  std::optional<std::int64_t> shared_bytes;
  std::optional<std::int64_t> tmem_cols;
};
void compute_budget(Plan& plan, const TargetLimits& limits, std::int64_t capture_bytes,
                    std::optional<std::int64_t> triton_shared, const CompilerTotals& compiler = {},
                    const std::vector<std::pair<int, std::string>>& unknown_scratch = {});

}  // namespace vtools::vplan
