// Test doubles shared by the harness, bench_table and bench_document tests: a tiny config, timing settings without
// the gate, and the cpu backend dressed as the cuda backend (notes per prepared model, a plan search, pins taken).
#pragma once

#include <cmath>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "tools/vbench/backend.hpp"
#include "tools/vbench/cpu_backend.hpp"
#include "tools/vbench/harness.hpp"

namespace vtools::vbench::testing {

/// Timed without the correctness gate: `iters` forwards at each of `shapes`, as most tests here want them.
inline HarnessSettings unchecked(std::vector<Shape> shapes, int iters) {
  HarnessSettings s;
  s.shapes = std::move(shapes);
  s.check = false;
  s.iters = iters;
  return s;
}

/// One layer of width 8 over 13 tokens: cheap enough for every harness test.
inline const GptConfig kSmall{"small", 1, 1, 8, 13, 8, true};

/// The cpu backend with a note per prepared model, one of them shared, and a plan search per model: notes and plan
/// searches as the cuda backend gives them.
class NotingBackend final : public Backend {
 public:
  [[nodiscard]] std::string name() const override { return cpu_->name(); }
  [[nodiscard]] DeviceInfo device() const override { return cpu_->device(); }
  void prepare(const GptWeights& weights, int B, int T, DType dtype) override {
    cpu_->prepare(weights, B, T, dtype);
    model_ = weights.config.name;
    ++prepares;
  }
  int prepares = 0;
  std::vector<float> logits(const std::vector<std::int32_t>& tokens) override { return cpu_->logits(tokens); }
  void begin_timing(const std::vector<std::int32_t>& tokens, int timed) override { cpu_->begin_timing(tokens, timed); }
  void flush_caches() override { cpu_->flush_caches(); }
  void run_forward(bool timed) override { cpu_->run_forward(timed); }
  std::vector<double> end_timing() override { return cpu_->end_timing(); }
  [[nodiscard]] std::vector<std::string> notes() const override { return {"shared", "kept for " + model_}; }
  /// Pins as the cuda backend takes them: the next prepares run the pinned forward, and say so.
  void pin_forward(const std::optional<ForwardPin>& pin) override {
    pin_ = pin;
    pins_seen.push_back(pin);
  }
  std::vector<std::optional<ForwardPin>> pins_seen;  ///< one per prepare, in order
  [[nodiscard]] std::optional<PlanSearch> plan_search() const override {
    PlanSearch search;
    search.gemm_algorithms = {{"qkv", 2, 8}, {"LM head", 0, 5}};
    if (pin_) {
      search.kept = pin_->forward;
      search.pinned_from = pin_->from;
      return search;
    }
    search.kept = "fused " + model_;
    search.replays = 15;
    search.timed = {{"unfused", 0.060}, {"fused " + model_, 0.050}, {"uncapturable", INFINITY}, {"close", 0.051}};
    search.playoff_rounds = 4;
    search.playoff_replays = 60;
    search.playoff = {{"fused " + model_, 0.050}, {"close", 0.052}};
    search.rejected = {{"wrong", "its logits are 1.00e+00 off the cuBLASLt forward's (limit 2e-02)"}};
    return search;
  }

 private:
  std::unique_ptr<Backend> cpu_ = make_cpu_backend();
  std::string model_;
  std::optional<ForwardPin> pin_;
};

}  // namespace vtools::vbench::testing
