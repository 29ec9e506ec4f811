// cpu::attention_forward: causal softmax attention per (batch, head, query) row (llm.c attention_forward without the
// saved pre-/post-softmax buffers). The max is subtracted before exp so large scores cannot overflow.
#include <cmath>
#include <vector>

#include "tools/vbench/ops/cpu_ops.hpp"
#include "tools/vbench/ops/parallel_for.hpp"

namespace vtools::vbench::cpu {

void attention_forward(float* out, const float* qkv, int B, int T, int C, int NH) {
  const int hs = C / NH;
  const float scale = 1.0f / std::sqrt(static_cast<float>(hs));
  const std::int64_t C3 = 3 * static_cast<std::int64_t>(C);
  const std::int64_t rows = static_cast<std::int64_t>(B) * NH * T;
  parallel_for(rows, 8, [&](std::int64_t begin, std::int64_t end) {
    std::vector<float> att(static_cast<std::size_t>(T));
    for (std::int64_t row = begin; row < end; ++row) {
      const std::int64_t b = row / (static_cast<std::int64_t>(NH) * T), h = row / T % NH, t = row % T;
      {
        {
          const float* q = qkv + (static_cast<std::int64_t>(b) * T + t) * C3 + h * hs;
          float maxv = -INFINITY;
          for (int t2 = 0; t2 <= t; ++t2) {
            const float* k = qkv + (static_cast<std::int64_t>(b) * T + t2) * C3 + C + h * hs;
            float dot = 0;
            for (int i = 0; i < hs; ++i) dot += q[i] * k[i];
            dot *= scale;
            att[static_cast<std::size_t>(t2)] = dot;
            if (dot > maxv) maxv = dot;
          }
          float sum = 0;
          for (int t2 = 0; t2 <= t; ++t2) {
            const float e = std::exp(att[static_cast<std::size_t>(t2)] - maxv);
            att[static_cast<std::size_t>(t2)] = e;
            sum += e;
          }
          const float inv = 1.0f / sum;
          float* o = out + (static_cast<std::int64_t>(b) * T + t) * C + h * hs;
          for (int i = 0; i < hs; ++i) o[i] = 0;
          for (int t2 = 0; t2 <= t; ++t2) {
            const float* v = qkv + (static_cast<std::int64_t>(b) * T + t2) * C3 + 2 * C + h * hs;
            const float a = att[static_cast<std::size_t>(t2)] * inv;
            for (int i = 0; i < hs; ++i) o[i] += a * v[i];
          }
        }
      }
    }
  });
}

}  // namespace vtools::vbench::cpu
