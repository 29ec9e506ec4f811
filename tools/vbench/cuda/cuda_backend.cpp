// The cuda backend, the Backend adapter over the pieces: weights on the device in the dtype's storage type
// (device_weights), the forward chosen at prepare (forward_search) and captured once into a CUDA graph on a
// non-default stream (forward_graph), replayed for logits() and for the harness's timing steps, which enqueue
// replays (timed between events) and L2 flushes (l2_reset) on that stream and wait only at the end.
#include <cublasLt.h>
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "libcommon/cuda_driver.hpp"
#include "libcommon/error.hpp"
#include "tools/vbench/backend.hpp"
#include "tools/vbench/cuda/cuda_error.hpp"
#include "tools/vbench/cuda/device_info.hpp"
#include "tools/vbench/cuda/device_weights.hpp"
#include "tools/vbench/cuda/forward_graph.hpp"
#include "tools/vbench/cuda/forward_io.hpp"
#include "tools/vbench/cuda/forward_search.hpp"
#include "tools/vbench/cuda/gpt_forward.hpp"
#include "tools/vbench/cuda/gpu_clocks.hpp"
#include "tools/vbench/cuda/l2_reset.hpp"
#include "tools/vbench/cuda/programmatic.hpp"

namespace vtools::vbench {

namespace {

using cuda::check_cublas;
using cuda::check_cuda;

class CudaBackend final : public Backend {
 public:
  CudaBackend(int device, const CudaOptions& options) : device_(device), options_(options) {}
  ~CudaBackend() override {
    release_forward();
    if (lt_ != nullptr) cublasLtDestroy(lt_);
    if (stream_ != nullptr) cudaStreamDestroy(stream_);
  }
  CudaBackend(const CudaBackend&) = delete;
  CudaBackend& operator=(const CudaBackend&) = delete;

  [[nodiscard]] std::string name() const override { return "cuda"; }
  [[nodiscard]] DeviceInfo device() const override { return cuda::query_device_info(device_, dtype_); }
  [[nodiscard]] DeviceInfo device_for(DType dtype) const override { return cuda::query_device_info(device_, dtype); }
  [[nodiscard]] int kernels_per_forward() const override { return graph_.kernels(); }
  [[nodiscard]] std::vector<std::string> notes() const override {
    std::vector<std::string> notes;
    if (dtype_ == DType::kFp32) {
      notes.push_back("cuda fp32: the LM head runs as 3xTF32 on tensor cores (operands split into TF32 hi + lo, three "
                      "products summed; fp32-level error); the other GEMMs in fp32");
    }
    if (search_) {
      const std::vector<std::string> search_notes = search_->notes();
      notes.insert(notes.end(), search_notes.begin(), search_notes.end());
    }
    return notes;
  }

  [[nodiscard]] std::optional<PlanSearch> plan_search() const override {
    return search_ ? search_->plan_search() : std::nullopt;
  }

  void prepare(const GptWeights& weights, int B, int T, DType dtype) override {
    release_forward();
    check_cuda(cudaSetDevice(device_), "cudaSetDevice");
    if (stream_ == nullptr) check_cuda(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "cudaStreamCreate");
    if (lt_ == nullptr) check_cublas(cublasLtCreate(&lt_), "cublasLtCreate", "the cuBLASLt handle");
    l2_.allocate();  // first, so that every prepare allocates its buffers beside the same ones
    dtype_ = dtype;
    weights_ = std::make_unique<cuda::DeviceWeights>(cuda::upload_weights(weights, dtype));
    forward_ = std::make_unique<cuda::GptForward>(lt_, *weights_, B, T);
    forward_->trace_persistent_to(options_.persistent_trace);
    search_ = std::make_unique<cuda::ForwardSearch>(*forward_, *weights_, device_, stream_, graph_, l2_, options_);
    // Measured GEMM algorithms, then one eager forward (on zero tokens): it loads every module (CUDA lazy loading)
    // and initialises cuBLASLt outside the capture, where neither is allowed.
    const std::size_t token_bytes = static_cast<std::size_t>(B) * T * sizeof(int);
    check_cuda(cudaMemsetAsync(forward_->d_tokens(), 0, token_bytes, stream_), "cudaMemsetAsync", "tokens");
    forward_->choose_gemm_algorithms(stream_);
    forward_->enqueue(stream_);
    check_cuda(cudaStreamSynchronize(stream_), "cudaStreamSynchronize", "the eager warm-up forward");
    if (pin_) {
      search_->use_pin(*pin_);
    } else {
      search_->search();
    }
    l2_.run(stream_);
    graph_.capture(*forward_, stream_);
  }

  void pin_forward(const std::optional<ForwardPin>& pin) override { pin_ = pin; }

  std::vector<float> logits(const std::vector<std::int32_t>& tokens) override {
    upload_tokens(tokens);
    graph_.launch(stream_);
    return cuda::download_logits(*forward_, *weights_, stream_);
  }

  void begin_timing(const std::vector<std::int32_t>& tokens, int timed) override {
    upload_tokens(tokens);
    timing_clocks_.reset();
    timer_.emplace(timed > 0 ? static_cast<std::size_t>(timed) : 0);
  }

  void flush_caches() override { l2_.enqueue(stream_); }

  void run_forward(bool timed) override { timer().replay(graph_, stream_, timed); }

  std::vector<double> end_timing() override {
    // The clocks are read (NVML) once every replay is enqueued (the host is then ahead of the GPU by all of them),
    // while they run.
    if (timer().timed() > 0) timing_clocks_ = cuda::read_gpu_clocks(device_);
    std::vector<double> ms = timer().wait_ms(stream_);
    timer_.reset();
    return ms;
  }

  [[nodiscard]] std::optional<ClockReading> timing_clocks() const override { return timing_clocks_; }

 private:
  void upload_tokens(const std::vector<std::int32_t>& tokens) {
    if (!forward_ || !graph_.captured()) throw Error(ExitCode::kInternal, "cuda backend used before prepare()");
    cuda::upload_tokens(*forward_, tokens, weights_->config.vocab_size, stream_);
  }

  cuda::ReplayTimer& timer() {
    if (!timer_) throw Error(ExitCode::kInternal, "cuda backend: a forward timed outside begin_timing/end_timing");
    return *timer_;
  }

  void release_forward() {
    timer_.reset();
    graph_.release();
    search_.reset();
    forward_.reset();  // before the weights it points to
    weights_.reset();
  }

  int device_;
  CudaOptions options_;
  DType dtype_ = DType::kFp32;
  cudaStream_t stream_ = nullptr;
  cublasLtHandle_t lt_ = nullptr;
  std::unique_ptr<cuda::DeviceWeights> weights_;
  std::unique_ptr<cuda::GptForward> forward_;
  /// How the forward prepared last was chosen; reset with it.
  std::unique_ptr<cuda::ForwardSearch> search_;
  /// The timing begin_timing started (end_timing ends it).
  std::optional<cuda::ReplayTimer> timer_;
  /// The clocks read during the last timing (nullopt without NVML).
  std::optional<ClockReading> timing_clocks_;
  cuda::L2Reset l2_;
  cuda::ForwardGraph graph_;
  /// What the next prepare() runs instead of searching (pin_forward).
  std::optional<ForwardPin> pin_;
};

}  // namespace

std::unique_ptr<Backend> make_cuda_backend(int gpu, std::string* why, const CudaOptions& options) {
  int count = 0;
  const cudaError_t status = cudaGetDeviceCount(&count);
  if (status != cudaSuccess) {
    (void)cudaGetLastError();
    if (why != nullptr) {
      // No driver at all reads as "driver version is insufficient" from the runtime: say what vtrace says.
      const auto no_driver = status == cudaErrorInsufficientDriver ? cuda_driver_unavailable() : std::nullopt;
      *why = no_driver ? *no_driver
                       : std::string("cudaGetDeviceCount failed: ") + cudaGetErrorString(status) + " (" +
                             cudaGetErrorName(status) + ")";
    }
    return nullptr;
  }
  if (count == 0) {
    if (why != nullptr) *why = "no CUDA device found (cudaGetDeviceCount returned 0)";
    return nullptr;
  }
  const int device = gpu < 0 ? 0 : gpu;
  if (device >= count) {
    if (why != nullptr) {
      *why = "there is no CUDA device " + std::to_string(device) + " (" + std::to_string(count) + " visible: 0" +
             (count > 1 ? ".." + std::to_string(count - 1) : "") + ")";
    }
    return nullptr;
  }
  check_cuda(cudaSetDevice(device), "cudaSetDevice");
  cuda::allow_programmatic_launches(options.programmatic);
  return std::make_unique<CudaBackend>(device, options);
}

}  // namespace vtools::vbench
