#include "tools/vbench/weight_init.hpp"

#include <cmath>
#include <numbers>

#include "tools/vbench/gpt2_tensors.hpp"

namespace vtools::vbench {

std::uint64_t NormalStream::next() {
  std::uint64_t z = (state_ += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

double NormalStream::normal() {
  const double u1 = static_cast<double>((next() >> 11) + 1) * 0x1.0p-53;
  const double u2 = static_cast<double>(next() >> 11) * 0x1.0p-53;
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * std::numbers::pi * u2);
}

std::uint64_t fnv1a64(std::string_view text) {
  std::uint64_t h = 0xcbf29ce484222325ull;
  for (unsigned char ch : text) {
    h ^= ch;
    h *= 0x100000001b3ull;
  }
  return h;
}

GptWeights init_weights(const GptConfig& config, std::uint64_t seed) {
  GptWeights w;
  w.config = config;
  allocate_weights(w);
  const double residual_std = 0.02 / std::sqrt(2.0 * config.n_layer);
  for (auto& slot : gpt2_tensor_slots(w)) {
    auto& data = *slot.data;
    switch (slot.init) {
      case InitKind::kZeros: std::fill(data.begin(), data.end(), 0.0f); break;
      case InitKind::kOnes: std::fill(data.begin(), data.end(), 1.0f); break;
      case InitKind::kNormal:
      case InitKind::kResidualProjection: {
        const double stddev = slot.init == InitKind::kNormal ? 0.02 : residual_std;
        NormalStream stream(seed ^ fnv1a64(slot.name));
        for (auto& x : data) x = static_cast<float>(stddev * stream.normal());
        break;
      }
    }
  }
  return w;
}

}  // namespace vtools::vbench
