// The interface every vbench backend implements (cpu in cpu_backend.cpp, cuda in cuda/cuda_backend.cpp). The
// harness owns the correctness gate, the timing's steps (measurement.hpp: warm-up, cache flush, stop rule) and the
// statistics; a backend only runs forwards and flushes, and times what it is asked to.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "formats/bench/bench_model.hpp"
#include "libcommon/error.hpp"
#include "tools/vbench/cuda_options.hpp"
#include "tools/vbench/model.hpp"

namespace vtools::vbench {

enum class DType { kFp32, kTf32, kBf16 };

/// What the caches hold when a timed forward starts (--caches). Warm: what the forward before it left (forwards
/// back to back, as a serving loop runs them; small models then read their weights from L2). Cold: the caches were
/// filled with other data first (GPU: L2; CPU: the last-level and per-core caches), so weights come from memory.
enum class CacheState { kWarm, kCold };

/// What a backend reports about the machine it runs on (goes into the document's metadata).
struct DeviceInfo {
  std::string name;                ///< "NVIDIA H100 80GB HBM3" or the CPU model
  std::string compute_capability;  ///< "9.0"; "" on CPU
  int sm_count = 0;
  std::uint64_t memory_bytes = 0;
  std::string driver_version, runtime_version, blas_version;
  double peak_bandwidth_bytes_per_s = 0;  ///< for the roofline floor; 0 when unknown
  double peak_flops = 0;                  ///< for the dtype in use; 0 when unknown
  int threads = 0;                        ///< CPU threads used
  int gpu_index = -1;                     ///< the CUDA device index (as CUDA_VISIBLE_DEVICES numbers them); -1 on CPU
  std::string pci_bus_id;                 ///< "0000:19:00.0": which card it was on a host with several; "" on CPU
};

/// A forward for prepare() to run instead of searching (vbench run --forward, --forwards-from), so that two runs
/// time the same kernels: a name that PlanSearch::kept gives, and where known the GEMM algorithms with the device
/// and cuBLASLt version they were chosen on (used only on the same; otherwise prepare tunes them as a search does).
struct ForwardPin {
  std::string forward;
  std::vector<GemmChoice> gemm_algorithms;
  std::string device_name, blas_version;
  std::string from;  ///< "--forward", or the document it came from
};

class Backend {
 public:
  virtual ~Backend() = default;
  [[nodiscard]] virtual std::string name() const = 0;  ///< "cpu", "cuda"
  [[nodiscard]] virtual DeviceInfo device() const = 0;
  /// The device as it would run `dtype` (its peak FLOP/s are the dtype's), without prepare(): for `vbench list
  /// --device`. The cpu backend has one set of measured peaks (fp32).
  [[nodiscard]] virtual DeviceInfo device_for(DType dtype) const {
    (void)dtype;
    return device();
  }

  /// Makes the following prepare() calls run `pin` instead of choosing a forward (nullopt: choose). A backend with
  /// one way to run the forward (cpu) takes no pin: Error(kUsage).
  virtual void pin_forward(const std::optional<ForwardPin>& pin) {
    if (pin) throw Error(ExitCode::kUsage, "the " + name() + " backend has one forward: " + pin->from + " needs cuda");
  }

  /// Copies weights in and allocates activations for batch B and sequence T (T <= block_size).
  virtual void prepare(const GptWeights& weights, int B, int T, DType dtype) = 0;

  /// Runs one forward on `tokens` ([B][T], values < vocab) and returns logits [B][T][V] on the host (fp32).
  /// Used by the correctness gate, not timed.
  virtual std::vector<float> logits(const std::vector<std::int32_t>& tokens) = 0;

  /// The primitives of one timing, called by the harness's steps (measurement.cpp) in this order: begin_timing, then
  /// flush_caches and run_forward as the steps say, then end_timing. A backend may queue them and wait only in
  /// end_timing (cuda: one stream), so that the forwards run back to back.
  /// Starts a timing of forwards on `tokens` ([B][T], values < vocab), `timed` of which will be timed.
  virtual void begin_timing(const std::vector<std::int32_t>& tokens, int timed) = 0;
  /// Fills the caches with other data, untimed (GPU: L2; CPU: the last-level and per-core caches), so that the next
  /// forward reads its weights from memory (--caches cold).
  virtual void flush_caches() = 0;
  /// One forward on the timing's tokens; `timed`: its duration is a sample (CUDA events around a graph replay on a
  /// non-default stream; host clock on CPU). Error(kInternal) past the `timed` forwards begin_timing announced.
  virtual void run_forward(bool timed) = 0;
  /// Waits for the timing's forwards; the timed ones' durations in milliseconds, in order.
  virtual std::vector<double> end_timing() = 0;

  /// The clocks read during the last timing, where the backend can read them (cuda, through NVML).
  [[nodiscard]] virtual std::optional<ClockReading> timing_clocks() const { return std::nullopt; }

  /// Kernels launched per forward (CUDA); 0 on CPU.
  [[nodiscard]] virtual int kernels_per_forward() const { return 0; }

  /// How the last prepare() chose its forward, where it chose among several (cuda).
  [[nodiscard]] virtual std::optional<PlanSearch> plan_search() const { return std::nullopt; }

  /// How the last prepare() computes, where a reader of the numbers should know (the document's notes).
  [[nodiscard]] virtual std::vector<std::string> notes() const { return {}; }
};

/// The CUDA backend on device `gpu` (an index as CUDA_VISIBLE_DEVICES numbers them; < 0: device 0), or nullptr with
/// `why` filled when this build or machine has none (no nvcc at build time, no GPU, no driver, no such device).
/// `options` hold its switches for profiling and experiments (cuda_options.hpp). Defined in cuda/cuda_backend.cpp,
/// or in cuda_unavailable.cpp when CUDA is not built.
std::unique_ptr<Backend> make_cuda_backend(int gpu, std::string* why, const CudaOptions& options = {});

}  // namespace vtools::vbench
