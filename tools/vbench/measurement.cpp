#include "tools/vbench/measurement.hpp"

#include <algorithm>
#include <cmath>

namespace vtools::vbench {

void flush_before_forward(Backend& backend, CacheState caches) {
  if (caches == CacheState::kCold) backend.flush_caches();
}

void warm_up(Backend& backend, int count, CacheState caches) {
  for (int i = 0; i < count; ++i) {
    flush_before_forward(backend, caches);
    backend.run_forward(false);
  }
}

void run_timed_forwards(Backend& backend, int count, CacheState caches) {
  for (int i = 0; i < count; ++i) {
    flush_before_forward(backend, caches);
    backend.run_forward(true);
  }
}

std::size_t more_forwards(const std::vector<double>& samples_ms, double min_time_s) {
  double total_ms = 0;
  for (const double ms : samples_ms) total_ms += ms;
  const double wanted_ms = 1e3 * min_time_s;
  if (!(total_ms < wanted_ms) || samples_ms.size() >= kMaxSamples || !(total_ms > 0)) return 0;
  const double mean_ms = total_ms / static_cast<double>(samples_ms.size());
  const double more = std::ceil((wanted_ms - total_ms) / mean_ms);
  return static_cast<std::size_t>(std::clamp(more, 1.0, static_cast<double>(kMaxSamples - samples_ms.size())));
}

std::vector<double> measure_forwards(Backend& backend, const std::vector<std::int32_t>& tokens,
                                     const TimingRule& rule) {
  int warmup = rule.warmup;
  std::size_t batch = rule.iters > 0 ? static_cast<std::size_t>(rule.iters) : 0;
  std::vector<double> samples;
  while (true) {
    // Each batch is one timing on the backend, so that its forwards run back to back (queued on a GPU) and the
    // clocks it reads are those of the last batch.
    backend.begin_timing(tokens, static_cast<int>(batch));
    warm_up(backend, warmup, rule.caches);
    run_timed_forwards(backend, static_cast<int>(batch), rule.caches);
    const std::vector<double> ms = backend.end_timing();
    samples.insert(samples.end(), ms.begin(), ms.end());
    warmup = 0;
    batch = more_forwards(samples, rule.min_time_s);
    if (batch == 0) return samples;
  }
}

}  // namespace vtools::vbench
