// GptWeights copied to the device in the storage type of a dtype: fp32 for fp32/tf32, bf16 (round to nearest even)
// for bf16. Layer-norm parameters stay fp32 in every dtype. wte (and an untied lm_head) get rows V..Vp-1 zeroed,
// Vp = V rounded up to 128, so the LM head GEMM has aligned, tensor-core friendly shapes; logits columns >= V are
// zero and are dropped when copied out.
#pragma once

#include <cstdint>
#include <vector>

#include "tools/vbench/backend.hpp"
#include "tools/vbench/cuda/device_buffer.hpp"

namespace vtools::vbench::cuda {

struct DeviceLayer {
  DeviceBuffer ln1_w, ln1_b, attn_w, attn_b, attn_proj_w, attn_proj_b;
  DeviceBuffer ln2_w, ln2_b, fc_w, fc_b, fc_proj_w, fc_proj_b;
};

struct DeviceWeights {
  GptConfig config;
  DType dtype = DType::kFp32;
  int padded_vocab = 0;  ///< Vp
  DeviceBuffer wte;      ///< [Vp][C]
  DeviceBuffer wpe;      ///< [block_size][C]
  std::vector<DeviceLayer> layers;
  DeviceBuffer lnf_w, lnf_b;  ///< [C], fp32
  DeviceBuffer lm_head;       ///< [Vp][C]; empty when tied (the LM head uses wte)
  /// fp32 only: [Vp][3C], row n = [hi | lo | hi] of head() row n, hi = tf32(w), lo = tf32(w - hi): the LM head runs
  /// as one TF32 GEMM with K = 3C against rows [lo | hi | hi] of the final layernorm (3xTF32, see gpt_forward.hpp).
  DeviceBuffer head_split;

  /// The matrix the LM head multiplies by: wte when tied, else lm_head.
  [[nodiscard]] const DeviceBuffer& head() const { return config.tied_head ? wte : lm_head; }
};

/// Vp: the vocabulary rounded up to a multiple of 128.
int padded_vocab(int vocab_size);

/// Copies `weights` to the device. Throws Error(kInternal) when a host array's size does not match the config
/// (a bug in the loader), or the cudaMalloc/cudaMemcpy error.
DeviceWeights upload_weights(const GptWeights& weights, DType dtype);

/// bf16 bits of `x`, rounded to nearest even (NaN stays NaN).
std::uint16_t bf16_bits(float x);
/// The float whose top 16 bits are `bits`.
float bf16_to_float(std::uint16_t bits);
/// `x` rounded to nearest (ties away) to TF32's 10 mantissa bits: the low 13 bits are zero, so a TF32 tensor-core
/// GEMM reads it exactly. Infinities and NaN pass through.
float tf32_round(float x);

}  // namespace vtools::vbench::cuda
