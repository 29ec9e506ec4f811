// Leaves L2 as a forward prepared alone finds it: l2_flush (ops/l2_flush.cu) over a zero-filled buffer of twice L2,
// so clean, evict-normal lines. Run before each forward timed at prepare and before the kept one is captured (a
// candidate's evict-last lines, e.g. a prefetched LM head, would otherwise flatter the next forwards; bench/RESULTS.md,
// session 28), and enqueued before each replay timed with --caches cold.
#pragma once

#include <cuda_runtime.h>

#include "tools/vbench/cuda/device_buffer.hpp"

namespace vtools::vbench::cuda {

class L2Reset {
 public:
  /// Allocates and zeroes the buffer on the current device, once (later calls do nothing).
  void allocate();
  /// Enqueues the flush on `stream`, no wait.
  void enqueue(cudaStream_t stream) const;
  /// Enqueues the flush and waits for it.
  void run(cudaStream_t stream) const;

 private:
  /// Zeros the flush reads through L2, and a last word it may write (its sink).
  DeviceBuffer buffer_;
};

}  // namespace vtools::vbench::cuda
