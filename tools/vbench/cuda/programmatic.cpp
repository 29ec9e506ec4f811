// The programmatic-launch switch (programmatic.hpp), set once by make_cuda_backend from its CudaOptions.
#include "tools/vbench/cuda/programmatic.hpp"

#include <atomic>

namespace vtools::vbench::cuda {

namespace {

std::atomic<bool> g_programmatic_allowed{true};

}  // namespace

bool programmatic_launches_allowed() { return g_programmatic_allowed.load(std::memory_order_relaxed); }

void allow_programmatic_launches(bool allowed) { g_programmatic_allowed.store(allowed, std::memory_order_relaxed); }

}  // namespace vtools::vbench::cuda
