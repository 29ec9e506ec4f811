#include "tools/vplan/budget.hpp"

#include <algorithm>

#include "formats/plan/budget_figures.hpp"
#include "libcommon/human_units.hpp"
#include "tools/vplan/memory_allocator.hpp"
#include "tools/vplan/tmem_placement.hpp"
#include "tools/vplan/triton_placement.hpp"
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
  // Capture types are the argument types of the partition regions (all partitions take every capture).
  const Region* typed = nullptr;
  for (const auto& r : ws.regions)
    if (r.label != "default" && !r.arg_types.empty()) typed = &r;
  if (!typed) return 0;
  std::int64_t bytes = 0;
  for (TypeRef type : typed->arg_types) {
    const Type& t = *type;
    if (t.kind == Type::Kind::kScalar) bytes += (element_bits(t.element_type) + 7) / 8;
    else if (t.kind == Type::Kind::kMemDesc && !t.tensor_memory) bytes += 8 + 4 * static_cast<std::int64_t>(t.shape.size());
    else bytes += 8;  // pointers, tensor descriptors, TMEM memdescs: a pointer
  }
  return bytes;
}

namespace {

std::string names_of(const Plan& plan, const std::vector<int>& ids) {
  std::string out;
  for (int id : ids) out += (out.empty() ? "" : ", ") + plan.buffers[id].name + " (B" + std::to_string(id) + ")";
  return out;
}

// SMEM offsets by buffer id (other spaces 0) from Triton's placement; `size_of` gives each buffer's bytes. Items go in
// Triton's buffer order: allocations, then the function's own scratch, then other scratch, each by id (program
// order). Without a view, a buffer's own liveness stands in and no warp_specialize regions are known. Past
// kTritonPlacementMaxBuffers, first-fit.
template <class SizeOf>
std::vector<std::int64_t> place_smem(const Plan& plan, const std::vector<SmemItem>& view, SizeOf size_of) {
  const bool has_view = view.size() == plan.buffers.size();
  std::vector<int> ids;
  for (int pass = 0; pass < 3; ++pass)
    for (const Buffer& b : plan.buffers) {
      if (b.space != MemorySpace::kSmem) continue;
      const bool function_scratch = has_view && view[b.id].end == kForever;
      const int kind = !b.is_scratch() ? 0 : function_scratch ? 1 : 2;
      if (kind == pass) ids.push_back(b.id);
    }
  std::vector<std::int64_t> out(plan.buffers.size(), 0);
  if (ids.size() > kTritonPlacementMaxBuffers) {  // big generated modules: first-fit, with no region rule
    std::vector<Placement> items;
    for (int id : ids) {
      const Buffer& b = plan.buffers[id];
      // A region's buffer held to the end of its warp_specialize overlaps every other region's: no sharing.
      const int end = has_view && view[id].ws >= 0 ? view[id].ws + 1 : b.end;
      items.push_back({size_of(b), b.alignment, b.start, end});
    }
    auto placed = assign_offsets_first_fit(items);
    for (std::size_t i = 0; i < ids.size(); ++i) out[ids[i]] = placed[i];
    return out;
  }
  std::vector<SmemItem> items;
  for (int id : ids) {
    const Buffer& b = plan.buffers[id];
    SmemItem item = has_view ? view[id] : SmemItem{0, 1, b.start, b.end};
    item.size = size_of(b);
    item.alignment = b.alignment;
    items.push_back(item);
  }
  auto placed = assign_offsets_triton(items);
  for (std::size_t i = 0; i < ids.size(); ++i) out[ids[i]] = placed[i];
  return out;
}

}  // namespace

void compute_budget(Plan& plan, const TargetLimits& limits, std::int64_t capture_bytes,
                    std::optional<std::int64_t> triton_shared, const CompilerTotals& compiler,
                    const std::vector<std::pair<int, std::string>>& unknown_scratch,
                    const std::vector<SmemItem>& allocator_view, const std::vector<int>& tmem_row_groups) {
  Summary& s = plan.summary;
  s.smem_limit_bytes = limits.smem_bytes;
  s.tmem_limit_cols = limits.tmem_cols;
  s.capture_bytes = capture_bytes;
  s.triton_shared_bytes = triton_shared;
  s.compiler_shared_bytes = compiler.shared_bytes;
  s.compiler_tmem_cols = compiler.tmem_cols;
  std::int64_t own_smem_top = 0;  // the end of the highest SMEM buffer at vplan's own offsets
  for (MemorySpace space : {MemorySpace::kSmem, MemorySpace::kTmem}) {
    std::vector<int> ids;
    std::vector<std::int64_t> sizes;  // SMEM bytes, TMEM columns
    std::vector<Placement> peak_items;
    std::vector<std::pair<int, int>> region_of;  // SMEM: the warp_specialize region of each, for the peak
    for (const Buffer& b : plan.buffers) {
      if (b.space != space) continue;
      ids.push_back(b.id);
      const std::int64_t size = space == MemorySpace::kSmem ? b.bytes : std::max(b.cols, 0);
      sizes.push_back(size);
      peak_items.push_back({size, 1, b.start, b.end});
      const bool in_region = allocator_view.size() == plan.buffers.size() && allocator_view[b.id].ws >= 0;
      region_of.emplace_back(in_region ? allocator_view[b.id].ws : -1, in_region ? allocator_view[b.id].region : 0);
    }
    std::vector<std::int64_t> offsets;
    if (space == MemorySpace::kTmem) {
      std::vector<TmemItem> items;
      for (std::size_t i = 0; i < ids.size(); ++i) {
        const Buffer& b = plan.buffers[ids[i]];
        const int group = ids[i] < static_cast<int>(tmem_row_groups.size()) ? tmem_row_groups[ids[i]] : -1;
        items.push_back({b.rows, sizes[i], b.start, b.end, region_of[i].first, region_of[i].second, group});
      }
      const auto placed = place_tmem_triton(items);  // in program order: buffer ids follow it
      for (std::size_t i = 0; i < ids.size(); ++i) {
        offsets.push_back(placed[i].col);
        plan.buffers[ids[i]].row_offset = placed[i].row;
      }
    } else {
      const auto by_id = place_smem(plan, allocator_view, [](const Buffer& b) { return b.bytes; });
      for (int id : ids) offsets.push_back(by_id[id]);
    }
    std::int64_t top = 0;
    for (std::size_t i = 0; i < ids.size(); ++i) {
      plan.buffers[ids[i]].offset = offsets[i];
      top = std::max(top, offsets[i] + sizes[i]);
    }
    // The intervals are Triton's, on which partitions look sequential: the peak counts them concurrently.
    PeakUsage peak = concurrent_peak_usage(peak_items, region_of);
    std::vector<int> live;
    for (int i : peak.live) live.push_back(ids[i]);
    if (space == MemorySpace::kSmem) {
      own_smem_top = top;
      s.smem_peak_bytes = peak.peak;
      s.smem_peak_op = peak.at;
      s.smem_live_at_peak = live;
      s.smem_peak_regions = peak.regions;
    } else {
      s.tmem_allocated_cols = tmem_module_cols(top);  // one tcgen05.alloc for the kernel, rounded as Triton does
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
    auto size_known = [](const Buffer& b) { return b.size_exact ? b.bytes : std::int64_t{0}; };
    const auto offsets = place_smem(plan, allocator_view, size_known);
    std::int64_t top = 0;
    for (const Buffer& b : plan.buffers)
      if (b.space == MemorySpace::kSmem) top = std::max(top, offsets[b.id] + size_known(b));
    s.smem_total_min_bytes = top;
  }
  // The verdict goes by the sizes vplan knows (the low end); upper bounds past the limit get a note of their own, so
  // that a kernel Triton launches is not failed for a conversion vplan cannot size.
  const bool smem_fits = s.smem_total_min_bytes <= s.smem_limit_bytes;
  const bool tmem_fits = tmem_total_cols(s) <= s.tmem_limit_cols;
  s.fits = smem_fits && tmem_fits;
  if (!limits.known)
    s.notes.push_back("target '" + plan.kernel.target + "' is not known to vplan; limits are sm_90's");
  if (smem_fits && smem_total > s.smem_limit_bytes)
    s.notes.push_back("SMEM may be over budget: " + std::to_string(smem_total) + " > " +
                      std::to_string(s.smem_limit_bytes) + " bytes with scratch of unknown size at its upper bound (" +
                      std::to_string(s.smem_total_min_bytes) + " without it)");
  if (!smem_fits)
    s.notes.push_back("SMEM over budget: " + std::to_string(s.smem_total_min_bytes) + " > " + std::to_string(s.smem_limit_bytes) +
                      " bytes; " + smem_peak_set_text(s) + ": " + names_of(plan, s.smem_live_at_peak));
  if (!tmem_fits)
    s.notes.push_back("TMEM over budget: " + std::to_string(tmem_total_cols(s)) + " > " +
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
      note += "; vplan follows Triton's placement but not always its liveness (compiler-plan.md says where)";
    }
    s.notes.push_back(note);
  }
  if (compiler.tmem_cols && *compiler.tmem_cols != s.tmem_allocated_cols)
    s.notes.push_back("the module's ttg.tensor_memory_size is " + std::to_string(*compiler.tmem_cols) +
                      " columns; vplan's own placement " + std::to_string(s.tmem_allocated_cols) +
                      " (compiler-plan.md says how vplan follows Triton's TMEM allocator)");
  if (compiler.shared_bytes && triton_shared && *compiler.shared_bytes != *triton_shared)
    s.notes.push_back("the module's ttg.shared (" + std::to_string(*compiler.shared_bytes) +
                      " bytes) differs from Triton's reported total (" + std::to_string(*triton_shared) + ")");
}

}  // namespace vtools::vplan
