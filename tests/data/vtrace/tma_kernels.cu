#include <cuda.h>
#include <cstdint>
__global__ void tma_load(const __grid_constant__ CUtensorMap map, float* out) {
  __shared__ alignas(128) float tile[64*64];
  __shared__ alignas(8) uint64_t bar;
  uint32_t sbar = static_cast<uint32_t>(__cvta_generic_to_shared(&bar));
  uint32_t stile = static_cast<uint32_t>(__cvta_generic_to_shared(tile));
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.init.shared.b64 [%0], 1;" :: "r"(sbar));
    asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];"
      :: "r"(stile), "l"(&map), "r"(0), "r"(0), "r"(sbar) : "memory");
  }
  __syncthreads();
  out[threadIdx.x] = tile[threadIdx.x];
}
__global__ void plain(float* out) { out[threadIdx.x] = 1; }
