// Summary arithmetic, invariants, and the writers' output.
#include <doctest/doctest.h>

#include <sstream>

#include "libcommon/error.hpp"
#include "tools/vtrace/summary_writer.hpp"
#include "formats/trace/trace_summary.hpp"
#include "tools/vtrace/trace_selection.hpp"

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

/// A kernel of graph `graph`, node `node` (duration `dur` ns).
Kernel graph_launch(const std::string& name, std::uint32_t graph, std::uint64_t node, std::uint64_t start,
                    std::uint64_t dur) {
  Kernel k = launch(name, start, dur, {1, 1, 1});
  k.graph_id = graph;
  k.graph_node_id = node;
  return k;
}

/// three_kernels() then graph 5 (nodes 1-3: ln, mm, ln; 3 full launches and a fourth cut after its first node),
/// then graph 2 (one node, one launch) last of all.
Trace with_graphs() {
  Trace t = three_kernels();
  std::uint64_t at = 10000;
  for (int run = 0; run < 4; ++run) {
    t.kernels.push_back(graph_launch("ln", 5, 1, at, 20));
    if (run == 3) break;
    t.kernels.push_back(graph_launch("mm", 5, 2, at + 100, 60));
    t.kernels.push_back(graph_launch("ln", 5, 3, at + 200, 20));
    at += 1000;
  }
  t.kernels.push_back(graph_launch("candidate", 2, 9, 50000, 500));
  Access a;
  a.kernel = "a";
  t.accesses = {a};
  return t;
}

}  // namespace

TEST_CASE("trace_summary: per CUDA graph, launches are the most runs of any one node") {
  TraceSummary s = summarize_trace(with_graphs());
  REQUIRE(s.graphs.size() == 2);
  CHECK(s.graphs[0].id == 2);
  CHECK(s.graphs[0].launches == 1);
  const GraphStats& g = s.graphs[1];
  CHECK(g.id == 5);
  CHECK(g.launches == 4);  // node 1 ran 4 times; the cut launch ran node 1 only
  CHECK(g.kernel_nodes == 3);
  CHECK(g.kernels == 10);
  CHECK(g.gpu_time_ns == doctest::Approx(4 * 20 + 3 * 60 + 3 * 20));
  CHECK(g.gpu_time_per_launch_ns == doctest::Approx(320.0 / 4));
  CHECK(!s.graph);
  CHECK(s.kernels[0].calls_per_launch == 0);  // no graph selected: no per-launch figures
  CHECK(s.left_out_launches == 0);
}

TEST_CASE("trace_summary: --graph keeps one graph's kernels, with calls and time per graph launch") {
  const Trace t = with_graphs();
  TraceSummary s = summarize_trace(t, TraceSelection{"5", ""});
  REQUIRE(s.graph);
  CHECK(*s.graph == 5);
  CHECK(s.launches == 10);
  CHECK(s.left_out_launches == t.kernels.size() - 10);
  REQUIRE(s.graphs.size() == 1);
  REQUIRE(s.kernels.size() == 2);
  CHECK(s.kernels[0].name == "mm");
  CHECK(s.kernels[0].calls_per_launch == doctest::Approx(0.75));
  CHECK(s.kernels[0].time_per_launch_ns == doctest::Approx(180.0 / 4));
  CHECK(s.kernels[1].calls_per_launch == doctest::Approx(7.0 / 4));
  CHECK(s.copies.empty());    // copies and accesses are not tied to graph launches
  CHECK(s.accesses.empty());
  CHECK(*summarize_trace(t, TraceSelection{"last", ""}).graph == 2);  // the graph that launched last
  std::ostringstream text;
  write_summary_tables(s, false, text);
  // Graph 5's kernels never overlap: as busy as their summed time.
  CHECK(text.str().find("graph 5: 4 launches of 3 kernel nodes, 80.0 ns of kernel time and 80.0 ns busy per "
                        "launch\n") != std::string::npos);
  CHECK(s.kernels[0].exposed_per_launch_ns == doctest::Approx(180.0 / 4));
  CHECK(text.str().find("exposed/launch") != std::string::npos);
  CHECK(text.str().find("calls/launch") != std::string::npos);
  CHECK(text.str().find("0.75") != std::string::npos);
}

/// A programmatic chain on device 0 (each kernel starts while the one before runs and waits for it), a kernel wholly
/// inside another's run, an idle gap, and a kernel on device 1 at the same time as device 0's.
Trace overlapping() {
  Trace t;
  t.kernels = {launch("ln", 0, 100, {1, 1, 1}), launch("mm", 40, 160, {1, 1, 1}),  // mm adds 200 - 100
               launch("side", 50, 30, {1, 1, 1}),                                  // inside ln: adds nothing
               launch("ln", 180, 70, {1, 1, 1}),                                   // adds 250 - 200
               launch("mm", 1000, 100, {1, 1, 1})};                                // after a gap: all of it
  Kernel other = launch("mm", 0, 500, {1, 1, 1});
  other.device_id = 1;  // another device's clock of work: its own frontier
  t.kernels.push_back(other);
  return t;
}

TEST_CASE("trace_summary: exposed time is what each kernel adds to the time some kernel runs") {
  const TraceSummary s = summarize_trace(overlapping());
  CHECK(s.gpu_time_ns == doctest::Approx(100 + 160 + 30 + 70 + 100 + 500));
  CHECK(s.busy_ns == doctest::Approx(250 + 100 + 500));  // the gap from 250 to 1000 is idle
  auto kernel = [&](const std::string& name) {
    for (const auto& k : s.kernels) {
      if (k.name == name) return k;
    }
    FAIL("no kernel " << name);
    return KernelStats{};
  };
  CHECK(kernel("ln").exposed_ns == doctest::Approx(100 + 50));
  CHECK(kernel("mm").exposed_ns == doctest::Approx(100 + 100 + 500));
  CHECK(kernel("side").exposed_ns == 0);
  double sum = 0, shares = 0;
  for (const auto& k : s.kernels) {
    CHECK(k.exposed_ns <= k.total_ns);
    sum += k.exposed_ns;
    shares += k.exposed_share;
  }
  CHECK(sum == doctest::Approx(s.busy_ns));
  CHECK(shares == doctest::Approx(1.0));
  std::ostringstream text;
  write_summary_tables(s, false, text);
  CHECK(text.str().find("6 kernel launches, 960 ns of GPU time, 850 ns busy\n") != std::string::npos);
  const auto j = summary_to_json(s);
  CHECK(j["busy_ns"].get<double>() == doctest::Approx(850));
  CHECK(j["kernels"][0]["exposed_ns"].get<double>() == doctest::Approx(700));  // mm: the most time
  CHECK(j["kernels"][0]["exposed_share"].get<double>() == doctest::Approx(700.0 / 850));
}

TEST_CASE("trace_summary: --sort orders the kernels by total, exposed time, calls or name") {
  TraceSummary s = summarize_trace(overlapping());
  auto names = [&] {
    std::string out;
    for (const auto& k : s.kernels) out += k.name + " ";
    return out;
  };
  CHECK(names() == "mm ln side ");  // summarize_trace's order: total time
  REQUIRE(kernel_order("exposed"));
  sort_kernels(s, *kernel_order("exposed"));
  CHECK(names() == "mm ln side ");
  sort_kernels(s, KernelOrder::kName);
  CHECK(names() == "ln mm side ");
  sort_kernels(s, KernelOrder::kCalls);
  CHECK(names() == "mm ln side ");  // 3, 2, 1 calls
  s.kernels[2].calls = 2;           // a tie with ln: the larger total first
  sort_kernels(s, KernelOrder::kCalls);
  CHECK(names() == "mm ln side ");
  s.kernels[2].total_ns = 1e9;
  sort_kernels(s, KernelOrder::kCalls);
  CHECK(names() == "mm side ln ");
  sort_kernels(s, KernelOrder::kTotal);
  CHECK(names() == "side mm ln ");
  CHECK(kernel_order("calls") == KernelOrder::kCalls);
  CHECK(kernel_order("total") == KernelOrder::kTotal);
  CHECK_FALSE(kernel_order("Total"));
  CHECK_FALSE(kernel_order(""));
}

TEST_CASE("trace_summary: --kernel keeps matching names and their accesses; copies stay") {
  TraceSummary s = summarize_trace(with_graphs(), TraceSelection{"", "^(a|ln)$"});
  REQUIRE(s.kernels.size() == 2);
  CHECK(s.launches == 3 + 7);
  CHECK(s.accesses.size() == 1);
  CHECK(s.copies.size() == 2);
  REQUIRE(s.graphs.size() == 1);
  CHECK(s.graphs[0].kernel_nodes == 2);
  CHECK(summarize_trace(with_graphs(), TraceSelection{"", "^b$"}).accesses.empty());
}

TEST_CASE("trace_summary: a graph the trace does not hold, or a bad --graph, is a usage error") {
  auto message = [](const Trace& t, const std::string& graph) {
    try {
      summarize_trace(t, TraceSelection{graph, ""}, "t.json");
    } catch (const vtools::Error& e) {
      CHECK(e.code() == vtools::ExitCode::kUsage);
      return e.message();
    }
    return std::string("no error");
  };
  CHECK(message(with_graphs(), "3") == "t.json: no kernel was launched from CUDA graph 3 (graphs: 2, 5)");
  CHECK(message(three_kernels(), "last") == "t.json: no kernel was launched from a CUDA graph");
  CHECK(message(three_kernels(), "1") == "t.json: no kernel was launched from CUDA graph 1 (no graph launches at all)");
  CHECK(message(with_graphs(), "-1") == "--graph: expected a graph id or 'last', got '-1'");
  CHECK(message(with_graphs(), "99999999999") == "--graph: expected a graph id or 'last', got '99999999999'");
  CHECK(message(with_graphs(), "4294967296") == "--graph: expected a graph id or 'last', got '4294967296'");
  Trace big = with_graphs();
  big.kernels.back().graph_id = 4294967295u;  // the largest 32-bit id is one
  CHECK(*summarize_trace(big, TraceSelection{"4294967295", ""}).graph == 4294967295u);
}

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
  CHECK(a.median_ns == doctest::Approx(200));
  CHECK(a.std_ns == doctest::Approx(100));  // sample standard deviation of 100, 300, 200
  CHECK(b.std_ns == 0);                     // one call
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

TEST_CASE("trace_summary: NVTX ranges per name and domain, host time; marks and open ranges left out") {
  Trace t = three_kernels();
  t.nvtx_ranges = {{"forward", "", 1, 7, 100, 400, false},  {"forward", "", 1, 7, 500, 600, false},
                   {"forward", "", 1, 7, 700, 1300, false}, {"forward", "opt", 1, 7, 0, 50, false},
                   {"step", "", 1, 7, 90, 90, true},        {"open", "", 1, 8, 10, 0, false}};
  const TraceSummary s = summarize_trace(t);
  REQUIRE(s.nvtx.size() == 2);
  CHECK(s.nvtx[0].name == "forward");
  CHECK(s.nvtx[0].domain == "");
  CHECK(s.nvtx[0].count == 3);
  CHECK(s.nvtx[0].total_ns == doctest::Approx(1000));
  CHECK(s.nvtx[0].median_ns == doctest::Approx(300));
  CHECK(s.nvtx[0].min_ns == doctest::Approx(100));
  CHECK(s.nvtx[0].max_ns == doctest::Approx(600));
  CHECK(s.nvtx[1].domain == "opt");
  std::ostringstream table;
  write_summary_tables(s, false, table);
  CHECK(table.str().find("NVTX range") != std::string::npos);
  CHECK(table.str().find("opt: forward") != std::string::npos);
  CHECK(summary_to_json(s)["nvtx_ranges"][0]["count"] == 3);
}

TEST_CASE("trace_summary: NVTX ranges get the kernels their thread launched inside them, nested ones too") {
  Trace t;
  auto kernel = [](std::uint64_t launch, std::uint32_t thread, std::uint64_t start, std::uint64_t end) {
    Kernel k;
    k.name = "k";
    k.process_id = 1;
    k.thread_id = thread;
    k.launch_ns = launch;
    k.start_ns = start;
    k.end_ns = end;
    return k;
  };
  // "step" 100..500 holds "fwd" 100..250; thread 7 launches at 120 and 200 (in both), 300 (step only), 600
  // (neither); thread 8 launches at 150 (neither: another thread); a kernel with no launch call counts nowhere.
  t.kernels = {kernel(120, 7, 1000, 1100), kernel(200, 7, 1100, 1300), kernel(300, 7, 1400, 1450),
               kernel(600, 7, 2000, 2100), kernel(150, 8, 1200, 1250), kernel(0, 0, 1500, 1600)};
  t.nvtx_ranges = {{"step", "", 1, 7, 100, 500, false}, {"fwd", "", 1, 7, 100, 250, false},
                   {"step", "", 1, 7, 550, 580, false}};
  const TraceSummary s = summarize_trace(t);
  REQUIRE(s.nvtx.size() == 2);
  const NvtxStats& step = s.nvtx[0].name == "step" ? s.nvtx[0] : s.nvtx[1];
  const NvtxStats& fwd = s.nvtx[0].name == "fwd" ? s.nvtx[0] : s.nvtx[1];
  CHECK(step.count == 2);
  CHECK(step.kernels == 3);
  CHECK(step.kernel_ns == doctest::Approx(100 + 200 + 50));
  CHECK(step.gpu_span_ns == doctest::Approx(1450 - 1000));  // the second step launched nothing
  CHECK(fwd.kernels == 2);
  CHECK(fwd.gpu_span_ns == doctest::Approx(300));
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
  // With finding_sites the counts are exact: every out-of-bounds access, not only the listed ones.
  t.finding_sites.push_back({"k", 0x40, "load", 4718592, 1});
  t.findings_total = 4718592;
  TraceSummary exact = summarize_trace(t);
  CHECK(exact.accesses[0].findings == 4718592);
  CHECK(exact.findings == 4718592);
  // Two ranks' launch 0 of k in one trace (a torchrun job) are two launches, with twice the blocks.
  for (Access a : {x, y, bulk}) {
    a.process_id = 2;
    t.accesses.push_back(a);
  }
  TraceSummary ranks = summarize_trace(t);
  CHECK(ranks.accesses[0].launches == 2);
  CHECK(ranks.accesses[0].blocks == 6);
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
  CHECK(text.str().find("4 kernel launches, 1.30 us of GPU time, 1.30 us busy\n") == 0);
  CHECK(text.str().find("varies") != std::string::npos);
  CHECK(md.str().find("| kernel |") != std::string::npos);
  CHECK(md.str().find("| htod ") != std::string::npos);
}

TEST_CASE("summary_writer: long names in tables lose their parameter lists, not a kernel's anonymous namespace") {
  // As CUPTI demangles a kernel in an anonymous namespace (vbench's own wgmma kernels): cutting at the first '('
  // printed "vtools::vbench::cuda::" for every one of them.
  const std::string anonymous =
      "void vtools::vbench::cuda::(anonymous namespace)::wgmma_gemm_kernel<128, 1, 1, "
      "(vtools::vbench::cuda::(anonymous namespace)::Out)2>(CUtensorMap_st, CUtensorMap_st, void *, const "
      "__nv_bfloat16 *, int, int, int, vtools::vbench::cuda::(anonymous namespace)::LayerNormEpilogue)";
  const std::string plain = "void layernorm_forward_kernel3<__nv_bfloat16, 1, 4, false>(__nv_bfloat16 *, float *, "
                            "vtools::vbench::cuda::SublayerOutput<__nv_bfloat16>, const float *, const float *, int)";
  Trace t;
  t.kernels = {launch(anonymous, 0, 100, {1, 1, 1}), launch(plain, 200, 100, {1, 1, 1})};
  std::ostringstream text;
  write_summary_tables(summarize_trace(t), false, text);
  CHECK(text.str().find("vtools::vbench::cuda::wgmma_gemm_kernel<128, 1, 1, (vtools::vbench::cuda::Out)2>") !=
        std::string::npos);
  CHECK(text.str().find("layernorm_forward_kernel3<__nv_bfloat16, 1, 4, false> ") != std::string::npos);
  CHECK(text.str().find("(anonymous namespace)") == std::string::npos);
}

TEST_CASE("summary_writer: a long name of wide characters is cut at 80 columns, on a character boundary") {
  // 40 CJK characters are 120 bytes but 80 columns: shown whole. 60 are cut to 77 columns of whole characters; a
  // cut at 77 bytes split a character and wrote invalid UTF-8 to the terminal.
  std::string fits, cut;
  for (int i = 0; i < 40; ++i) fits += "长";
  for (int i = 0; i < 60; ++i) cut += "长";
  CHECK(table_kernel_name(fits) == fits);
  std::string expected;
  for (int i = 0; i < 38; ++i) expected += "长";
  CHECK(table_kernel_name(cut + "(float*)") == expected + "...");
}
