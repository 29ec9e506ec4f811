// cuda::lm_head_tf32_forward (the own persistent 3xTF32 head) vs an fp64 product on random shapes: partial M tiles,
// widths ending inside a 32-wide chunk, more M tiles than SMs; every logit written and nothing past the last row; the
// shapes it takes (gpu label; needs a compute capability 9.0 device and says so where there is none).
#include <doctest/doctest.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "libcommon/error.hpp"
#include "libcommon/stats.hpp"
#include "tests/vbench/cuda_random_check.hpp"
#include "tools/vbench/cuda/device_weights.hpp"
#include "tools/vbench/cuda/gpt_forward.hpp"
#include "tools/vbench/ops/lm_head_tf32.hpp"

namespace vtools::vbench {
namespace {

int device() {
  int d = 0;
  cuda::check_cuda(cudaGetDevice(&d), "cudaGetDevice");
  return d;
}

/// Y = X W^T from x split as the final layer norm writes it ([x_lo | x_hi | x_hi]) and plain fp32 weights, against
/// the fp64 product of the unsplit x: 3xTF32 drops x_lo w_lo and TF32's rounding of lo, ~2^-22 of each product.
void head_case(cuda_test::Random& rng, int M, int N, int C) {
  CAPTURE(M);
  CAPTURE(N);
  CAPTURE(C);
  REQUIRE(cuda::lm_head_tf32_takes(M, N, C, device()));
  const std::vector<float> x = rng.normal(static_cast<std::size_t>(M) * C);
  const std::vector<float> w = rng.normal(static_cast<std::size_t>(N) * C);
  std::vector<float> x_split(static_cast<std::size_t>(M) * 3 * C);
  for (int r = 0; r < M; ++r) {
    for (int k = 0; k < C; ++k) {
      const float v = x[static_cast<std::size_t>(r) * C + k], hi = cuda::tf32_round(v);
      float* row = &x_split[static_cast<std::size_t>(r) * 3 * C];
      row[k] = cuda::tf32_round(v - hi);
      row[C + k] = row[2 * C + k] = hi;
    }
  }
  std::vector<float> ref(static_cast<std::size_t>(M) * N);
  for (int r = 0; r < M; ++r) {
    for (int n = 0; n < N; ++n) {
      double acc = 0;
      const float* xr = &x[static_cast<std::size_t>(r) * C];
      const float* wn = &w[static_cast<std::size_t>(n) * C];
      for (int k = 0; k < C; ++k) acc += double(xr[k]) * wn[k];
      ref[static_cast<std::size_t>(r) * N + n] = static_cast<float>(acc);
    }
  }
  const cuda::DeviceBuffer d_x = cuda_test::to_device<float>(x_split), d_w = cuda_test::to_device<float>(w);
  // One row more than Y: it must stay as poisoned (NaN), as must no logit.
  const std::size_t n = static_cast<std::size_t>(M) * N;
  cuda::DeviceBuffer d_y((n + N) * sizeof(float), "logits");
  cuda::check_cuda(cudaMemset(d_y.get(), 0xFF, d_y.bytes()), "cudaMemset", "NaN logits");
  cuda::lm_head_tf32_forward(d_y.as<float>(), d_x.as<float>(), d_w.as<float>(), M, N, C, nullptr);
  const std::vector<float> got = cuda_test::to_host<float>(d_y, n + N);
  // Sums of C unit-sized products: ~C * 2^-22 off each.
  cuda_test::check_close(std::vector<float>(got.begin(), got.begin() + static_cast<std::ptrdiff_t>(n)), ref,
                         1e-5 + 1e-6 * C, 1e-5, "lm_head_tf32 logits");
  int written_past = 0;
  for (std::size_t i = n; i < n + N; ++i) written_past += std::isnan(got[i]) ? 0 : 1;
  CHECK_MESSAGE(written_past == 0, written_past << " values written past the last row");
}

TEST_CASE("lm_head_tf32: matches an fp64 product on random shapes") {
  if (!cuda::lm_head_tf32_takes(256, 64, 48, device())) {
    MESSAGE("no compute capability 9.0 device: the own TF32 head is skipped");
    return;
  }
  const auto seed = cuda_test::test_seed();
  INFO("VTOOLS_TEST_SEED=" << seed);
  cuda_test::Random rng(seed);
  for (int i = 0; i < 6; ++i) {
    head_case(rng, rng.uniform_int(1, 300), 64 * rng.uniform_int(1, 40), 4 * rng.uniform_int(1, 32));
  }
  head_case(rng, 100, 64 * 5, 20);         // one chunk of x
  head_case(rng, 256, 64 * 97, 48);        // gpt_nano's head at B=4 T=64, fewer columns: C ends inside a chunk
  head_case(rng, 256, 64 * 97, 64);        // gpt_tile_small's: C fills both chunks
  head_case(rng, 200, 64 * 7, 96);         // 3 chunks
  head_case(rng, 256, 64 * 97, 128);       // gpt_micro's: 4 chunks
  head_case(rng, 128 * 140 + 5, 128, 12);  // more M tiles than SMs: CTAs in waves, one N tile each
}

TEST_CASE("lm_head_tf32: the shapes it takes, and an error for the others") {
  const int d = device();
  if (!cuda::lm_head_tf32_takes(256, 64, 48, d)) {
    MESSAGE("no compute capability 9.0 device: only the refusals are checked");
  }
  CHECK_FALSE(cuda::lm_head_tf32_takes(0, 64, 48, d));
  CHECK_FALSE(cuda::lm_head_tf32_takes(256, 100, 48, d));  // N not a multiple of 64
  CHECK_FALSE(cuda::lm_head_tf32_takes(256, 64, 50, d));   // rows not 16-byte aligned
  CHECK_FALSE(cuda::lm_head_tf32_takes(256, 64, 132, d));  // wider than the 128 a CTA keeps
  cuda::DeviceBuffer y(256 * 100 * sizeof(float), "logits"), x(256 * 150 * sizeof(float), "x"),
      w(100 * 50 * sizeof(float), "w");
  CHECK_THROWS_AS(cuda::lm_head_tf32_forward(y.as<float>(), x.as<float>(), w.as<float>(), 256, 100, 50, nullptr),
                  Error);
}

/// The fp32 logits [R][V] of one captured forward (after an eager one, which loads the modules outside the capture).
std::vector<float> forward_logits(cuda_test::Gpu& gpu, const cuda::GptForward& forward, int rows, int V, int Vp) {
  forward.poison_activations(gpu.stream);
  forward.enqueue(gpu.stream);
  forward.poison_activations(gpu.stream);
  cuda_test::run_as_graph(gpu.stream, [&](cudaStream_t stream) { forward.enqueue(stream); });
  const std::size_t R = static_cast<std::size_t>(rows);
  return cuda_test::unpadded(cuda_test::to_host<float>(forward.logits(), R * Vp), R, V, Vp);
}

TEST_CASE("lm_head_tf32 in the fp32 forward: the logits of cuBLASLt's 3xTF32 head, fused and unfused, with and "
          "without the head prefetch") {
  const auto seed = cuda_test::test_seed();
  INFO("VTOOLS_TEST_SEED=" << seed);
  cuda_test::Random rng(seed);
  cuda_test::Gpu gpu;
  for (const int C : {48, 64, 128}) {
    GptConfig cfg;
    cfg.name = "custom";
    cfg.n_layer = 2, cfg.n_head = C / 16, cfg.n_embd = C, cfg.vocab_size = 1001 + rng.uniform_int(0, 2000);
    cfg.block_size = 64;
    CAPTURE(C);
    CAPTURE(cfg.vocab_size);
    const GptWeights weights = cuda_test::random_weights(cfg, rng);
    const int B = rng.uniform_int(1, 4), T = rng.uniform_int(1, 64);
    const auto tokens = cuda_test::random_tokens(rng, B * T, cfg.vocab_size);
    const cuda::DeviceWeights device_weights = cuda::upload_weights(weights, DType::kFp32);
    cuda::GptForward forward(gpu.lt, device_weights, B, T);
    if (!forward.own_head_available()) {
      MESSAGE("no compute capability 9.0 device: the own TF32 head is skipped");
      return;
    }
    cuda::check_cuda(cudaMemcpy(forward.d_tokens(), tokens.data(), tokens.size() * sizeof(int),
                                cudaMemcpyHostToDevice), "cudaMemcpy", "tokens");
    forward.choose_gemm_algorithms(gpu.stream);
    std::vector<std::optional<cuda::FusedLayout>> layouts = {std::nullopt};
    for (const cuda::FusedLayout layout : forward.fused_layouts()) layouts.emplace_back(layout);
    for (const std::optional<cuda::FusedLayout> layout : layouts) {
      CAPTURE(layout.has_value());
      forward.use_fused_layers(layout);
      forward.use_own_head(false);
      forward.use_head_prefetch(false);
      const int R = B * T, V = cfg.vocab_size, Vp = device_weights.padded_vocab;
      const std::vector<float> cublas = forward_logits(gpu, forward, R, V, Vp);
      forward.use_own_head(true);
      const std::vector<float> own = forward_logits(gpu, forward, R, V, Vp);
      // The same three products in another order: fp32 rounding apart (both ~1e-7 off the fp64 reference).
      CHECK(stats::relative_l2_error(own, cublas) < 1e-6);
      forward.use_head_prefetch(true);  // the plain weights prefetched now: the same logits to the bit
      CHECK(forward_logits(gpu, forward, R, V, Vp) == own);
    }
    forward.use_own_head(false);
  }
}

}  // namespace
}  // namespace vtools::vbench
