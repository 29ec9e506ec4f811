// A naive fp64 GPT forward written straight from the minGPT definition, sharing no code with the cpu:: ops: the
// yardstick the CPU backend is tested and gated against. Slow on purpose (plain loops, one thread).
#pragma once

#include <cstdint>
#include <vector>

#include "tools/vbench/model.hpp"

namespace vtools::vbench {

/// Logits [B][T][V] in double for tokens [B][T].
std::vector<double> reference_forward(const GptWeights& weights, const std::vector<std::int32_t>& tokens, int B, int T);

}  // namespace vtools::vbench
