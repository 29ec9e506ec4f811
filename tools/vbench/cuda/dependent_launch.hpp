// launch_dependent: a kernel launch as a programmatic dependent of the work before it on the stream (Hopper's
// programmatic dependent launch, kept as a programmatic edge when captured into a graph). The kernel may start
// while its predecessor still runs; its device side (allow_dependents / wait_prerequisites in kernel_math.cuh)
// decides what overlaps. Why: inside the forward graph a plain kernel boundary costs ~1-2 us of launch and drain on
// the H100; with the next kernel's CTAs already resident and copying in their weights, most of it is hidden.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <string_view>
#include <utility>

#include "tools/vbench/cuda/cuda_error.hpp"

namespace vtools::vbench::cuda {

/// Launches kernel<<<grid, block, smem_bytes, stream>>>(args...) with programmatic stream serialization; throws
/// Error naming `what` (kernel and shape) when the launch fails.
template <typename... Params, typename... Args>
void launch_dependent(void (*kernel)(Params...), dim3 grid, dim3 block, std::size_t smem_bytes, cudaStream_t stream,
                      std::string_view what, Args&&... args) {
  cudaLaunchConfig_t config = {};
  config.gridDim = grid;
  config.blockDim = block;
  config.dynamicSmemBytes = smem_bytes;
  config.stream = stream;
  cudaLaunchAttribute dependent[1] = {};
  dependent[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
  dependent[0].val.programmaticStreamSerializationAllowed = 1;
  config.attrs = dependent;
  config.numAttrs = 1;
  check_cuda(cudaLaunchKernelEx(&config, kernel, std::forward<Args>(args)...), "cudaLaunchKernelEx", what);
}

}  // namespace vtools::vbench::cuda
