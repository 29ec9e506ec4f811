// Deterministic weight init, the same on every machine and compiler: minGPT's scheme (normal std 0.02, residual
// projections std 0.02/sqrt(2·n_layer), biases 0, LayerNorm weight 1) drawn from a documented generator.
//
// Generator: each tensor has its own stream, so tensor order never matters. state = seed XOR fnv1a64(name) (FNV-1a,
// 64-bit, over the GPT-2 tensor name); next() is SplitMix64 (Steele et al. 2014: state += 0x9e3779b97f4a7c15, then
// the two xor-shift-multiply rounds). One normal value per two draws (Box-Muller, cosine branch only):
// u1 = ((next() >> 11) + 1)·2⁻⁵³, u2 = (next() >> 11)·2⁻⁵³, z = sqrt(-2·ln u1)·cos(2π·u2), in double, then
// scaled by std and rounded to float. std::normal_distribution is avoided because its algorithm is not specified.
#pragma once

#include <cstdint>
#include <string_view>

#include "tools/vbench/model.hpp"

namespace vtools::vbench {

/// SplitMix64 with the Box-Muller normal described above.
class NormalStream {
 public:
  explicit NormalStream(std::uint64_t state) : state_(state) {}
  std::uint64_t next();
  double normal();

 private:
  std::uint64_t state_;
};

/// FNV-1a 64-bit hash of `text`.
std::uint64_t fnv1a64(std::string_view text);

/// Weights for `config` drawn from `seed` as described above.
GptWeights init_weights(const GptConfig& config, std::uint64_t seed);

}  // namespace vtools::vbench
