// The plan's budget figures, named once (issue 39, "one figure, one meaning"): what vplan check, vplan table,
// vplan diff and vrender's plan page print about SMEM and TMEM, by these names and with these values. The numbers
// are computed by vplan's budget analysis (tools/vplan/budget.cpp) and carried in the Summary (JSON: `summary`).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "formats/plan/plan_model.hpp"

namespace vtools::vplan {

/// One line of the budget: its name ("SMEM total") and its value as every output prints it ("131496 B").
struct BudgetFigure {
  std::string name;
  std::string value;
};

/// "SMEM total": vplan's figure for Triton's `shared`, the end of the highest SMEM buffer (data, mbarriers and
/// scratch, warp_specialize captures included) at the compiler's offsets when the IR carries them, else at vplan's
/// own. "131496 B", or "231096-296216 B" when scratch of unknown size makes it a range (low end: that scratch at 0;
/// the budget verdict uses the low end).
std::string smem_total_text(const Summary& s);

/// What smem_live_at_peak holds, for a heading or a note: "live at the peak (op 12)", or where a warp_specialize's
/// regions are counted at once, "at the peak (the regions of the warp_specialize at op 258, counted at once: ...)".
std::string smem_peak_set_text(const Summary& s);

/// "Triton's shared": Triton's own total, from its metadata (or --triton-shared) when given, else the module's
/// `ttg.shared` (post-allocation IR); nullopt when the input carries neither.
std::optional<std::int64_t> triton_shared(const Summary& s);

/// The TMEM total the verdict takes: the module's ttg.tensor_memory_size when the IR carries it, else vplan's own
/// (tmem_allocated_cols).
std::int64_t tmem_total_cols(const Summary& s);

/// Whether the target has tensor memory or the plan uses some (else the TMEM figures are left out).
bool has_tmem(const Summary& s);

/// The figures in order: SMEM total; SMEM peak (most bytes live at once, no alignment gaps: "at op N", or "at op N,
/// the warp_specialize's regions counted at once" where each region is taken at its own peak); SMEM scratch
/// (the sum of the scratch buffers Triton gives ops, with the upper bounds among them); SMEM captures (the
/// warp_specialize capture area, one of those scratch buffers; when there is one); SMEM layout (whose offsets the total
/// is at); Triton's shared (when known); SMEM limit; TMEM total (tmem_total_cols, the verdict's figure), TMEM peak,
/// TMEM layout (the compiler's when the module carries ttg.tensor_memory_size), Triton's TMEM (that figure, when
/// known), vplan's TMEM (its own placement's total), TMEM limit (TMEM lines only where has_tmem); fits.
std::vector<BudgetFigure> budget_figures(const Summary& s);

}  // namespace vtools::vplan
