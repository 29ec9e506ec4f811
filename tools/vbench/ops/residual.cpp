// cpu::residual_forward: the residual add (llm.c residual_forward).
#include "tools/vbench/ops/cpu_ops.hpp"
#include "tools/vbench/ops/parallel_for.hpp"

namespace vtools::vbench::cpu {

void residual_forward(float* out, const float* a, const float* b, std::int64_t n) {
  parallel_for(n, 16384, [&](std::int64_t begin, std::int64_t end) {
    for (std::int64_t i = begin; i < end; ++i) out[i] = a[i] + b[i];
  });
}

}  // namespace vtools::vbench::cpu
