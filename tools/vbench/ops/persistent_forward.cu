// cuda::PersistentForward: the layers of a bf16 GPT forward as one persistent kernel (see persistent_forward.hpp).
//
// Why: at gpt2's B=4 T=64 the unfused forward is 75 kernels that run back to back, each mostly fixed cost (launch,
// first loads from HBM, tail), more than the weights' HBM time per layer (bench/RESULTS.md, session 13). Here a CTA
// per SM (grid = SM count, one CTA per SM by its shared memory, launched cooperatively so that
// all are resident) runs a static list of tasks in the forward's order, task i on CTA i mod grid:
//   per layer: layer norm 1 (4 rows a task; layer 0's first adds the embeddings) -> qkv + attention (one (batch,
//   head) a task, attend_head as wgmma_attention.cu) -> attention projection (64 x bn tiles, K split in 4 fp32 partial
//   planes) -> layer norm 2 (adds the partials and the bias to the residual) -> fc + bias + GELU (64 x bn tiles)
//   -> fc projection (64 x bn tiles, K split in 4); then the final layer norm into model.ln. bn: 96 or 128.
// A task waits for counters (one per layer, step and 64-row block) to reach their counts, and adds one to its own
// when its results are stored (stores, a barrier of the consumer warpgroup, a release add by one thread). Each waits
// only for tasks before it in the list, and each CTA takes its tasks in list order, so the earliest unfinished task
// can always run: no deadlock while all CTAs are resident. The last CTA to finish zeroes the counters for the next
// forward (the kernel after it in the stream starts only when this one has ended).
// A CTA has 256 threads: thread 0 copies weight tiles (TMA) into a ring of kStages stages as soon as a stage is
// free, whatever the task waits for (weights are never written), thread 32 waits for the task's counters and then
// copies its activation tiles into the same stages (each stage's full barrier takes both arrivals), and warpgroup 1
// computes: wgmma from the ring, the epilogue from registers, the layer norms with plain loads (.cg: other SMs wrote
// those rows). Reads of other CTAs' results by TMA come after a proxy fence (reader side).
// Correct, but slower than the kernel-per-step forward on the H100, so ForwardSearch does not keep it: each step
// takes as long as the kernel it replaces and a counter edge costs what a programmatic kernel boundary does
// (bench/RESULTS.md, session 14; per-task times: CudaOptions::persistent_trace, VTOOLS_VBENCH_PERSISTENT_TRACE).
#include "tools/vbench/ops/persistent_forward.hpp"

#include <cuda.h>
#include <cuda_bf16.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

#include "libcommon/error.hpp"
#include "libcommon/output_file.hpp"
#include "tools/vbench/cuda/cuda_error.hpp"
#include "tools/vbench/cuda/kernel_math.cuh"
#include "tools/vbench/cuda/programmatic.cuh"
#include "tools/vbench/cuda/wgmma.cuh"
#include "tools/vbench/cuda/wgmma_attention.cuh"
#include "tools/vbench/ops/wgmma_gemm.hpp"

namespace vtools::vbench::cuda {

namespace {
using namespace wgmma;  // the helpers of wgmma.cuh

constexpr int kHS = 64;          // head size
constexpr int kRows = 64;        // rows per GEMM tile and per qkv task: one wgmma m64
// GEMM tile width: 96 where the widths allow it (gpt2: 128 tiles per step for 132 SMs, against 96 tiles of 128,
// each 25% less work), else 128 (kernel parameter bn).
constexpr int kMaxBN = 128;

/// The GEMM tile width for width C: 96 where C (and so 4C) is a multiple of it, else 128.
constexpr int tile_width(int C) { return C % 96 == 0 ? 96 : 128; }
constexpr int kSplits = 4;       // K split of both projections into fp32 partial planes
constexpr int kNormRows = 4;     // rows per layer-norm task: one per consumer warp
constexpr int kMaxC = 1024;      // a layer-norm lane holds C / 128 float4s: 2, 4, 6 or 8
constexpr int kStages = 6;
constexpr int kThreads = 256;

enum TaskKind : int { kNorm, kQkvAttention, kProjection, kFc };
// The counters' steps within a layer; the final layer norm uses step kNorm1Done of layer n_layer (never waited for).
enum Step : int { kNorm1Done, kQkvDone, kProjDone, kNorm2Done, kFcDone, kFcProjDone, kStepCount };

struct Task {
  int kind;
  int m0;           ///< first row: of the 64-row block (GEMMs), of the sequence (qkv), of kNormRows rows (norm)
  int n0;           ///< first output column (GEMMs: W rows), or the head (qkv)
  int k0, k_tiles;  ///< K range in 64-wide steps (GEMMs, qkv)
  int a_map, w_map;  ///< tensor map indices (GEMMs, qkv)
  int wait[2];      ///< counter indices, -1: none
  unsigned wait_for[2];  ///< the count each must reach
  int signal[2];    ///< counters to add 1 to when done, -1: none
  int splits;       ///< norm: partial planes to add to the residual (0: none)
  int embed;        ///< norm: the residual starts as wte[token] + wpe[t] (layer 0's first)
  int ld;           ///< output row stride in elements
  void* out;        ///< qkv: attention out (bf16); projection: its partial plane (fp32); fc: hidden; norm: ln
  const __nv_bfloat16* bias;  ///< qkv [3C], fc [4C]; norm: the added projection's bias (with splits)
  const float* norm_w;
  const float* norm_b;
};

/// The trace's stamps per task: taken up, inputs ready, first data in the ring (layer norm: its loads done), math
/// done, results stored, counters signalled.
enum TraceSlot : int { kTaken, kReady, kFirstData, kMathDone, kStored, kSignalled, kTraceSlots };

struct Params {
  const Task* tasks;
  int task_count;
  const CUtensorMap* maps;
  unsigned* counters;
  int counter_count;
  unsigned* finished;  ///< CTAs done with this forward
  float* residual;
  const float* partials;  ///< kSplits planes of [M][C]
  const int* tokens;
  const __nv_bfloat16* wte;
  const __nv_bfloat16* wpe;
  int M, T, C;
  int bn;  ///< GEMM tile width, tile_width(C)
  /// VTOOLS_VBENCH_PERSISTENT_TRACE: per task, kTraceSlots globaltimer ns (see TraceSlot)
  unsigned long long* trace;
};

struct Smem {
  __nv_bfloat16 a[kStages][kRows * kTileK];    // 8 KB each, 1024-byte aligned (the swizzle's period)
  __nv_bfloat16 w[kStages][3 * kHS * kTileK];  // 24 KB: qkv's three HS-row tiles, or a GEMM's 128 rows
  __nv_bfloat16 q[kRows * kTileK], k[kRows * kTileK], vt[kHS * kTileK], p[kRows * kTileK];  // attention
  std::uint64_t full[kStages], empty[kStages];
};
constexpr std::size_t kSmemBytes = sizeof(Smem) + 1024;  // + aligning the dynamic shared memory base to 1024
static_assert(kSmemBytes <= 227 * 1024, "over the H100's shared memory per CTA");
static_assert(kMaxBN <= 3 * kHS, "a GEMM's weight tile fits in a stage's w");

#ifdef VTOOLS_WGMMA
constexpr int kWProducer = 0, kAProducer = 32, kConsumer0 = 128;  // the threads' roles

__device__ __forceinline__ unsigned long long global_ns() {
  unsigned long long now;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
  return now;
}

/// The small parameters task t reads (biases, layer-norm weights) into L2 by the consumer warpgroup, fire and
/// forget: issued a task ahead, they are not an HBM round trip on the task's critical path (they were: 1-2 us each).
__device__ __forceinline__ void prefetch_params_l2(const Task& t, const Params& p) {
  const int tid = threadIdx.x - kConsumer0;
  auto lines = [tid](const void* base, int bytes) {
    for (int off = 128 * tid; off < bytes; off += 128 * 128) {
      asm volatile("prefetch.global.L2 [%0];" ::"l"(static_cast<const char*>(base) + off));
    }
  };
  const int C = p.C;
  if (t.kind == kNorm) {
    lines(t.norm_w, 4 * C);
    lines(t.norm_b, 4 * C);
    if (t.splits > 0) lines(t.bias, 2 * C);
  } else if (t.kind == kQkvAttention) {
    for (int part = 0; part < 3; ++part) lines(t.bias + part * C + t.n0 * kHS, 2 * kHS);
  } else if (t.kind == kFc) {
    lines(t.bias + t.n0, 2 * p.bn);
  }
}

/// The consumer's stamp `slot` of the current task, where tracing.
__device__ __forceinline__ void stamp(unsigned long long* trace, int slot) {
  if (trace != nullptr && threadIdx.x == kConsumer0) trace[slot] = global_ns();
}

/// A relaxed load for spinning: an acquire load each turn would cost an L1 invalidation each turn.
__device__ __forceinline__ unsigned load_relaxed(const unsigned* p) {
  unsigned v;
  asm volatile("ld.relaxed.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}

/// Spins until every counter the task waits for has reached its count. A wait over 5 s means a broken task list:
/// trap (the launch fails with an error) rather than hang the GPU.
__device__ __forceinline__ void wait_for_inputs(const Task& t, const unsigned* counters) {
#pragma unroll
  for (int i = 0; i < 2; ++i) {
    if (t.wait[i] < 0) continue;
    unsigned long long start = 0;
    for (unsigned spins = 0; load_relaxed(counters + t.wait[i]) < t.wait_for[i]; ++spins) {
      if (spins % 1024 != 0) continue;
      const unsigned long long now = global_ns();
      if (start == 0) start = now;
      if (now - start > 5000000000ull) __trap();
    }
  }
  asm volatile("fence.acq_rel.gpu;" ::: "memory");  // the acquire for every relaxed load that saw the count
}

/// The consumer warpgroup's results are stored: the warpgroup meets, and one thread publishes them (release add,
/// cumulative over the stores the barrier ordered before it) to the task's counters. The readers fence the async
/// proxy before their TMA copies (a proxy fence in each of the 128 writing threads instead made every task ~10 us
/// slower on the H100).
__device__ __forceinline__ void signal_done(const Task& t, unsigned* counters) {
  asm volatile("bar.sync 1, 128;" ::: "memory");
  if (threadIdx.x != kConsumer0) return;
#pragma unroll
  for (int i = 0; i < 2; ++i) {
    if (t.signal[i] < 0) continue;
    asm volatile("red.release.gpu.global.add.u32 [%0], 1;" ::"l"(counters + t.signal[i]) : "memory");
  }
}

/// d = A . W^T over the task's k_tiles ring stages (uses `use`, `use` + 1, ... of the ring), one group of wgmmas in
/// flight; each stage released to both producers once read.
template <int BN>
__device__ __forceinline__ void mainloop(float (&d)[BN / 2], Smem& s, unsigned& use, int k_tiles, int lane,
                                         unsigned long long* trace) {
#pragma unroll
  for (int i = 0; i < BN / 2; ++i) d[i] = 0.f;
  for (int t = 0; t < k_tiles; ++t, ++use) {
    const int st = use % kStages;
    mbar_wait(&s.full[st], (use / kStages) & 1);
    if (t == 0) stamp(trace, kFirstData);
    fence_operands(d);
    asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
    const std::uint64_t da = descriptor(s.a[st]), db = descriptor(s.w[st]);
#pragma unroll
    for (int kk = 0; kk < kTileK / 16; ++kk) wgmma_k16<BN>(d, da + 2 * kk, db + 2 * kk);
    asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
    asm volatile("wgmma.wait_group.sync.aligned 1;" ::: "memory");
    fence_operands(d);
    if (t > 0 && lane == 0) mbar_arrive(&s.empty[(use - 1) % kStages]);
  }
  asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
  fence_operands(d);
  if (k_tiles > 0 && lane == 0) mbar_arrive(&s.empty[(use - 1) % kStages]);
  stamp(trace, kMathDone);
}

/// A 64 x BN GEMM tile: fp32 into a partial plane, or + bias and GELU into bf16 hidden.
/// Every task field is read once, up front: after a store (which might alias it, for the compiler) or an asm memory
/// clobber it would be read again, from L2 (each fence.acq_rel empties L1): that made each task several us slower.
template <int kBN>
__device__ __forceinline__ void gemm_task(const Task& t, const Params& p, Smem& s, unsigned& use, int w, int lane,
                                          unsigned long long* trace) {
  const bool fc = t.kind == kFc;
  const int m0 = t.m0, n0 = t.n0, ld = t.ld, k_tiles = t.k_tiles;
  void* const out = t.out;
  const __nv_bfloat16* const bias = t.bias;
  const int r_top = m0 + 16 * w + lane / 4, c_lane = 2 * (lane % 4);
  float d[kBN / 2];
  mainloop<kBN>(d, s, use, k_tiles, lane, trace);
  float2 bias_at[kBN / 8];
  if (fc) {
#pragma unroll
    for (int j = 0; j < kBN / 8; ++j) {
      bias_at[j] = __bfloat1622float2(__ldg(reinterpret_cast<const __nv_bfloat162*>(bias + n0 + 8 * j + c_lane)));
    }
  }
#pragma unroll
  for (int half = 0; half < 2; ++half) {
    const int r = r_top + 8 * half;
    if (r >= p.M) continue;
#pragma unroll
    for (int j = 0; j < kBN / 8; ++j) {
      const std::size_t at = static_cast<std::size_t>(r) * ld + n0 + 8 * j + c_lane;
      const float v0 = d[4 * j + 2 * half], v1 = d[4 * j + 2 * half + 1];
      if (!fc) {
        *reinterpret_cast<float2*>(static_cast<float*>(out) + at) = make_float2(v0, v1);
      } else {
        *reinterpret_cast<__nv_bfloat162*>(static_cast<__nv_bfloat16*>(out) + at) = __floats2bfloat162_rn(
            gelu_tanh_bf16(v0 + bias_at[j].x), gelu_tanh_bf16(v1 + bias_at[j].y));
      }
    }
  }
}

/// One (batch, head): q, k, v from the ring, then causal attention in the CTA's attention tiles (attend_head, shared
/// with wgmma_attention.cu's kernel).
__device__ __forceinline__ void qkv_attention_task(const Task& t, const Params& p, Smem& s, unsigned& use, int w,
                                                   int lane, unsigned long long* trace) {
  const int h = t.n0, m0 = t.m0, k_tiles = t.k_tiles, T = p.T, C = p.C;  // read once (see gemm_task)
  __nv_bfloat16* const out = static_cast<__nv_bfloat16*>(t.out);
  const __nv_bfloat16* const bias = t.bias + h * kHS;
  float d[3 * kHS / 2];
  mainloop<3 * kHS>(d, s, use, k_tiles, lane, trace);
  float o[kHS / 2], row_sum[2];
  attend_head<kHS>(d, bias, C, s.q, s.k, s.vt, s.p, w, lane, o, row_sum, [](int) {});
  const int r_top = 16 * w + lane / 4, c_lane = 2 * (lane % 4);
#pragma unroll
  for (int half = 0; half < 2; ++half) {
    const int i = r_top + 8 * half;
    if (i >= T || m0 + i >= p.M) continue;
    const float inv = 1.f / row_sum[half];
    __nv_bfloat16* row = out + static_cast<std::size_t>(m0 + i) * C + h * kHS;
#pragma unroll
    for (int j = 0; j < kHS / 8; ++j) {
      *reinterpret_cast<__nv_bfloat162*>(row + 8 * j + c_lane) =
          __floats2bfloat162_rn(o[4 * j + 2 * half] * inv, o[4 * j + 2 * half + 1] * inv);
    }
  }
}

__device__ __forceinline__ float4 bf16x4_to_float4(uint2 q) {
  const float2 lo = __bfloat1622float2(*reinterpret_cast<const __nv_bfloat162*>(&q.x));
  const float2 hi = __bfloat1622float2(*reinterpret_cast<const __nv_bfloat162*>(&q.y));
  return make_float4(lo.x, lo.y, hi.x, hi.y);
}
__device__ __forceinline__ void add4(float4& a, float4 b) { a.x += b.x, a.y += b.y, a.z += b.z, a.w += b.w; }

/// Row m0 + w of the task (one per consumer warp), N float4s per lane (C = 128 N): residual (+= bias + partials, or
/// = the embeddings), then its layer norm in bf16, two-pass in fp32 as layernorm_forward. The norm's parameters are
/// loaded before the wait (they depend on nothing); the row's loads (ld.global.cg: other SMs wrote them) all before
/// any use or store, so they are in flight together (a store or a use in between held the ones after it: ~2.7 us
/// for 6 round trips).
template <int N>
__device__ __forceinline__ void norm_row(const Task& t, const Params& p, int w, int lane, unsigned long long* trace) {
  const int C = N * 128, r = t.m0 + w, splits = t.splits;
  const bool embed = t.embed != 0;
  __nv_bfloat16* const out = static_cast<__nv_bfloat16*>(t.out);
  // Up to C = 512 the norm's weight and bias stay in registers across the wait; wider rows load them at the end
  // (from L2: prefetch_params_l2), as holding them too spilled.
  constexpr bool kEarly = N <= 4;
  float4 g[N], b[N], add[N];
  auto load_norm = [&] {
#pragma unroll
    for (int i = 0; i < N; ++i) {
      g[i] = __ldg(reinterpret_cast<const float4*>(t.norm_w + 4 * (lane + 32 * i)));
      b[i] = __ldg(reinterpret_cast<const float4*>(t.norm_b + 4 * (lane + 32 * i)));
    }
  };
  if constexpr (kEarly) load_norm();
#pragma unroll
  for (int i = 0; i < N; ++i) {
    const int c = 4 * (lane + 32 * i);
    add[i] = splits > 0 ? bf16x4_to_float4(__ldg(reinterpret_cast<const uint2*>(t.bias + c))) : make_float4(0, 0, 0, 0);
  }
  if (threadIdx.x == kConsumer0) {
    wait_for_inputs(t, p.counters);
    stamp(trace, kReady);
  }
  asm volatile("bar.sync 1, 128;" ::: "memory");
  if (r >= p.M) return;
  float* res = p.residual + static_cast<std::size_t>(r) * C;
  float4 x[N], part[kSplits / 2][N];
  if (embed) {
    const long long token = p.tokens[r];
#pragma unroll
    for (int i = 0; i < N; ++i) {
      const int c = 4 * (lane + 32 * i);
      x[i] = bf16x4_to_float4(__ldg(reinterpret_cast<const uint2*>(p.wte + token * C + c)));
      add[i] = bf16x4_to_float4(__ldg(reinterpret_cast<const uint2*>(p.wpe + static_cast<long long>(r % p.T) * C + c)));
    }
  } else {
#pragma unroll
    for (int i = 0; i < N; ++i) x[i] = __ldcg(reinterpret_cast<const float4*>(res + 4 * (lane + 32 * i)));
  }
  // The partial planes in two halves, each half's loads in flight together (all four at once spilled registers).
  const std::size_t plane = static_cast<std::size_t>(p.M) * C;
  const float* at = p.partials + static_cast<std::size_t>(r) * C;
#pragma unroll
  for (int half = 0; half < 2; ++half) {
    if (splits == 0) break;
#pragma unroll
    for (int sp = 0; sp < kSplits / 2; ++sp) {
#pragma unroll
      for (int i = 0; i < N; ++i) {
        const float* q = at + (half * kSplits / 2 + sp) * plane + 4 * (lane + 32 * i);
        part[sp][i] = __ldcg(reinterpret_cast<const float4*>(q));
      }
    }
#pragma unroll
    for (int i = 0; i < N; ++i) {
#pragma unroll
      for (int sp = 0; sp < kSplits / 2; ++sp) add4(x[i], part[sp][i]);
    }
  }
  float sum = 0.f;
#pragma unroll
  for (int i = 0; i < N; ++i) {
    add4(x[i], add[i]);
    sum += x[i].x + x[i].y + x[i].z + x[i].w;
  }
  const float mean = warp_sum(sum) / C;
  stamp(trace, kFirstData);
  if (embed || splits > 0) {
#pragma unroll
    for (int i = 0; i < N; ++i) __stcg(reinterpret_cast<float4*>(res + 4 * (lane + 32 * i)), x[i]);
  }
  float squares = 0.f;
#pragma unroll
  for (int i = 0; i < N; ++i) {
    const float dx = x[i].x - mean, dy = x[i].y - mean, dz = x[i].z - mean, dw = x[i].w - mean;
    squares += dx * dx + dy * dy + dz * dz + dw * dw;
  }
  const float rstd = rsqrtf(warp_sum(squares) / C + 1e-5f);
  stamp(trace, kMathDone);
  if constexpr (!kEarly) load_norm();  // ld.global.nc: not held behind the residual's stores
  __nv_bfloat16* o = out + static_cast<std::size_t>(r) * C;
#pragma unroll
  for (int i = 0; i < N; ++i) {
    uint2 q;
    *reinterpret_cast<__nv_bfloat162*>(&q.x) = __floats2bfloat162_rn((x[i].x - mean) * rstd * g[i].x + b[i].x,
                                                                    (x[i].y - mean) * rstd * g[i].y + b[i].y);
    *reinterpret_cast<__nv_bfloat162*>(&q.y) = __floats2bfloat162_rn((x[i].z - mean) * rstd * g[i].z + b[i].z,
                                                                    (x[i].w - mean) * rstd * g[i].w + b[i].w);
    *reinterpret_cast<uint2*>(o + 4 * (lane + 32 * i)) = q;
  }
}

/// A layer-norm task: its rows at the width the kernel takes (persistent_forward_takes: C = 256, 512, 768, 1024).
__device__ __forceinline__ void norm_task(const Task& t, const Params& p, int w, int lane, unsigned long long* trace) {
  switch (p.C / 128) {
    case 2: return norm_row<2>(t, p, w, lane, trace);
    case 4: return norm_row<4>(t, p, w, lane, trace);
    case 6: return norm_row<6>(t, p, w, lane, trace);
    default: return norm_row<8>(t, p, w, lane, trace);
  }
}
#endif  // VTOOLS_WGMMA

__global__ void __launch_bounds__(kThreads, 1) persistent_forward_kernel(const Params p) {
#ifdef VTOOLS_WGMMA
  extern __shared__ unsigned char raw[];
  auto& s = aligned_shared<Smem>(raw);
  if (threadIdx.x == 0) {
    for (int i = 0; i < kStages; ++i) {
      mbar_init(&s.full[i], 2);   // the weight producer's and the activation producer's arrivals
      mbar_init(&s.empty[i], 4);  // one per consumer warp
    }
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  __syncthreads();
  if (threadIdx.x == kWProducer || threadIdx.x == kAProducer) {
    const bool weights = threadIdx.x == kWProducer;
    unsigned use = 0;
    for (int i = blockIdx.x; i < p.task_count; i += gridDim.x) {
      const Task& t = p.tasks[i];
      const int kind = t.kind, k_tiles = t.k_tiles, k0 = t.k0, m0 = t.m0, n0 = t.n0;  // once (see gemm_task)
      if (kind == kNorm) continue;
      const CUtensorMap* map = p.maps + (weights ? t.w_map : t.a_map);
      if (!weights) {
        wait_for_inputs(t, p.counters);
        if (p.trace != nullptr) p.trace[kTraceSlots * i + kReady] = global_ns();
        asm volatile("fence.proxy.async.global;" ::: "memory");  // other CTAs' stores before this CTA's TMA reads
      }
      for (int k = 0; k < k_tiles; ++k, ++use) {
        const int st = use % kStages;
        if (use >= kStages) mbar_wait(&s.empty[st], (use / kStages - 1) & 1);
        const int x = k0 + k * kTileK;
        if (!weights) {
          mbar_expect_tx(&s.full[st], kRows * kTileK * sizeof(__nv_bfloat16));
          tma_load(s.a[st], map, x, m0, &s.full[st], 0);
        } else if (kind == kQkvAttention) {  // the head's q, k and v rows of Wt, one after the other
          mbar_expect_tx(&s.full[st], 3 * kHS * kTileK * sizeof(__nv_bfloat16));
          for (int part = 0; part < 3; ++part) {
            tma_load(s.w[st] + part * kHS * kTileK, map, x, part * p.C + n0 * kHS, &s.full[st], 0);
          }
        } else {
          mbar_expect_tx(&s.full[st], p.bn * kTileK * sizeof(__nv_bfloat16));
          tma_load(s.w[st], map, x, n0, &s.full[st], 0);
        }
      }
    }
  } else if (threadIdx.x >= kConsumer0) {
    const int w = (threadIdx.x - kConsumer0) / 32, lane = threadIdx.x % 32;
    unsigned use = 0;
    for (int i = blockIdx.x; i < p.task_count; i += gridDim.x) {
      const Task& t = p.tasks[i];
      unsigned long long* trace = p.trace != nullptr ? p.trace + kTraceSlots * i : nullptr;
      stamp(trace, kTaken);
      if (i < static_cast<int>(gridDim.x)) prefetch_params_l2(t, p);
      if (i + static_cast<int>(gridDim.x) < p.task_count) prefetch_params_l2(p.tasks[i + gridDim.x], p);
      if (t.kind == kNorm) {
        norm_task(t, p, w, lane, trace);
      } else if (t.kind == kQkvAttention) {
        qkv_attention_task(t, p, s, use, w, lane, trace);
      } else {
        if (p.bn == 96) {
          gemm_task<96>(t, p, s, use, w, lane, trace);
        } else {
          gemm_task<128>(t, p, s, use, w, lane, trace);
        }
      }
      stamp(trace, kStored);
      signal_done(t, p.counters);
      stamp(trace, kSignalled);
    }
    // The last CTA to finish zeroes the counters for the next forward: no CTA reads them any more (a CTA's
    // producers are done with them before its consumers take their last task's tiles).
    asm volatile("bar.sync 1, 128;" ::: "memory");
    if (threadIdx.x == kConsumer0) {
      __threadfence();
      if (atomicAdd(p.finished, 1u) == gridDim.x - 1) {
        for (int i = 0; i < p.counter_count; ++i) p.counters[i] = 0;
        *p.finished = 0;
        __threadfence();
      }
    }
  }
#endif  // VTOOLS_WGMMA
}

/// The task list in the forward's order (see the top of the file).
std::vector<Task> make_tasks(const PersistentModel& m, float* partials, int& counter_count) {
  const int M = m.B * m.T, C = m.C, L = static_cast<int>(m.layers.size());
  const int blocks = (M + kRows - 1) / kRows;
  auto counter = [&](int layer, Step step, int mb) { return (layer * kStepCount + step) * blocks + mb; };
  counter_count = (L + 1) * kStepCount * blocks;
  auto norms_in = [&](int mb) {
    return static_cast<unsigned>((std::min(kRows, M - mb * kRows) + kNormRows - 1) / kNormRows);
  };
  // qkv task b reads x rows [b*T, min(b*T + 64, M)): the blocks it waits for, and counts in.
  auto read_blocks = [&](int b) {
    const int first = b * m.T / kRows, last = (std::min(b * m.T + kRows, M) - 1) / kRows;
    return std::pair<int, int>{first, last};
  };
  std::vector<unsigned> qkv_per_block(blocks, 0);
  for (int b = 0; b < m.B; ++b) {
    const auto [first, last] = read_blocks(b);
    for (int mb = first; mb <= last; ++mb) qkv_per_block[mb] += m.NH;
  }
  const int bn = tile_width(C);
  const unsigned proj_tiles = C / bn * kSplits, fc_tiles = 4 * C / bn;
  constexpr int kXMap = 0, kAttnMap = 1, kHiddenMap = 2;
  auto weight_map = [](int layer, int i) { return 3 + 4 * layer + i; };
  const std::size_t plane = static_cast<std::size_t>(M) * C;
  std::vector<Task> tasks;
  auto blank = [] {
    Task t{};
    t.wait[0] = t.wait[1] = t.signal[0] = t.signal[1] = -1;
    return t;
  };
  // Layer-norm tasks into m.ln: of the embeddings (layer 0's first), or of the residual plus the partial planes and
  // `add_bias` (the projection before).
  auto norms = [&](int layer, Step done, int wait_layer, Step wait_step, unsigned wait_for, bool embed,
                   const __nv_bfloat16* add_bias, const float* w, const float* b) {
    for (int r0 = 0; r0 < M; r0 += kNormRows) {
      Task t = blank();
      t.kind = kNorm, t.m0 = r0, t.embed = embed ? 1 : 0, t.ld = C, t.out = m.ln;
      t.splits = embed ? 0 : kSplits, t.bias = add_bias, t.norm_w = w, t.norm_b = b;
      if (wait_layer >= 0) t.wait[0] = counter(wait_layer, wait_step, r0 / kRows), t.wait_for[0] = wait_for;
      t.signal[0] = counter(layer, done, r0 / kRows);
      tasks.push_back(t);
    }
  };
  for (int l = 0; l < L; ++l) {
    const PersistentLayer& w = m.layers[l];
    if (l == 0) {
      norms(0, kNorm1Done, -1, kNorm1Done, 0, true, nullptr, w.ln1_w, w.ln1_b);
    } else {
      norms(l, kNorm1Done, l - 1, kFcProjDone, proj_tiles, false, m.layers[l - 1].fc_proj_b, w.ln1_w, w.ln1_b);
    }
    for (int b = 0; b < m.B; ++b) {
      const auto [first, last] = read_blocks(b);
      for (int h = 0; h < m.NH; ++h) {
        Task t = blank();
        t.kind = kQkvAttention, t.m0 = b * m.T, t.n0 = h, t.k_tiles = C / kTileK, t.a_map = kXMap;
        t.w_map = weight_map(l, 0), t.ld = C, t.out = m.attn, t.bias = w.attn_b;
        t.wait[0] = counter(l, kNorm1Done, first), t.wait_for[0] = norms_in(first);
        t.signal[0] = counter(l, kQkvDone, first);
        if (last != first) {
          t.wait[1] = counter(l, kNorm1Done, last), t.wait_for[1] = norms_in(last);
          t.signal[1] = counter(l, kQkvDone, last);
        }
        tasks.push_back(t);
      }
    }
    // A projection's tiles: 64 rows x bn columns x a quarter of K, into partial plane `split`.
    auto projections = [&](Step wait_step, const std::vector<unsigned>& wait_for, int a_map, int w_map, int K,
                           Step done) {
      for (int mb = 0; mb < blocks; ++mb) {
        for (int n0 = 0; n0 < C; n0 += bn) {
          for (int split = 0; split < kSplits; ++split) {
            Task t = blank();
            t.kind = kProjection, t.m0 = mb * kRows, t.n0 = n0, t.k0 = split * (K / kSplits);
            t.k_tiles = K / kSplits / kTileK, t.a_map = a_map, t.w_map = w_map, t.ld = C;
            t.out = partials + split * plane;
            t.wait[0] = counter(l, wait_step, mb), t.wait_for[0] = wait_for[mb];
            t.signal[0] = counter(l, done, mb);
            tasks.push_back(t);
          }
        }
      }
    };
    projections(kQkvDone, qkv_per_block, kAttnMap, weight_map(l, 1), C, kProjDone);
    norms(l, kNorm2Done, l, kProjDone, proj_tiles, false, w.attn_proj_b, w.ln2_w, w.ln2_b);
    for (int mb = 0; mb < blocks; ++mb) {
      for (int n0 = 0; n0 < 4 * C; n0 += bn) {
        Task t = blank();
        t.kind = kFc, t.m0 = mb * kRows, t.n0 = n0, t.k_tiles = C / kTileK, t.a_map = kXMap;
        t.w_map = weight_map(l, 2), t.ld = 4 * C, t.out = m.hidden, t.bias = w.fc_b;
        t.wait[0] = counter(l, kNorm2Done, mb), t.wait_for[0] = norms_in(mb);
        t.signal[0] = counter(l, kFcDone, mb);
        tasks.push_back(t);
      }
    }
    projections(kFcDone, std::vector<unsigned>(blocks, fc_tiles), kHiddenMap, weight_map(l, 3), 4 * C, kFcProjDone);
  }
  norms(L, kNorm1Done, L - 1, kFcProjDone, proj_tiles, false, m.layers[L - 1].fc_proj_b, m.lnf_w, m.lnf_b);
  return tasks;
}
}  // namespace

std::vector<PersistentTaskDeps> persistent_task_deps(int B, int T, int C, int NH, int n_layer, int& counters) {
  PersistentModel m;
  m.B = B, m.T = T, m.C = C, m.NH = NH;
  m.layers.resize(n_layer);
  std::vector<PersistentTaskDeps> deps;
  for (const Task& t : make_tasks(m, nullptr, counters)) {
    deps.push_back({t.kind == kNorm ? 'n' : t.kind == kQkvAttention ? 'q' : t.kind == kProjection ? 'p' : 'f',
                    {t.wait[0], t.wait[1]}, {t.wait_for[0], t.wait_for[1]}, {t.signal[0], t.signal[1]}});
  }
  return deps;
}

bool persistent_forward_takes(int B, int T, int C, int NH, int n_layer, int device) {
  return B > 0 && T >= 1 && T <= kRows && NH > 0 && C == NH * kHS && C % 256 == 0 && C <= kMaxC && n_layer > 0 &&
         wgmma_gemm_available(device);
}

PersistentForward::PersistentForward(const PersistentModel& model) : m_(model) {
  int device = 0;
  check_cuda(cudaGetDevice(&device), "cudaGetDevice");
  const int L = static_cast<int>(m_.layers.size());
  const std::string what = "the persistent forward B=" + std::to_string(m_.B) + " T=" + std::to_string(m_.T) +
                           " C=" + std::to_string(m_.C) + " NH=" + std::to_string(m_.NH);
  if (!persistent_forward_takes(m_.B, m_.T, m_.C, m_.NH, L, device)) {
    throw Error(ExitCode::kInternal, what + " is not supported on this device");
  }
  static std::atomic<std::uint64_t> attributes_done{0};
  if (!kernel_attributes_once(persistent_forward_kernel, attributes_done, {kSmemBytes})) {
    throw Error(ExitCode::kInternal, "the device refuses the shared memory of " + what);
  }
  int per_sm = 0;
  check_cuda(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, persistent_forward_kernel, kThreads, kSmemBytes),
             "cudaOccupancyMaxActiveBlocksPerMultiprocessor", what);
  check_cuda(cudaDeviceGetAttribute(&grid_, cudaDevAttrMultiProcessorCount, device), "cudaDeviceGetAttribute", what);
  if (per_sm < 1) throw Error(ExitCode::kInternal, "no CTA of " + what + " fits on an SM");
  const int M = m_.B * m_.T, C = m_.C;
  partials_ = DeviceBuffer(static_cast<std::size_t>(kSplits) * M * C * sizeof(float), "persistent forward partials");
  const std::vector<Task> tasks = make_tasks(m_, partials_.as<float>(), counter_count_);
  task_count_ = static_cast<int>(tasks.size());
  tasks_ = DeviceBuffer(tasks.size() * sizeof(Task), "persistent forward tasks");
  tasks_.upload(tasks.data(), tasks_.bytes(), "persistent forward tasks");
  std::vector<CUtensorMap> maps;
  maps.push_back(tensor_map(m_.ln, M, C, kRows, what + " (layer norm output)"));
  maps.push_back(tensor_map(m_.attn, M, C, kRows, what + " (attention output)"));
  maps.push_back(tensor_map(m_.hidden, M, 4 * C, kRows, what + " (MLP hidden)"));
  const int bn = tile_width(C);
  for (const PersistentLayer& l : m_.layers) {
    maps.push_back(tensor_map(l.attn_wt, 3 * C, C, kHS, what + " (qkv weights)"));
    maps.push_back(tensor_map(l.attn_proj_wt, C, C, bn, what + " (attention projection weights)"));
    maps.push_back(tensor_map(l.fc_wt, 4 * C, C, bn, what + " (fc weights)"));
    maps.push_back(tensor_map(l.fc_proj_wt, C, 4 * C, bn, what + " (fc projection weights)"));
  }
  maps_ = DeviceBuffer(maps.size() * sizeof(CUtensorMap), "persistent forward tensor maps");
  maps_.upload(maps.data(), maps_.bytes(), "persistent forward tensor maps");
  counters_ = DeviceBuffer((counter_count_ + 1) * sizeof(unsigned), "persistent forward counters");
  check_cuda(cudaMemset(counters_.get(), 0, counters_.bytes()), "cudaMemset", "persistent forward counters");
  if (!m_.trace_path.empty()) {
    trace_path_ = m_.trace_path;
    trace_ = DeviceBuffer(kTraceSlots * tasks.size() * sizeof(unsigned long long), "persistent forward trace");
    for (const Task& t : tasks) trace_tasks_.push_back({t.kind, t.m0, t.n0, t.k0});
  }
}

PersistentForward::~PersistentForward() {
  if (trace_path_.empty()) return;
  std::vector<unsigned long long> ns(kTraceSlots * trace_tasks_.size());
  if (cudaMemcpy(ns.data(), trace_.get(), ns.size() * sizeof(ns[0]), cudaMemcpyDeviceToHost) != cudaSuccess) {
    (void)cudaGetLastError();
    std::fprintf(stderr, "vbench: warning: the persistent forward's trace could not be read back; %s not written\n",
                 trace_path_.c_str());
    return;
  }
  std::string text = "task cta kind m0 n0 k0 taken_ns ready_ns first_data_ns math_done_ns stored_ns signalled_ns\n";
  for (std::size_t i = 0; i < trace_tasks_.size(); ++i) {
    const auto& t = trace_tasks_[i];
    text += std::to_string(i) + ' ' + std::to_string(i % grid_);
    for (const int v : t) text += ' ' + std::to_string(v);
    for (int k = 0; k < kTraceSlots; ++k) text += ' ' + std::to_string(ns[kTraceSlots * i + k]);
    text += '\n';
  }
  try {
    write_output(trace_path_, text);  // atomic: no half-written trace
  } catch (const Error& e) {
    std::fprintf(stderr, "vbench: warning: %s\n", e.what());  // a destructor does not throw
  }
}

void PersistentForward::enqueue(cudaStream_t stream) const {
  Params p{};
  p.tasks = tasks_.as<Task>();
  p.task_count = task_count_;
  p.maps = maps_.as<CUtensorMap>();
  p.counters = counters_.as<unsigned>();
  p.counter_count = counter_count_;
  p.finished = counters_.as<unsigned>() + counter_count_;
  p.residual = m_.residual;
  p.partials = partials_.as<float>();
  p.tokens = m_.tokens;
  p.wte = m_.wte;
  p.wpe = m_.wpe;
  p.M = m_.B * m_.T;
  p.T = m_.T;
  p.C = m_.C;
  p.bn = tile_width(m_.C);
  p.trace = trace_.as<unsigned long long>();
  launch_kernel_cooperative(persistent_forward_kernel, grid_, kThreads, kSmemBytes, stream, "persistent_forward_kernel",
                            p);
}

}  // namespace vtools::vbench::cuda
