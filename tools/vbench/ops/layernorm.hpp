// The launchers of ops/layernorm.cu, the cuda:: peers of cpu::layernorm_forward (layernorm.cpp), each adding the
// previous sublayer's output to the residual first. A is float (fp32, tf32) or __nv_bfloat16 (bf16). They enqueue on
// `stream` (graph-capture safe: no sync, no allocation) and throw vtools::Error on a bad launch; row-major.
#pragma once

#include <cuda_bf16.h>
#include <cuda_runtime.h>

namespace vtools::vbench::cuda {

/// Up to this many split-K partial products are summed by layernorm_forward.
constexpr int kMaxSublayerSplits = 4;

/// The previous sublayer's output that layernorm_forward adds to the residual: its projection GEMM split along K
/// into `splits` fp32 partial products [splits][rows][C] (Matmul's k_splits), plus the projection's bias[C] (in
/// the weights' storage type). No partials: nothing is added. Or, before the first layer, the embeddings
/// (`tokens` set): the residual is not read but written, residual[r] = wte[tokens[r]] + wpe[r % T] as
/// encoder_forward computes it, so the encoder needs no kernel of its own.
template <typename A>
struct SublayerOutput {
  const float* partials = nullptr;
  int splits = 0;  ///< 1..kMaxSublayerSplits when partials is set
  const A* bias = nullptr;
  const int* tokens = nullptr;  ///< [rows] token ids; with wte [V][C], wpe [T][C]
  const A* wte = nullptr;
  const A* wpe = nullptr;
  int T = 0;

  /// The embeddings of `tokens` as the sublayer output.
  static SublayerOutput embeddings(const int* tokens, const A* wte, const A* wpe, int T) {
    SublayerOutput e;
    e.tokens = tokens, e.wte = wte, e.wpe = wpe, e.T = T;
    return e;
  }
};

/// How layernorm_forward spreads its rows (one block each) where a row is up to 1024 values, a multiple of 4 (others
/// always kWide). Which is faster depends on the model (bench/RESULTS.md, session 16), so ForwardSearch times both.
enum class LayerNormBlocks {
  kWide,    ///< 256 threads per row, as many blocks per SM as fit
  kFitted,  ///< as many warps as the row's groups of 4 values need; at most 2 blocks per SM (padded shared memory)
};

/// Whether LayerNormBlocks::kFitted launches differently from kWide for rows of C values.
inline bool fitted_layernorm_applies(int C) { return C % 4 == 0 && C <= 1024; }

/// Per row r of [rows][C]: residual[r] += sum of the partials[s][r] + bias first (the residual add of the previous
/// sublayer and its split-K reduction, fused here), or residual[r] = the embeddings of token r; then
/// out[r] = (residual[r] - mean) / sqrt(var + 1e-5) * weight + bias, with mean and the biased variance in fp32.
/// Parameters stay fp32 in every dtype (they are tiny).
template <typename A>
void layernorm_forward(A* d_out, float* d_residual, SublayerOutput<A> add, const float* d_weight,
                       const float* d_bias, int rows, int C, cudaStream_t stream, bool programmatic = false,
                       LayerNormBlocks blocks = LayerNormBlocks::kWide);

/// layernorm_forward for fp32 with each output row written as the 3C values [lo | hi | hi], hi = tf32(y),
/// lo = tf32(y - hi): the left operand of a 3xTF32 GEMM against weight rows [hi | lo | hi] (d_out3 is [rows][3C]).
void layernorm_forward_split_tf32(float* d_out3, float* d_residual, SublayerOutput<float> add,
                                  const float* d_weight, const float* d_bias, int rows, int C, cudaStream_t stream,
                                  LayerNormBlocks blocks = LayerNormBlocks::kWide);

}  // namespace vtools::vbench::cuda
