// vbench's own wgmma GEMM (tools/vbench/ops/wgmma_gemm.cu) against its cuBLASLt plan (cuda::Matmul, the algorithm
// choose_fastest keeps) on gpt2 bf16's four layer products at B=4 T=64, with the epilogues and split-K the forward
// uses: qkv + bias, attention projection as 2 fp32 partials, fc + bias + GELU, fc projection as 4 partials; and its
// LM head (bf16 logits over the padded vocabulary). Prints
// the median time of one launch in a CUDA graph of launches that each read their own weight copy (cold L2, as in the
// forward) and the relative error against cuBLASLt per tiling.
// Why: the own mma.sync GEMMs lost to cuBLASLt 2-3x (bench/RESULTS.md, sessions 3 and 7); this says whether the
// wgmma one is worth a place in the forward before a forward is timed with it.
//   wgmma_gemm_bench [cublaslt | layernorm | head | TILING]   (TILING as wgmma_tiling_name prints it, e.g.
//   128x2x1; one per process, so that a hang or fault costs only its own lines: bench/wgmma_gemm_bench.sh runs them
//   all; layernorm times each projection + layer norm as the forward runs them against the fused wgmma kernel; head
//   the fp32 LM head's 3xTF32 GEMM against a 6xBF16 one, see run_head)
#include <cublasLt.h>
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <random>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "libcommon/error.hpp"
#include "libcommon/stats.hpp"
#include "tools/vbench/cuda/cuda_error.hpp"
#include "tools/vbench/cuda/device_buffer.hpp"
#include "tools/vbench/cuda/device_weights.hpp"
#include "tools/vbench/cuda/matmul.hpp"
#include "tools/vbench/ops/layernorm.hpp"
#include "tools/vbench/ops/lm_head_tf32.hpp"
#include "tools/vbench/ops/wgmma_gemm.hpp"

namespace {

using namespace vtools::vbench;

cudaStream_t g_stream = nullptr;

/// Enough copies of a weight of `bytes` that a pass over them all overflows the H100's 50 MB L2, as the forward's
/// 170 MB of weights do: each launch reads its weights from HBM, as it does in the forward.
int weight_copies(std::size_t bytes) { return std::max<int>(8, static_cast<int>((96u << 20) / bytes) + 1); }

/// One launch's time in µs: a CUDA graph of `copies` launches, launch(i) reading weight copy i, replayed 21 times;
/// the median replay over `copies`. A graph, as the forward is one, so that launch overhead is not counted.
float median_us(int copies, const std::function<void(int)>& launch) {
  cudaGraph_t graph = nullptr;
  cudaGraphExec_t exec = nullptr;
  cuda::check_cuda(cudaStreamBeginCapture(g_stream, cudaStreamCaptureModeThreadLocal), "cudaStreamBeginCapture");
  for (int i = 0; i < copies; ++i) launch(i);
  cuda::check_cuda(cudaStreamEndCapture(g_stream, &graph), "cudaStreamEndCapture");
  cuda::check_cuda(cudaGraphInstantiate(&exec, graph, 0), "cudaGraphInstantiate");
  cudaEvent_t a, b;
  cuda::check_cuda(cudaEventCreate(&a), "cudaEventCreate");
  cuda::check_cuda(cudaEventCreate(&b), "cudaEventCreate");
  for (int i = 0; i < 3; ++i) cuda::check_cuda(cudaGraphLaunch(exec, g_stream), "cudaGraphLaunch");
  std::vector<float> us;
  for (int i = 0; i < 21; ++i) {
    cuda::check_cuda(cudaEventRecord(a, g_stream), "cudaEventRecord");
    cuda::check_cuda(cudaGraphLaunch(exec, g_stream), "cudaGraphLaunch");
    cuda::check_cuda(cudaEventRecord(b, g_stream), "cudaEventRecord");
    cuda::check_cuda(cudaEventSynchronize(b), "cudaEventSynchronize");
    float ms = 0;
    cuda::check_cuda(cudaEventElapsedTime(&ms, a, b), "cudaEventElapsedTime");
    us.push_back(1000 * ms / copies);
  }
  cudaEventDestroy(a);
  cudaEventDestroy(b);
  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(graph);
  std::sort(us.begin(), us.end());
  return us[us.size() / 2];
}

/// `copies` device copies of `w`.
std::vector<cuda::DeviceBuffer> copies_of(const cuda::DeviceBuffer& w, int copies) {
  std::vector<cuda::DeviceBuffer> out;
  for (int i = 0; i < copies; ++i) {
    out.emplace_back(w.bytes(), "weight copy");
    cuda::check_cuda(cudaMemcpy(out.back().get(), w.get(), w.bytes(), cudaMemcpyDeviceToDevice), "cudaMemcpy");
  }
  return out;
}

/// The output as floats: bf16 Y, or the sum of the fp32 split-K partials.
std::vector<float> output(const cuda::DeviceBuffer& y, const cuda::MatmulShape& shape) {
  cuda::check_cuda(cudaDeviceSynchronize(), "cudaDeviceSynchronize", "the GEMM");
  const std::size_t n = static_cast<std::size_t>(shape.M) * shape.N;
  std::vector<float> out(n, 0.f);
  if (shape.k_splits > 0) {
    std::vector<float> planes(shape.k_splits * n);
    cuda::check_cuda(cudaMemcpy(planes.data(), y.get(), planes.size() * 4, cudaMemcpyDeviceToHost), "cudaMemcpy");
    for (int s = 0; s < shape.k_splits; ++s) {
      for (std::size_t i = 0; i < n; ++i) out[i] += planes[s * n + i];
    }
  } else {
    std::vector<std::uint16_t> bits(n);
    cuda::check_cuda(cudaMemcpy(bits.data(), y.get(), n * 2, cudaMemcpyDeviceToHost), "cudaMemcpy");
    for (std::size_t i = 0; i < n; ++i) out[i] = cuda::bf16_to_float(bits[i]);
  }
  return out;
}

cuda::DeviceBuffer bf16_buffer(std::mt19937& rng, std::size_t n, float stddev) {
  std::normal_distribution<float> normal(0.f, stddev);
  std::vector<std::uint16_t> bits(n);
  for (auto& b : bits) b = cuda::bf16_bits(normal(rng));
  cuda::DeviceBuffer d(n * 2, "bench input");
  d.upload(bits.data(), n * 2, "bench input");
  return d;
}

struct Product {
  const char* name;
  cuda::MatmulShape shape;
  cuda::Epilogue epilogue;
};

/// `layernorm`: each projection and the layer norm after it, as the forward runs them today (cuBLASLt split-K plan,
/// then layernorm_forward adding the partials, the bias and the residual) and as one wgmma kernel
/// (wgmma_residual_layernorm_forward); the relative error of the layer-norm output, from the same residual.
int run_layernorm() {
  cublasLtHandle_t lt = nullptr;
  cuda::check_cublas(cublasLtCreate(&lt), "cublasLtCreate", "bench");
  constexpr std::size_t kWorkspace = 32u << 20;
  cuda::DeviceBuffer workspace(kWorkspace, "workspace");
  const int M = 256, C = 768;
  std::mt19937 rng(1234);
  std::printf("%-10s %-32s %9s %10s\n", "product", "kernels", "us", "rel err");
  for (const auto& [name, K, splits] : {std::tuple{"attn_proj", 768, 2}, std::tuple{"fc_proj", 3072, 4}}) {
    const cuda::MatmulShape split{M, C, K, false, splits}, whole{M, C, K};
    const cuda::DeviceBuffer x = bf16_buffer(rng, static_cast<std::size_t>(M) * K, 1.f);
    const cuda::DeviceBuffer w = bf16_buffer(rng, static_cast<std::size_t>(K) * C, 0.02f);
    const cuda::DeviceBuffer bias = bf16_buffer(rng, C, 0.02f);
    cuda::DeviceBuffer wt(w.bytes(), "Wt");
    cuda::transpose_bf16(wt.as<__nv_bfloat16>(), w.as<__nv_bfloat16>(), K, C, nullptr);
    const int copies = weight_copies(w.bytes());
    const std::vector<cuda::DeviceBuffer> ws = copies_of(w, copies), wts = copies_of(wt, copies);
    std::vector<float> host_residual(static_cast<std::size_t>(M) * C), ones(C, 1.f), zeros(C, 0.f);
    std::normal_distribution<float> normal(0.f, 1.f);
    for (float& v : host_residual) v = normal(rng);
    cuda::DeviceBuffer residual(host_residual.size() * 4, "residual"), ln_w(C * 4, "ln w"), ln_b(C * 4, "ln b");
    ln_w.upload(ones.data(), C * 4, "ln w");
    ln_b.upload(zeros.data(), C * 4, "ln b");
    cuda::DeviceBuffer partials(splits * static_cast<std::size_t>(M) * C * 4, "partials");
    cuda::DeviceBuffer ln(static_cast<std::size_t>(M) * C * 2, "ln");
    cuda::Matmul mm(lt, split, DType::kBf16, cuda::Epilogue::kNone, kWorkspace);
    mm.choose_fastest(partials.get(), x.get(), w.get(), nullptr, workspace.get(), nullptr);
    auto today = [&](int i) {
      mm.run(partials.get(), x.get(), ws[i].get(), nullptr, workspace.get(), g_stream);
      cuda::layernorm_forward(ln.as<__nv_bfloat16>(), residual.as<float>(),
                              cuda::SublayerOutput<__nv_bfloat16>{partials.as<float>(), splits,
                                                                  bias.as<__nv_bfloat16>()},
                              ln_w.as<float>(), ln_b.as<float>(), M, C, g_stream);
    };
    residual.upload(host_residual.data(), host_residual.size() * 4, "residual");
    today(0);
    const std::vector<float> ref = output(ln, whole);
    std::printf("%-10s %-32s %9.2f %10s\n", name, "cuBLASLt split + layer norm", median_us(copies, today), "-");
    for (const int tile_n : cuda::kLayerNormTiles) {
      const std::string label = "wgmma + residual + LN, " + std::to_string(tile_n) + "-wide";
      if (!cuda::wgmma_residual_layernorm_ready(whole, tile_n)) {
        std::printf("%-10s %-32s %9s %10s   (not on this device)\n", name, label.c_str(), "-", "-");
        continue;
      }
      auto fused = [&](int i) {
        cuda::wgmma_residual_layernorm_forward(whole, tile_n, x.as<__nv_bfloat16>(), wts[i].as<__nv_bfloat16>(),
                                               bias.as<__nv_bfloat16>(), residual.as<float>(), ln_w.as<float>(),
                                               ln_b.as<float>(), ln.as<__nv_bfloat16>(), g_stream);
      };
      residual.upload(host_residual.data(), host_residual.size() * 4, "residual");
      cuda::check_cuda(cudaMemset(ln.get(), 0xFF, ln.bytes()), "cudaMemset");
      fused(0);
      const std::vector<float> got = output(ln, whole);
      const double rel = vtools::stats::relative_l2_error(got, ref);
      std::printf("%-10s %-32s %9.2f %10.2e%s\n", name, label.c_str(), median_us(copies, fused), rel,
                  rel <= 1e-2 ? "" : "   MISMATCH");
      std::fflush(stdout);
    }
  }
  cublasLtDestroy(lt);
  return 0;
}

/// `head`: the fp32 forward's LM head (M = 256 rows, N = Vp = 50304, width C) as it runs today, one TF32 GEMM over
/// K = 3C of rows [x_lo | x_hi | x_hi] against weights [w_hi | w_lo | w_hi] (3xTF32), against one bf16 GEMM with fp32
/// output over K = 6C of three-way bf16 splits (x = h + m + l, 24 significant bits as fp32 has): rows
/// [xh | xh | xm | xh | xm | xl] against [wh | wm | wh | wl | wm | wh], the six products down to 2^-24; the own 3xTF32
/// kernel (lm_head_tf32.hpp, C <= 128); and a memset of the logits (the write floor). Relative error of each against an
/// fp64 product over 16 sampled rows.
int run_head() {
  cublasLtHandle_t lt = nullptr;
  cuda::check_cublas(cublasLtCreate(&lt), "cublasLtCreate", "bench");
  constexpr std::size_t kWorkspace = 32u << 20;
  cuda::DeviceBuffer workspace(kWorkspace, "workspace");
  const int M = 256, N = 50304, V = 50257;
  std::mt19937 rng(1234);
  std::printf("%-6s %-22s %9s %10s\n", "C", "head", "us", "rel err");
  for (const int C : {48, 64, 128, 192, 256, 768}) {
    std::normal_distribution<float> normal(0.f, 1.f), weight(0.f, 0.02f);
    std::vector<float> x(static_cast<std::size_t>(M) * C), w(static_cast<std::size_t>(N) * C, 0.f);
    for (float& v : x) v = normal(rng);
    for (std::size_t i = 0; i < static_cast<std::size_t>(V) * C; ++i) w[i] = weight(rng);
    // Each row of `src` [rows][C] as 3C TF32 values (part p of the row: tf32[p] = 0 hi, 1 lo) and as 6C bf16 ones
    // (part p: bf16[p] = 0 h, 1 m, 2 l of x = h + m + l).
    auto split = [C](const std::vector<float>& src, int rows, const int (&tf32)[3], const int (&bf16)[6]) {
      std::pair<std::vector<float>, std::vector<std::uint16_t>> out;
      out.first.resize(static_cast<std::size_t>(rows) * 3 * C);
      out.second.resize(static_cast<std::size_t>(rows) * 6 * C);
      for (std::size_t r = 0; r < static_cast<std::size_t>(rows); ++r) {
        for (int k = 0; k < C; ++k) {
          const float v = src[r * C + k], hi = cuda::tf32_round(v);
          const float t[2] = {hi, cuda::tf32_round(v - hi)};
          for (int p = 0; p < 3; ++p) out.first[r * 3 * C + p * C + k] = t[tf32[p]];
          std::uint16_t b[3];
          b[0] = cuda::bf16_bits(v);
          const float rest = v - cuda::bf16_to_float(b[0]);
          b[1] = cuda::bf16_bits(rest);
          b[2] = cuda::bf16_bits(rest - cuda::bf16_to_float(b[1]));
          for (int p = 0; p < 6; ++p) out.second[r * 6 * C + p * C + k] = b[bf16[p]];
        }
      }
      return out;
    };
    const auto [x3, x6] = split(x, M, {1, 0, 0}, {0, 0, 1, 0, 1, 2});
    const auto [w3, w6] = split(w, N, {0, 1, 0}, {0, 1, 0, 2, 1, 0});
    std::vector<double> ref;  // 16 sampled rows, fp64
    for (int r = 0; r < M; r += M / 16) {
      for (int n = 0; n < N; ++n) {
        const float* xr = &x[static_cast<std::size_t>(r) * C];
        const float* wn = &w[static_cast<std::size_t>(n) * C];
        double acc = 0;
        for (int k = 0; k < C; ++k) acc += double(xr[k]) * wn[k];
        ref.push_back(acc);
      }
    }
    auto rel_err = [&](const cuda::DeviceBuffer& y) {
      cuda::check_cuda(cudaDeviceSynchronize(), "cudaDeviceSynchronize", "the head");
      std::vector<float> got(ref.size());
      for (int r = 0, i = 0; r < M; r += M / 16, ++i) {  // the sampled rows only
        const float* row = y.as<float>() + static_cast<std::size_t>(r) * N;
        cuda::check_cuda(cudaMemcpy(&got[static_cast<std::size_t>(i) * N], row, static_cast<std::size_t>(N) * 4,
                                    cudaMemcpyDeviceToHost),
                         "cudaMemcpy");
      }
      return vtools::stats::relative_l2_error(got, ref);
    };
    cuda::DeviceBuffer y(static_cast<std::size_t>(M) * N * 4, "logits");
    cuda::DeviceBuffer dx3(x3.size() * 4, "x3"), dw3(w3.size() * 4, "w3"), dx6(x6.size() * 2, "x6"),
        dw6(w6.size() * 2, "w6");
    dx3.upload(x3.data(), dx3.bytes(), "x3"), dw3.upload(w3.data(), dw3.bytes(), "w3");
    dx6.upload(x6.data(), dx6.bytes(), "x6"), dw6.upload(w6.data(), dw6.bytes(), "w6");
    const int copies = weight_copies(dw3.bytes());
    const std::string c = std::to_string(C);
    // One row: the output poisoned, one launch checked against fp64, then timed on the weight copies.
    auto report = [&](const char* label, const std::function<void(int)>& launch) {
      cuda::check_cuda(cudaMemset(y.get(), 0xFF, y.bytes()), "cudaMemset");
      launch(0);
      const double rel = rel_err(y);
      std::printf("%-6s %-22s %9.2f %10.2e\n", c.c_str(), label, median_us(copies, launch), rel);
    };
    {
      const std::vector<cuda::DeviceBuffer> ws = copies_of(dw3, copies);
      cuda::Matmul mm(lt, {M, N, 3 * C, true}, DType::kTf32, cuda::Epilogue::kNone, kWorkspace);
      mm.choose_fastest(y.get(), dx3.get(), dw3.get(), nullptr, workspace.get(), nullptr);
      report("3xTF32 (cuBLASLt)",
             [&](int i) { mm.run(y.get(), dx3.get(), ws[i].get(), nullptr, workspace.get(), g_stream); });
      int device = 0;
      cuda::check_cuda(cudaGetDevice(&device), "cudaGetDevice");
      if (cuda::lm_head_tf32_takes(M, N, C, device)) {  // x as above, w plain fp32
        cuda::DeviceBuffer dw(w.size() * 4, "w");
        dw.upload(w.data(), dw.bytes(), "w");
        const std::vector<cuda::DeviceBuffer> plain = copies_of(dw, copies);
        report("3xTF32 (own)", [&](int i) {
          cuda::lm_head_tf32_forward(y.as<float>(), dx3.as<float>(), plain[i].as<float>(), M, N, C, g_stream);
        });
      }
    }
    {
      const std::vector<cuda::DeviceBuffer> ws = copies_of(dw6, copies);
      cuda::Matmul mm(lt, {M, N, 6 * C, true, 1}, DType::kBf16, cuda::Epilogue::kNone, kWorkspace);
      mm.choose_fastest(y.get(), dx6.get(), dw6.get(), nullptr, workspace.get(), nullptr);
      report("6xBF16 (cuBLASLt)",
             [&](int i) { mm.run(y.get(), dx6.get(), ws[i].get(), nullptr, workspace.get(), g_stream); });
      const cuda::WgmmaTiling tiling{128, 1, 1};
      const cuda::MatmulShape own_shape{M, N, 6 * C, false, 1};  // the own kernel takes W as [N][K] this way
      if (cuda::wgmma_gemm_takes(own_shape, tiling)) {
        report("6xBF16 (own 128x1x1)", [&](int i) {
          cuda::wgmma_gemm_forward(own_shape, cuda::Epilogue::kNone, tiling, y.get(), dx6.as<__nv_bfloat16>(),
                                   ws[i].as<__nv_bfloat16>(), nullptr, g_stream);
        });
      }
    }
    auto fill = [&](int) { cuda::check_cuda(cudaMemsetAsync(y.get(), 0, y.bytes(), g_stream), "cudaMemsetAsync"); };
    std::printf("%-6s %-22s %9.2f %10s\n", c.c_str(), "memset of the logits", median_us(8, fill), "-");
    std::fflush(stdout);
  }
  cublasLtDestroy(lt);
  return 0;
}

int run(const std::string& which) {
  if (which == "layernorm") return run_layernorm();
  if (which == "head") return run_head();
  cublasLtHandle_t lt = nullptr;
  cuda::check_cublas(cublasLtCreate(&lt), "cublasLtCreate", "bench");
  constexpr std::size_t kWorkspace = 32u << 20;
  cuda::DeviceBuffer workspace(kWorkspace, "workspace");
  const int M = 256;
  const Product products[] = {{"qkv", {M, 2304, 768}, cuda::Epilogue::kBias},
                              {"attn_proj", {M, 768, 768, false, 2}, cuda::Epilogue::kNone},
                              {"fc", {M, 3072, 768}, cuda::Epilogue::kBiasGelu},
                              {"fc_proj", {M, 768, 3072, false, 4}, cuda::Epilogue::kNone},
                              {"lm_head", {M, 50304, 768}, cuda::Epilogue::kNone}};  // gpt2's, wte padded to Vp
  std::mt19937 rng(1234);
  std::printf("%-10s %-10s %9s %10s\n", "product", "kernel", "us", "rel err");
  constexpr double kHbmBytesPerUs = 3.35e6;  // H100 SXM HBM3
  for (const Product& p : products) {
    const cuda::MatmulShape& sh = p.shape;
    const cuda::DeviceBuffer x = bf16_buffer(rng, static_cast<std::size_t>(M) * sh.K, 1.f);
    const cuda::DeviceBuffer w = bf16_buffer(rng, static_cast<std::size_t>(sh.K) * sh.N, 0.02f);
    const cuda::DeviceBuffer bias = bf16_buffer(rng, sh.N, 0.02f);
    cuda::DeviceBuffer wt(w.bytes(), "Wt");
    cuda::transpose_bf16(wt.as<__nv_bfloat16>(), w.as<__nv_bfloat16>(), sh.K, sh.N, nullptr);
    const int copies = weight_copies(w.bytes());
    const std::vector<cuda::DeviceBuffer> ws = copies_of(w, copies), wts = copies_of(wt, copies);
    const std::size_t out_bytes =
        sh.k_splits > 0 ? sh.k_splits * static_cast<std::size_t>(M) * sh.N * 4 : static_cast<std::size_t>(M) * sh.N * 2;
    cuda::DeviceBuffer y(out_bytes, "Y");
    const void* b = p.epilogue == cuda::Epilogue::kNone ? nullptr : bias.get();
    cuda::Matmul mm(lt, sh, DType::kBf16, p.epilogue, kWorkspace);
    const int candidates = mm.choose_fastest(y.get(), x.get(), w.get(), b, workspace.get(), nullptr);
    auto lt_launch = [&](int i) { mm.run(y.get(), x.get(), ws[i].get(), b, workspace.get(), g_stream); };
    lt_launch(0);
    const std::vector<float> ref = output(y, sh);
    if (which == "cublaslt") {
      const double floor_us = (w.bytes() + x.bytes() + out_bytes) / kHbmBytesPerUs;
      std::printf("%-10s %-10s %9.2f %10s   (fastest of %d candidates; HBM floor %.2f us)\n", p.name, "cuBLASLt",
                  median_us(copies, lt_launch), "-", candidates, floor_us);
      continue;
    }
    for (const cuda::WgmmaTiling tiling : cuda::kWgmmaBenchTilings) {
      if (cuda::wgmma_tiling_name(tiling) != which) continue;
      if (!cuda::wgmma_gemm_takes(sh, tiling)) {
        std::printf("%-10s %-10s %9s %10s   (does not take this shape)\n", p.name, which.c_str(), "-", "-");
        continue;
      }
      auto own = [&](int i) {
        cuda::wgmma_gemm_forward(sh, p.epilogue, tiling, y.get(), x.as<__nv_bfloat16>(), wts[i].as<__nv_bfloat16>(),
                                 static_cast<const __nv_bfloat16*>(b), g_stream);
      };
      cuda::check_cuda(cudaMemset(y.get(), 0xFF, out_bytes), "cudaMemset");  // a kernel writing nothing shows
      own(0);
      const std::vector<float> got = output(y, sh);
      const double rel = vtools::stats::relative_l2_error(got, ref);  // NaN where anything was left unwritten
      const double limit = sh.k_splits > 0 ? 1e-5 : 1e-2;  // bf16 outputs round differently
      std::printf("%-10s %-10s %9.2f %10.2e%s\n", p.name, which.c_str(), median_us(copies, own), rel,
                  rel <= limit ? "" : "   MISMATCH");
      std::fflush(stdout);
    }
  }
  cublasLtDestroy(lt);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string which = argc > 1 ? argv[1] : "cublaslt";
  bool known = which == "cublaslt" || which == "layernorm" || which == "head";
  for (const auto tiling : vtools::vbench::cuda::kWgmmaBenchTilings) {
    known = known || vtools::vbench::cuda::wgmma_tiling_name(tiling) == which;
  }
  if (!known) {
    std::fprintf(stderr, "usage: wgmma_gemm_bench [cublaslt | layernorm | head | TILING]\n");
    return 2;
  }
  try {
    vtools::vbench::cuda::check_cuda(cudaStreamCreateWithFlags(&g_stream, cudaStreamNonBlocking), "cudaStreamCreate");
    return run(which);
  } catch (const vtools::Error& e) {
    std::fprintf(stderr, "wgmma_gemm_bench: error: %s\n", e.what());
    return 1;
  }
}
