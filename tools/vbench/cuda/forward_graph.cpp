#include "tools/vbench/cuda/forward_graph.hpp"

#include <cstddef>

#include "tools/vbench/cuda/cuda_error.hpp"
#include "tools/vbench/cuda/gpt_forward.hpp"
#include "tools/vbench/cuda/l2_reset.hpp"

namespace vtools::vbench::cuda {

namespace {

/// Kernel nodes in `graph`, child graphs included.
int count_kernel_nodes(cudaGraph_t graph) {
  std::size_t n = 0;
  check_cuda(cudaGraphGetNodes(graph, nullptr, &n), "cudaGraphGetNodes");
  std::vector<cudaGraphNode_t> nodes(n);
  if (n > 0) check_cuda(cudaGraphGetNodes(graph, nodes.data(), &n), "cudaGraphGetNodes");
  int kernels = 0;
  for (cudaGraphNode_t node : nodes) {
    cudaGraphNodeType type{};
    check_cuda(cudaGraphNodeGetType(node, &type), "cudaGraphNodeGetType");
    if (type == cudaGraphNodeTypeKernel) ++kernels;
    if (type == cudaGraphNodeTypeGraph) {
      cudaGraph_t child = nullptr;
      check_cuda(cudaGraphChildGraphNodeGetGraph(node, &child), "cudaGraphChildGraphNodeGetGraph");
      kernels += count_kernel_nodes(child);
    }
  }
  return kernels;
}

/// Owns the CUDA events of one timing run.
class EventPool {
 public:
  explicit EventPool(std::size_t n) {
    events_.reserve(n);
    for (std::size_t i = 0; i < n; ++i) {
      cudaEvent_t event = nullptr;
      check_cuda(cudaEventCreate(&event), "cudaEventCreate");
      events_.push_back(event);
    }
  }
  ~EventPool() {
    for (cudaEvent_t event : events_) cudaEventDestroy(event);
  }
  EventPool(const EventPool&) = delete;
  EventPool& operator=(const EventPool&) = delete;
  cudaEvent_t operator[](std::size_t i) const { return events_[i]; }

 private:
  std::vector<cudaEvent_t> events_;
};

}  // namespace

void ForwardGraph::capture(GptForward& forward, cudaStream_t stream) {
  check_cuda(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal), "cudaStreamBeginCapture");
  try {
    forward.enqueue(stream);
  } catch (...) {
    cudaGraph_t partial = nullptr;
    cudaStreamEndCapture(stream, &partial);  // leave the stream usable; the enqueue error is the one to report
    if (partial != nullptr) cudaGraphDestroy(partial);
    (void)cudaGetLastError();
    throw;
  }
  check_cuda(cudaStreamEndCapture(stream, &graph_), "cudaStreamEndCapture");
  check_cuda(cudaGraphInstantiate(&exec_, graph_, 0), "cudaGraphInstantiate");
  check_cuda(cudaGraphUpload(exec_, stream), "cudaGraphUpload");
  kernels_ = count_kernel_nodes(graph_);
}

void ForwardGraph::release() {
  if (exec_ != nullptr) cudaGraphExecDestroy(exec_);
  if (graph_ != nullptr) cudaGraphDestroy(graph_);
  exec_ = nullptr;
  graph_ = nullptr;
  kernels_ = 0;
}

void ForwardGraph::launch(cudaStream_t stream, std::string_view what) const {
  check_cuda(cudaGraphLaunch(exec_, stream), "cudaGraphLaunch", what);
}

std::vector<double> ForwardGraph::replay_ms(cudaStream_t stream, int warmup, int iters, const L2Reset* cold,
                                            const std::function<void()>& while_running) const {
  auto flush = [&] {
    if (cold != nullptr) cold->enqueue(stream);
  };
  for (int i = 0; i < warmup; ++i) {
    flush();
    launch(stream, "warm-up");
  }
  const std::size_t n = iters > 0 ? static_cast<std::size_t>(iters) : 0;
  EventPool events(2 * n);
  for (std::size_t i = 0; i < n; ++i) {
    flush();
    check_cuda(cudaEventRecord(events[2 * i], stream), "cudaEventRecord");
    launch(stream);
    check_cuda(cudaEventRecord(events[2 * i + 1], stream), "cudaEventRecord");
  }
  if (while_running && n > 0) while_running();
  check_cuda(cudaStreamSynchronize(stream), "cudaStreamSynchronize", "the timed forwards");
  std::vector<double> samples_ms;
  samples_ms.reserve(n);
  for (std::size_t i = 0; i < n; ++i) {
    float ms = 0;
    check_cuda(cudaEventElapsedTime(&ms, events[2 * i], events[2 * i + 1]), "cudaEventElapsedTime");
    samples_ms.push_back(ms);
  }
  return samples_ms;
}

}  // namespace vtools::vbench::cuda
