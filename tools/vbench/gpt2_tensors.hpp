// The GPT-2 tensor table of a GptWeights: each tensor's name as GPT-2 / Hugging Face store it ("wte.weight",
// "h.3.attn.c_attn.bias", ...), its shape and where its data lives. Init, safetensors save and load walk this table,
// so a name or shape is written down once.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tools/vbench/model.hpp"

namespace vtools::vbench {

/// How minGPT initialises a tensor (weight_init.cpp).
enum class InitKind { kNormal, kResidualProjection, kZeros, kOnes };

struct TensorSlot {
  std::string name;                  ///< GPT-2 name
  std::vector<std::int64_t> shape;   ///< [in][out] for projections, as GPT-2's Conv1D
  std::vector<float>* data = nullptr;
  InitKind init = InitKind::kNormal;
};

/// Sizes every vector of `weights` for weights.config (values zero).
void allocate_weights(GptWeights& weights);

/// The table for weights.config; pointers refer into `weights` (call allocate_weights first or after resizing).
/// lm_head.weight appears only when the head is untied.
std::vector<TensorSlot> gpt2_tensor_slots(GptWeights& weights);

/// Number of elements of a shape.
std::int64_t element_count(const std::vector<std::int64_t>& shape);

}  // namespace vtools::vbench
