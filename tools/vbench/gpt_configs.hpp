// The GPT configs vbench knows (DESIGN.md "vbench": the seed's gpt_nano ... gpt_tile_large and the GPT-2 family),
// lookup by name with "did you mean", custom configs from flags, and parameter counts.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "tools/vbench/model.hpp"

namespace vtools::vbench {

/// The built-in configs in display order (tied head, vocab 50257).
const std::vector<GptConfig>& builtin_configs();

/// The built-in config `name`; Error(kUsage) "unknown config 'x'; did you mean 'y'?" otherwise.
GptConfig find_config(std::string_view name);

/// "all" or a comma-separated list of names ("gpt_nano,gpt2"); duplicates are kept once, in first order.
std::vector<GptConfig> parse_config_list(std::string_view list);

/// Checks n_head divides n_embd and every size is positive; Error(kUsage) naming the config otherwise.
void validate_config(const GptConfig& config);

/// Parameter counts. Per layer 12·C² + 13·C (ln 2·2C, c_attn C·3C+3C, c_proj C·C+C, c_fc C·4C+4C, mlp.c_proj
/// 4C·C+C); plus wte V·C, wpe block·C, ln_f 2C, and V·C for an untied lm_head (no bias, as minGPT).
struct ParameterCount {
  std::uint64_t total = 0;   ///< every stored parameter
  std::uint64_t matmul = 0;  ///< weights that take part in a GEMM per token: n_layer·12·C² + V·C (the LM head)
};
ParameterCount count_parameters(const GptConfig& config);

/// Throws Error(kUsage) when the config's fp32 weights alone would not fit in `memory_bytes` (default: this
/// machine's physical memory), with both sizes, before anything is allocated: a model that cannot fit used to
/// allocate toward the OOM killer with no message.
void check_model_fits(const GptConfig& config, long double memory_bytes = -1);

}  // namespace vtools::vbench
