// vtrace merge: traces of several hosts on one clock (synthetic clock offsets), ids made unique, refusals.
#include "tools/vtrace/trace_merge.hpp"

#include <doctest/doctest.h>

#include "libcommon/error.hpp"

using namespace vtools::vtrace;

namespace {

constexpr std::int64_t kRealtime = 1'800'000'000'000'000'000;

/// One host's trace: a process of `rank` whose CUPTI clock reads `cupti_at_realtime` at realtime kRealtime, with
/// a kernel that ran at realtime kRealtime + `kernel_at` (so at CUPTI time cupti_at_realtime + kernel_at).
Trace host_trace(const std::string& host, std::int64_t pid, std::int64_t rank, std::uint64_t cupti_at_realtime,
                 std::uint64_t kernel_at) {
  Trace t;
  t.format_version = 2;
  t.run.host = host;
  t.run.tool_version = "0.1.0";
  t.run.command = {"python", "train.py"};
  t.run.start_time = "2026-11-29T04:00:0" + std::to_string(rank) + "Z";
  Process p;
  p.id = p.pid = pid;
  p.host = host;
  p.rank = rank;
  p.world_size = 2;
  p.launcher = "slurm";
  p.clock_start = ClockAnchor{cupti_at_realtime, kRealtime, 30};
  p.clock_end = ClockAnchor{cupti_at_realtime + 1'000'000, kRealtime + 1'000'050, 20};  // 50 ns of drift
  t.processes.push_back(p);
  t.run.process_ids = {pid};
  Device d;
  d.id = 0;
  d.name = "H200";
  d.uuid = "GPU-00000000-0000-0000-0000-00000000000" + std::to_string(rank);
  d.host = host;
  t.devices.push_back(d);
  Kernel k;
  k.name = "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)";
  k.process_id = pid;
  k.device_id = 0;
  k.stream_id = 13;
  k.start_ns = cupti_at_realtime + kernel_at;
  k.end_ns = k.start_ns + 500;
  k.launch_ns = k.start_ns - 100;
  t.kernels.push_back(k);
  Allocation a;
  a.id = 1;
  a.allocated_ns = cupti_at_realtime + 10;
  t.allocations.push_back(a);
  return t;
}

}  // namespace

TEST_CASE("trace_merge: two hosts' clocks are aligned by their anchors (synthetic offsets)") {
  // Host b's CUPTI clock runs 7,000,000 ns behind host a's; the kernels ran 300 ns apart in real time.
  Trace a = host_trace("a", 100, 0, 5'000'000'000, 1000);
  Trace b = host_trace("b", 100, 1, 4'993'000'000, 1300);
  Trace m = merge_traces({{a, "a.json"}, {b, "b.json"}});
  REQUIRE(m.kernels.size() == 2);
  CHECK(m.kernels[0].start_ns == 5'000'001'000);  // a's clock: unchanged
  CHECK(m.kernels[1].start_ns == 5'000'001'300);  // b's moved onto a's: 300 ns later, as in real time
  CHECK(m.kernels[1].launch_ns == 5'000'001'200);
  CHECK(m.allocations[1].allocated_ns == 5'000'000'010);
  REQUIRE(m.merged_from.size() == 2);
  CHECK(m.merged_from[0].shift_ns == 0);
  CHECK(m.merged_from[1].shift_ns == 7'000'000);
  CHECK(m.merged_from[1].name == "b.json");
  CHECK(m.merged_from[1].uncertainty_ns == 70);  // the end anchor: 50 ns of drift + its 20 ns window
  // The anchors stay true of the merged timeline: b's now reads a's CUPTI time at the same realtime.
  CHECK(m.processes[1].clock_start->clock_ns == 5'000'000'000);
  CHECK(m.run.host == "a,b");
  CHECK(m.run.start_time == "2026-11-29T04:00:00Z");
}

TEST_CASE("trace_merge: shared pids, device ids and allocation ids are made unique") {
  Trace a = host_trace("a", 100, 0, 5'000'000'000, 1000);
  Trace b = host_trace("b", 100, 1, 5'000'000'000, 1000);
  Trace m = merge_traces({{a, "a.json"}, {b, "b.json"}});
  REQUIRE(m.processes.size() == 2);
  CHECK(m.processes[0].id == 100);
  CHECK(m.processes[1].id == (std::int64_t{1} << 32 | 100));
  CHECK(m.processes[1].pid == 100);  // the OS pid stays
  REQUIRE(m.devices.size() == 2);
  CHECK(m.devices[0].id == 0);
  CHECK(m.devices[1].id == 1);
  CHECK(m.devices[1].host == "b");
  const Kernel& kb = m.kernels[0].process_id == 100 ? m.kernels[1] : m.kernels[0];
  CHECK(kb.process_id == (std::int64_t{1} << 32 | 100));
  CHECK(kb.device_id == 1);
  CHECK(m.allocations[0].id == 1);
  CHECK(m.allocations[1].id == 2);
  CHECK(m.run.process_ids == std::vector<std::int64_t>{100, std::int64_t{1} << 32 | 100});
}

TEST_CASE("trace_merge: a merged trace merges again, its sources keeping their shifts") {
  Trace a = host_trace("a", 100, 0, 5'000'000'000, 1000);
  Trace b = host_trace("b", 200, 1, 4'000'000'000, 1000);
  Trace ab = merge_traces({{a, "a.json"}, {b, "b.json"}});
  Trace c = host_trace("c", 300, 2, 3'000'000'000, 1000);
  c.processes[0].world_size = 3;
  Trace m = merge_traces({{c, "c.json"}, {ab, "ab.json"}});
  REQUIRE(m.merged_from.size() == 3);
  CHECK(m.merged_from[0].shift_ns == 0);
  CHECK(m.merged_from[1].name == "a.json");
  CHECK(m.merged_from[1].shift_ns == -2'000'000'000);
  CHECK(m.merged_from[2].shift_ns == -1'000'000'000);
  for (const Kernel& k : m.kernels) CHECK(k.start_ns == 3'000'001'000);
}

TEST_CASE("trace_merge: refusals name the input and the reason") {
  Trace a = host_trace("a", 100, 0, 5'000'000'000, 1000);
  Trace b = host_trace("b", 200, 1, 5'000'000'000, 1000);
  auto message = [](std::vector<MergeInput> in) {
    try {
      merge_traces(std::move(in));
    } catch (const vtools::Error& e) {
      return std::to_string(static_cast<int>(e.code())) + " " + e.what();
    }
    return std::string("no error");
  };
  CHECK(message({{a, "a.json"}}) == "2 merge: name at least two traces");
  CHECK(message({{a, "a.json"}, {a, "a2.json"}}) ==
        "65 a2.json: process 100 on a is also in a.json (the same trace given twice?)");
  Trace b0 = b;
  b0.processes[0].rank = 0;
  CHECK(message({{a, "a.json"}, {b0, "b.json"}}) ==
        "65 b.json: rank 0 is also in a.json: merge one trace per rank or host of one job");
  Trace old = b;
  old.run.tool_version = "0.0.9";
  CHECK(message({{a, "a.json"}, {old, "b.json"}}) ==
        "65 b.json: written by vtrace 0.0.9, but a.json by vtrace 0.1.0: merge traces written by one vtrace (trace "
        "every host with the same build)");
  Trace v1 = b;
  v1.format_version = 1;
  CHECK(message({{a, "a.json"}, {v1, "b.json"}}) ==
        "65 b.json: a version 1 vtools.trace document, but a.json is version 2: merge traces written by one vtrace");
  Trace acc = b;
  acc.run.mode = "accesses";
  CHECK(message({{a, "a.json"}, {acc, "b.json"}}) ==
        "65 b.json: an access-mode trace, but a.json is a launch-mode one: merge traces of one mode (all with "
        "--accesses, or none)");
  CHECK(message({{acc, "b.json"}, {a, "a.json"}}) ==
        "65 a.json: a launch-mode trace, but b.json is an access-mode one: merge traces of one mode (all with "
        "--accesses, or none)");
  // A CLOCK_MONOTONIC anchor (access mode's) says when a process ran, not what its timestamps mean: no clock.
  Trace monotonic = b;
  for (auto* anchor : {&monotonic.processes[0].clock_start, &monotonic.processes[0].clock_end})
    (*anchor)->clock = AnchorClock::kMonotonic;
  CHECK_FALSE(trace_clock(monotonic));
  CHECK(message({{a, "a.json"}, {monotonic, "b.json"}}) ==
        "65 b.json: no process has a clock anchor (a trace from before vtrace recorded them, or one where no process "
        "initialised CUDA): it cannot be put on a common clock");
  Trace no_anchor = b;
  no_anchor.processes[0].clock_start.reset();
  no_anchor.processes[0].clock_end.reset();
  CHECK(message({{a, "a.json"}, {no_anchor, "b.json"}}) ==
        "65 b.json: no process has a clock anchor (a trace from before vtrace recorded them, or one where no process "
        "initialised CUDA): it cannot be put on a common clock");
}

namespace {

/// One rank's access-mode trace: pid `pid` on `host`, launch 0 of add() with one access record, a finding and its
/// site, a hot line; CLOCK_MONOTONIC anchors only (access mode has no timestamps).
Trace access_trace(const std::string& host, std::int64_t pid, std::int64_t rank) {
  Trace t = host_trace(host, pid, rank, 5'000'000'000, 1000);
  t.run.mode = "accesses";
  for (auto* anchor : {&t.processes[0].clock_start, &t.processes[0].clock_end})
    (*anchor)->clock = AnchorClock::kMonotonic;
  t.kernels[0].name = "add(float*, int)";
  t.kernels[0].start_ns = t.kernels[0].end_ns = 0;
  t.kernels[0].launch_ns.reset();
  t.allocations[0].allocated_ns = 1;  // an order, not a time
  Access x;
  x.kernel = "add(float*, int)";
  x.process_id = pid;
  x.allocation = 1;
  x.loads = 10 + static_cast<std::uint64_t>(rank);
  t.accesses.push_back(x);
  Access outside = x;
  outside.allocation = -1;
  t.accesses.push_back(outside);
  Finding f;
  f.kernel = "add(float*, int)";
  f.process_id = pid;
  f.allocation = 1;
  f.thread = {static_cast<std::int64_t>(rank), 0, 0};
  t.findings.push_back(f);
  t.finding_sites.push_back({"add(float*, int)", 0x70, "load", 3, 1, pid});
  t.findings_total = 3;
  HotLine h;
  h.kernel = "add(float*, int)";
  h.process_id = pid;
  h.file = "add.cu";
  h.line = 4;
  h.loads = 10;
  t.hot_lines.push_back(h);
  t.tma_kernels = {"tma(float*)"};
  return t;
}

}  // namespace

TEST_CASE("trace_merge: access traces keep each process's accesses, findings and hot lines, nothing shifted") {
  // Two hosts whose processes have the same pid: the second is renumbered, and its records follow it.
  Trace merged = merge_traces({{access_trace("a", 4200, 0), "a.json"}, {access_trace("b", 4200, 1), "b.json"}});
  CHECK(merged.run.mode == "accesses");
  REQUIRE(merged.processes.size() == 2);
  const std::int64_t second = merged.processes[1].id;
  CHECK(merged.processes[0].id == 4200);
  CHECK(second != 4200);
  CHECK(merged.processes[1].pid == 4200);
  CHECK(merged.processes[1].host == "b");
  REQUIRE(merged.kernels.size() == 2);
  CHECK(merged.kernels[1].process_id == second);
  REQUIRE(merged.accesses.size() == 4);
  CHECK(merged.accesses[0].process_id == 4200);
  CHECK(merged.accesses[0].allocation == 1);
  CHECK(merged.accesses[1].allocation == -1);  // outside every allocation stays so
  CHECK(merged.accesses[2].process_id == second);
  CHECK(merged.accesses[2].allocation == 2);  // the second input's allocation 1
  CHECK(merged.accesses[2].loads == 11);
  CHECK(merged.accesses[2].launch == 0);  // a launch index counts within its process
  REQUIRE(merged.findings.size() == 2);
  CHECK(merged.findings[0].process_id == 4200);
  CHECK(merged.findings[1].process_id == second);
  CHECK(merged.findings[1].allocation == 2);
  CHECK(merged.findings[1].thread == Dim3{1, 0, 0});
  REQUIRE(merged.finding_sites.size() == 2);
  CHECK(merged.finding_sites[1].process_id == second);
  CHECK(merged.findings_total == 6);
  REQUIRE(merged.hot_lines.size() == 2);
  CHECK(merged.hot_lines[1].process_id == second);
  CHECK(merged.tma_kernels == std::vector<std::string>{"tma(float*)"});
  REQUIRE(merged.merged_from.size() == 2);
  CHECK(merged.merged_from[1].shift_ns == 0);
  CHECK(merged.processes[1].clock_start->clock_ns == 5'000'000'000);  // monotonic anchors as they were
  CHECK(merged.run.notes.back().rfind("merged 2 access-mode traces: their records have no timestamps", 0) == 0);
}
