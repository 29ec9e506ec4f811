#include "tools/vtrace/runtime_check.hpp"

#include <dlfcn.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>

#include "libcommon/cuda_driver.hpp"
#include "libcommon/error.hpp"

namespace vtools::vtrace {

namespace fs = std::filesystem;

std::string executable_dir() {
  std::error_code ec;
  fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  return ec ? std::string(".") : exe.parent_path().string();
}

std::string find_injection_library(const std::string& exe_dir) {
  if (const char* env = std::getenv("VTRACE_CUPTI_LIBRARY"); env && *env) {
    if (!fs::exists(env))
      throw Error(ExitCode::kUnavailable,
                  std::string("the CUPTI injection library '") + env + "' (from VTRACE_CUPTI_LIBRARY) does not exist");
    return env;
  }
  const fs::path candidates[] = {fs::path(exe_dir) / "libvtrace_cupti.so",
                                 fs::path(exe_dir) / ".." / "lib" / "vtrace" / "libvtrace_cupti.so"};
  for (const auto& c : candidates)
    if (fs::exists(c)) return fs::weakly_canonical(c).string();
#ifdef VTOOLS_HAVE_CUPTI
  const char* why = "";
#else
  const char* why = " (this vtrace was built without CUDA/CUPTI)";
#endif
  throw Error(ExitCode::kUnavailable, "the CUPTI injection library libvtrace_cupti.so was not found in '" + exe_dir +
                                          "' or '" + (fs::path(exe_dir) / ".." / "lib" / "vtrace").string() + "'" +
                                          why);
}

std::string find_tool_file(const std::string& exe_dir, const std::string& file, const std::string& what) {
  const fs::path candidates[] = {fs::path(exe_dir) / file, fs::path(exe_dir) / ".." / "lib" / "vtrace" / file};
  for (const auto& c : candidates)
    if (fs::exists(c)) return fs::weakly_canonical(c).string();
  throw Error(ExitCode::kUnavailable, what + " " + file + " was not found in '" + exe_dir + "' or '" +
                                          (fs::path(exe_dir) / ".." / "lib" / "vtrace").string() + "'");
}

void check_tracing_runtime(const std::string& injection_library, const std::string& libcuda) {
  if (auto why = cuda_driver_unavailable(libcuda)) throw Error(ExitCode::kUnavailable, "cannot trace: " + *why);
  void* cuda = ::dlopen(libcuda.c_str(), RTLD_LAZY | RTLD_LOCAL);  // held while the library's dependencies resolve
  // Loading the injection library resolves its dependencies (libcupti); it does nothing until CUDA calls it.
  void* lib = ::dlopen(injection_library.c_str(), RTLD_LAZY | RTLD_LOCAL);
  if (!lib) {
    const char* err = ::dlerror();
    throw Error(ExitCode::kUnavailable, "cannot trace: the injection library cannot be loaded (is CUPTI installed?): " +
                                            std::string(err ? err : "unknown error"));
  }
  ::dlclose(lib);
  ::dlclose(cuda);
}

}  // namespace vtools::vtrace
