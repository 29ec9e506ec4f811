// cuBLASLt GEMM plans (see matmul.hpp).
//
// Layout. cuBLASLt is column-major; a row-major [R][S] array is the column-major S x R matrix with leading
// dimension S, i.e. its transpose. So row-major Y[M][N] = X[M][K] W[K][N] is, column-major, Y^T = W^T X^T with
//   A = W   as stored: column-major N x K, ld N, op N   (row-major [K][N] read as its transpose W^T)
//   B = X   as stored: column-major K x M, ld K, op N   (X^T)
//   D = Y   as stored: column-major N x M, ld N         (Y^T)
// and cuBLASLt's (m, n, k) = (N, M, K). The bias epilogue adds bias[i] to row i of D (column-major rows = N), i.e.
// to output feature i of Y: exactly the projection bias. For the LM head, W = wte is row-major [N=V][K=C], i.e.
// column-major K x N with ld K, so A is that layout with op T. C = D (beta = 0, C unused but must be described).
#include "tools/vbench/cuda/matmul.hpp"

#include <cstdint>
#include <utility>
#include <vector>

#include "libcommon/error.hpp"
#include "tools/vbench/cuda/cuda_error.hpp"
#include "tools/vbench/ops/gelu.hpp"

namespace vtools::vbench::cuda {

namespace {

std::string dtype_name(DType dtype) {
  switch (dtype) {
    case DType::kFp32: return "fp32";
    case DType::kTf32: return "tf32";
    case DType::kBf16: return "bf16";
  }
  return "?";
}

std::string describe(const MatmulShape& s, DType dtype, Epilogue epilogue) {
  const std::string m = std::to_string(s.M), n = std::to_string(s.N), k = std::to_string(s.K);
  std::string text = "Y[" + m + "][" + n + "] = X[" + m + "][" + k + "] * " +
                     (s.weight_out_by_in ? "W[" + n + "][" + k + "]^T" : "W[" + k + "][" + n + "]");
  if (epilogue == Epilogue::kBias) text += " + bias";
  if (epilogue == Epilogue::kBiasGelu) text = "gelu(" + text + " + bias)";
  if (s.k_splits > 0) text += " in " + std::to_string(s.k_splits) + " fp32 split-K partials";
  return text + ", " + dtype_name(dtype);
}

void set_batch(cublasLtMatrixLayout_t layout, std::int32_t count, std::int64_t stride, const std::string& what) {
  check_cublas(cublasLtMatrixLayoutSetAttribute(layout, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &count, sizeof(count)),
               "cublasLtMatrixLayoutSetAttribute(BATCH_COUNT)", what);
  check_cublas(cublasLtMatrixLayoutSetAttribute(layout, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &stride,
                                                sizeof(stride)),
               "cublasLtMatrixLayoutSetAttribute(STRIDED_BATCH_OFFSET)", what);
}

cublasLtEpilogue_t lt_epilogue(Epilogue epilogue) {
  switch (epilogue) {
    case Epilogue::kNone: return CUBLASLT_EPILOGUE_DEFAULT;
    case Epilogue::kBias: return CUBLASLT_EPILOGUE_BIAS;
    case Epilogue::kBiasGelu: return CUBLASLT_EPILOGUE_GELU_BIAS;
  }
  return CUBLASLT_EPILOGUE_DEFAULT;
}

}  // namespace

Matmul::Matmul(cublasLtHandle_t lt, MatmulShape shape, DType dtype, Epilogue epilogue, std::size_t workspace_bytes)
    : lt_(lt), shape_(shape), dtype_(dtype), epilogue_(epilogue), workspace_bytes_(workspace_bytes),
      description_(describe(shape, dtype, epilogue)) {
  if (shape.M <= 0 || shape.N <= 0 || shape.K <= 0) {
    throw Error(ExitCode::kInternal, "empty GEMM " + description_);
  }
  const int splits = shape.k_splits;
  const bool split_ok = splits == 0 || (splits > 0 && shape.K % (8 * splits) == 0 &&
                                        (!shape.weight_out_by_in || splits == 1) &&
                                        epilogue == Epilogue::kNone);
  if (!split_ok) {
    throw Error(ExitCode::kInternal, "bad split-K plan " + description_);
  }
  const cudaDataType_t type = dtype == DType::kBf16 ? CUDA_R_16BF : CUDA_R_32F;
  const cublasComputeType_t compute = dtype == DType::kTf32 ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F;
  const auto& d = description_;
  check_cublas(cublasLtMatmulDescCreate(&op_, compute, CUDA_R_32F), "cublasLtMatmulDescCreate", d);
  const cublasOperation_t op_w = shape.weight_out_by_in ? CUBLAS_OP_T : CUBLAS_OP_N;
  const cublasOperation_t op_x = CUBLAS_OP_N;
  check_cublas(cublasLtMatmulDescSetAttribute(op_, CUBLASLT_MATMUL_DESC_TRANSA, &op_w, sizeof(op_w)),
               "cublasLtMatmulDescSetAttribute(TRANSA)", d);
  check_cublas(cublasLtMatmulDescSetAttribute(op_, CUBLASLT_MATMUL_DESC_TRANSB, &op_x, sizeof(op_x)),
               "cublasLtMatmulDescSetAttribute(TRANSB)", d);
  const int k = splits > 0 ? shape.K / splits : shape.K;  // the depth of one product
  if (shape.weight_out_by_in) {
    check_cublas(cublasLtMatrixLayoutCreate(&w_layout_, type, shape.K, shape.N, shape.K), "cublasLtMatrixLayoutCreate(W)", d);
  } else {
    check_cublas(cublasLtMatrixLayoutCreate(&w_layout_, type, shape.N, k, shape.N), "cublasLtMatrixLayoutCreate(W)", d);
  }
  check_cublas(cublasLtMatrixLayoutCreate(&x_layout_, type, k, shape.M, shape.K), "cublasLtMatrixLayoutCreate(X)", d);
  check_cublas(cublasLtMatrixLayoutCreate(&y_layout_, splits > 0 ? CUDA_R_32F : type, shape.N, shape.M, shape.N),
               "cublasLtMatrixLayoutCreate(Y)", d);
  if (splits > 0) {  // product s: W rows s*k.., X columns s*k.., Y plane s
    set_batch(w_layout_, splits, static_cast<std::int64_t>(k) * shape.N, d);
    set_batch(x_layout_, splits, k, d);
    set_batch(y_layout_, splits, static_cast<std::int64_t>(shape.M) * shape.N, d);
  }

  cublasLtMatmulPreference_t pref = nullptr;
  check_cublas(cublasLtMatmulPreferenceCreate(&pref), "cublasLtMatmulPreferenceCreate", d);
  const std::uint64_t ws = workspace_bytes;
  cublasStatus_t status = cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws, sizeof(ws));
  // The most cuBLASLt can fuse first, then less (the rest then runs as its own kernel).
  std::vector<Epilogue> candidates;
  if (epilogue == Epilogue::kBiasGelu) candidates.push_back(Epilogue::kBiasGelu);
  if (epilogue != Epilogue::kNone) candidates.push_back(Epilogue::kBias);
  candidates.push_back(Epilogue::kNone);
  for (const Epilogue tried : candidates) {
    if (status != CUBLAS_STATUS_SUCCESS) break;
    const cublasLtEpilogue_t lt_ep = lt_epilogue(tried);
    status = cublasLtMatmulDescSetAttribute(op_, CUBLASLT_MATMUL_DESC_EPILOGUE, &lt_ep, sizeof(lt_ep));
    if (status != CUBLAS_STATUS_SUCCESS) break;
    cublasLtMatmulHeuristicResult_t results[kMaxCandidates] = {};
    int found = 0;
    const cublasStatus_t heuristic = cublasLtMatmulAlgoGetHeuristic(lt_, op_, w_layout_, x_layout_, y_layout_,
                                                                      y_layout_, pref, kMaxCandidates, results, &found);
    for (int i = 0; heuristic == CUBLAS_STATUS_SUCCESS && i < found; ++i) {
      if (results[i].state == CUBLAS_STATUS_SUCCESS) candidates_.push_back(results[i].algo);
    }
    if (!candidates_.empty()) {
      algo_ = candidates_.front();
      lt_epilogue_ = tried;
      cublasLtMatmulPreferenceDestroy(pref);
      return;
    }
    if (heuristic != CUBLAS_STATUS_NOT_SUPPORTED && heuristic != CUBLAS_STATUS_SUCCESS) status = heuristic;
  }
  cublasLtMatmulPreferenceDestroy(pref);
  check_cublas(status, "cublasLtMatmulPreferenceSetAttribute/cublasLtMatmulAlgoGetHeuristic", d);
  throw Error(ExitCode::kUnavailable, "cublasLtMatmulAlgoGetHeuristic found no algorithm for " + d);
}

Matmul::~Matmul() {
  if (y_layout_ != nullptr) cublasLtMatrixLayoutDestroy(y_layout_);
  if (x_layout_ != nullptr) cublasLtMatrixLayoutDestroy(x_layout_);
  if (w_layout_ != nullptr) cublasLtMatrixLayoutDestroy(w_layout_);
  if (op_ != nullptr) cublasLtMatmulDescDestroy(op_);
}

cublasStatus_t Matmul::launch(void* d_y, const void* d_x, const void* d_w, const void* d_bias, void* d_workspace,
                              cudaStream_t stream) const {
  if (lt_epilogue_ != Epilogue::kNone) {
    const cublasStatus_t status =
        cublasLtMatmulDescSetAttribute(op_, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &d_bias, sizeof(d_bias));
    if (status != CUBLAS_STATUS_SUCCESS) return status;
  }
  const float alpha = 1.f;
  const float beta = 0.f;
  return cublasLtMatmul(lt_, op_, &alpha, d_w, w_layout_, d_x, x_layout_, &beta, d_y, y_layout_, d_y, y_layout_,
                        &algo_, d_workspace, workspace_bytes_, stream);
}

int Matmul::choose_fastest(void* d_y, const void* d_x, const void* d_w, const void* d_bias, void* d_workspace,
                           cudaStream_t stream) {
  if (candidates_.size() < 2) return 0;
  cudaEvent_t start = nullptr, stop = nullptr;
  if (cudaEventCreate(&start) != cudaSuccess || cudaEventCreate(&stop) != cudaSuccess) {
    if (start != nullptr) cudaEventDestroy(start);
    (void)cudaGetLastError();
    return 0;  // no measurement: the heuristic's first choice stays
  }
  std::vector<cublasLtMatmulAlgo_t> runnable;
  int best = 0;
  float best_ms = 0;
  for (const cublasLtMatmulAlgo_t& candidate : candidates_) {
    algo_ = candidate;
    bool ok = launch(d_y, d_x, d_w, d_bias, d_workspace, stream) == CUBLAS_STATUS_SUCCESS;  // warm-up
    ok = ok && cudaEventRecord(start, stream) == cudaSuccess;
    for (int r = 0; ok && r < kMeasuredRuns; ++r) ok = launch(d_y, d_x, d_w, d_bias, d_workspace, stream) == CUBLAS_STATUS_SUCCESS;
    ok = ok && cudaEventRecord(stop, stream) == cudaSuccess && cudaEventSynchronize(stop) == cudaSuccess;
    float ms = 0;
    ok = ok && cudaEventElapsedTime(&ms, start, stop) == cudaSuccess;
    if (!ok) {
      (void)cudaGetLastError();
      continue;
    }
    if (runnable.empty() || ms < best_ms) {
      best_ms = ms;
      best = static_cast<int>(runnable.size());
    }
    runnable.push_back(candidate);
  }
  const int measured = static_cast<int>(runnable.size());
  if (measured > 0) candidates_ = std::move(runnable);  // later choices (use_candidate) only among runnable ones
  use_candidate(measured > 0 ? best : 0);
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  return measured;
}

void Matmul::run(void* d_y, const void* d_x, const void* d_w, const void* d_bias, void* d_workspace,
                 cudaStream_t stream) const {
  check_cublas(launch(d_y, d_x, d_w, d_bias, d_workspace, stream), "cublasLtMatmul", description_);
  if (lt_epilogue_ != epilogue_) {
    const void* bias = lt_epilogue_ == Epilogue::kNone ? d_bias : nullptr;  // added unless cuBLASLt did
    const bool gelu = epilogue_ == Epilogue::kBiasGelu;
    if (dtype_ == DType::kBf16) {
      bias_gelu_forward(static_cast<__nv_bfloat16*>(d_y), static_cast<const __nv_bfloat16*>(bias), gelu, shape_.M,
                        shape_.N, stream);
    } else {
      bias_gelu_forward(static_cast<float*>(d_y), static_cast<const float*>(bias), gelu, shape_.M, shape_.N, stream);
    }
  }
}

}  // namespace vtools::vbench::cuda
