// One timing of a prepared forward, in named steps (nvbench's measure_cold): warm-up forwards, then timed ones, each
// forward after a cache flush when the caches are to be cold, then more timed ones while the stop rule asks for
// them. The steps and their order are decided here; a backend only supplies the primitives (Backend::begin_timing,
// flush_caches, run_forward, end_timing). The statistics of the samples are libcommon/stats'.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "tools/vbench/backend.hpp"

namespace vtools::vbench {

/// The most timed forwards the stop rule takes per timing (their samples all go into the document).
inline constexpr std::size_t kMaxSamples = 100000;

/// How one timing runs (--warmup, --iters, --min-time, --caches).
struct TimingRule {
  int warmup = 3, iters = 20;
  /// After the `iters` forwards, more until the timed ones add up to this many seconds (Google Benchmark's
  /// min_time), at most kMaxSamples in all; 0: exactly `iters`.
  double min_time_s = 0;
  CacheState caches = CacheState::kWarm;
};

/// Step before every forward, warm-up and timed alike: with cold caches, a flush (not timed); warm: nothing, each
/// forward finds what the one before left.
void flush_before_forward(Backend& backend, CacheState caches);

/// Step: `count` untimed forwards, so that the timed ones find clocks, caches and lazily loaded code as they will
/// stay.
void warm_up(Backend& backend, int count, CacheState caches);

/// Step: `count` timed forwards (one sample each, collected by Backend::end_timing).
void run_timed_forwards(Backend& backend, int count, CacheState caches);

/// The stop rule: how many more timed forwards after `samples_ms`. 0 when min_time_s is reached, kMaxSamples are
/// taken, or the samples add up to no time (nothing to size a batch from); else enough to reach min_time_s at the
/// mean so far (rounded up), at least 1 and at most what kMaxSamples leaves.
std::size_t more_forwards(const std::vector<double>& samples_ms, double min_time_s);

/// The whole timing of the forward prepared on `backend` on `tokens`: warm_up, run_timed_forwards(iters), then
/// batches of more_forwards (without warm-up) until the stop rule says 0. Every timed forward's ms, in order.
std::vector<double> measure_forwards(Backend& backend, const std::vector<std::int32_t>& tokens,
                                     const TimingRule& rule);

}  // namespace vtools::vbench
