// forward_candidates: the forwards the plan search times (counted by hand from the rules), the setups a pin may name
// (every one the search can time, each name once), the options per layout, and the playoff's finalists. Host logic.
#include "tools/vbench/cuda/forward_candidates.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <limits>
#include <set>
#include <string>
#include <vector>

namespace vtools::vbench::cuda {

namespace {

/// A bf16 model on Hopper that takes everything: one wgmma tiling, qkv + attention, fitted layer norms, the
/// persistent forward, two layer-norm tiles, the LM head options.
ForwardOffer everything() {
  ForwardOffer o;
  o.wgmma_tilings = {WgmmaTiling{128, 1, 1}};
  o.qkv_attention = true;
  o.layernorm_tiles = {64, 128};
  o.fitted_layernorm = true;
  o.persistent = true;
  o.head_prefetch = true;
  o.own_head = true;
  return o;
}

bool named_in(const std::vector<ForwardSetup>& setups, const ForwardSetup& s) {
  const std::string label = setup_label(s);
  return std::any_of(setups.begin(), setups.end(), [&](const ForwardSetup& x) { return setup_label(x) == label; });
}

}  // namespace

TEST_CASE("forward_candidates: the wgmma candidates, counted from the rules") {
  const CudaOptions defaults;
  // qkv off: 1 tiling x 2 GEMM sets x 2 launch kinds = 4; qkv on: cuBLASLt's + the 4 = (1 + 2) x 2 = 6; each again
  // with fitted blocks, with the plain forward: 11 more; the persistent forward last.
  const std::vector<WgmmaPlan> gemms = wgmma_candidates(everything(), WgmmaTrials::kGemms, defaults);
  REQUIRE(gemms.size() == 4 + 6 + 11 + 1);
  CHECK(gemms.front().tiling.has_value());
  CHECK_FALSE(gemms.front().programmatic);
  CHECK(gemms[2].programmatic);
  CHECK(gemms.back().persistent);
  CHECK(gemms[10].layernorm_blocks == LayerNormBlocks::kFitted);
  CHECK(gemms[10].plain());  // the plain cuBLASLt forward in fitted blocks
  // kAll: the layer-norm projections of both kinds in both tiles, for cuBLASLt's GEMMs and the tiling: 8 more, and
  // each of them fitted too.
  CHECK(wgmma_candidates(everything(), WgmmaTrials::kAll, defaults).size() == gemms.size() + 16);
  // No programmatic launches: the forwards that differ only by them go; no persistent: it goes.
  CudaOptions off;
  off.programmatic = false;
  off.persistent = false;
  const std::vector<WgmmaPlan> plain = wgmma_candidates(everything(), WgmmaTrials::kGemms, off);
  CHECK(plain.size() == 2 + 3 + 6);
  CHECK(std::none_of(plain.begin(), plain.end(), [](const WgmmaPlan& p) { return p.programmatic || p.persistent; }));
  // A model with no wgmma kernel: only the plain forward in fitted blocks, where they differ.
  ForwardOffer small;
  small.fitted_layernorm = true;
  REQUIRE(wgmma_candidates(small, WgmmaTrials::kGemms, defaults).size() == 1);
  small.fitted_layernorm = false;
  CHECK(wgmma_candidates(small, WgmmaTrials::kGemms, defaults).empty());
}

TEST_CASE("forward_candidates: a pin may name every forward a search can time, and each name is one forward") {
  for (const bool programmatic : {true, false}) {
    CAPTURE(programmatic);
    CudaOptions options;
    options.programmatic = programmatic;
    ForwardOffer offer = everything();
    offer.fused_layouts = {FusedLayout::kBlockRows, FusedLayout::kBlockRowPairs};
    const std::vector<ForwardSetup> setups = every_setup(offer, options);
    std::set<std::string> labels;
    for (const ForwardSetup& s : setups) labels.insert(setup_label(s));
    CHECK(labels.size() == setups.size());
    for (const WgmmaTrials trials : {WgmmaTrials::kGemms, WgmmaTrials::kAll}) {
      for (const WgmmaPlan& plan : wgmma_candidates(offer, trials, options)) {
        ForwardSetup s{plan, std::nullopt};
        CHECK_MESSAGE(named_in(setups, s), setup_label(s));
        s.own_head = s.head_prefetch = true;
        s.embedding_layernorm = !plan.persistent;
        CHECK_MESSAGE(named_in(setups, s), setup_label(s));
      }
    }
    for (const FusedLayout layout : offer.fused_layouts) {
      ForwardSetup fused{WgmmaPlan{}, layout};
      fused.own_head = true;
      CHECK(named_in(setups, fused));
      fused.embedding_layernorm = true;  // the fused steps do their own first layer norm
      CHECK_FALSE(named_in(setups, fused));
    }
  }
  // Without wgmma kernels: the unfused forward in both kinds of blocks, with every combination of the 3 options.
  ForwardOffer small;
  small.fitted_layernorm = true;
  small.head_prefetch = small.own_head = true;
  CHECK(every_setup(small, {}).size() == 2 * 8);
}

TEST_CASE("forward_candidates: options per layout; the LM head options as the model takes them") {
  ForwardOffer offer;
  offer.own_head = true;
  ForwardSetup unfused;
  ForwardOptions o = options_for(offer, unfused);
  CHECK_FALSE(o.head_prefetch);
  CHECK(o.own_head);
  CHECK(o.embedding_layernorm);
  ForwardSetup fused{WgmmaPlan{}, FusedLayout::kClusterColumns};
  CHECK_FALSE(options_for(offer, fused).embedding_layernorm);
  ForwardSetup persistent;
  persistent.plan.persistent = true;
  CHECK_FALSE(options_for(offer, persistent).embedding_layernorm);
}

TEST_CASE("forward_candidates: the playoff takes the fastest and those within 10%, one per name, at most 4") {
  const auto t = [](const char* label, double ms) { return TimedForward{label, ms, {}}; };
  const std::vector<TimedForward> timed = {t("c", 1.20), t("b", 1.05), t("a", 1.00), t("a", 1.08), t("d", 1.09),
                                           t("e", 1.095), t("f", 1.096)};
  const std::vector<TimedForward> finalists = playoff_finalists(timed);
  REQUIRE(finalists.size() == 4);
  CHECK(finalists[0].label == "a");
  CHECK(finalists[0].ms == 1.00);
  CHECK(finalists[1].label == "b");
  CHECK(finalists[2].label == "d");  // the second "a" is not a second finalist
  CHECK(finalists[3].label == "e");  // f is within 10% too, but 4 is the most
  CHECK(playoff_finalists({t("a", 1.0), t("b", 1.2)}).size() == 1);
  CHECK(playoff_finalists({}).empty());
  const double inf = std::numeric_limits<double>::infinity();
  CHECK(playoff_finalists({t("a", inf), t("b", inf)}).empty());  // nothing could run
}

}  // namespace vtools::vbench::cuda
