// cpu::matmul_forward: out = inp · W + bias through cblas_sgemm when OpenBLAS is there, else a cache-blocked loop
// nest parallel over rows.
// Threading: OpenBLAS runs single-threaded and parallel_for splits the output columns into one slab per thread, so
// one thread pool owns the cores (two pools fighting over 2 cores slowed gpt_nano down 4x).
// Each slab goes to sgemm in chunks of columns whose output block stays in cache: the bias is copied into the block
// (or, without a bias, beta = 0) just before sgemm adds to it. Filling the whole output first and then adding to it
// cost the LM head two extra passes over its logits (51.5 MB for gpt_nano at B=4 T=64).
#include <algorithm>
#include <cstring>

#include "tools/vbench/ops/cpu_ops.hpp"
#include "tools/vbench/ops/parallel_for.hpp"

#ifdef VTOOLS_HAVE_OPENBLAS
#include <cblas.h>
#endif

namespace vtools::vbench::cpu {

namespace {
/// Rows 0..N-1 of `out` (row stride `stride`), `width` columns each: the bias, or zero without one.
void fill_bias(float* out, const float* bias, int N, int width, int stride) {
  for (std::int64_t n = 0; n < N; ++n) {
    float* o = out + n * stride;
    if (bias) std::memcpy(o, bias, sizeof(float) * static_cast<std::size_t>(width));
    else std::fill(o, o + width, 0.0f);
  }
}
}  // namespace

void matmul_forward(float* out, const float* inp, const float* weight, const float* bias, int N, int IC, int OC,
                    WeightLayout layout) {
#ifdef VTOOLS_HAVE_OPENBLAS
  static const bool single_threaded_blas = [] {
    openblas_set_num_threads(1);
    return true;
  }();
  (void)single_threaded_blas;
  const bool trans = layout == WeightLayout::kOutIn;
  const int slabs = std::max(1, std::min(cpu_threads(), OC / 16));
  // Columns per sgemm call: an output block of about 512 KB (N rows), a multiple of 16 columns, at least 256 (each
  // call packs inp again). Past 1024 rows such a block no longer stays in cache and the repacking costs more than
  // the chunks save (gpt_nano cpu at B=16 T=128: 294 -> 342 ms with 256-column chunks), so one call per slab.
  const int chunk = N > 1024 ? OC : std::max(256, std::min(OC, (128 << 10) / std::max(N, 1)) / 16 * 16);
  parallel_for(slabs, 1, [&](std::int64_t s0, std::int64_t s1) {
  for (std::int64_t s = s0; s < s1; ++s) {
    // Slab boundaries rounded to 16 columns so each sgemm gets aligned, vector-friendly widths.
    const int j0 = static_cast<int>(static_cast<std::int64_t>(OC) * s / slabs) / 16 * 16;
    const int j1 = s + 1 == slabs ? OC : static_cast<int>(static_cast<std::int64_t>(OC) * (s + 1) / slabs) / 16 * 16;
    for (int c0 = j0; c0 < j1; c0 += chunk) {
      const int c1 = std::min(j1, c0 + chunk);
      if (bias) fill_bias(out + c0, bias + c0, N, c1 - c0, OC);
      const float* w = trans ? weight + static_cast<std::int64_t>(c0) * IC : weight + c0;
      cblas_sgemm(CblasRowMajor, CblasNoTrans, trans ? CblasTrans : CblasNoTrans, N, c1 - c0, IC, 1.0f, inp, IC, w,
                  trans ? IC : OC, bias ? 1.0f : 0.0f, out + c0, OC);
    }
  }
  });
#else
  fill_bias(out, bias, N, OC, OC);
  constexpr int kBlock = 64;
  if (layout == WeightLayout::kInOut) {
    parallel_for(N, 1, [&](std::int64_t n0, std::int64_t n1) {
    for (std::int64_t n = n0; n < n1; ++n) {
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
    });
  } else {
    parallel_for(static_cast<std::int64_t>(N) * OC, 256, [&](std::int64_t k0, std::int64_t k1) {
    for (std::int64_t k = k0; k < k1; ++k) {
      const std::int64_t n = k / OC, j = k % OC;
      {
        const float* x = inp + static_cast<std::int64_t>(n) * IC;
        const float* w = weight + static_cast<std::int64_t>(j) * IC;
        float acc = 0;
        for (int i = 0; i < IC; ++i) acc += x[i] * w[i];
        out[n * OC + j] += acc;
      }
    }
    });
  }
#endif
}

}  // namespace vtools::vbench::cpu
