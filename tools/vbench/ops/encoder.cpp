// cpu::encoder_forward: token + position embedding (llm.c encoder_forward).
#include "tools/vbench/ops/cpu_ops.hpp"
#include "tools/vbench/ops/parallel_for.hpp"

namespace vtools::vbench::cpu {

void encoder_forward(float* out, const std::int32_t* tokens, const float* wte, const float* wpe, int B, int T, int C) {
  parallel_for(static_cast<std::int64_t>(B) * T, 64, [&](std::int64_t begin, std::int64_t end) {
    for (std::int64_t bt = begin; bt < end; ++bt) {
      const std::int64_t b = bt / T, t = bt % T;
      float* o = out + (static_cast<std::int64_t>(b) * T + t) * C;
      const float* te = wte + static_cast<std::int64_t>(tokens[b * T + t]) * C;
      const float* pe = wpe + static_cast<std::int64_t>(t) * C;
      for (int c = 0; c < C; ++c) o[c] = te[c] + pe[c];
    }
  });
}

}  // namespace vtools::vbench::cpu
