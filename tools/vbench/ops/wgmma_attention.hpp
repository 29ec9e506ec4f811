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

}  // namespace vtools::vbench::cuda
