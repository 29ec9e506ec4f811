#include "tools/vbench/forward_cost.hpp"

#include <algorithm>

#include "libcommon/error.hpp"
#include "tools/vbench/gpt_configs.hpp"

namespace vtools::vbench {

int dtype_bytes(DType dtype) { return dtype == DType::kBf16 ? 2 : 4; }

std::string dtype_name(DType dtype) {
  switch (dtype) {
    case DType::kFp32: return "fp32";
    case DType::kTf32: return "tf32";
    case DType::kBf16: return "bf16";
  }
  return "fp32";
}

DType parse_dtype(const std::string& name) {
  if (name == "fp32") return DType::kFp32;
  if (name == "tf32") return DType::kTf32;
  if (name == "bf16") return DType::kBf16;
  throw Error(ExitCode::kUsage, with_suggestion("unknown dtype '" + name + "'", name, {"fp32", "tf32", "bf16"}));
}

ForwardCost forward_cost(const GptConfig& config, int B, int T, DType dtype) {
  const ParameterCount params = count_parameters(config);
  const double bt = static_cast<double>(B) * T;
  ForwardCost cost;
  cost.flops = 2.0 * static_cast<double>(params.matmul) * bt +
               2.0 * config.n_layer * static_cast<double>(B) * config.n_embd * T * (T + 1.0);
  const double s = dtype_bytes(dtype);
  cost.bytes = static_cast<double>(params.total) * s + bt * config.vocab_size * s;
  return cost;
}

Floor roofline_floor(const ForwardCost& cost, const DeviceInfo& device) {
  const double compute_s = device.peak_flops > 0 ? cost.flops / device.peak_flops : 0;
  const double memory_s = device.peak_bandwidth_bytes_per_s > 0 ? cost.bytes / device.peak_bandwidth_bytes_per_s : 0;
  if (compute_s == 0 && memory_s == 0) return {};
  return {1e3 * std::max(compute_s, memory_s), memory_s >= compute_s ? "memory" : "compute"};
}

}  // namespace vtools::vbench
