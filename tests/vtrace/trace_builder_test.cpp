// Captures -> trace model: names, filters, allocations, partial and dropped handling.
#include <doctest/doctest.h>

#include <algorithm>

#include "libcommon/error.hpp"
#include "tools/vtrace/raw_record_writer.hpp"
#include "tools/vtrace/trace_builder.hpp"

using namespace vtools::vtrace;

namespace {

raw::NamedKernel kernel(const char* mangled, std::uint64_t start, std::uint64_t end, std::int32_t grid_x,
                        std::uint32_t stream = 7) {
  raw::KernelRecord r{};
  r.start_ns = start;
  r.end_ns = end;
  r.stream_id = stream;
  r.grid[0] = grid_x, r.grid[1] = 1, r.grid[2] = 1;
  r.block[0] = 128, r.block[1] = 1, r.block[2] = 1;
  r.static_shared_bytes = 256;
  r.dynamic_shared_bytes = 1024;
  r.launch_type = 1;
  return {r, mangled};
}

raw::Capture capture(std::int64_t pid, bool ended) {
  raw::Capture c;
  c.process.pid = pid;
  c.ended = ended;
  return c;
}

}  // namespace

TEST_CASE("trace_builder: demangles C++ names and leaves others alone") {
  CHECK(demangle("_Z4fillPfif") == "fill(float*, int, float)");
  CHECK(demangle("add_kernel") == "add_kernel");
  CHECK(demangle("_Znot-a-name") == "_Znot-a-name");
}

TEST_CASE("trace_builder: names CUPTI enumerations") {
  CHECK(memcpy_kind_name(1) == "htod");
  CHECK(memcpy_kind_name(2) == "dtoh");
  CHECK(memcpy_kind_name(8) == "dtod");
  CHECK(memcpy_kind_name(99) == "unknown");
  CHECK(launch_type_name(0) == "regular");
  CHECK(launch_type_name(1) == "cooperative_single_device");
  CHECK(launch_type_name(7) == "type_7");
  CHECK(memory_kind_name(3) == "device");
  CHECK(memory_kind_name(2) == "pinned");
}

TEST_CASE("trace_builder: kernels from several processes are merged in start order with their details") {
  raw::Capture a = capture(10, true), b = capture(11, true);
  a.kernels = {kernel("_Z4fillPfif", 300, 400, 4), kernel("_Z4fillPfif", 100, 150, 4)};
  b.kernels = {kernel("add_kernel", 200, 260, 8, 9)};
  a.devices.push_back({{0, 9, 0, 132, 1000}, "H100"});
  b.devices.push_back({{0, 9, 0, 132, 1000}, "H100"});
  RunInfo run;
  run.command = {"./app"};
  Trace t = build_trace({a, b}, run, KernelFilter(""));
  REQUIRE(t.kernels.size() == 3);
  CHECK(t.kernels[0].start_ns == 100);
  CHECK(t.kernels[1].name == "add_kernel");
  CHECK(t.kernels[1].process_id == 11);
  CHECK(t.kernels[1].stream_id == 9);
  CHECK(t.kernels[2].name == "fill(float*, int, float)");
  CHECK(t.kernels[2].mangled_name == "_Z4fillPfif");
  CHECK(t.kernels[2].grid == Dim3{4, 1, 1});
  CHECK(t.kernels[2].block == Dim3{128, 1, 1});
  CHECK(t.kernels[2].static_shared_bytes == 256);
  CHECK(t.kernels[2].dynamic_shared_bytes == 1024);
  CHECK(t.kernels[2].launch_type == "cooperative_single_device");
  REQUIRE(t.devices.size() == 1);
  CHECK(t.devices[0].compute_capability == "9.0");
  CHECK(t.run.process_ids == std::vector<std::int64_t>{10, 11});
  CHECK_FALSE(t.partial);
  CHECK(t.filtered_kernels == 0);
}

TEST_CASE("trace_builder: --kernel keeps matching kernels, counts the rest and says so") {
  raw::Capture a = capture(1, true);
  a.kernels = {kernel("_Z4fillPfif", 1, 2, 1), kernel("add_kernel", 3, 4, 1), kernel("_Z4fillPfif", 5, 6, 1)};
  Trace t = build_trace({a}, RunInfo{}, KernelFilter("^fill\\("));
  REQUIRE(t.kernels.size() == 2);
  CHECK(t.filtered_kernels == 1);
  REQUIRE(t.run.notes.size() == 1);
  CHECK(t.run.notes[0] == "--kernel '^fill\\(' left out 1 kernel launches");
  // The mangled name matches too.
  CHECK(build_trace({a}, RunInfo{}, KernelFilter("_Z4fill")).kernels.size() == 2);
}

TEST_CASE("kernel_filter: an invalid regex is a usage error naming the pattern") {
  try {
    KernelFilter f("(unclosed");
    FAIL("no error");
  } catch (const vtools::Error& e) {
    CHECK(e.code() == vtools::ExitCode::kUsage);
    CHECK(std::string(e.what()).rfind("--kernel: invalid regular expression '(unclosed': ", 0) == 0);
  }
}

TEST_CASE("trace_builder: allocations pair with their release; unreleased ones stay live") {
  raw::Capture a = capture(1, true);
  a.memory = {{30, 0x1000, 64, 2, 3, 0, 1}, {10, 0x1000, 64, 1, 3, 0, 1}, {20, 0x2000, 128, 1, 2, 0, 1},
              {40, 0x1000, 32, 1, 3, 0, 1}};
  Trace t = build_trace({a}, RunInfo{}, KernelFilter(""));
  REQUIRE(t.allocations.size() == 3);
  CHECK(t.allocations[0].id == 1);
  CHECK(t.allocations[0].size == 64);
  CHECK(t.allocations[0].freed_ns == std::optional<std::uint64_t>(30));
  CHECK(t.allocations[1].memory_kind == "pinned");
  CHECK_FALSE(t.allocations[1].freed_ns.has_value());
  CHECK(t.allocations[2].address == 0x1000);
  CHECK(t.allocations[2].size == 32);
  CHECK_FALSE(t.allocations[2].freed_ns.has_value());
}

TEST_CASE("trace_builder: partial when a process did not end cleanly, a file is torn, or the command was killed") {
  RunInfo run;
  CHECK_FALSE(build_trace({capture(1, true)}, run, KernelFilter("")).partial);
  CHECK(build_trace({capture(1, true), capture(2, false)}, run, KernelFilter("")).partial);
  raw::Capture torn = capture(1, true);
  torn.torn_bytes = 5;
  Trace t = build_trace({torn}, run, KernelFilter(""));
  CHECK(t.partial);
  // A partial trace says why, per process.
  CHECK(std::count(t.run.notes.begin(), t.run.notes.end(),
                   "process 1: its last record was cut short (5 bytes): killed or crashed while writing") == 1);
  Trace unended = build_trace({capture(2, false)}, run, KernelFilter(""));
  REQUIRE_FALSE(unended.run.notes.empty());
  CHECK(unended.run.notes[0].rfind("process 2: no end record", 0) == 0);
  run.signal = 6;
  run.exit_status = 134;
  CHECK(build_trace({capture(1, true)}, run, KernelFilter("")).partial);
  // A program that never touched CUDA has no captures: an empty, complete trace.
  Trace empty = build_trace({}, RunInfo{}, KernelFilter(""));
  CHECK_FALSE(empty.partial);
  CHECK(empty.kernels.empty());
}

TEST_CASE("kernel_filter: a 33,000-character CUTLASS name is matched, not a stack overflow (issue 45, item 1)") {
  std::string name;
  for (int i = 0; i < 1100; ++i) name += "cutlass_80_tensorop_s1688gemm_";
  const std::string mangled = name + "Params";
  CHECK(KernelFilter("cutlass.*Params").keeps(name, mangled));
  CHECK_FALSE(KernelFilter("cutlass.*Arguments").keeps(name, mangled));
  CHECK(KernelFilter("s1688gemm_$").keeps(name, ""));
}

TEST_CASE("trace_builder: dropped records are summed over processes and reported in a note") {
  raw::Capture a = capture(1, true), b = capture(2, true);
  a.dropped = 3;
  b.dropped = 4;
  b.notes = {"CUPTI is already in use in process 2"};
  Trace t = build_trace({a, b}, RunInfo{}, KernelFilter(""));
  CHECK(t.dropped_records == 7);
  REQUIRE(t.run.notes.size() == 2);
  CHECK(t.run.notes[0] == "CUPTI is already in use in process 2");
  CHECK(t.run.notes[1] == "7 activity records were dropped by the tracer");
}

TEST_CASE("trace_builder: failed launches are demangled and filtered like kernels") {
  raw::Capture a = capture(1, true);
  a.failed_launches = {{{9, 5}, "cudaLaunchKernel", "_Z4fillPfif"}, {{1, 6}, "cuLaunchKernelEx", "add_kernel"}};
  Trace t = build_trace({a}, RunInfo{}, KernelFilter("fill"));
  REQUIRE(t.failed_launches.size() == 1);
  CHECK(t.failed_launches[0].api == "cudaLaunchKernel");
  CHECK(t.failed_launches[0].kernel == "fill(float*, int, float)");
  CHECK(t.failed_launches[0].status == 9);
  CHECK(t.failed_launches[0].correlation_id == 5);
}

TEST_CASE("trace_builder: --capture-range cudaProfilerApi keeps what was launched between start and stop") {
  // Correlation ids order the calls: fill 1, start (runtime 2, driver 3), fill 4, copy 5, stop (runtime 6, driver
  // 7), fill 8, start 9 (driver only: the first call of a program can precede the tracer), fill 10, no stop.
  raw::Capture c = capture(10, true);
  auto launched = [](raw::NamedKernel k, std::uint32_t correlation_id) {
    k.record.correlation_id = correlation_id;
    return k;
  };
  c.kernels = {launched(kernel("_Z4fillPfif", 100, 110, 4), 1), launched(kernel("_Z4fillPfif", 200, 210, 4), 4),
               launched(kernel("_Z4fillPfif", 300, 310, 4), 8), launched(kernel("add_kernel", 400, 410, 8), 10)};
  raw::MemcpyRecord before{}, inside{};
  before.correlation_id = 1, inside.correlation_id = 5;
  inside.start_ns = 220, inside.end_ns = 230;
  c.memcpys = {before, inside};
  c.failed_launches = {{{1, 8}, "cudaLaunchKernel", "_Z4fillPfif"}};  // outside: left out with its launch
  c.profiler_calls = {{150, 2, 1}, {151, 3, 1}, {250, 6, 0}, {251, 7, 0}, {350, 9, 1}};
  RunInfo run;
  run.capture_range = "cudaProfilerApi";
  const Trace t = build_trace({c}, run, KernelFilter(""));
  REQUIRE(t.kernels.size() == 2);
  CHECK(t.kernels[0].correlation_id == 4);
  CHECK(t.kernels[1].correlation_id == 10);
  REQUIRE(t.memcpys.size() == 1);
  CHECK(t.memcpys[0].correlation_id == 5);
  CHECK(t.failed_launches.empty());
  CHECK(t.filtered_kernels == 2);
  REQUIRE(t.run.capture_ranges.size() == 2);
  CHECK(t.run.capture_ranges[0].start_ns == 150);
  CHECK(t.run.capture_ranges[0].end_ns == 250);
  CHECK(t.run.capture_ranges[1].start_ns == 350);
  CHECK(t.run.capture_ranges[1].end_ns == 0);  // open to the end of the process
  CHECK(t.run.notes ==
        std::vector<std::string>{"--capture-range cudaProfilerApi left out 2 kernel launches and 1 copies and sets "
                                 "launched outside the cudaProfilerStart/Stop ranges (2 in run.capture_ranges)"});

  // With --kernel as well: both filters apply, and both counts add up in filtered_kernels.
  const Trace adds = build_trace({c}, run, KernelFilter("^add"));
  REQUIRE(adds.kernels.size() == 1);
  CHECK(adds.filtered_kernels == 3);

  // Without the option the calls are still seen (the ranges are listed), but nothing is left out.
  RunInfo all;
  const Trace whole = build_trace({c}, all, KernelFilter(""));
  CHECK(whole.kernels.size() == 4);
  CHECK(whole.memcpys.size() == 2);
  CHECK(whole.filtered_kernels == 0);
  CHECK(whole.run.capture_ranges.size() == 2);

  // A process that never called cudaProfilerStart: nothing of it, and a note naming it.
  raw::Capture silent = capture(11, true);
  silent.kernels = {launched(kernel("add_kernel", 500, 510, 8), 3)};
  const Trace none = build_trace({silent}, run, KernelFilter(""));
  CHECK(none.kernels.empty());
  CHECK(none.run.notes.front() ==
        "process 11 never called cudaProfilerStart: none of its 1 kernel launches is in the trace");
}

TEST_CASE("trace_builder: NVTX starts and ends pair by id; nested and open ranges, and ends without a start") {
  raw::Capture c = capture(10, true);
  auto marker = [](std::uint64_t t, std::uint32_t id, std::uint32_t flags, const char* name = "") {
    return raw::NamedMarker{{t, id, flags, 0, 77}, name, ""};  // process 0: the capture's
  };
  // outer 100..900 holds inner 200..300; id 5 ends with no start (NVTX used before the tracer started); "tail"
  // never ends.
  c.markers = {marker(50, 5, 4),           marker(100, 1, 2, "outer"), marker(200, 2, 2, "inner"),
               marker(300, 2, 4),          marker(900, 1, 4),          marker(950, 3, 2, "tail")};
  const Trace t = build_trace({c}, RunInfo{}, KernelFilter(""));
  REQUIRE(t.nvtx_ranges.size() == 3);
  CHECK(t.nvtx_ranges[0].name == "outer");
  CHECK(t.nvtx_ranges[0].end_ns == 900);
  CHECK(t.nvtx_ranges[0].process_id == 10);
  CHECK(t.nvtx_ranges[0].thread_id == 77);
  CHECK(t.nvtx_ranges[1].name == "inner");
  CHECK(t.nvtx_ranges[1].end_ns == 300);
  CHECK(t.nvtx_ranges[2].name == "tail");
  CHECK(t.nvtx_ranges[2].end_ns == 0);
}

TEST_CASE("trace_builder: kernels carry their code hash from the function-code records; one name, two codes: unknown") {
  raw::RecordBatch b;
  b.add_magic();
  b.add(raw::Tag::kProcess, raw::ProcessRecord{9, 0});
  b.add(raw::Tag::kFunctionCode, raw::FunctionCodeRecord{0x1234abcdull, 256}, "_Z4fillPfif");
  b.add(raw::Tag::kFunctionCode, raw::FunctionCodeRecord{0x1111ull, 128}, "twice");
  b.add(raw::Tag::kFunctionCode, raw::FunctionCodeRecord{0x2222ull, 128}, "twice");   // another module, other code
  b.add(raw::Tag::kFunctionCode, raw::FunctionCodeRecord{0x1234abcdull, 256}, "_Z4fillPfif");  // loaded again
  raw::Capture c = raw::read_capture(b.bytes(), "raw.bin");
  CHECK(c.function_codes.at("_Z4fillPfif") == 0x1234abcdull);
  CHECK(c.function_codes.at("twice") == 0);
  c.ended = true;
  c.kernels = {kernel("_Z4fillPfif", 100, 200, 1), kernel("twice", 300, 400, 1), kernel("never_loaded", 500, 600, 1)};
  Trace t = build_trace({c}, RunInfo{}, KernelFilter(""));
  REQUIRE(t.kernels.size() == 3);
  CHECK(t.kernels[0].code_hash == "000000001234abcd");
  CHECK(t.kernels[1].code_hash.empty());
  CHECK(t.kernels[2].code_hash.empty());
}

TEST_CASE("trace_builder: processes carry host, rank and clock anchors; devices their UUID and PCI bus") {
  raw::Capture a = capture(10, true), b = capture(11, true);
  a.host = b.host = "node3";
  a.launcher_variables = {{"RANK", "0"}, {"LOCAL_RANK", "0"}, {"WORLD_SIZE", "2"}};
  b.launcher_variables = {{"RANK", "1"}, {"LOCAL_RANK", "1"}, {"WORLD_SIZE", "2"}};
  a.clock_anchors = {{100, 5100, 20}, {900, 5905, 10}};
  b.clock_anchors = {{200, 5200, 20}};
  a.devices.push_back({{0, 9, 0, 132, 1000}, "H200"});
  b.devices.push_back({{1, 9, 0, 132, 1000}, "H200"});
  raw::DeviceIdentityRecord id{1, 0, 0x2a, 0, {}};
  for (int i = 0; i < 16; ++i) id.uuid[i] = static_cast<std::uint8_t>(i);
  b.device_identities.push_back(id);
  Trace t = build_trace({b, a}, RunInfo{}, KernelFilter(""));
  REQUIRE(t.processes.size() == 2);
  CHECK(t.processes[0].id == 10);
  CHECK(t.processes[0].host == "node3");
  CHECK(t.processes[0].rank == 0);
  CHECK(t.processes[1].rank == 1);
  CHECK(t.processes[1].local_rank == 1);
  CHECK(t.processes[1].world_size == 2);
  CHECK(t.processes[1].launcher == "torchrun");
  REQUIRE(t.processes[0].clock_start);
  CHECK(t.processes[0].clock_start->offset_ns() == 5000);
  REQUIRE(t.processes[0].clock_end);
  CHECK(t.processes[0].clock_end->clock_ns == 900);
  CHECK(t.processes[0].clock_end->clock == AnchorClock::kCupti);
  CHECK_FALSE(t.processes[1].clock_end);
  REQUIRE(t.devices.size() == 2);
  CHECK(t.devices[0].uuid.empty());
  CHECK(t.devices[1].uuid == "GPU-00010203-0405-0607-0809-0a0b0c0d0e0f");
  CHECK(t.devices[1].pci_bus_id == "0000:2a:00.0");
  CHECK(t.devices[1].host == "node3");
}

TEST_CASE("trace_builder: a launcher variable that is not a number becomes a note") {
  raw::Capture a = capture(10, true);
  a.launcher_variables = {{"SLURM_PROCID", "abc"}};
  Trace t = build_trace({a}, RunInfo{}, KernelFilter(""));
  CHECK(t.processes[0].rank == -1);
  CHECK(std::find(t.run.notes.begin(), t.run.notes.end(),
                  "process 10: SLURM_PROCID='abc' is not a whole number (slurm): ignored") != t.run.notes.end());
}

TEST_CASE("trace_builder: processes that each call a different GPU device 0 get one device each, by UUID") {
  // Two Slurm tasks with their own CUDA_VISIBLE_DEVICES: both see their GPU as ordinal 0. A third process sees the
  // first task's GPU as its device 1: the same device.
  auto with_gpu = [](std::int64_t pid, std::uint32_t ordinal, std::uint8_t uuid_byte) {
    raw::Capture c = capture(pid, true);
    c.devices.push_back({{ordinal, 9, 0, 132, 1000}, "H200"});
    raw::DeviceIdentityRecord id{ordinal, 0, uuid_byte, 0, {}};
    id.uuid[0] = uuid_byte;
    c.device_identities.push_back(id);
    raw::KernelRecord k{};
    k.device_id = ordinal;
    k.start_ns = 100;
    k.end_ns = 200;
    c.kernels.push_back({k, "_Z4stepv"});
    raw::MemoryRecord m{};
    m.device_id = ordinal;
    m.address = 0x1000;
    m.bytes = 64;
    m.operation = 1;
    c.memory.push_back(m);
    return c;
  };
  const Trace t =
      build_trace({with_gpu(10, 0, 0xa1), with_gpu(11, 0, 0xb2), with_gpu(12, 1, 0xa1)}, RunInfo{}, KernelFilter(""));
  REQUIRE(t.devices.size() == 2);
  CHECK(t.devices[0].id == 0);
  CHECK(t.devices[0].uuid.substr(0, 6) == "GPU-a1");
  CHECK(t.devices[1].id == 1);
  CHECK(t.devices[1].uuid.substr(0, 6) == "GPU-b2");
  REQUIRE(t.kernels.size() == 3);
  CHECK(t.kernels[0].device_id == 0);
  CHECK(t.kernels[1].device_id == 1);  // process 11's device 0 is the second GPU
  CHECK(t.kernels[2].device_id == 0);  // process 12's device 1 is the first GPU
  REQUIRE(t.allocations.size() == 3);
  CHECK(t.allocations[1].device_id == 1);
  CHECK(std::any_of(t.run.notes.begin(), t.run.notes.end(),
                    [](const std::string& n) { return n.find("told apart by UUID") != std::string::npos; }));
  // Without UUIDs (an older trace, a failed query), ordinals are all there is: one device, no note.
  raw::Capture a = with_gpu(10, 0, 0xa1), b = with_gpu(11, 0, 0xb2);
  a.device_identities.clear();
  b.device_identities.clear();
  const Trace old = build_trace({a, b}, RunInfo{}, KernelFilter(""));
  CHECK(old.devices.size() == 1);
  CHECK(old.run.notes.empty());
}
