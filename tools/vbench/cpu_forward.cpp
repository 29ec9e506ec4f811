#include "tools/vbench/cpu_forward.hpp"

#include "tools/vbench/ops/cpu_ops.hpp"

namespace vtools::vbench {

CpuForward::CpuForward(const GptWeights& weights, int B, int T) : w_(weights), B_(B), T_(T) {
  const std::size_t N = static_cast<std::size_t>(B) * static_cast<std::size_t>(T);
  const std::size_t C = static_cast<std::size_t>(weights.config.n_embd);
  x_.resize(N * C);
  ln_.resize(N * C);
  qkv_.resize(N * 3 * C);
  att_.resize(N * C);
  proj_.resize(N * C);
  fc_.resize(N * 4 * C);
  gelu_.resize(N * 4 * C);
  logits_.resize(N * static_cast<std::size_t>(weights.config.vocab_size));
}

void CpuForward::forward(const std::int32_t* tokens) {
  using cpu::WeightLayout;
  const GptConfig& c = w_.config;
  const int C = c.n_embd, N = B_ * T_;
  const std::int64_t NC = static_cast<std::int64_t>(N) * C;
  cpu::encoder_forward(x_.data(), tokens, w_.wte.data(), w_.wpe.data(), B_, T_, C);
  for (const LayerWeights& L : w_.layers) {
    cpu::layernorm_forward(ln_.data(), x_.data(), L.ln1_w.data(), L.ln1_b.data(), N, C);
    cpu::matmul_forward(qkv_.data(), ln_.data(), L.attn_w.data(), L.attn_b.data(), N, C, 3 * C, WeightLayout::kInOut);
    cpu::attention_forward(att_.data(), qkv_.data(), B_, T_, C, c.n_head);
    cpu::matmul_forward(proj_.data(), att_.data(), L.attn_proj_w.data(), L.attn_proj_b.data(), N, C, C,
                        WeightLayout::kInOut);
    cpu::residual_forward(x_.data(), x_.data(), proj_.data(), NC);
    cpu::layernorm_forward(ln_.data(), x_.data(), L.ln2_w.data(), L.ln2_b.data(), N, C);
    cpu::matmul_forward(fc_.data(), ln_.data(), L.fc_w.data(), L.fc_b.data(), N, C, 4 * C, WeightLayout::kInOut);
    cpu::gelu_forward(gelu_.data(), fc_.data(), 4 * NC);
    cpu::matmul_forward(proj_.data(), gelu_.data(), L.fc_proj_w.data(), L.fc_proj_b.data(), N, 4 * C, C,
                        WeightLayout::kInOut);
    cpu::residual_forward(x_.data(), x_.data(), proj_.data(), NC);
  }
  cpu::layernorm_forward(ln_.data(), x_.data(), w_.lnf_w.data(), w_.lnf_b.data(), N, C);
  const float* head = c.tied_head ? w_.wte.data() : w_.lm_head.data();
  cpu::matmul_forward(logits_.data(), ln_.data(), head, nullptr, N, C, c.vocab_size, WeightLayout::kOutIn);
}

}  // namespace vtools::vbench
