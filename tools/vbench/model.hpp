// The GPT model vbench runs: a config (minGPT shapes) and its fp32 weights on the host, laid out as GPT-2 stores
// them (projection weights as in x out), so CPU, CUDA and safetensors all share one layout.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace vtools::vbench {

struct GptConfig {
  std::string name;         ///< "gpt_nano", "gpt2", or "custom"
  int n_layer = 0;
  int n_head = 0;
  int n_embd = 0;           ///< C
  int vocab_size = 50257;   ///< V
  int block_size = 0;       ///< largest T
  bool tied_head = true;    ///< LM head shares wte (GPT-2); false = minGPT's separate lm_head (--untied)
};

/// One transformer block. Shapes with C = n_embd; matrices are row-major [in][out].
struct LayerWeights {
  std::vector<float> ln1_w, ln1_b;        ///< [C]
  std::vector<float> attn_w, attn_b;      ///< c_attn: [C][3C], [3C] (q, k, v concatenated)
  std::vector<float> attn_proj_w, attn_proj_b;  ///< c_proj: [C][C], [C]
  std::vector<float> ln2_w, ln2_b;        ///< [C]
  std::vector<float> fc_w, fc_b;          ///< c_fc: [C][4C], [4C]
  std::vector<float> fc_proj_w, fc_proj_b;  ///< mlp.c_proj: [4C][C], [C]
};

struct GptWeights {
  GptConfig config;
  std::vector<float> wte;        ///< [V][C]
  std::vector<float> wpe;        ///< [block_size][C]
  std::vector<LayerWeights> layers;
  std::vector<float> lnf_w, lnf_b;  ///< [C]
  std::vector<float> lm_head;    ///< [V][C]; empty when tied_head (then wte is used)
};

}  // namespace vtools::vbench
