#include "tools/vbench/cuda/forward_io.hpp"

#include <cstddef>
#include <string>

#include "libcommon/error.hpp"
#include "tools/vbench/cuda/cuda_error.hpp"
#include "tools/vbench/cuda/device_weights.hpp"
#include "tools/vbench/cuda/gpt_forward.hpp"

namespace vtools::vbench::cuda {

void upload_tokens(GptForward& forward, const std::vector<std::int32_t>& tokens, int vocab_size, cudaStream_t stream) {
  const std::size_t expected = static_cast<std::size_t>(forward.batch()) * forward.seq();
  if (tokens.size() != expected) {
    throw Error(ExitCode::kInternal, "got " + std::to_string(tokens.size()) + " tokens, prepared for " +
                                         std::to_string(expected));
  }
  for (std::size_t i = 0; i < tokens.size(); ++i) {
    if (tokens[i] < 0 || tokens[i] >= vocab_size) {
      throw Error(ExitCode::kDataError, "token " + std::to_string(tokens[i]) + " at position " + std::to_string(i) +
                                            " is outside the vocabulary [0, " + std::to_string(vocab_size) + ")");
    }
  }
  static_assert(sizeof(std::int32_t) == sizeof(int));
  // Synchronous from pageable memory, ordered before the next launch on the stream by the stream itself.
  check_cuda(cudaMemcpyAsync(forward.d_tokens(), tokens.data(), tokens.size() * sizeof(int), cudaMemcpyHostToDevice,
                             stream), "cudaMemcpyAsync", "tokens");
  check_cuda(cudaStreamSynchronize(stream), "cudaStreamSynchronize", "the token upload");
}

std::vector<float> download_logits(const GptForward& forward, const DeviceWeights& weights, cudaStream_t stream) {
  const std::size_t rows = static_cast<std::size_t>(forward.batch()) * forward.seq();
  const std::size_t V = weights.config.vocab_size, Vp = weights.padded_vocab;
  std::vector<float> out(rows * V);
  if (weights.dtype == DType::kBf16) {
    std::vector<std::uint16_t> bits(rows * V);
    check_cuda(cudaMemcpy2DAsync(bits.data(), V * 2, forward.logits().get(), Vp * 2, V * 2, rows,
                                 cudaMemcpyDeviceToHost, stream), "cudaMemcpy2DAsync", "logits");
    check_cuda(cudaStreamSynchronize(stream), "cudaStreamSynchronize", "the forward");
    for (std::size_t i = 0; i < bits.size(); ++i) out[i] = bf16_to_float(bits[i]);
  } else {
    check_cuda(cudaMemcpy2DAsync(out.data(), V * 4, forward.logits().get(), Vp * 4, V * 4, rows,
                                 cudaMemcpyDeviceToHost, stream), "cudaMemcpy2DAsync", "logits");
    check_cuda(cudaStreamSynchronize(stream), "cudaStreamSynchronize", "the forward");
  }
  return out;
}

}  // namespace vtools::vbench::cuda
