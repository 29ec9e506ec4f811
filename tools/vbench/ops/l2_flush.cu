// cuda::l2_flush: leaves L2 holding none of what earlier work touched, for `vbench run --caches cold`; cuda::l2_read:
// plain loads of a range, what the flush test times. A plain read of a buffer larger than L2 is not enough: lines
// marked evict-last (the LM head's prefetch, cp.async.bulk.prefetch.L2 with an evict-last hint) are replaced only
// after every evict-normal line of their set, so they would outlive it. So the flush reads its buffer marked
// evict-last itself (its lines then displace those by age), and a second pass sets its lines back to evict-normal
// (applypriority, sm_80+): a forward after it finds clean lines of normal priority only, as after a cold start,
// not an L2 whose evict-last lines its own normal lines could not displace.
#include <cstddef>
#include <cstdint>
#include <string>

#include "tools/vbench/cuda/cuda_error.hpp"
#include "tools/vbench/ops/l2_flush.hpp"

namespace vtools::vbench::cuda {

namespace {
constexpr int kThreads = 256;
constexpr std::size_t kLineBytes = 128;  // an L2 line; applypriority takes exactly one

unsigned grid_for(std::size_t items) {
  int device = 0, sms = 0;
  check_cuda(cudaGetDevice(&device), "cudaGetDevice");
  check_cuda(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device), "cudaDeviceGetAttribute");
  const std::size_t blocks = (items + kThreads - 1) / kThreads;
  const std::size_t most = static_cast<std::size_t>(sms) * 4;  // enough loads in flight to stream at full bandwidth
  return static_cast<unsigned>(blocks < most ? blocks : most);
}
}  // namespace

/// Reads 16 bytes a thread, grid-stride; `evict_last` marks the lines so. The xor of everything read goes to *sink
/// only if it equals a value no zero-filled buffer gives, so the compiler keeps the loads and nothing is written.
__global__ void l2_read_kernel(const uint4* data, std::size_t n, bool evict_last, unsigned* sink) {
  unsigned acc = 0;
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  std::uint64_t policy = 0;
  if (evict_last) asm volatile("createpolicy.fractional.L2::evict_last.b64 %0, 1.0;" : "=l"(policy));
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n; i += stride) {
    unsigned x, y, z, w;
    if (evict_last) {
      asm volatile("ld.global.L2::cache_hint.v4.u32 {%0, %1, %2, %3}, [%4], %5;"
                   : "=r"(x), "=r"(y), "=r"(z), "=r"(w)
                   : "l"(data + i), "l"(policy));
    } else {
      asm volatile("ld.global.v4.u32 {%0, %1, %2, %3}, [%4];" : "=r"(x), "=r"(y), "=r"(z), "=r"(w) : "l"(data + i));
    }
    acc ^= x ^ y ^ z ^ w;
  }
  if (acc == 0x9e3779b9u) atomicAdd(sink, 1u);
}

__global__ void l2_normal_priority_kernel(const char* data, std::size_t lines) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < lines; i += stride)
    asm volatile("applypriority.global.L2::evict_normal [%0], 128;" ::"l"(data + i * kLineBytes) : "memory");
}

namespace {
void read_range(const void* d_bytes, std::size_t bytes, bool evict_last, unsigned* d_sink, cudaStream_t stream,
                const char* what) {
  const std::size_t n = bytes / sizeof(uint4);
  if (d_bytes == nullptr || n == 0) return;
  l2_read_kernel<<<grid_for(n), kThreads, 0, stream>>>(static_cast<const uint4*>(d_bytes), n, evict_last, d_sink);
  check_launch(what, std::to_string(bytes) + " bytes");
}
}  // namespace

void l2_read(const void* d_bytes, std::size_t bytes, unsigned* d_sink, cudaStream_t stream) {
  read_range(d_bytes, bytes, false, d_sink, stream, "l2_read_kernel");
}

void l2_flush(const void* d_buffer, std::size_t bytes, unsigned* d_sink, cudaStream_t stream) {
  read_range(d_buffer, bytes, true, d_sink, stream, "l2_read_kernel (flush)");
  const std::size_t lines = bytes / kLineBytes;
  if (d_buffer == nullptr || lines == 0) return;
  l2_normal_priority_kernel<<<grid_for(lines), kThreads, 0, stream>>>(static_cast<const char*>(d_buffer), lines);
  check_launch("l2_normal_priority_kernel", std::to_string(bytes) + " bytes");
}

std::size_t l2_flush_bytes() {
  int device = 0, l2 = 0;
  check_cuda(cudaGetDevice(&device), "cudaGetDevice");
  check_cuda(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, device), "cudaDeviceGetAttribute");
  // Twice L2: lines are placed by a hash of the address, so one L2's worth leaves some sets short of a full pass.
  return 2 * static_cast<std::size_t>(l2 > 0 ? l2 : (50 << 20));
}

}  // namespace vtools::vbench::cuda
