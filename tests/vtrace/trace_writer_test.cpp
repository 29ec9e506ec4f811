// The post-run path of `vtrace run` (raw records -> build_trace -> trace_document_text) pins its bytes: the writer
// is tuned for speed (bench/vtrace_perftest), and tuning must not change a byte of the document.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "libcommon/input_file.hpp"
#include "tools/vtrace/raw_record_reader.hpp"
#include "tools/vtrace/raw_record_writer.hpp"
#include "tools/vtrace/trace_builder.hpp"
#include "formats/trace/trace_writer.hpp"

using namespace vtools::vtrace;

namespace {

// Names that take every path of the string escaper: mangled C++, plain ASCII, quotes and backslashes, a control
// character, UTF-8, and a byte that is not UTF-8.
const std::vector<std::string> kNames = {
    "_ZN2at6native29vectorized_elementwise_kernelILi4ENS0_13BinaryFunctorIfffNS0_15binary_internal10MulFunctor"
    "IfEEEESt5arrayIPcLm3EEEEviT0_T1_",
    "_Z4fillPfif",
    "triton_poi_fused_add_0",
    "k\"quoted\"\\back\tslash",
    "caf\xc3\xa9_kernel",
    "bad\xff_byte",
};

/// A run of `kernels` launches over kNames, with copies, sets, allocations and a failed launch, read and built as
/// `vtrace run` does.
Trace built_trace(int kernels) {
  raw::RecordBatch b;
  b.add_magic();
  b.add(raw::Tag::kProcess, raw::ProcessRecord{4242, 1000});
  b.add(raw::Tag::kDevice, raw::DeviceRecord{0, 9, 0, 132, 80ull << 30}, "NVIDIA H100 80GB HBM3");
  b.add_note("a \"note\"");
  std::uint64_t t = 2000;
  for (int i = 0; i < kernels; ++i) {
    raw::KernelRecord k{};
    k.start_ns = t;
    k.end_ns = t + 3000 + static_cast<std::uint64_t>(i % 5);
    t += 5000;
    k.correlation_id = static_cast<std::uint32_t>(i + 1);
    k.device_id = 0, k.context_id = 1, k.stream_id = 7 + static_cast<std::uint32_t>(i % 3);
    k.grid[0] = 1024 + i, k.grid[1] = 2, k.grid[2] = 1;
    k.block[0] = 128, k.block[1] = k.block[2] = 1;
    k.cluster[0] = static_cast<std::uint32_t>(i % 2);
    k.registers_per_thread = 32;
    k.static_shared_bytes = 48 * (i % 4);
    k.dynamic_shared_bytes = -1;  // the builder clamps it to 0
    k.local_bytes_per_thread = 8, k.local_bytes_total = 1ull << 33;
    k.launch_type = static_cast<std::uint32_t>(i % 6);  // 4 and 5 are past the named types
    k.graph_id = static_cast<std::uint32_t>(i % 3), k.graph_node_id = 0xffffffffffffffffull - static_cast<std::uint64_t>(i);
    b.add(raw::Tag::kKernel, k, kNames[static_cast<std::size_t>(i) % kNames.size()]);
    if (i % 2 == 0) b.add(raw::Tag::kLaunchCall, raw::LaunchCallRecord{k.start_ns - 700, k.start_ns - 600, k.correlation_id, 4243});
    if (i % 10 == 0) b.add(raw::Tag::kMemcpy, raw::MemcpyRecord{t, t + 500, 4096, static_cast<std::uint32_t>(i % 12), 0, 1, 7, k.correlation_id, 0});
    if (i % 25 == 0) b.add(raw::Tag::kMemset, raw::MemsetRecord{t, t + 100, 1 << 20, 0xff, 0, 1, 7, k.correlation_id, 0});
  }
  b.add(raw::Tag::kMemory, raw::MemoryRecord{1500, 0x7f0000000000, 4096, 1, 3, 0, 1});
  b.add(raw::Tag::kMemory, raw::MemoryRecord{1600, 0x7f0000100000, 1 << 20, 1, 2, 0, 1});
  b.add(raw::Tag::kMemory, raw::MemoryRecord{t, 0x7f0000000000, 4096, 2, 3, 0, 1});
  std::string failed = std::string("cudaLaunchKernel") + '\0' + "_Z4fillPfif";
  b.add(raw::Tag::kFailedLaunch, raw::FailedLaunchRecord{9, 77}, failed);
  // cudaProfilerStart/Stop around the first half, a start with no stop later: listed under run.capture_ranges.
  b.add(raw::Tag::kProfilerCall, raw::ProfilerCallRecord{1900, 0, 1});
  b.add(raw::Tag::kProfilerCall, raw::ProfilerCallRecord{t / 2, static_cast<std::uint32_t>(kernels / 2), 0});
  b.add(raw::Tag::kProfilerCall, raw::ProfilerCallRecord{t - 1, static_cast<std::uint32_t>(kernels + 1), 1});
  // An NVTX range around the run (with a quote in its name), a mark in a domain, and a range that never ends.
  b.add(raw::Tag::kMarker, raw::MarkerRecord{1800, 1, 2, 4242, 4243}, std::string("run \"all\"") + '\0');
  b.add(raw::Tag::kMarker, raw::MarkerRecord{1850, 2, 1, 4242, 4243}, std::string("mark") + '\0' + "domain");
  b.add(raw::Tag::kMarker, raw::MarkerRecord{1900, 3, 2, 4242, 4244}, "open");
  b.add(raw::Tag::kMarker, raw::MarkerRecord{t - 10, 1, 4, 4242, 4243});
  b.add(raw::Tag::kEnd, raw::EndRecord{t});
  std::vector<raw::Capture> captures{raw::read_capture(b.bytes(), "raw-4242.bin")};
  RunInfo run;
  run.command = {"python", "loop.py", "--name=\"x\""};
  run.start_time = "2026-11-22T22:00:00Z";
  run.host = "h100-host";
  run.tool_version = "0.0.0-test";
  run.duration_ns = 123456789;
  return build_trace(captures, run, KernelFilter(""));
}

/// Access-mode records on top (they come from access::add_access_captures, which has its own tests).
void add_accesses(Trace& t) {
  t.run.mode = "accesses";
  for (int i = 0; i < 3; ++i) {
    Access a;
    a.kernel = t.kernels[static_cast<std::size_t>(i)].name;
    a.process_id = t.kernels[static_cast<std::size_t>(i)].process_id;
    a.launch = static_cast<std::uint64_t>(i);
    a.block = {i, 1, 0};
    a.allocation = i - 1;
    a.argument = i == 2 ? -1 : i;
    a.argument_type = i == 0 ? "float const*" : "";
    a.ranges = {{0, 128}, {256, 512 + static_cast<std::uint64_t>(i)}};
    a.loads = 96, a.stores = 3, a.atomics = static_cast<std::uint64_t>(i);
    a.bytes_loaded = 384, a.bytes_stored = 12, a.bulk_copies = 1;
    a.sectors_per_request = i == 0 ? 4.0 : i == 1 ? 10.0 / 3 : std::nan("");
    a.active_lanes_per_request = 31.5;
    t.accesses.push_back(a);
  }
  Finding f;
  f.kernel = t.kernels[3].name;
  f.process_id = t.kernels[3].process_id;
  f.block = {3, 0, 0};
  f.thread = {232, 0, 0};
  f.pc_offset = 0x170;
  f.address = 0x7f3a2c000fa0;
  f.size = 4;
  f.operation = "load";
  f.allocation = 1;
  f.distance = -4;
  t.findings.push_back(f);
  t.tma_kernels = {t.kernels[1].name};
}

/// The document without its envelope (its "created" time and tool version change from run to run).
std::string body(const std::string& text) { return text.substr(text.find("\n  \"run\": ")); }

/// FNV-1a, 64 bits: pins a document too big to check in.
std::uint64_t fnv1a(std::string_view s) {
  std::uint64_t h = 0xcbf29ce484222325ull;
  for (unsigned char c : s) h = (h ^ c) * 0x100000001b3ull;
  return h;
}

}  // namespace

TEST_CASE("trace_writer: a small trace is written exactly as the checked-in expected text") {
  Trace t = built_trace(12);
  add_accesses(t);
  const std::string expected = vtools::read_input(VTOOLS_TEST_DATA "/vtrace/writer_expected.trace.json");
  CHECK(body(trace_document_text(t)) == body(expected));
}

TEST_CASE("trace_writer: a big trace (kernels formatted in chunks) keeps its bytes") {
  // Values from the writer before it was tuned (vtrace_perftest), for the same input; run.capture_ranges, nvtx_ranges and each kernel's launch call, ranges_exact/merged, finding_sites and findings_total since; access records by kernel_id (version 2), as rows of access_columns (version 3); each finding's source, sass and source_note; processes, device UUID/PCI bus/host and run.merged_from (issue 42); each kernel's launch_end_ns (issue 42, the launch call's slice in Perfetto); the process_id of access rows and findings (issue 42).
  Trace t = built_trace(40000);
  add_accesses(t);
  const std::string text = body(trace_document_text(t));
  CHECK(text.size() == 26580521);
  CHECK(fnv1a(text) == 4691114276956778604ull);
}
