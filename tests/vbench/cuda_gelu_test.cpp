// cuda::bias_gelu_forward (the matmul's unfused epilogue) vs cpu bias add + cpu::gelu_forward (gpu label).
#include <doctest/doctest.h>

#include "tests/vbench/cuda_random_check.hpp"
#include "tools/vbench/ops/cpu_ops.hpp"
#include "tools/vbench/ops/gelu.hpp"

namespace vtools::vbench {
namespace {

template <typename A>
void bias_gelu_case(cuda_test::Random& rng, int rows, int N, bool with_bias, bool gelu) {
  CAPTURE(rows);
  CAPTURE(N);
  CAPTURE(with_bias);
  CAPTURE(gelu);
  const std::size_t n = static_cast<std::size_t>(rows) * N;
  const auto x = cuda_test::representable<A>(rng.normal(n, 2.f));
  const auto bias = cuda_test::representable<A>(rng.normal(N));
  std::vector<float> ref = x;
  for (std::size_t i = 0; i < n && with_bias; ++i) ref[i] += bias[i % N];
  if (gelu) cpu::gelu_forward(ref.data(), ref.data(), static_cast<std::int64_t>(n));
  cuda::DeviceBuffer d_x = cuda_test::to_device<A>(x);
  cuda::DeviceBuffer d_bias = cuda_test::to_device<A>(bias);
  cuda::bias_gelu_forward(d_x.as<A>(), with_bias ? d_bias.as<A>() : nullptr, gelu, rows, N, nullptr);
  const bool bf16 = std::is_same_v<A, __nv_bfloat16>;
  cuda_test::check_close(cuda_test::to_host<A>(d_x, n), ref, bf16 ? 1e-2 : 1e-6, bf16 ? 8e-3 : 1e-5,
                         "bias_gelu_forward");
}

TEST_CASE("gelu: bias_gelu_forward matches the cpu bias add and cpu::gelu_forward") {
  const auto seed = cuda_test::test_seed();
  INFO("VTOOLS_TEST_SEED=" << seed);
  cuda_test::Random rng(seed);
  for (const bool with_bias : {false, true}) {
    for (const bool gelu : {false, true}) {
      const int rows = rng.uniform_int(1, 300), N = rng.uniform_int(1, 3000);
      bias_gelu_case<float>(rng, rows, N, with_bias, gelu);
      bias_gelu_case<__nv_bfloat16>(rng, rows, N, with_bias, gelu);
    }
  }
}

}  // namespace
}  // namespace vtools::vbench
