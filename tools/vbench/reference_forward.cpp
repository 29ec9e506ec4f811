#include "tools/vbench/reference_forward.hpp"

#include <cmath>
#include <numbers>

namespace vtools::vbench {

namespace {
using Rows = std::vector<std::vector<double>>;  // [T][width] for one sequence

Rows layer_norm(const Rows& x, const std::vector<float>& w, const std::vector<float>& b) {
  Rows out = x;
  for (auto& row : out) {
    double m = 0, v = 0;
    for (double e : row) m += e;
    m /= static_cast<double>(row.size());
    for (double e : row) v += (e - m) * (e - m);
    v /= static_cast<double>(row.size());
    for (std::size_t c = 0; c < row.size(); ++c) row[c] = (row[c] - m) / std::sqrt(v + 1e-5) * w[c] + b[c];
  }
  return out;
}

// y = x · W + b with W stored [in][out].
Rows linear(const Rows& x, const std::vector<float>& w, const std::vector<float>& b, std::size_t out_dim) {
  Rows y(x.size(), std::vector<double>(out_dim));
  for (std::size_t t = 0; t < x.size(); ++t) {
    for (std::size_t j = 0; j < out_dim; ++j) {
      double acc = b[j];
      for (std::size_t i = 0; i < x[t].size(); ++i) acc += x[t][i] * w[i * out_dim + j];
      y[t][j] = acc;
    }
  }
  return y;
}
}  // namespace

std::vector<double> reference_forward(const GptWeights& w, const std::vector<std::int32_t>& tokens, int B, int T) {
  const GptConfig& cfg = w.config;
  const std::size_t C = static_cast<std::size_t>(cfg.n_embd), V = static_cast<std::size_t>(cfg.vocab_size);
  const std::size_t H = static_cast<std::size_t>(cfg.n_head), hs = C / H;
  std::vector<double> logits(static_cast<std::size_t>(B) * static_cast<std::size_t>(T) * V);
  for (int b = 0; b < B; ++b) {
    Rows x(static_cast<std::size_t>(T), std::vector<double>(C));
    for (std::size_t t = 0; t < x.size(); ++t) {
      const std::size_t tok = static_cast<std::size_t>(tokens[static_cast<std::size_t>(b * T) + t]);
      for (std::size_t c = 0; c < C; ++c) x[t][c] = double(w.wte[tok * C + c]) + w.wpe[t * C + c];
    }
    for (const LayerWeights& L : w.layers) {
      Rows qkv = linear(layer_norm(x, L.ln1_w, L.ln1_b), L.attn_w, L.attn_b, 3 * C);
      Rows y(x.size(), std::vector<double>(C, 0.0));
      for (std::size_t h = 0; h < H; ++h) {
        for (std::size_t t = 0; t < x.size(); ++t) {
          std::vector<double> p(t + 1);
          double mx = -INFINITY, sum = 0;
          for (std::size_t s = 0; s <= t; ++s) {
            double dot = 0;
            for (std::size_t i = 0; i < hs; ++i) dot += qkv[t][h * hs + i] * qkv[s][C + h * hs + i];
            p[s] = dot / std::sqrt(static_cast<double>(hs));
            mx = std::max(mx, p[s]);
          }
          for (auto& e : p) sum += (e = std::exp(e - mx));
          for (std::size_t s = 0; s <= t; ++s)
            for (std::size_t i = 0; i < hs; ++i) y[t][h * hs + i] += p[s] / sum * qkv[s][2 * C + h * hs + i];
        }
      }
      Rows proj = linear(y, L.attn_proj_w, L.attn_proj_b, C);
      for (std::size_t t = 0; t < x.size(); ++t)
        for (std::size_t c = 0; c < C; ++c) x[t][c] += proj[t][c];
      Rows fc = linear(layer_norm(x, L.ln2_w, L.ln2_b), L.fc_w, L.fc_b, 4 * C);
      const double k = std::sqrt(2.0 / std::numbers::pi);
      for (auto& row : fc)
        for (auto& e : row) e = 0.5 * e * (1.0 + std::tanh(k * (e + 0.044715 * e * e * e)));
      Rows mlp = linear(fc, L.fc_proj_w, L.fc_proj_b, C);
      for (std::size_t t = 0; t < x.size(); ++t)
        for (std::size_t c = 0; c < C; ++c) x[t][c] += mlp[t][c];
    }
    Rows xf = layer_norm(x, w.lnf_w, w.lnf_b);
    const std::vector<float>& head = cfg.tied_head ? w.wte : w.lm_head;  // [V][C]
    for (std::size_t t = 0; t < xf.size(); ++t) {
      double* out = &logits[(static_cast<std::size_t>(b) * static_cast<std::size_t>(T) + t) * V];
      for (std::size_t v = 0; v < V; ++v) {
        double acc = 0;
        for (std::size_t c = 0; c < C; ++c) acc += xf[t][c] * head[v * C + c];
        out[v] = acc;
      }
    }
  }
  return logits;
}

}  // namespace vtools::vbench
