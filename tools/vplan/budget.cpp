#include "tools/vplan/budget.hpp"

#include <algorithm>

#include "libcommon/human_units.hpp"
#include "tools/vplan/memory_allocator.hpp"
#include "tools/vplan/ttgir_type.hpp"

namespace vtools::vplan {

TargetLimits limits_for_target(const std::string& target) {
  TargetLimits out;
  auto colon = target.find(':');
  int sm = 0;
  if (colon != std::string::npos) {
    try {
      sm = std::stoi(target.substr(colon + 1));
    } catch (const std::exception&) {
      sm = 0;
    }
  }
  out.known = true;
  if (sm == 90 || sm == 100 || sm == 103) out.smem_bytes = 232448;
  else if (sm == 80 || sm == 87) out.smem_bytes = 166912;
  else if (sm == 86 || sm == 89 || sm == 120 || sm == 121) out.smem_bytes = 101376;
  else out.known = false;
  if (sm == 100 || sm == 103) out.tmem_cols = 512;
  return out;
}

std::int64_t warp_specialize_capture_bytes(const Op& ws) {
  std::int64_t offset = 0;
  const auto& regions = ws.regions;
  // Capture types are the argument types of the partition regions (all partitions take every capture).
  const Region* typed = nullptr;
  for (const auto& r : regions)
    if (r.label != "default" && !r.arg_types.empty()) typed = &r;
  if (!typed) return 0;
  for (const Type& t : typed->arg_types) {
    std::int64_t size = 8, align = 8;
    if (t.kind == Type::Kind::kScalar) size = align = std::max(4, (element_bits(t.element_type) + 7) / 8);
    // A memdesc travels as its lowered struct: the base pointer and one i32 offset per dimension.
    if (t.kind == Type::Kind::kMemDesc) size = 8 + 4 * static_cast<std::int64_t>(t.shape.size());
    offset = (offset + align - 1) / align * align + size;
  }
  return (offset + 7) / 8 * 8;
}

namespace {

std::int64_t tmem_alloc_cols(int cols) {
  if (cols <= 0) return 0;  // an imported buffer of unknown size
  std::int64_t c = 32;
  while (c < cols) c *= 2;
  return c;
}

std::string names_of(const Plan& plan, const std::vector<int>& ids) {
  std::string out;
  for (int id : ids) out += (out.empty() ? "" : ", ") + plan.buffers[id].name + " (B" + std::to_string(id) + ")";
  return out;
}

}  // namespace

void compute_budget(Plan& plan, const TargetLimits& limits, std::int64_t capture_bytes,
                    std::optional<std::int64_t> triton_shared, const CompilerTotals& compiler,
                    const std::vector<std::pair<int, std::string>>& unknown_scratch) {
  Summary& s = plan.summary;
  s.smem_limit_bytes = limits.smem_bytes;
  s.tmem_limit_cols = limits.tmem_cols;
  s.capture_bytes = capture_bytes;
  s.triton_shared_bytes = triton_shared;
  s.compiler_shared_bytes = compiler.shared_bytes;
  s.compiler_tmem_cols = compiler.tmem_cols;
  std::int64_t own_smem_top = 0;  // the end of the highest SMEM buffer at vplan's own (first-fit) offsets
  for (MemorySpace space : {MemorySpace::kSmem, MemorySpace::kTmem}) {
    std::vector<int> ids;
    std::vector<Placement> alloc_items, peak_items;
    for (const Buffer& b : plan.buffers) {
      if (b.space != space) continue;
      ids.push_back(b.id);
      const std::int64_t size = space == MemorySpace::kSmem ? b.bytes : tmem_alloc_cols(b.cols);
      const std::int64_t align = space == MemorySpace::kSmem ? b.alignment : 32;
      alloc_items.push_back({size, align, b.start, b.end});
      peak_items.push_back({space == MemorySpace::kSmem ? b.bytes : b.cols, 1, b.start, b.end});
    }
    auto offsets = assign_offsets_first_fit(alloc_items);
    std::int64_t top = 0;
    for (std::size_t i = 0; i < ids.size(); ++i) {
      plan.buffers[ids[i]].offset = offsets[i];
      top = std::max(top, offsets[i] + alloc_items[i].size);
    }
    PeakUsage peak = peak_usage(peak_items);
    std::vector<int> live;
    for (int i : peak.live) live.push_back(ids[i]);
    if (space == MemorySpace::kSmem) {
      own_smem_top = top;
      s.smem_peak_bytes = peak.peak;
      s.smem_peak_op = peak.at;
      s.smem_live_at_peak = live;
    } else {
      s.tmem_allocated_cols = top;
      s.tmem_peak_cols = peak.peak;
      s.tmem_peak_op = peak.at;
      s.tmem_live_at_peak = live;
    }
  }
  // The compiler's layout: every SMEM buffer placed by it (one offset per partition copy in WS code).
  bool any = false, all = true;
  std::int64_t compiler_top = 0;
  s.scratch_bytes = s.unknown_scratch_bytes = 0;
  for (const Buffer& b : plan.buffers) {
    if (b.is_scratch()) {
      s.scratch_bytes += b.bytes;
      if (!b.size_exact) s.unknown_scratch_bytes += b.bytes;
    }
    if (b.space != MemorySpace::kSmem) continue;
    if (b.compiler_offsets.empty()) {
      all = false;
      continue;
    }
    any = true;
    for (std::int64_t o : b.compiler_offsets) compiler_top = std::max(compiler_top, o + b.bytes);
  }
  s.compiler_layout = any && all;
  const std::int64_t smem_total = s.compiler_layout ? compiler_top : own_smem_top;
  s.smem_total_bytes = s.smem_total_min_bytes = smem_total;
  if (!s.compiler_layout && s.unknown_scratch_bytes > 0) {  // the low end: scratch of unknown size taken as none
    std::vector<Placement> items;
    for (const Buffer& b : plan.buffers)
      if (b.space == MemorySpace::kSmem) items.push_back({b.size_exact ? b.bytes : 0, b.alignment, b.start, b.end});
    auto offsets = assign_offsets_first_fit(items);
    std::int64_t top = 0;
    for (std::size_t i = 0; i < items.size(); ++i) top = std::max(top, offsets[i] + items[i].size);
    s.smem_total_min_bytes = top;
  }
  // The verdict goes by the sizes vplan knows (the low end); upper bounds past the limit get a note of their own, so
  // that a kernel Triton launches is not failed for a conversion vplan cannot size.
  const bool smem_fits = s.smem_total_min_bytes <= s.smem_limit_bytes;
  const bool tmem_fits = s.tmem_allocated_cols <= s.tmem_limit_cols;
  s.fits = smem_fits && tmem_fits;
  if (!limits.known)
    s.notes.push_back("target '" + plan.kernel.target + "' is not known to vplan; limits are sm_90's");
  if (smem_fits && smem_total > s.smem_limit_bytes)
    s.notes.push_back("SMEM may be over budget: " + std::to_string(smem_total) + " > " +
                      std::to_string(s.smem_limit_bytes) + " bytes with scratch of unknown size at its upper bound (" +
                      std::to_string(s.smem_total_min_bytes) + " without it)");
  if (!smem_fits)
    s.notes.push_back("SMEM over budget: " + std::to_string(s.smem_total_min_bytes) + " > " + std::to_string(s.smem_limit_bytes) +
                      " bytes; live at the peak (op " + std::to_string(s.smem_peak_op) +
                      "): " + names_of(plan, s.smem_live_at_peak));
  if (!tmem_fits)
    s.notes.push_back("TMEM over budget: " + std::to_string(s.tmem_allocated_cols) + " > " +
                      std::to_string(s.tmem_limit_cols) + " columns; live at the peak (op " +
                      std::to_string(s.tmem_peak_op) + "): " + names_of(plan, s.tmem_live_at_peak));
  for (const auto& [id, why] : unknown_scratch) {
    const Buffer& b = plan.buffers[id];
    s.notes.push_back("scratch of " + b.scratch_op + (b.value.empty() ? "" : " " + b.value) + " (op " +
                      std::to_string(b.alloc_op) + (b.loc.line ? ", line " + std::to_string(b.loc.line) : "") +
                      ") is not known exactly: " + why +
                      (b.bytes > 0 ? " (" + std::to_string(b.bytes) + " bytes, an upper bound)" : " (vplan counts 0 bytes)"));
  }
  const std::optional<std::int64_t> reference = triton_shared ? triton_shared : compiler.shared_bytes;
  if (reference) {
    const std::int64_t diff = *reference - smem_total;
    const bool ranged = s.smem_total_min_bytes != smem_total;
    std::string note = std::string(triton_shared ? "Triton reports " : "the module's ttg.shared is ") +
                       std::to_string(*reference) + " bytes of shared memory; vplan " +
                       (ranged ? std::to_string(s.smem_total_min_bytes) + " to " : "") + std::to_string(smem_total) +
                       " (" + std::to_string(s.scratch_bytes) + " of them scratch" +
                       (s.capture_bytes ? ", " + std::to_string(s.capture_bytes) + " warp_specialize captures" : "") +
                       ", at " + (s.compiler_layout ? "the compiler's offsets" : "vplan's own offsets") +
                       "); difference " + std::to_string(diff) + " bytes";
    if (diff == 0 || *reference == s.smem_total_min_bytes) {
      note += ranged ? (diff == 0 ? ": the totals agree at the high end" : ": the totals agree at the low end")
                     : ": the totals agree";
    } else if (s.unknown_scratch_bytes > 0) {
      note += "; scratch sizes vplan could not know exactly are upper bounds (" +
              std::to_string(s.unknown_scratch_bytes) + " bytes, named above)";
    } else if (!s.compiler_layout) {
      note += "; Triton's allocator places buffers by its own interference-graph colouring, which vplan's first-fit "
              "need not match";
    }
    s.notes.push_back(note);
  }
  if (compiler.shared_bytes && triton_shared && *compiler.shared_bytes != *triton_shared)
    s.notes.push_back("the module's ttg.shared (" + std::to_string(*compiler.shared_bytes) +
                      " bytes) differs from Triton's reported total (" + std::to_string(*triton_shared) + ")");
}

}  // namespace vtools::vplan
