#include "tools/vbench/harness.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <sstream>
#include <utility>

#include "libcommon/error.hpp"
#include "tools/vbench/bench_document.hpp"
#include "tools/vbench/bench_table.hpp"
#include "tools/vbench/cpu_backend.hpp"

using namespace vtools;
using namespace vtools::vbench;

namespace {
/// Timed without the correctness gate: `iters` forwards at each of `shapes`, as most tests here want them.
HarnessSettings unchecked(std::vector<Shape> shapes, int iters) {
  HarnessSettings s;
  s.shapes = std::move(shapes);
  s.check = false;
  s.iters = iters;
  return s;
}

/// One layer of width 8 over 13 tokens: cheap enough for every harness test.
const GptConfig kSmall{"small", 1, 1, 8, 13, 8, true};
}  // namespace

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
  CHECK(cache_flush_bytes() >= (1u << 20));
  CHECK(cache_flush_bytes() <= (std::size_t{1} << 30));
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

namespace {
/// The cpu backend with a note per prepared model, one of them shared, and a plan search per model: notes and plan
/// searches as the cuda backend gives them.
class NotingBackend final : public Backend {
 public:
  [[nodiscard]] std::string name() const override { return cpu_->name(); }
  [[nodiscard]] DeviceInfo device() const override { return cpu_->device(); }
  void prepare(const GptWeights& weights, int B, int T, DType dtype) override {
    cpu_->prepare(weights, B, T, dtype);
    model_ = weights.config.name;
    ++prepares;
  }
  int prepares = 0;
  std::vector<float> logits(const std::vector<std::int32_t>& tokens) override { return cpu_->logits(tokens); }
  std::vector<double> time_forwards(const std::vector<std::int32_t>& tokens, int warmup, int iters,
                                    CacheState caches) override {
    return cpu_->time_forwards(tokens, warmup, iters, caches);
  }
  [[nodiscard]] std::vector<std::string> notes() const override { return {"shared", "kept for " + model_}; }
  /// Pins as the cuda backend takes them: the next prepares run the pinned forward, and say so.
  void pin_forward(const std::optional<ForwardPin>& pin) override {
    pin_ = pin;
    pins_seen.push_back(pin);
  }
  std::vector<std::optional<ForwardPin>> pins_seen;  ///< one per prepare, in order
  [[nodiscard]] std::optional<PlanSearch> plan_search() const override {
    PlanSearch search;
    search.gemm_algorithms = {{"qkv", 2, 8}, {"LM head", 0, 5}};
    if (pin_) {
      search.kept = pin_->forward;
      search.pinned_from = pin_->from;
      return search;
    }
    search.kept = "fused " + model_;
    search.replays = 15;
    search.timed = {{"unfused", 0.060}, {"fused " + model_, 0.050}, {"uncapturable", INFINITY}, {"close", 0.051}};
    search.playoff_rounds = 4;
    search.playoff_replays = 60;
    search.playoff = {{"fused " + model_, 0.050}, {"close", 0.052}};
    search.rejected = {{"wrong", "its logits are 1.00e+00 off the cuBLASLt forward's (limit 2e-02)"}};
    return search;
  }

 private:
  std::unique_ptr<Backend> cpu_ = make_cpu_backend();
  std::string model_;
  std::optional<ForwardPin> pin_;
};
}  // namespace

TEST_CASE("harness: the notes of every prepared model are kept, each distinct one once") {
  NotingBackend backend;
  const HarnessSettings s = unchecked({{1, 4}}, 1);
  const GptConfig a{"a", 1, 1, 8, 13, 8, true}, b{"b", 1, 1, 8, 13, 8, true};
  const BenchRun run = run_benchmarks({{a, nullptr}, {b, nullptr}}, s, backend);
  CHECK(run.notes == std::vector<std::string>{"shared", "kept for a", "kept for b"});
}

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
                       "run.json: benchmark 'small/B:2/T:4': field 'passed' has the wrong type", Error);
  doc["benchmarks"]["small/B:2/T:4"]["correctness"]["passed"] = true;
  doc["metadata"]["dtype"] = "fp64";
  CHECK_THROWS_WITH_AS(read_bench_run(doc, "run.json"),
                       "run.json: metadata: unknown dtype 'fp64'", Error);
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

TEST_CASE("cpu peaks: best of the repeats, the median repeat's slowdown as noise, and a note that says it") {
  // Issue 45, item 25: the cpu floor was re-measured every run with no word on how noisy it was, so "of floor"
  // read up to 112% on a busy machine.
  const BestOf b = best_of({0.030, 0.010, 0.012, 0.011, 0.020});
  CHECK(b.best_s == doctest::Approx(0.010));
  CHECK(b.noise == doctest::Approx(0.2));  // median 0.012
  CHECK(best_of({0.5}).noise == 0);
  CHECK(best_of({}).best_s == 0);
  CpuPeaks quiet{25.3e9, 412e9, 9, 0.04, 0.02};
  CHECK(cpu_peaks_note(quiet) == "cpu floor: peaks measured at the start of this run, best of 9: copy 25.3 GB/s "
                                 "(median repeat 4% slower), sgemm 412 GFLOP/s (median repeat 2% slower)");
  CpuPeaks busy{25.3e9, 412e9, 9, 0.04, 0.31};
  CHECK(cpu_peaks_note(busy) == "cpu floor: peaks measured at the start of this run, best of 9: copy 25.3 GB/s "
                                "(median repeat 4% slower), sgemm 412 GFLOP/s (median repeat 31% slower); the machine "
                                "was busy, so the floor may be too high and \"of floor\" may read over 100%");
  const CpuPeaks& measured = measured_cpu_peaks();
  CHECK(measured.repeats == kPeakRepeats);
  CHECK(measured.bandwidth_noise >= 0);
  CHECK(measured.flops_noise >= 0);
  // A cpu run's document carries the note; a run past its floor says so under the table.
  auto backend = make_cpu_backend();
  BenchRun run = run_benchmarks({{kSmall, nullptr}}, unchecked({{1, 4}}, 2), *backend);
  CHECK(std::count(run.notes.begin(), run.notes.end(), cpu_peaks_note(measured)) == 1);
  run.results[0].roofline_fraction = 1.12;
  std::ostringstream table;
  write_bench_table(run, "table", table);
  CHECK(table.str().find("small: 112.0% of the floor: the peaks the floor comes from were measured low; the "
                         "document's notes say how noisy\n") != std::string::npos);
}
