// The launcher of ops/encoder.cu, the cuda:: peer of cpu::encoder_forward (encoder.cpp). P is float (fp32, tf32) or
// __nv_bfloat16 (bf16). It enqueues on `stream` (graph-capture safe: no sync, no allocation) and throws vtools::Error
// on a bad launch. Row-major: [B][T][C] activations, [V][C] token embeddings, [block][C] position embeddings.
#pragma once

#include <cuda_bf16.h>
#include <cuda_runtime.h>

namespace vtools::vbench::cuda {

/// residual[b][t][:] = wte[tokens[b][t]][:] + wpe[t][:] in fp32. Tokens must be < the rows of wte (checked by the
/// caller on the host). `programmatic` here and in layernorm_forward and attention_forward: launched as a
/// programmatic dependent of the kernel before (programmatic.cuh).
template <typename P>
void encoder_forward(float* d_residual, const int* d_tokens, const P* d_wte, const P* d_wpe, int B, int T, int C,
                     cudaStream_t stream, bool programmatic = false);

}  // namespace vtools::vbench::cuda
