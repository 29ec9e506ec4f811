#include "tools/vbench/cuda/forward_candidates.hpp"

#include <algorithm>
#include <cmath>
#include <optional>

namespace vtools::vbench::cuda {

std::vector<WgmmaPlan> wgmma_candidates(const ForwardOffer& offer, WgmmaTrials trials, const CudaOptions& options) {
  std::vector<WgmmaPlan> candidates;
  std::vector<std::optional<WgmmaTiling>> gemms = {std::nullopt};  // cuBLASLt's, then each tiling
  gemms.insert(gemms.end(), offer.wgmma_tilings.begin(), offer.wgmma_tilings.end());
  for (const bool qkv_attention : {false, true}) {
    if (qkv_attention && !offer.qkv_attention) continue;
    for (const std::optional<WgmmaTiling> tiling : gemms) {
      for (const bool programmatic : {false, true}) {
        if (programmatic && !options.programmatic) continue;  // the same forward
        if (!tiling && qkv_attention) candidates.push_back({tiling, WgmmaGemms::kAll, programmatic, true});
        if (tiling) {
          candidates.push_back({tiling, WgmmaGemms::kAll, programmatic, qkv_attention});
          candidates.push_back({tiling, WgmmaGemms::kProjections, programmatic, qkv_attention});
        }
      }
      if (trials != WgmmaTrials::kAll || qkv_attention) continue;
      for (const auto which : {LayerNormProjections::kAttention, LayerNormProjections::kBoth}) {
        for (const int tile_n : offer.layernorm_tiles) {
          candidates.push_back({tiling, WgmmaGemms::kAll, false, false, which, tile_n});
        }
      }
    }
  }
  // Each in fitted layer-norm blocks too: their gain differs from plan to plan, so choosing them after the plan can
  // keep a plan that another one beats with them.
  if (offer.fitted_layernorm) {
    std::vector<WgmmaPlan> fitted = {WgmmaPlan{}};  // the plain cuBLASLt forward too
    fitted.insert(fitted.end(), candidates.begin(), candidates.end());
    for (WgmmaPlan& plan : fitted) plan.layernorm_blocks = LayerNormBlocks::kFitted;
    candidates.insert(candidates.end(), fitted.begin(), fitted.end());
  }
  if (offer.persistent && options.persistent) {
    WgmmaPlan persistent;
    persistent.persistent = true;
    candidates.push_back(persistent);
  }
  return candidates;
}

ForwardOptions options_for(const ForwardOffer& offer, const ForwardSetup& base) {
  // The fused steps and the persistent forward do their own first layer norm, so embeddings cannot move into it.
  return {offer.head_prefetch, offer.own_head, !base.layout && !base.plan.persistent};
}

std::vector<ForwardSetup> every_setup(const ForwardOffer& offer, const CudaOptions& options) {
  std::vector<WgmmaPlan> plans = {WgmmaPlan{}};
  if (!offer.wgmma_tilings.empty()) {
    const std::vector<WgmmaPlan> candidates = wgmma_candidates(offer, WgmmaTrials::kAll, options);  // fitted too
    plans.insert(plans.end(), candidates.begin(), candidates.end());
  } else if (offer.fitted_layernorm) {
    WgmmaPlan fitted;
    fitted.layernorm_blocks = LayerNormBlocks::kFitted;
    plans.push_back(fitted);  // without wgmma candidates, time_option_combinations tries it
  }
  std::vector<ForwardSetup> bases;
  for (const WgmmaPlan& plan : plans) bases.push_back({plan, std::nullopt});
  for (const FusedLayout layout : offer.fused_layouts) bases.push_back({WgmmaPlan{}, layout});
  std::vector<ForwardSetup> setups;
  for (const ForwardSetup& base : bases) {
    const ForwardOptions applies = options_for(offer, base);
    for (unsigned mask = 0; mask < 8; ++mask) {
      ForwardSetup setup = base;
      setup.head_prefetch = (mask & 1u) != 0;
      setup.own_head = (mask & 2u) != 0;
      setup.embedding_layernorm = (mask & 4u) != 0;
      if ((setup.head_prefetch && !applies.head_prefetch) || (setup.own_head && !applies.own_head) ||
          (setup.embedding_layernorm && !applies.embedding_layernorm)) {
        continue;
      }
      setups.push_back(setup);
    }
  }
  return setups;
}

std::vector<TimedForward> playoff_finalists(const std::vector<TimedForward>& timed) {
  std::vector<const TimedForward*> order;
  for (const TimedForward& t : timed) order.push_back(&t);
  std::stable_sort(order.begin(), order.end(), [](const auto* a, const auto* b) { return a->ms < b->ms; });
  std::vector<TimedForward> finalists;
  if (order.empty() || !std::isfinite(order.front()->ms)) return finalists;
  for (const TimedForward* t : order) {
    if (!(t->ms <= order.front()->ms * (1 + kPlayoffMargin)) || finalists.size() == kFinalists) break;
    const bool seen = std::any_of(finalists.begin(), finalists.end(),
                                  [&](const TimedForward& f) { return f.label == t->label; });
    if (!seen) finalists.push_back(*t);
  }
  return finalists;
}

}  // namespace vtools::vbench::cuda
