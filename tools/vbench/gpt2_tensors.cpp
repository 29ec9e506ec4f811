#include "tools/vbench/gpt2_tensors.hpp"

namespace vtools::vbench {

std::int64_t element_count(const std::vector<std::int64_t>& shape) {
  std::int64_t n = 1;
  for (auto d : shape) n *= d;
  return n;
}

std::vector<TensorSlot> gpt2_tensor_slots(GptWeights& w) {
  const GptConfig& c = w.config;
  const std::int64_t C = c.n_embd, V = c.vocab_size, P = c.block_size;
  if (w.layers.size() != static_cast<std::size_t>(c.n_layer)) w.layers.resize(static_cast<std::size_t>(c.n_layer));
  std::vector<TensorSlot> slots;
  slots.push_back({"wte.weight", {V, C}, &w.wte, InitKind::kNormal});
  slots.push_back({"wpe.weight", {P, C}, &w.wpe, InitKind::kNormal});
  for (int l = 0; l < c.n_layer; ++l) {
    LayerWeights& L = w.layers[static_cast<std::size_t>(l)];
    const std::string h = "h." + std::to_string(l) + ".";
    slots.push_back({h + "ln_1.weight", {C}, &L.ln1_w, InitKind::kOnes});
    slots.push_back({h + "ln_1.bias", {C}, &L.ln1_b, InitKind::kZeros});
    slots.push_back({h + "attn.c_attn.weight", {C, 3 * C}, &L.attn_w, InitKind::kNormal});
    slots.push_back({h + "attn.c_attn.bias", {3 * C}, &L.attn_b, InitKind::kZeros});
    slots.push_back({h + "attn.c_proj.weight", {C, C}, &L.attn_proj_w, InitKind::kResidualProjection});
    slots.push_back({h + "attn.c_proj.bias", {C}, &L.attn_proj_b, InitKind::kZeros});
    slots.push_back({h + "ln_2.weight", {C}, &L.ln2_w, InitKind::kOnes});
    slots.push_back({h + "ln_2.bias", {C}, &L.ln2_b, InitKind::kZeros});
    slots.push_back({h + "mlp.c_fc.weight", {C, 4 * C}, &L.fc_w, InitKind::kNormal});
    slots.push_back({h + "mlp.c_fc.bias", {4 * C}, &L.fc_b, InitKind::kZeros});
    slots.push_back({h + "mlp.c_proj.weight", {4 * C, C}, &L.fc_proj_w, InitKind::kResidualProjection});
    slots.push_back({h + "mlp.c_proj.bias", {C}, &L.fc_proj_b, InitKind::kZeros});
  }
  slots.push_back({"ln_f.weight", {C}, &w.lnf_w, InitKind::kOnes});
  slots.push_back({"ln_f.bias", {C}, &w.lnf_b, InitKind::kZeros});
  if (!c.tied_head) slots.push_back({"lm_head.weight", {V, C}, &w.lm_head, InitKind::kNormal});
  return slots;
}

void allocate_weights(GptWeights& w) {
  w.layers.assign(static_cast<std::size_t>(w.config.n_layer), LayerWeights{});
  w.lm_head.clear();
  for (auto& slot : gpt2_tensor_slots(w)) slot.data->assign(static_cast<std::size_t>(element_count(slot.shape)), 0.0f);
}

}  // namespace vtools::vbench
