// cuda::PersistentForward: every layer of a bf16 GPT forward (and the final layer norm) in one persistent Hopper
// kernel, a CTA per SM working through a static list of tasks whose dependencies are counters in global memory:
// no kernel boundary between the forward's steps, and each CTA copies its next tasks' weights while it waits for
// their activations. The LM head stays a separate GEMM after it. Design and figures: ops/persistent_forward.cu.
#pragma once

#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <array>
#include <cstddef>
#include <string>
#include <vector>

#include "tools/vbench/cuda/device_buffer.hpp"

namespace vtools::vbench::cuda {

/// One layer's parameters as the persistent forward reads them: the four weights transposed to [N][K]
/// (transpose_bf16), the biases bf16, the layer norms' weights and biases fp32.
struct PersistentLayer {
  const __nv_bfloat16* attn_wt = nullptr;       ///< [3C][C]
  const __nv_bfloat16* attn_b = nullptr;        ///< [3C]
  const __nv_bfloat16* attn_proj_wt = nullptr;  ///< [C][C]
  const __nv_bfloat16* attn_proj_b = nullptr;   ///< [C]
  const __nv_bfloat16* fc_wt = nullptr;         ///< [4C][C]
  const __nv_bfloat16* fc_b = nullptr;          ///< [4C]
  const __nv_bfloat16* fc_proj_wt = nullptr;    ///< [C][4C]
  const __nv_bfloat16* fc_proj_b = nullptr;     ///< [C]
  const float *ln1_w = nullptr, *ln1_b = nullptr, *ln2_w = nullptr, *ln2_b = nullptr;  ///< [C] each
};

/// The model, its shape and the activations the persistent forward reads and writes (owned by the caller, which
/// keeps them alive): tokens [B*T] in, final layer norm [B*T][C] out (ln), residual, attention output and MLP hidden
/// as scratch.
struct PersistentModel {
  int B = 0, T = 0, C = 0, NH = 0;
  const int* tokens = nullptr;
  const __nv_bfloat16 *wte = nullptr, *wpe = nullptr;  ///< [V][C], [block][C]
  std::vector<PersistentLayer> layers;
  const float *lnf_w = nullptr, *lnf_b = nullptr;
  float* residual = nullptr;         ///< [B*T][C]
  __nv_bfloat16* ln = nullptr;       ///< [B*T][C]: every layer norm's output, the final one's last
  __nv_bfloat16* attn = nullptr;     ///< [B*T][C]
  __nv_bfloat16* hidden = nullptr;   ///< [B*T][4C]
  std::string trace_path;  ///< where the last run's per-task stamps go (CudaOptions::persistent_trace); "" = none
};

/// Whether the persistent forward takes B sequences of T tokens, width C and NH heads on `device`: compute
/// capability 9.0 (wgmma, TMA), head size 64, 1 <= T <= 64, C a multiple of 256 up to 1024, at least one layer.
bool persistent_forward_takes(int B, int T, int C, int NH, int n_layer, int device);

/// One task of the persistent forward's list as its dependencies see it: kind ('n' layer norm, 'q' qkv + attention,
/// 'p' projection tile, 'f' fc tile), the counters it waits for (-1: none) and their counts, the counters it adds 1
/// to when done (-1: none).
struct PersistentTaskDeps {
  char kind;
  int wait[2];
  unsigned wait_for[2];
  int signal[2];
};

/// The task list PersistentForward builds for this shape, in order, and its number of counters: host logic only
/// (no device), for tests of the list's invariants (a task waits only for earlier tasks, for all that signal).
std::vector<PersistentTaskDeps> persistent_task_deps(int B, int T, int C, int NH, int n_layer, int& counters);

class PersistentForward {
 public:
  /// Builds the task list, the tensor maps and the counters on the current device; throws Error(kInternal) for a
  /// model persistent_forward_takes refuses.
  explicit PersistentForward(const PersistentModel& model);
  /// With a model.trace_path, writes the last run's per-task times there (a profiling aid).
  ~PersistentForward();
  PersistentForward(const PersistentForward&) = delete;
  PersistentForward& operator=(const PersistentForward&) = delete;
  /// Enqueues the embeddings, every layer and the final layer norm (into model.ln) as one kernel on `stream`.
  void enqueue(cudaStream_t stream) const;
  [[nodiscard]] int task_count() const { return task_count_; }

 private:
  PersistentModel m_;
  int grid_ = 0, task_count_ = 0, counter_count_ = 0;
  DeviceBuffer tasks_, maps_, counters_, partials_, trace_;
  std::string trace_path_;
  std::vector<std::array<int, 4>> trace_tasks_;  ///< kind, m0, n0, k0 of each task, for the trace file
};

}  // namespace vtools::vbench::cuda
