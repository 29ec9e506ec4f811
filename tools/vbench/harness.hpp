// The timing harness, in named steps per config: prepare the backend, check correctness (the gate), warm up and
// time, summarise through libcommon/stats. It returns data (BenchRun); bench_document.cpp turns it into JSON.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "libcommon/stats.hpp"
#include "tools/vbench/backend.hpp"
#include "tools/vbench/forward_cost.hpp"
#include "tools/vbench/gpt_configs.hpp"
#include "tools/vbench/logits_check.hpp"
#include "tools/vbench/measurement.hpp"

namespace vtools::vbench {

/// One (B, T) a config runs at.
struct Shape {
  int batch = 4, seq = 64;
  bool operator==(const Shape&) const = default;
};

/// Which forward each benchmark runs instead of prepare's search (--forward, --forwards-from).
struct ForwardPins {
  std::string source;               ///< "--forward" or the document's path; "" = no pins, every prepare searches
  std::optional<ForwardPin> every;  ///< --forward: one forward for every benchmark
  struct Entry {
    std::string config;
    Shape shape;
    ForwardPin pin;
  };
  std::vector<Entry> per_benchmark;  ///< --forwards-from: per config and shape, as the document's benchmarks kept
  /// The pin for `config` at `shape`; nullopt where there is none (that benchmark's prepare searches).
  [[nodiscard]] std::optional<ForwardPin> find(const std::string& config, const Shape& shape) const;
};

struct HarnessSettings {
  std::vector<Shape> shapes = {Shape{}};  ///< every config runs at each, in this order (--batch and --seq lists)
  DType dtype = DType::kFp32;
  int warmup = 3, iters = 20;
  /// --min-time: after the `iters` forwards, more until the timed ones add up to this many seconds (Google
  /// Benchmark's min_time), at most kMaxSamples in all; 0: exactly `iters`.
  double min_time_s = 0;
  /// --repetitions: the timing (warm-up, iters, min-time) this many times per benchmark, each after a prepare of its
  /// own that runs the forward the first one ran (Google Benchmark's repetitions), so that compare can see how much
  /// a median moves from one prepared forward to the next and not only within one timing.
  int repetitions = 1;
  CacheState caches = CacheState::kWarm;
  std::uint64_t seed = 1337;
  bool check = true;   ///< run the correctness gate before timing
  bool time = true;    ///< false for `vbench verify`
  ForwardPins pins;
};

/// The medians of `repetitions`, in order.
std::vector<double> repetition_medians(const std::vector<Repetition>& repetitions);

/// One config's outcome. status: "ok" (checked and timed), "unchecked" (timed, --no-check), "failed" (gate
/// failed, not timed), "passed" (verify only: gate passed, not timed).
struct ConfigResult {
  std::string name;  ///< the benchmark's key: the config's name, with "/B:<b>/T:<t>" when the run has several shapes
  GptConfig config;
  Shape shape;
  ParameterCount params;
  std::string status;
  ForwardCost cost;
  Floor floor;
  std::optional<Correctness> correctness;
  std::vector<double> samples_ms;  ///< every repetition's, in order
  std::vector<Repetition> repetitions;  ///< with --repetitions 2 or more: one per repetition; else empty
  stats::Summary timing;
  double tokens_per_s = 0;
  double roofline_fraction = 0;  ///< floor_ms / median_ms; 0 when the floor is unknown
  int kernels_per_forward = 0;
  std::optional<ClockReading> clocks;  ///< the GPU's clocks while timed, where the backend reads them
  std::optional<PlanSearch> plan_search;  ///< how prepare chose the forward, where the backend chose (cuda)
  /// Why a benchmark of an external implementation (--impl) failed other than at the gate: kind "crash",
  /// "timeout" or "malformed" (its reply), with the reason; both "" otherwise.
  std::string failure_kind, failure;
};

/// An external implementation's self-description (--impl; impl_protocol.hpp) and the command that ran it.
struct Implementation {
  std::string name, version, device, command;
};

struct BenchRun {
  std::string backend;
  DeviceInfo device;
  HarnessSettings settings;
  std::string timestamp;
  std::string weights_source;       ///< "init (seed N)" or the safetensors path
  std::vector<std::string> notes;
  std::vector<ConfigResult> results;
  std::optional<Implementation> implementation;  ///< set for `vbench run --impl`; `backend` is then its name
};

/// Where a config's weights come from: initialised from the seed, or given (loaded from a file).
struct ConfigJob {
  GptConfig config;
  const GptWeights* weights = nullptr;  ///< null: init_weights(config, settings.seed)
};

/// "warm", "cold".
std::string cache_state_name(CacheState caches);
/// Inverse of cache_state_name; Error(kUsage) for anything else.
CacheState parse_cache_state(const std::string& name);

/// The tokens every backend sees: [B][T] values in [0, V), from the seed (SplitMix64 stream "tokens").
std::vector<std::int32_t> make_tokens(int B, int T, int V, std::uint64_t seed);

/// Every (B, T) of `batches` x `seqs`, batches outer. Error(kUsage) for a value that is not positive or is listed
/// twice.
std::vector<Shape> shapes_of(const std::vector<int>& batches, const std::vector<int>& seqs);

/// Error(kUsage), naming the first, when a shape's seq exceeds a job's block size (or a config is invalid).
void check_shapes_fit(const std::vector<ConfigJob>& jobs, const std::vector<Shape>& shapes);

/// What the gate compares with: the naive fp64 forward on a prefix of sequence 0 (the cpu backend: exact and
/// independent of its code), or the cpu backend's fp32 logits of every position (everything else).
enum class GateReference { kFp64Prefix, kCpuFp32 };

/// The correctness gate: `got` (logits [B][T][V] of `tokens` on `weights`) against the reference, with the
/// tolerance of `dtype` (logits_check).
Correctness gate_logits(const GptWeights& weights, const std::vector<std::int32_t>& tokens, const Shape& shape,
                        DType dtype, const std::vector<float>& got, GateReference reference);

/// A result for one config at one shape, named (with the shape when the run sweeps several) and costed: what every
/// runner (a backend, an --impl) starts from.
ConfigResult new_result(const ConfigJob& job, const Shape& shape, const HarnessSettings& settings);

/// Fills r.timing, r.tokens_per_s (from the median) and r.roofline_fraction from r.samples_ms and r.floor.
void summarize_timing(ConfigResult& r);

/// Runs every job at every shape on `backend` (progress on a TTY). Throws Error(kUsage), before running anything,
/// when a shape's seq exceeds a config's block size.
BenchRun run_benchmarks(const std::vector<ConfigJob>& jobs, const HarnessSettings& settings, Backend& backend);

}  // namespace vtools::vbench
