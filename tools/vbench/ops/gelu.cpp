// cpu::gelu_forward: GELU with the tanh approximation GPT-2 uses (llm.c gelu_forward).
#include <cmath>
#include <numbers>

#include "tools/vbench/ops/cpu_ops.hpp"
#include "tools/vbench/ops/parallel_for.hpp"

namespace vtools::vbench::cpu {

void gelu_forward(float* out, const float* inp, std::int64_t n) {
  const float k = static_cast<float>(std::sqrt(2.0 / std::numbers::pi));
  parallel_for(n, 4096, [&](std::int64_t begin, std::int64_t end) {
    for (std::int64_t i = begin; i < end; ++i) {
      const float x = inp[i];
      out[i] = 0.5f * x * (1.0f + std::tanh(k * (x + 0.044715f * x * x * x)));
    }
  });
}

}  // namespace vtools::vbench::cpu
