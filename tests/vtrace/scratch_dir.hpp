// A fresh directory under the system's temporary directory for one test case, removed with everything in it when
// the case ends; named after the case and this process, so parallel test binaries do not share it.
#pragma once

#include <unistd.h>

#include <filesystem>
#include <string>

namespace vtools::vtrace::testing {

struct ScratchDir {
  std::filesystem::path path;
  /// `prefix`-`name`-<pid> under the temporary directory, emptied first.
  ScratchDir(const std::string& prefix, const std::string& name)
      : path(std::filesystem::temp_directory_path() / (prefix + "-" + name + "-" + std::to_string(::getpid()))) {
    std::filesystem::remove_all(path);
    std::filesystem::create_directories(path);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  ~ScratchDir() { std::filesystem::remove_all(path); }
};

}  // namespace vtools::vtrace::testing
