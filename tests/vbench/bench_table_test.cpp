// write_bench_table: the lines under the table (clocks, plan search) and what the document keeps of them.
#include "tools/vbench/bench_table.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <sstream>
#include <utility>

#include "libcommon/error.hpp"
#include "tests/vbench/noting_backend.hpp"
#include "tools/vbench/bench_document.hpp"
#include "tools/vbench/cpu_backend.hpp"

using namespace vtools;
using namespace vtools::vbench;
using namespace vtools::vbench::testing;

TEST_CASE("bench table: a GPU below its maximum clock while timed gets a line saying so; the cpu none") {
  auto backend = make_cpu_backend();
  BenchRun run = run_benchmarks({{kSmall, nullptr}}, unchecked({{1, 4}}, 2), *backend);
  CHECK_FALSE(run.results[0].clocks.has_value());
  CHECK_FALSE(bench_document(run, {"vbench run", "host"})["benchmarks"]["small"].contains("clocks"));
  run.results[0].clocks = ClockReading{1755, 1980, {"sw_power_cap"}};
  std::ostringstream table;
  write_bench_table(run, "table", table);
  CHECK(table.str().find("small: SM clock 1755 of 1980 MHz while timed (sw_power_cap)\n") != std::string::npos);
  CHECK(bench_document(run, {"vbench run", "host"})["benchmarks"]["small"]["clocks"]["limits"][0] == "sw_power_cap");
  run.results[0].clocks = ClockReading{1980, 1980, {}};
  std::ostringstream at_max;
  write_bench_table(run, "table", at_max);
  CHECK(at_max.str().find("SM clock") == std::string::npos);
}

TEST_CASE("plan search: recorded per config, written with null for a forward that could not run, in the table") {
  NotingBackend backend;
  BenchRun run = run_benchmarks({{kSmall, nullptr}}, unchecked({{1, 4}}, 2), backend);
  REQUIRE(run.results[0].plan_search.has_value());
  const OrderedJson doc = bench_document(run, {"vbench run", "host"});
  const OrderedJson& search = doc["benchmarks"]["small"]["plan_search"];
  CHECK(search["kept"] == "fused small");
  CHECK(search["replays"] == 15);
  REQUIRE(search["timed"].size() == 4);
  CHECK(search["timed"][1]["median_ms"] == 0.050);
  CHECK(search["timed"][2]["median_ms"].is_null());
  CHECK(search["playoff"]["rounds"] == 4);
  CHECK(search["playoff"]["replays"] == 60);
  CHECK(search["playoff"]["timed"][1]["forward"] == "close");
  CHECK(search["rejected"][0]["forward"] == "wrong");
  CHECK(read_bench_entries(doc, "run.json")[0].kept_forward == "fused small");
  std::ostringstream table;
  write_bench_table(run, "table", table);
  // The margin comes from the playoff's medians (0.052 / 0.050), not from the first timing's (0.051).
  CHECK(table.str().find("small: kept the fastest of 4 forwards timed at prepare (next +4.0%): fused small\n") !=
        std::string::npos);
  run.results[0].plan_search->playoff.clear();
  std::ostringstream no_playoff;
  write_bench_table(run, "table", no_playoff);
  CHECK(no_playoff.str().find("(next +2.0%)") != std::string::npos);
  run.results[0].plan_search.reset();
  CHECK_FALSE(bench_document(run, {"vbench run", "host"})["benchmarks"]["small"].contains("plan_search"));
}
