// The whole GPT forward on the CPU in fp32, composed from the cpu:: ops (ops/cpu_ops.hpp). Owns the activation
// buffers for one (B, T) so repeated forwards allocate nothing.
#pragma once

#include <cstdint>
#include <vector>

#include "tools/vbench/model.hpp"

namespace vtools::vbench {

class CpuForward {
 public:
  /// Allocates activations for batch B, sequence T (1 <= T <= block_size); `weights` must outlive this object.
  CpuForward(const GptWeights& weights, int B, int T);

  /// Runs one forward on tokens [B][T]; the logits [B][T][V] are in logits() afterwards.
  void forward(const std::int32_t* tokens);
  [[nodiscard]] const std::vector<float>& logits() const { return logits_; }

 private:
  const GptWeights& w_;
  int B_, T_;
  std::vector<float> x_, ln_, qkv_, att_, proj_, fc_, gelu_, logits_;
};

}  // namespace vtools::vbench
