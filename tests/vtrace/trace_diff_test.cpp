// vtrace diff: matching, intervals and verdicts, added/removed kernels, totals, the regression gate, the writers.
#include <doctest/doctest.h>

#include <cmath>
#include <random>
#include <sstream>

#include "libcommon/error.hpp"
#include "tools/vtrace/trace_diff.hpp"
#include "tools/vtrace/trace_diff_writer.hpp"
#include "formats/tracediff/tracediff_writer.hpp"

using namespace vtools::vtrace;

namespace {

/// `count` launches of `name`, back to back from `start`, each `dur` ns times a factor in [1 - noise, 1 + noise].
void add_launches(Trace& t, const std::string& name, int count, double dur, double noise, std::uint64_t& start,
                  std::mt19937_64& rng) {
  std::uniform_real_distribution<double> jitter(1 - noise, 1 + noise);
  for (int i = 0; i < count; ++i) {
    Kernel k;
    k.name = name;
    k.start_ns = start;
    k.end_ns = start + static_cast<std::uint64_t>(std::llround(dur * jitter(rng)));
    start = k.end_ns + 100;
    t.kernels.push_back(k);
  }
}

const KernelDiff& kernel(const TraceDiff& d, const std::string& name) {
  for (const auto& k : d.kernels)
    if (k.name == name) return k;
  FAIL("no kernel " << name);
  throw 0;
}

}  // namespace

TEST_CASE("trace diff: a trace against itself is all same, nothing added or removed, no regression") {
  std::mt19937_64 rng(1);
  Trace t;
  std::uint64_t at = 0;
  add_launches(t, "gemm", 40, 10000, 0.02, at, rng);
  add_launches(t, "softmax", 40, 2000, 0.02, at, rng);
  const TraceDiff d = diff_traces(t, t, {}, 0, "a.json", "a.json");
  REQUIRE(d.kernels.size() == 2);
  for (const auto& k : d.kernels) {
    CHECK(k.verdict == "same");
    CHECK(k.ratio == doctest::Approx(1));
    CHECK(k.interval.low <= 1);
    CHECK(k.interval.high >= 1);
    CHECK(k.interval_over == "launches");
    CHECK(k.code == "unknown");
    CHECK_FALSE(k.regression);
  }
  CHECK(d.added.empty());
  CHECK(d.removed.empty());
  CHECK_FALSE(d.has_regression());
  CHECK(d.base.launches == 80);
  CHECK(d.candidate.busy_ns == d.base.busy_ns);
}

TEST_CASE("trace diff: a 20% slowdown of one kernel is slower, a regression past 5%, and leads the table") {
  std::mt19937_64 rng(2);
  Trace base, cand;
  std::uint64_t a = 0, c = 0;
  add_launches(base, "gemm", 30, 10000, 0.03, a, rng);
  add_launches(base, "softmax", 30, 2000, 0.03, a, rng);
  add_launches(cand, "gemm", 30, 12000, 0.03, c, rng);
  add_launches(cand, "softmax", 30, 2000, 0.03, c, rng);
  const TraceDiff d = diff_traces(base, cand, {}, 5, "base", "cand");
  REQUIRE(d.kernels.size() == 2);
  CHECK(d.kernels[0].name == "gemm");  // the larger contribution to the change
  const KernelDiff& g = kernel(d, "gemm");
  CHECK(g.verdict == "slower");
  CHECK(g.ratio == doctest::Approx(1.2).epsilon(0.03));
  CHECK(g.interval.low > 1);
  CHECK(g.regression);
  CHECK(kernel(d, "softmax").verdict != "slower");
  CHECK(d.has_regression());
  // Past a 50% threshold the same slowdown is no regression (the busy time grew ~16%).
  const TraceDiff lenient = diff_traces(base, cand, {}, 50, "base", "cand");
  CHECK_FALSE(lenient.has_regression());
  // And a faster candidate is never one.
  const TraceDiff reverse = diff_traces(cand, base, {}, 0, "cand", "base");
  CHECK(kernel(reverse, "gemm").verdict == "faster");
  CHECK_FALSE(kernel(reverse, "gemm").regression);
}

TEST_CASE("trace diff: kernels on one side are added or removed, with their time") {
  std::mt19937_64 rng(3);
  Trace base, cand;
  std::uint64_t a = 0, c = 0;
  add_launches(base, "old_kernel", 3, 5000, 0, a, rng);
  add_launches(base, "shared", 3, 1000, 0, a, rng);
  add_launches(cand, "shared", 3, 1000, 0, c, rng);
  add_launches(cand, "new_kernel", 2, 7000, 0, c, rng);
  const TraceDiff d = diff_traces(base, cand, {}, -1, "b", "c");
  REQUIRE(d.added.size() == 1);
  CHECK(d.added[0].name == "new_kernel");
  CHECK(d.added[0].calls == 2);
  CHECK(d.added[0].total_ns == 14000);
  REQUIRE(d.removed.size() == 1);
  CHECK(d.removed[0].name == "old_kernel");
  REQUIRE(d.kernels.size() == 1);
  CHECK(d.kernels[0].interval_over == "few launches");
  CHECK(d.base.kernels == 2);
  CHECK(d.candidate.kernels == 2);
}

TEST_CASE("trace diff: verdicts without an interval, with a wide one, with a narrow one") {
  const double nan = std::nan("");
  CHECK(diff_verdict(1.3, {nan, nan}) == "ambiguous");  // one launch a side: 30% can be noise
  CHECK(diff_verdict(2.5, {nan, nan}) == "slower");
  CHECK(diff_verdict(0.4, {nan, nan}) == "faster");
  CHECK(diff_verdict(1.01, {0.99, 1.03}) == "same");
  CHECK(diff_verdict(1.01, {0.80, 1.30}) == "ambiguous");
  CHECK(diff_verdict(1.10, {1.02, 1.18}) == "slower");
  CHECK(diff_verdict(0.90, {0.85, 0.95}) == "faster");
  CHECK(diff_verdict(nan, {nan, nan}) == "ambiguous");
  std::mt19937_64 rng(4);
  Trace base, cand;
  std::uint64_t a = 0, c = 0;
  add_launches(base, "once", 1, 1000, 0, a, rng);
  add_launches(cand, "once", 1, 1300, 0, c, rng);
  const TraceDiff d = diff_traces(base, cand, {}, 0, "b", "c");
  CHECK(d.kernels[0].interval_over == "none");
  CHECK(d.kernels[0].verdict == "ambiguous");
  CHECK_FALSE(d.kernels[0].regression);
  CHECK(d.busy_regression);  // the busy time has no interval: the threshold alone decides
}

TEST_CASE("trace diff: --kernel and --graph select on each side") {
  std::mt19937_64 rng(5);
  Trace base, cand;
  std::uint64_t a = 0, c = 0;
  add_launches(base, "gemm", 5, 1000, 0, a, rng);
  add_launches(base, "norm", 5, 1000, 0, a, rng);
  add_launches(cand, "gemm", 5, 1000, 0, c, rng);
  TraceSelection only_gemm;
  only_gemm.kernel_regex = "gemm";
  const TraceDiff d = diff_traces(base, cand, only_gemm, -1, "b", "c");
  CHECK(d.kernels.size() == 1);
  CHECK(d.removed.empty());
  TraceSelection graph;
  graph.graph = "last";
  CHECK_THROWS_AS(diff_traces(base, cand, graph, -1, "b", "c"), vtools::Error);  // no graph in either
}

TEST_CASE("trace diff: the writers") {
  std::mt19937_64 rng(6);
  Trace base, cand;
  std::uint64_t a = 0, c = 0;
  add_launches(base, "gemm", 10, 10000, 0.01, a, rng);
  add_launches(base, "gone", 1, 500, 0, a, rng);
  add_launches(cand, "gemm", 10, 15000, 0.01, c, rng);
  const TraceDiff d = diff_traces(base, cand, {}, 10, "base.json", "cand.json");
  const auto j = trace_diff_document(d);
  CHECK(j["format"] == "vtools.tracediff");
  CHECK(j["base"]["file"] == "base.json");
  CHECK(j["kernels"][0]["verdict"] == "slower");
  CHECK(j["kernels"][0]["regression"] == true);
  CHECK(j["removed"][0]["name"] == "gone");
  CHECK(j["regression"] == true);
  std::ostringstream table;
  write_trace_diff_tables(d, false, table);
  CHECK(table.str().find("busy time") != std::string::npos);
  CHECK(table.str().find("slower (regression)") != std::string::npos);
  CHECK(table.str().find("removed (base only)") != std::string::npos);
  CHECK(table.str().find("REGRESSION beyond 10%") != std::string::npos);
  std::ostringstream csv;
  write_trace_diff_csv(d, csv);
  CHECK(csv.str().rfind("kernel,status,base_calls,", 0) == 0);
  CHECK(csv.str().find("\ngone,removed,1,") != std::string::npos);
}

TEST_CASE("trace diff: code same, changed or unknown from the kernels' code hashes; the likely cause of a change") {
  std::mt19937_64 rng(7);
  Trace base, cand;
  std::uint64_t a = 0, c = 0;
  add_launches(base, "recompiled", 10, 1000, 0.01, a, rng);
  add_launches(base, "throttled", 10, 1000, 0.01, a, rng);
  add_launches(base, "untraced_code", 10, 1000, 0.01, a, rng);
  add_launches(cand, "recompiled", 10, 1500, 0.01, c, rng);
  add_launches(cand, "throttled", 10, 1500, 0.01, c, rng);
  add_launches(cand, "untraced_code", 10, 1000, 0.01, c, rng);
  auto set_code = [](Trace& t, const std::string& name, const std::string& hash) {
    for (Kernel& k : t.kernels)
      if (k.name == name) k.code_hash = hash;
  };
  set_code(base, "recompiled", "00000000000000aa");
  set_code(cand, "recompiled", "00000000000000bb");
  set_code(base, "throttled", "00000000000000cc");
  set_code(cand, "throttled", "00000000000000cc");
  set_code(base, "untraced_code", "00000000000000dd");  // the candidate's trace has none
  const TraceDiff d = diff_traces(base, cand, {}, -1, "b", "c");
  CHECK(kernel(d, "recompiled").code == "changed");
  CHECK(kernel(d, "recompiled").likely_cause == "code");
  CHECK(kernel(d, "throttled").code == "same");
  CHECK(kernel(d, "throttled").likely_cause == "environment");
  CHECK(kernel(d, "untraced_code").code == "unknown");
  CHECK(kernel(d, "untraced_code").likely_cause.empty());
  // A name with two codes a side (both sides the same pair) leaves open which code ran: unknown, not "changed".
  Trace two_base = base, two_cand = cand;
  two_base.kernels[0].code_hash = two_cand.kernels[0].code_hash = "00000000000000ee";
  set_code(two_cand, "recompiled", "00000000000000aa");
  two_cand.kernels[0].code_hash = "00000000000000ee";
  const TraceDiff two = diff_traces(two_base, two_cand, {}, -1, "b", "c");
  CHECK(kernel(two, "recompiled").code == "unknown");
  CHECK(kernel(two, "recompiled").likely_cause.empty());
}

TEST_CASE("trace diff: a kernel launched thousands of times a side still gets its interval (a thinned bootstrap)") {
  std::mt19937_64 rng(8);
  Trace base, cand;
  std::uint64_t a = 0, c = 0;
  add_launches(base, "hot", 9000, 1000, 0.05, a, rng);
  add_launches(cand, "hot", 9000, 1100, 0.05, c, rng);
  const TraceDiff d = diff_traces(base, cand, {}, 5, "b", "c");
  const KernelDiff& k = kernel(d, "hot");
  CHECK(k.base_calls == 9000);
  CHECK(k.interval_over == "launches");
  CHECK(k.interval.low > 1.05);
  CHECK(k.interval.high < 1.15);
  CHECK(k.verdict == "slower");
  CHECK(k.regression);
}

TEST_CASE("trace diff: a name launched with several shapes is matched shape by shape") {
  std::mt19937_64 rng(7);
  Trace base, cand;
  std::uint64_t a = 0, c = 0;
  // An elementwise kernel over a small and a large tensor: only the large one slows down. Matched by name alone,
  // the medians of the mixture would hide it.
  auto shaped = [](Trace& t, std::size_t from, std::int64_t grid) {
    for (std::size_t i = from; i < t.kernels.size(); ++i) t.kernels[i].grid = {grid, 1, 1};
  };
  add_launches(base, "elementwise", 20, 1000, 0.02, a, rng);
  shaped(base, 0, 4);
  add_launches(base, "elementwise", 20, 50000, 0.02, a, rng);
  shaped(base, 20, 4096);
  add_launches(base, "gemm", 20, 10000, 0.02, a, rng);
  add_launches(cand, "elementwise", 20, 1000, 0.02, c, rng);
  shaped(cand, 0, 4);
  add_launches(cand, "elementwise", 20, 60000, 0.02, c, rng);
  shaped(cand, 20, 4096);
  add_launches(cand, "elementwise", 5, 3000, 0.02, c, rng);
  shaped(cand, 40, 16);
  add_launches(cand, "gemm", 20, 10000, 0.02, c, rng);
  const TraceDiff d = diff_traces(base, cand, {}, 5, "base", "cand");
  REQUIRE(d.kernels.size() == 3);
  CHECK(kernel(d, "gemm").launch_shape.empty());  // one shape: matched by name
  for (const KernelDiff& k : d.kernels) {
    if (k.launch_shape == "grid 4x1x1 block 1x1x1") CHECK(k.verdict == "same");
    if (k.launch_shape == "grid 4096x1x1 block 1x1x1") {
      CHECK(k.verdict == "slower");
      CHECK(k.ratio == doctest::Approx(1.2).epsilon(0.03));
    }
  }
  CHECK(d.kernels[0].launch_shape == "grid 4096x1x1 block 1x1x1");
  REQUIRE(d.added.size() == 1);  // the shape only the candidate ran
  CHECK(d.added[0].name == "elementwise");
  CHECK(d.added[0].launch_shape == "grid 16x1x1 block 1x1x1");
  std::ostringstream table;
  write_trace_diff_tables(d, false, table);
  CHECK(table.str().find("elementwise [grid 4096x1x1 block 1x1x1]") != std::string::npos);
  CHECK(trace_diff_document(d)["kernels"][0]["launch_shape"] == "grid 4096x1x1 block 1x1x1");
  CHECK(trace_diff_document(d)["kernels"][2]["launch_shape"].is_null() ==
        (d.kernels[2].name == "gemm"));
}

TEST_CASE("trace diff: graph replays are split where a node runs again, and compared per replay") {
  // A 3-node graph replayed 12 times; the candidate's replays take 10% longer through its middle node.
  auto replays = [](double middle_ns, std::uint32_t graph) {
    Trace t;
    std::uint64_t at = 1000;
    std::mt19937_64 rng(graph);
    std::uniform_real_distribution<double> jitter(0.99, 1.01);
    for (int r = 0; r < 12; ++r) {
      for (std::uint64_t node = 1; node <= 3; ++node) {
        Kernel k;
        k.name = "node" + std::to_string(node);
        k.graph_id = graph;
        k.graph_node_id = node;
        k.start_ns = at;
        k.end_ns = at + static_cast<std::uint64_t>((node == 2 ? middle_ns : 1000) * jitter(rng));
        at = k.end_ns + 10;
        t.kernels.push_back(k);
      }
      at += 5000;  // host time between replays: not part of a replay
    }
    return t;
  };
  const Trace base = replays(2000, 3), cand = replays(2400, 5);
  std::vector<const Kernel*> ks;
  for (const Kernel& k : base.kernels) ks.push_back(&k);
  const std::vector<double> spans = graph_replay_spans(ks);
  REQUIRE(spans.size() == 12);
  CHECK(spans[0] == doctest::Approx(4020).epsilon(0.02));
  TraceSelection last;
  last.graph = "last";
  const TraceDiff d = diff_traces(base, cand, last, 5, "base", "cand");
  REQUIRE(d.replays);
  CHECK(d.replays->base_graph == 3);
  CHECK(d.replays->candidate_graph == 5);
  CHECK(d.replays->base_replays == 12);
  CHECK(d.replays->verdict == "slower");
  CHECK(d.replays->ratio == doctest::Approx(4420.0 / 4020).epsilon(0.02));
  CHECK(d.replays->regression);
  CHECK(d.has_regression());
  CHECK(trace_diff_document(d)["replays"]["base"]["replays"] == 12);
  CHECK(trace_diff_document(diff_traces(base, cand, {}, 5, "b", "c"))["replays"].is_null());
}

TEST_CASE("trace diff: one launch shape a side, different between the sides, is still one kernel matched by name") {
  // A Triton kernel recompiled with BLOCK 512 instead of 1024: twice the grid, same name. (On the H200 the shape keys
  // once made it one removed and one added kernel, hiding its changed code.)
  std::mt19937_64 rng(9);
  Trace base, cand;
  std::uint64_t a = 0, c = 0;
  add_launches(base, "add_kernel", 3, 1000, 0.01, a, rng);
  add_launches(cand, "add_kernel", 3, 1100, 0.01, c, rng);
  for (Kernel& k : base.kernels) k.grid = {10, 1, 1}, k.code_hash = "aaaa";
  for (Kernel& k : cand.kernels) k.grid = {20, 1, 1}, k.code_hash = "bbbb";
  const TraceDiff d = diff_traces(base, cand, {}, -1, "b", "c");
  REQUIRE(d.kernels.size() == 1);
  CHECK(d.kernels[0].launch_shape.empty());
  CHECK(d.kernels[0].code == "changed");
  CHECK(d.added.empty());
  CHECK(d.removed.empty());
}

TEST_CASE("trace diff: swapping the traces gives the reciprocal interval ('slower' one way and 'same' the other)") {
  std::mt19937_64 rng(7);
  Trace big, small;
  std::uint64_t a = 0, b = 0;
  add_launches(big, "k", 5000, 1030, 0.05, a, rng);  // thinned to the bootstrap's cap
  add_launches(small, "k", 5, 1000, 0.05, b, rng);
  const TraceDiff there = diff_traces(small, big, {}, -1, "s", "b");
  const TraceDiff back = diff_traces(big, small, {}, -1, "b", "s");
  REQUIRE(there.kernels.size() == 1);
  REQUIRE(back.kernels.size() == 1);
  CHECK(there.kernels[0].interval.low == doctest::Approx(1 / back.kernels[0].interval.high).epsilon(1e-12));
  CHECK(there.kernels[0].interval.high == doctest::Approx(1 / back.kernels[0].interval.low).epsilon(1e-12));
  const std::string& v = back.kernels[0].verdict;
  CHECK(there.kernels[0].verdict == (v == "slower" ? "faster" : v == "faster" ? "slower" : v));
}
