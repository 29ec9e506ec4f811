// run_benchmarks: the steps per config and shape (pins, prepare, gate, timing, repetitions), sweeps, notes.
#include "tools/vbench/harness.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <sstream>
#include <utility>

#include "libcommon/error.hpp"
#include "tests/vbench/noting_backend.hpp"
#include "tools/vbench/bench_document.hpp"
#include "tools/vbench/bench_table.hpp"
#include "tools/vbench/cpu_backend.hpp"

using namespace vtools;
using namespace vtools::vbench;
using namespace vtools::vbench::testing;

TEST_CASE("harness: a cpu run is gated against fp64, timed, and its summary is ordered") {
  auto backend = make_cpu_backend();
  HarnessSettings s;
  s.shapes = {{2, 20}};
  s.warmup = 1;
  s.iters = 9;
  const GptConfig c{"small", 2, 2, 16, 97, 32, true};
  const BenchRun run = run_benchmarks({{c, nullptr}}, s, *backend);
  REQUIRE(run.results.size() == 1);
  const ConfigResult& r = run.results[0];
  CHECK(r.status == "ok");
  REQUIRE(r.correctness);
  CHECK(r.correctness->passed);
  CHECK(r.correctness->reference == "fp64-naive");
  CHECK(r.correctness->compared_rows == 16);  // the first 16 positions of sequence 0
  CHECK(r.samples_ms.size() == 9);
  const auto& t = r.timing;
  CHECK(t.min <= t.p5);
  CHECK(t.p5 <= t.median);
  CHECK(t.median <= t.p95);
  CHECK(t.p95 <= t.max);
  CHECK(r.tokens_per_s == doctest::Approx(1e3 * 40 / t.median));
  CHECK(r.cost.flops > 0);
}

TEST_CASE("harness: cold caches are timed the same way and recorded in the document") {
  auto backend = make_cpu_backend();
  HarnessSettings s;
  s.shapes = {{1, 4}};
  s.warmup = 1;
  s.iters = 3;
  s.caches = CacheState::kCold;
  const GptConfig& c = kSmall;
  const BenchRun run = run_benchmarks({{c, nullptr}}, s, *backend);
  REQUIRE(run.results.size() == 1);
  CHECK(run.results[0].samples_ms.size() == 3);
  const OrderedJson doc = bench_document(run, {"vbench run --caches cold", "host"});
  CHECK(doc["metadata"]["caches"] == "cold");
  CHECK(doc["benchmarks"]["small"]["caches"] == "cold");
  CHECK(read_bench_entries(doc, "d.json")[0].caches == "cold");
  CHECK(parse_cache_state("warm") == CacheState::kWarm);
  CHECK_THROWS_WITH_AS(parse_cache_state("hot"), "--caches must be warm or cold, not 'hot'", Error);
}

TEST_CASE("harness: verify runs the gate only; --no-check times without it") {
  auto backend = make_cpu_backend();
  HarnessSettings s;
  s.shapes = {{1, 4}};
  s.iters = 2;
  const GptConfig& c = kSmall;
  s.time = false;
  BenchRun run = run_benchmarks({{c, nullptr}}, s, *backend);
  CHECK(run.results[0].status == "passed");
  CHECK(run.results[0].samples_ms.empty());
  s.time = true;
  s.check = false;
  run = run_benchmarks({{c, nullptr}}, s, *backend);
  CHECK(run.results[0].status == "unchecked");
  CHECK_FALSE(run.results[0].correctness);
  CHECK(run.results[0].samples_ms.size() == 2);
  const OrderedJson doc = bench_document(run, {"vbench run", "host"});
  CHECK(doc["benchmarks"]["small"]["timing"]["samples_ms"].size() == 2);
  CHECK(doc["metadata"]["gpu_name"].is_null());
}

TEST_CASE("harness: a sequence longer than the block size is a usage error; tokens are deterministic") {
  auto backend = make_cpu_backend();
  HarnessSettings s;
  s.shapes = {{4, 9}};
  const GptConfig c{"short", 1, 1, 8, 13, 8, true};
  CHECK_THROWS_WITH_AS(run_benchmarks({{c, nullptr}}, s, *backend), "--seq 9 exceeds the block size 8 of config 'short'",
                       Error);
  CHECK(make_tokens(2, 3, 50257, 1) == make_tokens(2, 3, 50257, 1));
  CHECK(make_tokens(2, 3, 50257, 1) != make_tokens(2, 3, 50257, 2));
  for (auto t : make_tokens(4, 64, 7, 3)) CHECK((t >= 0 && t < 7));
}

TEST_CASE("harness: the notes of every prepared model are kept, each distinct one once") {
  NotingBackend backend;
  const HarnessSettings s = unchecked({{1, 4}}, 1);
  const GptConfig a{"a", 1, 1, 8, 13, 8, true}, b{"b", 1, 1, 8, 13, 8, true};
  const BenchRun run = run_benchmarks({{a, nullptr}, {b, nullptr}}, s, backend);
  CHECK(run.notes == std::vector<std::string>{"shared", "kept for a", "kept for b"});
}

TEST_CASE("sweep: every config at every (B, T), keyed config/B:b/T:t, each with its own shape") {
  NotingBackend backend;
  HarnessSettings s = unchecked(shapes_of({1, 2}, {4, 8}), 2);
  REQUIRE(s.shapes == std::vector<Shape>{{1, 4}, {1, 8}, {2, 4}, {2, 8}});  // batches outer
  const GptConfig& c = kSmall;
  const BenchRun run = run_benchmarks({{c, nullptr}}, s, backend);
  REQUIRE(run.results.size() == 4);
  CHECK(backend.prepares == 4);
  CHECK(run.results[1].name == "small/B:1/T:8");
  CHECK(run.results[1].shape == Shape{1, 8});
  CHECK(run.results[3].cost.flops > run.results[0].cost.flops);
  CHECK(run.results[2].tokens_per_s == doctest::Approx(1e3 * 2 * 4 / run.results[2].timing.median));
  const OrderedJson doc = bench_document(run, {"vbench run", "host"});
  CHECK(doc["metadata"]["batch_size"].is_null());
  CHECK(doc["metadata"]["sweep"]["batch_sizes"] == OrderedJson::array({1, 2}));
  CHECK(doc["metadata"]["sweep"]["seq_lens"] == OrderedJson::array({4, 8}));
  CHECK(doc["benchmarks"]["small/B:2/T:4"]["batch_size"] == 2);
  CHECK(doc["benchmarks"]["small/B:2/T:4"]["seq_len"] == 4);
  const std::vector<BenchEntry> entries = read_bench_entries(doc, "sweep.json");
  CHECK(entries[3].name == "small/B:2/T:8");
  CHECK(entries[3].batch_size == 2);
  std::ostringstream table;
  write_bench_table(run, "table", table);
  CHECK(table.str().find("B=") == std::string::npos);  // no one shape for the header
  CHECK(table.str().find("small/B:2/T:8") != std::string::npos);
  // One shape: keys and metadata as documents always had them.
  s.shapes = shapes_of({1}, {4});
  const OrderedJson single = bench_document(run_benchmarks({{c, nullptr}}, s, backend), {"vbench run", "host"});
  CHECK(single["benchmarks"].contains("small"));
  CHECK(single["metadata"]["batch_size"] == 1);
  CHECK_FALSE(single["metadata"].contains("sweep"));
}

TEST_CASE("sweep: bad lists, and a T over one config's block size, are refused before anything runs") {
  CHECK_THROWS_WITH_AS(shapes_of({4, 0}, {64}), "--batch and --seq must be positive", Error);
  CHECK_THROWS_WITH_AS(shapes_of({4}, {64, 32, 64}), "--seq lists 64 twice", Error);
  CHECK_THROWS_WITH_AS(shapes_of({}, {64}), "--batch needs at least one value", Error);
  NotingBackend backend;
  HarnessSettings s;
  s.shapes = shapes_of({1}, {4, 8});
  s.check = false;
  const GptConfig fits{"fits", 1, 1, 8, 13, 8, true}, short_block{"short", 1, 1, 8, 13, 4, true};
  CHECK_THROWS_WITH_AS(run_benchmarks({{fits, nullptr}, {short_block, nullptr}}, s, backend),
                       "--seq 8 exceeds the block size 4 of config 'short'", Error);
  CHECK(backend.prepares == 0);
}

TEST_CASE("min time: timed forwards continue until they add up to --min-time; the table shows their noise") {
  auto backend = make_cpu_backend();
  HarnessSettings s = unchecked({{1, 4}}, 2);
  s.min_time_s = 0.05;
  const BenchRun run = run_benchmarks({{kSmall, nullptr}}, s, *backend);
  const ConfigResult& r = run.results[0];
  double total_ms = 0;
  for (const double ms : r.samples_ms) total_ms += ms;
  CHECK(total_ms >= 50);
  CHECK(r.samples_ms.size() > 2);
  CHECK(r.timing.n == r.samples_ms.size());
  CHECK(bench_document(run, {"vbench run", "host"})["metadata"]["min_time_s"] == 0.05);
  std::ostringstream table;
  write_bench_table(run, "table", table);
  CHECK(table.str().find("noise") != std::string::npos);
  CHECK(table.str().find("%") != std::string::npos);
}

TEST_CASE("pinned forwards: each benchmark's prepare runs the forward a document kept; the rest search, noted") {
  NotingBackend first;
  const GptConfig a{"a", 1, 1, 8, 13, 8, true}, b{"b", 1, 1, 8, 13, 8, true};
  HarnessSettings s = unchecked({{1, 4}, {2, 4}}, 1);
  const OrderedJson kept = bench_document(run_benchmarks({{a, nullptr}}, s, first), {"vbench run", "host"});
  CHECK(kept["benchmarks"]["a/B:1/T:4"]["plan_search"]["gemm_algorithms"][0] ==
        OrderedJson({{"gemm", "qkv"}, {"candidate", 2}, {"of", 8}}));
  CHECK_FALSE(kept["benchmarks"]["a/B:1/T:4"]["plan_search"].contains("pinned_from"));

  s.pins = read_forward_pins(kept, "main.json", DType::kFp32);
  REQUIRE(s.pins.per_benchmark.size() == 2);
  s.shapes = {{2, 4}, {3, 4}};  // B=3 is not in main.json, nor is config b
  NotingBackend second;
  const BenchRun run = run_benchmarks({{a, nullptr}, {b, nullptr}}, s, second);
  REQUIRE(second.pins_seen.size() == 4);
  REQUIRE(second.pins_seen[0].has_value());
  CHECK(second.pins_seen[0]->forward == "fused a");
  CHECK(second.pins_seen[0]->from == "main.json");
  REQUIRE(second.pins_seen[0]->gemm_algorithms.size() == 2);
  CHECK(second.pins_seen[0]->gemm_algorithms[1].gemm == "LM head");
  CHECK(second.pins_seen[0]->gemm_algorithms[1].of == 5);
  CHECK_FALSE(second.pins_seen[1].has_value());
  CHECK_FALSE(second.pins_seen[2].has_value());
  CHECK_FALSE(second.pins_seen[3].has_value());
  CHECK(std::count(run.notes.begin(), run.notes.end(),
                   "a (B=3 T=4): main.json names no forward for it, so prepare chose one") == 1);
  CHECK(std::count(run.notes.begin(), run.notes.end(),
                   "b (B=2 T=4): main.json names no forward for it, so prepare chose one") == 1);

  const OrderedJson doc = bench_document(run, {"vbench run --forwards-from main.json", "host"});
  const OrderedJson& pinned = doc["benchmarks"]["a/B:2/T:4"]["plan_search"];
  CHECK(pinned["pinned_from"] == "main.json");
  CHECK(pinned["kept"] == "fused a");
  CHECK(pinned["timed"].empty());
  std::ostringstream table;
  write_bench_table(run, "table", table);
  CHECK(table.str().find("a/B:2/T:4: ran the forward main.json named (no search at prepare): fused a\n") !=
        std::string::npos);
  CHECK(table.str().find("a/B:3/T:4: kept the fastest of 4 forwards") != std::string::npos);
  // vbench show reads the pin and the GEMM algorithms back.
  const BenchRun back = read_bench_run(doc, "pr.json");
  REQUIRE(back.results[0].plan_search.has_value());
  CHECK(back.results[0].plan_search->pinned_from == "main.json");
  CHECK(back.results[0].plan_search->gemm_algorithms.size() == 2);
  CHECK(back.results[0].plan_search->gemm_algorithms[0].candidate == 2);

  // --forward: one forward for every benchmark.
  s.pins = {};
  s.pins.source = "--forward";
  s.pins.every = ForwardPin{"unfused", {}, "", "", "--forward"};
  NotingBackend third;
  run_benchmarks({{a, nullptr}, {b, nullptr}}, s, third);
  REQUIRE(third.pins_seen.size() == 4);
  for (const auto& pin : third.pins_seen) CHECK((pin && pin->forward == "unfused"));
}

TEST_CASE("repetitions: each benchmark timed N times, each after its own prepare of the same forward") {
  NotingBackend backend;
  HarnessSettings s = unchecked({{1, 4}}, 3);
  s.repetitions = 3;
  const BenchRun run = run_benchmarks({{kSmall, nullptr}}, s, backend);
  const ConfigResult& r = run.results[0];
  REQUIRE(r.repetitions.size() == 3);
  CHECK(r.samples_ms.size() == 9);
  CHECK(r.timing.n == 9);
  for (const Repetition& x : r.repetitions) CHECK(x.n == 3);
  CHECK(r.repetitions[1].median_ms == doctest::Approx(stats::median(std::vector<double>(
                                           r.samples_ms.begin() + 3, r.samples_ms.begin() + 6))));
  // Three prepares: the first searched; the others ran the forward it kept, with its GEMM algorithms.
  CHECK(backend.prepares == 3);
  REQUIRE(backend.pins_seen.size() == 3);
  CHECK_FALSE(backend.pins_seen[0].has_value());
  for (int i = 1; i < 3; ++i) {
    REQUIRE(backend.pins_seen[i].has_value());
    CHECK(backend.pins_seen[i]->forward == "fused small");
    CHECK(backend.pins_seen[i]->gemm_algorithms.size() == 2);
  }
  CHECK(r.plan_search->pinned_from.empty());  // the document tells the first prepare's search
  const OrderedJson doc = bench_document(run, {"vbench run --repetitions 3", "host"});
  CHECK(doc["metadata"]["repetitions"] == 3);
  REQUIRE(doc["benchmarks"]["small"]["repetitions"].size() == 3);
  CHECK(doc["benchmarks"]["small"]["repetitions"][2]["n"] == 3);
  const std::vector<BenchEntry> entries = read_bench_entries(doc, "r.json");
  REQUIRE(entries[0].repetitions.size() == 3);
  CHECK(entries[0].repetitions[0].median_ms == r.repetitions[0].median_ms);
  std::ostringstream table;
  write_bench_table(read_bench_run(doc, "r.json"), "table", table);
  CHECK(table.str().find("small: 3 repetitions, medians ") != std::string::npos);

  // One repetition (the default) writes none.
  s.repetitions = 1;
  NotingBackend once;
  const BenchRun single = run_benchmarks({{kSmall, nullptr}}, s, once);
  CHECK(single.results[0].repetitions.empty());
  CHECK_FALSE(bench_document(single, {"vbench run", "host"})["benchmarks"]["small"].contains("repetitions"));
}
