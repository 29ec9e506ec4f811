// cuda::Matmul: one planned cuBLASLt GEMM Y = X W (+ bias, + tanh GELU), the cuda:: peer of cpu matmul_forward.
// Planned once in prepare() (descriptors + heuristic algorithm), run many times inside the captured forward.
#pragma once

#include <cublasLt.h>
#include <cuda_runtime.h>

#include <cstddef>
#include <string>
#include <vector>

#include "tools/vbench/backend.hpp"

namespace vtools::vbench::cuda {

enum class Epilogue { kNone, kBias, kBiasGelu };

/// Y[M][N] = X[M][K] W, all row-major. W is [K][N] (GPT-2's [in][out] projections) unless `weight_out_by_in`, then
/// W is [N][K] and used transposed (the LM head on wte [V][C]).
struct MatmulShape {
  int M = 0, N = 0, K = 0;
  bool weight_out_by_in = false;
  /// 0: Y[M][N] in the storage type. S >= 1: split-K, Y is S fp32 partial products [S][M][N], product s over the
  /// K/S inputs s*K/S.., as one strided-batched GEMM (S times the thread blocks of a plain one, for the small-M
  /// projections; the consumer adds them up). K must be a multiple of 8 * S; W is [K][N] (or [N][K] for S = 1: a
  /// bf16 GEMM with fp32 output); no epilogue.
  int k_splits = 0;
};

class Matmul {
 public:
  // A wider search (split-K variants of every answer and every enumerable algorithm x tile, ~400 candidates) was
  // measured on the H100 on 2026-11-22 and was no faster on gpt2 bf16 (631-643 vs 635-637 us) and 10-35% slower on
  // the small seed configs: chosen by back-to-back throughput, it picked split-K kernels whose extra reduction
  // kernel costs more inside the graph than it saves. So: the heuristic's answers only.
  static constexpr int kMaxCandidates = 8;  ///< algorithms asked of the heuristic
  static constexpr int kMeasuredRuns = 5;   ///< timed runs per candidate in choose_fastest()

  /// Picks the algorithm for `shape` in `dtype` (fp32: CUBLAS_COMPUTE_32F; tf32: CUBLAS_COMPUTE_32F_FAST_TF32; bf16:
  /// bf16 X, W, bias and Y with fp32 accumulation). The epilogue is fused into cuBLASLt where it has an algorithm
  /// for it (BIAS, GELU_BIAS; cuBLASLt does not document its GELU's precision: measured on the H100, fp32 logits
  /// stay within 3.8e-7 (gpt_nano) to 2.1e-6 (gpt_tile_large) of the cpu backend's tanhf GELU, against 2.8e-7 to
  /// 9.8e-7 with an own GELU kernel, and the fp32 seeds got 0-5% faster); what is not fused runs after the GEMM in
  /// cuda::bias_gelu_forward. Throws Error(kUnavailable) naming the shape when there is no algorithm at all.
  Matmul(cublasLtHandle_t lt, MatmulShape shape, DType dtype, Epilogue epilogue, std::size_t workspace_bytes);
  ~Matmul();
  Matmul(const Matmul&) = delete;
  Matmul& operator=(const Matmul&) = delete;

  /// Enqueues Y = X W (+ bias, GELU) on `stream`. Pointers are device pointers of the dtype's storage type (float or
  /// __nv_bfloat16); `d_bias` has N elements and is ignored for Epilogue::kNone; `d_workspace` holds at least
  /// workspace_bytes. Y must not alias X or W.
  void run(void* d_y, const void* d_x, const void* d_w, const void* d_bias, void* d_workspace,
           cudaStream_t stream) const;

  /// Times each of the heuristic's candidate algorithms (up to kMaxCandidates) on these buffers, kMeasuredRuns runs
  /// back to back between two events, and keeps the fastest; outside any graph capture. Contents of the buffers do
  /// not matter. A candidate that fails is skipped and dropped from the candidates; the heuristic's first choice
  /// stays when none can be measured. Returns the number of candidates measured.
  int choose_fastest(void* d_y, const void* d_x, const void* d_w, const void* d_bias, void* d_workspace,
                     cudaStream_t stream);

  /// The candidate algorithms (after choose_fastest(): the ones that ran) and the one run() uses; use_candidate(i)
  /// switches to the i-th, for a choice made by timing whole forwards (ForwardSearch).
  [[nodiscard]] int candidate_count() const { return static_cast<int>(candidates_.size()); }
  [[nodiscard]] int chosen_candidate() const { return chosen_; }
  void use_candidate(int i) {
    chosen_ = i;
    algo_ = candidates_.at(static_cast<std::size_t>(i));
  }

  [[nodiscard]] const MatmulShape& shape() const { return shape_; }
  [[nodiscard]] Epilogue epilogue() const { return epilogue_; }
  /// True when cuBLASLt does the whole epilogue (no extra kernel).
  [[nodiscard]] bool epilogue_fused() const { return lt_epilogue_ == epilogue_; }
  /// "Y[256][2304] = X[256][768] * W[768][2304] + bias, bf16": names the GEMM in errors.
  [[nodiscard]] const std::string& description() const { return description_; }

 private:
  cublasLtHandle_t lt_;
  MatmulShape shape_;
  DType dtype_;
  Epilogue epilogue_;                       ///< what run() computes
  Epilogue lt_epilogue_ = Epilogue::kNone;  ///< the part of it cuBLASLt does
  std::size_t workspace_bytes_;
  std::string description_;
  cublasLtMatmulDesc_t op_ = nullptr;
  cublasLtMatrixLayout_t w_layout_ = nullptr, x_layout_ = nullptr, y_layout_ = nullptr;
  cublasLtMatmulAlgo_t algo_{};
  std::vector<cublasLtMatmulAlgo_t> candidates_;  ///< the heuristic's answers, best guess first
  int chosen_ = 0;                                ///< index of algo_ in candidates_

  cublasStatus_t launch(void* d_y, const void* d_x, const void* d_w, const void* d_bias, void* d_workspace,
                        cudaStream_t stream) const;
};

}  // namespace vtools::vbench::cuda
