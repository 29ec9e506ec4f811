// The floor of one forward pass: FLOPs and bytes moved, and the time a device with given peaks cannot beat.
// Formulas (documented in man/vbench.1 too):
//   flops = 2·matmul_params·B·T + attention, attention = 2·n_layer·B·C·T·(T+1)   (QKᵀ and A·V over the causal
//           triangle: Σ_t (t+1) = T(T+1)/2 rows per head, 2 FLOPs per MAC, two products)
//   bytes = total_params·s + B·T·V·s   (every weight read once + logits written once; s = 4 fp32/tf32, 2 bf16)
//   floor_ms = 1e3 · max(flops / peak_flops, bytes / peak_bandwidth)
#pragma once

#include <cstdint>
#include <string>

#include "tools/vbench/backend.hpp"
#include "tools/vbench/model.hpp"

namespace vtools::vbench {

struct ForwardCost {
  double flops = 0;
  double bytes = 0;
};

/// Bytes per element stored in `dtype` (tf32 keeps fp32 storage).
int dtype_bytes(DType dtype);
/// "fp32", "tf32", "bf16".
std::string dtype_name(DType dtype);
/// Inverse of dtype_name; Error(kUsage) for anything else.
DType parse_dtype(const std::string& name);

ForwardCost forward_cost(const GptConfig& config, int B, int T, DType dtype);

/// The roofline floor in ms; 0 when the device reports neither peak. `bound` is "memory" or "compute".
struct Floor {
  double floor_ms = 0;
  std::string bound;
};
Floor roofline_floor(const ForwardCost& cost, const DeviceInfo& device);

}  // namespace vtools::vbench
