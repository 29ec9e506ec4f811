#include "formats/plan/budget_figures.hpp"

namespace vtools::vplan {

namespace {

std::string bytes(std::int64_t v) { return std::to_string(v) + " B"; }
std::string cols(std::int64_t v) { return std::to_string(v) + " cols"; }

std::string scratch_text(const Summary& s) {
  return bytes(s.scratch_bytes) + (s.unknown_scratch_bytes > 0 ? " (" + bytes(s.unknown_scratch_bytes) + " upper bounds)" : "");
}

}  // namespace

std::string smem_total_text(const Summary& s) {
  return (s.smem_total_min_bytes != s.smem_total_bytes ? std::to_string(s.smem_total_min_bytes) + "-" : "") +
         bytes(s.smem_total_bytes);
}

std::string smem_peak_set_text(const Summary& s) {
  const std::string op = std::to_string(s.smem_peak_op);
  if (!s.smem_peak_regions) return "live at the peak (op " + op + ")";
  return "at the peak (the regions of the warp_specialize at op " + op +
         ", counted at once: what lives across it and each region's buffers at that region's own peak; its capture "
         "area, dead once the regions start, is not counted)";
}

std::optional<std::int64_t> triton_shared(const Summary& s) {
  return s.triton_shared_bytes ? s.triton_shared_bytes : s.compiler_shared_bytes;
}

std::int64_t tmem_total_cols(const Summary& s) { return s.compiler_tmem_cols.value_or(s.tmem_allocated_cols); }

bool has_tmem(const Summary& s) { return s.tmem_limit_cols > 0 || s.tmem_allocated_cols > 0 || s.tmem_peak_cols > 0; }

std::vector<BudgetFigure> budget_figures(const Summary& s) {
  std::vector<BudgetFigure> out = {
      {"SMEM total", smem_total_text(s)},
      {"SMEM peak", bytes(s.smem_peak_bytes) + " at op " + std::to_string(s.smem_peak_op) +
                        (s.smem_peak_regions ? ", the warp_specialize's regions counted at once" : "")},
      {"SMEM scratch", scratch_text(s)}};
  if (s.capture_bytes > 0) out.push_back({"SMEM captures", bytes(s.capture_bytes)});
  out.push_back({"SMEM layout", s.compiler_layout ? "the compiler's (post-allocation IR)" : "vplan's own"});
  if (const auto t = triton_shared(s)) out.push_back({"Triton's shared", bytes(*t)});
  out.push_back({"SMEM limit", bytes(s.smem_limit_bytes)});
  if (has_tmem(s)) {
    out.push_back({"TMEM total", cols(tmem_total_cols(s))});
    out.push_back({"TMEM peak", cols(s.tmem_peak_cols) + " at op " + std::to_string(s.tmem_peak_op)});
    out.push_back({"TMEM layout", s.compiler_tmem_cols ? "the compiler's (post-allocation IR)" : "vplan's own"});
    if (s.compiler_tmem_cols) out.push_back({"Triton's TMEM", cols(*s.compiler_tmem_cols)});
    out.push_back({"vplan's TMEM", cols(s.tmem_allocated_cols)});
    out.push_back({"TMEM limit", cols(s.tmem_limit_cols)});
  }
  out.push_back({"fits", s.fits ? "yes" : "NO — over budget"});
  return out;
}

}  // namespace vtools::vplan
