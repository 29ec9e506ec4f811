// Launchers of vbench's own CUDA kernels, the cuda:: peers of the cpu:: references (tools/vbench/ops/<op>.cu beside
// <op>.cpp). A is the activation type and P the parameter type: float (fp32, tf32) or __nv_bfloat16 (bf16). Every
// launcher enqueues on `stream` (graph-capture safe: no sync, no allocation) and throws vtools::Error on a bad launch.
// Layouts are row-major: [B][T][C] activations, [V][C] token embeddings, [block][C] position embeddings.
#pragma once

#include <cuda_bf16.h>
#include <cuda_runtime.h>

namespace vtools::vbench::cuda {

/// Largest head size attention_forward supports (its per-lane accumulators and shared tiles are sized by it).
inline constexpr int kMaxHeadSize = 128;

/// residual[b][t][:] = wte[tokens[b][t]][:] + wpe[t][:] in fp32. Tokens must be < the rows of wte (checked by the
/// caller on the host).
template <typename P>
void encoder_forward(float* d_residual, const int* d_tokens, const P* d_wte, const P* d_wpe, int B, int T, int C,
                     cudaStream_t stream);

/// Up to this many split-K partial products are summed by layernorm_forward.
constexpr int kMaxSublayerSplits = 4;

/// The previous sublayer's output that layernorm_forward adds to the residual: its projection GEMM split along K
/// into `splits` fp32 partial products [splits][rows][C] (Matmul's k_splits), plus the projection's bias[C] (in
/// the weights' storage type). No partials: nothing is added.
template <typename A>
struct SublayerOutput {
  const float* partials = nullptr;
  int splits = 0;  ///< 1..kMaxSublayerSplits when partials is set
  const A* bias = nullptr;
};

/// Per row r of [rows][C]: residual[r] += sum of the partials[s][r] + bias first (the residual add of the previous
/// sublayer and its split-K reduction, fused here); then out[r] = (residual[r] - mean) / sqrt(var + 1e-5) * weight +
/// bias, with mean and the biased variance in fp32. Parameters stay fp32 in every dtype (they are tiny).
template <typename A>
void layernorm_forward(A* d_out, float* d_residual, SublayerOutput<A> add, const float* d_weight,
                       const float* d_bias, int rows, int C, cudaStream_t stream);

/// layernorm_forward for fp32 with each output row written as the 3C values [lo | hi | hi], hi = tf32(y),
/// lo = tf32(y - hi): the left operand of a 3xTF32 GEMM against weight rows [hi | lo | hi] (d_out3 is [rows][3C]).
void layernorm_forward_split_tf32(float* d_out3, float* d_residual, SublayerOutput<float> add,
                                  const float* d_weight, const float* d_bias, int rows, int C, cudaStream_t stream);

/// Causal multi-head attention, fused (flash-style: key tiles in shared memory, online softmax in fp32, no T x T
/// matrix; bf16 with head size 16, 32 or 64 runs on tensor cores, P.V in fp16): qkv is [B][T][3C] (q, k, v each
/// split into NH heads of C/NH), out is [B][T][C] with head h in columns [h*hs, (h+1)*hs). Any T; head size
/// hs = C/NH must divide C and be at most kMaxHeadSize.
template <typename A>
void attention_forward(A* d_out, const A* d_qkv, int B, int T, int C, int NH, cudaStream_t stream);

/// x[r][n] = gelu_tanh(x[r][n] + bias[n]) (bias optional, gelu optional): the GEMM epilogue for shapes where
/// cuBLASLt offers no fused one.
template <typename A>
void bias_gelu_forward(A* d_x, const A* d_bias, bool gelu, int rows, int N, cudaStream_t stream);

}  // namespace vtools::vbench::cuda
