// libvtrace_cupti.so: the CUPTI injection library `vtrace run` puts into the traced program through
// CUDA_INJECTION64_PATH (the driver calls InitializeInjection from cuInit). It records kernels (concurrent-kernel
// records), memcpy, memset, allocations, devices, failed launch calls, cudaProfilerStart/Stop calls (for
// --capture-range; always recorded, they are rare) and, with --nvtx (VTRACE_NVTX=1), NVTX ranges (marker records:
// vtrace run points NVTX_INJECTION64_PATH at this library, which hands NVTX to its libcupti) and the thread and
// host time of each launch call, converts each CUPTI record into the plain structs of raw_records.hpp and appends
// them to $VTRACE_RAW_DIR/raw-<pid>.bin (raw_record_sink.hpp). It runs inside someone else's process: no exception
// leaves a callback, nothing calls exit(), failures become notes or dropped-record counts.
#include <cuda.h>
#include <cupti.h>
#include <dlfcn.h>
#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <string>

#include "tools/vtrace/injection/cubin_symbols.hpp"
#include "tools/vtrace/injection/cupti_record_mapping.hpp"
#include "tools/vtrace/injection/process_records.hpp"
#include "tools/vtrace/injection/raw_record_sink.hpp"
#include "tools/vtrace/raw_record_writer.hpp"

namespace vtools::vtrace::injection {

namespace {

using raw::RecordBatch;
using raw::Tag;

constexpr std::size_t kBufferBytes = 8u << 20;
constexpr int kFatalSignals[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGTERM};

RawRecordSink g_sink;  // $VTRACE_RAW_DIR/raw-<pid>.bin
std::atomic<bool> g_in_fatal{false};
CUpti_SubscriberHandle g_subscriber = nullptr;
struct sigaction g_old_actions[65];
thread_local int t_runtime_depth = 0;     // > 0 while inside a runtime launch call (driver failures are reported there)

std::uint64_t now_ns() {
  std::uint64_t t = 0;
  cuptiGetTimestamp(&t);
  return t;
}

/// CLOCK_REALTIME read around a CUPTI timestamp (process_records.hpp).
raw::ClockAnchorRecord clock_anchor() noexcept { return injection::clock_anchor(raw::kClockCupti, now_ns); }

std::string cupti_error(CUptiResult r) {
  const char* s = nullptr;
  cuptiGetResultString(r, &s);
  return s ? s : "CUPTI error " + std::to_string(static_cast<int>(r));
}

void CUPTIAPI buffer_requested(uint8_t** buffer, size_t* size, size_t* max_records) {
  *max_records = 0;
  void* p = nullptr;
  if (posix_memalign(&p, 8, kBufferBytes) != 0) p = nullptr;  // CUPTI counts what it cannot store as dropped
  *buffer = static_cast<uint8_t*>(p);
  *size = p ? kBufferBytes : 0;
}

void CUPTIAPI buffer_completed(CUcontext ctx, uint32_t stream_id, uint8_t* buffer, size_t, size_t valid_size) {
  try {
    RecordBatch batch;
    CUpti_Activity* rec = nullptr;
    while (cuptiActivityGetNextRecord(buffer, valid_size, &rec) == CUPTI_SUCCESS) add_activity_record(rec, batch);
    size_t dropped = 0;
    if (cuptiActivityGetNumDroppedRecords(ctx, stream_id, &dropped) == CUPTI_SUCCESS && dropped > 0)
      batch.add(Tag::kDropped, raw::DroppedRecord{dropped});
    g_sink.write(batch);
  } catch (...) {
    g_sink.count_lost();
  }
  std::free(buffer);
}

/// The context's device: properties, UUID and PCI location (process_records.hpp).
void record_device(CUcontext ctx) {
  uint32_t id = 0;
  if (cuptiGetDeviceId(ctx, &id) != CUPTI_SUCCESS) return;
  RecordBatch b;
  add_device_records(b, static_cast<int>(id));
  if (b.records() > 0) g_sink.write(b);
}

/// A hash of each function's code in a module just loaded (vtrace diff tells same code from new code by it).
void record_function_codes(const CUpti_ResourceData* resource) {
  const auto* module = static_cast<const CUpti_ModuleResourceData*>(resource->resourceDescriptor);
  if (!module || !module->pCubin) return;
  RecordBatch b;
  for (const auto& f : cubin_function_codes(module->pCubin, module->cubinSize))
    b.add(Tag::kFunctionCode, raw::FunctionCodeRecord{f.hash, f.bytes}, f.name);
  g_sink.write(b);
}

void record_failed_launch(const CUpti_CallbackData* cb) {
  int status = cb->functionReturnValue ? *static_cast<const int*>(cb->functionReturnValue) : 0;
  if (status == 0) return;
  std::string tail = cb->functionName ? cb->functionName : "";
  tail.push_back('\0');
  if (cb->symbolName) tail += cb->symbolName;
  RecordBatch b;
  b.add(Tag::kFailedLaunch, raw::FailedLaunchRecord{status, cb->correlationId}, tail);
  g_sink.write(b);
}

/// 1 for a profiler start call, 0 for a stop, -1 for anything else. The runtime's calls reach the driver's too;
/// the trace builder takes a start while a range is open (or a stop while none is) as the same call.
int profiler_call(CUpti_CallbackDomain domain, CUpti_CallbackId cbid) {
  if (domain == CUPTI_CB_DOMAIN_RUNTIME_API) {
    if (cbid == CUPTI_RUNTIME_TRACE_CBID_cudaProfilerStart_v4000) return 1;
    if (cbid == CUPTI_RUNTIME_TRACE_CBID_cudaProfilerStop_v4000) return 0;
  } else if (domain == CUPTI_CB_DOMAIN_DRIVER_API) {
    if (cbid == CUPTI_DRIVER_TRACE_CBID_cuProfilerStart) return 1;
    if (cbid == CUPTI_DRIVER_TRACE_CBID_cuProfilerStop) return 0;
  }
  return -1;
}

void CUPTIAPI on_callback(void*, CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const void* data) {
  try {
    if (domain == CUPTI_CB_DOMAIN_RESOURCE) {
      const auto* resource = static_cast<const CUpti_ResourceData*>(data);
      if (cbid == CUPTI_CBID_RESOURCE_CONTEXT_CREATED) record_device(resource->context);
      if (cbid == CUPTI_CBID_RESOURCE_MODULE_LOADED) record_function_codes(resource);
      return;
    }
    const auto* cb = static_cast<const CUpti_CallbackData*>(data);
    if (const int start = profiler_call(domain, cbid); start >= 0) {
      if (cb->callbackSite == CUPTI_API_ENTER) {  // its correlation id orders it among the launches
        RecordBatch b;
        b.add(Tag::kProfilerCall, raw::ProfilerCallRecord{now_ns(), cb->correlationId, static_cast<uint32_t>(start)});
        g_sink.write(b);
      }
      return;
    }
    if (domain == CUPTI_CB_DOMAIN_RUNTIME_API) {
      if (cb->callbackSite == CUPTI_API_ENTER) {
        ++t_runtime_depth;
        return;
      }
      --t_runtime_depth;
      record_failed_launch(cb);
    } else if (domain == CUPTI_CB_DOMAIN_DRIVER_API && cb->callbackSite == CUPTI_API_EXIT && t_runtime_depth == 0) {
      record_failed_launch(cb);  // a direct driver launch (Triton, cuBLASLt graphs); runtime ones report above
    }
  } catch (...) {
    g_sink.count_lost();
  }
}

/// Flushes every buffer and writes the end record; runs once, at exit.
void finish() {
  if (!g_sink.begin_finish()) return;
  cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  g_sink.close_with([](RecordBatch& b) {
    b.add(Tag::kClockAnchor, clock_anchor());  // the end anchor: the clocks' drift over the run
    b.add(Tag::kEnd, raw::EndRecord{now_ns()});
  });
}

/// Fatal signal: flush what CUPTI holds (best effort, bounded by an alarm), then let the previous disposition act.
/// No end record, so the trace is marked partial.
void on_fatal_signal(int sig) {
  if (!g_in_fatal.exchange(true) && !g_sink.finished()) {
    alarm(10);
    cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  }
  sigaction(sig, &g_old_actions[sig], nullptr);
  raise(sig);
}

void install_signal_handlers() {
  for (int sig : kFatalSignals) {
    struct sigaction sa {};
    sa.sa_handler = on_fatal_signal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESETHAND;
    sigaction(sig, &sa, &g_old_actions[sig]);
  }
}

/// A forked child shares the file but not CUPTI's state: make it inert.
void after_fork_in_child() { g_sink.detach_after_fork(); }

/// API activity records for the launch calls only (not every API call, as the RUNTIME kind would): each kernel gets
/// the thread and host time of its launch, which places it in the NVTX ranges of that thread.
void enable_launch_call_records() {
  bool ok = true;
  for (auto id : kRuntimeLaunches) ok = cuptiActivityEnableRuntimeApi(id, 1) == CUPTI_SUCCESS && ok;
  for (auto id : kDriverLaunches) ok = cuptiActivityEnableDriverApi(id, 1) == CUPTI_SUCCESS && ok;
  if (!ok) g_sink.write_note("CUPTI refused launch-call records: kernels have no launch thread or time, NVTX ranges no kernels");
}

/// --api: API activity records for the calls that can block the host (kRuntimeBlocking, kDriverBlocking), each
/// function named once in the file (kApiName) so the parent needs no CUPTI to name them.
void enable_blocking_call_records() {
  RecordBatch b;
  auto enable = [&](CUpti_CallbackDomain domain, CUpti_CallbackId id) {
    const CUptiResult r = domain == CUPTI_CB_DOMAIN_RUNTIME_API ? cuptiActivityEnableRuntimeApi(id, 1)
                                                                : cuptiActivityEnableDriverApi(id, 1);
    if (r != CUPTI_SUCCESS) return false;
    const char* name = nullptr;
    if (cuptiGetCallbackName(domain, id, &name) != CUPTI_SUCCESS || !name) name = "";
    b.add(Tag::kApiName, raw::ApiNameRecord{static_cast<std::uint32_t>(domain), id}, name);
    return true;
  };
  bool ok = true;
  for (auto id : kRuntimeBlocking) ok = enable(CUPTI_CB_DOMAIN_RUNTIME_API, id) && ok;
  for (auto id : kDriverBlocking) ok = enable(CUPTI_CB_DOMAIN_DRIVER_API, id) && ok;
  g_sink.write(b);
  if (!ok) g_sink.write_note("CUPTI refused records of some blocking CUDA calls (--api): those calls are missing");
}

void enable_callbacks() {
  cuptiEnableCallback(1, g_subscriber, CUPTI_CB_DOMAIN_RESOURCE, CUPTI_CBID_RESOURCE_CONTEXT_CREATED);
  cuptiEnableCallback(1, g_subscriber, CUPTI_CB_DOMAIN_RESOURCE, CUPTI_CBID_RESOURCE_MODULE_LOADED);
  for (auto id : kRuntimeLaunches) cuptiEnableCallback(1, g_subscriber, CUPTI_CB_DOMAIN_RUNTIME_API, id);
  for (auto id : {CUPTI_RUNTIME_TRACE_CBID_cudaProfilerStart_v4000, CUPTI_RUNTIME_TRACE_CBID_cudaProfilerStop_v4000})
    cuptiEnableCallback(1, g_subscriber, CUPTI_CB_DOMAIN_RUNTIME_API, id);
  for (auto id : kDriverLaunches) cuptiEnableCallback(1, g_subscriber, CUPTI_CB_DOMAIN_DRIVER_API, id);
  for (auto id : {CUPTI_DRIVER_TRACE_CBID_cuProfilerStart, CUPTI_DRIVER_TRACE_CBID_cuProfilerStop})
    cuptiEnableCallback(1, g_subscriber, CUPTI_CB_DOMAIN_DRIVER_API, id);
}

int initialize() noexcept {
  static std::atomic<bool> initialised{false};
  if (initialised.exchange(true)) return 1;
  const char* dir = std::getenv("VTRACE_RAW_DIR");
  if (!dir || !*dir) return 1;  // loaded outside vtrace: stay inert
  try {
    if (!g_sink.open(dir)) return 1;
    RecordBatch b;
    b.add_magic();
    b.add(Tag::kProcess, raw::ProcessRecord{getpid(), now_ns()});
    b.add_bytes_record(Tag::kIdentity, identity_bytes());
    b.add(Tag::kClockAnchor, clock_anchor());
    g_sink.write(b);
    pthread_atfork(nullptr, nullptr, after_fork_in_child);

    CUptiResult r = cuptiSubscribe(&g_subscriber, on_callback, nullptr);
    if (r != CUPTI_SUCCESS) {
      g_sink.write_note("CUPTI is already in use in process " + std::to_string(getpid()) + " (cuptiSubscribe: " +
                 cupti_error(r) + "); its kernels are not traced");
      finish();
      return 1;
    }
    enable_callbacks();
    r = cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed);
    if (r != CUPTI_SUCCESS) {
      g_sink.write_note("cuptiActivityRegisterCallbacks failed in process " + std::to_string(getpid()) + ": " +
                 cupti_error(r) + "; its kernels are not traced");
      finish();
      return 1;
    }
    // vtrace run --nvtx: NVTX ranges, and the launch calls that place kernels in them.
    const char* nvtx_env = std::getenv("VTRACE_NVTX");
    const bool nvtx = nvtx_env && std::strcmp(nvtx_env, "1") == 0;
    const std::pair<CUpti_ActivityKind, const char*> kinds[] = {
        {CUPTI_ACTIVITY_KIND_DEVICE, "DEVICE"},   {CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, "CONCURRENT_KERNEL"},
        {CUPTI_ACTIVITY_KIND_MEMCPY, "MEMCPY"},   {CUPTI_ACTIVITY_KIND_MEMSET, "MEMSET"},
        {CUPTI_ACTIVITY_KIND_MEMORY2, "MEMORY2"}, {CUPTI_ACTIVITY_KIND_MARKER, "MARKER"}};
    for (const auto& [kind, name] : kinds) {
      if (kind == CUPTI_ACTIVITY_KIND_MARKER && !nvtx) continue;
      r = cuptiActivityEnable(kind);
      // Device records also come from the context-created callback, so a refused DEVICE kind is not worth a note.
      if (r != CUPTI_SUCCESS && kind != CUPTI_ACTIVITY_KIND_DEVICE)
        g_sink.write_note(std::string("cuptiActivityEnable(") + name + ") failed: " + cupti_error(r) +
                   (kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL ? "; kernels are not traced"
                    : kind == CUPTI_ACTIVITY_KIND_MARKER          ? "; NVTX ranges are not traced"
                                                                  : ""));
    }
    // vtrace run --api: the blocking calls, and the launch calls that give each kernel its queue delay.
    const char* api_env = std::getenv("VTRACE_API");
    const bool api = api_env && std::strcmp(api_env, "1") == 0;
    if (nvtx || api) enable_launch_call_records();
    if (api) enable_blocking_call_records();
    std::atexit(finish);
    install_signal_handlers();
  } catch (...) {
    g_sink.count_lost();
  }
  return 1;
}

/// Calls `entry` of the libcupti this library is bound to in this process. Naming a libcupti in
/// NVTX_INJECTION64_PATH instead fails where the program carries a copy of its own (PyTorch's wheel does): this
/// library binds to the copy loaded first, and NVTX would initialise the other, which records nothing.
int forward_to_cupti(const char* entry, const void* argument) {
  Dl_info info{};
  if (!dladdr(reinterpret_cast<void*>(&cuptiActivityEnable), &info) || !info.dli_fname) return 0;
  void* cupti = dlopen(info.dli_fname, RTLD_LAZY | RTLD_NOLOAD);  // the bound copy, by its own path; kept open
  if (!cupti) return 0;
  using Initialize = int (*)(const void*);
  auto initialize = reinterpret_cast<Initialize>(dlsym(cupti, entry));
  return initialize ? initialize(argument) : 0;
}

}  // namespace

}  // namespace vtools::vtrace::injection

/// Called by NVTX (version 2 and 3) at the program's first NVTX call when NVTX_INJECTION64_PATH names this library
/// (vtrace run sets it): CUPTI then records the program's ranges as marker activity. 0 = no NVTX injection.
extern "C" __attribute__((visibility("default"))) int InitializeInjectionNvtx2(const void* get_export_table) {
  return vtools::vtrace::injection::forward_to_cupti("InitializeInjectionNvtx2", get_export_table);
}

/// The same for NVTX version 1 (libnvToolsExt before CUDA 10).
extern "C" __attribute__((visibility("default"))) int InitializeInjectionNvtx(const void* get_export_table) {
  return vtools::vtrace::injection::forward_to_cupti("InitializeInjectionNvtx", get_export_table);
}

/// Called by the CUDA driver during cuInit when CUDA_INJECTION64_PATH names this library; 1 = success.
extern "C" __attribute__((visibility("default"))) int InitializeInjection(void) {
  return vtools::vtrace::injection::initialize();
}
