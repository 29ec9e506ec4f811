// The launcher of ops/l2_prefetch.cu: a byte range fetched into L2 ahead of its use. It enqueues on `stream`
// (graph-capture safe: no sync, no allocation) and throws vtools::Error on a bad launch.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

namespace vtools::vbench::cuda {

/// Starts fetching d_bytes[0..bytes) (cudaMalloc'd) into L2, marked evict-last, and returns at once: a tiny kernel
/// issues bulk prefetches and ends; the lines arrive while later work runs. A hint: it changes no data.
void l2_prefetch(const void* d_bytes, std::size_t bytes, cudaStream_t stream);

}  // namespace vtools::vbench::cuda
