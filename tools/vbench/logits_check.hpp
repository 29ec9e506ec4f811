// The correctness gate's comparison: logits of a backend against reference logits on the same weights and tokens.
// rel_err = ‖a − b‖₂ / ‖b‖₂ over every compared value; a run passes when rel_err <= the dtype's tolerance and every
// value is finite. Tolerances (set from fp32 accumulation over GPT-2-sized dot products, with headroom):
// fp32 1e-4, tf32 1e-2, bf16 2e-2 (the limits the cuda backend is tested to, tests/vbench/cuda_backend_test.cpp).
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "formats/bench/bench_model.hpp"
#include "tools/vbench/backend.hpp"

namespace vtools::vbench {

double tolerance_for(DType dtype);

/// Compares `got` and `ref`, both [rows][V] row-major with the same length.
Correctness compare_logits(std::span<const float> got, std::span<const double> ref, std::int64_t V, double tolerance);

}  // namespace vtools::vbench
