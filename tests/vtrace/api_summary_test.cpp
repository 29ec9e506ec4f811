// summary --api: blocking calls per function, queue delay, GPU idle told apart by whether the host was blocked; the
// JSON reader and writer keep api_calls.
#include <doctest/doctest.h>

#include "tools/vtrace/api_summary.hpp"
#include "tools/vtrace/api_summary_writer.hpp"
#include "formats/trace/trace_reader.hpp"
#include "formats/trace/trace_writer.hpp"

using namespace vtools::vtrace;

namespace {

Kernel kernel(std::uint64_t start, std::uint64_t end, std::optional<std::uint64_t> launch = std::nullopt) {
  Kernel k;
  k.name = "k";
  k.process_id = 10;
  k.start_ns = start;
  k.end_ns = end;
  k.launch_ns = launch;
  return k;
}

}  // namespace

TEST_CASE("api_summary: idle_covered counts only the gaps between busy intervals that a blocked interval covers") {
  using V = std::vector<std::pair<std::uint64_t, std::uint64_t>>;
  CHECK(union_ns(V{{0, 10}, {5, 20}, {30, 40}}) == 30);
  // gaps [10, 30) and [40, 50); blocked over [0, 15), [25, 45), [60, 70): 5 + 5 + 5 covered
  CHECK(idle_covered(V{{40, 50}, {0, 10}, {30, 40}, {50, 60}}, V{}) == 0);
  CHECK(idle_covered(V{{0, 10}, {30, 40}, {45, 60}}, V{{0, 15}, {25, 45}, {60, 70}}) == 5 + 5 + 5);
  CHECK(idle_covered(V{{0, 10}, {30, 40}}, V{{12, 14}, {13, 20}, {35, 100}}) == 8);  // overlapping calls once
}

TEST_CASE("api_summary: per function totals and shares, queue delay, per-device idle with the blocked part") {
  Trace t;
  t.run.api = true;
  Device d;
  d.id = 0;
  d.name = "NVIDIA H200";
  t.devices.push_back(d);
  t.kernels = {kernel(100, 200, 90), kernel(500, 600, 480), kernel(1000, 1100, 700)};
  t.api_calls = {{"cudaStreamSynchronize", 10, 1, 210, 400, 1},  // host blocked over most of the 200-500 gap
                 {"cudaStreamSynchronize", 10, 1, 610, 650, 2},
                 {"cudaMemcpy", 10, 1, 650, 900, 3}};
  const ApiSummary s = summarize_api(t);
  CHECK(s.recorded);
  CHECK(s.calls == 3);
  CHECK(s.total_ns == 190 + 40 + 250);
  REQUIRE(s.functions.size() == 2);
  CHECK(s.functions[0].name == "cudaMemcpy");  // the larger total first
  CHECK(s.functions[1].name == "cudaStreamSynchronize");
  CHECK(s.functions[1].calls == 2);
  CHECK(s.functions[1].total_ns == 230);
  CHECK(s.functions[1].median_ns == doctest::Approx(115));
  CHECK(s.functions[1].min_ns == 40);
  CHECK(s.functions[1].max_ns == 190);
  CHECK(s.queue.kernels == 3);
  CHECK(s.queue.median_ns == doctest::Approx(20));
  CHECK(s.queue.max_ns == 300);
  REQUIRE(s.devices.size() == 1);
  CHECK(s.devices[0].name == "NVIDIA H200");
  CHECK(s.devices[0].span_ns == 1000);
  CHECK(s.devices[0].busy_ns == 300);
  CHECK(s.devices[0].idle_ns == 700);
  CHECK(s.devices[0].idle_host_blocked_ns == 190 + 40 + 250);
  const auto j = api_summary_to_json(s);
  CHECK(j["devices"][0]["idle_other_ns"] == 700 - 480);
  std::ostringstream table;
  write_api_summary_tables(s, false, table);
  CHECK(table.str().find("cudaStreamSynchronize") != std::string::npos);
}

TEST_CASE("api_summary: a launch call at time 0 is recorded; only a null launch_ns is left out of the queue delay") {
  Trace t;
  t.run.api = true;
  t.kernels = {kernel(0, 10, 0), kernel(100, 200, 40), kernel(300, 400)};
  const ApiSummary s = summarize_api(t);
  CHECK(s.queue.kernels == 2);
  CHECK(s.queue.median_ns == doctest::Approx(30));
  CHECK(s.queue.max_ns == 60);
  // The document keeps 0 apart from null: both survive a write and a read.
  std::string text;
  write_trace_document(t, [&](std::string_view piece) { text += piece; });
  const Trace back = read_trace(text, "t.json");
  REQUIRE(back.kernels.size() == 3);
  CHECK(back.kernels[0].launch_ns == std::optional<std::uint64_t>(0));
  CHECK(back.kernels[1].launch_ns == std::optional<std::uint64_t>(40));
  CHECK_FALSE(back.kernels[2].launch_ns.has_value());
}

// The kernel table showed "-" for one launch's std where this table showed "0.00 ns".
TEST_CASE("api_summary: a function called once has no standard deviation ('-'), as in the kernel table") {
  Trace t;
  t.run.api = true;
  t.api_calls = {{"cudaMemcpy", 10, 1, 0, 5000, 1}, {"cudaStreamSynchronize", 10, 1, 6000, 7000, 2},
                 {"cudaStreamSynchronize", 10, 1, 8000, 11000, 3}};
  std::ostringstream table;
  write_api_summary_tables(summarize_api(t), false, table);
  CHECK(table.str().find("5.00 us  5.00 us  5.00 us  5.00 us        -  cudaMemcpy\n") != std::string::npos);
  CHECK(table.str().find("1.00 us  3.00 us  1.41 us  cudaStreamSynchronize\n") != std::string::npos);
}

// Host and GPU clocks can disagree by more than a launch takes: such a kernel was silently dropped from the delays.
TEST_CASE("api_summary: a kernel that starts before its launch call is left out of the queue delay, counted, noted") {
  Trace t;
  t.run.api = true;
  t.kernels = {kernel(100, 200, 40), kernel(300, 400, 350), kernel(500, 600, 520), kernel(700, 800)};
  const ApiSummary s = summarize_api(t);
  CHECK(s.queue.kernels == 1);
  CHECK(s.queue.started_before_launch == 2);
  CHECK(s.queue.max_ns == 60);
  CHECK(api_summary_to_json(s)["queue_delay"]["started_before_launch"] == 2);
  std::ostringstream table;
  write_api_summary_tables(s, false, table);
  CHECK(table.str().find("Queue delay (kernel start - launch call): 1 kernel, median 60.0 ns, p90 60.0 ns, max 60.0 ns\n"
                         "note: 2 kernels start before their launch call (the host and GPU clocks disagree) and are "
                         "left out of the queue delay\n") != std::string::npos);
  // All of them early: no statistics, the note says why.
  t.kernels = {kernel(300, 400, 350)};
  std::ostringstream none;
  write_api_summary_tables(summarize_api(t), false, none);
  CHECK(none.str().find("launch call): no kernel starts at or after its launch call\n"
                        "note: 1 kernel starts before its launch call (the host and GPU clocks disagree) and is left "
                        "out of the queue delay\n") != std::string::npos);
}

TEST_CASE("api_summary: a trace without --api says how to get one") {
  std::ostringstream out;
  write_api_summary_tables(summarize_api(Trace{}), true, out);
  CHECK(out.str() == "no blocking CUDA calls recorded: trace with `vtrace run --api`\n");
}

TEST_CASE("api_summary: api_calls and run.api survive writing and reading the document") {
  Trace t;
  t.run.api = true;
  t.kernels = {kernel(100, 200, 90)};
  t.api_calls = {{"cuCtxSynchronize", 10, 3, 5, 50, 9}};
  std::string text;
  write_trace_document(t, [&](std::string_view piece) { text += piece; });
  const Trace back = read_trace(text, "t.json");
  CHECK(back.run.api);
  REQUIRE(back.api_calls.size() == 1);
  CHECK(back.api_calls[0].name == "cuCtxSynchronize");
  CHECK(back.api_calls[0].thread_id == 3);
  CHECK(back.api_calls[0].end_ns == 50);
  CHECK(back.api_calls[0].correlation_id == 9);
}
