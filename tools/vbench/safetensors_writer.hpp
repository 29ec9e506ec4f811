// Writes GPT weights as a safetensors file (F32, little-endian; format in safetensors_reader.hpp), and loads
// GptWeights back from a parsed file with every GPT-2 tensor checked by name and shape.
#pragma once

#include <ostream>
#include <string_view>

#include "tools/vbench/model.hpp"
#include "tools/vbench/safetensors_reader.hpp"

namespace vtools::vbench {

/// Writes every tensor of gpt2_tensor_slots() as F32, in table order, 8-byte aligned header (padded with spaces as
/// the reference writer does). __metadata__ records the config (config, n_layer, n_head, n_embd, vocab_size,
/// block_size, tied_head) and `extra` entries.
void write_safetensors(const GptWeights& weights, std::ostream& out,
                       const std::map<std::string, std::string>& extra_metadata = {});

/// The config stored in a vbench-written file's __metadata__; `found` false when the keys are absent.
GptConfig config_from_metadata(const SafetensorsFile& file, std::string_view name, bool* found);

/// Weights for `config` from `file`: each GPT-2 tensor must exist ("transformer." prefixes accepted) with the
/// config's shape; BF16/F16 are widened. Error(kDataError) at `name` naming the first missing or mis-shaped tensor.
/// Extra tensors (e.g. GPT-2's attn.bias masks) are ignored.
GptWeights load_weights(const SafetensorsFile& file, const GptConfig& config, std::string_view name);

}  // namespace vtools::vbench
