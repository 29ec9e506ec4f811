// The launcher of ops/fused_layer.cu: a whole layer step of a small model as one kernel, in one of three layouts.
// P is float (fp32, tf32) or __nv_bfloat16 (bf16). It enqueues on `stream` (graph-capture safe: no sync, no
// allocation) and throws vtools::Error on a bad launch.
#pragma once

#include <cuda_bf16.h>
#include <cuda_runtime.h>

namespace vtools::vbench::cuda {

/// Widest model fused_layer_forward takes: each CTA holds 6 C x 16 floats of rows in shared memory.
inline constexpr int kMaxFusedWidth = 384;
/// Longest sequence it takes: a warp keeps one query row's attention probabilities in shared memory.
inline constexpr int kMaxFusedSeq = 512;

/// How fused_layer_forward spreads a step's rows over CTAs. Each keeps a CTA's rows in shared memory for the whole
/// step; they differ in how many rows a CTA holds and who computes which GEMM columns.
enum class FusedLayout {
  /// A thread-block cluster of 8 CTAs owns 16 rows; each CTA computes 1/8 of every GEMM's columns and writes them
  /// into every CTA's shared memory (DSMEM), meeting the others at 5 cluster barriers per step.
  kClusterColumns,
  /// A CTA of 512 threads owns 4 rows and computes every column, its step's weights copied whole into its shared
  /// memory (bulk copies) as it starts where they fit (up to width 64 in fp32, 80 in bf16), else read from global
  /// memory: no cluster, each CTA reads the whole layer from L2. A GEMM wider than 512 columns takes more passes.
  kBlockRows,
  /// Block rows with 2 rows per CTA: twice the CTAs (and twice the weight reads from L2), half the work each.
  kBlockRowPairs,
};
inline constexpr FusedLayout kFusedLayouts[] = {FusedLayout::kClusterColumns, FusedLayout::kBlockRows,
                                                 FusedLayout::kBlockRowPairs};
/// "cluster columns", "block rows" or "block row pairs".
const char* fused_layout_name(FusedLayout layout);

/// One launch of fused_layer_forward (fused_layer.cu): layer l's second half (attention, projection, residual add,
/// layer norm 2, MLP, residual add; or the encoder when `tokens` is set), then layer l + 1's first half (layer
/// norm 1 and the qkv GEMM into qkv_out; when attn_w is set) or the final layer norm into head_out. P is the
/// weights' storage type; layer-norm parameters are fp32; q, k, v and the residual are fp32.
template <typename P>
struct FusedLayerStep {
  const int* tokens = nullptr;  ///< [B][T], with wte and wpe: the first step starts with the encoder
  const P* wte = nullptr;
  const P* wpe = nullptr;
  const float* qkv_in = nullptr;  ///< [B][T][3C]: layer l's q, k, v
  const P* attn_proj_w = nullptr;
  const P* attn_proj_b = nullptr;
  const float* ln2_w = nullptr;
  const float* ln2_b = nullptr;
  const P* fc_w = nullptr;
  const P* fc_b = nullptr;
  const P* fc_proj_w = nullptr;
  const P* fc_proj_b = nullptr;
  const float* ln_w = nullptr;  ///< layer l + 1's layer norm 1, or the final one
  const float* ln_b = nullptr;
  const P* attn_w = nullptr;  ///< layer l + 1's qkv weights; null: the final layer norm instead
  const P* attn_b = nullptr;
  float* qkv_out = nullptr;  ///< [B][T][3C], not qkv_in
  P* head_out = nullptr;     ///< [B][T][C], or [B][T][3C] rows [lo | hi | hi] when split_head (fp32 only)
  bool split_head = false;
  float* residual = nullptr;  ///< [B][T][C]: read at the start (not by the first step), written at the end
  int B = 0, T = 0, C = 0, NH = 0;
  FusedLayout layout = FusedLayout::kClusterColumns;
};

/// Whether fused_layer_forward takes `layout` with width C, NH heads and sequences of T for weights of type P on the
/// current device (head size 16, 32 or 64, C a multiple of 8 up to kMaxFusedWidth, T up to kMaxFusedSeq, the
/// cluster fits); when it does, the kernel is made ready (its shared memory size set). Host only, outside stream
/// capture.
template <typename P>
bool fused_layer_ready(FusedLayout layout, int C, int NH, int T);

/// Enqueues one step; the forward is n_layer + 1 of them, the first with the encoder, the last with the final layer
/// norm, qkv_in/qkv_out alternating between two buffers. Needs fused_layer_ready for its shape.
template <typename P>
void fused_layer_forward(const FusedLayerStep<P>& step, cudaStream_t stream);

}  // namespace vtools::vbench::cuda
