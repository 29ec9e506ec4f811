// The forward captured once into a CUDA graph on a non-default stream, and its timing: replays enqueued back to back
// with an event pair around each (ReplayTimer), so each sample is one forward's device time with no host launch gap
// (the host enqueues ahead of the GPU). What runs between replays (an L2 flush for cold caches) is the caller's.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <string_view>
#include <vector>

namespace vtools::vbench::cuda {

class GptForward;

class ForwardGraph {
 public:
  ForwardGraph() = default;
  ~ForwardGraph() { release(); }
  ForwardGraph(const ForwardGraph&) = delete;
  ForwardGraph& operator=(const ForwardGraph&) = delete;

  /// Captures one forward.enqueue on `stream` (thread-local capture mode), instantiates and uploads it. An error in
  /// the enqueue ends the capture, leaves the stream usable and is the one rethrown.
  void capture(GptForward& forward, cudaStream_t stream);
  /// Destroys the graph; kernels() is then 0.
  void release();
  [[nodiscard]] bool captured() const { return exec_ != nullptr; }
  /// Kernel nodes of the captured graph, child graphs included (memcpy/memset nodes are not kernels).
  [[nodiscard]] int kernels() const { return kernels_; }
  /// Enqueues one replay; `what` names it in errors.
  void launch(cudaStream_t stream, std::string_view what = {}) const;
  /// Replays `warmup` times, then `iters` times with an event pair around each, and waits; their ms.
  std::vector<double> replay_ms(cudaStream_t stream, int warmup, int iters) const;

 private:
  cudaGraph_t graph_ = nullptr;
  cudaGraphExec_t exec_ = nullptr;
  int kernels_ = 0;
};

/// The event pairs of one timing: replays enqueued on one stream, each timed one between two events, read once
/// waited for.
class ReplayTimer {
 public:
  /// Creates the events of `timed` timed replays.
  explicit ReplayTimer(std::size_t timed);
  ~ReplayTimer();
  ReplayTimer(const ReplayTimer&) = delete;
  ReplayTimer& operator=(const ReplayTimer&) = delete;

  /// Enqueues one replay of `graph` on `stream`; `timed`: between the next event pair (Error(kInternal) when none
  /// is left).
  void replay(const ForwardGraph& graph, cudaStream_t stream, bool timed);
  /// Timed replays enqueued so far.
  [[nodiscard]] std::size_t timed() const { return timed_; }
  /// Waits for `stream`; the timed replays' ms, in order.
  std::vector<double> wait_ms(cudaStream_t stream) const;

 private:
  std::vector<cudaEvent_t> events_;
  std::size_t timed_ = 0;
};

}  // namespace vtools::vbench::cuda
