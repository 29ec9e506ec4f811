// cuda::fused_layer_forward: for small models, the forward as n_layer + 1 kernels (and the LM head GEMM) instead of
// 3 + 7 n_layer. The decision: small models are bound by their launch count, not by their FLOPs (every kernel of the
// unfused forward costs ~2 us however little it computes), so a step does a layer's worth of work in one kernel.
//
// One launch is a "step": the second half of layer l (attention, its projection and residual add, layer norm 2, the
// MLP and its residual add) and the first half of layer l + 1 (layer norm 1 and the qkv GEMM), or the final layer
// norm after the last layer. Attention needs every earlier row's keys and values, so the kernel boundary sits just
// before it; everything else in a step is row-local. The first step starts with the encoder instead. Every step is
// launched as a programmatic dependent of the one before: it lets the next one launch as it starts, and the next
// one's CTAs take idle SMs and copy in their parameters, then griddepcontrol.wait before reading anything a previous
// kernel wrote. Layouts and building blocks: fused_layer_blocks.cuh. ForwardSearch times every layout against the
// unfused forward and keeps the fastest; figures, the per-phase timeline (bench/fused_timeline.sh) and what was
// tried and dropped: bench/RESULTS.md, sessions 5-6 and 20-23.
#include "tools/vbench/ops/fused_layer.hpp"

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>

#include "libcommon/error.hpp"
#include "tools/vbench/cuda/cuda_error.hpp"
#include "tools/vbench/cuda/programmatic.cuh"
#include "tools/vbench/ops/fused_layer_blocks.cuh"
#include "tools/vbench/ops/layernorm.hpp"

#ifdef VTOOLS_FUSED_TIMELINE
__device__ unsigned int g_fused_calls;
__device__ __forceinline__ unsigned long long ftl_now() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}
#define FTL(i) (threadIdx.x == 0 ? (void)(ftl[i] = clock64(), ftg[i] = ftl_now()) : (void)0)
#else
#define FTL(i) ((void)0)
#endif

namespace vtools::vbench::cuda {

namespace {

/// One step (see above) for the rows of this CTA's cluster, in layout L, heads of size HS.
template <typename P, int HS, FusedLayout L>
__global__ void __cluster_dims__(Geometry<L>::kCluster, 1, 1)
    __launch_bounds__(Geometry<L>::kThreads, Geometry<L>::kBlocksPerSm)
    fused_layer_kernel(FusedLayerStep<P> step, bool staged, int qkv_offset) {
  constexpr int Rows = Geometry<L>::kRows, Cluster = Geometry<L>::kCluster, kThreads = Geometry<L>::kThreads;
  constexpr int kWarps = kThreads / 32;
  extern __shared__ float4 smem4[];
  __shared__ std::uint64_t bulk_barriers[2];
  float* smem = reinterpret_cast<float*>(smem4);
#ifdef VTOOLS_FUSED_TIMELINE
  long long ftl[16] = {};
  unsigned long long ftg[16] = {};
#endif
  FTL(0);
  const int C = step.C, rows = step.B * step.T;
  float* xs = smem;
  float* u = xs + Rows * C;
  float* h = u + C * Rows;
  float* scratch = h + 4 * C * Rows;
  const int rank = Cluster == 1 ? 0 : static_cast<int>(cg::this_cluster().block_rank());
  const int row0 = static_cast<int>(blockIdx.x / Cluster) * Rows;
  const int n_proj = C / Cluster, n_fc = 4 * C / Cluster, n_qkv = 3 * C / Cluster;
  const bool first = step.tokens != nullptr, last = step.attn_w == nullptr;
  const BulkCopies bulk{&bulk_barriers[0]};  // the step's parameters (one CTA per cluster)
  // One CTA per cluster: its residual rows and, with staged_qkv, the rows [key_lo, key_hi) of qkv_in that attention
  // reads (from the first row's sequence start), all by bulk copies, so that attention waits for one round trip
  // instead of a chain of them.
  const BulkCopies early{&bulk_barriers[1]};
  const int key_lo = row0 / step.T * step.T, key_hi = min(row0 + Rows, rows);
  float* const lnp = scratch + scratch_floats(Rows, kThreads, step.T);
  // Where the host put them (base_bytes: after the parameters when those are staged), or not staged (< 0).
  const bool staged_qkv = qkv_offset >= 0;
  float* const qkv_s = reinterpret_cast<float*>(reinterpret_cast<char*>(smem4) + (staged_qkv ? qkv_offset : 0));
  // The next step may launch now (fused_layer_forward launches steps as programmatic dependents): its CTAs take
  // idle SMs and copy in their parameters while this step runs, and wait below until it has completed.
  asm volatile("griddepcontrol.launch_dependents;\n" ::: "memory");
  if (Cluster == 1 && threadIdx.x == 0) {  // before any thread waits: a __syncthreads follows below
    bulk.init();
    early.init();
  }

  // The parameters' copies start here and are waited for (wait_params) before the first GEMM or layer norm.
  const StepParams<P> params = staged ? stage_params<P, Cluster, kThreads>(step, rank, lnp, bulk)
                                      : global_params<P, Cluster>(step, rank);
  // Everything after this reads what the previous kernels wrote (tokens, the residual, q, k, v): wait until they
  // have completed and their writes are visible.
  FTL(1);
  asm volatile("griddepcontrol.wait;\n" ::: "memory");
  FTL(2);
  if (Cluster == 1 && threadIdx.x == 0) {
    if (!first && row0 < rows) {
      early.copy(xs, step.residual + static_cast<long long>(row0) * C, (key_hi - row0) * C * sizeof(float));
      if (staged_qkv) {
        early.copy(qkv_s, step.qkv_in + static_cast<long long>(key_lo) * 3 * C,
                   (key_hi - key_lo) * 3 * C * sizeof(float));
      }
    }
    early.arrive();
  }
  const auto wait_params = [&] {
    if (!staged) return;
    if constexpr (Cluster == 1) {
      bulk.wait();
    } else {
      cp_async_wait_all();
    }
  };
  const auto store_u = [&](int r, int c, float v) { u[c * Rows + r] = v; };
  // This CTA's n columns [rank * n, (rank + 1) * n) of a x g.w for its rows (scalars captured by value: with [&] the
  // cluster kernels spilled more registers).
  const auto gemm = [scratch, rank, row0, rows, C, staged](const float* a, const typename StepParams<P>::Gemm& g,
                                                           int K, int n, Epilogue kind, float* dst) {
    cta_gemm<P, Rows, Cluster, kThreads>(a, g.w, staged, g.ldw, K, rank * n, n, scratch,
                                         GemmOutput<P>{kind, g.bias, dst, row0, rows, C});
  };

  if (first) {  // the encoder
    for (int i = threadIdx.x; i < Rows * C; i += kThreads) {
      const int m = row0 + i / C, c = i % C;
      xs[i] = m < rows ? to_float(step.wte[static_cast<long long>(step.tokens[m]) * C + c]) +
                             to_float(step.wpe[(m % step.T) * C + c])
                       : 0.f;
    }
    __syncthreads();  // also: the bulk copies' barrier is initialised before anyone waits on it
    wait_params();
    __syncthreads();
  } else {
    if constexpr (Cluster == 1) {
      for (int i = max(0, rows - row0) * C + threadIdx.x; i < Rows * C; i += kThreads) xs[i] = 0.f;  // no rows
      __syncthreads();
      early.wait();
      FTL(3);
    } else {
      for (int i = threadIdx.x; i < Rows * C; i += kThreads) {
        const int m = row0 + i / C;
        xs[i] = m < rows ? step.residual[static_cast<long long>(row0) * C + i] : 0.f;
      }
    }
    sync_cluster<Cluster>();  // every CTA of the cluster runs before any writes into its shared memory

    // Attention: the (row, head) pairs spread over the cluster's warps; each output goes to every CTA's u.
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const float q_scale = static_cast<float>(M_LOG2E) * rsqrtf(static_cast<float>(HS));
    for (int item = rank * kWarps + warp; item < Rows * step.NH; item += Cluster * kWarps) {
      const int r = item % Rows, hd = item / Rows, m = row0 + r;
      float out[(HS + 31) / 32] = {};
      if (m < rows && staged_qkv) {
        attend<HS, int>(in_shared(qkv_s), key_lo, m / step.T, m % step.T, step.T, C, hd, q_scale,
                        scratch + warp * step.T, out);
      } else if (m < rows) {
        attend<HS, long long>(step.qkv_in, 0, m / step.T, m % step.T, step.T, C, hd, q_scale, scratch + warp * step.T,
                              out);
      }
#pragma unroll
      for (int e = 0; e < (HS + 31) / 32; ++e) {
        const int d = lane % HS + 32 * e;
        if (lane < HS || e > 0) store_to_cluster<Cluster>(u + (hd * HS + d) * Rows + r, out[e]);
      }
    }
    FTL(4);
    wait_params();
    sync_cluster<Cluster>();
    FTL(5);

    // Attention projection, bias and residual add: this CTA's columns of xs, into every CTA's xs.
    gemm(u, params.proj, C, n_proj, Epilogue::kResidual, xs);
    sync_after_gemm<Cluster>();
    FTL(6);

    layernorm_rows<Rows, kThreads>(xs, C, params.ln2_w, params.ln2_b, 0, 1, store_u);
    __syncthreads();
    FTL(7);
#ifdef VTOOLS_FUSED_TIMELINE
    layernorm_rows<Rows, kThreads>(xs, C, params.ln2_w, params.ln2_b, 0, 1, store_u);
    __syncthreads();
#endif
    FTL(8);
    gemm(u, params.fc, C, n_fc, Epilogue::kGelu, h);
    sync_after_gemm<Cluster>();
    FTL(9);
#ifdef VTOOLS_FUSED_TIMELINE
    gemm(u, params.fc, C, n_fc, Epilogue::kGelu, h);
    sync_after_gemm<Cluster>();
#endif
    FTL(10);

    gemm(h, params.fc_proj, 4 * C, n_proj, Epilogue::kResidual, xs);
    sync_after_gemm<Cluster>();  // the last remote write: no CTA leaves while another may still write into it
    FTL(11);
  }

  if (!last) {  // the next layer's first half
    layernorm_rows<Rows, kThreads>(xs, C, params.ln_w, params.ln_b, 0, 1, store_u);
    __syncthreads();
    FTL(12);
    gemm(u, params.qkv, C, n_qkv, Epilogue::kQkv, step.qkv_out);
    FTL(13);
    for (int i = threadIdx.x; i < (Rows / Cluster) * C; i += kThreads) {  // rows rank, rank + Cluster, ...
      const int r = rank + Cluster * (i / C), c = i % C, m = row0 + r;
      if (m < rows) step.residual[static_cast<long long>(m) * C + c] = xs[r * C + c];
    }
  } else {  // the final layer norm, rows rank, rank + Cluster, ... written by this CTA
    layernorm_rows<Rows, kThreads>(xs, C, params.ln_w, params.ln_b, rank, Cluster, [&](int r, int c, float v) {
      const int m = row0 + r;
      if (m >= rows) return;
      if constexpr (std::is_same_v<P, float>) {
        if (step.split_head) return store_normalised<true>(step.head_out + static_cast<long long>(m) * 3 * C, c, C, v);
      }
      step.head_out[static_cast<long long>(m) * C + c] = from_float<P>(v);
    });
  }
#ifdef VTOOLS_FUSED_TIMELINE
  FTL(14);
  if (threadIdx.x == 0 && (blockIdx.x == 0 || blockIdx.x == gridDim.x - 1)) {
    const unsigned call = atomicAdd(&g_fused_calls, 1);
    if (call % 97 < 16) {
      long long d[15], prev = ftl[0];
      for (int i = 1; i < 15; ++i) {
        d[i] = ftl[i] ? ftl[i] - prev : -1;
        if (ftl[i]) prev = ftl[i];
      }
      printf("FTL call %u blk %d/%d first %d last %d C %d rows %d g0 %llu gwait %llu gend %llu | stage %lld wait %lld "
             "early %lld attn %lld params %lld proj %lld ln2 %lld ln2b %lld fc %lld fcb %lld fcproj %lld ln1 %lld "
             "qkv %lld out %lld\n",
             call, blockIdx.x, gridDim.x, first, last, C, Rows, ftg[0] % 100000000ull, ftg[2] - ftg[0],
             ftg[14] - ftg[0], d[1], d[2], d[3], d[4], d[5], d[6], d[7], d[8], d[9], d[10], d[11], d[12], d[13],
             d[14]);
    }
  }
#endif
}

template <typename P>
using FusedKernel = void (*)(FusedLayerStep<P>, bool, int);

template <typename P, FusedLayout L>
FusedKernel<P> fused_kernel_for(int hs) {
  switch (hs) {
    case 16: return fused_layer_kernel<P, 16, L>;
    case 32: return fused_layer_kernel<P, 32, L>;
    case 64: return fused_layer_kernel<P, 64, L>;
    default: return nullptr;
  }
}

/// Rows per cluster, CTAs per cluster, threads per CTA and CTAs per SM of `layout`.
struct Shape {
  int rows, cluster, threads, blocks_per_sm;
};
template <FusedLayout L>
Shape shape() {
  using G = Geometry<L>;
  return {G::kRows, G::kCluster, G::kThreads, G::kBlocksPerSm};
}
Shape shape_of(FusedLayout layout) {
  switch (layout) {
    case FusedLayout::kBlockRows: return shape<FusedLayout::kBlockRows>();
    case FusedLayout::kBlockRowPairs: return shape<FusedLayout::kBlockRowPairs>();
    default: return shape<FusedLayout::kClusterColumns>();
  }
}
/// Shared memory of a CTA without staged parameters, in floats.
int smem_floats(FusedLayout layout, int C, int T) {
  const Shape g = shape_of(layout);
  return smem_floats(C, g.rows, g.threads, T);
}

/// Shared memory of a CTA with a step's parameters staged (see staged_elems), for width C and weights of `elem`
/// bytes; whether they are staged (it fits); the bytes a CTA takes.
std::size_t staged_bytes(FusedLayout layout, int C, int T, std::size_t elem) {
  const Shape g = shape_of(layout);
  return sizeof(float) * (static_cast<std::size_t>(smem_floats(layout, C, T)) + 4 * C) +
         elem * staged_elems(C, g.cluster);
}
bool staged(FusedLayout layout, int C, int T, std::size_t elem) {
  return staged_bytes(layout, C, T, elem) <= max_smem_bytes(shape_of(layout).blocks_per_sm);
}
/// Bytes of the attention's q, k, v rows staged after the rest of a block layout's shared memory (base_bytes): its
/// rows' sequence up to them.
std::size_t qkv_bytes(FusedLayout layout, int C, int T) {
  return sizeof(float) * (T + shape_of(layout).rows - 1) * 3 * static_cast<std::size_t>(C);
}
/// Shared memory of a CTA before the staged q, k, v rows: with its parameters when they fit, else without.
std::size_t base_bytes(FusedLayout layout, int C, int T, std::size_t elem) {
  return staged(layout, C, T, elem) ? staged_bytes(layout, C, T, elem)
                                    : sizeof(float) * static_cast<std::size_t>(smem_floats(layout, C, T));
}
/// Whether a block layout stages them too (they fit beside the rest).
bool staged_qkv(FusedLayout layout, int C, int T, std::size_t elem) {
  return shape_of(layout).cluster == 1 &&
         base_bytes(layout, C, T, elem) + qkv_bytes(layout, C, T) <= max_smem_bytes(shape_of(layout).blocks_per_sm);
}
std::size_t smem_bytes(FusedLayout layout, int C, int T, std::size_t elem) {
  return base_bytes(layout, C, T, elem) + (staged_qkv(layout, C, T, elem) ? qkv_bytes(layout, C, T) : 0);
}

/// The kernel for `layout`, width C, NH heads and sequences of T, or nullptr when fused_layer_forward does not take
/// them.
template <typename P>
FusedKernel<P> kernel_for_shape(FusedLayout layout, int C, int NH, int T) {
  if (NH <= 0 || C <= 0 || C % NH != 0 || C % 8 != 0 || C > kMaxFusedWidth || T > kMaxFusedSeq) return nullptr;
  switch (layout) {
    case FusedLayout::kBlockRows: return fused_kernel_for<P, FusedLayout::kBlockRows>(C / NH);
    case FusedLayout::kBlockRowPairs: return fused_kernel_for<P, FusedLayout::kBlockRowPairs>(C / NH);
    default: return fused_kernel_for<P, FusedLayout::kClusterColumns>(C / NH);
  }
}
}  // namespace

template <typename P>
bool fused_layer_ready(FusedLayout layout, int C, int NH, int T) {
  const FusedKernel<P> kernel = kernel_for_shape<P>(layout, C, NH, T);
  if (kernel == nullptr) return false;
  // The kernel may take up to 227 KB (the bytes of a launch depend on T): a larger limit than any launch needs.
  const std::size_t bytes = smem_bytes(layout, C, T, sizeof(P));
  const int cap = static_cast<int>(max_smem_bytes(1));
  if (bytes > max_smem_bytes(1) ||
      cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, cap) != cudaSuccess) {
    (void)cudaGetLastError();  // too much shared memory for this device: not an error, the unfused forward runs
    return false;
  }
  cudaLaunchConfig_t config = {};
  config.gridDim = dim3(shape_of(layout).cluster);
  config.blockDim = dim3(shape_of(layout).threads);
  config.dynamicSmemBytes = bytes;
  int clusters = 0;
  if (cudaOccupancyMaxActiveClusters(&clusters, kernel, &config) != cudaSuccess) {
    (void)cudaGetLastError();
    return false;
  }
  return clusters > 0;
}

template <typename P>
void fused_layer_forward(const FusedLayerStep<P>& step, cudaStream_t stream) {
  const std::string shape = std::string(fused_layout_name(step.layout)) + " B=" + std::to_string(step.B) +
                            " T=" + std::to_string(step.T) + " C=" + std::to_string(step.C) +
                            " NH=" + std::to_string(step.NH);
  const FusedKernel<P> kernel = kernel_for_shape<P>(step.layout, step.C, step.NH, step.T);
  if (kernel == nullptr) {
    throw Error(ExitCode::kInternal, "fused_layer_forward does not take " + shape + " (fused_layer_ready says so)");
  }
  const int rows = step.B * step.T;
  if (rows == 0) return;
  const Shape g = shape_of(step.layout);
  const int clusters = (rows + g.rows - 1) / g.rows;
  const int qkv_offset = staged_qkv(step.layout, step.C, step.T, sizeof(P))
                             ? static_cast<int>(base_bytes(step.layout, step.C, step.T, sizeof(P)))
                             : -1;
  // Every step after the first is a programmatic dependent of the one before (see griddepcontrol in the kernel). The
  // cluster shape is the kernel's own (__cluster_dims__).
  const std::string what = "fused_layer_kernel " + shape;
  launch_kernel(kernel, dim3(clusters * g.cluster), dim3(g.threads), smem_bytes(step.layout, step.C, step.T, sizeof(P)),
                stream, step.tokens == nullptr, what.c_str(), step, staged(step.layout, step.C, step.T, sizeof(P)),
                qkv_offset);
}

const char* fused_layout_name(FusedLayout layout) {
  switch (layout) {
    case FusedLayout::kBlockRows: return "block rows";
    case FusedLayout::kBlockRowPairs: return "block row pairs";
    default: return "cluster columns";
  }
}

template bool fused_layer_ready<float>(FusedLayout, int, int, int);
template bool fused_layer_ready<__nv_bfloat16>(FusedLayout, int, int, int);
template void fused_layer_forward<float>(const FusedLayerStep<float>&, cudaStream_t);
template void fused_layer_forward<__nv_bfloat16>(const FusedLayerStep<__nv_bfloat16>&, cudaStream_t);

}  // namespace vtools::vbench::cuda
