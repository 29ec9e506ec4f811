// The switch for programmatic dependent launches (programmatic.cuh launches them; programmatic.cpp reads it).
#pragma once

namespace vtools::vbench::cuda {

/// False when the environment sets VTOOLS_VBENCH_PROGRAMMATIC=0: then no kernel is launched as a programmatic
/// dependent (read once). For profiling: a dependent's time in a trace includes its early-launch wait for the kernel
/// before, so per-kernel times (vtrace) mean something only without them.
bool programmatic_launches_allowed();

}  // namespace vtools::vbench::cuda
