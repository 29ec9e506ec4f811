// cpu::layernorm_forward: LayerNorm over channels, eps 1e-5 (llm.c layernorm_forward without the saved mean/rstd,
// which only a backward pass needs). Statistics are accumulated in double so the reference is not the weak link.
#include <cmath>

#include "tools/vbench/ops/cpu_ops.hpp"
#include "tools/vbench/ops/parallel_for.hpp"

namespace vtools::vbench::cpu {

void layernorm_forward(float* out, const float* inp, const float* weight, const float* bias, int N, int C) {
  parallel_for(N, 16, [&](std::int64_t begin, std::int64_t end) {
  for (std::int64_t n = begin; n < end; ++n) {
    const float* x = inp + static_cast<std::int64_t>(n) * C;
    float* o = out + static_cast<std::int64_t>(n) * C;
    double sum = 0;
    for (int c = 0; c < C; ++c) sum += x[c];
    const double m = sum / C;
    double var = 0;
    for (int c = 0; c < C; ++c) var += (x[c] - m) * (x[c] - m);
    const float rstd = static_cast<float>(1.0 / std::sqrt(var / C + 1e-5));
    const float mean = static_cast<float>(m);
    for (int c = 0; c < C; ++c) o[c] = (x[c] - mean) * rstd * weight[c] + bias[c];
  }
  });
}

}  // namespace vtools::vbench::cpu
