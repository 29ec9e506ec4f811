// cuda::l2_prefetch: asks L2 to fetch a byte range from device memory, marked evict-last, and returns without waiting
// for it (cp.async.bulk.prefetch.L2 with an L2 cache hint, sm_90). GptForward launches it on a side branch of the
// forward graph for the LM head's weights, so that they stream into L2 while the layers compute and stay there while
// the head writes its logits (evict-last: the logits' normal lines go first).
#include <cstddef>
#include <cstdint>
#include <string>

#include "tools/vbench/cuda/cuda_error.hpp"
#include "tools/vbench/ops/l2_prefetch.hpp"

namespace vtools::vbench::cuda {

namespace {
constexpr std::size_t kChunkBytes = 32u << 10;  // one prefetch instruction's size (a multiple of 16)
constexpr int kThreads = 128;
constexpr unsigned kMaxBlocks = 16;  // issuing takes a few instructions per thread; the memory system does the rest
}  // namespace

__global__ void l2_prefetch_kernel(const char* base, std::size_t bytes) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x * kChunkBytes;
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  std::uint64_t policy;
  asm volatile("createpolicy.fractional.L2::evict_last.b64 %0, 1.0;" : "=l"(policy));
#endif
  for (std::size_t off = (blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x) * kChunkBytes; off < bytes;
       off += stride) {
    const unsigned n = static_cast<unsigned>(bytes - off < kChunkBytes ? bytes - off : kChunkBytes);
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("cp.async.bulk.prefetch.L2.global.L2::cache_hint [%0], %1, %2;" ::"l"(base + off), "r"(n),
                 "l"(policy) : "memory");
#else
    for (unsigned line = 0; line < n; line += 128) {
      asm volatile("prefetch.global.L2::evict_last [%0];" ::"l"(base + off + line));
    }
#endif
  }
}

void l2_prefetch(const void* d_bytes, std::size_t bytes, cudaStream_t stream) {
  bytes &= ~std::size_t{15};  // whole 16-byte units, as the instruction needs (d_bytes is 256-byte aligned)
  if (d_bytes == nullptr || bytes == 0) return;
  const std::size_t chunks = (bytes + kChunkBytes - 1) / kChunkBytes;
  const std::size_t blocks = (chunks + kThreads - 1) / kThreads;
  l2_prefetch_kernel<<<static_cast<unsigned>(blocks < kMaxBlocks ? blocks : kMaxBlocks), kThreads, 0, stream>>>(
      static_cast<const char*>(d_bytes), bytes);
  check_launch("l2_prefetch_kernel", std::to_string(bytes) + " bytes");
}

}  // namespace vtools::vbench::cuda
