// Time spans on device timelines, as vtrace summary and vrender's trace page read them: what each span adds to the
// time something runs when spans overlap (programmatic dependent launches, concurrent streams).
#pragma once

#include <cstdint>
#include <vector>

namespace vtools {

/// [start, end) in ns on one lane (a device: spans of different lanes never hide each other). Integers: absolute
/// CUPTI timestamps (~1.8e18 ns), and offsets past 2^53 ns, lose nanoseconds as doubles.
struct TimeSpan {
  std::int64_t lane = 0;
  std::uint64_t start = 0, end = 0;
};

/// Per span (in the order given), its exposed time: with the spans of its lane taken in order of start, its end
/// minus the later of its start and the latest end before it, or 0 when it ends before that. The exposed times of a
/// lane sum to the time some span of it runs (the union of its spans); a span inside another's run exposes nothing,
/// and one that starts early and waits (a programmatic dependent) exposes only what it runs past the one before.
std::vector<double> exposed_times(const std::vector<TimeSpan>& spans);

}  // namespace vtools
