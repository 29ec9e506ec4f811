#include "tools/vbench/cuda/forward_setup.hpp"

#include "tools/vbench/ops/fused_layer.hpp"
#include "tools/vbench/ops/layernorm.hpp"
#include "tools/vbench/ops/wgmma_gemm.hpp"

namespace vtools::vbench::cuda {

namespace {

/// "persistent", "unfused" or "unfused with <plan_name>": an unfused forward's name in setup_label().
std::string plan_label(const WgmmaPlan& plan) {
  return plan.persistent ? "persistent" : plan.plain() ? "unfused" : "unfused with " + plan_name(plan);
}

}  // namespace

std::string plan_name(const WgmmaPlan& plan) {
  if (plan.persistent) return "one persistent kernel for the layers";
  std::string name;
  auto add = [&name](const std::string& part) { name += (name.empty() ? "" : " and ") + part; };
  if (plan.tiling) {
    add("wgmma GEMMs " + wgmma_tiling_name(*plan.tiling) +
        (plan.gemms == WgmmaGemms::kProjections ? " for the projections" : ""));
  }
  if (plan.programmatic) add("programmatic launches");
  if (plan.qkv_attention) add("qkv and attention in one wgmma kernel");
  const std::string tiles = " (" + std::to_string(plan.layernorm_tile) + "-wide tiles)";
  if (plan.layernorm_projections == LayerNormProjections::kAttention) {
    add("the attention projection fused with its layer norm" + tiles);
  }
  if (plan.layernorm_projections == LayerNormProjections::kBoth) {
    add("both projections fused with their layer norms" + tiles);
  }
  return name.empty() ? "cuBLASLt GEMMs" : name;
}

std::string setup_label(const ForwardSetup& setup) {
  std::string label = setup.layout ? std::string("fused ") + fused_layout_name(*setup.layout) : plan_label(setup.plan);
  if (setup.head_prefetch) label += ", LM head weights prefetched into L2";
  if (setup.embedding_layernorm) label += ", embeddings in the first layer norm";
  if (setup.own_head) label += ", own 3xTF32 LM head";
  if (!setup.layout && setup.plan.layernorm_blocks == LayerNormBlocks::kFitted) {
    label += ", fitted layer-norm blocks";  // the fused steps have their own layer norms
  }
  return label;
}

}  // namespace vtools::vbench::cuda
