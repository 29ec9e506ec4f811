// cpu::residual_forward: the residual add (llm.c residual_forward); also cpu_threads().
#include "tools/vbench/ops/cpu_ops.hpp"

#ifdef _OPENMP
#include <omp.h>
#endif

namespace vtools::vbench::cpu {

void residual_forward(float* out, const float* a, const float* b, std::int64_t n) {
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < n; ++i) out[i] = a[i] + b[i];
}

int cpu_threads() {
#ifdef _OPENMP
  return omp_get_max_threads();
#else
  return 1;
#endif
}

}  // namespace vtools::vbench::cpu
