// Random inputs (values, weights of a whole model, tokens) and the tolerance check shared by the cuda kernel tests
// (tests/vbench/cuda_*_test.cpp): fresh shapes and values every run (seed printed on failure, VTOOLS_TEST_SEED=N
// replays one), device copies, and |got - ref| <= atol + rtol * |ref| with the first mismatches printed (llm.c's
// validate_result).
#pragma once

#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <random>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include <cublasLt.h>
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include "tools/vbench/backend.hpp"
#include "tools/vbench/cuda/cuda_error.hpp"
#include "tools/vbench/cuda/device_buffer.hpp"
#include "tools/vbench/cuda/device_weights.hpp"

namespace vtools::vbench::cuda_test {

inline std::uint32_t test_seed() {
  if (const char* env = std::getenv("VTOOLS_TEST_SEED")) return static_cast<std::uint32_t>(std::strtoul(env, nullptr, 10));
  return std::random_device{}();
}

class Random {
 public:
  explicit Random(std::uint32_t seed) : engine_(seed) {}
  int uniform_int(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(engine_); }
  std::vector<float> normal(std::size_t n, float stddev = 1.f, float mean = 0.f) {
    std::normal_distribution<float> dist(mean, stddev);
    std::vector<float> v(n);
    for (float& x : v) x = dist(engine_);
    return v;
  }

 private:
  std::mt19937 engine_;
};

/// `values` rounded to what storage type A holds (bf16 rounds to nearest even; float is unchanged), as floats: the
/// exact inputs a bf16 kernel sees, so the fp32 reference gets the same ones.
template <typename A>
std::vector<float> representable(std::vector<float> values) {
  if constexpr (std::is_same_v<A, __nv_bfloat16>) {
    for (float& x : values) x = cuda::bf16_to_float(cuda::bf16_bits(x));
  }
  return values;
}

/// A device copy of `values` in storage type A.
template <typename A>
cuda::DeviceBuffer to_device(const std::vector<float>& values) {
  cuda::DeviceBuffer buffer(values.size() * sizeof(A), "test input");
  if constexpr (std::is_same_v<A, __nv_bfloat16>) {
    std::vector<std::uint16_t> bits(values.size());
    for (std::size_t i = 0; i < values.size(); ++i) bits[i] = cuda::bf16_bits(values[i]);
    buffer.upload(bits.data(), bits.size() * 2, "test input");
  } else {
    buffer.upload(values.data(), values.size() * sizeof(float), "test input");
  }
  return buffer;
}

inline cuda::DeviceBuffer to_device(const std::vector<int>& values) {
  cuda::DeviceBuffer buffer(values.size() * sizeof(int), "test tokens");
  buffer.upload(values.data(), values.size() * sizeof(int), "test tokens");
  return buffer;
}

/// `n` elements of storage type A from the device, as floats (synchronises the device first).
template <typename A>
std::vector<float> to_host(const cuda::DeviceBuffer& buffer, std::size_t n) {
  cuda::check_cuda(cudaDeviceSynchronize(), "cudaDeviceSynchronize", "the test kernels");
  std::vector<float> out(n);
  if constexpr (std::is_same_v<A, __nv_bfloat16>) {
    std::vector<std::uint16_t> bits(n);
    cuda::check_cuda(cudaMemcpy(bits.data(), buffer.get(), n * 2, cudaMemcpyDeviceToHost), "cudaMemcpy");
    for (std::size_t i = 0; i < n; ++i) out[i] = cuda::bf16_to_float(bits[i]);
  } else {
    cuda::check_cuda(cudaMemcpy(out.data(), buffer.get(), n * sizeof(float), cudaMemcpyDeviceToHost), "cudaMemcpy");
  }
  return out;
}

/// Fails the current test case when some |got[i] - ref[i]| > atol + rtol * |ref[i]| (or a value is not finite),
/// printing the count and the first five mismatches with index and both values.
inline void check_close(const std::vector<float>& got, const std::vector<float>& ref, double atol, double rtol,
                        const std::string& what) {
  REQUIRE_MESSAGE(got.size() == ref.size(), what << ": " << got.size() << " values, expected " << ref.size());
  std::ostringstream first;
  std::size_t bad = 0;
  for (std::size_t i = 0; i < got.size(); ++i) {
    const double diff = std::fabs(static_cast<double>(got[i]) - ref[i]);
    if (!(diff <= atol + rtol * std::fabs(static_cast<double>(ref[i])))) {
      if (bad < 5) first << "\n  [" << i << "] got " << got[i] << " expected " << ref[i] << " (diff " << diff << ")";
      ++bad;
    }
  }
  CHECK_MESSAGE(bad == 0, what << ": " << bad << " of " << got.size() << " values outside " << atol << " + " << rtol
                               << "*|ref|:" << first.str());
}

/// Weights with larger spreads than minGPT's init (std 0.02 makes attention uniform and logits tiny), so every
/// part of the forward moves the logits.
inline GptWeights random_weights(const GptConfig& cfg, Random& rng) {
  const std::size_t C = cfg.n_embd, V = cfg.vocab_size;
  GptWeights w;
  w.config = cfg;
  w.wte = rng.normal(V * C, 0.5f);
  w.wpe = rng.normal(cfg.block_size * C, 0.5f);
  for (int l = 0; l < cfg.n_layer; ++l) {
    LayerWeights lw;
    lw.ln1_w = rng.normal(C, 0.1f, 1.f);
    lw.ln1_b = rng.normal(C, 0.1f);
    lw.attn_w = rng.normal(C * 3 * C, 0.1f);  // scores ~N(0, 0.5): softmax far from uniform, not one-hot
    lw.attn_b = rng.normal(3 * C, 0.1f);
    lw.attn_proj_w = rng.normal(C * C, 0.1f);
    lw.attn_proj_b = rng.normal(C, 0.1f);
    lw.ln2_w = rng.normal(C, 0.1f, 1.f);
    lw.ln2_b = rng.normal(C, 0.1f);
    lw.fc_w = rng.normal(C * 4 * C, 0.2f);
    lw.fc_b = rng.normal(4 * C, 0.1f);
    lw.fc_proj_w = rng.normal(4 * C * C, 0.1f);
    lw.fc_proj_b = rng.normal(C, 0.1f);
    w.layers.push_back(std::move(lw));
  }
  w.lnf_w = rng.normal(C, 0.1f, 1.f);
  w.lnf_b = rng.normal(C, 0.1f);
  if (!cfg.tied_head) w.lm_head = rng.normal(V * C, 0.5f);
  return w;
}

inline std::vector<std::int32_t> random_tokens(Random& rng, int n, int vocab) {
  std::vector<std::int32_t> tokens(n);
  for (auto& t : tokens) t = rng.uniform_int(0, vocab - 1);
  return tokens;
}

/// The first V of every Vp values of `padded` ([rows][Vp] -> [rows][V]): logits without the padding columns.
inline std::vector<float> unpadded(const std::vector<float>& padded, std::size_t rows, std::size_t V,
                                   std::size_t Vp) {
  std::vector<float> out;
  out.reserve(rows * V);
  for (std::size_t r = 0; r < rows; ++r) out.insert(out.end(), padded.begin() + r * Vp, padded.begin() + r * Vp + V);
  return out;
}

/// Owns a cuBLASLt handle and a stream, for tests that drive a whole GptForward.
struct Gpu {
  cublasLtHandle_t lt = nullptr;
  cudaStream_t stream = nullptr;
  Gpu() {
    cuda::check_cublas(cublasLtCreate(&lt), "cublasLtCreate", "test");
    cuda::check_cuda(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreate");
  }
  ~Gpu() {
    cudaStreamDestroy(stream);
    cublasLtDestroy(lt);
  }
  Gpu(const Gpu&) = delete;
  Gpu& operator=(const Gpu&) = delete;
};

/// Captures what `enqueue(stream)` enqueues into a CUDA graph, launches it once and waits for it.
template <typename Enqueue>
void run_as_graph(cudaStream_t stream, Enqueue enqueue) {
  cudaGraph_t graph = nullptr;
  cudaGraphExec_t exec = nullptr;
  cuda::check_cuda(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal), "cudaStreamBeginCapture");
  enqueue(stream);
  cuda::check_cuda(cudaStreamEndCapture(stream, &graph), "cudaStreamEndCapture");
  cuda::check_cuda(cudaGraphInstantiate(&exec, graph, 0), "cudaGraphInstantiate");
  cuda::check_cuda(cudaGraphLaunch(exec, stream), "cudaGraphLaunch");
  cuda::check_cuda(cudaStreamSynchronize(stream), "cudaStreamSynchronize", "the captured graph");
  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(graph);
}

}  // namespace vtools::vbench::cuda_test
