// cuda::tile_gemm_forward (the own bf16 tensor-core GEMM) vs cpu::matmul_forward (+ cpu::gelu_forward) on random
// shapes: rows not a multiple of its 64-row tiles, columns and depths not multiples of its 64 x 32 tiles, every
// epilogue, split-K products 1-4 summed on the host, and gpt2's shapes (gpu label).
#include <doctest/doctest.h>

#include <cuda_bf16.h>

#include <cmath>
#include <string>
#include <vector>

#include "libcommon/error.hpp"
#include "tests/vbench/cuda_random_check.hpp"
#include "tools/vbench/cuda/tile_gemm.hpp"
#include "tools/vbench/ops/cpu_ops.hpp"

namespace vtools::vbench {
namespace {

using bf16 = __nv_bfloat16;

void tile_gemm_case(cuda_test::Random& rng, cuda::MatmulShape shape, cuda::Epilogue epilogue) {
  const int M = shape.M, N = shape.N, K = shape.K, S = shape.k_splits;
  CAPTURE(M);
  CAPTURE(N);
  CAPTURE(K);
  CAPTURE(S);
  CAPTURE(static_cast<int>(epilogue));
  REQUIRE(cuda::tile_gemm_takes(shape));
  const auto x = cuda_test::representable<bf16>(rng.normal(static_cast<std::size_t>(M) * K));
  const auto w = cuda_test::representable<bf16>(rng.normal(static_cast<std::size_t>(K) * N, 1.f / std::sqrt(K)));
  const auto bias = cuda_test::representable<bf16>(rng.normal(N));
  const bool has_bias = epilogue != cuda::Epilogue::kNone;
  const std::size_t n = static_cast<std::size_t>(M) * N;
  std::vector<float> ref(n);
  cpu::matmul_forward(ref.data(), x.data(), w.data(), has_bias ? bias.data() : nullptr, M, K, N,
                      cpu::WeightLayout::kInOut);
  if (epilogue == cuda::Epilogue::kBiasGelu) cpu::gelu_forward(ref.data(), ref.data(), static_cast<std::int64_t>(n));

  const cuda::DeviceBuffer d_x = cuda_test::to_device<bf16>(x);
  const cuda::DeviceBuffer d_w = cuda_test::to_device<bf16>(w);
  const cuda::DeviceBuffer d_bias = cuda_test::to_device<bf16>(bias);
  const std::size_t out_bytes = S > 0 ? S * n * sizeof(float) : n * sizeof(bf16);
  cuda::DeviceBuffer d_y(out_bytes, "tile GEMM output");
  // NaN bits everywhere first: every output element must be written.
  cuda::check_cuda(cudaMemset(d_y.get(), 0xff, out_bytes), "cudaMemset");
  cuda::tile_gemm_forward(shape, epilogue, d_y.get(), d_x.as<bf16>(), d_w.as<bf16>(),
                          has_bias ? d_bias.as<bf16>() : nullptr, nullptr);
  cuda::check_cuda(cudaDeviceSynchronize(), "cudaDeviceSynchronize", "tile_gemm_forward");
  const std::string what = "tile GEMM M=" + std::to_string(M) + " N=" + std::to_string(N) + " K=" + std::to_string(K);
  if (S > 0) {
    // fp32 partials of exact bf16 inputs: only the summation order differs from the reference.
    const std::vector<float> partials = cuda_test::to_host<float>(d_y, S * n);
    std::vector<float> sum(n, 0.f);
    for (int s = 0; s < S; ++s) {
      for (std::size_t i = 0; i < n; ++i) sum[i] += partials[s * n + i];
    }
    cuda_test::check_close(sum, ref, 1e-4, 1e-4, what);
  } else {
    // Outputs ~N(0, 1), rounded to bf16 (8 bits).
    cuda_test::check_close(cuda_test::to_host<bf16>(d_y, n), ref, 1e-2, 1e-2, what);
  }
}

TEST_CASE("tile_gemm: matches cpu::matmul_forward for every epilogue and split") {
  const auto seed = cuda_test::test_seed();
  INFO("VTOOLS_TEST_SEED=" << seed);
  cuda_test::Random rng(seed);
  for (int rep = 0; rep < 3; ++rep) {
    for (const auto epilogue : {cuda::Epilogue::kBias, cuda::Epilogue::kBiasGelu}) {
      tile_gemm_case(rng, {rng.uniform_int(1, 300), 8 * rng.uniform_int(1, 40), 8 * rng.uniform_int(1, 40)},
                     epilogue);
    }
    for (const int S : {1, 2, 3, 4}) {
      tile_gemm_case(rng, {rng.uniform_int(1, 300), 8 * rng.uniform_int(1, 40), 8 * S * rng.uniform_int(1, 12),
                           false, S},
                     cuda::Epilogue::kNone);
    }
  }
  // gpt2 at B=4, T=64: c_attn, c_fc (GELU), the attention projection in 2 products, the MLP's in 4.
  tile_gemm_case(rng, {256, 2304, 768}, cuda::Epilogue::kBias);
  tile_gemm_case(rng, {256, 3072, 768}, cuda::Epilogue::kBiasGelu);
  tile_gemm_case(rng, {256, 768, 768, false, 2}, cuda::Epilogue::kNone);
  tile_gemm_case(rng, {256, 768, 3072, false, 4}, cuda::Epilogue::kNone);
}

TEST_CASE("tile_gemm: the shapes it takes") {
  CHECK(cuda::tile_gemm_takes({1, 8, 8}));
  CHECK(cuda::tile_gemm_takes({256, 768, 3072, false, 4}));
  CHECK_FALSE(cuda::tile_gemm_takes({256, 768, 3072, true}));      // W as [N][K]
  CHECK_FALSE(cuda::tile_gemm_takes({256, 100, 768}));             // N not a multiple of 8
  CHECK_FALSE(cuda::tile_gemm_takes({256, 768, 100}));             // K not a multiple of 8
  CHECK_FALSE(cuda::tile_gemm_takes({256, 768, 776, false, 2}));   // K / 2 not a multiple of 8
  CHECK_FALSE(cuda::tile_gemm_takes({256, 768, 3072, false, 5}));  // more products than a layer norm sums
  CHECK_FALSE(cuda::tile_gemm_takes({0, 768, 768}));
  try {
    cuda::tile_gemm_forward({256, 768, 768, false, 2}, cuda::Epilogue::kBias, nullptr, nullptr, nullptr, nullptr,
                            nullptr);
    FAIL("no error");
  } catch (const Error& e) {
    CHECK(e.code() == ExitCode::kInternal);
  }
}

}  // namespace
}  // namespace vtools::vbench
