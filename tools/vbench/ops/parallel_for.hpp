// parallel_for: the CPU ops' one way to use several cores. A fixed pool of worker threads that sleep on a condition
// variable between calls (no spinning: OpenMP's spin-waiting workers made gpt_nano 5x slower on a loaded 2-core
// machine). Calls are not nested; a call from inside a body runs serially.
#pragma once

#include <cstdint>
#include <functional>

namespace vtools::vbench::cpu {

/// Calls body(begin, end) over [0, n) split into at most cpu_threads() contiguous chunks of at least `grain`
/// items; returns when every chunk is done. Small n runs on the calling thread only.
void parallel_for(std::int64_t n, std::int64_t grain, const std::function<void(std::int64_t, std::int64_t)>& body);

}  // namespace vtools::vbench::cpu
