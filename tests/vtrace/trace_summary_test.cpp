// Summary arithmetic, invariants, and the writers' output.
#include <doctest/doctest.h>

#include <sstream>

#include "tools/vtrace/summary_writer.hpp"
#include "tools/vtrace/trace_summary.hpp"

using namespace vtools::vtrace;

namespace {

Kernel launch(const std::string& name, std::uint64_t start, std::uint64_t dur, Dim3 grid, std::uint32_t regs = 10) {
  Kernel k;
  k.name = name;
  k.start_ns = start;
  k.end_ns = start + dur;
  k.grid = grid;
  k.block = {128, 1, 1};
  k.registers_per_thread = regs;
  k.static_shared_bytes = 512;
  return k;
}

Trace three_kernels() {
  Trace t;
  t.kernels = {launch("a", 0, 100, {1, 1, 1}), launch("a", 200, 300, {1, 1, 1}, 12), launch("b", 600, 700, {2, 1, 1}),
               launch("a", 1300, 200, {4, 1, 1})};
  t.memcpys = {{"htod", 1000, 1000, 1500, 0, 0, 0, 0}, {"htod", 3000, 2000, 2500, 0, 0, 0, 0},
               {"dtoh", 500, 3000, 3250, 0, 0, 0, 0}};
  return t;
}

}  // namespace

TEST_CASE("trace_summary: per-kernel calls, total, mean, min, max and share") {
  TraceSummary s = summarize_trace(three_kernels());
  REQUIRE(s.kernels.size() == 2);
  const KernelStats& b = s.kernels[0];  // 700 ns in one call: the largest total comes first
  const KernelStats& a = s.kernels[1];  // 100 + 300 + 200 ns
  CHECK(b.name == "b");
  CHECK(a.calls == 3);
  CHECK(a.total_ns == doctest::Approx(600));
  CHECK(a.mean_ns == doctest::Approx(200));
  CHECK(a.min_ns == doctest::Approx(100));
  CHECK(a.max_ns == doctest::Approx(300));
  CHECK(a.grid_varies);
  CHECK(a.registers_per_thread == 12);
  CHECK(a.shared_bytes == 512);
  CHECK(s.gpu_time_ns == doctest::Approx(1300));
  CHECK(a.share == doctest::Approx(600.0 / 1300));
  CHECK(b.share == doctest::Approx(700.0 / 1300));
  CHECK(s.launches == 4);
  CHECK(s.span_ns == 3250);  // first kernel at 0, last dtoh copy ends at 3250
}

TEST_CASE("trace_summary: shares sum to one and min <= mean <= max for every kernel") {
  Trace t = three_kernels();
  t.kernels.push_back(launch("c", 5000, 1, {1, 1, 1}));
  TraceSummary s = summarize_trace(t);
  double share = 0;
  for (const auto& k : s.kernels) {
    share += k.share;
    CHECK(k.min_ns <= k.mean_ns);
    CHECK(k.mean_ns <= k.max_ns);
  }
  CHECK(share == doctest::Approx(1.0));
  for (std::size_t i = 1; i < s.kernels.size(); ++i) CHECK(s.kernels[i - 1].total_ns >= s.kernels[i].total_ns);
}

TEST_CASE("trace_summary: memcpy totals by direction with bandwidth") {
  TraceSummary s = summarize_trace(three_kernels());
  REQUIRE(s.copies.size() == 2);
  CHECK(s.copies[0].kind == "dtoh");
  CHECK(s.copies[1].kind == "htod");
  CHECK(s.copies[1].count == 2);
  CHECK(s.copies[1].bytes == 4000);
  CHECK(s.copies[1].total_ns == doctest::Approx(1000));
  CHECK(s.copies[1].gb_per_s == doctest::Approx(4.0));
}

TEST_CASE("trace_summary: access totals weight sectors per request by request count") {
  Trace t;
  Access x;
  x.kernel = "k";
  x.loads = 30;
  x.sectors_per_request = 4;
  x.bytes_loaded = 120;
  Access y = x;
  y.block = {1, 0, 0};
  y.loads = 10;
  y.sectors_per_request = 8;
  Access bulk = x;  // two cp.async.bulk copies and 10 warp-level loads: only the 10 weigh in
  bulk.block = {2, 0, 0};
  bulk.loads = 12;
  bulk.bulk_copies = 2;
  bulk.sectors_per_request = 5;
  t.accesses = {x, y, bulk};
  t.findings.push_back(Finding{});
  t.findings.back().kernel = "k";
  t.tma_kernels = {"tma"};
  TraceSummary s = summarize_trace(t);
  REQUIRE(s.accesses.size() == 2);
  CHECK(s.accesses[0].kernel == "k");
  CHECK(s.accesses[0].blocks == 3);
  CHECK(s.accesses[0].launches == 1);
  CHECK(s.accesses[0].bytes_loaded == 360);
  CHECK(s.accesses[0].sectors_per_request == doctest::Approx((30 * 4 + 10 * 8 + 10 * 5) / 50.0));
  CHECK(s.accesses[0].findings == 1);
  CHECK(s.accesses[1].tma);
}

TEST_CASE("summary_writer: JSON carries every kernel row; tables carry every kernel name") {
  TraceSummary s = summarize_trace(three_kernels());
  auto j = summary_to_json(s);
  CHECK(j["launches"] == 4);
  REQUIRE(j["kernels"].size() == 2);
  CHECK(j["kernels"][0]["grid"].size() == 3);
  std::ostringstream text, md;
  write_summary_tables(s, false, text);
  write_summary_tables(s, true, md);
  CHECK(text.str().find("4 kernel launches, 1.30 us of GPU time\n") == 0);
  CHECK(text.str().find("varies") != std::string::npos);
  CHECK(md.str().find("| kernel |") != std::string::npos);
  CHECK(md.str().find("| htod ") != std::string::npos);
}
