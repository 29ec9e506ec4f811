#include "tools/vbench/cuda/forward_graph.hpp"

#include <cstddef>
#include <vector>

#include "libcommon/error.hpp"
#include "tools/vbench/cuda/cuda_error.hpp"
#include "tools/vbench/cuda/gpt_forward.hpp"

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

std::vector<double> ForwardGraph::replay_ms(cudaStream_t stream, int warmup, int iters) const {
  ReplayTimer timer(iters > 0 ? static_cast<std::size_t>(iters) : 0);
  for (int i = 0; i < warmup; ++i) timer.replay(*this, stream, false);
  for (int i = 0; i < iters; ++i) timer.replay(*this, stream, true);
  return timer.wait_ms(stream);
}

ReplayTimer::ReplayTimer(std::size_t timed) {
  events_.reserve(2 * timed);
  for (std::size_t i = 0; i < 2 * timed; ++i) {
    cudaEvent_t event = nullptr;
    check_cuda(cudaEventCreate(&event), "cudaEventCreate");
    events_.push_back(event);
  }
}

ReplayTimer::~ReplayTimer() {
  for (cudaEvent_t event : events_) cudaEventDestroy(event);
}

void ReplayTimer::replay(const ForwardGraph& graph, cudaStream_t stream, bool timed) {
  if (!timed) {
    graph.launch(stream, "warm-up");
    return;
  }
  if (2 * timed_ >= events_.size()) {
    throw Error(ExitCode::kInternal, "more timed replays than the timer has events for");
  }
  check_cuda(cudaEventRecord(events_[2 * timed_], stream), "cudaEventRecord");
  graph.launch(stream);
  check_cuda(cudaEventRecord(events_[2 * timed_ + 1], stream), "cudaEventRecord");
  ++timed_;
}

std::vector<double> ReplayTimer::wait_ms(cudaStream_t stream) const {
  check_cuda(cudaStreamSynchronize(stream), "cudaStreamSynchronize", "the timed forwards");
  std::vector<double> samples_ms;
  samples_ms.reserve(timed_);
  for (std::size_t i = 0; i < timed_; ++i) {
    float ms = 0;
    check_cuda(cudaEventElapsedTime(&ms, events_[2 * i], events_[2 * i + 1]), "cudaEventElapsedTime");
    samples_ms.push_back(ms);
  }
  return samples_ms;
}

}  // namespace vtools::vbench::cuda
