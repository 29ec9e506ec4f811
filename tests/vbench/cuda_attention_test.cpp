// cuda::attention_forward (fused, flash-style) vs cpu::attention_forward on random shapes, head sizes and sequence
// lengths that are not multiples of the kernel's tiles (gpu label).
#include <doctest/doctest.h>

#include <string>

#include "libcommon/error.hpp"
#include "tests/vbench/cuda_random_check.hpp"
#include "tools/vbench/ops/attention.hpp"
#include "tools/vbench/ops/cpu_ops.hpp"

namespace vtools::vbench {
namespace {

template <typename A>
void attention_case(cuda_test::Random& rng, int B, int T, int NH, int hs) {
  CAPTURE(B);
  CAPTURE(T);
  CAPTURE(NH);
  CAPTURE(hs);
  const int C = NH * hs;
  const std::size_t n_qkv = static_cast<std::size_t>(B) * T * 3 * C, n_out = static_cast<std::size_t>(B) * T * C;
  // std 1 scores at hs up to 128 give sharp, varied softmaxes (scores ~ N(0, 1) after the 1/sqrt(hs) scale).
  const auto qkv = cuda_test::representable<A>(rng.normal(n_qkv));
  std::vector<float> ref(n_out);
  cpu::attention_forward(ref.data(), qkv.data(), B, T, C, NH);

  cuda::DeviceBuffer d_qkv = cuda_test::to_device<A>(qkv);
  cuda::DeviceBuffer d_out(n_out * sizeof(A), "attention output");
  cuda::attention_forward(d_out.as<A>(), d_qkv.as<A>(), B, T, C, NH, nullptr);
  // fp32: exp2f/fast reductions vs the cpu's expf, order of sums. bf16: the output rounding (2^-8 relative).
  const bool bf16 = std::is_same_v<A, __nv_bfloat16>;
  cuda_test::check_close(cuda_test::to_host<A>(d_out, n_out), ref, bf16 ? 1e-2 : 2e-5, bf16 ? 1e-2 : 1e-4,
                         "attention_forward");
}

TEST_CASE("attention: matches cpu::attention_forward on random shapes") {
  const auto seed = cuda_test::test_seed();
  INFO("VTOOLS_TEST_SEED=" << seed);
  cuda_test::Random rng(seed);
  for (int round = 0; round < 4; ++round) {
    const int B = rng.uniform_int(1, 3), T = rng.uniform_int(1, 200), NH = rng.uniform_int(1, 5);
    const int hs = rng.uniform_int(1, cuda::kMaxHeadSize);
    attention_case<float>(rng, B, T, NH, hs);
    attention_case<__nv_bfloat16>(rng, B, T, NH, hs);
  }
  // The shapes vbench runs: gpt_nano (hs 16) and gpt2 (hs 64) at T=64, one tile edge (T=33), a long sequence.
  attention_case<float>(rng, 4, 64, 3, 16);
  attention_case<__nv_bfloat16>(rng, 4, 64, 12, 64);
  attention_case<float>(rng, 2, 33, 2, 32);
  attention_case<float>(rng, 1, 1024, 2, 64);
  attention_case<__nv_bfloat16>(rng, 2, 300, 3, 64);  // bf16 on tensor cores: 5 query blocks x 5 key tiles
  attention_case<float>(rng, 1, 7, 1, cuda::kMaxHeadSize);
  // Every head size with its own kernel (16, 32, 64), both dtypes, odd lengths across the 32- and 64-key tiles.
  for (const int hs : {16, 32, 64}) {
    attention_case<float>(rng, 2, 37, 3, hs);
    attention_case<__nv_bfloat16>(rng, 2, 97, 2, hs);
    attention_case<__nv_bfloat16>(rng, 1, 1, 1, hs);
  }
}

TEST_CASE("attention: a head size over the kernel's limit is refused with the shape") {
  try {
    cuda::attention_forward<float>(nullptr, nullptr, 1, 8, 2 * 160, 2, nullptr);
    FAIL("no error");
  } catch (const Error& e) {
    CHECK(e.code() == ExitCode::kUnavailable);
    CHECK(e.message() == "the cuda attention kernel supports head sizes up to 128, got 160 (B=1 T=8 C=320 NH=2)");
  }
}

}  // namespace
}  // namespace vtools::vbench
