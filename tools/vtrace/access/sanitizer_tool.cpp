// libvtrace_access.so: the Compute Sanitizer API tool `vtrace run --accesses` preloads (LD_PRELOAD) into the
// command. Only the process whose pid is $VTRACE_TARGET_PID subscribes; every other process that inherits the
// preload (compilers Triton spawns, shells) stays inert. It loads the device patches ($VTRACE_ACCESS_PATCHES) per
// context, patches global accesses, cp.async and cp.async.bulk copies of every module, gives each recorded launch a
// device buffer, reads it back at launch end (after sanitizerStreamSynchronize: a plain copy does not wait for the
// kernel) and appends allocations, launches and warp accesses to $VTRACE_RAW_DIR/raw-<pid>.bin. The host folds them
// (access_aggregator). Like the CUPTI library: no exception leaves a callback, nothing exits, losses are counted.
#include <cxxabi.h>
#include <fcntl.h>
#include <cuda.h>
#include <dlfcn.h>
#include <sanitizer.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <regex>
#include <string>
#include <vector>

#include "tools/vtrace/access/access_records.hpp"
#include "tools/vtrace/access/device_block_filter.hpp"
#include "tools/vtrace/raw_record_writer.hpp"

namespace vtools::vtrace::access_tool {

namespace {

using raw::RecordBatch;
using raw::Tag;

struct Settings {
  std::string patches;
  std::optional<std::regex> kernel;
  long long launch = -1;
  std::uint64_t max_bytes = 64ull << 20;
  raw::DeviceBlockFilter blocks{};  ///< --blocks when it fits the device filter, else every block (the host filters)
};

struct PendingLaunch {
  bool recorded = false;
  raw::LaunchRecord record{};
  std::string name;
  void* d_buffer = nullptr;
  /// Source of the asynchronous header copy: on the heap, so it stays put until launch end has synchronized.
  std::shared_ptr<raw::DeviceAccessBuffer> header;
  std::string params;  ///< pointer_sized_params of the launch
  CUcontext context = nullptr;
  CUmodule module = nullptr;
};

std::atomic<int> g_fd{-1};
std::atomic<std::uint64_t> g_lost{0};
std::atomic<bool> g_finished{false};
Settings g_settings;
Sanitizer_SubscriberHandle g_subscriber = nullptr;
std::mutex g_mutex;  // launch counters
std::map<std::string, std::uint64_t> g_launch_counts;
thread_local PendingLaunch t_pending;
thread_local void** t_kernel_params = nullptr;

// The argument lists of the launch calls as the API callbacks pass them (functionParams). They mirror the
// generated_cuda*_meta.h structs, whose headers track the newest toolkit and do not compile against older cuda.h;
// the argument lists of these frozen API entry points do not change.
struct CuLaunchKernelArgs {
  CUfunction f;
  unsigned grid[3], block[3], shared_bytes;
  CUstream stream;
  void** kernel_params;
  void** extra;
};
struct CuLaunchKernelExArgs {
  const void* config;
  CUfunction f;
  void** kernel_params;
  void** extra;
};
struct CudaLaunchKernelArgs {
  const void* func;
  unsigned grid[3], block[3];  // dim3
  void** args;
};
struct CudaLaunchKernelExCArgs {
  const void* config;
  const void* func;
  void** args;
};  // kernelParams/args of the launch API call in progress

/// The 8-byte parameters of `function` read from `params` (cuFuncGetParamInfo, CUDA 12.4+): candidate pointers
/// for the host's argument mapping. Empty when the driver cannot say.
std::string pointer_sized_params(CUfunction function, void** params) {
  using GetParamInfo = CUresult (*)(CUfunction, size_t, size_t*, size_t*);
  static GetParamInfo get_info = [] {
    void* cuda = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_NOLOAD);
    return cuda ? reinterpret_cast<GetParamInfo>(dlsym(cuda, "cuFuncGetParamInfo")) : nullptr;
  }();
  std::string words;
  if (!get_info || !params || !function) return words;
  for (size_t i = 0; i < 256; ++i) {
    size_t offset = 0, size = 0;
    if (get_info(function, i, &offset, &size) != CUDA_SUCCESS) break;
    std::uint64_t value = 0;
    if (size == 8 && params[i]) std::memcpy(&value, params[i], 8);
    words.append(reinterpret_cast<const char*>(&value), 8);  // one word per parameter, 0 when not pointer-sized
  }
  return words;
}

void write_batch(const RecordBatch& batch) noexcept {
  if (batch.bytes().empty()) return;
  int fd = g_fd.load();
  if (fd < 0 || !raw::append_to_fd(fd, batch.bytes())) g_lost += batch.records();
}

void write_note(const std::string& message) noexcept {
  try {
    RecordBatch b;
    b.add_note(message);
    write_batch(b);
  } catch (...) {
    ++g_lost;
  }
}

std::string result_text(SanitizerResult r) {
  const char* s = nullptr;
  sanitizerGetResultString(r, &s);
  return s ? s : "error " + std::to_string(static_cast<int>(r));
}

void on_memory(const Sanitizer_ResourceMemoryData* m, bool allocated) {
  raw::MemoryRecord r{};
  static std::atomic<std::uint64_t> sequence{0};
  r.timestamp_ns = ++sequence;  // order only; access mode has no device clock
  r.address = m->address;
  r.bytes = m->size;
  r.operation = allocated ? 1 : 2;
  r.memory_kind = 3;  // device
  r.device_id = static_cast<std::uint32_t>(m->device);
  RecordBatch b;
  b.add(Tag::kMemory, r);
  write_batch(b);
}

void on_module_loaded(const Sanitizer_ResourceModuleData* m) {
  SanitizerResult r1 = sanitizerPatchInstructions(SANITIZER_INSTRUCTION_GLOBAL_MEMORY_ACCESS, m->module,
                                                  "vtrace_global_access");
  SanitizerResult r2 = sanitizerPatchInstructions(SANITIZER_INSTRUCTION_MEMCPY_ASYNC, m->module, "vtrace_memcpy_async");
  SanitizerResult r3 = sanitizerPatchInstructions(SANITIZER_INSTRUCTION_BULK_COPY_GLOBAL_TO_SHARED, m->module,
                                                  "vtrace_bulk_global_to_shared");
  SanitizerResult r4 = sanitizerPatchInstructions(SANITIZER_INSTRUCTION_BULK_COPY_SHARED_TO_GLOBAL, m->module,
                                                  "vtrace_bulk_shared_to_global");
  SanitizerResult r5 = sanitizerPatchModule(m->module);
  for (SanitizerResult r : {r1, r2, r5})
    if (r != SANITIZER_SUCCESS) {
      write_note("patching a module failed (" + result_text(r) + "); its kernels' accesses are not recorded");
      return;
    }
  if (r3 != SANITIZER_SUCCESS || r4 != SANITIZER_SUCCESS)
    write_note("patching cp.async.bulk in a module failed (" + result_text(r3 != SANITIZER_SUCCESS ? r3 : r4) +
               "); its kernels' bulk copies are not recorded");
}

/// --kernel matches the demangled or the mangled name, as in launch mode (kernel_filter.hpp).
bool kernel_selected(const std::string& mangled) {
  if (!g_settings.kernel) return true;
  if (std::regex_search(mangled, *g_settings.kernel)) return true;
  int status = 0;
  char* demangled = abi::__cxa_demangle(mangled.c_str(), nullptr, nullptr, &status);
  bool match = status == 0 && demangled && std::regex_search(demangled, *g_settings.kernel);
  std::free(demangled);
  return match;
}

void on_launch_begin(const Sanitizer_LaunchData* l) {
  PendingLaunch p;
  p.name = l->functionName ? l->functionName : "";
  {
    std::lock_guard<std::mutex> lock(g_mutex);
    p.record.kernel_launch = g_launch_counts[p.name]++;
  }
  p.record.grid[0] = static_cast<std::int32_t>(l->gridDim_x);
  p.record.grid[1] = static_cast<std::int32_t>(l->gridDim_y);
  p.record.grid[2] = static_cast<std::int32_t>(l->gridDim_z);
  p.record.block[0] = static_cast<std::int32_t>(l->blockDim_x);
  p.record.block[1] = static_cast<std::int32_t>(l->blockDim_y);
  p.record.block[2] = static_cast<std::int32_t>(l->blockDim_z);
  p.recorded = kernel_selected(p.name) &&
               (g_settings.launch < 0 || static_cast<long long>(p.record.kernel_launch) == g_settings.launch);
  p.context = l->context;
  p.module = l->module;
  void* d_buffer = nullptr;
  if (p.recorded) {
    std::uint64_t capacity =
        (g_settings.max_bytes - sizeof(raw::DeviceAccessBuffer)) / sizeof(raw::WarpAccessRecord) + 1;
    std::size_t bytes = sizeof(raw::DeviceAccessBuffer) + (capacity - 1) * sizeof(raw::WarpAccessRecord);
    if (sanitizerAlloc(l->context, &d_buffer, bytes) != SANITIZER_SUCCESS) {
      write_note("sanitizerAlloc of " + std::to_string(bytes) + " bytes failed; launch " +
                 std::to_string(p.record.kernel_launch) + " of " + p.name + " is not recorded");
      d_buffer = nullptr;
      p.recorded = false;
    } else {
      p.header = std::make_shared<raw::DeviceAccessBuffer>();
      *p.header = raw::DeviceAccessBuffer{};
      p.header->capacity = capacity;
      p.header->blocks = g_settings.blocks;
      sanitizerMemcpyHostToDeviceAsync(d_buffer, p.header.get(), offsetof(raw::DeviceAccessBuffer, records),
                                       l->hStream);
    }
  }
  p.d_buffer = d_buffer;
  if (p.recorded) p.params = pointer_sized_params(l->function, t_kernel_params);
  sanitizerSetLaunchCallbackData(l->hLaunch, l->function, l->hStream, d_buffer);
  t_pending = std::move(p);
}

void on_launch_end(const Sanitizer_LaunchData* l) {
  PendingLaunch p = std::move(t_pending);
  t_pending = PendingLaunch{};
  RecordBatch b;
  std::vector<raw::WarpAccessRecord> records;
  if (p.recorded && p.d_buffer) {
    sanitizerStreamSynchronize(l->hStream);
    raw::DeviceAccessBuffer header{};
    sanitizerMemcpyDeviceToHost(&header, p.d_buffer, offsetof(raw::DeviceAccessBuffer, records), l->hStream);
    std::uint64_t n = std::min<std::uint64_t>(header.count, header.capacity);
    records.resize(n);
    if (n)
      sanitizerMemcpyDeviceToHost(records.data(), static_cast<char*>(p.d_buffer) + offsetof(raw::DeviceAccessBuffer, records),
                                  n * sizeof(raw::WarpAccessRecord), l->hStream);
    sanitizerFree(p.context, p.d_buffer);
    p.record.warps_recorded = n;
    p.record.warps_dropped = header.dropped;
    std::uint64_t function_pc = 0, function_size = 0;
    if (p.module && sanitizerGetFunctionPcAndSize(p.module, p.name.c_str(), &function_pc, &function_size) ==
                        SANITIZER_SUCCESS)
      for (auto& r : records)
        if (r.pc >= function_pc) r.pc -= function_pc;
  }
  p.record.recorded = p.recorded ? 1 : 0;
  b.add(Tag::kLaunch, p.record, p.name);
  if (p.recorded && !p.params.empty()) b.add_bytes_record(Tag::kLaunchParams, p.params);
  write_batch(b);
  // Warp records in chunks so one huge launch does not need one huge batch.
  for (std::size_t i = 0; i < records.size(); i += 4096) {
    RecordBatch chunk;
    for (std::size_t j = i; j < std::min(records.size(), i + 4096); ++j) chunk.add(Tag::kWarpAccess, records[j]);
    write_batch(chunk);
  }
}

void SANITIZERAPI on_callback(void*, Sanitizer_CallbackDomain domain, Sanitizer_CallbackId cbid, const void* data) {
  try {
    if (domain == SANITIZER_CB_DOMAIN_RESOURCE) {
      switch (cbid) {
        case SANITIZER_CBID_RESOURCE_CONTEXT_CREATION_FINISHED: {
          auto* c = static_cast<const Sanitizer_ResourceContextData*>(data);
          SanitizerResult r = sanitizerAddPatchesFromFile(g_settings.patches.c_str(), c->context);
          if (r != SANITIZER_SUCCESS)
            write_note("sanitizerAddPatchesFromFile('" + g_settings.patches + "') failed: " + result_text(r));
          break;
        }
        case SANITIZER_CBID_RESOURCE_MODULE_LOADED:
          on_module_loaded(static_cast<const Sanitizer_ResourceModuleData*>(data));
          break;
        case SANITIZER_CBID_RESOURCE_DEVICE_MEMORY_ALLOC:
        case SANITIZER_CBID_RESOURCE_MEMORY_ALLOC_ASYNC:
          on_memory(static_cast<const Sanitizer_ResourceMemoryData*>(data), true);
          break;
        case SANITIZER_CBID_RESOURCE_DEVICE_MEMORY_FREE:
        case SANITIZER_CBID_RESOURCE_MEMORY_FREE_ASYNC:
          on_memory(static_cast<const Sanitizer_ResourceMemoryData*>(data), false);
          break;
        default:
          break;
      }
    } else if (domain == SANITIZER_CB_DOMAIN_DRIVER_API || domain == SANITIZER_CB_DOMAIN_RUNTIME_API) {
      // Remember the kernel parameters of the launch call; LAUNCH_BEGIN (inside the call) reads them.
      const auto* cb = static_cast<const Sanitizer_CallbackData*>(data);
      if (cb->callbackSite == SANITIZER_API_EXIT) {
        t_kernel_params = nullptr;
      } else if (domain == SANITIZER_CB_DOMAIN_RUNTIME_API) {
        if (cbid == SANITIZER_CBID_RUNTIME_API_cudaLaunchKernelExC || cbid == SANITIZER_CBID_RUNTIME_API_cudaLaunchKernelExC_ptsz)
          t_kernel_params = static_cast<const CudaLaunchKernelExCArgs*>(cb->functionParams)->args;
        else
          t_kernel_params = static_cast<const CudaLaunchKernelArgs*>(cb->functionParams)->args;
      } else if (!t_kernel_params) {  // a driver launch not made by a runtime launch
        if (cbid == SANITIZER_CBID_DRIVER_API_cuLaunchKernelEx || cbid == SANITIZER_CBID_DRIVER_API_cuLaunchKernelEx_ptsz)
          t_kernel_params = static_cast<const CuLaunchKernelExArgs*>(cb->functionParams)->kernel_params;
        else
          t_kernel_params = static_cast<const CuLaunchKernelArgs*>(cb->functionParams)->kernel_params;
      }
    } else if (domain == SANITIZER_CB_DOMAIN_LAUNCH) {
      if (cbid == SANITIZER_CBID_LAUNCH_BEGIN) on_launch_begin(static_cast<const Sanitizer_LaunchData*>(data));
      if (cbid == SANITIZER_CBID_LAUNCH_END) on_launch_end(static_cast<const Sanitizer_LaunchData*>(data));
    }
  } catch (...) {
    ++g_lost;
  }
}

void finish() {
  bool expected = false;
  if (!g_finished.compare_exchange_strong(expected, true)) return;
  try {
    RecordBatch b;
    if (g_lost > 0) b.add(Tag::kDropped, raw::DroppedRecord{g_lost.load()});
    b.add(Tag::kEnd, raw::EndRecord{0});
    write_batch(b);
  } catch (...) {
  }
  int fd = g_fd.exchange(-1);
  if (fd >= 0) close(fd);
}

void initialize() noexcept {
  const char* target = std::getenv("VTRACE_TARGET_PID");
  const char* dir = std::getenv("VTRACE_RAW_DIR");
  if (!target || !dir || std::to_string(getpid()) != target) return;  // not the traced process: stay inert
  try {
    const char* patches = std::getenv("VTRACE_ACCESS_PATCHES");
    g_settings.patches = patches ? patches : "";
    if (const char* k = std::getenv("VTRACE_KERNEL"); k && *k) g_settings.kernel.emplace(k, std::regex::ECMAScript);
    if (const char* l = std::getenv("VTRACE_LAUNCH"); l && *l) g_settings.launch = std::atoll(l);
    if (const char* blocks = std::getenv("VTRACE_BLOCKS"); blocks && *blocks)
      access::parse_device_block_filter(blocks, g_settings.blocks);
    if (const char* m = std::getenv("VTRACE_MAX_BYTES"); m && *m)
      g_settings.max_bytes = std::max<std::uint64_t>(std::strtoull(m, nullptr, 10), 2 * sizeof(raw::DeviceAccessBuffer));
    std::string path = std::string(dir) + "/raw-" + std::to_string(getpid()) + ".bin";
    int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
    if (fd < 0) return;
    g_fd = fd;
    RecordBatch b;
    b.add_magic();
    b.add(Tag::kProcess, raw::ProcessRecord{getpid(), 0});
    write_batch(b);
    SanitizerResult r = sanitizerSubscribe(&g_subscriber, on_callback, nullptr);
    if (r != SANITIZER_SUCCESS) {
      write_note("sanitizerSubscribe failed in process " + std::to_string(getpid()) + ": " + result_text(r) +
                 " (another tool, e.g. CUPTI, holds the callbacks); accesses are not recorded");
      finish();
      return;
    }
    sanitizerEnableDomain(1, g_subscriber, SANITIZER_CB_DOMAIN_RESOURCE);
    sanitizerEnableDomain(1, g_subscriber, SANITIZER_CB_DOMAIN_LAUNCH);
    for (auto cbid : {SANITIZER_CBID_RUNTIME_API_cudaLaunchKernel, SANITIZER_CBID_RUNTIME_API_cudaLaunchKernel_ptsz,
                      SANITIZER_CBID_RUNTIME_API_cudaLaunchKernelExC, SANITIZER_CBID_RUNTIME_API_cudaLaunchKernelExC_ptsz})
      sanitizerEnableCallback(1, g_subscriber, SANITIZER_CB_DOMAIN_RUNTIME_API, cbid);
    for (auto cbid : {SANITIZER_CBID_DRIVER_API_cuLaunchKernel, SANITIZER_CBID_DRIVER_API_cuLaunchKernel_ptsz,
                      SANITIZER_CBID_DRIVER_API_cuLaunchKernelEx, SANITIZER_CBID_DRIVER_API_cuLaunchKernelEx_ptsz})
      sanitizerEnableCallback(1, g_subscriber, SANITIZER_CB_DOMAIN_DRIVER_API, cbid);
    std::atexit(finish);
  } catch (...) {
    ++g_lost;
  }
}

__attribute__((constructor)) void on_load() { initialize(); }

}  // namespace

}  // namespace vtools::vtrace::access_tool
