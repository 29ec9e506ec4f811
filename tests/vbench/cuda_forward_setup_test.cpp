// The names of the forwards the plan search times (forward_setup.hpp): documents keep them in plan_search and
// --forward / --forwards-from pin forwards by them, so each part of a name is checked as written. Host logic only.
#include <doctest/doctest.h>

#include <string>

#include "tools/vbench/cuda/forward_setup.hpp"

namespace vtools::vbench::cuda {

TEST_CASE("forward_setup: the plain forward, the persistent one and the fused layouts") {
  CHECK(setup_label(ForwardSetup{}) == "unfused");
  ForwardSetup persistent;
  persistent.plan.persistent = true;
  persistent.plan.programmatic = true;  // ignored: the persistent kernel is one plan
  CHECK(setup_label(persistent) == "persistent");
  ForwardSetup fused;
  fused.layout = FusedLayout::kBlockRowPairs;
  fused.plan.layernorm_blocks = LayerNormBlocks::kFitted;  // the fused steps have their own layer norms
  CHECK(setup_label(fused) == "fused block row pairs");
  fused.layout = FusedLayout::kClusterColumns;
  fused.own_head = true;
  CHECK(setup_label(fused) == "fused cluster columns, own 3xTF32 LM head");
}

TEST_CASE("forward_setup: an unfused plan's parts joined by 'and', then the options in a fixed order") {
  ForwardSetup s;
  s.plan.tiling = WgmmaTiling{64, 1, 1};
  s.plan.gemms = WgmmaGemms::kProjections;
  s.plan.programmatic = true;
  CHECK(setup_label(s) == "unfused with wgmma GEMMs 64x1x1 for the projections and programmatic launches");

  ForwardSetup qkv;
  qkv.plan.qkv_attention = true;
  qkv.plan.layernorm_blocks = LayerNormBlocks::kFitted;
  qkv.head_prefetch = true;
  qkv.embedding_layernorm = true;
  qkv.own_head = true;
  CHECK(setup_label(qkv) ==
        "unfused with qkv and attention in one wgmma kernel, LM head weights prefetched into L2, embeddings in the "
        "first layer norm, own 3xTF32 LM head, fitted layer-norm blocks");

  ForwardSetup both;
  both.plan.tiling = WgmmaTiling{128, 2, 1};
  both.plan.layernorm_projections = LayerNormProjections::kBoth;
  both.plan.layernorm_tile = 64;
  CHECK(setup_label(both) ==
        "unfused with wgmma GEMMs 128x2x1 and both projections fused with their layer norms (64-wide tiles)");
  both.plan.layernorm_projections = LayerNormProjections::kAttention;
  CHECK(setup_label(both) ==
        "unfused with wgmma GEMMs 128x2x1 and the attention projection fused with its layer norm (64-wide tiles)");
}

}  // namespace vtools::vbench::cuda
