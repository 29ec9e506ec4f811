#include "tools/vbench/harness.hpp"

#include <algorithm>

#include "formats/bench/benchmark_key.hpp"
#include "libcommon/document.hpp"
#include "libcommon/error.hpp"
#include "libcommon/progress.hpp"
#include "tools/vbench/cpu_backend.hpp"
#include "tools/vbench/reference_forward.hpp"
#include "tools/vbench/weight_init.hpp"

namespace vtools::vbench {

namespace {

/// Positions of sequence 0 the fp64 reference recomputes for the CPU backend: causal attention makes logits at
/// t < n depend on tokens t < n only, so a prefix is an exact check at a fraction of the naive cost.
constexpr int kReferencePositions = 16;

Correctness check_correctness(const GptWeights& weights, const std::vector<std::int32_t>& tokens, const Shape& shape,
                              const HarnessSettings& s, Backend& backend) {
  return gate_logits(weights, tokens, shape, s.dtype, backend.logits(tokens),
                     backend.name() == "cpu" ? GateReference::kFp64Prefix : GateReference::kCpuFp32);
}

/// One timing of the prepared forward (measurement.hpp): warm-up, `iters` forwards, then more until --min-time.
std::vector<double> timed_forwards(const std::vector<std::int32_t>& tokens, const HarnessSettings& s,
                                   Backend& backend) {
  return measure_forwards(backend, tokens, {s.warmup, s.iters, s.min_time_s, s.caches});
}

/// Times the prepared forward, and with --repetitions prepares it again (pinned to the forward the first prepare
/// ran, so that every repetition times the same kernels) and times it again, each repetition's samples kept.
void time_config(ConfigResult& r, const std::vector<std::int32_t>& tokens, const GptWeights& weights,
                 const std::optional<ForwardPin>& pin, const HarnessSettings& s, Backend& backend) {
  r.samples_ms = timed_forwards(tokens, s, backend);
  if (s.repetitions > 1) {
    r.repetitions.push_back({stats::median(r.samples_ms), r.samples_ms.size()});
    std::optional<ForwardPin> same = pin;
    if (r.plan_search) {
      const DeviceInfo device = backend.device();
      same = ForwardPin{r.plan_search->kept, r.plan_search->gemm_algorithms, device.name, device.blas_version,
                        "repetition 1"};
    }
    for (int i = 1; i < s.repetitions; ++i) {
      backend.pin_forward(same);
      backend.prepare(weights, r.shape.batch, r.shape.seq, s.dtype);
      const std::vector<double> samples = timed_forwards(tokens, s, backend);
      r.repetitions.push_back({stats::median(samples), samples.size()});
      r.samples_ms.insert(r.samples_ms.end(), samples.begin(), samples.end());
    }
  }
  r.clocks = backend.timing_clocks();
  summarize_timing(r);
}

}  // namespace

Correctness gate_logits(const GptWeights& weights, const std::vector<std::int32_t>& tokens, const Shape& shape,
                        DType dtype, const std::vector<float>& got, GateReference reference) {
  const std::int64_t V = weights.config.vocab_size;
  if (reference == GateReference::kFp64Prefix) {
    const int n = std::min(shape.seq, kReferencePositions);
    std::vector<std::int32_t> prefix(tokens.begin(), tokens.begin() + n);
    const std::vector<double> ref = reference_forward(weights, prefix, 1, n);
    Correctness c = compare_logits(std::span<const float>(got.data(), static_cast<std::size_t>(n * V)), ref, V,
                                   tolerance_for(dtype));
    c.reference = "fp64-naive";
    return c;
  }
  auto cpu = make_cpu_backend();
  cpu->prepare(weights, shape.batch, shape.seq, DType::kFp32);
  const std::vector<float> ref_f = cpu->logits(tokens);
  const std::vector<double> ref(ref_f.begin(), ref_f.end());
  Correctness c = compare_logits(got, ref, V, tolerance_for(dtype));
  c.reference = "cpu-fp32";
  return c;
}

ConfigResult new_result(const ConfigJob& job, const Shape& shape, const HarnessSettings& s) {
  ConfigResult r;
  r.name = s.shapes.size() > 1 ? shape_key(job.config.name, shape.batch, shape.seq) : job.config.name;
  r.config = job.config;
  r.shape = shape;
  r.params = count_parameters(job.config);
  r.cost = forward_cost(job.config, shape.batch, shape.seq, s.dtype);
  return r;
}

void summarize_timing(ConfigResult& r) {
  r.timing = stats::summarize(r.samples_ms);
  r.tokens_per_s = r.timing.median > 0 ? 1e3 * r.shape.batch * r.shape.seq / r.timing.median : 0;
  r.roofline_fraction = r.floor.floor_ms > 0 && r.timing.median > 0 ? r.floor.floor_ms / r.timing.median : 0;
}

void check_shapes_fit(const std::vector<ConfigJob>& jobs, const std::vector<Shape>& shapes) {
  for (const ConfigJob& job : jobs) {
    validate_config(job.config);
    for (const Shape& shape : shapes) {
      if (shape.seq > job.config.block_size)
        throw Error(ExitCode::kUsage, "--seq " + std::to_string(shape.seq) + " exceeds the block size " +
                                          std::to_string(job.config.block_size) + " of config '" + job.config.name +
                                          "'");
    }
  }
}

std::string cache_state_name(CacheState caches) { return caches == CacheState::kCold ? "cold" : "warm"; }

CacheState parse_cache_state(const std::string& name) {
  if (name == "warm") return CacheState::kWarm;
  if (name == "cold") return CacheState::kCold;
  throw Error(ExitCode::kUsage, "--caches must be warm or cold, not '" + name + "'");
}

std::vector<Shape> shapes_of(const std::vector<int>& batches, const std::vector<int>& seqs) {
  auto check = [](const std::vector<int>& values, const char* flag) {
    if (values.empty()) throw Error(ExitCode::kUsage, std::string(flag) + " needs at least one value");
    for (std::size_t i = 0; i < values.size(); ++i) {
      if (values[i] <= 0) throw Error(ExitCode::kUsage, "--batch and --seq must be positive");
      if (std::find(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(i), values[i]) !=
          values.begin() + static_cast<std::ptrdiff_t>(i)) {
        throw Error(ExitCode::kUsage, std::string(flag) + " lists " + std::to_string(values[i]) + " twice");
      }
    }
  };
  check(batches, "--batch");
  check(seqs, "--seq");
  std::vector<Shape> shapes;
  for (const int b : batches) {
    for (const int t : seqs) shapes.push_back({b, t});
  }
  return shapes;
}

std::vector<double> repetition_medians(const std::vector<Repetition>& repetitions) {
  std::vector<double> medians;
  for (const Repetition& x : repetitions) medians.push_back(x.median_ms);
  return medians;
}

std::optional<ForwardPin> ForwardPins::find(const std::string& config, const Shape& shape) const {
  if (every) return every;
  for (const Entry& e : per_benchmark) {
    if (e.config == config && e.shape == shape) return e.pin;
  }
  return std::nullopt;
}

std::vector<std::int32_t> make_tokens(int B, int T, int V, std::uint64_t seed) {
  NormalStream stream(seed ^ fnv1a64("tokens"));
  std::vector<std::int32_t> tokens(static_cast<std::size_t>(B) * static_cast<std::size_t>(T));
  for (auto& t : tokens) t = static_cast<std::int32_t>(stream.next() % static_cast<std::uint64_t>(V));
  return tokens;
}

BenchRun run_benchmarks(const std::vector<ConfigJob>& jobs, const HarnessSettings& s, Backend& backend) {
  BenchRun run;
  run.backend = backend.name();
  run.device = backend.device();
  run.settings = s;
  run.timestamp = iso8601_now();
  check_shapes_fit(jobs, s.shapes);  // every shape first: a sweep must not stop at its last config
  const std::size_t steps = jobs.size() * s.shapes.size();
  ProgressBar progress("vbench", steps);
  std::size_t step = 0;
  for (const ConfigJob& job : jobs) {
    GptWeights initialised;
    if (!job.weights) initialised = init_weights(job.config, s.seed);
    const GptWeights& weights = job.weights ? *job.weights : initialised;
    for (const Shape& shape : s.shapes) {
      ConfigResult r = new_result(job, shape, s);
      progress.update(step++, r.name);
      const auto tokens = make_tokens(shape.batch, shape.seq, job.config.vocab_size, s.seed);
      const std::optional<ForwardPin> pin = s.pins.find(job.config.name, shape);
      if (!s.pins.source.empty() && !pin) {
        run.notes.push_back(job.config.name + " (B=" + std::to_string(shape.batch) + " T=" +
                            std::to_string(shape.seq) + "): " + s.pins.source +
                            " names no forward for it, so prepare chose one");
      }
      backend.pin_forward(pin);
      backend.prepare(weights, shape.batch, shape.seq, s.dtype);
      r.plan_search = backend.plan_search();
      for (std::string& note : backend.notes()) {  // per prepared model (some name it), each distinct one once
        const bool seen = std::find(run.notes.begin(), run.notes.end(), note) != run.notes.end();
        if (!seen) run.notes.push_back(std::move(note));
      }
      // The peak FLOP/s depend on the dtype, which the backend knows only once prepared (fp32 peak for a bf16 run
      // gave roofline fractions above 1 on the H100).
      run.device = backend.device();
      r.floor = roofline_floor(r.cost, run.device);
      r.kernels_per_forward = backend.kernels_per_forward();
      if (s.check) r.correctness = check_correctness(weights, tokens, shape, s, backend);
      const bool gate_ok = !r.correctness || r.correctness->passed;
      if (!gate_ok) r.status = "failed";
      else if (!s.time) r.status = "passed";
      else r.status = s.check ? "ok" : "unchecked";
      if (gate_ok && s.time) time_config(r, tokens, weights, pin, s, backend);
      run.results.push_back(std::move(r));
    }
  }
  progress.update(steps);
  return run;
}

}  // namespace vtools::vbench
