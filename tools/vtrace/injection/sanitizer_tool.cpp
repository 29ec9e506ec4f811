// libvtrace_access.so: the Compute Sanitizer API tool `vtrace run --accesses` preloads (LD_PRELOAD) into the
// command. Only the process whose pid is $VTRACE_TARGET_PID subscribes; every other process that inherits the
// preload (compilers Triton spawns, shells) stays inert. It loads the device patches ($VTRACE_ACCESS_PATCHES) per
// context and patches global accesses, cp.async and cp.async.bulk copies of every module that holds a kernel
// --kernel selects. It keeps the live allocations (requested sizes) as a sorted table on each device; each recorded
// launch gets a buffer from a pool (access_records.hpp: header, site table, finding sites, PC table) sized by its
// grid, which the patches fill. The launch record is written at launch end; the buffer is read back later, once the
// launch is known to be finished: when the program itself synchronizes its stream or context (the SYNCHRONIZE
// callbacks), or after the tool waits for it (past VTRACE_ACCESS_PENDING bytes of buffers in flight, before its
// stream, module or context goes, at exit). So the program's launches queue up on the GPU as they do untraced,
// instead of each launch call waiting for its kernel. What a launch found goes, with its serial, to
// $VTRACE_RAW_DIR/raw-<pid>.bin (raw_record_sink.hpp, as the CUPTI library does, on the sink's writer thread, which
// also packs the sites). Like the CUPTI library: no exception leaves a callback, nothing exits, losses are counted.
#include <cxxabi.h>
#include <cuda.h>
#include <dlfcn.h>
#include <sanitizer.h>
#include <unistd.h>

#include <pthread.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdlib>
#include <cstdio>
#include <cstring>
#include <bit>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <regex>
#include <set>
#include <span>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "tools/vtrace/access/access_records.hpp"
#include "tools/vtrace/injection/cubin_symbols.hpp"
#include "tools/vtrace/access/device_block_filter.hpp"
#include "tools/vtrace/injection/module_images.hpp"
#include "tools/vtrace/injection/process_records.hpp"
#include "tools/vtrace/injection/launches_in_flight.hpp"
#include "tools/vtrace/injection/raw_record_sink.hpp"
#include "tools/vtrace/raw_record_writer.hpp"
#include "tools/vtrace/regex_search.hpp"

namespace vtools::vtrace::injection {

namespace {

using raw::RecordBatch;
using raw::Tag;

struct Settings {
  std::string patches;
  std::optional<std::regex> kernel;
  long long launch = -1;
  std::uint64_t max_bytes = 256ull << 20;
  std::uint32_t stage = raw::kStageAll;  ///< VTRACE_ACCESS_STAGE: how much of their work the patches do
  bool count_work = false;  ///< VTRACE_ACCESS_COUNTS=1: the patches count their byte-range work (runs, lock holds)
  std::uint32_t warp_merge_min = 4;  ///< VTRACE_ACCESS_WARP_MERGE (DeviceLaunchHeader)
  std::uint32_t lock_backoff = 0;    ///< VTRACE_ACCESS_BACKOFF
  std::uint64_t coarse_grain = 1024;  ///< VTRACE_ACCESS_GRAIN (0: off)
  std::uint32_t hull_fallback = 1;    ///< VTRACE_ACCESS_HULL (DeviceLaunchHeader)
  /// VTRACE_ACCESS_PCS: entries of each launch's PC table (a power of two; 0: no table, no per-line view)
  std::uint32_t pc_capacity = raw::kPcSitesPerLaunch;
  raw::DeviceBlockFilter blocks{};  ///< --blocks when it fits the device filter, else every block (the host filters)
  /// VTRACE_ACCESS_PENDING: bytes of launch buffers that may wait, unread, for the program's own synchronization
  /// (0: each launch is waited for and read back at its end, the launch call returning only then)
  std::uint64_t pending_bytes = 1ull << 30;
  /// VTRACE_ACCESS_RECYCLE=1: a launch that finds no free buffer first reads back finished launches in flight
  /// (recycle_finished). Off until measured on a GPU (written when the session's device time was spent).
  bool recycle = false;
  /// VTRACE_ACCESS_SITE_BUFFERS (1-64): pinned site buffers a read-back may take while the writer thread packs others
  std::size_t site_buffers = 3;
  /// Each stream gets its own copy of the allocation table, queued before its launches, and table buffers are
  /// reused. VTRACE_ACCESS_STREAM_TABLES=0: one table per context, its copy synchronizing the launch's stream (H200:
  /// preparing 0.45 against 0.01-0.02 s on the GPT-2 forward, 0.13-0.14 against 0.03-0.05 s on the training step).
  bool stream_tables = true;
  /// A thread of the tool's own reads back finished launches while the program runs, so the launching threads
  /// rarely copy (H200, training step: launch ends 0.54-0.62 against 0.01-0.02 s). VTRACE_ACCESS_READER=0: they copy.
  bool reader = true;
};

/// Device buffers of allocation tables no launch uses any more, for the next tables: the table changes at every
/// allocation the program makes between launches (a first forward's caching allocator grows all along), and a
/// sanitizerAlloc/sanitizerFree pair per change costs more than the copy. Own mutex: a table may be dropped with
/// g_mutex held.
struct TableBuffer {
  CUcontext context = nullptr;
  void* device = nullptr;
  std::size_t capacity = 0;
  bool reused = false;  ///< goes back to g_table_buffers (per-stream tables, the default), else is freed
};
std::mutex g_table_buffers_mutex;
std::vector<TableBuffer> g_table_buffers;

/// The live allocations as one context's device sees them, copied on one stream; its buffer is freed, or goes back
/// to g_table_buffers, when the last launch using it ends.
struct DeviceTable {
  TableBuffer buffer;
  /// Recorded launches that used it, and those of them read back (finished). Its buffer is reused only when every
  /// user has finished (so its copy and their reads are done), else freed.
  std::atomic<std::uint32_t> users{0}, finished_users{0};
  /// The same table on the host, sorted by start; shared with the writer thread's site packing (which must not be
  /// the one to give `buffer` back).
  std::shared_ptr<const std::vector<raw::DeviceAllocation>> host;
  DeviceTable() = default;
  DeviceTable(const DeviceTable&) = delete;
  DeviceTable& operator=(const DeviceTable&) = delete;
  ~DeviceTable() {
    if (!buffer.device) return;
    const std::uint32_t used = users.load();
    if (!buffer.reused || used == 0 || finished_users.load() != used) {
      sanitizerFree(buffer.context, buffer.device);
      return;
    }
    try {
      std::lock_guard<std::mutex> lock(g_table_buffers_mutex);
      g_table_buffers.push_back(buffer);
    } catch (...) {
      sanitizerFree(buffer.context, buffer.device);
    }
  }
};

/// A table buffer of `context` for at least `bytes`. `reused`: a free one that fits, else a new one (a power of two,
/// at least 4 KiB, so that freed ones fit the next, slightly larger tables); else one of `bytes`. Nothing when the
/// allocation fails.
TableBuffer take_table_buffer(CUcontext context, std::size_t bytes, bool reused) {
  if (reused) {
    std::lock_guard<std::mutex> lock(g_table_buffers_mutex);
    auto it = std::find_if(g_table_buffers.begin(), g_table_buffers.end(), [&](const TableBuffer& b) {
      return b.context == context && b.capacity >= bytes;
    });
    if (it != g_table_buffers.end()) {
      TableBuffer b = *it;
      g_table_buffers.erase(it);
      return b;
    }
  }
  TableBuffer b{context, nullptr, reused ? std::bit_ceil(std::max<std::size_t>(bytes, 4096)) : bytes, reused};
  if (sanitizerAlloc(context, &b.device, b.capacity) != SANITIZER_SUCCESS) return TableBuffer{};
  return b;
}

/// A launch buffer of the pool: header, finding sites, slots, sites.
struct LaunchBuffer {
  void* device = nullptr;
  std::size_t bytes = 0;
};

/// A stream's copy of the allocation table: launches read the copy made on their own stream, queued before them,
/// so that no copy needs a synchronization to be seen (a shared copy made on one stream would need one for the
/// others).
struct StreamTable {
  std::shared_ptr<DeviceTable> table;
  std::uint64_t version = ~0ull;  ///< g_allocation_version the table was built from
};

struct ContextState {
  std::uint32_t device = 0;  ///< its CUDA device ordinal (from the context creation callback)
  std::map<Sanitizer_StreamHandle, StreamTable> tables;
  std::vector<LaunchBuffer> pool;  ///< free buffers
};

/// A launch between its begin callback and its read-back.
struct PendingLaunch {
  bool recorded = false;
  raw::LaunchRecord record{};
  std::string name;
  LaunchBuffer buffer;
  /// Source of the asynchronous header copy: on the heap, so it stays put until launch end has synchronized.
  std::shared_ptr<raw::DeviceLaunchHeader> header;
  std::shared_ptr<DeviceTable> table;
  std::string params;  ///< param_words of the launch
  CUcontext context = nullptr;
  CUmodule module = nullptr;
  Sanitizer_StreamHandle stream = nullptr;
  std::uint64_t function_pc = 0;  ///< the function's start (PCs are read back as offsets from it)
};

/// Where the tool's own time goes, for the closing note (nanoseconds of steady clock inside the callbacks).
struct Costs {
  std::atomic<std::uint64_t> modules{0}, modules_skipped{0}, module_ns{0};
  std::atomic<std::uint64_t> launches{0}, begin_ns{0}, end_ns{0}, wait_ns{0}, bytes_read{0};
  std::atomic<std::uint64_t> copy_ns{0};  ///< the copies from the device (synchronous), after the waiting
  /// Launches read back without waiting (finished by the program's own synchronization, or by the time the pending
  /// cap needed their room), and those the tool waited for:
  /// at their end (VTRACE_ACCESS_PENDING=0), past the pending cap, at a stream's, module's or context's end, at exit.
  std::atomic<std::uint64_t> read_at_sync{0}, read_waited{0}, syncs_forced{0};
  std::atomic<std::uint64_t> read_at_program_sync{0};  ///< of read_at_sync: in the program's synchronize callbacks
  std::atomic<std::uint64_t> launch_calls{0}, launch_call_ns{0};  ///< the launch API calls, callbacks included
  /// Of them, each kernel's first launch in the process: the driver instruments a patched kernel's code then
  std::atomic<std::uint64_t> first_calls{0}, first_call_ns{0};
  /// Of end_ns: queuing the finished flag, looking up the kernel's start PC (first launch of a kernel in its module).
  std::atomic<std::uint64_t> end_flag_ns{0}, end_pc_ns{0};
  /// Of copy_ns: waiting for the writer thread to give a pinned site buffer back, pinning (growing) one.
  std::atomic<std::uint64_t> pool_wait_ns{0}, pin_ns{0};
  /// Of begin_ns: allocation tables copied to the device (one per stream and change of the live allocations).
  std::atomic<std::uint64_t> tables{0}, table_ns{0};
  std::atomic<std::uint64_t> read_by_reader{0};  ///< of read_at_sync: by the reader thread (VTRACE_ACCESS_READER)
};
Costs g_costs;

/// Per kernel name: where the waiting went, to tell a kernel's first launch (the driver patches its code then) from
/// the others (the patches' work). Guarded by g_mutex.
struct KernelCost {
  std::uint64_t launches = 0, first_wait_ns = 0, wait_ns = 0, sites = 0, requests = 0;
  std::uint64_t runs = 0, runs_covered = 0, lock_holds = 0, lock_spins = 0, hull_runs = 0;  ///< VTRACE_ACCESS_COUNTS
};
std::map<std::string, KernelCost> g_kernel_costs;

std::uint64_t now_ns() {
  return static_cast<std::uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch()).count());
}

RawRecordSink g_sink;  ///< $VTRACE_RAW_DIR/raw-<pid>.bin
Settings g_settings;
Sanitizer_SubscriberHandle g_subscriber = nullptr;
std::mutex g_mutex;  // launch counters, live allocations, context states
std::map<std::string, std::uint64_t> g_launch_counts;
/// The kernels launched so far, by module (each module is one context's): a first launch is when the driver
/// instruments a patched kernel's code. A module's entries go when it is unloaded, since its handle may be reused.
std::set<std::pair<CUmodule, std::string>> g_launched;
std::map<std::uint64_t, std::uint64_t> g_live;  ///< start -> end of every live allocation
std::uint64_t g_allocation_version = 0;
std::map<CUcontext, ContextState> g_contexts;
ModuleImages g_module_images;  ///< cubins kept until a finding needs them (module_images.hpp)
thread_local PendingLaunch t_pending;
std::uint32_t g_last_serial = 0;  ///< guarded by g_mutex
/// Recorded launches whose buffers are not read back yet, in launch order, and their buffers' bytes.
LaunchesInFlight<PendingLaunch> g_in_flight;
std::thread* g_reader = nullptr;  ///< started at the first recorded launch's end (unless VTRACE_ACCESS_READER=0)
/// Set once start_reader() has tried (started it, or could not): later launch ends skip its mutex.
std::atomic<bool> g_reader_tried{false};
std::atomic<bool> g_reader_failed{false};
std::atomic<bool> g_reader_unstarted{false};  ///< of g_reader_failed: no thread could be made
thread_local void** t_kernel_params = nullptr;
thread_local int t_launch_call_depth = 0;  ///< a runtime launch calls a driver launch: time the outermost
thread_local std::uint64_t t_launch_call_start = 0;
thread_local bool t_first_of_kernel = false;  ///< the launch call under way is its kernel's first in its module

thread_local bool t_own_sync = false;  ///< inside a synchronization of the tool's own (its callback is not the program's)

/// Synchronizes a stream for the tool; the synchronize callback this may raise reads nothing back (the caller may
/// hold g_mutex, which reading back takes).
void sync_stream(Sanitizer_StreamHandle stream) {
  const bool was = t_own_sync;  // the reader thread's stays set
  t_own_sync = true;
  sanitizerStreamSynchronize(stream);
  t_own_sync = was;
}

/// Room for launches' sites read back, pinned where the driver gives pinned memory (the copy from the device then
/// runs at bus speed; into pageable memory it took ~0.5 s of a training step's 716 MB). A launch end takes one, the
/// sink's writer thread packs its sites into records and gives it back; at most VTRACE_ACCESS_SITE_BUFFERS exist,
/// so a launch end waits only when the writer thread is that far behind.
class SitePool {
 public:
  struct Buffer {
    raw::AccessSite* sites = nullptr;
    std::size_t capacity = 0;
    void* pinned = nullptr;
    CUcontext pinned_context = nullptr;
    std::unique_ptr<raw::AccessSite[]> heap;
  };

  /// A buffer for at least `n` sites, shared with whoever packs them; it comes back here when the last owner drops it.
  std::shared_ptr<Buffer> take(CUcontext context, std::size_t n) {
    Buffer* b = nullptr;
    {
      const std::uint64_t t0 = now_ns();
      std::unique_lock lock(mutex_);
      returned_.wait(lock, [&] { return !free_.empty() || made_ < g_settings.site_buffers; });
      g_costs.pool_wait_ns += now_ns() - t0;
      if (free_.empty()) {
        ++made_;
      } else {  // the smallest that fits, else the largest (grown below)
        const auto better = [n](const Buffer* x, const Buffer* y) {
          const bool x_fits = x->capacity >= n, y_fits = y->capacity >= n;
          if (x_fits != y_fits) return x_fits;
          return x_fits ? x->capacity < y->capacity : x->capacity > y->capacity;
        };
        auto best = free_.begin();
        for (auto it = free_.begin(); it != free_.end(); ++it)
          if (better(*it, *best)) best = it;
        b = *best;
        free_.erase(best);
      }
    }
    if (!b) b = new Buffer;
    const std::uint64_t t0 = now_ns();
    grow(*b, context, n);
    g_costs.pin_ns += now_ns() - t0;
    return std::shared_ptr<Buffer>(b, [this](Buffer* given) { give_back(given); });
  }
  // Pinned memory is left to the driver at exit: its context may be gone by then.

 private:

  static void grow(Buffer& b, CUcontext context, std::size_t n) {
    if (n <= b.capacity) return;
    // Pinning is slow (and freeing may wait for the device): grow rarely, from 16 Ki sites (6 MiB) up, doubling.
    const std::size_t grown = std::max({n, 2 * b.capacity, std::size_t{1} << 14});
    if (b.pinned) sanitizerFreeHost(b.pinned_context, b.pinned);
    b.pinned = nullptr;
    b.heap.reset();
    void* p = nullptr;
    if (sanitizerAllocHost(context, &p, grown * sizeof(raw::AccessSite)) == SANITIZER_SUCCESS && p) {
      b.pinned = p;
      b.pinned_context = context;
      b.sites = static_cast<raw::AccessSite*>(p);
    } else {
      b.heap.reset(new raw::AccessSite[grown]);  // default-initialised: the copy from the device fills them
      b.sites = b.heap.get();
    }
    b.capacity = grown;
  }

  void give_back(Buffer* b) noexcept {
    try {
      std::lock_guard lock(mutex_);
      free_.push_back(b);
    } catch (...) {  // no room in the list: forget the buffer, make another
      std::lock_guard lock(mutex_);
      --made_;
    }
    returned_.notify_all();
  }

  std::mutex mutex_;
  std::condition_variable returned_;
  std::vector<Buffer*> free_;
  std::size_t made_ = 0;
};
SitePool g_site_pool;

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

/// Every aligned 8-byte word of the parameters of `function` read from `params` (cuFuncGetParamInfo, CUDA 12.4+), as
/// raw::ParamWord pairs: candidate pointers for the argument mapping, those inside struct parameters included (cuBLAS
/// passes its matrices' pointers in one struct). Empty when the driver cannot say.
std::string param_words(CUfunction function, void** params) {
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
    if (!params[i] || size < 8 || offset % 8 != 0) continue;
    for (size_t at = 0; at + 8 <= size && at < 4096; at += 8) {
      raw::ParamWord word{i, 0};
      std::memcpy(&word.value, static_cast<const char*>(params[i]) + at, 8);
      if (word.value) words.append(reinterpret_cast<const char*>(&word), sizeof word);
    }
  }
  return words;
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
  {
    std::lock_guard<std::mutex> lock(g_mutex);
    if (allocated)
      g_live[m->address] = m->address + m->size;
    else
      g_live.erase(m->address);
    ++g_allocation_version;
  }
  RecordBatch b;
  b.add(Tag::kMemory, r);
  g_sink.write(b);
}

/// The demangled name, "" when `mangled` is not an Itanium C++ name.
std::string demangled(const std::string& mangled) {
  int status = 0;
  char* text = abi::__cxa_demangle(mangled.c_str(), nullptr, nullptr, &status);
  std::string out = status == 0 && text ? text : "";
  std::free(text);
  return out;
}

/// --kernel matches the demangled or the mangled name, as in launch mode (kernel_filter.hpp).
bool kernel_selected(const std::string& mangled) {
  if (!g_settings.kernel) return true;
  try {
    if (regex_search_any_length(mangled, *g_settings.kernel)) return true;
    const std::string text = demangled(mangled);
    return !text.empty() && regex_search_any_length(text, *g_settings.kernel);
  } catch (const std::regex_error&) {
    return true;  // cannot tell: record it rather than lose it
  }
}

void on_module_loaded(const Sanitizer_ResourceModuleData* m) {
  const std::uint64_t t0 = now_ns();
  {  // TMA tensor copies are invisible to the patches: name the functions whose code issues them. And each
     // function's code hash, for vtrace diff.
    RecordBatch b;
    for (const auto& name : cubin_tma_functions(m->pCubin, m->cubinSize))
      b.add_bytes_record(Tag::kTmaFunction, name);
    for (const auto& f : cubin_function_codes(m->pCubin, m->cubinSize))
      b.add(Tag::kFunctionCode, raw::FunctionCodeRecord{f.hash, f.bytes}, f.name);
    g_sink.write(b);
  }
  if (g_settings.kernel) {  // a module without a selected kernel stays unpatched and runs at full speed
    auto names = cubin_function_names(m->pCubin, m->cubinSize);
    if (names && std::none_of(names->begin(), names->end(), kernel_selected)) {
      ++g_costs.modules_skipped;
      return;
    }
  }
  // Only a patched module's kernels can have findings that need its image (a PyTorch process loads hundreds of MB).
  g_module_images.loaded(m->module, m->pCubin, m->cubinSize);
  struct Timer {
    std::uint64_t t0;
    ~Timer() {
      ++g_costs.modules;
      g_costs.module_ns += now_ns() - t0;
    }
  } timer{t0};
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
      g_sink.write_note("patching a module failed (" + result_text(r) + "); its kernels' accesses are not recorded");
      return;
    }
  if (r3 != SANITIZER_SUCCESS || r4 != SANITIZER_SUCCESS)
    g_sink.write_note("patching cp.async.bulk in a module failed (" + result_text(r3 != SANITIZER_SUCCESS ? r3 : r4) +
               "); its kernels' bulk copies are not recorded");
}

/// The live allocations on `context`'s device, uploaded again when they changed since the last launch there.
/// Caller holds g_mutex.
std::shared_ptr<DeviceTable> current_table(ContextState& state, CUcontext context, Sanitizer_StreamHandle stream) {
  const bool per_stream = g_settings.stream_tables;
  StreamTable& current = state.tables[per_stream ? stream : nullptr];
  if (current.table && current.version == g_allocation_version) return current.table;
  const std::uint64_t t0 = now_ns();
  auto table = std::make_shared<DeviceTable>();
  std::shared_ptr<const std::vector<raw::DeviceAllocation>> host;
  for (const auto& [other, copy] : state.tables)  // another stream's copy of this version: the same host table
    if (copy.table && copy.version == g_allocation_version) host = copy.table->host;
  if (!host) {
    auto made = std::make_shared<std::vector<raw::DeviceAllocation>>();
    made->reserve(g_live.size());
    for (const auto& [start, end] : g_live) made->push_back({start, end});
    host = std::move(made);
  }
  table->host = host;
  const std::size_t bytes = std::max<std::size_t>(1, host->size()) * sizeof(raw::DeviceAllocation);
  table->buffer = take_table_buffer(context, bytes, per_stream);
  if (!table->buffer.device) return nullptr;
  // On the launch's stream, before it: stream order makes the copy visible to this stream's launches. Per stream,
  // only they use it; one table per context is used by every stream's launches, so the copy is waited for. The
  // host copy stays alive with the table, which the launches hold until they are read back.
  if (!host->empty()) {
    sanitizerMemcpyHostToDeviceAsync(table->buffer.device, const_cast<raw::DeviceAllocation*>(host->data()), bytes,
                                     stream);
    if (!per_stream) sync_stream(stream);
  }
  current.table = table;
  current.version = g_allocation_version;
  if (!host->empty()) ++g_costs.tables;
  g_costs.table_ns += now_ns() - t0;
  return table;
}

/// Byte layout of a launch buffer for `sites` sites: header, finding sites, slots (2 per site), PC slots (2 per PC
/// table entry), PC table entries, sites.
struct BufferLayout {
  std::uint64_t sites = 0, slots = 0;
  std::uint32_t pcs = 0, pc_slots = 0;
  std::size_t finding_sites_at = 0, slots_at = 0, pc_slots_at = 0, pc_sites_at = 0, sites_at = 0, cleared = 0,
              bytes = 0;
  explicit BufferLayout(std::uint64_t site_count)
      : sites(site_count), slots(2 * site_count), pcs(g_settings.pc_capacity), pc_slots(2 * g_settings.pc_capacity) {
    finding_sites_at = (sizeof(raw::DeviceLaunchHeader) + 255) / 256 * 256;
    slots_at = finding_sites_at + raw::kFindingSitesPerLaunch * sizeof(raw::FindingSite);
    pc_slots_at = slots_at + slots * sizeof(raw::HashSlot);
    pc_sites_at = pc_slots_at + pc_slots * sizeof(raw::HashSlot);
    cleared = pc_sites_at;  // sites and PC entries are initialised by the patch that makes them
    sites_at = pc_sites_at + pcs * sizeof(raw::PcSite);
    bytes = sites_at + sites * sizeof(raw::AccessSite);
  }
};

/// Sites for a grid: per block, one per pointer argument plus two (accesses through no argument, and outside every
/// allocation), rounded up to a power of two, at least 1024, and as many as --max-bytes allows.
std::uint64_t sites_for(std::uint64_t blocks, std::uint32_t arguments) {
  std::uint64_t want = 1024;
  while (want < (arguments + 2ull) * blocks && want < (1ull << 40)) want <<= 1;
  while (want > 1024 && BufferLayout(want).bytes > g_settings.max_bytes) want >>= 1;
  return want;
}

LaunchBuffer take_buffer(ContextState& state, CUcontext context, std::size_t bytes) {
  auto it = std::find_if(state.pool.begin(), state.pool.end(), [&](const LaunchBuffer& b) { return b.bytes >= bytes; });
  if (it != state.pool.end()) {
    LaunchBuffer b = *it;
    state.pool.erase(it);
    return b;
  }
  LaunchBuffer b;
  b.bytes = bytes;
  if (sanitizerAlloc(context, &b.device, bytes) != SANITIZER_SUCCESS) b = LaunchBuffer{};
  return b;
}

void give_back(CUcontext context, LaunchBuffer b) {
  if (!b.device) return;
  std::lock_guard<std::mutex> lock(g_mutex);
  auto& pool = g_contexts[context].pool;
  pool.push_back(b);
  // Keep the largest few, and as many as the launches in flight may need (a free may wait for the device).
  std::uint64_t kept = 0;
  for (const LaunchBuffer& x : pool) kept += x.bytes;
  if (pool.size() > 4 && kept > g_settings.pending_bytes) {
    auto smallest = std::min_element(pool.begin(), pool.end(),
                                     [](const LaunchBuffer& x, const LaunchBuffer& y) { return x.bytes < y.bytes; });
    sanitizerFree(context, smallest->device);
    pool.erase(smallest);
  }
}

/// The launch's pointer arguments into live allocations, sorted by pointer, for the device's attribution.
std::uint32_t device_arguments(const std::string& params, const std::vector<raw::DeviceAllocation>& table,
                               raw::DeviceArgument* out) {
  std::vector<raw::DeviceArgument> found;
  for (std::size_t i = 0; i + sizeof(raw::ParamWord) <= params.size() && found.size() < raw::kMaxDeviceArguments;
       i += sizeof(raw::ParamWord)) {
    raw::ParamWord word;
    std::memcpy(&word, params.data() + i, sizeof word);
    std::uint32_t a = raw::find_allocation(table.data(), table.size(), word.value, 1);
    if (a != raw::kNoAllocation) found.push_back({word.value, a, static_cast<std::uint32_t>(word.parameter)});
  }
  std::stable_sort(found.begin(), found.end(),
                   [](const raw::DeviceArgument& x, const raw::DeviceArgument& y) { return x.pointer < y.pointer; });
  std::copy(found.begin(), found.end(), out);
  return static_cast<std::uint32_t>(found.size());
}

void recycle_finished(CUcontext context, std::size_t bytes);

void on_launch_begin(const Sanitizer_LaunchData* l) {
  const std::uint64_t t0 = now_ns();
  PendingLaunch p;
  p.name = l->functionName ? l->functionName : "";
  {
    std::lock_guard<std::mutex> lock(g_mutex);
    p.record.kernel_launch = g_launch_counts[p.name]++;
    t_first_of_kernel = g_launched.emplace(l->module, p.name).second;
    p.record.device_id = g_contexts[l->context].device;
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
  if (p.recorded) {
    p.params = param_words(l->function, t_kernel_params);
    const std::uint64_t blocks = static_cast<std::uint64_t>(l->gridDim_x) * l->gridDim_y * l->gridDim_z;
    p.header = std::make_shared<raw::DeviceLaunchHeader>();
    *p.header = raw::DeviceLaunchHeader{};
    {
      std::lock_guard<std::mutex> lock(g_mutex);
      p.table = current_table(g_contexts[l->context], l->context, l->hStream);
    }
    // The table's host copy never changes once made: the arguments and the layout need no lock.
    if (p.table) p.header->argument_count = device_arguments(p.params, *p.table->host, p.header->arguments);
    const BufferLayout layout(sites_for(blocks, p.header->argument_count));
    if (p.table && g_settings.recycle) recycle_finished(l->context, layout.bytes);
    if (p.table) {
      std::lock_guard<std::mutex> lock(g_mutex);
      p.buffer = take_buffer(g_contexts[l->context], l->context, layout.bytes);
    }
    if (p.table && p.buffer.device) {
      std::lock_guard<std::mutex> lock(g_mutex);
      p.record.serial = ++g_last_serial;
      ++p.table->users;
    }
    if (!p.table || !p.buffer.device) {
      g_sink.write_note("sanitizerAlloc of " + std::to_string(layout.bytes) + " bytes failed; launch " +
                 std::to_string(p.record.kernel_launch) + " of " + p.name + " is not recorded");
      p.recorded = false;
    } else {
      auto* base = static_cast<char*>(p.buffer.device);
      raw::DeviceLaunchHeader& h = *p.header;
      h.slot_count = layout.slots;
      h.site_capacity = layout.sites;
      h.slots = reinterpret_cast<raw::HashSlot*>(base + layout.slots_at);
      h.sites = reinterpret_cast<raw::AccessSite*>(base + layout.sites_at);
      h.finding_sites = reinterpret_cast<raw::FindingSite*>(base + layout.finding_sites_at);
      h.pc_slots = reinterpret_cast<raw::HashSlot*>(base + layout.pc_slots_at);
      h.pc_sites = reinterpret_cast<raw::PcSite*>(base + layout.pc_sites_at);
      h.pc_capacity = layout.pcs;
      h.pc_slot_count = layout.pc_slots;
      h.allocations = static_cast<const raw::DeviceAllocation*>(p.table->buffer.device);
      h.allocation_count = p.table->host->size();
      h.blocks = g_settings.blocks;
      h.stage = g_settings.stage;
      h.count_work = g_settings.count_work ? 1 : 0;
      h.warp_merge_min = g_settings.warp_merge_min;
      h.lock_backoff = g_settings.lock_backoff;
      h.coarse_grain = g_settings.coarse_grain;
      h.hull_fallback = g_settings.hull_fallback;
      sanitizerMemset(base, 0, layout.cleared, l->hStream);
      sanitizerMemcpyHostToDeviceAsync(base, p.header.get(), sizeof(raw::DeviceLaunchHeader), l->hStream);
    }
  }
  sanitizerSetLaunchCallbackData(l->hLaunch, l->function, l->hStream, p.recorded ? p.buffer.device : nullptr);
  if (p.recorded) {
    ++g_costs.launches;
    g_costs.begin_ns += now_ns() - t0;
  }
  t_pending = std::move(p);
}

/// Whether a launch has finished: its header's flag, copied alone. A copy from the device does not wait for the
/// kernel, so the rest of the header is final only once the flag is set, and is read after it. nullopt: the copy
/// failed.
std::optional<bool> launch_finished(const PendingLaunch& p) {
  std::uint32_t flag = 0;
  if (sanitizerMemcpyDeviceToHost(&flag, static_cast<char*>(p.buffer.device) + offsetof(raw::DeviceLaunchHeader, finished),
                                  sizeof flag, p.stream) != SANITIZER_SUCCESS)
    return std::nullopt;
  return flag != 0;
}

/// Synchronizes a stream because the tool must wait for it: counted, and its time added to the waiting. The time
/// waited (at least 1 ns, so that a launch read after it counts as waited for).
std::uint64_t wait_for_stream(Sanitizer_StreamHandle stream) {
  const std::uint64_t t0 = now_ns();
  sync_stream(stream);
  ++g_costs.syncs_forced;
  const std::uint64_t waited = std::max<std::uint64_t>(1, now_ns() - t0);
  g_costs.wait_ns += waited;
  return waited;
}

/// Reads back a recorded launch's buffer: header, used sites, finding sites and PC table entries; gives the buffer
/// back; and queues on the sink's writer thread its result record, findings, PC table, module and packed sites.
/// `waited_ns`: how long the caller waited for it (0 when the program's own synchronization had finished it).
void read_back(PendingLaunch p, std::uint64_t waited_ns) {
  const std::uint64_t t0 = now_ns();
  auto* base = static_cast<char*>(p.buffer.device);
  std::optional<bool> finished = launch_finished(p);
  std::uint64_t waited_here = 0;
  if (finished == false) {  // not finished after all (another thread launched on the stream as it was synchronized)
    waited_here = wait_for_stream(p.stream);
    waited_ns += waited_here;
    finished = launch_finished(p);
  }
  if (finished == true && p.table) ++p.table->finished_users;  // its reads of the table are done
  raw::DeviceLaunchHeader h{};
  if (finished != true || sanitizerMemcpyDeviceToHost(&h, base, sizeof h, p.stream) != SANITIZER_SUCCESS)
    return;  // stays unread
  const BufferLayout layout(h.site_capacity);
  const std::size_t site_count = std::min<std::uint64_t>(h.sites_used, h.site_capacity);
  std::shared_ptr<SitePool::Buffer> sites;
  if (site_count > 0) {
    sites = g_site_pool.take(p.context, site_count);
    sanitizerMemcpyDeviceToHost(sites->sites, base + layout.sites_at, site_count * sizeof(raw::AccessSite), p.stream);
  }
  std::vector<raw::FindingSite> findings;
  if (h.findings) {
    findings.resize(raw::kFindingSitesPerLaunch);
    sanitizerMemcpyDeviceToHost(findings.data(), base + layout.finding_sites_at,
                                findings.size() * sizeof(raw::FindingSite), p.stream);
    findings.erase(std::remove_if(findings.begin(), findings.end(), [](const raw::FindingSite& f) { return f.pc == 0; }),
                   findings.end());
  }
  std::vector<raw::PcSite> pcs;
  if (h.pc_slot_count) {  // the used PC entries only: they are made in order from the start
    pcs.resize(std::min<std::uint64_t>(h.pcs_used, h.pc_capacity));
    if (!pcs.empty())
      sanitizerMemcpyDeviceToHost(pcs.data(), base + layout.pc_sites_at, pcs.size() * sizeof(raw::PcSite), p.stream);
  }
  const std::uint64_t copied = now_ns();
  g_costs.copy_ns += copied - t0 - waited_here;
  give_back(p.context, p.buffer);
  for (auto& f : findings) {  // PCs as offsets in the function
    f.pc -= 1;
    if (f.pc >= p.function_pc) f.pc -= p.function_pc;
  }
  for (auto& pc : pcs) {
    pc.pc -= 1;
    if (pc.pc >= p.function_pc) pc.pc -= p.function_pc;
  }
  g_costs.bytes_read += sizeof h + site_count * sizeof(raw::AccessSite) + findings.size() * sizeof(raw::FindingSite) +
                        pcs.size() * sizeof(raw::PcSite);
  ++(waited_ns ? g_costs.read_waited : g_costs.read_at_sync);
  // The module's image, once, and its number: its line table and SASS place the findings and the PC table's rows.
  const bool has_module = !findings.empty() || !pcs.empty();
  auto module = std::make_shared<ModuleImages::LaunchModule>();
  if (has_module) *module = g_module_images.take_for_launch(p.module);
  const raw::LaunchResultRecord result{p.record.serial, site_count, h.requests_dropped, h.findings,
                                       h.findings_unsited};
  const raw::PcTableRecord pc_table{pcs.size(), h.pc_requests_dropped};
  const bool has_pc_table = h.pc_slot_count != 0;
  // Packed on the sink's writer thread, all records of the launch together (nothing else is written while a job
  // runs), the sites in chunks so that one huge launch does not need one huge batch: each site's allocation index
  // becomes the allocation's start address (the host's name for it), its hull joins its ranges, and only the ranges
  // in use are written.
  g_sink.write_job([result, pc_table, has_pc_table, has_module, module, findings = std::move(findings),
                    pcs = std::move(pcs), sites, site_count, allocations = p.table->host,
                    name = p.name](const RawRecordSink::Emit& emit) {
    RecordBatch first;
    first.add(Tag::kLaunchResult, result);
    if (has_module) module->add_to(first);
    for (const auto& f : findings) first.add(Tag::kFindingSite, f);
    if (has_pc_table) {
      std::string payload(reinterpret_cast<const char*>(&pc_table), sizeof pc_table);
      payload.append(reinterpret_cast<const char*>(pcs.data()), pcs.size() * sizeof(raw::PcSite));
      first.add_bytes_record(Tag::kPcSites, payload);
    }
    emit(first);
    std::uint64_t requests = 0;
    for (std::size_t i = 0; i < site_count; i += 4096) {
      RecordBatch chunk;
      for (raw::AccessSite& s : std::span(sites->sites + i, std::min<std::size_t>(site_count - i, 4096))) {
        requests += s.requests + s.bulk_copies;
        s.allocation = s.allocation < allocations->size() ? (*allocations)[s.allocation].start : 0;
        s.key = 0;
        s.lock = 0;
        raw::fold_hull(s);
        chunk.add_bytes_record(Tag::kAccessSite, std::string_view(reinterpret_cast<const char*>(&s),
                                                                  raw::site_record_bytes(s.range_count)));
      }
      emit(chunk);
    }
    std::lock_guard<std::mutex> lock(g_mutex);
    g_kernel_costs[name].requests += requests;
  });
  sites.reset();
  p.table.reset();  // may free a replaced allocation table
  std::lock_guard<std::mutex> lock(g_mutex);
  KernelCost& k = g_kernel_costs[p.name];
  if (k.launches++ == 0) k.first_wait_ns = waited_ns;
  k.wait_ns += waited_ns;
  k.sites += site_count;
  k.runs += h.runs;
  k.runs_covered += h.runs_covered;
  k.lock_holds += h.lock_holds;
  k.lock_spins += h.lock_spins;
  k.hull_runs += h.hull_runs;
}

/// Waits for one launch without waiting for what was queued after it on its stream: polls its header's finished
/// flag (a copy from the device does not wait for the kernel), and after ~1 s of polling synchronizes the stream.
/// The time waited, 0 when it was finished already.
std::uint64_t wait_until_finished(const PendingLaunch& p) {
  const std::uint64_t t0 = now_ns();
  for (int polls = 0;; ++polls) {
    const std::optional<bool> finished = launch_finished(p);
    if (!finished) return 0;
    if (*finished && polls == 0) return 0;
    if (*finished) break;
    if (polls == 20000) {
      sync_stream(p.stream);
      ++g_costs.syncs_forced;
      break;
    }
    std::this_thread::sleep_for(std::chrono::microseconds(50));
  }
  const std::uint64_t waited = std::max<std::uint64_t>(1, now_ns() - t0);
  g_costs.wait_ns += waited;
  return waited;
}

/// The oldest launch in flight, out of the list while its holder polls or reads it back (LaunchesInFlight::Oldest).
struct OldestLaunch : LaunchesInFlight<PendingLaunch>::Oldest {
  OldestLaunch() : Oldest(g_in_flight) {}
};

/// Before a launch of `context` takes a buffer of `bytes` and the pool has none: reads back the oldest launches in
/// flight that have finished (their buffers return to the pool), at most a few, stopping at the first that has not.
/// A program that does not synchronize for a while (a forward pass) would otherwise allocate a buffer per launch.
void recycle_finished(CUcontext context, std::size_t bytes) {
  {
    std::lock_guard<std::mutex> lock(g_mutex);
    const auto& pool = g_contexts[context].pool;
    if (std::any_of(pool.begin(), pool.end(), [&](const LaunchBuffer& b) { return b.bytes >= bytes; })) return;
  }
  for (int i = 0; i < 4; ++i) {
    OldestLaunch oldest;
    if (!oldest || launch_finished(*oldest) != true) return;  // not finished: back in its place
    read_back(oldest.take(), 0);
  }
}

/// Takes the launches in flight that `chosen` picks out of the list; with `all_back`, once the launches other
/// threads took out (the reader thread polling the oldest, a launching thread reading back past the pending cap, a
/// synchronize callback's batch) are back or read: a stream's, module's or context's end, the exit.
template <class Chosen>
LaunchesInFlight<PendingLaunch>::Taken take_in_flight(Chosen chosen, bool all_back = false) {
  auto taken = g_in_flight.take(chosen, all_back);
  if (taken.timed_out)
    g_sink.write_note("waited 10 s for the tool's other threads to give back the launches they read; went on without "
                      "them (a launch on the stream, module or context that ended may be read after it)");
  return taken;
}

/// The program synchronized a stream or a context: its launches in flight are finished; read them back.
template <class Chosen>
void read_back_finished(Chosen chosen) {
  auto taken = take_in_flight(chosen);
  for (PendingLaunch& p : taken.launches) {
    ++g_costs.read_at_program_sync;
    read_back(std::move(p), 0);
  }
}

/// Waits for the launches in flight that `chosen` picks, stream by stream, and reads them back: past the pending
/// cap, before a stream, module or context goes, and at exit.
template <class Chosen>
void wait_and_read_back(Chosen chosen) {
  auto taken = take_in_flight(chosen, true);
  std::vector<Sanitizer_StreamHandle> synced;
  for (PendingLaunch& p : taken.launches) {
    std::uint64_t waited = 1;  // nonzero: counted as waited for
    if (std::find(synced.begin(), synced.end(), p.stream) == synced.end()) {
      waited = wait_for_stream(p.stream);
      synced.push_back(p.stream);
    }
    read_back(std::move(p), waited);
  }
}

/// The reader thread (unless VTRACE_ACCESS_READER=0): reads back the oldest launch in flight once its finished flag
/// is set, polling it, so that the launching threads (the program's) rarely copy. Its API calls are the tool's own
/// (no synchronize callback of theirs reads back). Stops at the first failed flag copy (a thread without the
/// context?): the launching threads then read back as without it, and the closing note says so.
void read_in_background() noexcept {
  t_own_sync = true;
  // Each poll is a copy from the device, which takes the driver's time beside the program's launches: the pause
  // doubles, 50 us up to 1 ms, while the oldest launch keeps running, and starts over after a read.
  std::chrono::microseconds pause(50);
  for (;;) {
    try {
      if (!g_in_flight.wait_for_launch()) return;  // stopped
      bool read = false;
      {
        OldestLaunch oldest;
        if (oldest) {
          const std::optional<bool> finished = launch_finished(*oldest);
          if (!finished) {
            g_reader_failed = true;
            return;  // `oldest` goes back to the list
          }
          if (*finished) {
            read_back(oldest.take(), 0);
            ++g_costs.read_by_reader;
            read = true;
          }
        }
      }
      if (read) {
        pause = std::chrono::microseconds(50);
      } else {
        std::this_thread::sleep_for(pause);
        pause = std::min(pause * 2, std::chrono::microseconds(1000));
      }
    } catch (...) {
      g_sink.count_lost();
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
  }
}

std::mutex g_reader_mutex;  ///< start and stop: a launch end on one thread, the exit on another

void start_reader() {
  if (g_reader_tried.load(std::memory_order_acquire)) return;
  std::lock_guard<std::mutex> lock(g_reader_mutex);
  if (g_reader || g_reader_failed || g_in_flight.stopped()) return;
  try {
    g_reader = new std::thread(read_in_background);
  } catch (...) {  // no thread: the launching threads read back
    g_reader_failed = true;
    g_reader_unstarted = true;
  }
  g_reader_tried.store(true, std::memory_order_release);
}

/// Stops the reader thread for good (at exit, before the launches left in flight are read back).
void stop_reader() {
  std::thread* reader = nullptr;
  {
    std::lock_guard<std::mutex> lock(g_reader_mutex);
    g_in_flight.stop();
    reader = std::exchange(g_reader, nullptr);
  }
  if (!reader) return;
  reader->join();
  delete reader;
}

/// Start PCs of the kernels launched, by module: looked up once per kernel (PCs are read back as offsets from it);
/// a module's entries go when it is unloaded, since its handle may be reused.
std::map<std::pair<CUmodule, std::string>, std::uint64_t> g_function_pcs;

/// A kernel's start PC in its module; 0 when the API cannot say.
std::uint64_t function_pc(CUmodule module, const std::string& name) {
  if (!module) return 0;
  {
    std::lock_guard<std::mutex> lock(g_mutex);
    auto it = g_function_pcs.find({module, name});
    if (it != g_function_pcs.end()) return it->second;
  }
  std::uint64_t pc = 0, size = 0;  // the API wants both pointers (given nullptr for the size, it fails)
  if (sanitizerGetFunctionPcAndSize(module, name.c_str(), &pc, &size) != SANITIZER_SUCCESS) pc = 0;
  std::lock_guard<std::mutex> lock(g_mutex);
  g_function_pcs[{module, name}] = pc;
  return pc;
}

void on_launch_end(const Sanitizer_LaunchData* l) {
  const std::uint64_t t0 = now_ns();
  PendingLaunch p = std::move(t_pending);
  t_pending = PendingLaunch{};
  // The launch record now, in its place among the allocation records (the parent maps its arguments and sites with
  // the allocations live at this point); what it found follows in a kLaunchResult naming its serial.
  RecordBatch b;
  p.record.recorded = p.recorded ? 1 : 0;
  if (!p.recorded) p.record.serial = 0;
  b.add(Tag::kLaunch, p.record, p.name);
  if (p.recorded && !p.params.empty()) b.add_bytes_record(Tag::kLaunchParams, p.params);
  g_sink.write(std::move(b));
  if (!p.recorded) return;
  p.stream = l->hStream;
  const std::uint64_t t_pc = now_ns();
  p.function_pc = function_pc(p.module, p.name);
  const std::uint64_t t_flag = now_ns();
  g_costs.end_pc_ns += t_flag - t_pc;
  // After the kernel, on its stream: the header's `finished` flag, so a read-back can tell a finished launch.
  sanitizerMemset(static_cast<char*>(p.buffer.device) + offsetof(raw::DeviceLaunchHeader, finished), 1,
                  sizeof(raw::DeviceLaunchHeader::finished), l->hStream);
  g_costs.end_flag_ns += now_ns() - t_flag;
  if (g_settings.pending_bytes == 0) {
    sync_stream(l->hStream);
    const std::uint64_t waited = std::max<std::uint64_t>(1, now_ns() - t0);
    g_costs.wait_ns += waited;
    read_back(std::move(p), waited);
  } else {
    const std::uint64_t bytes = p.buffer.bytes;
    bool over = g_in_flight.push(std::move(p), bytes) > g_settings.pending_bytes;
    if (g_settings.reader) start_reader();
    while (over) {  // read back the oldest launches, each once it is finished (it usually is by now)
      OldestLaunch oldest;
      if (!oldest) break;
      over = g_in_flight.bytes() > g_settings.pending_bytes;
      const std::uint64_t waited = wait_until_finished(*oldest);
      read_back(oldest.take(), waited);
    }
  }
  g_costs.end_ns += now_ns() - t0;
}

/// Forgets `context`'s allocation tables, free table buffers and free launch buffers (a later context may get its
/// handle). `alive`: the context is still there (its destroy callback), so its tables are freed or pooled first;
/// else its memory is gone with it and nothing is freed.
void drop_context_buffers(CUcontext context, bool alive) {
  {
    std::lock_guard<std::mutex> lock(g_mutex);
    ContextState& state = g_contexts[context];
    if (!alive)
      for (auto& [stream, copy] : state.tables)
        if (copy.table) copy.table->buffer.device = nullptr;
    state.tables.clear();
    state.pool.clear();
  }
  std::lock_guard<std::mutex> lock(g_table_buffers_mutex);
  std::erase_if(g_table_buffers, [context](const TableBuffer& b) { return b.context == context; });
}

void SANITIZERAPI on_callback(void*, Sanitizer_CallbackDomain domain, Sanitizer_CallbackId cbid, const void* data) {
  try {
    if (domain == SANITIZER_CB_DOMAIN_RESOURCE) {
      switch (cbid) {
        case SANITIZER_CBID_RESOURCE_CONTEXT_CREATION_FINISHED: {
          auto* c = static_cast<const Sanitizer_ResourceContextData*>(data);
          drop_context_buffers(c->context, false);  // a handle a destroyed context had: what it left is gone
          {
            std::lock_guard<std::mutex> lock(g_mutex);
            g_contexts[c->context].device = static_cast<std::uint32_t>(c->device);
          }
          SanitizerResult r = sanitizerAddPatchesFromFile(g_settings.patches.c_str(), c->context);
          if (r != SANITIZER_SUCCESS)
            g_sink.write_note("sanitizerAddPatchesFromFile('" + g_settings.patches + "') failed: " + result_text(r));
          RecordBatch device;  // its properties, UUID and PCI location, as launch mode records them
          add_device_records(device, static_cast<int>(c->device));
          if (device.records() > 0) g_sink.write(device);
          break;
        }
        case SANITIZER_CBID_RESOURCE_MODULE_LOADED: {
          auto* m = static_cast<const Sanitizer_ResourceModuleData*>(data);
          on_module_loaded(m);
          break;
        }
        case SANITIZER_CBID_RESOURCE_MODULE_UNLOAD_STARTING: {  // its launches need its image and function PCs
          const CUmodule module = static_cast<const Sanitizer_ResourceModuleData*>(data)->module;
          wait_and_read_back([module](const PendingLaunch& p) { return p.module == module; });
          g_module_images.unloaded(module);
          {
            std::lock_guard<std::mutex> lock(g_mutex);
            std::erase_if(g_function_pcs, [module](const auto& entry) { return entry.first.first == module; });
            std::erase_if(g_launched, [module](const auto& entry) { return entry.first == module; });
          }
          break;
        }
        case SANITIZER_CBID_RESOURCE_STREAM_DESTROY_STARTING: {  // its handle is about to be invalid
          const auto* d = static_cast<const Sanitizer_ResourceStreamData*>(data);
          Sanitizer_StreamHandle stream = nullptr;
          if (sanitizerGetStreamHandle(d->context, d->stream, &stream) == SANITIZER_SUCCESS) {
            wait_and_read_back([stream](const PendingLaunch& p) { return p.stream == stream; });
            std::lock_guard<std::mutex> lock(g_mutex);  // a later stream may get the same handle
            g_contexts[d->context].tables.erase(stream);
          }
          break;
        }
        case SANITIZER_CBID_RESOURCE_CONTEXT_DESTROY_STARTING: {
          const CUcontext context = static_cast<const Sanitizer_ResourceContextData*>(data)->context;
          wait_and_read_back([context](const PendingLaunch& p) { return p.context == context; });
          drop_context_buffers(context, true);  // its memory goes with it: a later context may get the handle
          break;
        }
        case SANITIZER_CBID_RESOURCE_DEVICE_MEMORY_ALLOC:
        case SANITIZER_CBID_RESOURCE_HOST_MEMORY_ALLOC:  // pinned or mapped host memory kernels may read
        case SANITIZER_CBID_RESOURCE_MEMORY_ALLOC_ASYNC:
          on_memory(static_cast<const Sanitizer_ResourceMemoryData*>(data), true);
          break;
        case SANITIZER_CBID_RESOURCE_DEVICE_MEMORY_FREE:
        case SANITIZER_CBID_RESOURCE_HOST_MEMORY_FREE:
        case SANITIZER_CBID_RESOURCE_MEMORY_FREE_ASYNC:
          on_memory(static_cast<const Sanitizer_ResourceMemoryData*>(data), false);
          break;
        default:
          break;
      }
    } else if (domain == SANITIZER_CB_DOMAIN_DRIVER_API || domain == SANITIZER_CB_DOMAIN_RUNTIME_API) {
      // Remember the kernel parameters of the launch call; LAUNCH_BEGIN (inside the call) reads them.
      const auto* cb = static_cast<const Sanitizer_CallbackData*>(data);
      if (cb->callbackSite == SANITIZER_API_ENTER && t_launch_call_depth++ == 0) {
        t_launch_call_start = now_ns();
        t_first_of_kernel = false;
      }
      if (cb->callbackSite == SANITIZER_API_EXIT) {
        if (t_launch_call_depth > 0 && --t_launch_call_depth == 0) {
          const std::uint64_t took = now_ns() - t_launch_call_start;
          ++g_costs.launch_calls;
          g_costs.launch_call_ns += took;
          if (t_first_of_kernel) {
            ++g_costs.first_calls;
            g_costs.first_call_ns += took;
          }
        }
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
    } else if (domain == SANITIZER_CB_DOMAIN_SYNCHRONIZE && !t_own_sync) {
      // The program waited for a stream or a context: its launches in flight are finished, read them back now.
      const auto* d = static_cast<const Sanitizer_SynchronizeData*>(data);
      if (cbid == SANITIZER_CBID_SYNCHRONIZE_STREAM_SYNCHRONIZED) {
        const Sanitizer_StreamHandle stream = d->hStream;
        read_back_finished([stream](const PendingLaunch& p) { return p.stream == stream; });
      } else if (cbid == SANITIZER_CBID_SYNCHRONIZE_CONTEXT_SYNCHRONIZED) {
        const CUcontext context = d->context;
        read_back_finished([context](const PendingLaunch& p) { return p.context == context; });
      }
    } else if (domain == SANITIZER_CB_DOMAIN_LAUNCH) {
      if (cbid == SANITIZER_CBID_LAUNCH_BEGIN) on_launch_begin(static_cast<const Sanitizer_LaunchData*>(data));
      if (cbid == SANITIZER_CBID_LAUNCH_END) on_launch_end(static_cast<const Sanitizer_LaunchData*>(data));
    }
  } catch (...) {
    g_sink.count_lost();
  }
}

std::string seconds(std::uint64_t ns) {
  char text[32];
  std::snprintf(text, sizeof text, "%.2f s", static_cast<double>(ns) / 1e9);
  return text;
}

/// The kernels that kept the program waiting longest, for the closing note: name (cut), launches, waiting, of which
/// the first launch, warp requests and sites.
std::string slowest_kernels(std::size_t count) {
  std::vector<std::pair<std::string, KernelCost>> costs;
  {
    std::lock_guard<std::mutex> lock(g_mutex);
    costs.assign(g_kernel_costs.begin(), g_kernel_costs.end());
  }
  std::uint64_t first_total = 0;
  for (const auto& [name, k] : costs) first_total += k.first_wait_ns;
  std::sort(costs.begin(), costs.end(), [](const auto& x, const auto& y) { return x.second.wait_ns > y.second.wait_ns; });
  std::string text = "; first launches of " + std::to_string(costs.size()) + " kernels waited " + seconds(first_total);
  for (std::size_t i = 0; i < costs.size() && i < count; ++i) {
    const auto& [name, k] = costs[i];
    std::string shown = demangled(name);
    if (shown.empty()) shown = name;
    if (shown.size() > 60) shown = shown.substr(0, 57) + "...";
    text += (i == 0 ? "; longest waits: " : "; ") + shown + " " + std::to_string(k.launches) + " launches " +
            seconds(k.wait_ns) + " (first " + seconds(k.first_wait_ns) + ", " + std::to_string(k.requests) +
            " requests, " + std::to_string(k.sites) + " sites" +
            (g_settings.count_work ? ", " + std::to_string(k.runs) + " byte runs, " + std::to_string(k.runs_covered) +
                                         " already covered, " + std::to_string(k.lock_holds) + " lock holds, " +
                                         std::to_string(k.lock_spins) + " failed lock attempts, " +
                                         std::to_string(k.hull_runs) + " runs to hulls"
                                   : std::string()) +
            ")";
  }
  return text;
}

void finish() {
  if (!g_sink.begin_finish()) return;
  const std::uint64_t t0 = now_ns();
  const std::uint64_t read_before = g_costs.read_at_sync.load() + g_costs.read_waited.load();
  try {
    stop_reader();
    wait_and_read_back([](const PendingLaunch&) { return true; });  // launches the program never waited for
  } catch (...) {
    g_sink.count_lost();
  }
  const std::uint64_t read_at_exit = g_costs.read_at_sync.load() + g_costs.read_waited.load() - read_before;
  const std::uint64_t t_drain = now_ns();
  g_sink.drain();  // the writer thread's site packing adds to the kernels' request counts
  const std::uint64_t t_end = now_ns();
  try {
    g_sink.write_note("access mode in process " + std::to_string(getpid()) + ": " + std::to_string(g_costs.modules.load()) +
               " modules patched in " + seconds(g_costs.module_ns) +
               (g_costs.modules_skipped ? " (" + std::to_string(g_costs.modules_skipped.load()) +
                                              " without a --kernel match left unpatched)"
                                        : std::string()) +
               "; " + std::to_string(g_costs.launches.load()) + " recorded launches: " + seconds(g_costs.begin_ns) +
               " preparing them (" + seconds(g_costs.table_ns) + " of it copying " +
               std::to_string(g_costs.tables.load()) + " allocation tables), " + seconds(g_costs.end_ns) +
               " at their ends (" + seconds(g_costs.end_flag_ns) + " of it queuing their finished flags, " +
               seconds(g_costs.end_pc_ns) + " looking up kernels' PCs), " + seconds(g_costs.wait_ns) +
               " waiting for them, reading back " + std::to_string(g_costs.bytes_read.load() >> 10) + " KiB in " +
               seconds(g_costs.copy_ns) + " (" + seconds(g_costs.pool_wait_ns) +
               " of it waiting for a free pinned buffer, " + seconds(g_costs.pin_ns) + " pinning buffers; " +
               std::to_string(g_costs.read_at_sync.load()) + " launches read without waiting, " +
               std::to_string(g_costs.read_at_program_sync.load()) + " of them at the program's own synchronizations" +
               (g_settings.reader ? ", " + std::to_string(g_costs.read_by_reader.load()) + " by the reader thread" +
                                        (g_reader_unstarted ? " (it could not be started)"
                                         : g_reader_failed ? " (stopped: a copy from its thread failed)"
                                                           : "")
                                  : std::string()) +
               "; " +
               std::to_string(g_costs.read_waited.load()) + " waited for, " +
               std::to_string(g_costs.syncs_forced.load()) + " stream synchronizations of ours)" +
               (g_settings.stage != raw::kStageAll
                    ? "; VTRACE_ACCESS_STAGE=" + std::to_string(g_settings.stage) + ": the patches did part of their work"
                    : std::string()) +
               "; " + std::to_string(g_costs.launch_calls.load()) + " launch calls took " +
               seconds(g_costs.launch_call_ns) + " (the callbacks above included; " +
               seconds(g_costs.first_call_ns) + " of it the first launches of " +
               std::to_string(g_costs.first_calls.load()) + " kernels); at exit " + seconds(t_drain - t0) +
               " reading back " + std::to_string(read_at_exit) + " launches left in flight, " +
               seconds(t_end - t_drain) + " writing out the records" +
               slowest_kernels(5));
  } catch (...) {
  }
  g_sink.close_with([](RecordBatch& b) {
    b.add(Tag::kClockAnchor, clock_anchor(raw::kClockMonotonic, raw::monotonic_ns));  // the end anchor
    b.add(Tag::kEnd, raw::EndRecord{0});
  });
}

/// A switch of the environment: VAR=1 on, VAR=0 off, anything else (or unset) `by_default`.
bool switched(const char* var, bool by_default) {
  const char* value = std::getenv(var);
  if (value && std::string_view(value) == "1") return true;
  if (value && std::string_view(value) == "0") return false;
  return by_default;
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
    if (const char* stage = std::getenv("VTRACE_ACCESS_STAGE"); stage && *stage)
      g_settings.stage = static_cast<std::uint32_t>(std::strtoul(stage, nullptr, 10));
    g_settings.count_work = switched("VTRACE_ACCESS_COUNTS", false);
    if (const char* w = std::getenv("VTRACE_ACCESS_WARP_MERGE"); w && *w)
      g_settings.warp_merge_min = static_cast<std::uint32_t>(std::strtoul(w, nullptr, 10));
    if (const char* b = std::getenv("VTRACE_ACCESS_BACKOFF"); b && *b)
      g_settings.lock_backoff = static_cast<std::uint32_t>(std::strtoul(b, nullptr, 10));
    if (const char* g = std::getenv("VTRACE_ACCESS_GRAIN"); g && *g)
      g_settings.coarse_grain = std::strtoull(g, nullptr, 10);
    if (const char* hull = std::getenv("VTRACE_ACCESS_HULL"); hull && *hull)
      g_settings.hull_fallback = std::string_view(hull) == "0" ? 0 : 1;
    if (const char* pcs = std::getenv("VTRACE_ACCESS_PCS"); pcs && *pcs) {  // a power of two up to 65536, or 0
      const unsigned long want = std::min<unsigned long>(std::strtoul(pcs, nullptr, 10), 65536);
      std::uint32_t capacity = want ? 1 : 0;
      while (capacity && capacity < want) capacity <<= 1;
      g_settings.pc_capacity = capacity;
    }
    g_settings.recycle = switched("VTRACE_ACCESS_RECYCLE", false);
    g_settings.reader = switched("VTRACE_ACCESS_READER", true);  // with VTRACE_ACCESS_PENDING=0 it has nothing to read
    g_settings.stream_tables = switched("VTRACE_ACCESS_STREAM_TABLES", true);
    if (const char* n = std::getenv("VTRACE_ACCESS_SITE_BUFFERS"); n && *n)
      g_settings.site_buffers = std::clamp<std::size_t>(std::strtoull(n, nullptr, 10), 1, 64);
    if (const char* pending = std::getenv("VTRACE_ACCESS_PENDING"); pending && *pending)
      g_settings.pending_bytes = std::strtoull(pending, nullptr, 10);
    if (const char* m = std::getenv("VTRACE_MAX_BYTES"); m && *m)
      g_settings.max_bytes = std::max<std::uint64_t>(std::strtoull(m, nullptr, 10), BufferLayout(1024).bytes);
    if (!g_sink.open(dir)) return;
    g_sink.write_in_background(std::size_t{256} << 20);
    RecordBatch b;
    b.add_magic();
    b.add(Tag::kProcess, raw::ProcessRecord{getpid(), 0});
    // Who this process is in its job, and when it ran: access mode's records have no timestamps and the Sanitizer
    // API no GPU clock, so the anchors pair CLOCK_MONOTONIC with CLOCK_REALTIME (process_records.hpp).
    b.add_bytes_record(Tag::kIdentity, identity_bytes());
    b.add(Tag::kClockAnchor, clock_anchor(raw::kClockMonotonic, raw::monotonic_ns));
    g_sink.write(b);
    SanitizerResult r = sanitizerSubscribe(&g_subscriber, on_callback, nullptr);
    if (r != SANITIZER_SUCCESS) {
      g_sink.write_note("sanitizerSubscribe failed in process " + std::to_string(getpid()) + ": " + result_text(r) +
                 " (another tool, e.g. CUPTI, holds the callbacks); accesses are not recorded");
      finish();
      return;
    }
    sanitizerEnableDomain(1, g_subscriber, SANITIZER_CB_DOMAIN_RESOURCE);
    sanitizerEnableDomain(1, g_subscriber, SANITIZER_CB_DOMAIN_LAUNCH);
    sanitizerEnableDomain(1, g_subscriber, SANITIZER_CB_DOMAIN_SYNCHRONIZE);
    for (auto cbid : {SANITIZER_CBID_RUNTIME_API_cudaLaunchKernel, SANITIZER_CBID_RUNTIME_API_cudaLaunchKernel_ptsz,
                      SANITIZER_CBID_RUNTIME_API_cudaLaunchKernelExC, SANITIZER_CBID_RUNTIME_API_cudaLaunchKernelExC_ptsz})
      sanitizerEnableCallback(1, g_subscriber, SANITIZER_CB_DOMAIN_RUNTIME_API, cbid);
    for (auto cbid : {SANITIZER_CBID_DRIVER_API_cuLaunchKernel, SANITIZER_CBID_DRIVER_API_cuLaunchKernel_ptsz,
                      SANITIZER_CBID_DRIVER_API_cuLaunchKernelEx, SANITIZER_CBID_DRIVER_API_cuLaunchKernelEx_ptsz})
      sanitizerEnableCallback(1, g_subscriber, SANITIZER_CB_DOMAIN_DRIVER_API, cbid);
    std::atexit(finish);
    // A forked child (a compile worker) shares the file descriptor: it must not write into the parent's file.
    pthread_atfork(nullptr, nullptr, [] {
      g_sink.detach_after_fork();
      g_reader = nullptr;  // the parent's thread; the child has none
      g_settings.reader = false;
      g_in_flight.forget_holders();
    });
  } catch (...) {
    g_sink.count_lost();
  }
}

// A namespace-scope object defined after every other one of this file, not __attribute__((constructor)) (which runs
// before this file's dynamic initialisation): the globals above are made before initialize() uses them, and the
// atexit(finish) it registers runs before they are destroyed.
struct Loader {
  Loader() { initialize(); }
} g_loader;

}  // namespace

}  // namespace vtools::vtrace::injection
