// The vtools.tracediff page (vtrace diff BASE CAND): both traces' totals with their change, a waterfall from the base's
// GPU time to the candidate's by kernel, the kernel table with intervals and verdicts, and the added and removed
// kernels. The numbers are vtrace's, read by formats/tracediff; this page only lays them out.
#pragma once

#include <string_view>

#include "formats/tracediff/tracediff_model.hpp"
#include "tools/vrender/page.hpp"

namespace vtools::vrender {

/// Most kernels drawn as bars of the waterfall; the rest are lumped into one "N others" bar.
inline constexpr std::size_t kWaterfallKernels = 15;

/// The page of one trace diff (read by formats/tracediff's reader); `name` is the input's, for the subtitle.
Page tracediff_page(const vtrace::TraceDiff& diff, std::string_view name);

}  // namespace vtools::vrender
