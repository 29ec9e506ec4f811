// A bf16 GEMM on wgmma + TMA for vbench's small-M shapes, timed against cuBLASLt in the same process (a standalone
// experiment: not linked into vbench). Y[M][N] (fp32) = X[M][K] . Wt[N][K]^T, both operands K-major, as split-K
// partial products when `splits` > 1 (plane z sums K range z), which is how vbench's layernorm consumes the
// projections. Each CTA: one producer warpgroup (thread 0 issues TMA copies of 64 x 64 tiles into a ring of stages,
// 128-byte swizzle, mbarrier per stage), one consumer warpgroup running wgmma m64nBNk16 from shared memory.
// Why: cuBLASLt takes 5.4-6.8 us per gpt2 bf16 GEMM at M=256 against byte floors of 1-1.4 us (bench/RESULTS.md);
// before building a fused layer kernel on wgmma, this measures what a plain wgmma GEMM reaches on these shapes.
// Variants: no cluster, or clusters whose CTAs multicast their shared X or W tiles (bench/wgmma_gemm_bench.sh runs
// each in its own process). Written in sessions 9 and 10 when no device time was left: it compiles for sm_90a
// (ptxas: 58-90 registers, no spill) but has not run yet.
#include <cublasLt.h>
#include <cuda.h>
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <iterator>
#include <random>
#include <string>
#include <vector>

namespace {

#define CHECK_CUDA(x)                                                                                      \
  do {                                                                                                     \
    cudaError_t e_ = (x);                                                                                  \
    if (e_ != cudaSuccess) {                                                                               \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_));            \
      std::exit(1);                                                                                        \
    }                                                                                                      \
  } while (0)
#define CHECK_LT(x)                                                                                        \
  do {                                                                                                     \
    cublasStatus_t s_ = (x);                                                                               \
    if (s_ != CUBLAS_STATUS_SUCCESS) {                                                                     \
      std::fprintf(stderr, "%s:%d: %s: status %d\n", __FILE__, __LINE__, #x, static_cast<int>(s_));        \
      std::exit(1);                                                                                        \
    }                                                                                                      \
  } while (0)

constexpr int BM = 64;  // rows per CTA: one wgmma m64 per consumer warpgroup
constexpr int BK = 64;  // 64 bf16 = 128 bytes: one row of the 128-byte swizzle pattern

template <int BN>
__device__ __forceinline__ void wgmma(float (&d)[BN / 2], std::uint64_t a, std::uint64_t b);
template <>
__device__ __forceinline__ void wgmma<64>(float (&d)[32], std::uint64_t a, std::uint64_t b) {
  asm volatile(
      "{\n"
      ".reg .pred p;\n"
      "setp.ne.b32 p, %34, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 "
      "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
      "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}, "
      "%32, %33, p, 1, 1, 0, 0;\n"
      "}\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
        "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
        "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
        "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
      : "l"(a), "l"(b), "r"(1));
}

template <>
__device__ __forceinline__ void wgmma<128>(float (&d)[64], std::uint64_t a, std::uint64_t b) {
  asm volatile(
      "{\n"
      ".reg .pred p;\n"
      "setp.ne.b32 p, %66, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 "
      "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
      "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, "
      "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "
      "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63}, "
      "%64, %65, p, 1, 1, 0, 0;\n"
      "}\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
        "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
        "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
        "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]),
        "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]),
        "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),
        "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
        "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
      : "l"(a), "l"(b), "r"(1));
}

__device__ __forceinline__ std::uint32_t smem_addr(const void* p) {
  return static_cast<std::uint32_t>(__cvta_generic_to_shared(p));
}

/// Shared-memory matrix descriptor of a K-major tile with 128-byte swizzle: rows of 128 bytes, 8-row groups 1024
/// bytes apart (stride byte offset), leading byte offset unused for this layout.
__device__ __forceinline__ std::uint64_t descriptor(const void* tile) {
  const std::uint64_t addr = smem_addr(tile);
  return ((addr & 0x3FFFF) >> 4) | (std::uint64_t{1} << 16) | (std::uint64_t{1024 >> 4} << 32) |
         (std::uint64_t{1} << 62);
}

__device__ __forceinline__ void mbar_init(std::uint64_t* bar, int count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(smem_addr(bar)), "r"(count));
}
__device__ __forceinline__ void mbar_expect_tx(std::uint64_t* bar, std::uint32_t bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(smem_addr(bar)), "r"(bytes) : "memory");
}
__device__ __forceinline__ void mbar_arrive(std::uint64_t* bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(smem_addr(bar)) : "memory");
}
__device__ __forceinline__ void mbar_wait(std::uint64_t* bar, int parity) {
  asm volatile(
      "{\n"
      ".reg .pred done;\n"
      "wait_%=:\n"
      "mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n"
      "@!done bra wait_%=;\n"
      "}\n" ::"r"(smem_addr(bar)),
      "r"(parity)
      : "memory");
}
__device__ __forceinline__ void tma_load(void* dst, const CUtensorMap* map, int x, int y, std::uint64_t* bar) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];" ::"r"(
          smem_addr(dst)),
      "l"(reinterpret_cast<std::uint64_t>(map)), "r"(x), "r"(y), "r"(smem_addr(bar))
      : "memory");
}
/// The same copy landing at dst's offset in every CTA of `mask` (cluster ranks), each CTA's barrier at bar's offset
/// counting the bytes that reach it.
__device__ __forceinline__ void tma_multicast(void* dst, const CUtensorMap* map, int x, int y, std::uint64_t* bar,
                                              std::uint16_t mask) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster"
      " [%0], [%1, {%2, %3}], [%4], %5;" ::"r"(smem_addr(dst)),
      "l"(reinterpret_cast<std::uint64_t>(map)), "r"(x), "r"(y), "r"(smem_addr(bar)), "h"(mask)
      : "memory");
}
/// Arrives on the barrier at bar's offset in the shared memory of cluster rank `rank`.
__device__ __forceinline__ void mbar_arrive_remote(std::uint64_t* bar, std::uint32_t rank) {
  asm volatile(
      "{\n"
      ".reg .b32 remote;\n"
      "mapa.shared::cluster.u32 remote, %0, %1;\n"
      "mbarrier.arrive.release.cluster.shared::cluster.b64 _, [remote];\n"
      "}\n" ::"r"(smem_addr(bar)),
      "r"(rank)
      : "memory");
}
__device__ __forceinline__ void cluster_sync() {
  asm volatile("barrier.cluster.arrive.release;\nbarrier.cluster.wait.acquire;\n" ::: "memory");
}

template <int BN, int STAGES>
struct Shared {
  __nv_bfloat16 a[STAGES][BM * BK];  // each stage 1024-byte aligned (8 KB)
  __nv_bfloat16 b[STAGES][BN * BK];
  std::uint64_t full[STAGES], empty[STAGES];
};

/// Grid (N / BN, M / BM, splits) in clusters of CX x CY CTAs; 256 threads: warpgroup 0 produces, warpgroup 1
/// consumes. The CX CTAs of a cluster row share their X tile (each copies BM / CX of its rows into all of them), the
/// CY CTAs of a cluster column their W tile (BN / CY rows each): TMA multicast, as cuBLASLt's nvjet kernels do, so
/// that L2 serves each tile once per cluster instead of once per CTA. A stage's buffer is refilled only after the
/// consumers of every CTA that writes into it (its cluster row and column) released it. M, N, K / splits must be
/// multiples of BM, BN and BK, and the grid of the cluster shape (the bench only runs such shapes).
template <int BN, int STAGES, int CX, int CY>
__global__ void __launch_bounds__(256) wgmma_gemm(const __grid_constant__ CUtensorMap x_map,
                                                  const __grid_constant__ CUtensorMap w_map, float* y, int M, int N,
                                                  int k_per_split) {
  constexpr bool kCluster = CX * CY > 1;
  static_assert((BM / CX) % 8 == 0 && (BN / CY) % 8 == 0, "slices keep whole 8-row swizzle atoms");
  extern __shared__ unsigned char raw[];
  const std::uintptr_t base = (reinterpret_cast<std::uintptr_t>(raw) + 1023) & ~std::uintptr_t{1023};  // swizzle
  auto& s = *reinterpret_cast<Shared<BN, STAGES>*>(base);
  const int n0 = blockIdx.x * BN, m0 = blockIdx.y * BM, k0 = blockIdx.z * k_per_split;
  const int k_tiles = k_per_split / BK;
  // Cluster coordinates: rank = cx + CX * cy (x fastest), as %cluster_ctarank numbers them.
  const int cx = blockIdx.x % CX, cy = blockIdx.y % CY;
  if (threadIdx.x == 0) {
    for (int i = 0; i < STAGES; ++i) {
      mbar_init(&s.full[i], 1);
      mbar_init(&s.empty[i], 4 * (CX + CY - 1));  // one arrival per consumer warp of each CTA writing into it
    }
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  // Every CTA's barriers exist before any CTA multicasts into them.
  if constexpr (kCluster) {
    cluster_sync();
  } else {
    __syncthreads();
  }
  if (threadIdx.x < 128) {  // producer
    if (threadIdx.x == 0) {
      std::uint16_t row_mask = 0, col_mask = 0;  // the CTAs sharing this CTA's X tile, and its W tile
      for (int i = 0; i < CX; ++i) row_mask |= 1u << (i + CX * cy);
      for (int j = 0; j < CY; ++j) col_mask |= 1u << (cx + CX * j);
      for (int t = 0; t < k_tiles; ++t) {
        const int st = t % STAGES, k = k0 + t * BK;
        if (t >= STAGES) mbar_wait(&s.empty[st], (t / STAGES - 1) & 1);
        mbar_expect_tx(&s.full[st], (BM + BN) * BK * sizeof(__nv_bfloat16));
        if constexpr (CX > 1) {
          tma_multicast(s.a[st] + cx * (BM / CX) * BK, &x_map, k, m0 + cx * (BM / CX), &s.full[st], row_mask);
        } else {
          tma_load(s.a[st], &x_map, k, m0, &s.full[st]);
        }
        if constexpr (CY > 1) {
          tma_multicast(s.b[st] + cy * (BN / CY) * BK, &w_map, k, n0 + cy * (BN / CY), &s.full[st], col_mask);
        } else {
          tma_load(s.b[st], &w_map, k, n0, &s.full[st]);
        }
      }
    }
  } else {  // consumer
    float d[BN / 2];
#pragma unroll
    for (int i = 0; i < BN / 2; ++i) d[i] = 0.f;
    const int lane = threadIdx.x % 32;
    for (int t = 0; t < k_tiles; ++t) {
      const int st = t % STAGES;
      mbar_wait(&s.full[st], (t / STAGES) & 1);
      asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
      const std::uint64_t da = descriptor(s.a[st]), db = descriptor(s.b[st]);
#pragma unroll
      for (int kk = 0; kk < BK / 16; ++kk) wgmma<BN>(d, da + 2 * kk, db + 2 * kk);  // +32 bytes along K
      asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
      asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
      if (lane == 0) {
        if constexpr (kCluster) {
          // Release the stage in this CTA's cluster row and column (itself once).
          for (int i = 0; i < CX; ++i) mbar_arrive_remote(&s.empty[st], i + CX * cy);
          for (int j = 0; j < CY; ++j) {
            if (j != cy) mbar_arrive_remote(&s.empty[st], cx + CX * j);
          }
        } else {
          mbar_arrive(&s.empty[st]);
        }
      }
    }
    // Accumulator layout of m64nN: warp w of the warpgroup owns rows 16w..16w+15; lane l holds, per 8 columns j,
    // (row 16w + l/4, cols 8j + 2(l%4) + {0,1}) in d[4j], d[4j+1] and the same 8 rows lower in d[4j+2], d[4j+3].
    const int w = (threadIdx.x - 128) / 32;
    float* plane = y + static_cast<std::size_t>(blockIdx.z) * M * N;
    const int r = m0 + 16 * w + lane / 4;
#pragma unroll
    for (int j = 0; j < BN / 8; ++j) {
      const int c = n0 + 8 * j + 2 * (lane % 4);
      *reinterpret_cast<float2*>(plane + static_cast<std::size_t>(r) * N + c) = make_float2(d[4 * j], d[4 * j + 1]);
      *reinterpret_cast<float2*>(plane + static_cast<std::size_t>(r + 8) * N + c) =
          make_float2(d[4 * j + 2], d[4 * j + 3]);
    }
  }
  // No CTA leaves while another may still multicast into it or arrive on its barriers.
  if constexpr (kCluster) cluster_sync();
}

/// A 2D tensor map of a row-major bf16 [rows][K] matrix, boxes of BK x box_rows, 128-byte swizzle.
CUtensorMap tensor_map(const __nv_bfloat16* p, int rows, int K, int box_rows) {
  CUtensorMap map;
  const cuuint64_t dims[2] = {static_cast<cuuint64_t>(K), static_cast<cuuint64_t>(rows)};
  const cuuint64_t strides[1] = {static_cast<cuuint64_t>(K) * sizeof(__nv_bfloat16)};
  const cuuint32_t box[2] = {BK, static_cast<cuuint32_t>(box_rows)};
  const cuuint32_t elem[2] = {1, 1};
  const CUresult r = cuTensorMapEncodeTiled(&map, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 2, const_cast<__nv_bfloat16*>(p),
                                            dims, strides, box, elem, CU_TENSOR_MAP_INTERLEAVE_NONE,
                                            CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
                                            CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (r != CUDA_SUCCESS) {
    std::fprintf(stderr, "cuTensorMapEncodeTiled failed: %d\n", static_cast<int>(r));
    std::exit(1);
  }
  return map;
}

template <typename F>
float median_us(F launch) {
  cudaEvent_t a, b;
  CHECK_CUDA(cudaEventCreate(&a));
  CHECK_CUDA(cudaEventCreate(&b));
  for (int i = 0; i < 10; ++i) launch();
  std::vector<float> t;
  for (int i = 0; i < 101; ++i) {
    CHECK_CUDA(cudaEventRecord(a));
    launch();
    CHECK_CUDA(cudaEventRecord(b));
    CHECK_CUDA(cudaEventSynchronize(b));
    float ms = 0;
    CHECK_CUDA(cudaEventElapsedTime(&ms, a, b));
    t.push_back(1000 * ms);
  }
  std::sort(t.begin(), t.end());
  cudaEventDestroy(a);
  cudaEventDestroy(b);
  return t[t.size() / 2];
}

struct Shape {
  const char* name;
  int N, K;
};

/// Runs one tile and cluster shape: fills Y with NaN first (so that a kernel writing nothing cannot pass), sums the
/// split-K planes into `out` and returns the median launch time.
template <int BN, int STAGES, int CX, int CY>
float run_own(const __nv_bfloat16* x, const __nv_bfloat16* w, float* y, int M, int N, int K, int splits,
              std::vector<float>& out) {
  const CUtensorMap xm = tensor_map(x, M, K, BM / CX), wm = tensor_map(w, N, K, BN / CY);
  const int smem = sizeof(Shared<BN, STAGES>) + 1024;
  auto kernel = wgmma_gemm<BN, STAGES, CX, CY>;
  CHECK_CUDA(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
  cudaLaunchConfig_t config = {};
  config.gridDim = dim3(N / BN, M / BM, splits);
  config.blockDim = dim3(256);
  config.dynamicSmemBytes = smem;
  cudaLaunchAttribute cluster[1];
  cluster[0].id = cudaLaunchAttributeClusterDimension;
  cluster[0].val.clusterDim.x = CX;
  cluster[0].val.clusterDim.y = CY;
  cluster[0].val.clusterDim.z = 1;
  config.attrs = cluster;
  config.numAttrs = 1;
  const int k_per_split = K / splits;
  auto launch = [&] { CHECK_CUDA(cudaLaunchKernelEx(&config, kernel, xm, wm, y, M, N, k_per_split)); };
  const std::size_t plane_elems = static_cast<std::size_t>(M) * N;
  CHECK_CUDA(cudaMemset(y, 0xFF, splits * plane_elems * sizeof(float)));
  launch();
  CHECK_CUDA(cudaDeviceSynchronize());
  std::vector<float> planes(splits * plane_elems);
  CHECK_CUDA(cudaMemcpy(planes.data(), y, planes.size() * sizeof(float), cudaMemcpyDeviceToHost));
  out.assign(plane_elems, 0.f);
  for (int z = 0; z < splits; ++z) {
    for (std::size_t i = 0; i < out.size(); ++i) out[i] += planes[z * plane_elems + i];
  }
  return median_us(launch);
}

/// The kernels of one variant (one per process, so that a hang or fault costs only its own lines).
template <int CX, int CY>
void run_variant(const __nv_bfloat16* x, const __nv_bfloat16* w, float* y, int M, int N, int K,
                 const std::function<void(const char*, int, float, const std::vector<float>&)>& report) {
  for (const int splits : {1, 2, 4}) {
    if ((K / splits) % BK != 0) continue;
    std::vector<float> out;
    if ((N / 64) % CX == 0) report("64x64 s4", splits, run_own<64, 4, CX, CY>(x, w, y, M, N, K, splits, out), out);
    if ((N / 128) % CX == 0) {
      report("64x128 s4", splits, run_own<128, 4, CX, CY>(x, w, y, M, N, K, splits, out), out);
      report("64x128 s6", splits, run_own<128, 6, CX, CY>(x, w, y, M, N, K, splits, out), out);
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  // cublaslt | 1x1 | 2x1 | 1x4 | 2x4: cuBLASLt alone, or the own kernel in clusters of CX x CY CTAs.
  const std::string variant = argc > 1 ? argv[1] : "1x1";
  const char* const variants[] = {"cublaslt", "1x1", "2x1", "1x4", "2x4"};
  if (std::find(std::begin(variants), std::end(variants), variant) == std::end(variants)) {
    std::fprintf(stderr, "usage: wgmma_gemm_bench [cublaslt|1x1|2x1|1x4|2x4]\n");
    return 2;
  }
  const int M = 256;  // gpt2 at B=4 T=64
  const Shape shapes[] = {{"qkv", 2304, 768}, {"attn_proj", 768, 768}, {"fc", 3072, 768}, {"fc_proj", 768, 3072}};
  std::mt19937 rng(1234);
  std::normal_distribution<float> normal(0.f, 1.f);
  cublasLtHandle_t lt;
  CHECK_LT(cublasLtCreate(&lt));
  void* workspace;
  const std::size_t ws_bytes = 32u << 20;
  CHECK_CUDA(cudaMalloc(&workspace, ws_bytes));
  std::printf("%-10s %-26s %9s %12s\n", "shape", "kernel", "us", "rel err");
  for (const Shape& sh : shapes) {
    const int N = sh.N, K = sh.K;
    std::vector<__nv_bfloat16> hx(static_cast<std::size_t>(M) * K), hw(static_cast<std::size_t>(N) * K);
    for (auto& v : hx) v = __float2bfloat16(normal(rng));
    for (auto& v : hw) v = __float2bfloat16(0.02f * normal(rng));
    __nv_bfloat16 *x, *w;
    float *y, *y_ref;
    CHECK_CUDA(cudaMalloc(&x, hx.size() * 2));
    CHECK_CUDA(cudaMalloc(&w, hw.size() * 2));
    CHECK_CUDA(cudaMalloc(&y, 4ull * M * N * sizeof(float)));
    CHECK_CUDA(cudaMalloc(&y_ref, static_cast<std::size_t>(M) * N * sizeof(float)));
    CHECK_CUDA(cudaMemcpy(x, hx.data(), hx.size() * 2, cudaMemcpyHostToDevice));
    CHECK_CUDA(cudaMemcpy(w, hw.data(), hw.size() * 2, cudaMemcpyHostToDevice));
    // cuBLASLt, column-major view: Y^T[N][M] = Wt^T(op T of K x N) . X^T (K x M), fp32 out.
    cublasLtMatmulDesc_t op;
    CHECK_LT(cublasLtMatmulDescCreate(&op, CUBLAS_COMPUTE_32F, CUDA_R_32F));
    const cublasOperation_t ta = CUBLAS_OP_T, tb = CUBLAS_OP_N;
    CHECK_LT(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSA, &ta, sizeof ta));
    CHECK_LT(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSB, &tb, sizeof tb));
    cublasLtMatrixLayout_t la, lb, lc;
    CHECK_LT(cublasLtMatrixLayoutCreate(&la, CUDA_R_16BF, K, N, K));
    CHECK_LT(cublasLtMatrixLayoutCreate(&lb, CUDA_R_16BF, K, M, K));
    CHECK_LT(cublasLtMatrixLayoutCreate(&lc, CUDA_R_32F, N, M, N));
    cublasLtMatmulPreference_t pref;
    CHECK_LT(cublasLtMatmulPreferenceCreate(&pref));
    CHECK_LT(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws_bytes,
                                                  sizeof ws_bytes));
    cublasLtMatmulHeuristicResult_t heur[8];
    int found = 0;
    CHECK_LT(cublasLtMatmulAlgoGetHeuristic(lt, op, la, lb, lc, lc, pref, 8, heur, &found));
    const float one = 1.f, zero = 0.f;
    float best_lt = 1e30f;
    for (int i = 0; variant == "cublaslt" && i < found; ++i) {
      auto launch = [&] {
        cublasLtMatmul(lt, op, &one, w, la, x, lb, &zero, y_ref, lc, y_ref, lc, &heur[i].algo, workspace, ws_bytes, 0);
      };
      best_lt = std::min(best_lt, median_us(launch));
    }
    CHECK_LT(cublasLtMatmul(lt, op, &one, w, la, x, lb, &zero, y_ref, lc, y_ref, lc, &heur[0].algo, workspace,
                            ws_bytes, 0));
    CHECK_CUDA(cudaDeviceSynchronize());
    std::vector<float> ref(static_cast<std::size_t>(M) * N);
    CHECK_CUDA(cudaMemcpy(ref.data(), y_ref, ref.size() * sizeof(float), cudaMemcpyDeviceToHost));
    if (variant == "cublaslt") {
      std::printf("%-10s %-26s %9.2f %12s   (best of the heuristic's %d, fp32 out, hot L2)\n", sh.name, "cuBLASLt",
                  best_lt, "-", found);
    }
    auto report = [&](const char* tile, int splits, float us, const std::vector<float>& out) {
      double num = 0, den = 0;
      for (std::size_t i = 0; i < ref.size(); ++i) {
        num += (double(out[i]) - ref[i]) * (double(out[i]) - ref[i]);
        den += double(ref[i]) * ref[i];
      }
      char label[64];
      std::snprintf(label, sizeof label, "wgmma %s %s split %d", variant.c_str(), tile, splits);
      const double rel = std::sqrt(num / den);  // NaN where a kernel left its output unwritten
      std::printf("%-10s %-26s %9.2f %12.2e%s\n", sh.name, label, us, rel, rel < 1e-5 ? "" : "   MISMATCH");
      std::fflush(stdout);
    };
    if (variant == "1x1") run_variant<1, 1>(x, w, y, M, N, K, report);
    if (variant == "2x1") run_variant<2, 1>(x, w, y, M, N, K, report);
    if (variant == "1x4") run_variant<1, 4>(x, w, y, M, N, K, report);
    if (variant == "2x4") run_variant<2, 4>(x, w, y, M, N, K, report);
    cublasLtMatmulPreferenceDestroy(pref);
    cublasLtMatrixLayoutDestroy(la);
    cublasLtMatrixLayoutDestroy(lb);
    cublasLtMatrixLayoutDestroy(lc);
    cublasLtMatmulDescDestroy(op);
    cudaFree(x);
    cudaFree(w);
    cudaFree(y);
    cudaFree(y_ref);
  }
  cudaFree(workspace);
  cublasLtDestroy(lt);
  return 0;
}
