// Which forwards the plan search may time for one model and shape: the wgmma candidates in the order they are timed,
// the options that apply to a forward, every setup a pin may name, and the finalists of the playoff. Host logic over
// what the model takes (ForwardOffer, plain data), so that tests list them without a GPU; forward_search times them.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "tools/vbench/cuda/forward_setup.hpp"
#include "tools/vbench/cuda_options.hpp"

namespace vtools::vbench::cuda {

/// What the prepared model takes (forward_search fills it from its GptForward and the device).
struct ForwardOffer {
  std::vector<WgmmaTiling> wgmma_tilings;  ///< GptForward::wgmma_tilings
  bool qkv_attention = false;              ///< GptForward::qkv_attention_available
  /// GptForward::layernorm_tiles: looked up (it sets kernel attributes) only where WgmmaTrials::kAll lists them
  std::vector<int> layernorm_tiles;
  bool fitted_layernorm = false;           ///< fitted_layernorm_applies(n_embd)
  bool persistent = false;                 ///< GptForward::persistent_available
  std::vector<FusedLayout> fused_layouts;  ///< GptForward::fused_layouts
  bool head_prefetch = false;              ///< the LM head's weights fit in L2
  bool own_head = false;                   ///< GptForward::own_head_available
};

/// A forward timed at prepare: its label (setup_label), median ms and setup.
struct TimedForward {
  std::string label;
  double ms = 0;
  ForwardSetup setup;
};

/// The options time_option_combinations tries on a forward, and every_setup lists for it.
struct ForwardOptions {
  bool head_prefetch = false, own_head = false, embedding_layernorm = false;
};

/// The playoff: forwards within kPlayoffMargin of the fastest, at most kFinalists, timed again in kPlayoffRounds
/// rounds that take each in turn. Single medians of one forward move by 1-5% between runs, which once kept a
/// forward a few percent slower than the best; 10%, not 5%: a best forward once missed a 5% cut (bench/RESULTS.md,
/// sessions 15, 16 and 23).
inline constexpr double kPlayoffMargin = 0.10;
inline constexpr std::size_t kFinalists = 4;
inline constexpr int kPlayoffRounds = 4;

/// The unfused forwards choose_wgmma_gemms times, in its order: cuBLASLt's layer GEMMs; vbench's own wgmma GEMMs in
/// each tiling the model takes, for all four GEMMs or the projections only; each with and without programmatic
/// launches (without only when options.programmatic is off); each of those (cuBLASLt's included) with the qkv GEMM
/// and attention as one kernel where the model takes it; with WgmmaTrials::kAll also the projections run together
/// with the layer norms after them; each of those (and the plain cuBLASLt forward) also with fitted layer-norm
/// blocks where they differ; and where the model takes it and options.persistent, the persistent forward.
std::vector<WgmmaPlan> wgmma_candidates(const ForwardOffer& offer, WgmmaTrials trials, const CudaOptions& options);

/// Which options apply to a forward of `base`'s layout and plan (the options' own fields are ignored): one place
/// decides, so that what a search times and what a pin may name cannot drift apart.
ForwardOptions options_for(const ForwardOffer& offer, const ForwardSetup& base);

/// Every forward a search may time for this model: the unfused one and the wgmma candidates (with every trial), in
/// both kinds of layer-norm blocks where they apply, and the fused layouts, each with every combination of the
/// options that apply. A pin names one of them.
std::vector<ForwardSetup> every_setup(const ForwardOffer& offer, const CudaOptions& options);

/// The playoff's finalists among `timed`: the fastest first, then each within kPlayoffMargin of it in order of
/// time (the first of equal times first), one per label, at most kFinalists; empty when the fastest is not finite
/// (nothing could run).
std::vector<TimedForward> playoff_finalists(const std::vector<TimedForward>& timed);

}  // namespace vtools::vbench::cuda
