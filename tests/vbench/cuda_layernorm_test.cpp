// cuda::layernorm_forward (with and without the fused residual add, or the embeddings as the added output) vs
// cpu::residual_forward (or cpu::encoder_forward) + cpu::layernorm_forward on random shapes (gpu label).
#include <doctest/doctest.h>

#include <cmath>

#include "libcommon/error.hpp"
#include "tests/vbench/cuda_random_check.hpp"
#include "tools/vbench/cuda/device_weights.hpp"
#include "tools/vbench/ops/cpu_ops.hpp"
#include "tools/vbench/ops/encoder.hpp"
#include "tools/vbench/ops/layernorm.hpp"

namespace vtools::vbench {
namespace {

/// `splits` > 0: the residual add of `splits` fp32 partial products plus a bias in A; 0: no add.
template <typename A>
void layernorm_case(cuda_test::Random& rng, int rows, int C, int splits) {
  CAPTURE(rows);
  CAPTURE(C);
  CAPTURE(splits);
  const std::size_t n = static_cast<std::size_t>(rows) * C;
  const auto residual = rng.normal(n, 2.f, 0.5f);  // a non-zero mean, so the mean subtraction matters
  const auto partials = rng.normal(static_cast<std::size_t>(splits) * n, 0.5f);
  const auto proj_bias = cuda_test::representable<A>(rng.normal(C, 0.5f));
  const auto weight = rng.normal(C, 0.2f, 1.f);
  const auto bias = rng.normal(C, 0.2f);

  std::vector<float> delta(n, 0.f);  // what is added: the partials' sum plus the projection bias
  for (std::size_t i = 0; i < n; ++i) {
    for (int s = 0; s < splits; ++s) delta[i] += partials[s * n + i];
    if (splits > 0) delta[i] += proj_bias[i % C];
  }
  std::vector<float> ref_residual = residual;
  if (splits > 0) {
    cpu::residual_forward(ref_residual.data(), residual.data(), delta.data(), static_cast<std::int64_t>(n));
  }
  std::vector<float> ref(n);
  cpu::layernorm_forward(ref.data(), ref_residual.data(), weight.data(), bias.data(), rows, C);

  cuda::DeviceBuffer d_residual = cuda_test::to_device<float>(residual);
  cuda::DeviceBuffer d_partials = cuda_test::to_device<float>(partials.empty() ? std::vector<float>(1) : partials);
  cuda::DeviceBuffer d_proj_bias = cuda_test::to_device<A>(proj_bias);
  cuda::DeviceBuffer d_weight = cuda_test::to_device<float>(weight);
  cuda::DeviceBuffer d_bias = cuda_test::to_device<float>(bias);
  cuda::DeviceBuffer d_out(n * sizeof(A), "layernorm output");
  cuda::SublayerOutput<A> add;
  if (splits > 0) add = {d_partials.as<float>(), splits, d_proj_bias.as<A>()};
  cuda::layernorm_forward(d_out.as<A>(), d_residual.as<float>(), add, d_weight.as<float>(), d_bias.as<float>(), rows,
                          C, nullptr);
  // fp32: only summation order differs. bf16: the output is rounded to 8 bits of mantissa (2^-8 relative).
  const bool bf16 = std::is_same_v<A, __nv_bfloat16>;
  cuda_test::check_close(cuda_test::to_host<A>(d_out, n), ref, bf16 ? 1e-2 : 1e-5, bf16 ? 8e-3 : 1e-5,
                         "layernorm_forward output");
  cuda_test::check_close(cuda_test::to_host<float>(d_residual, n), ref_residual, 1e-5, 1e-6,
                         "layernorm_forward residual");
  {  // Fitted blocks: the same sums over fewer warps (the wide blocks' extra warps add zeros), so the same bits.
    cuda::DeviceBuffer d_residual2 = cuda_test::to_device<float>(residual);
    cuda::DeviceBuffer d_out2(n * sizeof(A), "layernorm output");
    cuda::layernorm_forward(d_out2.as<A>(), d_residual2.as<float>(), add, d_weight.as<float>(), d_bias.as<float>(),
                            rows, C, nullptr, false, cuda::LayerNormBlocks::kFitted);
    CHECK(cuda_test::to_host<A>(d_out2, n) == cuda_test::to_host<A>(d_out, n));
    CHECK(cuda_test::to_host<float>(d_residual2, n) == cuda_test::to_host<float>(d_residual, n));
  }
  if constexpr (std::is_same_v<A, float>) {  // the 3xTF32 layout of the final layernorm: rows [lo | hi | hi]
    cuda::DeviceBuffer d_residual2 = cuda_test::to_device<float>(residual);
    cuda::DeviceBuffer d_out3(3 * n * sizeof(float), "layernorm split output");
    cuda::layernorm_forward_split_tf32(d_out3.as<float>(), d_residual2.as<float>(), add, d_weight.as<float>(),
                                       d_bias.as<float>(), rows, C, nullptr);
    const std::vector<float> out3 = cuda_test::to_host<float>(d_out3, 3 * n);
    std::vector<float> sum(n), hi(n);
    int not_tf32 = 0, copies_differ = 0;
    for (std::size_t r = 0; r < static_cast<std::size_t>(rows); ++r) {
      for (std::size_t c = 0; c < static_cast<std::size_t>(C); ++c) {
        const float l = out3[r * 3 * C + c], h = out3[r * 3 * C + C + c], h2 = out3[r * 3 * C + 2 * C + c];
        not_tf32 += cuda::tf32_round(h) != h || cuda::tf32_round(l) != l;
        copies_differ += h != h2;
        hi[r * C + c] = h;
        sum[r * C + c] = h + l;
      }
    }
    CHECK(not_tf32 == 0);
    CHECK(copies_differ == 0);
    cuda_test::check_close(sum, ref, 1e-5, 1e-5, "layernorm_forward_split_tf32 hi + lo");
    cuda_test::check_close(hi, ref, 1e-5, 1.0 / 1024, "layernorm_forward_split_tf32 hi");  // 10 mantissa bits
  }
}

TEST_CASE("layernorm: matches cpu::layernorm_forward, with and without the fused residual add of split-K partials") {
  const auto seed = cuda_test::test_seed();
  INFO("VTOOLS_TEST_SEED=" << seed);
  cuda_test::Random rng(seed);
  for (int round = 0; round < 3; ++round) {
    const int rows = rng.uniform_int(1, 300), C = rng.uniform_int(1, 1700);
    for (int splits = 0; splits <= cuda::kMaxSublayerSplits; ++splits) {
      layernorm_case<float>(rng, rows, C, splits);
      layernorm_case<__nv_bfloat16>(rng, rows, C, splits);
    }
  }
  layernorm_case<float>(rng, 256, 768, 1);  // gpt2 at B=4, T=64
  layernorm_case<__nv_bfloat16>(rng, 256, 768, 4);
  // Kernel 3's register counts around their limits (256 values per thread step), and kernel 2 past 2048 values.
  for (const int C : {256, 257, 1024, 2048, 2049, 2500}) {
    layernorm_case<__nv_bfloat16>(rng, rng.uniform_int(1, 40), C, rng.uniform_int(1, cuda::kMaxSublayerSplits));
    layernorm_case<float>(rng, rng.uniform_int(1, 40), C, 0);
  }
}

/// The first layer norm of the forward, the embeddings as its sublayer output: against cpu::encoder_forward then
/// cpu::layernorm_forward. The residual starts as NaN: it must be written, not read.
template <typename A>
void embedding_case(cuda_test::Random& rng, int B, int T, int C, int V) {
  CAPTURE(B);
  CAPTURE(T);
  CAPTURE(C);
  const int rows = B * T;
  const std::size_t n = static_cast<std::size_t>(rows) * C;
  const auto wte = cuda_test::representable<A>(rng.normal(static_cast<std::size_t>(V) * C));
  const auto wpe = cuda_test::representable<A>(rng.normal(static_cast<std::size_t>(T) * C, 0.5f, 0.3f));
  std::vector<int> tokens(rows);
  for (int& t : tokens) t = rng.uniform_int(0, V - 1);
  tokens.back() = V - 1;
  const auto weight = rng.normal(C, 0.2f, 1.f);
  const auto bias = rng.normal(C, 0.2f);
  std::vector<float> ref_residual(n), ref(n);
  cpu::encoder_forward(ref_residual.data(), tokens.data(), wte.data(), wpe.data(), B, T, C);
  cpu::layernorm_forward(ref.data(), ref_residual.data(), weight.data(), bias.data(), rows, C);

  cuda::DeviceBuffer d_wte = cuda_test::to_device<A>(wte), d_wpe = cuda_test::to_device<A>(wpe);
  cuda::DeviceBuffer d_tokens = cuda_test::to_device(tokens);
  cuda::DeviceBuffer d_residual = cuda_test::to_device<float>(std::vector<float>(n, std::nanf("")));
  cuda::DeviceBuffer d_weight = cuda_test::to_device<float>(weight), d_bias = cuda_test::to_device<float>(bias);
  cuda::DeviceBuffer d_out(n * sizeof(A), "layernorm output");
  const auto add = cuda::SublayerOutput<A>::embeddings(d_tokens.as<int>(), d_wte.as<A>(), d_wpe.as<A>(), T);
  cuda::layernorm_forward(d_out.as<A>(), d_residual.as<float>(), add, d_weight.as<float>(), d_bias.as<float>(), rows,
                          C, nullptr);
  const bool bf16 = std::is_same_v<A, __nv_bfloat16>;
  cuda_test::check_close(cuda_test::to_host<A>(d_out, n), ref, bf16 ? 1e-2 : 1e-5, bf16 ? 8e-3 : 1e-5,
                         "layernorm_forward output");
  // The same fp32 add as encoder_forward's: equal to the last bit.
  cuda_test::check_close(cuda_test::to_host<float>(d_residual, n), ref_residual, 0, 1e-6, "embeddings residual");
}

TEST_CASE("layernorm: the embeddings as the sublayer output (the forward's first layer norm, no encoder kernel)") {
  const auto seed = cuda_test::test_seed();
  INFO("VTOOLS_TEST_SEED=" << seed);
  cuda_test::Random rng(seed);
  for (int round = 0; round < 3; ++round) {
    const int B = rng.uniform_int(1, 5), T = rng.uniform_int(1, 70), C = rng.uniform_int(1, 1100);
    const int V = rng.uniform_int(2, 500);
    embedding_case<float>(rng, B, T, C, V);
    embedding_case<__nv_bfloat16>(rng, B, T, C, V);
  }
  embedding_case<__nv_bfloat16>(rng, 4, 64, 768, 1000);  // gpt2's width at B=4, T=64 (vector loads)
  embedding_case<float>(rng, 2, 9, 2500, 50);            // kernel 2 (past 2048 values per row)
}

TEST_CASE("layernorm: more partial products than it sums is an internal error") {
  cuda::SublayerOutput<float> add{reinterpret_cast<const float*>(16), cuda::kMaxSublayerSplits + 1, nullptr};
  try {
    cuda::layernorm_forward<float>(nullptr, nullptr, add, nullptr, nullptr, 4, 8, nullptr);
    FAIL("no error");
  } catch (const Error& e) {
    CHECK(e.code() == ExitCode::kInternal);
    CHECK(e.message() == "layernorm_forward sums 1..4 partial products, got 5 (rows=4 C=8)");
  }
}

}  // namespace
}  // namespace vtools::vbench
