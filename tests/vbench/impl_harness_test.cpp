#include "tools/vbench/impl_harness.hpp"

#include <doctest/doctest.h>

#include "libcommon/error.hpp"

using namespace vtools::vbench;

namespace {

GptConfig tiny_config() { return {"tiny", 1, 1, 4, 11, 8, true}; }

HarnessSettings tiny_settings() {
  HarnessSettings s;
  s.shapes = {{1, 4}, {2, 4}};
  s.warmup = 0;
  s.iters = 2;
  return s;
}

}  // namespace

TEST_CASE("impl_harness: a failing implementation marks every benchmark with the reason and the run goes on") {
  const std::vector<ConfigJob> jobs{{tiny_config(), nullptr}};
  const BenchRun run = run_impl_benchmarks(jobs, tiny_settings(), ImplSettings{"exit 4 2>/dev/null", 10, -1, ""});
  REQUIRE(run.results.size() == 2);
  CHECK(run.results[1].name == "tiny/B:2/T:4");
  for (const ConfigResult& r : run.results) {
    CHECK(r.status == "failed");
    CHECK(r.failure_kind == "crash");
    CHECK(r.failure == "exited with status 4");
    CHECK(r.samples_ms.empty());
    CHECK_FALSE(r.correctness);
  }
  CHECK(run.backend == "impl");  // nothing replied, so nothing named it
  REQUIRE(run.implementation);
  CHECK(run.implementation->command == "exit 4 2>/dev/null");
}

TEST_CASE("impl_harness: a timeout is its own failure; a shape over the block size is refused before any run") {
  HarnessSettings s = tiny_settings();
  s.shapes = {{1, 4}};
  const std::vector<ConfigJob> jobs{{tiny_config(), nullptr}};
  const BenchRun run = run_impl_benchmarks(jobs, s, ImplSettings{"sleep 20", 0.2, -1, ""});
  REQUIRE(run.results.size() == 1);
  CHECK(run.results[0].failure_kind == "timeout");
  CHECK(run.results[0].failure == "timed out after 0.2 s (killed)");
  s.shapes = {{1, 9}};
  CHECK_THROWS_WITH_AS(run_impl_benchmarks(jobs, s, ImplSettings{"true", 1, -1, ""}),
                       "--seq 9 exceeds the block size 8 of config 'tiny'", vtools::Error);
}

TEST_CASE("impl_harness: implementation names become file-name parts") {
  CHECK(impl_file_name("hf-gpt2") == "hf-gpt2");
  CHECK(impl_file_name("my gpt/v2") == "my_gpt_v2");
  CHECK(impl_file_name("") == "impl");
}
