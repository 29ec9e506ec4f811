// Finds the injection library that `vtrace run` puts into the command, and checks before running anything that the
// machine can trace at all (NVIDIA driver present, the library and CUPTI loadable); otherwise exit 69 saying what is
// missing.
#pragma once

#include <string>

namespace vtools::vtrace {

/// The CUPTI injection library: $VTRACE_CUPTI_LIBRARY when set, else libvtrace_cupti.so next to the vtrace binary
/// (build tree), else <exe dir>/../lib/vtrace/libvtrace_cupti.so (installed). Throws Error(kUnavailable).
std::string find_injection_library(const std::string& exe_dir);

/// `file` (e.g. libvtrace_access.so) next to the vtrace binary or in <exe dir>/../lib/vtrace; throws
/// Error(kUnavailable) naming both places and `what` it is.
std::string find_tool_file(const std::string& exe_dir, const std::string& file, const std::string& what);

/// Directory of the running executable (/proc/self/exe).
std::string executable_dir();

/// Throws Error(kUnavailable) when `libcuda` cannot be loaded (no driver) or `injection_library` cannot be loaded
/// (e.g. libcupti missing), quoting dlerror().
void check_tracing_runtime(const std::string& injection_library, const std::string& libcuda = "libcuda.so.1");

}  // namespace vtools::vtrace
