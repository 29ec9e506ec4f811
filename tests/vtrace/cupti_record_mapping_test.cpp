// CUPTI activity records (CUDA 13.0 structs, filled by hand) -> raw records -> trace: the mapping the injection
// library applies inside the traced process, checked without a GPU.
#include <doctest/doctest.h>

#include "tools/vtrace/injection/cupti_record_mapping.hpp"
#include "tools/vtrace/raw_record_reader.hpp"
#include "tools/vtrace/trace_builder.hpp"

using namespace vtools::vtrace;

namespace {

raw::Capture capture_of(const raw::RecordBatch& records) {
  raw::RecordBatch file;
  file.add_magic();
  file.add(raw::Tag::kProcess, raw::ProcessRecord{9, 0});
  return raw::read_capture(file.bytes() + records.bytes(), "raw.bin");
}

}  // namespace

TEST_CASE("cupti_record_mapping: a concurrent-kernel record keeps every launch detail") {
  CUpti_ActivityKernel10 k{};
  k.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
  k.start = 1000;
  k.end = 3500;
  k.deviceId = 1;
  k.contextId = 2;
  k.streamId = 13;
  k.correlationId = 77;
  k.gridX = 8, k.gridY = 4, k.gridZ = 1;
  k.blockX = 16, k.blockY = 16, k.blockZ = 1;
  k.clusterX = 2, k.clusterY = 1, k.clusterZ = 1;
  k.registersPerThread = 40;
  k.staticSharedMemory = 256;
  k.dynamicSharedMemory = 1024;
  k.localMemoryPerThread = 16;
  k.localMemoryTotal_v2 = 1 << 20;
  k.launchType = CUPTI_ACTIVITY_LAUNCH_TYPE_COOPERATIVE_SINGLE_DEVICE;
  k.graphId = 5;
  k.graphNodeId = 6;
  k.name = "_Z7scale2dPfii";
  raw::RecordBatch batch;
  injection::add_activity_record(reinterpret_cast<const CUpti_Activity*>(&k), batch);
  Trace t = build_trace({capture_of(batch)}, RunInfo{}, KernelFilter(""));
  REQUIRE(t.kernels.size() == 1);
  const Kernel& out = t.kernels[0];
  CHECK(out.name == "scale2d(float*, int, int)");
  CHECK(out.mangled_name == "_Z7scale2dPfii");
  CHECK(out.start_ns == 1000);
  CHECK(out.end_ns == 3500);
  CHECK(out.device_id == 1);
  CHECK(out.context_id == 2);
  CHECK(out.stream_id == 13);
  CHECK(out.correlation_id == 77);
  CHECK(out.grid == Dim3{8, 4, 1});
  CHECK(out.block == Dim3{16, 16, 1});
  CHECK(out.cluster == Dim3{2, 1, 1});
  CHECK(out.registers_per_thread == 40);
  CHECK(out.static_shared_bytes == 256);
  CHECK(out.dynamic_shared_bytes == 1024);
  CHECK(out.local_bytes_per_thread == 16);
  CHECK(out.local_bytes_total == (1 << 20));
  CHECK(out.launch_type == "cooperative_single_device");
  CHECK(out.graph_id == 5);
  CHECK(out.graph_node_id == 6);
}

TEST_CASE("cupti_record_mapping: memcpy, memset, memory and device records") {
  CUpti_ActivityMemcpy6 m{};
  m.kind = CUPTI_ACTIVITY_KIND_MEMCPY;
  m.copyKind = CUPTI_ACTIVITY_MEMCPY_KIND_DTOH;
  m.bytes = 4000;
  m.start = 10;
  m.end = 30;
  m.streamId = 7;
  CUpti_ActivityMemset4 s{};
  s.kind = CUPTI_ACTIVITY_KIND_MEMSET;
  s.bytes = 16384;
  s.value = 255;
  s.start = 40;
  s.end = 45;
  CUpti_ActivityMemory4 a{};
  a.kind = CUPTI_ACTIVITY_KIND_MEMORY2;
  a.memoryOperationType = CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_ALLOCATION;
  a.memoryKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
  a.address = 0x7f0000000000;
  a.bytes = 4000;
  a.timestamp = 5;
  CUpti_ActivityMemory4 f = a;
  f.memoryOperationType = CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_RELEASE;
  f.timestamp = 50;
  CUpti_ActivityDevice5 d{};
  d.kind = CUPTI_ACTIVITY_KIND_DEVICE;
  d.id = 0;
  d.computeCapabilityMajor = 9;
  d.computeCapabilityMinor = 0;
  d.numMultiprocessors = 132;
  d.globalMemorySize = 85045460992ull;
  d.name = "NVIDIA H100 80GB HBM3";
  CUpti_ActivityAPI ignored{};
  ignored.kind = CUPTI_ACTIVITY_KIND_OVERHEAD;  // a kind vtrace does not record (only its kind is read)
  raw::RecordBatch batch;
  for (const void* r : {static_cast<const void*>(&m), static_cast<const void*>(&s), static_cast<const void*>(&a),
                        static_cast<const void*>(&f), static_cast<const void*>(&d), static_cast<const void*>(&ignored)})
    injection::add_activity_record(static_cast<const CUpti_Activity*>(r), batch);
  CHECK(batch.records() == 5);
  Trace t = build_trace({capture_of(batch)}, RunInfo{}, KernelFilter(""));
  REQUIRE(t.memcpys.size() == 1);
  CHECK(t.memcpys[0].kind == "dtoh");
  CHECK(t.memcpys[0].bytes == 4000);
  CHECK(t.memcpys[0].stream_id == 7);
  REQUIRE(t.memsets.size() == 1);
  CHECK(t.memsets[0].value == 255);
  REQUIRE(t.allocations.size() == 1);
  CHECK(t.allocations[0].size == 4000);
  CHECK(t.allocations[0].memory_kind == "device");
  CHECK(t.allocations[0].freed_ns == std::optional<std::uint64_t>(50));
  REQUIRE(t.devices.size() == 1);
  CHECK(t.devices[0].name == "NVIDIA H100 80GB HBM3");
  CHECK(t.devices[0].compute_capability == "9.0");
  CHECK(t.devices[0].sm_count == 132);
  CHECK(t.devices[0].memory_bytes == 85045460992ull);
}

TEST_CASE("cupti_record_mapping: NVTX marker records become ranges of their thread, by marker id") {
  auto marker = [](CUpti_ActivityFlag flags, std::uint64_t t, std::uint32_t id, const char* name,
                   const char* domain) {
    CUpti_ActivityMarker2 m{};
    m.kind = CUPTI_ACTIVITY_KIND_MARKER;
    m.flags = flags;
    m.timestamp = t;
    m.id = id;
    m.objectKind = CUPTI_ACTIVITY_OBJECT_THREAD;
    m.objectId.pt.processId = 9;
    m.objectId.pt.threadId = 4711;
    m.name = name;
    m.domain = domain;
    return m;
  };
  raw::RecordBatch b;
  // A push at 100, a mark at 150 in another domain, the pop at 300 (CUPTI names only the start).
  const CUpti_ActivityMarker2 records[] = {marker(CUPTI_ACTIVITY_FLAG_MARKER_START, 100, 1, "forward", nullptr),
                                           marker(CUPTI_ACTIVITY_FLAG_MARKER_INSTANTANEOUS, 150, 2, "step", "train"),
                                           marker(CUPTI_ACTIVITY_FLAG_MARKER_END, 300, 1, nullptr, nullptr)};
  for (const auto& m : records) injection::add_activity_record(reinterpret_cast<const CUpti_Activity*>(&m), b);
  const raw::Capture c = capture_of(b);
  REQUIRE(c.markers.size() == 3);
  CHECK(c.markers[1].domain == "train");
  const Trace t = build_trace({c}, RunInfo{}, KernelFilter(""));
  REQUIRE(t.nvtx_ranges.size() == 2);
  CHECK(t.nvtx_ranges[0].name == "forward");
  CHECK(t.nvtx_ranges[0].domain == "");
  CHECK(t.nvtx_ranges[0].process_id == 9);
  CHECK(t.nvtx_ranges[0].thread_id == 4711);
  CHECK(t.nvtx_ranges[0].start_ns == 100);
  CHECK(t.nvtx_ranges[0].end_ns == 300);
  CHECK_FALSE(t.nvtx_ranges[0].mark);
  CHECK(t.nvtx_ranges[1].name == "step");
  CHECK(t.nvtx_ranges[1].mark);
  CHECK(t.nvtx_ranges[1].end_ns == 150);
}

TEST_CASE("cupti_record_mapping: a launch call's API record gives its kernel the thread and host time") {
  CUpti_ActivityKernel10 k{};
  k.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
  k.start = 5000;
  k.end = 6000;
  k.correlationId = 31;
  k.name = "_Z4fillPfif";
  CUpti_ActivityAPI call{};
  call.kind = CUPTI_ACTIVITY_KIND_RUNTIME;
  call.start = 4000;
  call.end = 4100;
  call.threadId = 4711;
  call.correlationId = 31;
  call.cbid = CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000;
  CUpti_ActivityAPI other = call;  // the driver call inside it: another correlation id, no kernel
  other.kind = CUPTI_ACTIVITY_KIND_DRIVER;
  other.correlationId = 32;
  other.cbid = CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel;
  raw::RecordBatch b;
  for (const void* rec : {static_cast<const void*>(&call), static_cast<const void*>(&other),
                          static_cast<const void*>(&k)}) {
    injection::add_activity_record(static_cast<const CUpti_Activity*>(rec), b);
  }
  const raw::Capture c = capture_of(b);
  REQUIRE(c.launch_calls.size() == 2);
  const Trace t = build_trace({c}, RunInfo{}, KernelFilter(""));
  REQUIRE(t.kernels.size() == 1);
  CHECK(t.kernels[0].thread_id == 4711);
  CHECK(t.kernels[0].launch_ns == 4000);
}

TEST_CASE("cupti_record_mapping: --api blocking calls become named API calls; a driver call inside a runtime one is dropped") {
  CUpti_ActivityAPI sync{};
  sync.kind = CUPTI_ACTIVITY_KIND_RUNTIME;
  sync.cbid = CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_v3020;
  sync.start = 1000;
  sync.end = 9000;
  sync.threadId = 7;
  sync.correlationId = 40;
  CUpti_ActivityAPI inner = sync;  // what cudaStreamSynchronize calls in the driver: the same wait
  inner.kind = CUPTI_ACTIVITY_KIND_DRIVER;
  inner.cbid = CUPTI_DRIVER_TRACE_CBID_cuStreamSynchronize;
  inner.start = 1100;
  inner.end = 8900;
  inner.correlationId = 41;
  CUpti_ActivityAPI own = inner;  // a driver call of its own (Triton's host code): kept
  own.start = 12000;
  own.end = 15000;
  own.correlationId = 42;
  raw::RecordBatch b;
  b.add(raw::Tag::kApiName, raw::ApiNameRecord{CUPTI_CB_DOMAIN_RUNTIME_API, sync.cbid}, "cudaStreamSynchronize_v3020");
  b.add(raw::Tag::kApiName, raw::ApiNameRecord{CUPTI_CB_DOMAIN_DRIVER_API, inner.cbid}, "cuStreamSynchronize_v2");
  for (const void* rec :
       {static_cast<const void*>(&inner), static_cast<const void*>(&sync), static_cast<const void*>(&own)})
    injection::add_activity_record(static_cast<const CUpti_Activity*>(rec), b);
  const raw::Capture c = capture_of(b);
  REQUIRE(c.api_calls.size() == 3);
  CHECK(c.launch_calls.empty());
  const Trace t = build_trace({c}, RunInfo{}, KernelFilter(""));
  REQUIRE(t.api_calls.size() == 2);
  CHECK(t.api_calls[0].name == "cudaStreamSynchronize");
  CHECK(t.api_calls[0].start_ns == 1000);
  CHECK(t.api_calls[0].end_ns == 9000);
  CHECK(t.api_calls[0].thread_id == 7);
  CHECK(t.api_calls[1].name == "cuStreamSynchronize_v2");  // a driver _v2 is the symbol's own
  CHECK(t.api_calls[1].start_ns == 12000);
}
