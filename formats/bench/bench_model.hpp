// The vtools.bench document as its readers see it: the metadata and every benchmark's fields that vbench (compare,
// merge, show, --forwards-from) or vrender's bench page read, in document order. Absent or null numbers read as NaN
// (integers as nullopt), absent strings as "" (nothing defaulted from elsewhere: a benchmark's batch_size falling
// back to the metadata's is the reader of the model's choice). Shape: schemas/vtools.bench.schema.json.
#pragma once

#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace vtools::vbench {

/// The GPU's SM clock while timed forwards ran, and what held it down (NVML's reasons as names, e.g. sw_power_cap).
struct ClockReading {
  int sm_mhz = 0;
  int sm_max_mhz = 0;
  std::vector<std::string> limits;
};

/// A way to run the forward that prepare() timed while choosing one, and its median (+inf: it could not run).
struct TimedPlan {
  std::string forward;  ///< the backend's name for it, e.g. "unfused with wgmma GEMMs 64x1x1, own 3xTF32 LM head"
  double median_ms = 0;
};

/// A way to run the forward that prepare() did not time, and why (its logits were off, a launch was refused).
struct RejectedPlan {
  std::string forward, reason;
};

/// The cuBLASLt algorithm one GEMM of the forward runs where it runs cuBLASLt's: the index among the heuristic's
/// candidates that ran on this device, of `of` (the heuristic answers alike for one device and cuBLASLt version).
struct GemmChoice {
  std::string gemm;  ///< "qkv", "attention projection", "fc", "fc projection", "LM head"
  int candidate = 0, of = 0;
};

/// How prepare() chose the forward it runs (cuda's search over kernels and launch options): what it kept, every
/// forward it timed, the finalists it timed again against each other, and those it refused. A reader needs it to
/// tell a code change from a different pick (two runs of the same code can keep different forwards when their
/// times are close). With a ForwardPin, prepare searched nothing: `pinned_from` names the pin, `timed` is empty.
struct PlanSearch {
  std::string kept;
  int replays = 0;  ///< replays behind each median in `timed`
  std::vector<TimedPlan> timed;
  int playoff_rounds = 0, playoff_replays = 0;  ///< replays behind each median in `playoff`, over all rounds
  std::vector<TimedPlan> playoff;               ///< empty when fewer than two forwards came close to the fastest
  std::vector<RejectedPlan> rejected;
  std::vector<GemmChoice> gemm_algorithms;  ///< cuBLASLt's algorithm per GEMM as prepare left it (empty: unknown)
  std::string pinned_from;                  ///< "" when prepare searched; else the pin's `from`
};

/// The correctness gate's outcome: logits of a backend against reference logits on the same weights and tokens.
struct Correctness {
  double max_abs_err = 0;
  double rel_err = 0;
  double top1_agreement = 0;   ///< fraction of rows (positions) whose argmax matches the reference's
  double tolerance = 0;        ///< on rel_err
  bool passed = false;
  std::string reference;       ///< "fp64-naive" (CPU backend) or "cpu-fp32" (other backends)
  std::int64_t compared_rows = 0;
};

/// One repetition's timing (--repetitions): its median and how many forwards it timed.
struct Repetition {
  double median_ms = 0;
  std::size_t n = 0;
};

/// metadata: what ran the benchmarks. The seed's names (gpu_name, compute_capability, cuda_version, command) and
/// vbench's (device_name, command_line, run settings).
struct BenchMetadata {
  std::string timestamp;
  std::string gpu_name, device_name, compute_capability, pci_bus_id, cuda_version, driver_version, blas_version;
  std::string command;       ///< the seed's: a string or an array of words, joined by spaces
  std::string command_line;  ///< vbench's (a string, or an array of words as `command`)
  std::string host, backend, dtype, caches, vtools_version;
  std::optional<int> gpu_index, batch_size, seq_len, warmup, iters, repetitions, threads;
  double min_time_s = NAN;
  std::vector<std::string> notes;
};

/// The longest forward a sample may say it took: a day. Past it a sample is not a measurement, and the statistics
/// over 100000 such samples stay finite (a mean of inf is no number to write).
constexpr double kMaxSampleMs = 86400000.0;
/// Whether `ms` is a forward's time (positive, at most kMaxSampleMs; NaN is not); else refused with kSampleMsWanted.
inline bool is_sample_ms(double ms) { return ms > 0 && ms <= kMaxSampleMs; }
constexpr const char* kSampleMsWanted = "a positive number of milliseconds, at most 86400000 (a day)";

/// benchmarks.<name>.timing: the summary of the timed forwards and the samples.
struct BenchTiming {
  double mean = NAN, std = NAN, min = NAN, max = NAN, median = NAN, p5 = NAN, p25 = NAN, p75 = NAN, p95 = NAN,
         p99 = NAN;
  std::optional<std::size_t> n;
  std::vector<double> samples_ms;
};

/// benchmarks.<name>: one config at one shape.
struct BenchBenchmark {
  std::string name;  ///< key in "benchmarks"
  std::string status, backend, dtype, caches;  ///< "" when absent
  std::optional<int> n_layer, n_head, n_embd, batch_size, seq_len, kernels_per_forward;
  std::optional<BenchTiming> timing;
  double throughput_tokens_per_sec = NAN, flops_per_forward = NAN, bytes_per_forward = NAN;
  std::vector<Repetition> repetitions;  ///< median_ms NaN where absent
  double floor_ms = NAN, roofline_fraction = NAN;  ///< roofline.floor_ms, roofline.fraction
  std::string bound;                                ///< roofline.bound
  std::optional<Correctness> correctness;  ///< absent numbers NaN, top1_agreement and tolerance 0, passed false
  std::optional<ClockReading> clocks;
  std::optional<PlanSearch> plan_search;  ///< medians that are null read as +inf (a forward that could not run)
  std::string failure_kind, failure;      ///< failure.kind, failure.reason
};

/// A vtools.bench document.
struct BenchDocument {
  std::string created;  ///< the envelope's
  BenchMetadata metadata;
  std::vector<BenchBenchmark> benchmarks;  ///< in document order
};

}  // namespace vtools::vbench
