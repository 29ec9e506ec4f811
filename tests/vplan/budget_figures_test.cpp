#include "formats/plan/budget_figures.hpp"

#include <doctest/doctest.h>

#include <string>
#include <vector>

using namespace vtools::vplan;

namespace {

std::vector<std::string> lines(const Summary& s) {
  std::vector<std::string> out;
  for (const BudgetFigure& f : budget_figures(s)) out.push_back(f.name + ": " + f.value);
  return out;
}

}  // namespace

TEST_CASE("budget_figures: every figure by name, exact bytes, Triton's own total when known") {
  Summary s;
  s.smem_total_bytes = s.smem_total_min_bytes = 131496;
  s.smem_peak_bytes = 131456;
  s.smem_peak_op = 258;
  s.scratch_bytes = 728;
  s.capture_bytes = 208;
  s.smem_limit_bytes = 232448;
  s.triton_shared_bytes = 131544;
  CHECK(lines(s) == std::vector<std::string>{"SMEM total: 131496 B", "SMEM peak: 131456 B at op 258",
                                             "SMEM scratch: 728 B", "SMEM captures: 208 B",
                                             "SMEM layout: vplan's own", "Triton's shared: 131544 B",
                                             "SMEM limit: 232448 B", "fits: yes"});
}

TEST_CASE("budget_figures: a peak of a warp_specialize's regions says so, in the figure and the peak set's heading") {
  Summary s;
  s.smem_peak_bytes = 131376;
  s.smem_peak_op = 258;
  CHECK(smem_peak_set_text(s) == "live at the peak (op 258)");
  s.smem_peak_regions = true;
  CHECK(lines(s)[1] == "SMEM peak: 131376 B at op 258, the warp_specialize's regions counted at once");
  CHECK(smem_peak_set_text(s) ==
        "at the peak (the regions of the warp_specialize at op 258, counted at once: what lives across it and each "
        "region's buffers at that region's own peak; its capture area, dead once the regions start, is not counted)");
}

TEST_CASE("budget_figures: a range where scratch sizes are upper bounds; TMEM lines where the target has TMEM") {
  Summary s;
  s.smem_total_min_bytes = 231096;
  s.smem_total_bytes = 296216;
  s.scratch_bytes = 132007;
  s.unknown_scratch_bytes = 131072;
  s.compiler_layout = true;
  s.tmem_allocated_cols = 448;
  s.tmem_peak_cols = 448;
  s.tmem_peak_op = 116;
  s.tmem_limit_cols = 512;
  s.compiler_tmem_cols = 512;
  s.fits = false;
  CHECK(smem_total_text(s) == "231096-296216 B");
  CHECK(lines(s) == std::vector<std::string>{"SMEM total: 231096-296216 B", "SMEM peak: 0 B at op 0",
                                             "SMEM scratch: 132007 B (131072 B upper bounds)",
                                             "SMEM layout: the compiler's (post-allocation IR)", "SMEM limit: 0 B",
                                             "TMEM total: 512 cols", "TMEM peak: 448 cols at op 116",
                                             "TMEM layout: the compiler's (post-allocation IR)",
                                             "Triton's TMEM: 512 cols", "vplan's TMEM: 448 cols",
                                             "TMEM limit: 512 cols", "fits: NO — over budget"});
  CHECK(tmem_total_cols(s) == 512);  // the module's figure when the IR carries it
  s.compiler_tmem_cols.reset();
  CHECK(tmem_total_cols(s) == 448);
}

TEST_CASE("budget_figures: Triton's shared is its metadata's total, else the module's ttg.shared") {
  Summary s;
  CHECK_FALSE(triton_shared(s));
  s.compiler_shared_bytes = 98328;
  CHECK(triton_shared(s) == 98328);
  s.triton_shared_bytes = 98304;  // the two differ: the metadata wins (budget.cpp notes the difference)
  CHECK(triton_shared(s) == 98304);
  CHECK_FALSE(has_tmem(s));
}
