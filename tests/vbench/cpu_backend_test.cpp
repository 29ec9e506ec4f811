// The cpu backend: its measured peaks (and the note that says how noisy they were), its timing primitives.
#include "tools/vbench/cpu_backend.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <sstream>
#include <utility>

#include "libcommon/error.hpp"
#include "tests/vbench/noting_backend.hpp"
#include "tools/vbench/bench_document.hpp"
#include "tools/vbench/bench_table.hpp"
#include "tools/vbench/weight_init.hpp"

using namespace vtools;
using namespace vtools::vbench;
using namespace vtools::vbench::testing;

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

TEST_CASE("cpu backend: the timing primitives time the forwards announced, no more; a flush reads a cache's size") {
  auto backend = make_cpu_backend();
  const GptWeights weights = init_weights(kSmall, 1);  // prepare keeps a reference
  backend->prepare(weights, 1, 4, DType::kFp32);
  const std::vector<std::int32_t> tokens = make_tokens(1, 4, kSmall.vocab_size, 1);
  backend->begin_timing(tokens, 2);
  backend->run_forward(false);  // a warm-up: no sample
  backend->flush_caches();
  backend->run_forward(true);
  backend->run_forward(true);
  try {
    backend->run_forward(true);
    FAIL("a third timed forward was taken after begin_timing announced two");
  } catch (const Error& e) {
    CHECK(e.code() == ExitCode::kInternal);
  }
  const std::vector<double> ms = backend->end_timing();
  REQUIRE(ms.size() == 2);
  for (const double x : ms) CHECK(x > 0);
  backend->begin_timing(tokens, 0);
  CHECK(backend->end_timing().empty());  // a new timing starts with no samples
  CHECK(cache_flush_bytes() >= (1u << 20));
  CHECK(cache_flush_bytes() <= (std::size_t{1} << 30));
}
