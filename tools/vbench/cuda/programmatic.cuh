// Programmatic dependent launch (Hopper) for the forward's own kernels (encoder, layer norm, attention): each starts
// with programmatic_start(), and GptForward::use_programmatic_launches has them launched as programmatic dependents
// of the kernel before them in the stream. Then the next kernel launches while this one runs (its CTAs take the SMs
// this grid leaves free and wait there) instead of after it has drained, and the own wgmma GEMMs, which copy their
// first weight tiles before their own wait, fetch them during the layer norm or attention before them. Measured on
// the H100 in session 11 with cuBLASLt's GEMMs only (where nothing overlaps): gpt2 bf16 1% slower, gpt_micro 1.5%
// faster, so ForwardSearch tries it only with the own GEMMs, as one more timed candidate. Without the launch attribute
// the two instructions return at once.
#pragma once

#include <cuda_runtime.h>

#include <atomic>
#include <cstddef>
#include <cstdint>

#include "tools/vbench/cuda/cuda_error.hpp"
#include "tools/vbench/cuda/programmatic.hpp"

namespace vtools::vbench::cuda {

/// The first statement of a kernel launched by launch_kernel: allows the next kernel to launch, then waits until
/// the kernel before has completed and its writes are visible. No global memory access may come before it (the
/// kernel before may still read what this one writes). As every kernel of the chain waits here, a kernel that ends
/// has seen all those before it end: the ordering is transitive.
__device__ __forceinline__ void programmatic_start() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
  asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}

/// What a launch of an own kernel needs set beyond the defaults (kernel_attributes_once).
struct KernelAttributes {
  std::size_t smem = 0;               ///< dynamic shared memory bytes
  bool non_portable_cluster = false;  ///< clusters over 8 CTAs
  bool max_shared_carveout = false;   ///< the most shared memory per SM (the least L1)
};

/// Sets `kernel`'s attributes (its dynamic shared memory limit, and what else `attributes` asks for) once per
/// device, on its first use there (outside any graph capture: the eager runs come first); `done`, one per kernel,
/// holds a bit per device ordinal below 64. False when the device refuses; a failure is tried again on the next use
/// (the error may have been an earlier launch's).
template <typename Kernel>
bool kernel_attributes_once(Kernel kernel, std::atomic<std::uint64_t>& done, const KernelAttributes& attributes) {
  int device = 0;
  if (cudaGetDevice(&device) != cudaSuccess) {
    (void)cudaGetLastError();
    return false;
  }
  const std::uint64_t bit = device < 64 ? std::uint64_t{1} << device : 0;
  if ((done.load() & bit) != 0) return true;
  bool ok = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                 static_cast<int>(attributes.smem)) == cudaSuccess;
  if (ok && attributes.non_portable_cluster) {
    ok = cudaFuncSetAttribute(kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1) == cudaSuccess;
  }
  if (ok && attributes.max_shared_carveout) {
    ok = cudaFuncSetAttribute(kernel, cudaFuncAttributePreferredSharedMemoryCarveout,
                              cudaSharedmemCarveoutMaxShared) == cudaSuccess;
  }
  if (!ok) {
    (void)cudaGetLastError();
    return false;
  }
  done.fetch_or(bit);
  return true;
}

/// kernel<<<grid, block, smem, stream>>>(args...) with the launch attributes attrs[0..n); the launchers below say
/// which.
template <typename... Params, typename... Args>
void launch_with_attributes(void (*kernel)(Params...), dim3 grid, dim3 block, std::size_t smem, cudaStream_t stream,
                            cudaLaunchAttribute* attrs, unsigned n, const char* name, Args... args) {
  cudaLaunchConfig_t config = {};
  config.gridDim = grid;
  config.blockDim = block;
  config.dynamicSmemBytes = smem;
  config.stream = stream;
  config.attrs = attrs;
  config.numAttrs = n;
  check_cuda(cudaLaunchKernelEx(&config, kernel, static_cast<Params>(args)...), "cudaLaunchKernelEx", name);
}

/// kernel<<<grid, block, smem, stream>>>(args...) in thread-block clusters of `cluster` CTAs (1 x 1 x 1: none), with
/// `programmatic` as a programmatic dependent of the work before it in `stream` (unless
/// programmatic_launches_allowed() says no).
template <typename... Params, typename... Args>
void launch_kernel_in_clusters(void (*kernel)(Params...), dim3 grid, dim3 cluster, dim3 block, std::size_t smem,
                               cudaStream_t stream, bool programmatic, const char* name, Args... args) {
  cudaLaunchAttribute attrs[2] = {};
  unsigned n = 0;
  if (programmatic && programmatic_launches_allowed()) {
    attrs[n].id = cudaLaunchAttributeProgrammaticStreamSerialization;
    attrs[n++].val.programmaticStreamSerializationAllowed = 1;
  }
  if (cluster.x * cluster.y * cluster.z > 1) {
    attrs[n].id = cudaLaunchAttributeClusterDimension;
    attrs[n].val.clusterDim.x = cluster.x;
    attrs[n].val.clusterDim.y = cluster.y;
    attrs[n++].val.clusterDim.z = cluster.z;
  }
  launch_with_attributes(kernel, grid, block, smem, stream, attrs, n, name, args...);
}

/// launch_kernel_in_clusters without clusters.
template <typename... Params, typename... Args>
void launch_kernel(void (*kernel)(Params...), dim3 grid, dim3 block, std::size_t smem, cudaStream_t stream,
                   bool programmatic, const char* name, Args... args) {
  launch_kernel_in_clusters(kernel, grid, dim3(1, 1, 1), block, smem, stream, programmatic, name, args...);
}

/// kernel<<<grid, block, smem, stream>>>(args...) launched cooperatively: every CTA resident at once, or the launch
/// fails (a persistent kernel whose CTAs wait for each other).
template <typename... Params, typename... Args>
void launch_kernel_cooperative(void (*kernel)(Params...), dim3 grid, dim3 block, std::size_t smem, cudaStream_t stream,
                               const char* name, Args... args) {
  cudaLaunchAttribute cooperative = {};
  cooperative.id = cudaLaunchAttributeCooperative;
  cooperative.val.cooperative = 1;
  launch_with_attributes(kernel, grid, block, smem, stream, &cooperative, 1, name, args...);
}

}  // namespace vtools::vbench::cuda
