// A CUDA program whose global memory traffic is cp.async.bulk copies only (sm_90), traced by the access-mode gpu test
// `bulk` of tests/vtrace (gpu_access_check.py):
//   bulk_copy<<<2, 64>>>(src, dst)   thread 0 of block b bulk-loads src bytes [1024 b, 1024 b + 1024) into shared
//                                     memory (mbarrier completion), every thread doubles its 4 floats in shared
//                                     memory, thread 0 bulk-stores the 1024 bytes to dst bytes [1024 b, 1024 b + 1024)
//   bulk_past_end<<<1, 32>>>(edge)    thread 0 bulk-loads 64 bytes at byte 3968 of a 4000-byte buffer: 32 bytes past
//                                     its end (in the allocator's rounding, so nothing faults)
// Buffers: src 2048 bytes, dst 3072 bytes, edge 4000 bytes (sizes differ so the test finds each by size). The
// program checks dst = 2 src itself and exits 1 when not, so a trace of copies that did not happen cannot pass.
// Inline PTX as in the PTX ISA 8.x "cp.async.bulk" and "mbarrier" sections; no global load or store besides them.
#include <cuda_runtime.h>

#include <cstdio>
#include <vector>

constexpr unsigned kTileBytes = 1024;
constexpr int kTileFloats = kTileBytes / sizeof(float);

static __device__ void barrier_init(unsigned s_bar) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(s_bar) : "memory");
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");  // the async proxy (the copy) sees the init
}

/// Thread 0 only: one bulk copy global -> shared whose completion (`bytes`) the barrier waits for.
static __device__ void bulk_load(unsigned s_dst, const void* src, unsigned bytes, unsigned s_bar) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(s_bar), "r"(bytes) : "memory");
  asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];"
               ::"r"(s_dst), "l"(__cvta_generic_to_global(src)), "r"(bytes), "r"(s_bar)
               : "memory");
}

/// Every thread: waits until phase 0 of the barrier completed (the bulk load landed).
static __device__ void barrier_wait_phase0(unsigned s_bar) {
  unsigned done = 0;
  while (!done)
    asm volatile(
        "{\n .reg .pred p;\n mbarrier.try_wait.parity.shared::cta.b64 p, [%1], 0;\n selp.u32 %0, 1, 0, p;\n}"
        : "=r"(done)
        : "r"(s_bar)
        : "memory");
}

__global__ void bulk_copy(const float* src, float* dst) {
  __shared__ alignas(128) float tile[kTileFloats];
  __shared__ alignas(8) unsigned long long bar;
  const unsigned s_tile = static_cast<unsigned>(__cvta_generic_to_shared(tile));
  const unsigned s_bar = static_cast<unsigned>(__cvta_generic_to_shared(&bar));
  if (threadIdx.x == 0) barrier_init(s_bar);
  __syncthreads();
  if (threadIdx.x == 0) bulk_load(s_tile, src + blockIdx.x * kTileFloats, kTileBytes, s_bar);
  barrier_wait_phase0(s_bar);
  for (int i = threadIdx.x; i < kTileFloats; i += blockDim.x) tile[i] *= 2.0f;
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");  // generic writes -> visible to the bulk store
  __syncthreads();
  if (threadIdx.x == 0) {
    asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;"
                 ::"l"(__cvta_generic_to_global(dst + blockIdx.x * kTileFloats)), "r"(s_tile), "r"(kTileBytes)
                 : "memory");
    asm volatile("cp.async.bulk.commit_group;" ::: "memory");
    asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
  }
}

__global__ void bulk_past_end(const float* edge) {
  __shared__ alignas(128) float tile[16];
  __shared__ alignas(8) unsigned long long bar;
  const unsigned s_tile = static_cast<unsigned>(__cvta_generic_to_shared(tile));
  const unsigned s_bar = static_cast<unsigned>(__cvta_generic_to_shared(&bar));
  if (threadIdx.x == 0) barrier_init(s_bar);
  __syncthreads();
  if (threadIdx.x == 0) bulk_load(s_tile, reinterpret_cast<const char*>(edge) + 3968, 64, s_bar);
  barrier_wait_phase0(s_bar);
}

int main() {
  const int n = 2 * kTileFloats;  // 512 floats = 2048 bytes
  std::vector<float> h_src(n), h_dst(n);
  for (int i = 0; i < n; ++i) h_src[i] = static_cast<float>(i);
  float *d_src, *d_dst, *d_edge;
  cudaMalloc(&d_src, n * sizeof(float));
  cudaMalloc(&d_dst, 3072);
  cudaMalloc(&d_edge, 4000);
  cudaMemcpy(d_src, h_src.data(), n * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemset(d_edge, 0, 4000);
  bulk_copy<<<2, 64>>>(d_src, d_dst);
  bulk_past_end<<<1, 32>>>(d_edge);
  cudaError_t e = cudaDeviceSynchronize();
  if (e == cudaSuccess) e = cudaMemcpy(h_dst.data(), d_dst, n * sizeof(float), cudaMemcpyDeviceToHost);
  int wrong = 0;
  for (int i = 0; i < n; ++i) wrong += h_dst[i] != 2.0f * h_src[i];
  std::printf("bulk_copy_sample: %s, %d of %d floats wrong\n", cudaGetErrorString(e), wrong, n);
  return e == cudaSuccess && wrong == 0 ? 0 : 1;
}
