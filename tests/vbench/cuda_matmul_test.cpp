// cuda::Matmul (cuBLASLt, fused bias / GELU epilogues) vs cpu::matmul_forward (+ cpu::gelu_forward) in fp32, tf32 and
// bf16, both weight layouts, on random shapes (gpu label).
#include <doctest/doctest.h>

#include <cublasLt.h>

#include <cmath>
#include <memory>
#include <string>

#include "libcommon/error.hpp"
#include "tests/vbench/cuda_random_check.hpp"
#include "tools/vbench/cuda/matmul.hpp"
#include "tools/vbench/ops/cpu_ops.hpp"

namespace vtools::vbench {
namespace {

struct LtHandle {
  LtHandle() { cuda::check_cublas(cublasLtCreate(&handle), "cublasLtCreate", "test handle"); }
  ~LtHandle() { cublasLtDestroy(handle); }
  cublasLtHandle_t handle = nullptr;
};

const char* dtype_name(DType dtype) {
  return dtype == DType::kFp32 ? "fp32" : dtype == DType::kTf32 ? "tf32" : "bf16";
}

template <typename A>
void matmul_case(cublasLtHandle_t lt, cuda_test::Random& rng, cuda::MatmulShape shape, DType dtype,
                 cuda::Epilogue epilogue) {
  const int M = shape.M, N = shape.N, K = shape.K;
  CAPTURE(M);
  CAPTURE(N);
  CAPTURE(K);
  CAPTURE(shape.weight_out_by_in);
  CAPTURE(dtype_name(dtype));
  CAPTURE(static_cast<int>(epilogue));
  const auto x = cuda_test::representable<A>(rng.normal(static_cast<std::size_t>(M) * K));
  const auto w = cuda_test::representable<A>(rng.normal(static_cast<std::size_t>(K) * N, 1.f / std::sqrt(K)));
  const auto bias = cuda_test::representable<A>(rng.normal(N));
  const bool has_bias = epilogue != cuda::Epilogue::kNone;
  std::vector<float> ref(static_cast<std::size_t>(M) * N);
  cpu::matmul_forward(ref.data(), x.data(), w.data(), has_bias ? bias.data() : nullptr, M, K, N,
                      shape.weight_out_by_in ? cpu::WeightLayout::kOutIn : cpu::WeightLayout::kInOut);
  if (epilogue == cuda::Epilogue::kBiasGelu) cpu::gelu_forward(ref.data(), ref.data(), static_cast<std::int64_t>(ref.size()));

  constexpr std::size_t kWorkspace = 32u << 20;
  cuda::Matmul mm(lt, shape, dtype, epilogue, kWorkspace);
  cuda::DeviceBuffer d_x = cuda_test::to_device<A>(x);
  cuda::DeviceBuffer d_w = cuda_test::to_device<A>(w);
  cuda::DeviceBuffer d_bias = cuda_test::to_device<A>(bias);
  cuda::DeviceBuffer d_y(ref.size() * sizeof(A), "matmul output"), d_ws(kWorkspace, "workspace");
  // The measured choice must compute the same product as any other candidate.
  const int measured = mm.choose_fastest(d_y.get(), d_x.get(), d_w.get(), has_bias ? d_bias.get() : nullptr,
                                         d_ws.get(), nullptr);
  const std::string epilogue_kind = mm.epilogue_fused() ? ": fused epilogue" : ": separate epilogue kernel";
  MESSAGE(mm.description() << epilogue_kind << ", " << measured << " algorithms measured");
  mm.run(d_y.get(), d_x.get(), d_w.get(), has_bias ? d_bias.get() : nullptr, d_ws.get(), nullptr);
  // Outputs are ~N(0, 1) (weights scaled by 1/sqrt(K)). fp32: summation order only. tf32: 10-bit mantissa
  // products (~5e-4 relative each, random signs). bf16: exact bf16 inputs, fp32 accumulation, output rounded to bf16.
  const double tol = dtype == DType::kFp32 ? 1e-4 : dtype == DType::kTf32 ? 5e-3 : 1e-2;
  cuda_test::check_close(cuda_test::to_host<A>(d_y, ref.size()), ref, tol, tol, mm.description());
}

TEST_CASE("matmul: matches cpu::matmul_forward for every dtype, epilogue and weight layout") {
  const auto seed = cuda_test::test_seed();
  INFO("VTOOLS_TEST_SEED=" << seed);
  cuda_test::Random rng(seed);
  LtHandle lt;
  for (const auto epilogue : {cuda::Epilogue::kNone, cuda::Epilogue::kBias, cuda::Epilogue::kBiasGelu}) {
    for (const bool out_by_in : {false, true}) {
      // Odd sizes in fp32/tf32. bf16 keeps N and K multiples of 8 (16-byte rows): the tensor-core kernels cuBLASLt
      // offers need that, and every built-in config has it; M (the rows, cuBLASLt's n) stays free.
      const cuda::MatmulShape odd{rng.uniform_int(1, 300), rng.uniform_int(1, 300), rng.uniform_int(1, 300), out_by_in};
      matmul_case<float>(lt.handle, rng, odd, DType::kFp32, epilogue);
      matmul_case<float>(lt.handle, rng, odd, DType::kTf32, epilogue);
      const cuda::MatmulShape even{rng.uniform_int(1, 300), 8 * rng.uniform_int(1, 40), 8 * rng.uniform_int(1, 40),
                                   out_by_in};
      matmul_case<__nv_bfloat16>(lt.handle, rng, even, DType::kBf16, epilogue);
    }
  }
  // gpt2's shapes at B=4, T=64: c_attn, c_fc (GELU) and an LM head slice.
  matmul_case<__nv_bfloat16>(lt.handle, rng, {256, 2304, 768}, DType::kBf16, cuda::Epilogue::kBias);
  matmul_case<__nv_bfloat16>(lt.handle, rng, {256, 3072, 768}, DType::kBf16, cuda::Epilogue::kBiasGelu);
  matmul_case<__nv_bfloat16>(lt.handle, rng, {256, 4096, 768, true}, DType::kBf16, cuda::Epilogue::kNone);
  matmul_case<float>(lt.handle, rng, {256, 192, 48}, DType::kFp32, cuda::Epilogue::kBiasGelu);  // gpt_nano c_fc
}

/// A split-K plan: its fp32 partial products [S][M][N] summed on the host vs cpu::matmul_forward.
template <typename A>
void split_k_case(cublasLtHandle_t lt, cuda_test::Random& rng, cuda::MatmulShape shape, DType dtype) {
  const int M = shape.M, N = shape.N, K = shape.K, S = shape.k_splits;
  CAPTURE(M);
  CAPTURE(N);
  CAPTURE(K);
  CAPTURE(S);
  CAPTURE(dtype_name(dtype));
  const auto x = cuda_test::representable<A>(rng.normal(static_cast<std::size_t>(M) * K));
  const auto w = cuda_test::representable<A>(rng.normal(static_cast<std::size_t>(K) * N, 1.f / std::sqrt(K)));
  const std::size_t n = static_cast<std::size_t>(M) * N;
  std::vector<float> ref(n);
  cpu::matmul_forward(ref.data(), x.data(), w.data(), nullptr, M, K, N, cpu::WeightLayout::kInOut);

  constexpr std::size_t kWorkspace = 32u << 20;
  cuda::Matmul mm(lt, shape, dtype, cuda::Epilogue::kNone, kWorkspace);
  cuda::DeviceBuffer d_x = cuda_test::to_device<A>(x);
  cuda::DeviceBuffer d_w = cuda_test::to_device<A>(w);
  cuda::DeviceBuffer d_y(S * n * sizeof(float), "partials"), d_ws(kWorkspace, "workspace");
  mm.choose_fastest(d_y.get(), d_x.get(), d_w.get(), nullptr, d_ws.get(), nullptr);
  mm.run(d_y.get(), d_x.get(), d_w.get(), nullptr, d_ws.get(), nullptr);
  const std::vector<float> partials = cuda_test::to_host<float>(d_y, S * n);
  std::vector<float> sum(n, 0.f);
  for (int s = 0; s < S; ++s) {
    for (std::size_t i = 0; i < n; ++i) sum[i] += partials[s * n + i];
  }
  // fp32 output: bf16 inputs are exact, so only the summation order differs from the reference.
  const double tol = dtype == DType::kTf32 ? 5e-3 : 1e-4;
  cuda_test::check_close(sum, ref, tol, tol, mm.description());
}

TEST_CASE("matmul: split-K plans write partial products that sum to the product") {
  const auto seed = cuda_test::test_seed();
  INFO("VTOOLS_TEST_SEED=" << seed);
  cuda_test::Random rng(seed);
  LtHandle lt;
  for (const int S : {1, 2, 3, 4}) {
    const cuda::MatmulShape shape{rng.uniform_int(1, 300), 8 * rng.uniform_int(1, 40), 8 * S * rng.uniform_int(1, 12),
                                  false, S};
    split_k_case<float>(lt.handle, rng, shape, DType::kFp32);
    split_k_case<float>(lt.handle, rng, shape, DType::kTf32);
    split_k_case<__nv_bfloat16>(lt.handle, rng, shape, DType::kBf16);
  }
  split_k_case<__nv_bfloat16>(lt.handle, rng, {256, 768, 3072, false, 4}, DType::kBf16);  // gpt2's c_proj of the MLP
  try {
    cuda::Matmul bad(lt.handle, {256, 768, 100, false, 4}, DType::kBf16, cuda::Epilogue::kNone, 0);
    FAIL("no error");
  } catch (const Error& e) {
    CHECK(e.code() == ExitCode::kInternal);
  }
}

}  // namespace
}  // namespace vtools::vbench
