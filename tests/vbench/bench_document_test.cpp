// bench_document read back: the table a document gives again (show), and the forwards it kept (pins).
#include "tools/vbench/bench_document.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <sstream>
#include <utility>

#include "libcommon/error.hpp"
#include "tests/vbench/noting_backend.hpp"
#include "tools/vbench/bench_table.hpp"
#include "tools/vbench/cpu_backend.hpp"

using namespace vtools;
using namespace vtools::vbench;
using namespace vtools::vbench::testing;

TEST_CASE("show: a document read back gives the table and csv the run gave; mistyped fields are named") {
  NotingBackend backend;
  HarnessSettings s;
  s.shapes = shapes_of({1, 2}, {4});
  s.iters = 3;
  const GptConfig& c = kSmall;
  BenchRun run = run_benchmarks({{c, nullptr}}, s, backend);
  run.results[1].clocks = ClockReading{1755, 1980, {"sw_power_cap"}};
  OrderedJson doc = bench_document(run, {"vbench run", "host"});
  const BenchRun back = read_bench_run(doc, "run.json");
  for (const char* format : {"table", "markdown", "csv"}) {
    CAPTURE(format);
    std::ostringstream direct, read_back;
    write_bench_table(run, format, direct);
    write_bench_table(back, format, read_back);
    CHECK(read_back.str() == direct.str());
  }
  CHECK(back.results[0].plan_search->timed[2].median_ms == INFINITY);  // written as null
  CHECK(back.notes == run.notes);
  doc["benchmarks"]["small/B:2/T:4"]["correctness"]["passed"] = "yes";
  CHECK_THROWS_WITH_AS(read_bench_run(doc, "run.json"),
                       "run.json: benchmarks.small/B:2/T:4.correctness.passed: expected true or false, got \"yes\"", Error);
  doc["benchmarks"]["small/B:2/T:4"]["correctness"]["passed"] = true;
  doc["metadata"]["dtype"] = "fp64";
  CHECK_THROWS_WITH_AS(read_bench_run(doc, "run.json"),
                       "run.json: metadata.dtype: expected \"fp32\", \"tf32\" or \"bf16\", got \"fp64\"", Error);
}

TEST_CASE("pinned forwards: the cpu backend takes none; a document must name forwards of this run's dtype, once") {
  auto cpu = make_cpu_backend();
  CHECK_NOTHROW(cpu->pin_forward(std::nullopt));
  CHECK_THROWS_WITH_AS(cpu->pin_forward(ForwardPin{"unfused", {}, "", "", "--forward"}),
                       "the cpu backend has one forward: --forward needs cuda", Error);

  NotingBackend searching;
  const OrderedJson doc = bench_document(run_benchmarks({{kSmall, nullptr}}, unchecked({{1, 4}}, 1), searching),
                                         {"vbench run", "host"});
  const ForwardPins pins = read_forward_pins(doc, "main.json", DType::kFp32);
  REQUIRE(pins.per_benchmark.size() == 1);
  CHECK(pins.per_benchmark[0].config == "small");
  CHECK(pins.per_benchmark[0].shape == Shape{1, 4});
  CHECK(pins.find("small", {1, 4}).has_value());
  CHECK_FALSE(pins.find("small", {1, 5}).has_value());
  try {
    read_forward_pins(doc, "main.json", DType::kBf16);
    FAIL("a bf16 run took fp32 forwards");
  } catch (const Error& e) {
    CHECK(e.code() == ExitCode::kUsage);
    CHECK(std::string(e.what()) == "main.json: benchmark 'small' ran in fp32 and this run is bf16: pass --dtype "
                                   "fp32 to run the forwards it kept");
  }

  // Two runs merged: the same forward twice is one pin; two different ones at one config and shape are refused.
  OrderedJson merged = doc;
  merged["benchmarks"]["small@2"] = doc["benchmarks"]["small"];
  CHECK(read_forward_pins(merged, "all.json", DType::kFp32).per_benchmark.size() == 1);
  merged["benchmarks"]["small@2"]["plan_search"]["kept"] = "unfused";
  try {
    read_forward_pins(merged, "all.json", DType::kFp32);
    FAIL("two forwards for one benchmark were taken");
  } catch (const Error& e) {
    CHECK(e.code() == ExitCode::kDataError);
    CHECK(std::string(e.what()).find("benchmark 'small@2'") != std::string::npos);
    CHECK(std::string(e.what()).find("names another forward for small at B=1 T=4") != std::string::npos);
  }

  // A document without a kept forward (the cpu backend's) pins nothing: refused, not silently searched.
  auto plain = make_cpu_backend();
  const OrderedJson cpu_doc =
      bench_document(run_benchmarks({{kSmall, nullptr}}, unchecked({{1, 4}}, 1), *plain), {"vbench run", "host"});
  CHECK_THROWS_WITH_AS(read_forward_pins(cpu_doc, "cpu.json", DType::kFp32),
                       "cpu.json: no benchmark names the forward its prepare kept (plan_search.kept): only cuda runs "
                       "record one", Error);
}
