// The launchers of ops/l2_flush.cu: L2 emptied of a forward's lines (cold-cache timing, cuda/l2_reset.hpp), and the
// plain read its GPU test times. They enqueue on `stream` (graph-capture safe: no sync, no allocation) and throw
// vtools::Error on a bad launch.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

namespace vtools::vbench::cuda {

/// Bytes of the buffer l2_flush needs on the current device: twice its L2.
std::size_t l2_flush_bytes();
/// Leaves L2 holding only clean, evict-normal lines of d_buffer[0..bytes) (zero-filled, at least l2_flush_bytes()):
/// reads it marked evict-last, so that earlier evict-last lines go too, then sets its lines back to evict-normal.
/// d_sink: one unsigned of device memory the reads may write (they do not, on zeros), so that they are kept.
void l2_flush(const void* d_buffer, std::size_t bytes, unsigned* d_sink, cudaStream_t stream);
/// Reads d_bytes[0..bytes) once with plain loads (what tests time to see where the bytes come from).
void l2_read(const void* d_bytes, std::size_t bytes, unsigned* d_sink, cudaStream_t stream);

}  // namespace vtools::vbench::cuda
