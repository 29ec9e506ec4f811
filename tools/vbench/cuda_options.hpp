// The cuda backend's switches for profiling and experiments (which forwards its search tries, programmatic launches,
// the persistent forward's trace): one struct, filled where the command starts and handed to make_cuda_backend, so
// that no code below the CLI reads the environment. Its defaults are what a plain `vbench run` does.
#pragma once

#include <functional>
#include <string>

namespace vtools::vbench {

/// Which forwards with own wgmma kernels the search tries: none, the GEMM tilings (default), or also the layer-norm
/// projections (which lost everywhere they were timed).
enum class WgmmaTrials { kNone, kGemms, kAll };

struct CudaOptions {
  WgmmaTrials wgmma = WgmmaTrials::kGemms;  ///< VTOOLS_VBENCH_WGMMA: "0" kNone, "all" kAll, else kGemms
  /// VTOOLS_VBENCH_PROGRAMMATIC=0: false, no kernel launched as a programmatic dependent and no forward tried that
  /// differs only by them (per-kernel times in a trace then mean something).
  bool programmatic = true;
  bool persistent = true;        ///< VTOOLS_VBENCH_PERSISTENT=0: false, the search does not try the persistent forward
  std::string persistent_trace;  ///< VTOOLS_VBENCH_PERSISTENT_TRACE: the file of the persistent forward's task stamps
};

/// Looks up an environment variable: nullptr when unset (std::getenv's contract).
using EnvironmentLookup = std::function<const char*(const char*)>;

/// The options the VTOOLS_VBENCH_* variables give (man/vbench.1, ENVIRONMENT); `lookup` is std::getenv but in tests.
CudaOptions cuda_options_from_environment(const EnvironmentLookup& lookup);
/// The same from this process's environment: the one place vbench reads these variables (main.cpp).
CudaOptions cuda_options_from_environment();

}  // namespace vtools::vbench
