// cuda_options_from_environment: the VTOOLS_VBENCH_* variables as man/vbench.1 (ENVIRONMENT) documents them.
#include "tools/vbench/cuda_options.hpp"

#include <doctest/doctest.h>

#include <map>
#include <string>

using namespace vtools::vbench;

namespace {

CudaOptions from(const std::map<std::string, std::string>& env) {
  return cuda_options_from_environment([&](const char* name) -> const char* {
    const auto it = env.find(name);
    return it == env.end() ? nullptr : it->second.c_str();
  });
}

}  // namespace

TEST_CASE("cuda options: unset variables give what a plain vbench run does") {
  const CudaOptions o = from({});
  CHECK(o.wgmma == WgmmaTrials::kGemms);
  CHECK(o.programmatic);
  CHECK(o.persistent);
  CHECK(o.persistent_trace.empty());
}

TEST_CASE("cuda options: 0 switches off; WGMMA also takes all; any other value is the default") {
  CHECK(from({{"VTOOLS_VBENCH_WGMMA", "0"}}).wgmma == WgmmaTrials::kNone);
  CHECK(from({{"VTOOLS_VBENCH_WGMMA", "all"}}).wgmma == WgmmaTrials::kAll);
  CHECK(from({{"VTOOLS_VBENCH_WGMMA", "1"}}).wgmma == WgmmaTrials::kGemms);
  CHECK_FALSE(from({{"VTOOLS_VBENCH_PROGRAMMATIC", "0"}}).programmatic);
  CHECK(from({{"VTOOLS_VBENCH_PROGRAMMATIC", "1"}}).programmatic);
  CHECK(from({{"VTOOLS_VBENCH_PROGRAMMATIC", ""}}).programmatic);
  CHECK_FALSE(from({{"VTOOLS_VBENCH_PERSISTENT", "0"}}).persistent);
  CHECK(from({{"VTOOLS_VBENCH_PERSISTENT", "no"}}).persistent);
  CHECK(from({{"VTOOLS_VBENCH_PERSISTENT_TRACE", "/tmp/t.txt"}}).persistent_trace == "/tmp/t.txt");
  CHECK(from({{"VTOOLS_VBENCH_PERSISTENT_TRACE", ""}}).persistent_trace.empty());  // as unset: no trace
}
