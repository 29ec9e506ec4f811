// cuda::wgmma_qkv_attention_forward: a layer's QKV projection and its causal attention in one Hopper kernel, for
// short sequences (T <= 64) and head sizes 64 (the GPT-2 family) and 32 (four of the seed configs). One CTA per
// (batch, head) computes that head's Q, K and V for the batch's T rows on wgmma from TMA-fed tiles, keeps them in
// shared memory, and runs the attention on them there: the qkv activations never go to global memory, and a kernel
// boundary per layer goes away. Design and figures: ops/wgmma_attention.cu.
#pragma once

#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <cstddef>

namespace vtools::vbench::cuda {

/// Whether wgmma_qkv_attention_forward takes B sequences of T tokens, width C and NH heads with `k_splits` CTAs per
/// head: 1 <= T <= 64, head size C / NH 64 or 32; k_splits 1, or 2 where C spans at least two 64-wide K steps. The
/// caller checks the device (wgmma_gemm_available).
bool wgmma_qkv_attention_takes(int B, int T, int C, int NH, int k_splits = 1);

/// Bytes of the scratch wgmma_qkv_attention_forward needs with k_splits = 2: a counter per (batch, head), then two
/// fp32 partial [q | k | v] tiles of 64 x 3 C/NH per (batch, head).
std::size_t wgmma_qkv_attention_scratch_bytes(int B, int C, int NH);

/// out = causal_attention(x Wqkv + bias) as GptForward's qkv GEMM then attention_forward compute it in bf16:
/// x [B*T][C], Wt = Wqkv transposed [3C][C], bias [3C], out [B*T][C], all bf16 (fp32 accumulation; q, k, v and the
/// softmax weights rounded to bf16 as tensor-core inputs). Launched as a programmatic dependent of the kernel before
/// (the weights' first tiles are copied before it ends). With k_splits = 2 each head's K steps are split over two
/// CTAs (twice the SMs, each copying half the bytes), which meet through d_scratch (wgmma_qkv_attention_scratch_bytes;
/// zeroed before its first use, and left zeroed by every launch); the two halves' fp32 sums add up in either order to
/// the same, so the result is deterministic (not bit-equal to k_splits 1: another summation order). Not safe to run
/// concurrently with itself on the same scratch. Enqueued on `stream`; throws Error(kInternal) for a shape
/// it does not take or a missing scratch.
void wgmma_qkv_attention_forward(__nv_bfloat16* d_out, const __nv_bfloat16* d_x, const __nv_bfloat16* d_wt,
                                 const __nv_bfloat16* d_bias, int B, int T, int C, int NH, cudaStream_t stream,
                                 int k_splits = 1, void* d_scratch = nullptr);

}  // namespace vtools::vbench::cuda
