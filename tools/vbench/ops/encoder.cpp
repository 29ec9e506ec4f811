// cpu::encoder_forward: token + position embedding (llm.c encoder_forward).
#include "tools/vbench/ops/cpu_ops.hpp"

namespace vtools::vbench::cpu {

void encoder_forward(float* out, const std::int32_t* tokens, const float* wte, const float* wpe, int B, int T, int C) {
#pragma omp parallel for collapse(2) schedule(static)
  for (int b = 0; b < B; ++b) {
    for (int t = 0; t < T; ++t) {
      float* o = out + (static_cast<std::int64_t>(b) * T + t) * C;
      const float* te = wte + static_cast<std::int64_t>(tokens[b * T + t]) * C;
      const float* pe = wpe + static_cast<std::int64_t>(t) * C;
      for (int c = 0; c < C; ++c) o[c] = te[c] + pe[c];
    }
  }
}

}  // namespace vtools::vbench::cpu
