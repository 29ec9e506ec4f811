// The launcher of ops/attention.cu, the cuda:: peer of cpu::attention_forward (attention.cpp): fused causal
// multi-head attention. A is float (fp32, tf32) or __nv_bfloat16 (bf16). It enqueues on `stream` (graph-capture
// safe: no sync, no allocation) and throws vtools::Error on a bad launch.
#pragma once

#include <cuda_bf16.h>
#include <cuda_runtime.h>

namespace vtools::vbench::cuda {

/// Largest head size attention_forward supports (its per-lane accumulators and shared tiles are sized by it).
inline constexpr int kMaxHeadSize = 128;

/// Causal multi-head attention, fused (flash-style: key tiles in shared memory, online softmax in fp32, no T x T
/// matrix; bf16 with head size 16, 32 or 64 runs on tensor cores, P.V in fp16): qkv is [B][T][3C] (q, k, v each
/// split into NH heads of C/NH), out is [B][T][C] with head h in columns [h*hs, (h+1)*hs). Any T; head size
/// hs = C/NH must divide C and be at most kMaxHeadSize.
template <typename A>
void attention_forward(A* d_out, const A* d_qkv, int B, int T, int C, int NH, cudaStream_t stream,
                       bool programmatic = false);

}  // namespace vtools::vbench::cuda
