// The switch for programmatic dependent launches (programmatic.cuh launches them; make_cuda_backend sets it from
// CudaOptions::programmatic).
#pragma once

namespace vtools::vbench::cuda {

/// False after allow_programmatic_launches(false): then no kernel is launched as a programmatic dependent. For
/// profiling: a dependent's time in a trace includes its early-launch wait for the kernel before, so per-kernel times
/// (vtrace) mean something only without them. True until set.
bool programmatic_launches_allowed();
/// Sets the switch for every launch after it (process-wide: the launchers of ops/ consult it).
void allow_programmatic_launches(bool allowed);

}  // namespace vtools::vbench::cuda
