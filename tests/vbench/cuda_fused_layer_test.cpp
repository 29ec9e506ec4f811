// The fused layer steps (fused_layer.cu) end to end through GptForward: the logits of the fused forward in each
// layout and of the unfused one vs the fp64 reference_forward, in every dtype, for each supported head size, with
// row counts that are not a multiple of a cluster's 16 rows or a block's 4 and sequences of more than 32 keys (a lane
// takes several); which widths fused_layer_ready takes (gpu label).
#include <doctest/doctest.h>

#include <cublasLt.h>
#include <cuda_bf16.h>

#include <cstdint>
#include <iterator>
#include <optional>
#include <string>
#include <vector>

#include "libcommon/stats.hpp"
#include "tests/vbench/cuda_random_check.hpp"
#include "tools/vbench/cuda/device_weights.hpp"
#include "tools/vbench/cuda/gpt_forward.hpp"
#include "tools/vbench/ops/fused_layer.hpp"
#include "tools/vbench/ops/kernel_math_check.hpp"
#include "tools/vbench/ops/l2_prefetch.hpp"
#include "tools/vbench/ops/layernorm.hpp"
#include "tools/vbench/reference_forward.hpp"

namespace vtools::vbench {
namespace {

using cuda_test::Gpu;

/// Logits [B*T][V] of one eager forward, fused in `layout` or unfused (nullopt).
std::vector<float> forward_logits(Gpu& gpu, const GptWeights& weights, DType dtype,
                                  std::optional<cuda::FusedLayout> layout, const std::vector<std::int32_t>& tokens,
                                  int B, int T) {
  const cuda::DeviceWeights device_weights = cuda::upload_weights(weights, dtype);
  cuda::GptForward forward(gpu.lt, device_weights, B, T);
  // Every case runs in every layout.
  REQUIRE(forward.fused_layouts() == std::vector<cuda::FusedLayout>(std::begin(cuda::kFusedLayouts),
                                                                    std::end(cuda::kFusedLayouts)));
  forward.use_fused_layers(layout);
  REQUIRE(forward.fused_layout() == layout);
  cuda::check_cuda(cudaMemcpy(forward.d_tokens(), tokens.data(), tokens.size() * sizeof(int), cudaMemcpyHostToDevice),
                   "cudaMemcpy", "tokens");
  forward.choose_gemm_algorithms(gpu.stream);
  forward.enqueue(gpu.stream);
  cuda::check_cuda(cudaStreamSynchronize(gpu.stream), "cudaStreamSynchronize", "the forward");
  const std::size_t rows = tokens.size(), V = weights.config.vocab_size, Vp = device_weights.padded_vocab;
  const std::vector<float> padded = dtype == DType::kBf16
                                        ? cuda_test::to_host<__nv_bfloat16>(forward.logits(), rows * Vp)
                                        : cuda_test::to_host<float>(forward.logits(), rows * Vp);
  return cuda_test::unpadded(padded, rows, V, Vp);
}

struct Case {
  int n_layer, n_head, n_embd, B, T;
  bool tied;
  float offset = 0.f;   ///< added to every token embedding
  float outlier = 0.f;  ///< added to the token embeddings' column 0
};

TEST_CASE("fused layer steps: logits match the fp64 reference forward, as the unfused forward's do") {
  const auto seed = cuda_test::test_seed();
  INFO("VTOOLS_TEST_SEED=" << seed);
  cuda_test::Random rng(seed);
  Gpu gpu;
  // Head sizes 16, 32, 64; 38, 45 and 21 rows (clusters of 16 rows, the last partial; blocks of 4 or 2 rows, the
  // last partial for 45 and 21); 45 keys; no layer at all; width 256, whose weights are read from global memory (too
  // many to stage in shared memory; the block layouts then compute its 1024 MLP columns in two passes of 512). Every
  // case runs in every fused layout (the block ones stage their weights up to width 64 here, and read them from
  // global memory at 128 and 256). The last two cases are the fused layer norms' one-pass variance at its worst:
  // residual rows whose mean is ~30 standard deviations from 0 (E[x^2] - E[x]^2 unshifted would lose ~1e-4 of the
  // variance to rounding), and rows with nearly all their variance in column 0 (~140 standard deviations of the
  // others: with d = x - x[0], E[d^2] - E[d]^2 alone would lose ~1e-5).
  const Case cases[] = {{2, 3, 48, 2, 19, true},
                        {1, 2, 64, 1, 45, false},
                        {2, 2, 128, 3, 7, true},
                        {0, 1, 16, 1, 5, true},
                        {1, 4, 256, 1, 20, true},
                        {1, 4, 64, rng.uniform_int(1, 4), rng.uniform_int(1, 40), true},
                        {2, 4, 64, 2, 30, false, 20.f, 0.f},
                        {2, 4, 64, 2, 30, false, 0.f, 100.f}};
  for (const Case& c : cases) {
    GptConfig cfg;
    cfg.name = "custom";
    cfg.n_layer = c.n_layer, cfg.n_head = c.n_head, cfg.n_embd = c.n_embd;
    cfg.vocab_size = 101;
    cfg.block_size = 48;
    cfg.tied_head = c.tied;
    GptWeights weights = cuda_test::random_weights(cfg, rng);
    for (std::size_t i = 0; i < weights.wte.size(); ++i) {
      weights.wte[i] += c.offset + (i % static_cast<std::size_t>(c.n_embd) == 0 ? c.outlier : 0.f);
    }
    const auto tokens = cuda_test::random_tokens(rng, c.B * c.T, cfg.vocab_size);
    const std::vector<double> ref = reference_forward(weights, tokens, c.B, c.T);
    // The fused steps compute in fp32 in every dtype; tf32 and bf16 still round the LM head's inputs.
    for (const auto& [dtype, limit] : {std::pair{DType::kFp32, 1e-5}, {DType::kTf32, 1e-2}, {DType::kBf16, 2e-2}}) {
      // bf16 rounds the moved embeddings themselves (20 + x has an ulp of 1/8), unfused as fused
      if (dtype == DType::kBf16 && (c.offset != 0.f || c.outlier != 0.f)) continue;
      std::vector<std::optional<cuda::FusedLayout>> layouts = {std::nullopt};
      layouts.insert(layouts.end(), std::begin(cuda::kFusedLayouts), std::end(cuda::kFusedLayouts));
      for (const std::optional<cuda::FusedLayout> layout : layouts) {
        const std::string name = layout ? cuda::fused_layout_name(*layout) : "unfused";
        CAPTURE(c.n_layer);
        CAPTURE(c.n_embd);
        CAPTURE(c.B);
        CAPTURE(c.T);
        CAPTURE(static_cast<int>(dtype));
        CAPTURE(name);
        const std::vector<float> logits = forward_logits(gpu, weights, dtype, layout, tokens, c.B, c.T);
        REQUIRE(logits.size() == ref.size());
        const double rel = stats::relative_l2_error(logits, ref);
        MESSAGE("C " << c.n_embd << " B " << c.B << " T " << c.T << " dtype " << static_cast<int>(dtype) << " "
                     << name << ": rel err " << rel);
        CHECK(rel <= limit);
        if (dtype == DType::kFp32) {
          cuda_test::check_close(logits, std::vector<float>(ref.begin(), ref.end()), 1e-4, 1e-4, "fp32 logits");
        }
      }
    }
  }
}

TEST_CASE("fused layer steps: the widths and head sizes they take") {
  using cuda::FusedLayout;
  for (const FusedLayout layout : cuda::kFusedLayouts) {
    CAPTURE(cuda::fused_layout_name(layout));
    CHECK(cuda::fused_layer_ready<float>(layout, 48, 3, 64));
    CHECK(cuda::fused_layer_ready<__nv_bfloat16>(layout, 64, 2, cuda::kMaxFusedSeq));
    CHECK_FALSE(cuda::fused_layer_ready<float>(layout, 24, 3, 64));   // head size 8
    CHECK_FALSE(cuda::fused_layer_ready<float>(layout, 96, 1, 64));   // head size 96
    CHECK_FALSE(cuda::fused_layer_ready<float>(layout, 448, 7, 64));  // wider than kMaxFusedWidth
    CHECK_FALSE(cuda::fused_layer_ready<float>(layout, 48, 3, cuda::kMaxFusedSeq + 1));
    CHECK_FALSE(cuda::fused_layer_ready<float>(layout, 48, 0, 64));
  }
  CHECK(cuda::fused_layer_ready<__nv_bfloat16>(FusedLayout::kClusterColumns, 256, 8, cuda::kMaxFusedSeq));
  CHECK(cuda::fused_layer_ready<float>(FusedLayout::kClusterColumns, cuda::kMaxFusedWidth, cuda::kMaxFusedWidth / 64,
                                       1));
  // The block layouts: weights staged in shared memory where they fit (fp32 up to width 64, bf16 up to 80), else
  // read from global memory; every width up to kMaxFusedWidth.
  for (const FusedLayout layout : {FusedLayout::kBlockRows, FusedLayout::kBlockRowPairs}) {
    CAPTURE(cuda::fused_layout_name(layout));
    CHECK(cuda::fused_layer_ready<float>(layout, 64, 1, 64));
    CHECK(cuda::fused_layer_ready<float>(layout, 80, 5, 64));  // 307 KB of fp32 weights: not staged
    CHECK(cuda::fused_layer_ready<__nv_bfloat16>(layout, 128, 2, cuda::kMaxFusedSeq));
    CHECK(cuda::fused_layer_ready<float>(layout, cuda::kMaxFusedWidth, cuda::kMaxFusedWidth / 64, cuda::kMaxFusedSeq));
  }
}

/// The padded logits of `forward` captured into a CUDA graph and launched once (after an eager run, which loads the
/// modules outside the capture).
std::vector<std::uint8_t> captured_logits(Gpu& gpu, const cuda::GptForward& forward) {
  forward.enqueue(gpu.stream);
  cuda::check_cuda(cudaMemsetAsync(forward.logits().get(), 0, forward.logits().bytes(), gpu.stream), "memset");
  cuda_test::run_as_graph(gpu.stream, [&](cudaStream_t stream) { forward.enqueue(stream); });
  std::vector<std::uint8_t> bytes(forward.logits().bytes());
  cuda::check_cuda(cudaMemcpy(bytes.data(), forward.logits().get(), bytes.size(), cudaMemcpyDeviceToHost),
                   "cudaMemcpy", "logits");
  return bytes;
}

TEST_CASE("LM head prefetch into L2, embeddings in the first layer norm, fitted layer-norm blocks, programmatic "
          "launches: a captured forward with any of them gives the same logits as without, bit for bit") {
  const auto seed = cuda_test::test_seed();
  INFO("VTOOLS_TEST_SEED=" << seed);
  cuda_test::Random rng(seed);
  Gpu gpu;
  GptConfig cfg;
  cfg.name = "custom";
  cfg.n_layer = 2, cfg.n_head = 2, cfg.n_embd = 64, cfg.vocab_size = 1001, cfg.block_size = 32;
  const GptWeights weights = cuda_test::random_weights(cfg, rng);
  const int B = 2, T = 17;
  const auto tokens = cuda_test::random_tokens(rng, B * T, cfg.vocab_size);
  for (const DType dtype : {DType::kFp32, DType::kBf16}) {
    // One forward, so both runs use the same GEMM algorithms (each is chosen by timing).
    const cuda::DeviceWeights device_weights = cuda::upload_weights(weights, dtype);
    cuda::GptForward forward(gpu.lt, device_weights, B, T);
    cuda::check_cuda(cudaMemcpy(forward.d_tokens(), tokens.data(), tokens.size() * sizeof(int),
                                cudaMemcpyHostToDevice), "cudaMemcpy", "tokens");
    forward.choose_gemm_algorithms(gpu.stream);
    for (const std::optional<cuda::FusedLayout> layout : {std::optional<cuda::FusedLayout>{},
                                                          std::optional{cuda::FusedLayout::kBlockRows}}) {
      CAPTURE(static_cast<int>(dtype));
      CAPTURE(layout.has_value());
      forward.use_fused_layers(layout);
      forward.use_head_prefetch(false);
      const auto plain = captured_logits(gpu, forward);
      forward.use_head_prefetch(true);
      CHECK(forward.head_prefetch());
      CHECK(captured_logits(gpu, forward) == plain);
      forward.use_embedding_layernorm(true);  // no encoder kernel (unfused only): the same values to the bit
      CHECK(captured_logits(gpu, forward) == plain);
      forward.use_embedding_layernorm(false);
      forward.use_layernorm_blocks(cuda::LayerNormBlocks::kFitted);  // the same sums in fewer warps (unfused only)
      CHECK(captured_logits(gpu, forward) == plain);
      forward.use_layernorm_blocks(cuda::LayerNormBlocks::kWide);
      forward.use_programmatic_launches(true);  // the same kernels, launched earlier
      CHECK(captured_logits(gpu, forward) == plain);
      forward.use_programmatic_launches(false);
    }
  }
}

TEST_CASE("small_div, the fused step's fast division, is integer division over its whole range") {
  // The step divides thread, column and K counts (below 2^11 and 2^13); the documented range is a < 2^20.
  CHECK(cuda::small_div_mismatches(1 << 20, 2049) == 0);
}

TEST_CASE("l2_prefetch: any size, none at all, and the bytes stay as they were") {
  std::vector<float> host(250001);
  for (std::size_t i = 0; i < host.size(); ++i) host[i] = static_cast<float>(i);
  const cuda::DeviceBuffer buffer = cuda_test::to_device<float>(host);
  for (const std::size_t bytes : {std::size_t{0}, std::size_t{15}, std::size_t{1000003}, buffer.bytes()}) {
    CAPTURE(bytes);
    cuda::l2_prefetch(buffer.get(), bytes, nullptr);
  }
  cuda::l2_prefetch(nullptr, 4096, nullptr);
  cuda::check_cuda(cudaDeviceSynchronize(), "cudaDeviceSynchronize", "the prefetches");
  CHECK(cuda_test::to_host<float>(buffer, host.size()) == host);
}

}  // namespace
}  // namespace vtools::vbench
