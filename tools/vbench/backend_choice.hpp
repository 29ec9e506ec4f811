// Picks the backend for --backend cpu|cuda|auto and --gpu N: auto is cuda when make_cuda_backend gives one, else cpu
// (with a note saying why). An explicit cuda without one is Error(kUnavailable) carrying the reason; so is auto with
// a --gpu given (a named GPU is a request for cuda) or with `cuda_flag` (another flag that asks for cuda, such as
// "--forward"), while cpu with either is Error(kUsage).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "tools/vbench/backend.hpp"

namespace vtools::vbench {

/// `cuda_options` go to make_cuda_backend.
std::unique_ptr<Backend> choose_backend(const std::string& name, int gpu, std::vector<std::string>* notes,
                                        const std::string& cuda_flag = "", const CudaOptions& cuda_options = {});

}  // namespace vtools::vbench
