#include "tools/vbench/weight_init.hpp"

#include <doctest/doctest.h>

#include <cmath>

#include "libcommon/stats.hpp"
#include "tools/vbench/gpt2_tensors.hpp"

using namespace vtools::vbench;

TEST_CASE("weight_init: SplitMix64 matches the published first output for state 0") {
  NormalStream s(0);
  CHECK(s.next() == 0xe220a8397b1dcdafull);
  CHECK(fnv1a64("") == 0xcbf29ce484222325ull);
  CHECK(fnv1a64("a") == 0xaf63dc4c8601ec8cull);
}

TEST_CASE("weight_init: the same seed gives the same weights, another seed others") {
  const GptConfig c{"t", 2, 2, 8, 31, 16, true};
  const GptWeights a = init_weights(c, 42), b = init_weights(c, 42), d = init_weights(c, 43);
  CHECK(a.wte == b.wte);
  CHECK(a.layers[1].fc_w == b.layers[1].fc_w);
  CHECK(a.wte != d.wte);
  CHECK(a.lm_head.empty());
}

TEST_CASE("weight_init: minGPT's scheme (std 0.02, residual projections 0.02/sqrt(2L), LN 1/0, biases 0)") {
  GptConfig c{"t", 8, 4, 64, 501, 32, false};
  const GptWeights w = init_weights(c, 7);
  auto std_of = [](const std::vector<float>& v) {
    std::vector<double> d(v.begin(), v.end());
    return vtools::stats::sample_std(d);
  };
  CHECK(std_of(w.wte) == doctest::Approx(0.02).epsilon(0.03));
  CHECK(std_of(w.lm_head) == doctest::Approx(0.02).epsilon(0.03));
  CHECK(std_of(w.layers[0].fc_proj_w) == doctest::Approx(0.02 / 4.0).epsilon(0.03));
  CHECK(std_of(w.layers[3].attn_proj_w) == doctest::Approx(0.02 / 4.0).epsilon(0.05));
  for (float x : w.layers[2].ln1_w) CHECK(x == 1.0f);
  for (float x : w.layers[2].attn_b) CHECK(x == 0.0f);
  CHECK(w.lm_head.size() == 501u * 64u);
}

TEST_CASE("gpt2_tensors: names and shapes as GPT-2 stores them") {
  GptWeights w;
  w.config = {"t", 2, 2, 8, 31, 16, false};
  allocate_weights(w);
  const auto slots = gpt2_tensor_slots(w);
  CHECK(slots.size() == 2 + 2 * 12 + 2 + 1);
  CHECK(slots[0].name == "wte.weight");
  CHECK(slots[4].name == "h.0.attn.c_attn.weight");
  CHECK(slots[4].shape == std::vector<std::int64_t>{8, 24});
  CHECK(slots[12].name == "h.0.mlp.c_proj.weight");
  CHECK(slots[12].shape == std::vector<std::int64_t>{32, 8});
  CHECK(slots.back().name == "lm_head.weight");
  for (const auto& s : slots) CHECK(static_cast<std::int64_t>(s.data->size()) == element_count(s.shape));
}
