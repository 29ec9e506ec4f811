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
                    std::optional<std::int64_t> triton_shared) {
  Summary& s = plan.summary;
  s.smem_limit_bytes = limits.smem_bytes;
  s.tmem_limit_cols = limits.tmem_cols;
  s.capture_bytes = capture_bytes;
  s.triton_shared_bytes = triton_shared;
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
      s.smem_allocated_bytes = top;
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
  const std::int64_t smem_total = s.smem_allocated_bytes + s.capture_bytes;
  const bool smem_fits = smem_total <= s.smem_limit_bytes;
  const bool tmem_fits = s.tmem_allocated_cols <= s.tmem_limit_cols;
  s.fits = smem_fits && tmem_fits;
  if (!limits.known)
    s.notes.push_back("target '" + plan.kernel.target + "' is not known to vplan; limits are sm_90's");
  if (!smem_fits)
    s.notes.push_back("SMEM over budget: " + std::to_string(smem_total) + " > " + std::to_string(s.smem_limit_bytes) +
                      " bytes; live at the peak (op " + std::to_string(s.smem_peak_op) +
                      "): " + names_of(plan, s.smem_live_at_peak));
  if (!tmem_fits)
    s.notes.push_back("TMEM over budget: " + std::to_string(s.tmem_allocated_cols) + " > " +
                      std::to_string(s.tmem_limit_cols) + " columns; live at the peak (op " +
                      std::to_string(s.tmem_peak_op) + "): " + names_of(plan, s.tmem_live_at_peak));
  if (triton_shared) {
    const std::int64_t diff = *triton_shared - smem_total;
    std::string note = "Triton reports " + std::to_string(*triton_shared) + " bytes of shared memory; vplan " +
                       std::to_string(smem_total) + " (" + std::to_string(s.smem_allocated_bytes) + " buffers" +
                       (s.capture_bytes ? " + " + std::to_string(s.capture_bytes) + " warp_specialize captures" : "") +
                       "); difference " + std::to_string(diff) + " bytes";
    if (diff == 0) {
      note += ": the totals agree";
    } else {
      // Buffers vplan overlaps in memory with others (disjoint lifetimes): an allocator that does not reuse them
      // needs that much more.
      std::vector<int> reused;
      std::int64_t reused_bytes = 0;
      for (const Buffer& b : plan.buffers) {
        if (b.space != MemorySpace::kSmem) continue;
        for (const Buffer& o : plan.buffers)
          if (o.id != b.id && o.space == MemorySpace::kSmem && o.bytes >= b.bytes &&
              b.offset < o.offset + o.bytes && o.offset < b.offset + b.bytes && (o.bytes > b.bytes || o.id < b.id)) {
            reused.push_back(b.id);
            reused_bytes += b.bytes;
            break;
          }
      }
      if (!reused.empty())
        note += "; vplan reuses memory for " + std::to_string(reused.size()) + " buffers with disjoint lifetimes (" +
                std::to_string(reused_bytes) + " bytes: " + names_of(plan, reused) +
                "), which Triton's largest-first allocator need not reuse";
      note += "; Triton also counts scratch (layout conversions, reductions) that vplan does not model";
    }
    s.notes.push_back(note);
  }
}

}  // namespace vtools::vplan
