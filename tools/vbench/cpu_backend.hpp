// The CPU backend: fp32 forwards through CpuForward, timed with the host's steady clock. It is the reference other
// backends are gated against and the default where no GPU exists.
#pragma once

#include <cstddef>
#include <memory>

#include "tools/vbench/backend.hpp"

namespace vtools::vbench {

/// A new CPU backend. prepare() keeps a pointer to the weights (they live on the host already), so the caller keeps
/// them alive while the backend runs; only DType::kFp32 is accepted (Error kUsage otherwise).
std::unique_ptr<Backend> make_cpu_backend();

/// Measured peaks of this CPU, cached after the first call (about 0.3 s): the best of 5 copies of 64 MiB
/// (bytes read + written per second) and the best of 5 512³ sgemm calls (FLOP/s). Used for the roofline floor.
struct CpuPeaks {
  double bandwidth_bytes_per_s = 0;
  double flops = 0;
};
const CpuPeaks& measured_cpu_peaks();

/// Bytes `--caches cold` reads before each forward on the cpu backend: twice the last-level cache plus each worker
/// thread's L2 (sysconf), 64 MiB where those are unknown, at most 1 GiB.
std::size_t cache_flush_bytes();

/// The CPU model from /proc/cpuinfo ("unknown CPU" when it cannot be read).
std::string cpu_model_name();

}  // namespace vtools::vbench
