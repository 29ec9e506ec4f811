// The timing's named steps (warm-up, flush before each forward, timed forwards) in the order a backend sees them, and
// the stop rule against hand-computed counts.
#include "tools/vbench/measurement.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

using namespace vtools::vbench;

namespace {

/// Records every primitive the steps call ("begin 3", "flush", "forward", "timed", "end"); each timed forward takes
/// `ms` (cycling), as a backend's clock would say.
class RecordingBackend final : public Backend {
 public:
  explicit RecordingBackend(std::vector<double> ms) : ms_(std::move(ms)) {}
  [[nodiscard]] std::string name() const override { return "recording"; }
  [[nodiscard]] DeviceInfo device() const override { return {}; }
  void prepare(const GptWeights&, int, int, DType) override {}
  std::vector<float> logits(const std::vector<std::int32_t>&) override { return {}; }
  void begin_timing(const std::vector<std::int32_t>& tokens, int timed) override {
    calls.push_back("begin " + std::to_string(timed));
    tokens_seen = tokens;
  }
  void flush_caches() override { calls.push_back("flush"); }
  void run_forward(bool timed) override {
    calls.push_back(timed ? "timed" : "forward");
    if (timed) samples_.push_back(ms_[next_++ % ms_.size()]);
  }
  std::vector<double> end_timing() override {
    calls.push_back("end");
    return std::exchange(samples_, {});
  }
  std::vector<std::string> calls;
  std::vector<std::int32_t> tokens_seen;

 private:
  std::vector<double> ms_, samples_;
  std::size_t next_ = 0;
};

using Calls = std::vector<std::string>;

}  // namespace

TEST_CASE("measurement: warm-up first, then the timed forwards, in one timing; warm caches are not flushed") {
  RecordingBackend backend({2.0});
  const std::vector<double> ms = measure_forwards(backend, {7, 8}, {2, 3, 0, CacheState::kWarm});
  CHECK(ms == std::vector<double>{2.0, 2.0, 2.0});
  CHECK(backend.calls == Calls{"begin 3", "forward", "forward", "timed", "timed", "timed", "end"});
  CHECK(backend.tokens_seen == std::vector<std::int32_t>{7, 8});
}

TEST_CASE("measurement: with cold caches every forward, warm-up included, follows a flush") {
  RecordingBackend backend({1.0});
  measure_forwards(backend, {1}, {1, 2, 0, CacheState::kCold});
  CHECK(backend.calls == Calls{"begin 2", "flush", "forward", "flush", "timed", "flush", "timed", "end"});
}

TEST_CASE("measurement: --min-time adds batches sized from the mean so far, without warm-up, until reached") {
  RecordingBackend backend({10.0});
  // 2 x 10 ms, then ceil((50 - 20) / 10) = 3 more: 50 ms.
  const std::vector<double> ms = measure_forwards(backend, {1}, {1, 2, 0.05, CacheState::kWarm});
  CHECK(ms.size() == 5);
  CHECK(backend.calls == Calls{"begin 2", "forward", "timed", "timed", "end", "begin 3", "timed", "timed", "timed",
                               "end"});
  RecordingBackend none({1.0});
  CHECK(measure_forwards(none, {1}, {3, 0, 1.0, CacheState::kWarm}).empty());  // no sample to size a batch from
  CHECK(none.calls == Calls{"begin 0", "forward", "forward", "forward", "end"});
}

TEST_CASE("measurement: the stop rule") {
  CHECK(more_forwards({}, 0) == 0);
  CHECK(more_forwards({1.0, 1.0}, 0) == 0);          // no --min-time: exactly --iters
  CHECK(more_forwards({10.0, 10.0}, 0.02) == 0);     // reached exactly
  CHECK(more_forwards({10.0, 10.0}, 0.021) == 1);    // 1 ms left: at least one more
  CHECK(more_forwards({4.0, 6.0}, 0.1) == 18);       // mean 5 ms, 90 ms left
  CHECK(more_forwards({0.0, 0.0}, 1.0) == 0);        // no time to size a batch from
  CHECK(more_forwards({1.0, NAN}, 1.0) == 0);        // nor from a NaN
  CHECK(more_forwards({1e-6}, 3600) == kMaxSamples - 1);  // capped at kMaxSamples in all
  CHECK(more_forwards(std::vector<double>(kMaxSamples, 1e-6), 3600) == 0);
}
