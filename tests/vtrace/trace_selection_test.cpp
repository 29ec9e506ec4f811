// --graph / --kernel selections (trace_selection.hpp) as `vtrace export` uses them: what a selected trace keeps.
#include <doctest/doctest.h>

#include "libcommon/error.hpp"
#include "tools/vtrace/trace_selection.hpp"

using namespace vtools::vtrace;

namespace {

Kernel kernel(const std::string& name, std::uint32_t graph, std::uint64_t node, std::uint64_t start) {
  Kernel k;
  k.name = name;
  k.mangled_name = "_Z" + name;
  k.graph_id = graph;
  k.graph_node_id = node;
  k.start_ns = start;
  k.end_ns = start + 10;
  return k;
}

/// Graph 4 (two launches of nodes 1, 2), then an eager "tail" kernel, a copy, a device, an allocation, an access
/// and a finding of "tail".
Trace sample() {
  Trace t;
  t.run.command = {"./app"};
  t.devices.push_back(Device{0, "H100", "9.0", 132, 1, "", "", ""});
  t.kernels = {kernel("ln", 4, 1, 0), kernel("mm", 4, 2, 20), kernel("ln", 4, 1, 40), kernel("mm", 4, 2, 60),
               kernel("tail", 0, 0, 80)};
  t.memcpys.push_back(Memcpy{"htod", 64, 100, 110, 0, 0, 0, 0});
  t.allocations.push_back(Allocation{});
  Access a;
  a.kernel = "tail";
  t.accesses.push_back(a);
  t.findings.push_back(Finding{});
  t.findings.back().kernel = "tail";
  return t;
}

}  // namespace

TEST_CASE("trace_selection: a graph keeps its kernels and the run, devices and allocations; no copies or findings") {
  const Trace t = sample();
  const TraceSelection last{"last", ""};
  const auto graph = selected_graph(t, last, "t.json");
  REQUIRE(graph);
  CHECK(*graph == 4);  // "tail" launched last, but not from a graph
  const Trace kept = select_kernels(t, last, graph);
  CHECK(kept.kernels.size() == 4);
  CHECK(kept.run.command == t.run.command);
  CHECK(kept.devices.size() == 1);
  CHECK(kept.allocations.size() == 1);
  CHECK(kept.memcpys.empty());
  CHECK(kept.accesses.empty());
  CHECK(kept.findings.empty());
  CHECK_FALSE(selected_graph(t, TraceSelection{}, "t.json"));
  CHECK(TraceSelection{}.everything());
}

TEST_CASE("trace_selection: a name keeps matching kernels (mangled names too), their accesses and every copy") {
  const Trace t = sample();
  const TraceSelection tail{"", "^_Ztail$"};
  const Trace kept = select_kernels(t, tail, selected_graph(t, tail, "t.json"));
  REQUIRE(kept.kernels.size() == 1);
  CHECK(kept.kernels[0].name == "tail");
  CHECK(kept.memcpys.size() == 1);
  CHECK(kept.accesses.size() == 1);
  CHECK(kept.findings.size() == 1);
  const TraceSelection mm_in_graph{"4", "mm"};
  CHECK(select_kernels(t, mm_in_graph, selected_graph(t, mm_in_graph, "t.json")).kernels.size() == 2);
  CHECK(select_kernels(t, TraceSelection{"", "ln"}, std::nullopt).accesses.empty());
  CHECK_THROWS_AS(select_kernels(t, TraceSelection{"", "("}, std::nullopt), vtools::Error);
}
