// cpu::matmul_forward: out = inp · W + bias through cblas_sgemm when OpenBLAS is there (the bias is copied into
// out first, then beta = 1), else a cache-blocked loop nest parallel over rows.
#include <algorithm>
#include <cstring>

#include "tools/vbench/ops/cpu_ops.hpp"

#ifdef VTOOLS_HAVE_OPENBLAS
#include <cblas.h>
#endif

namespace vtools::vbench::cpu {

namespace {
void fill_bias(float* out, const float* bias, int N, int OC) {
#pragma omp parallel for schedule(static)
  for (int n = 0; n < N; ++n) {
    float* o = out + static_cast<std::int64_t>(n) * OC;
    if (bias) std::memcpy(o, bias, sizeof(float) * static_cast<std::size_t>(OC));
    else std::fill(o, o + OC, 0.0f);
  }
}
}  // namespace

void matmul_forward(float* out, const float* inp, const float* weight, const float* bias, int N, int IC, int OC,
                    WeightLayout layout) {
  fill_bias(out, bias, N, OC);
#ifdef VTOOLS_HAVE_OPENBLAS
  const bool trans = layout == WeightLayout::kOutIn;
  cblas_sgemm(CblasRowMajor, CblasNoTrans, trans ? CblasTrans : CblasNoTrans, N, OC, IC, 1.0f, inp, IC, weight,
              trans ? IC : OC, 1.0f, out, OC);
#else
  constexpr int kBlock = 64;
  if (layout == WeightLayout::kInOut) {
#pragma omp parallel for schedule(static)
    for (int n = 0; n < N; ++n) {
      float* o = out + static_cast<std::int64_t>(n) * OC;
      const float* x = inp + static_cast<std::int64_t>(n) * IC;
      for (int i0 = 0; i0 < IC; i0 += kBlock) {
        const int i1 = std::min(IC, i0 + kBlock);
        for (int i = i0; i < i1; ++i) {
          const float xi = x[i];
          const float* w = weight + static_cast<std::int64_t>(i) * OC;
          for (int j = 0; j < OC; ++j) o[j] += xi * w[j];
        }
      }
    }
  } else {
#pragma omp parallel for collapse(2) schedule(static)
    for (int n = 0; n < N; ++n) {
      for (int j = 0; j < OC; ++j) {
        const float* x = inp + static_cast<std::int64_t>(n) * IC;
        const float* w = weight + static_cast<std::int64_t>(j) * IC;
        float acc = 0;
        for (int i = 0; i < IC; ++i) acc += x[i] * w[i];
        out[static_cast<std::int64_t>(n) * OC + j] += acc;
      }
    }
  }
#endif
}

}  // namespace vtools::vbench::cpu
