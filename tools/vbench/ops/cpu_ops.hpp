// The CPU reference ops of the GPT forward, one function per layer named as in llm.c's train_gpt2.c, one .cpp per op
// beside the CUDA version (<op>.cu, cuda:: namespace). fp32, row-major; B batch, T time, C channels, N = B·T rows.
// Loops are split over cores with parallel_for (parallel_for.hpp); GEMMs go to OpenBLAS (VTOOLS_HAVE_OPENBLAS)
// or to a blocked fallback.
#pragma once

#include <cstdint>

namespace vtools::vbench::cpu {

/// out[b,t,:] = wte[tokens[b,t],:] + wpe[t,:]. out [B][T][C], wte [V][C], wpe [>=T][C].
void encoder_forward(float* out, const std::int32_t* tokens, const float* wte, const float* wpe, int B, int T, int C);

/// out = (inp - mean) / sqrt(var + 1e-5) * weight + bias over the last dim (biased variance, as PyTorch).
void layernorm_forward(float* out, const float* inp, const float* weight, const float* bias, int N, int C);

/// How a GEMM weight is stored: [in][out] (GPT-2 Conv1D projections) or [out][in] (the LM head reusing wte [V][C]).
enum class WeightLayout { kInOut, kOutIn };

/// out[N][OC] = inp[N][IC] · W + bias (bias may be null). W is [IC][OC] (kInOut) or [OC][IC] (kOutIn).
void matmul_forward(float* out, const float* inp, const float* weight, const float* bias, int N, int IC, int OC,
                    WeightLayout layout);

/// Causal multi-head self-attention. qkv [B][T][3C] (q, k, v concatenated, head h at channels h·hs..), out [B][T][C].
/// Scores scaled by 1/sqrt(hs), softmax over t' <= t (max-subtracted).
void attention_forward(float* out, const float* qkv, int B, int T, int C, int NH);

/// tanh-approximated GELU: 0.5·x·(1 + tanh(sqrt(2/π)·(x + 0.044715·x³))), element-wise over n values.
void gelu_forward(float* out, const float* inp, std::int64_t n);

/// out = a + b element-wise (out may alias a).
void residual_forward(float* out, const float* a, const float* b, std::int64_t n);

/// Most threads VTOOLS_THREADS may ask for.
constexpr int kMaxCpuThreads = 1024;

/// Threads the CPU ops use: $VTOOLS_THREADS (1 to kMaxCpuThreads; anything else throws Error(kUsage)), else the
/// hardware's thread count.
int cpu_threads();

}  // namespace vtools::vbench::cpu
