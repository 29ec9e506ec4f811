// Tokens into a GptForward and logits out of it, on its stream: the host side of logits() and of the search's
// logits checks. Both wait for the stream.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <vector>

namespace vtools::vbench::cuda {

class GptForward;
struct DeviceWeights;

/// Copies `tokens` ([B][T], each in [0, V)) into forward.d_tokens(). Error(kDataError) naming the first token outside
/// the vocabulary; Error(kInternal) when their count is not B * T.
void upload_tokens(GptForward& forward, const std::vector<std::int32_t>& tokens, int vocab_size, cudaStream_t stream);

/// The logits [rows][V] of the last forward enqueued on `stream` (padding columns dropped; bf16 widened), as floats.
std::vector<float> download_logits(const GptForward& forward, const DeviceWeights& weights, cudaStream_t stream);

}  // namespace vtools::vbench::cuda
