// The CPU backend: fp32 forwards through CpuForward, timed with the host's steady clock. It is the reference other
// backends are gated against and the default where no GPU exists.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "tools/vbench/backend.hpp"

namespace vtools::vbench {

/// A new CPU backend. prepare() keeps a pointer to the weights (they live on the host already), so the caller keeps
/// them alive while the backend runs; only DType::kFp32 is accepted (Error kUsage otherwise).
std::unique_ptr<Backend> make_cpu_backend();

/// Measured peaks of this CPU, cached after the first call (about 0.5 s): the best of kPeakRepeats copies of 64 MiB
/// on every worker thread, as the forwards run (bytes read + written per second), and the best of kPeakRepeats
/// 512³ sgemm calls (FLOP/s). Used for the roofline floor. The noise is how much slower the median repeat was than
/// the best (median / best - 1): a busy machine slows the repeats, the best too, and then the floor is too high.
struct CpuPeaks {
  double bandwidth_bytes_per_s = 0;
  double flops = 0;
  int repeats = 0;
  double bandwidth_noise = 0, flops_noise = 0;
};
inline constexpr int kPeakRepeats = 9;
const CpuPeaks& measured_cpu_peaks();

/// The best (shortest) of repeated timings in seconds, and the noise as CpuPeaks defines it (0 for one timing).
struct BestOf {
  double best_s = 0, noise = 0;
};
BestOf best_of(std::vector<double> seconds);

/// The note a cpu run's document carries: where the floor's peaks come from and how noisy their measurement was,
/// with a warning when either noise is over 10% ("of floor" may then read over 100%).
std::string cpu_peaks_note(const CpuPeaks& peaks);

/// Bytes `--caches cold` reads before each forward on the cpu backend: twice the last-level cache plus each worker
/// thread's L2 (sysconf), 64 MiB where those are unknown, at most 1 GiB.
std::size_t cache_flush_bytes();

/// The CPU model from /proc/cpuinfo ("unknown CPU" when it cannot be read).
std::string cpu_model_name();

}  // namespace vtools::vbench
