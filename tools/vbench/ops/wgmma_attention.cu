// cuda::wgmma_qkv_attention_forward: a layer's QKV projection and causal attention in one kernel (see
// wgmma_attention.hpp).
//
// Why: at gpt2's B=4 T=64 the qkv GEMM and the attention kernel are each mostly fixed latency (launch, first loads,
// tail; bench/RESULTS.md, session 11) for little work. Here one CTA per (batch b, head h) makes that head's q, k and
// v for the batch's T <= 64 rows and attends over them in place.
//
// A CTA has 256 threads. Warpgroup 0's thread 0 produces: TMA copies, per 64-wide K step, of the 64 x 64 tile of x
// at rows b*T.. and the head's three HS x 64 tiles of Wt (rows h*HS.., C + h*HS.., 2C + h*HS..; laid one after the
// other they are one 3*HS-row operand), 128-byte swizzle, into a ring of kStages stages with full/empty mbarriers,
// the weights of the first stages before griddepcontrol.wait (as wgmma_gemm.cu does). Warpgroup 1 consumes:
//   1. [q | k | v] = x Wt^T over K = C, one wgmma m64n(3*HS)k16 per 16 inputs, fp32 accumulators;
//   2. + bias; q scaled by log2(e)/sqrt(HS) (so exp2 gives the softmax); q and k stored K-major [row][dim] and v
//      transposed [dim][row] as bf16 tiles with the 128-byte swizzle into the ring (free by then);
//   3. s = q k^T (wgmma m64n64k16, K = HS), causal mask, row max and sum over each row's 4 lanes,
//      p = exp2(s - max) stored as bf16 [row][key];
//   4. o = p v (wgmma m64nHSk16, K = 64 keys; A = p, B = v^T), divided by the row sums, stored as bf16 rows of out.
// Rows past T belong to the next sequence (or are zeros past the last row): they are computed and never stored, and
// the mask keeps them out of every kept row (key <= query < T).
// The flop floor: 64 x 3*HS x C x 2 per CTA on one SM. Kept where the whole forward is faster with it. What was
// tried and reverted (clusters sharing q, k, v; two consumer warpgroups; the projection and second layer norm in this
// kernel) and every figure: bench/RESULTS.md, sessions 11, 13 and 25; re-measure any change here.
#include "tools/vbench/ops/wgmma_attention.hpp"

#include <atomic>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>

#include "libcommon/error.hpp"
#include "tools/vbench/cuda/cuda_error.hpp"
#include "tools/vbench/cuda/programmatic.cuh"
#include "tools/vbench/cuda/wgmma.cuh"
#include "tools/vbench/cuda/wgmma_attention.cuh"

namespace vtools::vbench::cuda {

namespace {
using namespace wgmma;  // the helpers of wgmma.cuh

// Head sizes HS: 64 (the GPT-2 family) and 32 (gpt_micro, gpt_mini, gpt_tile_medium, gpt_tile_large): the K of
// q k^T and the N of p v.
constexpr int kRows = 64;    // rows per CTA (one wgmma m64), so T <= 64
constexpr int kStages = 6;   // 6 x 32 KB for HS 64: the whole K of gpt2 (12 steps) in two turns of the ring
constexpr int kThreads = 256;

template <int HS>
struct Smem {
  __nv_bfloat16 x[kStages][kRows * kTileK];   // 8 KB each, 1024-byte aligned (the swizzle's period)
  __nv_bfloat16 w[kStages][3 * HS * kTileK];  // 3 HS rows of 128 bytes each: the head's q, k and v rows of Wt
  std::uint64_t full[kStages], empty[kStages];
};
template <int HS>
constexpr std::size_t kSmemBytes = sizeof(Smem<HS>) + 1024;  // + aligning the dynamic shared memory base to 1024

// Built with -DVTOOLS_QKV_TIMELINE (bench/qkv_timeline.sh), the kernel prints the clock64 cycles of its phases, as
// seen by the first consumer thread, for the last CTA of every launch and the first CTA of every 613th: the way to see
// where its time goes (ncu's replays change it). Off, TL() is nothing.
#ifdef VTOOLS_QKV_TIMELINE
__device__ unsigned int g_timeline_calls;
#define TL(i) (stamp[i] = clock64())
#else
#define TL(i) ((void)0)
#endif

/// Grid (NH, B); see the top of the file.
template <int HS>
__global__ void __launch_bounds__(kThreads, 1)
    wgmma_qkv_attention_kernel(const __grid_constant__ CUtensorMap x_map, const __grid_constant__ CUtensorMap w_map,
                               __nv_bfloat16* out, const __nv_bfloat16* bias, int T, int C) {
#ifdef VTOOLS_WGMMA
  extern __shared__ unsigned char raw[];
  auto& s = aligned_shared<Smem<HS>>(raw);
  const int h = blockIdx.x, b = blockIdx.y;
  const int k_tiles = (C + kTileK - 1) / kTileK;  // past C the copies read zeros
#ifdef VTOOLS_QKV_TIMELINE
  long long stamp[10] = {};
  unsigned long long gt0;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(gt0));
#endif
  TL(0);
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
  if (threadIdx.x == 0) {
    for (int i = 0; i < kStages; ++i) {
      mbar_init(&s.full[i], 1);
      mbar_init(&s.empty[i], 4);  // one arrival per consumer warp
    }
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  __syncthreads();
  if (threadIdx.x == 0) {  // the producer
    constexpr std::uint32_t kStageBytes = (kRows + 3 * HS) * kTileK * sizeof(__nv_bfloat16);
    auto load_w = [&](int t) {
      const int st = t % kStages;
      mbar_expect_tx(&s.full[st], kStageBytes);
      for (int part = 0; part < 3; ++part) {
        tma_load(s.w[st] + part * HS * kTileK, &w_map, t * kTileK, part * C + h * HS, &s.full[st], 0);
      }
    };
    auto load_x = [&](int t) { tma_load(s.x[t % kStages], &x_map, t * kTileK, b * T, &s.full[t % kStages], 0); };
    produce<kStages>(k_tiles, s.empty, load_w, load_x);
    return;
  }
  if (threadIdx.x < 128) return;  // warpgroup 0's other threads have nothing to do
  // The head's q, k and v biases (read after the K loop) into L2 now: never written, and otherwise a cold HBM read
  // on the critical path.
  if (threadIdx.x < 128 + 3) {
    const int part = threadIdx.x - 128;
    for (int off = 0; off < HS; off += 64) {
      asm volatile("prefetch.global.L2 [%0];" ::"l"(bias + part * C + h * HS + off));
    }
  }
  const int w = (threadIdx.x % 128) / 32, lane = threadIdx.x % 32;
  // 1. [q | k | v] for the 64 rows, one group of wgmmas in flight (as wgmma_gemm.cu's main loop).
  float d[3 * HS / 2];
#pragma unroll
  for (int i = 0; i < 3 * HS / 2; ++i) d[i] = 0.f;
  TL(1);
  for (int t = 0; t < k_tiles; ++t) {
    const int st = t % kStages;
    mbar_wait(&s.full[st], (t / kStages) & 1);
    if (t == 0) TL(2);
    if (t == kStages || (t == k_tiles - 1 && k_tiles <= kStages)) TL(3);  // the ring's second turn (or last stage)
    fence_operands(d);
    asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
    const std::uint64_t da = descriptor(s.x[st]), db = descriptor(s.w[st]);
#pragma unroll
    for (int kk = 0; kk < kTileK / 16; ++kk) wgmma_k16<3 * HS>(d, da + 2 * kk, db + 2 * kk);
    asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
    asm volatile("wgmma.wait_group.sync.aligned 1;" ::: "memory");
    fence_operands(d);
    if (t > 0 && lane == 0) mbar_arrive(&s.empty[(t - 1) % kStages]);
  }
  asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
  fence_operands(d);
  TL(4);
  // Every copy has landed and been read: the ring now holds q [row][dim] (x[0]), p [row][key] (x[1]), k [key][dim]
  // and v^T [dim][key] (w[0], 64 + HS rows of 128 bytes); each HS-wide tile uses the first HS columns of its rows.
  static_assert(kStages >= 2, "q and p take two stages' x tiles");
  __nv_bfloat16* q_tile = s.x[0];
  __nv_bfloat16* p_tile = s.x[1];
  __nv_bfloat16* k_tile = s.w[0];
  __nv_bfloat16* vt_tile = s.w[0] + kRows * kTileK;
  float o[HS / 2], row_sum[2];
  attend_head<HS>(d, bias + h * HS, C, q_tile, k_tile, vt_tile, p_tile, w, lane, o, row_sum, [&](int i) {
    (void)i;
    TL(i);
  });
  const int r_top = 16 * w + lane / 4, c_lane = 2 * (lane % 4);
  asm volatile("griddepcontrol.wait;" ::: "memory");  // out: the kernel before may still read it (long since done)
#pragma unroll
  for (int half = 0; half < 2; ++half) {
    const int t = r_top + 8 * half;
    if (t >= T) continue;
    const float inv = 1.f / row_sum[half];
    __nv_bfloat16* row = out + (static_cast<std::size_t>(b) * T + t) * C + h * HS;
#pragma unroll
    for (int j = 0; j < HS / 8; ++j) {
      *reinterpret_cast<__nv_bfloat162*>(row + 8 * j + c_lane) =
          __floats2bfloat162_rn(o[4 * j + 2 * half] * inv, o[4 * j + 2 * half + 1] * inv);
    }
  }
#ifdef VTOOLS_QKV_TIMELINE
  TL(8);
  unsigned long long gt1;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(gt1));
  if (threadIdx.x == 128 && ((h == 0 && b == 0) || (h == gridDim.x - 1 && b == gridDim.y - 1))) {
    const unsigned call = h == 0 ? atomicAdd(&g_timeline_calls, 1) : 0;
    if (h != 0 || call % 613 == 300) {
      printf("QKVTL h%d b%d ns %llu cycles: init %lld first-stage %lld ring %lld loop %lld qkv-tiles %lld softmax %lld "
             "pv %lld out %lld\n",
             h, b, gt1 - gt0, stamp[1] - stamp[0], stamp[2] - stamp[1], stamp[3] - stamp[2], stamp[4] - stamp[3],
             stamp[5] - stamp[4], stamp[6] - stamp[5], stamp[7] - stamp[6], stamp[8] - stamp[7]);
    }
  }
#endif
#endif  // VTOOLS_WGMMA
}

}  // namespace

bool wgmma_qkv_attention_takes(int B, int T, int C, int NH) {
  return B > 0 && T > 0 && T <= kRows && NH > 0 && (C == NH * 64 || C == NH * 32);
}

namespace {
template <int HS>
void launch(__nv_bfloat16* d_out, const __nv_bfloat16* d_x, const __nv_bfloat16* d_wt, const __nv_bfloat16* d_bias,
            int B, int T, int C, int NH, cudaStream_t stream, const std::string& what) {
  static std::atomic<std::uint64_t> attributes_done{0};
  if (!kernel_attributes_once(wgmma_qkv_attention_kernel<HS>, attributes_done, {kSmemBytes<HS>})) {
    throw Error(ExitCode::kInternal, "the device refuses the shared memory of " + what);
  }
  const CUtensorMap x_map = tensor_map(d_x, B * T, C, kRows, what);
  const CUtensorMap w_map = tensor_map(d_wt, 3 * C, C, HS, what);
  // Always a programmatic dependent: the producer copies the first weight tiles before griddepcontrol.wait.
  launch_kernel(wgmma_qkv_attention_kernel<HS>, dim3(NH, B), kThreads, kSmemBytes<HS>, stream, true, what.c_str(),
                x_map, w_map, d_out, d_bias, T, C);
}
}  // namespace

void wgmma_qkv_attention_forward(__nv_bfloat16* d_out, const __nv_bfloat16* d_x, const __nv_bfloat16* d_wt,
                                 const __nv_bfloat16* d_bias, int B, int T, int C, int NH, cudaStream_t stream) {
  const std::string what = "wgmma_qkv_attention_kernel B=" + std::to_string(B) + " T=" + std::to_string(T) +
                           " C=" + std::to_string(C) + " NH=" + std::to_string(NH);
  if (!wgmma_qkv_attention_takes(B, T, C, NH)) {
    throw Error(ExitCode::kInternal, "wgmma_qkv_attention_forward does not take " + what);
  }
  if (C == NH * 64) return launch<64>(d_out, d_x, d_wt, d_bias, B, T, C, NH, stream, what);
  launch<32>(d_out, d_x, d_wt, d_bias, B, T, C, NH, stream, what);
}

}  // namespace vtools::vbench::cuda
