// The vtools.trace page: run facts, a zoomable timeline with one lane per device/stream (downsampled past
// kMaxTimelineSpans, and the page says so), top kernels by total time and CUDA graphs (the trace summary of
// formats/trace, as `vtrace summary` computes it), per-kernel access heat maps (blocks x allocation byte range) and
// the findings table. Built from the trace model, never from JSON.
#pragma once

#include <cstddef>
#include <string_view>

#include "formats/trace/trace_model.hpp"
#include "tools/vrender/page.hpp"

namespace vtools::vrender {

/// Above this many kernel launches + copies, each lane is aggregated into kTimelineBuckets time buckets.
inline constexpr std::size_t kMaxTimelineSpans = 5000;
inline constexpr std::size_t kTimelineBuckets = 1500;
/// At most this many (kernel, allocation) heat maps, largest traffic first.
inline constexpr std::size_t kMaxHeatMaps = 6;

Page trace_page(const vtrace::Trace& trace, std::string_view name);

}  // namespace vtools::vrender
