// What one choice of the cuda forward is (ForwardSetup: the unfused plan, or a fused layout, and the options on) and
// its name, the one documents keep in plan_search and pins name forwards by. The search that times them is
// forward_search's.
#pragma once

#include <optional>
#include <string>

#include "tools/vbench/cuda/gpt_forward.hpp"

namespace vtools::vbench::cuda {

/// One way to run the unfused forward (the wgmma candidates); the default is the plain cuBLASLt one.
struct WgmmaPlan {
  std::optional<WgmmaTiling> tiling;  ///< the own GEMMs' tiling; nullopt: cuBLASLt's GEMMs
  WgmmaGemms gemms = WgmmaGemms::kAll;
  bool programmatic = false;   ///< GptForward::use_programmatic_launches
  bool qkv_attention = false;  ///< GptForward::use_qkv_attention
  LayerNormProjections layernorm_projections = LayerNormProjections::kNone;
  int layernorm_tile = 0;
  bool persistent = false;  ///< GptForward::use_persistent (the other fields then do not matter)
  /// GptForward::use_layernorm_blocks; not a part of plain() or plan_name() (setup_label names it)
  LayerNormBlocks layernorm_blocks = LayerNormBlocks::kWide;
  [[nodiscard]] bool plain() const {
    return !tiling && !programmatic && !qkv_attention && layernorm_projections == LayerNormProjections::kNone &&
           !persistent;
  }
};

/// Everything the search chooses for the forward but the cuBLASLt algorithms (tuned before the rest): enough to set
/// up a forward timed earlier again (the playoff) or named by a pin.
struct ForwardSetup {
  WgmmaPlan plan;
  std::optional<FusedLayout> layout;  ///< GptForward::use_fused_layers
  bool head_prefetch = false;
  bool embedding_layernorm = false;
  bool own_head = false;  ///< GptForward::use_own_head
};

/// "wgmma GEMMs 128x2x1", "wgmma GEMMs 64x1x1 for the projections", "... and programmatic launches", "qkv and
/// attention in one wgmma kernel", "the attention projection fused with its layer norm (64-wide tiles)", "both
/// projections fused with their layer norms (...)", those joined by "and", "one persistent kernel for the layers", or
/// "cuBLASLt GEMMs".
std::string plan_name(const WgmmaPlan& plan);

/// A forward's name: "unfused", "unfused with <plan>" (e.g. "unfused with wgmma GEMMs 64x1x1 for the projections and
/// programmatic launches"), "persistent" or "fused <layout>", then the options on (", LM head weights prefetched into
/// L2", ", embeddings in the first layer norm", ", own 3xTF32 LM head", ", fitted layer-norm blocks"). Documents keep
/// it (plan_search) and pins name forwards by it, so it must stay stable.
std::string setup_label(const ForwardSetup& setup);

}  // namespace vtools::vbench::cuda
