// Uploads GptWeights to the device (see device_weights.hpp).
#include "tools/vbench/cuda/device_weights.hpp"

#include <cstring>
#include <string>

#include "libcommon/error.hpp"

namespace vtools::vbench::cuda {

std::uint16_t bf16_bits(float x) {
  std::uint32_t u = 0;
  std::memcpy(&u, &x, sizeof(u));
  if ((u & 0x7fffffffu) > 0x7f800000u) return static_cast<std::uint16_t>((u >> 16) | 0x40u);  // quiet NaN
  u += 0x7fffu + ((u >> 16) & 1u);
  return static_cast<std::uint16_t>(u >> 16);
}

float bf16_to_float(std::uint16_t bits) {
  const std::uint32_t u = static_cast<std::uint32_t>(bits) << 16;
  float x = 0;
  std::memcpy(&x, &u, sizeof(x));
  return x;
}

float tf32_round(float x) {
  std::uint32_t u = 0;
  std::memcpy(&u, &x, sizeof(u));
  if ((u & 0x7f800000u) != 0x7f800000u) u = (u + 0x1000u) & 0xffffe000u;
  float r = 0;
  std::memcpy(&r, &u, sizeof(r));
  return r;
}

int padded_vocab(int vocab_size) { return (vocab_size + 127) / 128 * 128; }

namespace {

void check_size(const std::vector<float>& host, std::size_t expected, const std::string& name) {
  if (host.size() != expected) {
    throw Error(ExitCode::kInternal, "weights '" + name + "' hold " + std::to_string(host.size()) +
                                         " values, expected " + std::to_string(expected));
  }
}

/// `host` (checked to hold `count` floats) in the storage type, in a buffer of `padded_count` elements (zeros after).
DeviceBuffer upload(const std::vector<float>& host, std::size_t count, bool bf16, const std::string& name,
                    std::size_t padded_count = 0) {
  check_size(host, count, name);
  const std::size_t n = padded_count > count ? padded_count : count;
  if (bf16) {
    std::vector<std::uint16_t> bits(n, 0);
    for (std::size_t i = 0; i < count; ++i) bits[i] = bf16_bits(host[i]);
    DeviceBuffer buffer(n * sizeof(std::uint16_t), name);
    buffer.upload(bits.data(), n * sizeof(std::uint16_t), name);
    return buffer;
  }
  DeviceBuffer buffer(n * sizeof(float), name);
  if (n > count) {
    std::vector<float> padded(n, 0.f);
    std::memcpy(padded.data(), host.data(), count * sizeof(float));
    buffer.upload(padded.data(), n * sizeof(float), name);
  } else {
    buffer.upload(host.data(), n * sizeof(float), name);
  }
  return buffer;
}

/// head_split of device_weights.hpp from the [V][C] head matrix (rows V..Vp-1 zero).
DeviceBuffer upload_head_split(const std::vector<float>& head, std::size_t V, std::size_t Vp, std::size_t C) {
  std::vector<float> split(Vp * 3 * C, 0.f);
  for (std::size_t n = 0; n < V; ++n) {
    float* row = split.data() + n * 3 * C;
    for (std::size_t k = 0; k < C; ++k) {
      const float w = head[n * C + k];
      const float hi = tf32_round(w);
      row[k] = row[2 * C + k] = hi;
      row[C + k] = tf32_round(w - hi);
    }
  }
  DeviceBuffer buffer(split.size() * sizeof(float), "LM head (3xTF32 split)");
  buffer.upload(split.data(), split.size() * sizeof(float), "LM head (3xTF32 split)");
  return buffer;
}

}  // namespace

DeviceWeights upload_weights(const GptWeights& weights, DType dtype) {
  const GptConfig& cfg = weights.config;
  const std::size_t C = cfg.n_embd, V = cfg.vocab_size;
  const bool bf16 = dtype == DType::kBf16;
  DeviceWeights dw;
  dw.config = cfg;
  dw.dtype = dtype;
  dw.padded_vocab = padded_vocab(cfg.vocab_size);
  const std::size_t Vp = dw.padded_vocab;
  dw.wte = upload(weights.wte, V * C, bf16, "wte", Vp * C);
  dw.wpe = upload(weights.wpe, static_cast<std::size_t>(cfg.block_size) * C, bf16, "wpe");
  if (weights.layers.size() != static_cast<std::size_t>(cfg.n_layer)) {
    throw Error(ExitCode::kInternal, "weights hold " + std::to_string(weights.layers.size()) + " layers, config " +
                                         std::to_string(cfg.n_layer));
  }
  for (int l = 0; l < cfg.n_layer; ++l) {
    const LayerWeights& lw = weights.layers[l];
    const std::string h = "h." + std::to_string(l) + ".";
    DeviceLayer d;
    d.ln1_w = upload(lw.ln1_w, C, false, h + "ln_1.weight");
    d.ln1_b = upload(lw.ln1_b, C, false, h + "ln_1.bias");
    d.attn_w = upload(lw.attn_w, C * 3 * C, bf16, h + "attn.c_attn.weight");
    d.attn_b = upload(lw.attn_b, 3 * C, bf16, h + "attn.c_attn.bias");
    d.attn_proj_w = upload(lw.attn_proj_w, C * C, bf16, h + "attn.c_proj.weight");
    d.attn_proj_b = upload(lw.attn_proj_b, C, bf16, h + "attn.c_proj.bias");
    d.ln2_w = upload(lw.ln2_w, C, false, h + "ln_2.weight");
    d.ln2_b = upload(lw.ln2_b, C, false, h + "ln_2.bias");
    d.fc_w = upload(lw.fc_w, C * 4 * C, bf16, h + "mlp.c_fc.weight");
    d.fc_b = upload(lw.fc_b, 4 * C, bf16, h + "mlp.c_fc.bias");
    d.fc_proj_w = upload(lw.fc_proj_w, 4 * C * C, bf16, h + "mlp.c_proj.weight");
    d.fc_proj_b = upload(lw.fc_proj_b, C, bf16, h + "mlp.c_proj.bias");
    dw.layers.push_back(std::move(d));
  }
  dw.lnf_w = upload(weights.lnf_w, C, false, "ln_f.weight");
  dw.lnf_b = upload(weights.lnf_b, C, false, "ln_f.bias");
  if (!cfg.tied_head) dw.lm_head = upload(weights.lm_head, V * C, bf16, "lm_head.weight", Vp * C);
  if (dtype == DType::kFp32) dw.head_split = upload_head_split(cfg.tied_head ? weights.wte : weights.lm_head, V, Vp, C);
  return dw;
}

}  // namespace vtools::vbench::cuda
