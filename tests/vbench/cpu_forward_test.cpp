// The CPU backend's ops and whole forward against naive fp64 code on random small configs with odd sizes.
#include "tools/vbench/cpu_forward.hpp"

#include <doctest/doctest.h>

#include <atomic>
#include <cmath>
#include <random>

#include "tools/vbench/harness.hpp"
#include "tools/vbench/logits_check.hpp"
#include "tools/vbench/ops/cpu_ops.hpp"
#include "tools/vbench/ops/parallel_for.hpp"
#include "tools/vbench/reference_forward.hpp"
#include "tools/vbench/weight_init.hpp"

using namespace vtools::vbench;

namespace {
std::vector<float> random_vector(std::size_t n, std::mt19937& rng, float scale = 1.0f) {
  std::normal_distribution<float> d(0.0f, scale);
  std::vector<float> v(n);
  for (auto& x : v) x = d(rng);
  return v;
}

/// The largest |a - b|; infinity when a value of `a` is not finite (std::max would skip a NaN).
double max_abs_diff(const std::vector<float>& a, const std::vector<double>& b) {
  double m = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (!std::isfinite(a[i])) return INFINITY;
    m = std::max(m, std::fabs(a[i] - b[i]));
  }
  return m;
}
}  // namespace

TEST_CASE("cpu_ops: matmul_forward matches a double loop in both weight layouts, with and without bias") {
  std::mt19937 rng(1);
  // 300 x 2003: several column chunks per thread's slab, the last one partial; 1100 rows: one call per slab
  // (OpenBLAS builds).
  for (auto [N, IC, OC] : {std::tuple{7, 13, 37}, std::tuple{1, 5, 3}, std::tuple{33, 48, 129},
                           std::tuple{300, 9, 2003}, std::tuple{1100, 3, 40}}) {
    const auto x = random_vector(static_cast<std::size_t>(N * IC), rng);
    const auto w = random_vector(static_cast<std::size_t>(IC * OC), rng);
    const auto b = random_vector(static_cast<std::size_t>(OC), rng);
    for (auto layout : {cpu::WeightLayout::kInOut, cpu::WeightLayout::kOutIn}) {
      for (bool with_bias : {true, false}) {
        // NaN where the output starts: every value must be written, none added to (beta = 0 without a bias).
        std::vector<float> out(static_cast<std::size_t>(N * OC), std::nanf(""));
        cpu::matmul_forward(out.data(), x.data(), w.data(), with_bias ? b.data() : nullptr, N, IC, OC, layout);
        std::vector<double> ref(out.size());
        for (int n = 0; n < N; ++n)
          for (int j = 0; j < OC; ++j) {
            double acc = with_bias ? b[static_cast<std::size_t>(j)] : 0.0;
            for (int i = 0; i < IC; ++i)
              acc += double(x[static_cast<std::size_t>(n * IC + i)]) *
                     w[static_cast<std::size_t>(layout == cpu::WeightLayout::kInOut ? i * OC + j : j * IC + i)];
            ref[static_cast<std::size_t>(n * OC + j)] = acc;
          }
        CHECK(max_abs_diff(out, ref) < 1e-4);
      }
    }
  }
}

TEST_CASE("cpu_ops: layernorm, gelu and residual match their definitions") {
  std::mt19937 rng(2);
  const int N = 5, C = 19;
  const auto x = random_vector(N * C, rng, 3.0f), w = random_vector(C, rng), b = random_vector(C, rng);
  std::vector<float> out(N * C);
  cpu::layernorm_forward(out.data(), x.data(), w.data(), b.data(), N, C);
  std::vector<double> ref(N * C);
  for (int n = 0; n < N; ++n) {
    double m = 0, v = 0;
    for (int c = 0; c < C; ++c) m += x[n * C + c];
    m /= C;
    for (int c = 0; c < C; ++c) v += (x[n * C + c] - m) * (x[n * C + c] - m);
    v /= C;
    for (int c = 0; c < C; ++c) ref[n * C + c] = (x[n * C + c] - m) / std::sqrt(v + 1e-5) * w[c] + b[c];
  }
  CHECK(max_abs_diff(out, ref) < 1e-5);
  cpu::gelu_forward(out.data(), x.data(), N * C);
  for (int i = 0; i < N * C; ++i) {
    const double e = x[i];
    ref[i] = 0.5 * e * (1 + std::tanh(std::sqrt(2 / M_PI) * (e + 0.044715 * e * e * e)));
  }
  CHECK(max_abs_diff(out, ref) < 1e-5);
  cpu::residual_forward(out.data(), x.data(), w.data(), C);
  for (int i = 0; i < C; ++i) CHECK(out[i] == x[i] + w[i]);
}

TEST_CASE("cpu_ops: attention is causal (changing a later position leaves earlier outputs unchanged)") {
  std::mt19937 rng(3);
  const int B = 2, T = 9, C = 15, NH = 3;
  auto qkv = random_vector(B * T * 3 * C, rng);
  std::vector<float> a(B * T * C), b(B * T * C);
  cpu::attention_forward(a.data(), qkv.data(), B, T, C, NH);
  for (int c = 0; c < 3 * C; ++c) qkv[(T - 1) * 3 * C + c] += 5.0f;  // batch 0, last position
  cpu::attention_forward(b.data(), qkv.data(), B, T, C, NH);
  for (int i = 0; i < (T - 1) * C; ++i) CHECK(a[i] == b[i]);
  bool changed = false;
  for (int i = (T - 1) * C; i < T * C; ++i) changed = changed || a[i] != b[i];
  CHECK(changed);
  // Position 0 attends only to itself: its output is its own v.
  for (int i = 0; i < C; ++i) CHECK(a[i] == doctest::Approx(qkv[2 * C + i]));
}

TEST_CASE("cpu_forward: matches the fp64 reference on random small configs with odd sizes") {
  struct Case {
    GptConfig config;
    int B, T;
  };
  const Case cases[] = {{{"odd", 2, 3, 15, 37, 11, true}, 3, 7},
                        {{"untied", 1, 1, 9, 23, 5, false}, 1, 5},
                        {{"wide", 3, 5, 40, 101, 17, true}, 2, 17}};
  for (const auto& c : cases) {
    CAPTURE(c.config.name);
    GptWeights w = init_weights(c.config, 99);
    // Larger-than-init LN and bias values so every parameter kind influences the logits.
    std::mt19937 rng(5);
    for (auto& L : w.layers) {
      L.ln1_w = random_vector(L.ln1_w.size(), rng);
      L.attn_b = random_vector(L.attn_b.size(), rng, 0.1f);
      L.fc_b = random_vector(L.fc_b.size(), rng, 0.1f);
    }
    const auto tokens = make_tokens(c.B, c.T, c.config.vocab_size, 11);
    CpuForward f(w, c.B, c.T);
    f.forward(tokens.data());
    const auto ref = reference_forward(w, tokens, c.B, c.T);
    const Correctness k = compare_logits(f.logits(), ref, c.config.vocab_size, 1e-5);
    CHECK(k.rel_err < 1e-5);
    CHECK(k.top1_agreement == 1.0);
    CHECK(k.passed);
  }
}

TEST_CASE("parallel_for: covers every index exactly once, in chunks no smaller than the grain") {
  for (std::int64_t n : {0, 1, 7, 1000, 100003}) {
    std::vector<int> hits(static_cast<std::size_t>(n), 0);
    cpu::parallel_for(n, 10, [&](std::int64_t b, std::int64_t e) {
      CHECK(b < e);
      for (auto i = b; i < e; ++i) ++hits[static_cast<std::size_t>(i)];
    });
    for (int h : hits) CHECK(h == 1);
  }
}

TEST_CASE("parallel_for: back-to-back calls of different sizes never run a part twice or skip one") {
  for (int call = 0; call < 3000; ++call) {
    const std::int64_t n = 1 + (call * 37) % 61;
    std::vector<std::atomic<int>> hits(static_cast<std::size_t>(n));
    cpu::parallel_for(n, 1, [&](std::int64_t b, std::int64_t e) {
      for (auto i = b; i < e; ++i) hits[static_cast<std::size_t>(i)].fetch_add(1);
    });
    int wrong = 0;
    for (auto& h : hits) wrong += h.load() != 1;
    REQUIRE(wrong == 0);
  }
}
