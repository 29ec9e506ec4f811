// cuda::wgmma_gemm_forward (wgmma + TMA, clusters multicasting shared tiles) vs cpu::matmul_forward (+ GELU) in every
// tiling, epilogue and split, on random shapes with partial row blocks and K tails; wgmma_residual_layernorm_forward
// vs the cpu ops for every cluster width; wgmma_qkv_attention_forward vs the cpu qkv GEMM and attention;
// transpose_bf16; and GptForward with the wgmma GEMMs in each tiling, with and without the layer-norm projections and
// the qkv + attention kernel, vs the fp64 reference forward and the cuBLASLt forward, eager and captured; the
// persistent forward likewise, replay after replay (gpu label; the wgmma cases need a compute capability 9.0 device
// and say so where there is none).
#include <doctest/doctest.h>

#include <cublasLt.h>
#include <cuda_bf16.h>

#include <cmath>
#include <cstdint>
#include <iterator>
#include <optional>
#include <string>
#include <vector>

#include "libcommon/error.hpp"
#include "libcommon/stats.hpp"
#include "tests/vbench/cuda_random_check.hpp"
#include "tools/vbench/cuda/device_weights.hpp"
#include "tools/vbench/cuda/gpt_forward.hpp"
#include "tools/vbench/ops/cpu_ops.hpp"
#include "tools/vbench/ops/wgmma_attention.hpp"
#include "tools/vbench/ops/wgmma_gemm.hpp"
#include "tools/vbench/reference_forward.hpp"

namespace vtools::vbench {
namespace {

using Bf16 = __nv_bfloat16;
using cuda_test::Gpu;

bool have_wgmma() {
  int device = 0;
  cuda::check_cuda(cudaGetDevice(&device), "cudaGetDevice");
  if (cuda::wgmma_gemm_available(device)) return true;
  MESSAGE("no compute capability 9.0 device: the wgmma GEMM cases are skipped");
  return false;
}

/// Wt [N][K] on the device from a host W [K][N] (through transpose_bf16, itself checked below).
cuda::DeviceBuffer transposed_on_device(const std::vector<float>& w, int K, int N) {
  const cuda::DeviceBuffer d_w = cuda_test::to_device<Bf16>(w);
  cuda::DeviceBuffer d_wt(w.size() * sizeof(Bf16), "Wt");
  cuda::transpose_bf16(d_wt.as<Bf16>(), d_w.as<Bf16>(), K, N, nullptr);
  return d_wt;
}

void wgmma_case(cuda_test::Random& rng, const cuda::MatmulShape& shape, cuda::Epilogue epilogue,
                cuda::WgmmaTiling tiling) {
  const int M = shape.M, N = shape.N, K = shape.K, S = shape.k_splits;
  const std::string tile = cuda::wgmma_tiling_name(tiling);
  CAPTURE(tile);
  CAPTURE(M);
  CAPTURE(N);
  CAPTURE(K);
  CAPTURE(S);
  CAPTURE(static_cast<int>(epilogue));
  REQUIRE(cuda::wgmma_gemm_takes(shape, tiling));
  const auto x = cuda_test::representable<Bf16>(rng.normal(static_cast<std::size_t>(M) * K));
  const auto w = cuda_test::representable<Bf16>(rng.normal(static_cast<std::size_t>(K) * N, 1.f / std::sqrt(K)));
  const auto bias = cuda_test::representable<Bf16>(rng.normal(N));
  const bool has_bias = S == 0 && epilogue != cuda::Epilogue::kNone;
  const std::size_t n = static_cast<std::size_t>(M) * N;
  std::vector<float> ref(n);
  cpu::matmul_forward(ref.data(), x.data(), w.data(), has_bias ? bias.data() : nullptr, M, K, N,
                      cpu::WeightLayout::kInOut);
  if (S == 0 && epilogue == cuda::Epilogue::kBiasGelu) cpu::gelu_forward(ref.data(), ref.data(), n);

  const cuda::DeviceBuffer d_x = cuda_test::to_device<Bf16>(x);
  const cuda::DeviceBuffer d_wt = transposed_on_device(w, K, N);
  const cuda::DeviceBuffer d_bias = cuda_test::to_device<Bf16>(bias);
  const std::size_t out_bytes = S > 0 ? S * n * sizeof(float) : n * sizeof(Bf16);
  cuda::DeviceBuffer d_y(out_bytes, "Y");
  cuda::check_cuda(cudaMemset(d_y.get(), 0xFF, out_bytes), "cudaMemset", "NaN output");  // unwritten shows
  cuda::wgmma_gemm_forward(shape, epilogue, tiling, d_y.get(), d_x.as<Bf16>(), d_wt.as<Bf16>(),
                           has_bias ? d_bias.as<Bf16>() : nullptr, nullptr);
  if (S > 0) {
    const std::vector<float> partials = cuda_test::to_host<float>(d_y, S * n);
    std::vector<float> sum(n, 0.f);
    for (int s = 0; s < S; ++s) {
      for (std::size_t i = 0; i < n; ++i) sum[i] += partials[s * n + i];
    }
    // Exact bf16 inputs, fp32 accumulation and output: only the summation order differs.
    cuda_test::check_close(sum, ref, 1e-4, 1e-4, "wgmma split-K partials " + tile);
  } else {
    cuda_test::check_close(cuda_test::to_host<Bf16>(d_y, n), ref, 1e-2, 1e-2, "wgmma bf16 output " + tile);
  }
}

TEST_CASE("wgmma GEMM: matches cpu::matmul_forward in every tiling, epilogue and split") {
  if (!have_wgmma()) return;
  const auto seed = cuda_test::test_seed();
  INFO("VTOOLS_TEST_SEED=" << seed);
  cuda_test::Random rng(seed);
  for (const cuda::WgmmaTiling tiling : cuda::kWgmmaBenchTilings) {
    // Rows: any count where the cluster is one CTA high (the last row block partial); else whole groups of
    // cluster_y row blocks, the last block still partial.
    auto rows = [&] {
      if (tiling.cluster_y == 1) return rng.uniform_int(1, 300);
      return 64 * tiling.cluster_y * rng.uniform_int(1, 2) - rng.uniform_int(0, 63);
    };
    auto cols = [&] { return tiling.bn * tiling.cluster_x * rng.uniform_int(1, 6); };
    for (const auto epilogue : {cuda::Epilogue::kNone, cuda::Epilogue::kBias, cuda::Epilogue::kBiasGelu}) {
      // K a multiple of 8 only: the last 64-wide K tile reads zeros past the end.
      wgmma_case(rng, {rows(), cols(), 8 * rng.uniform_int(1, 100)}, epilogue, tiling);
    }
    for (const int S : {1, 2, 3, 4}) {
      wgmma_case(rng, {rows(), cols(), 64 * S * rng.uniform_int(1, 4), false, S}, cuda::Epilogue::kNone, tiling);
    }
    // gpt2's four products at B=4, T=64.
    wgmma_case(rng, {256, 2304, 768}, cuda::Epilogue::kBias, tiling);
    wgmma_case(rng, {256, 768, 768, false, 2}, cuda::Epilogue::kNone, tiling);
    wgmma_case(rng, {256, 3072, 768}, cuda::Epilogue::kBiasGelu, tiling);
    wgmma_case(rng, {256, 768, 3072, false, 4}, cuda::Epilogue::kNone, tiling);
  }
}

/// residual += X W + bias, ln = layernorm(residual): the kernel vs cpu::matmul_forward, residual_forward and
/// layernorm_forward.
void residual_layernorm_case(cuda_test::Random& rng, int M, int N, int K, int tile_n) {
  CAPTURE(M);
  CAPTURE(N);
  CAPTURE(K);
  CAPTURE(tile_n);
  const cuda::MatmulShape shape{M, N, K};
  REQUIRE(cuda::wgmma_residual_layernorm_ready(shape, tile_n));
  const std::size_t n = static_cast<std::size_t>(M) * N;
  const auto x = cuda_test::representable<Bf16>(rng.normal(static_cast<std::size_t>(M) * K));
  const auto w = cuda_test::representable<Bf16>(rng.normal(static_cast<std::size_t>(K) * N, 1.f / std::sqrt(K)));
  const auto bias = cuda_test::representable<Bf16>(rng.normal(N));
  const auto residual = rng.normal(n, 1.f, 0.5f);  // a mean away from zero, as a residual stream has
  const auto ln_w = rng.normal(N, 0.2f, 1.f), ln_b = rng.normal(N, 0.2f);
  std::vector<float> ref_residual(n), ref_ln(n);
  cpu::matmul_forward(ref_residual.data(), x.data(), w.data(), bias.data(), M, K, N, cpu::WeightLayout::kInOut);
  cpu::residual_forward(ref_residual.data(), ref_residual.data(), residual.data(), static_cast<std::int64_t>(n));
  cpu::layernorm_forward(ref_ln.data(), ref_residual.data(), ln_w.data(), ln_b.data(), M, N);

  const cuda::DeviceBuffer d_x = cuda_test::to_device<Bf16>(x);
  const cuda::DeviceBuffer d_wt = transposed_on_device(w, K, N);
  const cuda::DeviceBuffer d_bias = cuda_test::to_device<Bf16>(bias);
  const cuda::DeviceBuffer d_residual = cuda_test::to_device<float>(residual);
  const cuda::DeviceBuffer d_ln_w = cuda_test::to_device<float>(ln_w), d_ln_b = cuda_test::to_device<float>(ln_b);
  cuda::DeviceBuffer d_ln(n * sizeof(Bf16), "layer norm output");
  cuda::check_cuda(cudaMemset(d_ln.get(), 0xFF, d_ln.bytes()), "cudaMemset", "NaN output");
  cuda::wgmma_residual_layernorm_forward(shape, tile_n, d_x.as<Bf16>(), d_wt.as<Bf16>(), d_bias.as<Bf16>(),
                                         d_residual.as<float>(), d_ln_w.as<float>(), d_ln_b.as<float>(),
                                         d_ln.as<Bf16>(), nullptr);
  // The residual: exact bf16 inputs, fp32 sums in another order. The norm: rounded to bf16 at the end.
  cuda_test::check_close(cuda_test::to_host<float>(d_residual, n), ref_residual, 1e-4, 1e-4, "residual");
  cuda_test::check_close(cuda_test::to_host<Bf16>(d_ln, n), ref_ln, 1e-2, 1e-2, "layer norm output");
}

TEST_CASE("wgmma GEMM with the residual add and layer norm: matches the cpu ops for every cluster width") {
  if (!have_wgmma()) return;
  const auto seed = cuda_test::test_seed();
  INFO("VTOOLS_TEST_SEED=" << seed);
  cuda_test::Random rng(seed);
  for (const int tile_n : cuda::kLayerNormTiles) {
    // CTAs across a row (the cluster): 1 to 8 of 128 columns, up to 16 of 64 (non-portable past 8).
    const std::vector<int> widths = tile_n == 128 ? std::vector{1, 2, 3, 6, 8} : std::vector{1, 5, 8, 12, 16};
    for (const int ctas : widths) {
      residual_layernorm_case(rng, rng.uniform_int(1, 300), tile_n * ctas, 8 * rng.uniform_int(1, 100), tile_n);
    }
    residual_layernorm_case(rng, 256, 768, 768, tile_n);   // gpt2's attention projection at B=4, T=64
    residual_layernorm_case(rng, 256, 768, 3072, tile_n);  // and its fc projection
  }
}

void qkv_attention_case(cuda_test::Random& rng, int B, int T, int NH, int hs) {
  CAPTURE(B);
  CAPTURE(T);
  CAPTURE(NH);
  CAPTURE(hs);
  const int C = hs * NH, R = B * T;
  REQUIRE(cuda::wgmma_qkv_attention_takes(B, T, C, NH));
  const auto x = cuda_test::representable<Bf16>(rng.normal(static_cast<std::size_t>(R) * C));
  const auto w = cuda_test::representable<Bf16>(rng.normal(static_cast<std::size_t>(C) * 3 * C, 1.f / std::sqrt(C)));
  const auto bias = cuda_test::representable<Bf16>(rng.normal(3 * C, 0.3f));
  // The unfused forward's path: qkv rounded to bf16 (as stored between the GEMM and attention_forward).
  std::vector<float> qkv(static_cast<std::size_t>(R) * 3 * C), ref(static_cast<std::size_t>(R) * C);
  cpu::matmul_forward(qkv.data(), x.data(), w.data(), bias.data(), R, C, 3 * C, cpu::WeightLayout::kInOut);
  qkv = cuda_test::representable<Bf16>(qkv);
  cpu::attention_forward(ref.data(), qkv.data(), B, T, C, NH);

  const cuda::DeviceBuffer d_x = cuda_test::to_device<Bf16>(x);
  const cuda::DeviceBuffer d_wt = transposed_on_device(w, C, 3 * C);
  const cuda::DeviceBuffer d_bias = cuda_test::to_device<Bf16>(bias);
  cuda::DeviceBuffer d_out(ref.size() * sizeof(Bf16), "attention output");
  cuda::check_cuda(cudaMemset(d_out.get(), 0xFF, d_out.bytes()), "cudaMemset", "NaN output");  // unwritten shows
  cuda::wgmma_qkv_attention_forward(d_out.as<Bf16>(), d_x.as<Bf16>(), d_wt.as<Bf16>(), d_bias.as<Bf16>(), B, T, C, NH,
                                    nullptr);
  // q, k, v and the softmax weights are bf16 tensor-core inputs here (the reference rounds only q, k and v), the
  // output bf16: each weight is off by up to 2^-9 of itself, so an output by up to 2^-9 of max |v| (~4 here) beside
  // the scores' and the output's own rounding. 1e-2 absolute failed 2 of 49152 values by 0.0035 once (seed 1661528139,
  // B=4 T=64 NH=6 hs=32); a wrong kernel is off by O(1).
  cuda_test::check_close(cuda_test::to_host<Bf16>(d_out, ref.size()), ref, 2e-2, 1e-2, "wgmma qkv + attention");
}

TEST_CASE("wgmma qkv + attention: matches the cpu qkv GEMM and attention on random shapes") {
  if (!have_wgmma()) return;
  const auto seed = cuda_test::test_seed();
  INFO("VTOOLS_TEST_SEED=" << seed);
  cuda_test::Random rng(seed);
  for (const int hs : {64, 32}) {
    for (int round = 0; round < 3; ++round) {
      qkv_attention_case(rng, rng.uniform_int(1, 4), rng.uniform_int(1, 64), rng.uniform_int(1, 6), hs);
    }
    qkv_attention_case(rng, 1, 1, 1, hs);
    qkv_attention_case(rng, 3, 63, 2, hs);  // the last sequence's tile reads past the rows (zeros)
  }
  qkv_attention_case(rng, 4, 64, 12, 64);  // gpt2 at B=4, T=64
  qkv_attention_case(rng, 2, 64, 25, 64);  // gpt2-xl's width, 1600: K steps not a multiple of the ring
  qkv_attention_case(rng, 4, 64, 4, 32);   // gpt_micro: C = 128, two K steps
  qkv_attention_case(rng, 4, 64, 6, 32);   // gpt_mini: C = 192
}

TEST_CASE("wgmma qkv + attention: the shapes it takes, and an error for the others") {
  CHECK(cuda::wgmma_qkv_attention_takes(4, 64, 768, 12));
  CHECK(cuda::wgmma_qkv_attention_takes(1, 1, 64, 1));
  CHECK(cuda::wgmma_qkv_attention_takes(4, 64, 768, 24));  // head size 32
  CHECK_FALSE(cuda::wgmma_qkv_attention_takes(4, 65, 768, 12));  // over one wgmma's 64 rows
  CHECK_FALSE(cuda::wgmma_qkv_attention_takes(4, 64, 768, 48));  // head size 16
  CHECK_FALSE(cuda::wgmma_qkv_attention_takes(4, 64, 768, 6));   // head size 128
  CHECK_FALSE(cuda::wgmma_qkv_attention_takes(4, 64, 770, 12));  // C not NH * 64
  CHECK_FALSE(cuda::wgmma_qkv_attention_takes(0, 64, 768, 12));
  CHECK_THROWS_AS(cuda::wgmma_qkv_attention_forward(nullptr, nullptr, nullptr, nullptr, 4, 65, 768, 12, nullptr),
                  Error);
}

TEST_CASE("transpose_bf16: every element lands transposed, exactly") {
  const auto seed = cuda_test::test_seed();
  INFO("VTOOLS_TEST_SEED=" << seed);
  cuda_test::Random rng(seed);
  for (int i = 0; i < 4; ++i) {
    const int rows = rng.uniform_int(1, 200), cols = rng.uniform_int(1, 200);
    CAPTURE(rows);
    CAPTURE(cols);
    const auto src = cuda_test::representable<Bf16>(rng.normal(static_cast<std::size_t>(rows) * cols));
    const cuda::DeviceBuffer d_dst = transposed_on_device(src, rows, cols);
    const std::vector<float> got = cuda_test::to_host<Bf16>(d_dst, src.size());
    std::size_t wrong = 0;
    for (int r = 0; r < rows; ++r) {
      for (int c = 0; c < cols; ++c) {
        wrong += got[static_cast<std::size_t>(c) * rows + r] != src[static_cast<std::size_t>(r) * cols + c];
      }
    }
    CHECK(wrong == 0);
  }
}

/// Logits [rows][V] of `forward` as planned now: eagerly after NaN-filled activations, or captured into a graph.
std::vector<float> logits_of(Gpu& gpu, const cuda::GptForward& forward, int rows, int V, int Vp, bool captured) {
  forward.poison_activations(gpu.stream);
  if (captured) {
    cuda_test::run_as_graph(gpu.stream, [&](cudaStream_t stream) { forward.enqueue(stream); });
  } else {
    forward.enqueue(gpu.stream);
  }
  const std::vector<float> padded = cuda_test::to_host<Bf16>(forward.logits(), static_cast<std::size_t>(rows) * Vp);
  return cuda_test::unpadded(padded, rows, V, Vp);
}

/// A random bf16 model (vocab 1001, block 64), its fp64 reference logits for B*T random tokens, and a GptForward for
/// them with the tokens uploaded and the GEMM algorithms chosen.
struct RandomForward {
  RandomForward(Gpu& gpu, cuda_test::Random& rng, int n_layer, int n_head, int n_embd, int B, int T)
      : cfg(config(n_layer, n_head, n_embd)),
        weights(cuda_test::random_weights(cfg, rng)),
        device_weights(cuda::upload_weights(weights, DType::kBf16)),
        tokens(cuda_test::random_tokens(rng, B * T, cfg.vocab_size)),
        ref(reference_forward(weights, tokens, B, T)),
        forward(gpu.lt, device_weights, B, T),
        rows(B * T),
        V(cfg.vocab_size),
        Vp(device_weights.padded_vocab) {
    cuda::check_cuda(cudaMemcpy(forward.d_tokens(), tokens.data(), tokens.size() * sizeof(int),
                                cudaMemcpyHostToDevice), "cudaMemcpy", "tokens");
    forward.choose_gemm_algorithms(gpu.stream);
  }
  static GptConfig config(int n_layer, int n_head, int n_embd) {
    GptConfig cfg;
    cfg.name = "custom";
    cfg.n_layer = n_layer, cfg.n_head = n_head, cfg.n_embd = n_embd, cfg.vocab_size = 1001, cfg.block_size = 64;
    return cfg;
  }

  GptConfig cfg;
  GptWeights weights;
  cuda::DeviceWeights device_weights;
  std::vector<std::int32_t> tokens;
  std::vector<double> ref;
  cuda::GptForward forward;
  int rows, V, Vp;
};

TEST_CASE("wgmma GEMMs and layer-norm projections in the forward: logits match the fp64 reference and cuBLASLt's") {
  if (!have_wgmma()) return;
  const auto seed = cuda_test::test_seed();
  INFO("VTOOLS_TEST_SEED=" << seed);
  cuda_test::Random rng(seed);
  Gpu gpu;
  // Width 256: a row of 2 CTAs in the layer-norm projections; 384: 3, not a power of two. 256 rows: every tiling
  // the width takes (4 row blocks, a cluster column of 4); 100 rows: only those one CTA high.
  struct Case {
    int n_embd, n_head, B, T;
    std::size_t tilings;
  };
  // Heads of 64 (and 32 in the last case) for the qkv + attention kernel.
  const Case cases[] = {{256, 4, 4, 64, 3}, {256, 4, 2, 50, 2}, {384, 6, 4, 64, 2}, {384, 6, 2, 50, 2},
                        {256, 8, 4, 64, 3}};
  for (const Case& c : cases) {
    const int B = c.B, T = c.T;
    CAPTURE(c.n_embd);
    CAPTURE(B);
    CAPTURE(T);
    RandomForward model(gpu, rng, 2, c.n_head, c.n_embd, B, T);
    cuda::GptForward& forward = model.forward;
    const std::vector<double>& ref = model.ref;
    const int rows = model.rows, V = model.V, Vp = model.Vp;
    REQUIRE(forward.wgmma_tilings().size() == c.tilings);
    REQUIRE(forward.qkv_attention_available());
    const std::vector<float> cublas = logits_of(gpu, forward, rows, V, Vp, false);
    REQUIRE(forward.layernorm_tiles() == std::vector<int>(std::begin(cuda::kLayerNormTiles),
                                                          std::end(cuda::kLayerNormTiles)));
    std::vector<std::optional<cuda::WgmmaTiling>> tilings_and_none = {std::nullopt};
    tilings_and_none.insert(tilings_and_none.end(), forward.wgmma_tilings().begin(), forward.wgmma_tilings().end());
    using cuda::LayerNormProjections;
    int turn = 0;
    for (const auto which :
         {LayerNormProjections::kNone, LayerNormProjections::kAttention, LayerNormProjections::kBoth}) {
      for (const std::optional<cuda::WgmmaTiling> tiling : tilings_and_none) {
        // The qkv + attention kernel every other combination (width 256 and 384 have heads of 64, T <= 64), and
        // with cuBLASLt's GEMMs instead of the cuBLASLt forward itself.
        const bool plain = !tiling && which == LayerNormProjections::kNone;
        const bool qkv_attention = plain || (which == LayerNormProjections::kNone && turn / 2 % 2 == 0);
        CAPTURE(qkv_attention);
        forward.use_qkv_attention(qkv_attention, gpu.stream);
        // The layer-norm tile widths take turns, so each runs with cuBLASLt's and the own GEMMs in both modes.
        const int ln_tile = cuda::kLayerNormTiles[turn++ % 2];
        const std::string tile = tiling ? cuda::wgmma_tiling_name(*tiling) : "cuBLASLt";
        const int fused_ln = static_cast<int>(which);
        // Without fused projections the own GEMMs alternate between all four and the projections only.
        const auto gemms = which == LayerNormProjections::kNone && turn % 2 == 0 ? cuda::WgmmaGemms::kProjections
                                                                                 : cuda::WgmmaGemms::kAll;
        const int projections_only = gemms == cuda::WgmmaGemms::kProjections;
        // Programmatic launches of the encoder, layer norms and attention every third combination.
        const bool programmatic = turn % 3 == 1;
        CAPTURE(programmatic);
        forward.use_programmatic_launches(programmatic);
        CAPTURE(tile);
        CAPTURE(fused_ln);
        CAPTURE(ln_tile);
        CAPTURE(projections_only);
        forward.use_wgmma_gemms(tiling, gpu.stream, gemms);
        forward.use_layernorm_projections(which, ln_tile, gpu.stream);
        for (const bool captured : {false, true}) {
          CAPTURE(captured);
          const std::vector<float> logits = logits_of(gpu, forward, rows, V, Vp, captured);
          const double rel = stats::relative_l2_error(logits, ref);
          const double vs_cublas = stats::relative_l2_error(logits, cublas);
          MESSAGE("wgmma " << tile << std::string(projections_only ? " (projections)" : "")
                           << std::string(programmatic ? " programmatic" : "")
                           << std::string(qkv_attention ? " qkv+attention" : "") << " + layer-norm projections "
                           << fused_ln << " (" << ln_tile << "-wide if any) B " << B << " T " << T
                           << std::string(captured ? " captured" : " eager") << ": rel err " << rel << " vs fp64, "
                           << vs_cublas << " vs the cuBLASLt forward");
          CHECK(rel <= 2e-2);
          CHECK(vs_cublas <= 2e-2);
        }
      }
    }
    forward.use_wgmma_gemms(std::nullopt, gpu.stream);
    forward.use_programmatic_launches(false);
    forward.use_qkv_attention(false, gpu.stream);
    forward.use_layernorm_projections(LayerNormProjections::kNone, 0, gpu.stream);
    CHECK_FALSE(forward.wgmma_tiling().has_value());
    // Back on the cuBLASLt plan (the own kernels' logits differ from its by ~1e-3).
    CHECK(stats::relative_l2_error(logits_of(gpu, forward, rows, V, Vp, true),
                                    std::vector<double>(cublas.begin(), cublas.end())) < 1e-4);
  }
}

TEST_CASE("persistent forward: logits match the fp64 reference and the cuBLASLt forward, replay after replay") {
  if (!have_wgmma()) return;
  const auto seed = cuda_test::test_seed();
  INFO("VTOOLS_TEST_SEED=" << seed);
  cuda_test::Random rng(seed);
  Gpu gpu;
  // Width 256 (4 heads) and 512 (8): GEMM tiles 128 wide; 768 (12 heads, gpt2's): 96 wide. T = 64 puts each
  // sequence in one 64-row block, T = 50 and 37 make sequences straddle blocks (a qkv task waits for two) and leave
  // a partial last block.
  struct Case {
    int n_embd, n_layer, B, T;
  };
  const Case cases[] = {{256, 2, 4, 64}, {256, 3, 2, 50}, {512, 2, 3, 37}, {512, 1, 1, 1}, {768, 2, 3, 50}};
  for (const Case& c : cases) {
    const int B = c.B, T = c.T;
    CAPTURE(c.n_embd);
    CAPTURE(c.n_layer);
    CAPTURE(B);
    CAPTURE(T);
    RandomForward model(gpu, rng, c.n_layer, c.n_embd / 64, c.n_embd, B, T);
    cuda::GptForward& forward = model.forward;
    const std::vector<double>& ref = model.ref;
    const int rows = model.rows, V = model.V, Vp = model.Vp;
    REQUIRE(forward.persistent_available());
    const std::vector<float> cublas = logits_of(gpu, forward, rows, V, Vp, false);
    forward.use_persistent(true, gpu.stream);
    // Eager, then captured: the second and later runs start from the counters the run before reset.
    std::vector<float> first;
    for (int run = 0; run < 4; ++run) {
      CAPTURE(run);
      const std::vector<float> logits = logits_of(gpu, forward, rows, V, Vp, run % 2 == 1);
      const double rel = stats::relative_l2_error(logits, ref);
      const double vs_cublas = stats::relative_l2_error(logits, cublas);
      MESSAGE("persistent forward C " << c.n_embd << " L " << c.n_layer << " B " << B << " T " << T << " run " << run
                                      << ": rel err " << rel << " vs fp64, " << vs_cublas << " vs cuBLASLt");
      CHECK(rel <= 2e-2);
      CHECK(vs_cublas <= 2e-2);
      if (run == 0) first = logits;
      // The same tasks on the same CTAs in the same order: every run gives the same bits.
      CHECK(logits == first);
    }
    forward.use_persistent(false, gpu.stream);
    CHECK(stats::relative_l2_error(logits_of(gpu, forward, rows, V, Vp, true),
                                   std::vector<double>(cublas.begin(), cublas.end())) < 1e-4);
  }
}

}  // namespace
}  // namespace vtools::vbench
