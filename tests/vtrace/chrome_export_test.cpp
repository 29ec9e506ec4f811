// Chrome Trace Event Format: processes per device, threads per stream, relative microsecond timestamps.
#include <doctest/doctest.h>

#include <map>
#include <set>
#include <string>
#include <vector>

#include "tools/vtrace/chrome_export.hpp"

using namespace vtools::vtrace;

TEST_CASE("chrome_export: one process per device, one thread per stream, times relative to the first record") {
  Trace t;
  t.devices = {{0, "H100", "9.0", 132, 0, "", "", ""}, {1, "H100", "9.0", 132, 0, "", "", ""}};
  Kernel k0;
  k0.name = "k0";
  k0.device_id = 0;
  k0.stream_id = 7;
  k0.start_ns = 5000;
  k0.end_ns = 7500;
  k0.grid = {4, 1, 1};
  Kernel k1 = k0;
  k1.name = "k1";
  k1.device_id = 1;
  k1.stream_id = 13;
  k1.start_ns = 9000;
  k1.end_ns = 9100;
  t.kernels = {k0, k1};
  t.memcpys = {{"htod", 2048, 4000, 4500, 0, 1, 7, 3}};
  auto out = chrome_trace(t);
  const auto& ev = out["traceEvents"];
  std::set<std::string> process_names, thread_names;
  int complete = 0;
  for (const auto& e : ev) {
    if (e["ph"] == "M" && e["name"] == "process_name") process_names.insert(e["args"]["name"].get<std::string>());
    if (e["ph"] == "M" && e["name"] == "thread_name")
      thread_names.insert(std::to_string(e["pid"].get<int>()) + "/" + std::to_string(e["tid"].get<int>()));
    if (e["ph"] == "X") ++complete;
  }
  CHECK(process_names == std::set<std::string>{"GPU 0: H100", "GPU 1: H100"});
  CHECK(thread_names == std::set<std::string>{"0/7", "1/13"});
  CHECK(complete == 3);
  const auto* first = &ev[0];
  for (const auto& e : ev)
    if (e["ph"] == "X" && e["name"] == "k0") first = &e;
  CHECK((*first)["ts"].get<double>() == doctest::Approx(1.0));   // 5000 ns - 4000 ns origin
  CHECK((*first)["dur"].get<double>() == doctest::Approx(2.5));  // 2500 ns
  CHECK((*first)["args"]["grid"][0] == 4);
  CHECK(out["otherData"]["origin_ns"] == 4000);
  CHECK(out["displayTimeUnit"] == "ns");
}

TEST_CASE("chrome_export: each kernel event carries its exposed time, as vtrace summary computes it") {
  Trace t;
  Kernel ln;
  ln.name = "ln";
  ln.start_ns = 1000;
  ln.end_ns = 1100;
  Kernel mm = ln;  // a programmatic dependent: starts while ln runs, ends 100 ns after it
  mm.name = "mm";
  mm.start_ns = 1040;
  mm.end_ns = 1200;
  t.kernels = {mm, ln};  // the events keep the trace's order; the exposed time follows the start times
  const auto out = chrome_trace(t);
  std::map<std::string, double> exposed;
  for (const auto& e : out["traceEvents"]) {
    if (e["ph"] == "X") exposed[e["name"].get<std::string>()] = e["args"]["exposed_ns"].get<double>();
  }
  CHECK(exposed["ln"] == 100);
  CHECK(exposed["mm"] == 100);
}

TEST_CASE("chrome_export: an empty trace is an empty event list") {
  auto out = chrome_trace(Trace{});
  CHECK(out["traceEvents"].empty());
  CHECK(out["otherData"]["origin_ns"] == 0);
}

TEST_CASE("chrome_export: NVTX ranges and capture ranges on a host process, a track per thread") {
  Trace t;
  Kernel k;
  k.name = "k";
  k.stream_id = 7;
  k.start_ns = 5000;
  k.end_ns = 6000;
  t.kernels = {k};
  t.nvtx_ranges = {{"forward", "", 42, 4711, 3000, 7000, false}, {"step", "train", 42, 4711, 3500, 3500, true},
                   {"open", "", 42, 4712, 4000, 0, false}};
  t.run.capture_ranges = {{42, 2000, 0}};
  const auto out = chrome_trace(t);
  CHECK(out["otherData"]["origin_ns"] == 2000);  // the earliest host range, not the kernel
  std::map<std::string, vtools::OrderedJson> by_name;
  std::set<std::string> threads;
  for (const auto& e : out["traceEvents"]) {
    if (e["ph"] == "M" && e["name"] == "thread_name") threads.insert(e["args"]["name"].get<std::string>());
    if (e["ph"] != "M") by_name[e["name"].get<std::string>()] = e;
  }
  CHECK(threads == std::set<std::string>{"stream 7", "thread 4711 NVTX", "thread 4712 NVTX", "cudaProfilerStart/Stop"});
  CHECK(by_name["forward"]["pid"] == 42);
  CHECK(by_name["forward"]["tid"] == 4711);
  CHECK(by_name["forward"]["ts"].get<double>() == doctest::Approx(1.0));
  CHECK(by_name["forward"]["dur"].get<double>() == doctest::Approx(4.0));
  CHECK(by_name["step"]["ph"] == "i");
  CHECK(by_name["step"]["args"]["domain"] == "train");
  CHECK(by_name["open"]["args"]["open"] == true);
  CHECK(by_name["open"]["dur"].get<double>() == doctest::Approx(3.0));  // to the last event, the range at 7000
  CHECK(by_name["capture range"]["dur"].get<double>() == doctest::Approx(5.0));
}

TEST_CASE("chrome_export: a distributed job names each GPU and host process after its rank") {
  Trace t;
  t.devices = {{0, "H200", "9.0", 132, 0, "", "", ""}, {1, "H200", "9.0", 132, 0, "", "", ""}};
  for (std::int64_t r = 0; r < 2; ++r) {
    Process p;
    p.id = p.pid = 40 + r;
    p.rank = r;
    p.host = r == 0 ? "node0" : "";
    t.processes.push_back(p);
    Kernel k;
    k.name = "k";
    k.process_id = p.id;
    k.device_id = static_cast<std::uint32_t>(r);
    k.start_ns = 1000;
    k.end_ns = 2000;
    t.kernels.push_back(k);
  }
  NvtxRange range;
  range.name = "step";
  range.process_id = 41;
  range.thread_id = 5;
  range.start_ns = 1000;
  range.end_ns = 1500;
  t.nvtx_ranges = {range};
  std::set<std::string> process_names;
  const auto out = chrome_trace(t);  // kept: a range-for over a temporary's member would outlive it
  for (const auto& e : out["traceEvents"])
    if (e["ph"] == "M" && e["name"] == "process_name") process_names.insert(e["args"]["name"].get<std::string>());
  CHECK(process_names ==
        std::set<std::string>{"rank 0 (node0): GPU 0: H200", "rank 1: GPU 1: H200", "rank 1 host, process 41"});
}

TEST_CASE("chrome_export: --api calls on their host thread; each launch call a slice with a flow to its kernel") {
  Trace t;
  Kernel k;
  k.name = "gemm";
  k.process_id = 4242;
  k.thread_id = 7;
  k.device_id = 0;
  k.stream_id = 13;
  k.launch_ns = 1000;
  k.launch_end_ns = 1400;
  k.start_ns = 3000;
  k.end_ns = 5000;
  Kernel unlaunched = k;  // no launch call recorded: no slice, no flow
  unlaunched.launch_ns.reset();
  unlaunched.launch_end_ns = 0;
  unlaunched.start_ns = 6000;
  unlaunched.end_ns = 6500;
  t.kernels = {k, unlaunched};
  t.api_calls = {{"cudaStreamSynchronize", 4242, 7, 1500, 5200, 99}};
  const auto out = chrome_trace(t);
  std::map<std::string, const vtools::OrderedJson*> slices;  // by cat
  std::vector<const vtools::OrderedJson*> flows;
  std::set<std::string> threads;
  for (const auto& e : out["traceEvents"]) {
    if (e["ph"] == "X") slices[e["cat"].get<std::string>()] = &e;
    if (e["ph"] == "s" || e["ph"] == "f") flows.push_back(&e);
    if (e["ph"] == "M" && e["name"] == "thread_name") threads.insert(e["args"]["name"].get<std::string>());
  }
  REQUIRE(slices.count("cuda_api"));
  const auto& api = *slices["cuda_api"];
  CHECK(api["name"] == "cudaStreamSynchronize");
  CHECK(api["pid"] == 4242);
  CHECK(api["tid"] == 7);
  CHECK(api["ts"].get<double>() == doctest::Approx(0.5));  // the first launch call is the origin
  CHECK(api["dur"].get<double>() == doctest::Approx(3.7));
  REQUIRE(slices.count("launch"));
  CHECK((*slices["launch"])["dur"].get<double>() == doctest::Approx(0.4));
  CHECK((*slices["launch"])["args"]["kernel"] == "gemm");
  REQUIRE(flows.size() == 2);
  CHECK((*flows[0])["ph"] == "s");
  CHECK((*flows[0])["pid"] == 4242);
  CHECK((*flows[1])["ph"] == "f");
  CHECK((*flows[1])["bp"] == "e");
  CHECK((*flows[1])["pid"] == 0);
  CHECK((*flows[1])["tid"] == 13);
  CHECK((*flows[1])["ts"].get<double>() == doctest::Approx(2.0));
  CHECK((*flows[0])["id"] == (*flows[1])["id"]);
  CHECK(threads.count("thread 7"));  // a thread with API calls but no NVTX range
}

TEST_CASE("chrome export: a host process whose pid is a device id gets its own Perfetto process") {
  Trace t;
  Kernel k;
  k.name = "k";
  k.device_id = 1;
  k.stream_id = 7;
  k.process_id = 1;  // pid 1, as in a container; device 1 is the Perfetto process numbered 1
  k.thread_id = 5;
  k.start_ns = 2000;
  k.end_ns = 3000;
  k.launch_ns = 1000;
  k.launch_end_ns = 1500;
  t.kernels.push_back(k);
  const auto out = chrome_trace(t);
  std::map<std::int64_t, std::vector<std::string>> names;  // pid -> its process_name labels
  for (const auto& e : out["traceEvents"])
    if (e["ph"] == "M" && e["name"] == "process_name")
      names[e["pid"].get<std::int64_t>()].push_back(e["args"]["name"].get<std::string>());
  CHECK(names[1] == std::vector<std::string>{"GPU 1"});
  CHECK(names[(std::int64_t{1} << 32) + 1] == std::vector<std::string>{"process 1 (host)"});
}
