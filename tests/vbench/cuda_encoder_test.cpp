// cuda::encoder_forward vs cpu::encoder_forward on random shapes (gpu label).
#include <doctest/doctest.h>

#include "tests/vbench/cuda_random_check.hpp"
#include "tools/vbench/ops/cpu_ops.hpp"
#include "tools/vbench/ops/encoder.hpp"

namespace vtools::vbench {
namespace {

template <typename P>
void encoder_case(cuda_test::Random& rng, int B, int T, int C, int V) {
  CAPTURE(B);
  CAPTURE(T);
  CAPTURE(C);
  CAPTURE(V);
  const auto wte = cuda_test::representable<P>(rng.normal(static_cast<std::size_t>(V) * C));
  const auto wpe = cuda_test::representable<P>(rng.normal(static_cast<std::size_t>(T) * C));
  std::vector<int> tokens(static_cast<std::size_t>(B) * T);
  for (int& t : tokens) t = rng.uniform_int(0, V - 1);
  tokens.back() = V - 1;  // the last row of wte is reachable
  std::vector<float> ref(static_cast<std::size_t>(B) * T * C);
  cpu::encoder_forward(ref.data(), tokens.data(), wte.data(), wpe.data(), B, T, C);

  cuda::DeviceBuffer d_wte = cuda_test::to_device<P>(wte);
  cuda::DeviceBuffer d_wpe = cuda_test::to_device<P>(wpe);
  cuda::DeviceBuffer d_tokens = cuda_test::to_device(tokens);
  cuda::DeviceBuffer d_out(ref.size() * sizeof(float), "encoder output");
  cuda::encoder_forward(d_out.as<float>(), d_tokens.as<int>(), d_wte.as<P>(), d_wpe.as<P>(), B, T, C, nullptr);
  // Same inputs, one fp32 add each: equal up to the last bit.
  cuda_test::check_close(cuda_test::to_host<float>(d_out, ref.size()), ref, 0, 1e-6, "encoder_forward");
}

TEST_CASE("encoder: matches cpu::encoder_forward in fp32 and from bf16 tables") {
  const auto seed = cuda_test::test_seed();
  INFO("VTOOLS_TEST_SEED=" << seed);
  cuda_test::Random rng(seed);
  for (int round = 0; round < 3; ++round) {
    const int B = rng.uniform_int(1, 5), T = rng.uniform_int(1, 70), C = rng.uniform_int(1, 300);
    const int V = rng.uniform_int(2, 1000);
    encoder_case<float>(rng, B, T, C, V);
    encoder_case<__nv_bfloat16>(rng, B, T, C, V);
  }
}

}  // namespace
}  // namespace vtools::vbench
