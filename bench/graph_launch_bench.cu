// What one CUDA-graph replay costs before any work: vbench times each forward as CUDA events around a graph launch
// (issue 3), so this is the part of every forward's median that no kernel change can remove. Graphs of 1 and 5
// empty kernels (one CTA each, and 132 CTAs each), the kernels in a chain, plain or as programmatic dependents (as
// the fused forward launches them); median over 2,000 replays of the event pair's time, after 200 warm-up replays.
// Run on the GPU test machine: build-gpu/tools/vbench/cuda/graph_launch_bench (a target of the gpu build).
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace {

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) {
    std::fprintf(stderr, "graph_launch_bench: %s: %s\n", what, cudaGetErrorString(e));
    std::exit(1);
  }
}

__global__ void empty_kernel(int* sink) {
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
  asm volatile("griddepcontrol.wait;" ::: "memory");
  if (sink != nullptr && threadIdx.x == 0 && blockIdx.x == 0) *sink = 1;
}

/// Median event time in us of a graph of `kernels` empty kernels of `ctas` CTAs, chained (programmatic or not).
double median_replay_us(cudaStream_t stream, int kernels, int ctas, bool programmatic) {
  cudaGraph_t graph = nullptr;
  check(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal), "cudaStreamBeginCapture");
  for (int k = 0; k < kernels; ++k) {
    cudaLaunchAttribute attr{};
    attr.id = cudaLaunchAttributeProgrammaticStreamSerialization;
    attr.val.programmaticStreamSerializationAllowed = 1;
    cudaLaunchConfig_t config{};
    config.gridDim = dim3(ctas);
    config.blockDim = dim3(128);
    config.stream = stream;
    config.attrs = &attr;
    config.numAttrs = programmatic && k > 0 ? 1 : 0;
    check(cudaLaunchKernelEx(&config, empty_kernel, static_cast<int*>(nullptr)), "cudaLaunchKernelEx");
  }
  check(cudaStreamEndCapture(stream, &graph), "cudaStreamEndCapture");
  cudaGraphExec_t exec = nullptr;
  check(cudaGraphInstantiate(&exec, graph, 0), "cudaGraphInstantiate");
  for (int i = 0; i < 200; ++i) check(cudaGraphLaunch(exec, stream), "cudaGraphLaunch");
  constexpr int kReplays = 2000;
  std::vector<cudaEvent_t> events(2 * kReplays);
  for (auto& e : events) check(cudaEventCreate(&e), "cudaEventCreate");
  for (int i = 0; i < kReplays; ++i) {  // back to back, as vbench's timed replays
    check(cudaEventRecord(events[2 * i], stream), "cudaEventRecord");
    check(cudaGraphLaunch(exec, stream), "cudaGraphLaunch");
    check(cudaEventRecord(events[2 * i + 1], stream), "cudaEventRecord");
  }
  check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
  std::vector<float> us(kReplays);
  for (int i = 0; i < kReplays; ++i) {
    check(cudaEventElapsedTime(&us[i], events[2 * i], events[2 * i + 1]), "cudaEventElapsedTime");
    us[i] *= 1000.f;
  }
  for (auto& e : events) check(cudaEventDestroy(e), "cudaEventDestroy");
  check(cudaGraphExecDestroy(exec), "cudaGraphExecDestroy");
  check(cudaGraphDestroy(graph), "cudaGraphDestroy");
  std::nth_element(us.begin(), us.begin() + kReplays / 2, us.end());
  return us[kReplays / 2];
}

}  // namespace

int main() {
  cudaStream_t stream = nullptr;
  check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreateWithFlags");
  int sms = 0;
  check(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0), "cudaDeviceGetAttribute");
  std::printf("%-8s %-6s %-13s %10s\n", "kernels", "CTAs", "launch", "median us");
  for (int kernels : {1, 5}) {
    for (int ctas : {1, sms}) {
      for (bool programmatic : {false, true}) {
        if (kernels == 1 && programmatic) continue;
        std::printf("%-8d %-6d %-13s %10.2f\n", kernels, ctas, programmatic ? "programmatic" : "plain",
                    median_replay_us(stream, kernels, ctas, programmatic));
      }
    }
  }
  return 0;
}
