#include "tools/vbench/cpu_backend.hpp"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include "libcommon/error.hpp"
#include "libcommon/human_units.hpp"
#include "libcommon/stats.hpp"
#include "tools/vbench/cpu_forward.hpp"
#include "tools/vbench/forward_cost.hpp"
#include "tools/vbench/ops/cpu_ops.hpp"
#include "tools/vbench/ops/parallel_for.hpp"

#ifdef VTOOLS_HAVE_OPENBLAS
#include <cblas.h>
#endif

namespace vtools::vbench {

namespace {

class CpuBackend final : public Backend {
 public:
  [[nodiscard]] std::string name() const override { return "cpu"; }

  [[nodiscard]] DeviceInfo device() const override {
    DeviceInfo d;
    d.name = cpu_model_name();
    d.threads = cpu::cpu_threads();
#ifdef VTOOLS_HAVE_OPENBLAS
    d.blas_version = std::string("OpenBLAS ") + openblas_get_config();
#else
    d.blas_version = "none (blocked loops)";
#endif
    const CpuPeaks& peaks = measured_cpu_peaks();
    d.peak_bandwidth_bytes_per_s = peaks.bandwidth_bytes_per_s;
    d.peak_flops = peaks.flops;
    return d;
  }

  void prepare(const GptWeights& weights, int B, int T, DType dtype) override {
    if (dtype != DType::kFp32)
      throw Error(ExitCode::kUsage, "the cpu backend runs fp32 only, not " + dtype_name(dtype));
    forward_ = std::make_unique<CpuForward>(weights, B, T);
  }

  std::vector<float> logits(const std::vector<std::int32_t>& tokens) override {
    forward_->forward(tokens.data());
    return forward_->logits();
  }

  [[nodiscard]] std::vector<std::string> notes() const override { return {cpu_peaks_note(measured_cpu_peaks())}; }

  void begin_timing(const std::vector<std::int32_t>& tokens, int timed) override {
    tokens_ = tokens;
    timed_left_ = timed;
    samples_ms_.clear();
    samples_ms_.reserve(static_cast<std::size_t>(std::max(timed, 0)));
  }

  void flush_caches() override {
    if (flush_buffer_.empty()) flush_buffer_.assign(cache_flush_bytes() / 8, 1);
    read_flush_buffer();
  }

  void run_forward(bool timed) override {
    if (!timed) {
      forward_->forward(tokens_.data());
      return;
    }
    if (timed_left_-- <= 0) throw Error(ExitCode::kInternal, "cpu backend: more timed forwards than begin_timing said");
    const auto start = std::chrono::steady_clock::now();
    forward_->forward(tokens_.data());
    const auto stop = std::chrono::steady_clock::now();
    samples_ms_.push_back(std::chrono::duration<double, std::milli>(stop - start).count());
  }

  std::vector<double> end_timing() override { return std::exchange(samples_ms_, {}); }

 private:
  /// Each worker thread reads its share of the buffer, so that its core's own caches are refilled too (the weights
  /// then come from memory, as after a cold start). The sum goes to a volatile so the reads are kept.
  void read_flush_buffer() {
    std::atomic<std::uint64_t> total{0};
    cpu::parallel_for(static_cast<std::int64_t>(flush_buffer_.size()), 1 << 16, [&](std::int64_t b, std::int64_t e) {
      std::uint64_t sum = 0;
      for (std::int64_t i = b; i < e; i += 8) sum += flush_buffer_[static_cast<std::size_t>(i)];  // a cache line a read
      total += sum;
    });
    flush_sink_ = total.load();
  }

  std::unique_ptr<CpuForward> forward_;
  std::vector<std::int32_t> tokens_;  ///< the timing's (begin_timing)
  int timed_left_ = 0;                ///< timed forwards begin_timing announced and run_forward has not run
  std::vector<double> samples_ms_;
  std::vector<std::uint64_t> flush_buffer_;  ///< --caches cold: read before each forward (cache_flush_bytes())
  volatile std::uint64_t flush_sink_ = 0;
};

template <typename F>
BestOf time_repeats(int repeats, F&& body) {
  std::vector<double> seconds;
  for (int r = 0; r < repeats; ++r) {
    const auto start = std::chrono::steady_clock::now();
    body();
    seconds.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  return best_of(std::move(seconds));
}

std::string percent(double fraction) { return std::to_string(static_cast<int>(std::lround(100 * fraction))) + "%"; }

}  // namespace

std::unique_ptr<Backend> make_cpu_backend() { return std::make_unique<CpuBackend>(); }

const CpuPeaks& measured_cpu_peaks() {
  static const CpuPeaks peaks = [] {
    CpuPeaks p;
    p.repeats = kPeakRepeats;
    const std::size_t n = (64u << 20) / sizeof(float);
    std::vector<float> src(n, 1.0f), dst(n, 0.0f);
    // On every worker thread, as the forwards run: one thread's copy is slower than the forwards' reads, and the
    // floor from it was beaten (over 100% "of floor").
    const BestOf copy = time_repeats(kPeakRepeats, [&] {
      cpu::parallel_for(static_cast<std::int64_t>(n), 1 << 16, [&](std::int64_t b, std::int64_t e) {
        std::copy(src.begin() + b, src.begin() + e, dst.begin() + b);
      });
    });
    p.bandwidth_bytes_per_s = 2.0 * static_cast<double>(n * sizeof(float)) / copy.best_s;
    p.bandwidth_noise = copy.noise;
    constexpr int kN = 512;
    std::vector<float> a(kN * kN, 0.5f), b(kN * kN, 0.25f), c(kN * kN, 0.0f);
    const BestOf gemm = time_repeats(kPeakRepeats, [&] {
      cpu::matmul_forward(c.data(), a.data(), b.data(), nullptr, kN, kN, kN, cpu::WeightLayout::kInOut);
    });
    p.flops = 2.0 * kN * kN * kN / gemm.best_s;
    p.flops_noise = gemm.noise;
    return p;
  }();
  return peaks;
}

BestOf best_of(std::vector<double> seconds) {
  if (seconds.empty()) return {};
  const double best = *std::min_element(seconds.begin(), seconds.end());
  return {best, best > 0 ? stats::median(seconds) / best - 1 : 0};
}

std::string cpu_peaks_note(const CpuPeaks& peaks) {
  std::string note = "cpu floor: peaks measured at the start of this run, best of " + std::to_string(peaks.repeats) +
                     ": copy " + format_si(peaks.bandwidth_bytes_per_s) + "B/s (median repeat " +
                     percent(peaks.bandwidth_noise) + " slower), sgemm " + format_si(peaks.flops) +
                     "FLOP/s (median repeat " + percent(peaks.flops_noise) + " slower)";
  if (std::max(peaks.bandwidth_noise, peaks.flops_noise) > 0.1)
    note += "; the machine was busy, so the floor may be too high and \"of floor\" may read over 100%";
  return note;
}

std::size_t cache_flush_bytes() {
  // Twice what the caches hold: the last level plus every worker core's L2 (a non-inclusive L3 does not hold those).
  auto bytes_of = [](int name) {
    const long v = ::sysconf(name);
    return v > 0 ? static_cast<std::size_t>(v) : std::size_t{0};
  };
  std::size_t caches = bytes_of(_SC_LEVEL3_CACHE_SIZE) +
                       static_cast<std::size_t>(cpu::cpu_threads()) * bytes_of(_SC_LEVEL2_CACHE_SIZE);
  if (caches == 0) caches = 32u << 20;  // sysconf knows no sizes on this machine: more than most CPUs have
  // At most 1 GiB: some virtual machines report the host's whole L3 (300 MB on the build machine).
  return std::min<std::size_t>(2 * caches, std::size_t{1} << 30);
}

std::string cpu_model_name() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("model name", 0) == 0) {
      const auto colon = line.find(':');
      if (colon != std::string::npos) return line.substr(line.find_first_not_of(' ', colon + 1));
    }
  }
  return "unknown CPU";
}

}  // namespace vtools::vbench
