// Turns --config / custom-shape flags / --untied / --weights into the configs to run and their weights.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "tools/vbench/harness.hpp"
#include "tools/vbench/options.hpp"

namespace vtools::vbench {

/// Configs named by the flags: the custom one when --n-layer/--n-head/--n-embd are given (all three needed),
/// else --config (default gpt_nano). --untied unties every head. Each is validated.
std::vector<GptConfig> select_configs(const ModelOptions& options);

/// Jobs for `run`/`verify`: weights from the seed, or from the safetensors file `weights_path` (then exactly one
/// config: the one named by the flags, else the one in the file's metadata). `storage` keeps loaded weights alive.
std::vector<ConfigJob> select_jobs(const ModelOptions& options, const std::string& weights_path,
                                   std::unique_ptr<GptWeights>& storage);

}  // namespace vtools::vbench
