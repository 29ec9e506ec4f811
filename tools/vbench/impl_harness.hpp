// The harness for external implementations (`vbench run --impl CMD`): per config and shape, hand the implementation
// a request (impl_protocol), run it (impl_process), read its reply and logits, gate the logits as for vbench's own
// backends (harness.hpp gate_logits, cpu-fp32 reference) and compute every statistic from its raw samples.
// Returns a BenchRun as run_benchmarks does, each failed benchmark marked with the reason.
#pragma once

#include <string>
#include <vector>

#include "tools/vbench/harness.hpp"

namespace vtools::vbench {

struct ImplSettings {
  std::string command;     ///< run as `/bin/sh -c command`
  double timeout_s = 600;  ///< per benchmark (one process each); killed with its process group after it
  int gpu = -1;            ///< --gpu, handed on in the request
  std::string weights_path;  ///< --weights, handed on as it is; "" = vbench writes each config's seeded weights
};

/// Runs every job at every shape through the implementation. Error(kUsage) first when a shape does not fit a config;
/// Error(kIoError) when the working files cannot be written. A crash, a timeout, a malformed reply or a failed gate
/// marks that benchmark "failed" (failure_kind, failure) and the others still run.
BenchRun run_impl_benchmarks(const std::vector<ConfigJob>& jobs, const HarnessSettings& settings,
                             const ImplSettings& impl);

/// The folder of the Python helper module (vbench_impl) for this vbench: installed beside it
/// (<prefix>/share/vtools/python) or the checkout it was built from; "" when neither exists.
std::string impl_python_dir();

/// `name` as a file-name part: letters, digits, '.', '-', '_' kept, anything else '_'; "impl" when empty.
std::string impl_file_name(const std::string& name);

}  // namespace vtools::vbench
