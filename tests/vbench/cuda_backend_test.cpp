// The cuda backend end to end: logits of the captured-graph forward vs the fp64 reference_forward on tiny random
// configs in every dtype, replay determinism, timing samples, kernel count, device info and input errors (gpu label).
#include <doctest/doctest.h>

#include <algorithm>

#include <cmath>
#include <memory>
#include <optional>
#include <string>

#include "libcommon/stats.hpp"
#include "libcommon/error.hpp"
#include "tests/vbench/cuda_random_check.hpp"
#include "tools/vbench/backend.hpp"
#include "tools/vbench/measurement.hpp"
#include "tools/vbench/reference_forward.hpp"

namespace vtools::vbench {
namespace {

GptConfig tiny_config(bool tied) {
  GptConfig cfg;
  cfg.name = "custom";
  cfg.n_layer = 2;
  cfg.n_head = 3;
  cfg.n_embd = 48;
  cfg.vocab_size = 101;  // padded to 128 on the device: the padding must not leak into the logits
  cfg.block_size = 24;
  cfg.tied_head = tied;
  return cfg;
}

std::unique_ptr<Backend> backend_or_fail() {
  std::string why;
  auto backend = make_cuda_backend(-1, &why);
  REQUIRE_MESSAGE(backend != nullptr, "make_cuda_backend: " << why);
  CHECK(why.empty());
  return backend;
}

TEST_CASE("cuda_backend: logits match the fp64 reference forward in fp32, tf32 and bf16") {
  const auto seed = cuda_test::test_seed();
  INFO("VTOOLS_TEST_SEED=" << seed);
  cuda_test::Random rng(seed);
  auto backend = backend_or_fail();
  for (const bool tied : {true, false}) {
    const GptWeights weights = cuda_test::random_weights(tiny_config(tied), rng);
    const int B = 2, T = 19;
    const auto tokens = cuda_test::random_tokens(rng, B * T, weights.config.vocab_size);
    const std::vector<double> ref = reference_forward(weights, tokens, B, T);
    // fp32 (tf32 off; the LM head in 3xTF32): fp32-level rounding, within the 1e-5 bar against the peer.
    // tf32: 10-bit mantissa GEMM inputs. bf16: bf16 weights and activations.
    for (const auto& [dtype, limit] : {std::pair{DType::kFp32, 1e-5}, {DType::kTf32, 1e-2}, {DType::kBf16, 2e-2}}) {
      CAPTURE(tied);
      CAPTURE(static_cast<int>(dtype));
      backend->prepare(weights, B, T, dtype);
      const std::vector<float> logits = backend->logits(tokens);
      REQUIRE(logits.size() == ref.size());
      const double rel = stats::relative_l2_error(logits, ref);
      MESSAGE("dtype " << static_cast<int>(dtype) << std::string(tied ? " tied" : " untied") << ": rel err " << rel);
      CHECK(rel <= limit);
      if (dtype == DType::kFp32) {
        std::vector<float> ref_f(ref.begin(), ref.end());
        cuda_test::check_close(logits, ref_f, 1e-4, 1e-4, "fp32 logits");
      }
    }
  }
}

TEST_CASE("cuda_backend: graph replays are deterministic, timed and counted") {
  const auto seed = cuda_test::test_seed();
  INFO("VTOOLS_TEST_SEED=" << seed);
  cuda_test::Random rng(seed);
  auto backend = backend_or_fail();
  const GptWeights weights = cuda_test::random_weights(tiny_config(true), rng);
  const int B = 3, T = 24;
  backend->prepare(weights, B, T, DType::kBf16);
  const auto tokens = cuda_test::random_tokens(rng, B * T, weights.config.vocab_size);
  const auto first = backend->logits(tokens);
  const auto other = backend->logits(cuda_test::random_tokens(rng, B * T, weights.config.vocab_size));
  CHECK(first != other);  // the graph reads the tokens buffer, not a captured copy
  CHECK(backend->logits(tokens) == first);
  // Fused layer steps (n_layer + 1 and the LM head) or the unfused forward (encoder + 7 per layer + final layernorm +
  // LM head), plus whatever extra kernels cuBLASLt launches: whichever was faster.
  CHECK(backend->kernels_per_forward() >= 2 + weights.config.n_layer);
  CHECK(backend->kernels_per_forward() <= 3 * (3 + 7 * weights.config.n_layer));
  // prepare chose among several forwards (fused steps, own GEMMs, options): each timed one has a median, and the
  // kept one is among them, the fastest of the playoff when there was one.
  const std::optional<PlanSearch> search = backend->plan_search();
  REQUIRE(search.has_value());
  MESSAGE("kept " << search->kept << " of " << search->timed.size() << " timed, " << search->playoff.size()
                  << " in the playoff, " << search->rejected.size() << " rejected");
  CHECK(search->timed.size() >= 2);
  CHECK(search->replays > 0);
  const auto kept = [&](const TimedPlan& p) { return p.forward == search->kept; };
  CHECK(std::any_of(search->timed.begin(), search->timed.end(), kept));
  if (!search->playoff.empty()) {
    auto faster = [](const TimedPlan& a, const TimedPlan& b) { return a.median_ms < b.median_ms; };
    const auto fastest = std::min_element(search->playoff.begin(), search->playoff.end(), faster);
    CHECK(fastest->forward == search->kept);
    CHECK(search->playoff_replays == search->playoff_rounds * search->replays);
  }
  for (const CacheState caches : {CacheState::kWarm, CacheState::kCold}) {
    CAPTURE(static_cast<int>(caches));
    const auto samples = measure_forwards(*backend, tokens, {2, 5, 0, caches});
    REQUIRE(samples.size() == 5);
    for (const double ms : samples) {
      CHECK(ms > 0);
      CHECK(ms < 1000);
    }
    CHECK(measure_forwards(*backend, tokens, {0, 0, 0, caches}).empty());
  }
  CHECK(backend->logits(tokens) == first);  // the flush between cold replays touches no forward buffer
  // NVML is there wherever the driver is: the clocks were read while the replays ran.
  measure_forwards(*backend, tokens, {2, 200, 0, CacheState::kWarm});
  const std::optional<ClockReading> clocks = backend->timing_clocks();
  REQUIRE(clocks.has_value());
  std::string limits;
  for (const auto& l : clocks->limits) limits += " " + l;
  MESSAGE("SM clock while timed " << clocks->sm_mhz << " of " << clocks->sm_max_mhz << " MHz; limits:" << limits);
  CHECK(clocks->sm_mhz > 0);
  CHECK(clocks->sm_max_mhz >= clocks->sm_mhz);
}

TEST_CASE("cuda_backend: every forward a search timed can be pinned; a pinned prepare searches nothing") {
  const auto seed = cuda_test::test_seed();
  INFO("VTOOLS_TEST_SEED=" << seed);
  cuda_test::Random rng(seed);
  auto backend = backend_or_fail();
  GptConfig wide = tiny_config(true);  // width 128 and head size 64: the own wgmma GEMMs and qkv + attention kernel
  wide.n_embd = 128;
  wide.n_head = 2;
  wide.block_size = 64;
  for (const auto& [config, dtype] : {std::pair{tiny_config(true), DType::kFp32}, {wide, DType::kBf16}}) {
    CAPTURE(config.n_embd);
    const GptWeights weights = cuda_test::random_weights(config, rng);
    const int B = 2, T = 32 < config.block_size ? 32 : config.block_size;
    const auto tokens = cuda_test::random_tokens(rng, B * T, config.vocab_size);
    const std::vector<double> ref = reference_forward(weights, tokens, B, T);
    const double limit = dtype == DType::kFp32 ? 1e-5 : 2e-2;
    backend->pin_forward(std::nullopt);
    backend->prepare(weights, B, T, dtype);
    const std::optional<PlanSearch> search = backend->plan_search();
    REQUIRE(search.has_value());
    CHECK(search->pinned_from.empty());
    REQUIRE(search->gemm_algorithms.size() == 5);
    CHECK(search->gemm_algorithms[4].gemm == "LM head");
    for (const GemmChoice& g : search->gemm_algorithms) CHECK((g.candidate >= 0 && g.candidate < g.of));
    const std::vector<float> kept_logits = backend->logits(tokens);

    // The kept forward with its GEMM algorithms, as --forwards-from gives it: the same kernels, the same logits.
    const DeviceInfo device = backend->device();
    backend->pin_forward(ForwardPin{search->kept, search->gemm_algorithms, device.name, device.blas_version, "a.json"});
    backend->prepare(weights, B, T, dtype);
    const std::optional<PlanSearch> pinned = backend->plan_search();
    REQUIRE(pinned.has_value());
    CHECK(pinned->kept == search->kept);
    CHECK(pinned->pinned_from == "a.json");
    CHECK(pinned->timed.empty());
    CHECK(pinned->replays == 0);
    CHECK(pinned->playoff.empty());
    REQUIRE(pinned->gemm_algorithms.size() == 5);
    for (std::size_t i = 0; i < 5; ++i) {
      CHECK(pinned->gemm_algorithms[i].candidate == search->gemm_algorithms[i].candidate);
    }
    const double again = stats::relative_l2_error(backend->logits(tokens), kept_logits);
    MESSAGE(search->kept << ": pinned against searched rel err " << again);
    CHECK(again <= 1e-6);

    // Algorithms chosen on another GPU are chosen again here, and a note says so.
    const ForwardPin elsewhere{search->kept, search->gemm_algorithms, "Another GPU", device.blas_version, "b.json"};
    backend->pin_forward(elsewhere);
    backend->prepare(weights, B, T, dtype);
    CHECK(backend->plan_search()->kept == search->kept);
    const std::vector<std::string> notes = backend->notes();
    CHECK(std::any_of(notes.begin(), notes.end(), [](const std::string& n) {
      return n.find("b.json's cuBLASLt algorithms were chosen on Another GPU with cuBLASLt ") != std::string::npos;
    }));
    CHECK(stats::relative_l2_error(backend->logits(tokens), ref) <= limit);

    // Every forward the search timed, by name alone (--forward): each runs and is right.
    int pinned_count = 0;
    for (const TimedPlan& t : search->timed) {
      if (!std::isfinite(t.median_ms)) continue;
      CAPTURE(t.forward);
      backend->pin_forward(ForwardPin{t.forward, {}, "", "", "--forward"});
      backend->prepare(weights, B, T, dtype);
      CHECK(backend->plan_search()->kept == t.forward);
      CHECK(stats::relative_l2_error(backend->logits(tokens), ref) <= limit);
      ++pinned_count;
    }
    MESSAGE(pinned_count << " forwards pinned in turn");
    CHECK(pinned_count >= 2);
    backend->pin_forward(ForwardPin{"no such forward", {}, "", "", "--forward"});
    try {
      backend->prepare(weights, B, T, dtype);
      FAIL("a forward that does not exist was run");
    } catch (const Error& e) {
      CHECK(e.code() == ExitCode::kUsage);
      CHECK(e.message().find("--forward: no forward named 'no such forward' runs custom (B=2 T=") == 0);
    }
  }
  backend->pin_forward(std::nullopt);
}

TEST_CASE("cuda_backend: device info names the GPU and its peaks") {
  auto backend = backend_or_fail();
  CHECK(backend->name() == "cuda");
  const DeviceInfo info = backend->device();
  MESSAGE(info.name << " cc " << info.compute_capability << ", " << info.sm_count << " SMs, driver "
                    << info.driver_version << ", runtime " << info.runtime_version << ", " << info.blas_version
                    << ", " << info.peak_bandwidth_bytes_per_s / 1e12 << " TB/s, " << info.peak_flops / 1e12
                    << " TFLOP/s fp32");
  CHECK(!info.name.empty());
  CHECK(info.compute_capability.find('.') != std::string::npos);
  CHECK(info.sm_count > 0);
  CHECK(info.memory_bytes > (1ull << 30));
  CHECK(info.peak_bandwidth_bytes_per_s > 1e11);
  CHECK(info.blas_version.rfind("cuBLASLt ", 0) == 0);
  // Before any prepare, device() is fp32's; `vbench list --device --dtype bf16` asks for bf16's peak (it printed
  // gpt2's bf16 floor as 950 us, compute bound, from the fp32 peak).
  CHECK(backend->device_for(DType::kFp32).peak_flops == doctest::Approx(info.peak_flops));
  CHECK(backend->device_for(DType::kBf16).peak_flops > 4 * info.peak_flops);
  CHECK(backend->device_for(DType::kBf16).peak_bandwidth_bytes_per_s == info.peak_bandwidth_bytes_per_s);
}

TEST_CASE("cuda_backend: bad tokens and a sequence over the block size are refused") {
  cuda_test::Random rng(7);
  auto backend = backend_or_fail();
  const GptWeights weights = cuda_test::random_weights(tiny_config(true), rng);
  try {
    backend->prepare(weights, 1, 25, DType::kFp32);
    FAIL("no error");
  } catch (const Error& e) {
    CHECK(e.code() == ExitCode::kUsage);
    CHECK(e.message() == "sequence length 25 exceeds the block size 24 of 'custom'");
  }
  backend->prepare(weights, 1, 4, DType::kFp32);
  try {
    (void)backend->logits({1, 2, 101, 3});
    FAIL("no error");
  } catch (const Error& e) {
    CHECK(e.code() == ExitCode::kDataError);
    CHECK(e.message() == "token 101 at position 2 is outside the vocabulary [0, 101)");
  }
}

}  // namespace
}  // namespace vtools::vbench
