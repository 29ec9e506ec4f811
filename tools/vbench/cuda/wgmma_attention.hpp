// cuda::wgmma_qkv_attention_forward: a layer's QKV projection and its causal attention in one Hopper kernel, for
// short sequences (T <= 64) and head sizes 64 (the GPT-2 family) and 32 (four of the seed configs). One CTA per
// (batch, head) computes that head's Q, K and V for the batch's T rows on wgmma from TMA-fed tiles, keeps them in
// shared memory, and runs the attention on them there: the qkv activations never go to global memory, and a kernel
// boundary per layer goes away. Design and figures: ops/wgmma_attention.cu.
#pragma once

#include <cuda_bf16.h>
#include <cuda_runtime.h>

namespace vtools::vbench::cuda {

/// Whether wgmma_qkv_attention_forward takes B sequences of T tokens, width C and NH heads: 1 <= T <= 64, head size
/// C / NH 64 or 32. The caller checks the device (wgmma_gemm_available).
bool wgmma_qkv_attention_takes(int B, int T, int C, int NH);

/// out = causal_attention(x Wqkv + bias) as GptForward's qkv GEMM then attention_forward compute it in bf16:
/// x [B*T][C], Wt = Wqkv transposed [3C][C], bias [3C], out [B*T][C], all bf16 (fp32 accumulation; q, k, v and the
/// softmax weights rounded to bf16 as tensor-core inputs). Launched as a programmatic dependent of the kernel before
/// (the weights' first tiles are copied before it ends). Enqueued on `stream`; throws Error(kInternal) for a shape it
/// does not take.
void wgmma_qkv_attention_forward(__nv_bfloat16* d_out, const __nv_bfloat16* d_x, const __nv_bfloat16* d_wt,
                                 const __nv_bfloat16* d_bias, int B, int T, int C, int NH, cudaStream_t stream);

/// One layer's attention half for wgmma_attention_block_forward: what the qkv + attention kernel reads, the attention
/// projection, and the layer norm after it. All bf16 but the fp32 residual and layer-norm parameters.
struct AttentionBlock {
  const __nv_bfloat16* x = nullptr;          ///< the first layer norm's output [B*T][C]
  const __nv_bfloat16* qkv_wt = nullptr;     ///< Wqkv transposed [3C][C]
  const __nv_bfloat16* qkv_bias = nullptr;   ///< [3C]
  const __nv_bfloat16* proj_wt = nullptr;    ///< Wproj transposed [C][C]
  const __nv_bfloat16* proj_bias = nullptr;  ///< [C]
  float* residual = nullptr;                 ///< [B*T][C], += the projection + bias
  const float* ln_weight = nullptr;          ///< the second layer norm's [C]
  const float* ln_bias = nullptr;
  __nv_bfloat16* ln_out = nullptr;           ///< [B*T][C]: layernorm(residual), what the fc GEMM reads
  int B = 0, T = 0, C = 0, NH = 0;
};

/// Whether wgmma_attention_block_forward takes the shape: 1 <= T <= 64, head size 64, at most 12 heads (C <= 768).
bool wgmma_attention_block_takes(int B, int T, int C, int NH);

/// wgmma_attention_block_takes, and the device can run a cluster of NH of its CTAs (225 KB of shared memory each).
/// The caller checks the device (wgmma_gemm_available).
bool wgmma_attention_block_ready(int B, int T, int C, int NH);

/// residual += causal_attention(x Wqkv + qkv_bias) Wproj + proj_bias; ln_out = layernorm(residual): what
/// wgmma_qkv_attention_forward, the projection and layernorm_forward compute, in one kernel of NH-CTA clusters (one per
/// sequence) that exchange the attention output and the row statistics through distributed shared memory; design in
/// ops/wgmma_attention_block.cu. A programmatic dependent of the kernel before; x must not alias ln_out. Enqueued on
/// `stream`; throws Error(kInternal) for a shape it does not take or a device that refuses its shared memory.
void wgmma_attention_block_forward(const AttentionBlock& block, cudaStream_t stream);

}  // namespace vtools::vbench::cuda
