// The forward captured once into a CUDA graph on a non-default stream, and its timing: replays enqueued back to back
// with an event pair around each, so each sample is one forward's device time with no host launch gap (the host
// enqueues ahead of the GPU). What runs before each replay (an L2 flush for cold caches) is the caller's choice.
#pragma once

#include <cuda_runtime.h>

#include <functional>
#include <string_view>
#include <vector>

namespace vtools::vbench::cuda {

class GptForward;
class L2Reset;

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
  /// Replays `warmup` times, then `iters` times with an event pair around each, and waits; their ms. With `cold`,
  /// an L2 flush is enqueued before each replay, outside its events. `while_running` is called once every replay is
  /// enqueued (the host is then ahead of the GPU by all of them), when there are timed ones.
  std::vector<double> replay_ms(cudaStream_t stream, int warmup, int iters, const L2Reset* cold = nullptr,
                                const std::function<void()>& while_running = {}) const;

 private:
  cudaGraph_t graph_ = nullptr;
  cudaGraphExec_t exec_ = nullptr;
  int kernels_ = 0;
};

}  // namespace vtools::vbench::cuda
