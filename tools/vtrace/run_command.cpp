// `vtrace run`: checks that tracing can work, runs the command with the injection library, reads back what each
// traced process recorded, builds the trace and writes it atomically; returns the command's exit status.
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>
#include <optional>

#include "libcommon/cli.hpp"
#include "libcommon/cuda_driver.hpp"
#include "libcommon/document.hpp"
#include "libcommon/error.hpp"
#include "libcommon/human_units.hpp"
#include "libcommon/input_file.hpp"
#include "libcommon/output_file.hpp"
#include "tools/vtrace/access/access_capture.hpp"
#include "tools/vtrace/child_process.hpp"
#include "tools/vtrace/early_fold.hpp"
#include "tools/vtrace/finding_sources.hpp"
#include "tools/vtrace/hot_lines.hpp"
#include "tools/vtrace/options.hpp"
#include "tools/vtrace/process_identity.hpp"
#include "tools/vtrace/raw_record_reader.hpp"
#include "tools/vtrace/runtime_check.hpp"
#include "tools/vtrace/trace_builder.hpp"
#include "formats/trace/trace_writer.hpp"

namespace vtools::vtrace {

namespace fs = std::filesystem;

/// Out-of-bounds findings listed per process before the rest are only counted.
constexpr std::uint64_t kMaxFindings = 1000;

namespace {

/// A private directory for the raw record files, removed with everything in it.
class TempDir {
 public:
  TempDir() {
    const char* base = std::getenv("TMPDIR");
    std::string pattern = std::string(base && *base ? base : "/tmp") + "/vtrace-XXXXXX";
    if (!::mkdtemp(pattern.data()))
      throw Error(ExitCode::kIoError, "cannot create a temporary directory from '" + pattern + "'");
    path_ = pattern;
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  [[nodiscard]] const std::string& path() const { return path_; }

 private:
  std::string path_;
};

std::string host_name() {
  char buf[256] = {};
  if (::gethostname(buf, sizeof buf - 1) != 0) return "";
  return buf;
}

/// One raw record file mapped read-only: its bytes stay in the page cache, which the kernel can evict, instead of
/// being copied onto vtrace's heap. The size is taken once; a leftover grandchild can only append to the file.
class MappedFile {
 public:
  explicit MappedFile(const std::string& path) {
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    struct stat st {};
    if (fd < 0 || ::fstat(fd, &st) != 0) {
      int err = errno;
      if (fd >= 0) ::close(fd);
      throw Error(ExitCode::kIoError, std::string("cannot read: ") + std::strerror(err), SourceLocation{path});
    }
    size_ = static_cast<std::size_t>(st.st_size);
    if (size_ > 0) {
      // Populated: every page is read, so faulting them in one call beats a fault per page.
      void* p = ::mmap(nullptr, size_, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
      int err = errno;
      ::close(fd);
      if (p == MAP_FAILED)
        throw Error(ExitCode::kIoError, std::string("cannot map: ") + std::strerror(err), SourceLocation{path});
      data_ = static_cast<const char*>(p);
    } else {
      ::close(fd);
    }
  }
  ~MappedFile() {
    if (data_) ::munmap(const_cast<char*>(data_), size_);
  }
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;
  [[nodiscard]] std::string_view bytes() const { return {data_ ? data_ : "", size_}; }

 private:
  const char* data_ = nullptr;
  std::size_t size_ = 0;
};

/// The longest prefix of `bytes` made of whole frames that fits in `budget` bytes, and how many whole frames lie
/// past it. Walks frame headers only; the payloads are not touched.
std::pair<std::size_t, std::uint64_t> cut_at_frame(std::string_view bytes, std::uint64_t budget) {
  std::size_t pos = std::min(bytes.size(), sizeof raw::kMagic), keep = pos;
  std::uint64_t left_out = 0;
  while (bytes.size() - pos >= sizeof(raw::FrameHeader)) {
    raw::FrameHeader h;
    std::memcpy(&h, bytes.data() + pos, sizeof h);
    if (bytes.size() - pos - sizeof h < h.bytes) break;  // a torn last record: the reader counts it
    pos += sizeof h + h.bytes;
    if (pos <= budget && left_out == 0) {
      keep = pos;
    } else {
      ++left_out;
    }
  }
  return {keep, left_out};
}

/// Every raw file in `dir`; one that cannot be read becomes a note (the rest of the trace still counts).
///
/// Bounded: the records of all processes together are read up to max_input_bytes() (VTOOLS_MAX_INPUT_BYTES,
/// 512 MiB by default); each record becomes a model object and then JSON text several times its raw size, so an
/// unbounded read-back of a long run ends in an out-of-memory kill that loses the whole trace. Like nsys, which
/// keeps a run's report when its buffers fill and says how much it dropped, vtrace keeps each process's records
/// from the start until the budget is spent, leaves the rest out, marks the trace partial and says in run.notes
/// how many records were left out and how to raise the limit (the one knob that bounds every input vtools reads).
/// The captures' access sites stay in the mapped files, which `files` keeps.
std::vector<raw::Capture> read_captures(const std::string& dir, std::vector<std::string>& notes,
                                        std::vector<std::unique_ptr<MappedFile>>& files) {
  std::vector<fs::path> paths;
  for (const auto& entry : fs::directory_iterator(dir))
    if (entry.path().extension() == ".bin") paths.push_back(entry.path());
  std::sort(paths.begin(), paths.end());
  const std::uint64_t limit = max_input_bytes();
  std::uint64_t budget = limit;
  std::vector<raw::Capture> out;
  for (const auto& f : paths) {
    try {
      auto file = std::make_unique<MappedFile>(f.string());
      std::string_view bytes = file->bytes();
      if (bytes.size() > budget) {
        auto [keep, left_out] = cut_at_frame(bytes, budget);
        notes.push_back(std::to_string(left_out) + " records (" + format_bytes(bytes.size() - keep) + ") of " +
                        f.filename().string() + " were left out: the records of one run are read up to " +
                        format_bytes(limit) + " (raise it with VTOOLS_MAX_INPUT_BYTES=<bytes>)");
        if (keep <= sizeof raw::kMagic) continue;  // not even its process record fits
        bytes = bytes.substr(0, keep);
      }
      budget -= std::min<std::uint64_t>(budget, bytes.size());
      out.push_back(raw::read_capture(bytes, f.filename().string()));
      files.push_back(std::move(file));
    } catch (const Error& e) {
      notes.push_back(std::string("records of one process were unreadable and left out: ") + e.what());
    }
  }
  return out;
}

/// Nanoseconds from `t` to now, for the closing line's figures.
double since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t).count();
}

/// A run's raw records read and folded into its trace, with what each step took; the command's exit (status,
/// signal, duration) is filled in by the caller.
struct FoldedRun {
  Trace trace;
  std::vector<std::string> notes;  ///< about the raw files (left out, unreadable), for trace.run.notes
  double read_ns = 0, build_ns = 0, access_fold_ns = 0, lines_ns = 0;  ///< access_fold_ns and lines_ns: of build_ns
  /// The last of its processes' final records, on CLOCK_MONOTONIC (access mode's end anchors): how long the command
  /// took to exit after it is the teardown the post-run work overlaps. nullopt when no process left one.
  std::optional<std::uint64_t> last_record_ns;
};

FoldedRun fold_run(const std::string& dir, RunInfo run, const KernelFilter& filter,
                   const access::BlockSampling& blocks) {
  FoldedRun f;
  const auto reading = std::chrono::steady_clock::now();
  std::vector<std::unique_ptr<MappedFile>> raw_files;
  std::vector<raw::Capture> captures = read_captures(dir, f.notes, raw_files);
  for (const auto& c : captures)
    if (c.ended && c.clock_anchors.size() > 1 && c.clock_anchors.back().clock == raw::kClockMonotonic)
      f.last_record_ns = std::max(f.last_record_ns.value_or(0), c.clock_anchors.back().clock_ns);
  f.read_ns = since(reading);
  const auto building = std::chrono::steady_clock::now();
  f.trace = build_trace(captures, std::move(run), filter);
  if (f.trace.run.mode == "accesses") {
    const auto fold_start = std::chrono::steady_clock::now();
    access::add_access_captures(captures, blocks, kMaxFindings, f.trace);
    f.access_fold_ns = since(fold_start);
    const auto lines_start = std::chrono::steady_clock::now();
    // Each finding at its source line and SASS: once per module and per distinct PC.
    const std::string nvdisasm = find_nvdisasm();
    PcSymbolizer symbolizer([&](std::string_view cubin) { return disassemble(cubin, nvdisasm); });
    SourceText texts;
    add_finding_sources(captures, symbolizer, f.trace, &texts);
    add_hot_lines(captures, symbolizer, f.trace, &texts);  // per kernel and source line, from the PC tables
    f.lines_ns = since(lines_start);
  }
  captures = {};  // the raw records' memory goes back before the document is formatted
  raw_files.clear();
  f.build_ns = since(building);
  return f;
}

/// The environment that puts the tracer into the command; sets run.mode.
std::vector<std::pair<std::string, std::string>> tracer_environment(const RunOptions& o, const std::string& raw_dir,
                                                                    RunInfo& run) {
  std::vector<std::pair<std::string, std::string>> env{{"VTRACE_RAW_DIR", raw_dir}};
  std::string exe_dir = executable_dir();
  // No NVIDIA driver: nothing can be traced, but the command can still run (a CI step or Makefile under vtrace on a
  // CPU-only runner): an empty environment and a note. --require-gpu makes it exit 69, naming the driver before any
  // library lookup can fail. An installation problem (a library missing) stays an error.
  auto untraced = [&]() -> std::optional<std::vector<std::pair<std::string, std::string>>> {
    const auto why = cuda_driver_unavailable();
    if (!why) return std::nullopt;
    if (o.require_gpu) throw Error(ExitCode::kUnavailable, "cannot trace: " + *why);
    run.mode = o.accesses ? "accesses" : "launches";
    run.notes.push_back("not traced: " + *why + "; the command ran untraced (--require-gpu makes this exit 69)");
    return std::vector<std::pair<std::string, std::string>>{};
  };
  if (!o.accesses) {
    // A library named by VTRACE_CUPTI_LIBRARY that is not there is a setup error even without a driver.
    if (const char* named = std::getenv("VTRACE_CUPTI_LIBRARY"); named && *named) find_injection_library(exe_dir);
    if (auto none = untraced()) return *none;
    std::string library = find_injection_library(exe_dir);
    check_tracing_runtime(library);
    if (const char* old = std::getenv("CUDA_INJECTION64_PATH"); old && *old)
      run.notes.push_back(std::string("CUDA_INJECTION64_PATH was set to '") + old + "'; vtrace replaced it");
    env.emplace_back("CUDA_INJECTION64_PATH", library);
    if (o.api) env.emplace_back("VTRACE_API", "1");
    if (!o.nvtx) return env;
    // NVTX loads the library NVTX_INJECTION64_PATH names at the program's first NVTX call; the injection library
    // hands NVTX on to the libcupti it uses, which then records the ranges (marker activity).
    if (const char* old = std::getenv("NVTX_INJECTION64_PATH"); old && *old && library != old)
      run.notes.push_back(std::string("NVTX_INJECTION64_PATH was set to '") + old + "'; vtrace replaced it");
    env.emplace_back("NVTX_INJECTION64_PATH", library);
    env.emplace_back("VTRACE_NVTX", "1");
    return env;
  }
#ifndef VTOOLS_HAVE_SANITIZER
  throw Error(ExitCode::kUnavailable,
              "--accesses needs the Compute Sanitizer API, which was not found when this vtrace was built "
              "(compute-sanitizer/include/sanitizer.h)");
#else
  std::string library = find_tool_file(exe_dir, "libvtrace_access.so", "the access tracing library");
  std::string patches = find_tool_file(exe_dir, "access_patches.fatbin", "the device patches");
  if (auto none = untraced()) return *none;
  check_tracing_runtime(library);
  run.mode = "accesses";
  auto prepend = [](const char* var, const std::string& value) {
    const char* old = std::getenv(var);
    return old && *old ? value + ":" + old : value;
  };
  env.emplace_back("LD_PRELOAD", prepend("LD_PRELOAD", library));
  env.emplace_back("LD_LIBRARY_PATH", prepend("LD_LIBRARY_PATH", VTOOLS_SANITIZER_ROOT));
  env.emplace_back("VTRACE_TARGET_PID", kChildPid);
  env.emplace_back("VTRACE_ACCESS_PATCHES", patches);
  env.emplace_back("VTRACE_KERNEL", o.kernel_regex);
  env.emplace_back("VTRACE_LAUNCH", std::to_string(o.launch));
  env.emplace_back("VTRACE_MAX_BYTES", std::to_string(o.max_bytes));
  // The canonical spec: the library's parser (device_block_filter.hpp) reads only that form.
  env.emplace_back("VTRACE_BLOCKS", o.blocks.empty() ? "all" : access::BlockSampling::parse(o.blocks).str());
  return env;
#endif
}

}  // namespace

int run_command(const RunOptions& o) {
  KernelFilter filter(o.kernel_regex);
  access::BlockSampling blocks = o.blocks.empty() ? access::BlockSampling() : access::BlockSampling::parse(o.blocks);
  if (o.command.empty()) throw Error(ExitCode::kUsage, "no command to run (usage: vtrace run [options] -- CMD ARGS...)");
  if (!o.accesses && (o.launch >= 0 || !o.blocks.empty()))
    throw Error(ExitCode::kUsage, "--launch and --blocks apply to access mode only (add --accesses)");
  if (o.accesses && o.capture_range != "none")
    throw Error(ExitCode::kUsage, "--capture-range applies to launch mode only (access mode: --kernel, --launch)");
  if (o.accesses && o.nvtx) throw Error(ExitCode::kUsage, "--nvtx applies to launch mode only");
  if (o.accesses && o.api) throw Error(ExitCode::kUsage, "--api applies to launch mode only");
  max_input_bytes();  // a bad VTOOLS_MAX_INPUT_BYTES is refused now, not after the command has run
  // -o trace.%h.%r.json: each task of srun/mpirun (one vtrace per task) writes its own file. %r is the rank the
  // launcher gave vtrace itself; the processes' own ranks are in the trace.
  std::string output = o.output.output;
  if (output != "-" && is_output_pattern(output)) {
    const RankInfo rank = detect_rank(rank_variables_from_environment());
    output = expand_output_pattern(output, {host_name(), rank.rank >= 0 ? std::to_string(rank.rank) : "norank",
                                            static_cast<std::int64_t>(::getpid())});
  }
  check_output_creatable(output);  // nor an -o that cannot be written

  TempDir dir;
  RunInfo run;
  run.command = o.command;
  run.start_time = iso8601_now();
  run.host = host_name();
  run.tool_version = tool_version();
  run.capture_range = o.capture_range;
  run.nvtx = o.nvtx;
  run.api = o.api;
  auto env = tracer_environment(o, dir.path(), run);
  // The post-run work starts as soon as every traced process has written its end record, while the command still
  // tears down (its result is used only if the raw files did not change after; early_fold.hpp).
  EarlyFold<FoldedRun> early(
      dir.path(), [&, run] { return fold_run(dir.path(), run, filter, blocks); }, child_interrupted);
  const char* early_switch = std::getenv("VTRACE_EARLY_FOLD");  // 0: off, for measuring what it saves
  const bool fold_early = !(early_switch && std::string_view(early_switch) == "0");
  ChildExit exit = run_child(o.command, env, [&](int pid) {
    if (fold_early) early.start(pid);
  });
  // vtrace itself was told to stop (the command got the signal too and has ended): stop without a trace, as every
  // tool does when interrupted, rather than write one the user asked not to wait for. TempDir goes on unwinding.
  if (exit.interrupted_by)
    throw Error(static_cast<ExitCode>(128 + exit.interrupted_by),
                std::string("interrupted by SIG") + sigabbrev_np(exit.interrupted_by) + "; no trace written");
  const std::uint64_t exited_ns = raw::monotonic_ns();
  const auto exited = std::chrono::steady_clock::now();
  std::optional<FoldedRun> folded = early.take();
  const bool folded_early = folded && early.fold_started() < exited;
  if (!folded) folded.emplace(fold_run(dir.path(), run, filter, blocks));
  Trace& trace = folded->trace;
  trace.run.exit_status = exit.exit_status;
  trace.run.signal = exit.signal;
  trace.run.duration_ns = exit.duration_ns;
  trace.partial = trace.partial || exit.signal != 0;
  for (auto& n : folded->notes) trace.run.notes.push_back(std::move(n));
  if (trace.partial && trace.run.signal)
    trace.run.notes.push_back("the command was killed by signal " + std::to_string(trace.run.signal) +
                              "; the trace holds what was flushed before");
  for (const auto& n : trace.run.notes) print_note(n);
  const auto writing = std::chrono::steady_clock::now();
  OutputStream out(output);
  std::size_t bytes = 0;
  write_trace_document(trace, [&](std::string_view piece) {
    out.write(piece);
    bytes += piece.size();
  });
  out.commit();
  // Like nsys's closing lines: what was written and what it cost after the command ended (part of the overhead).
  const FoldedRun& f = *folded;
  const std::string fold_split = trace.run.mode != "accesses"
                                     ? std::string()
                                     : " (folding the access sites " + format_duration_ns(f.access_fold_ns) +
                                           ", source lines and hot lines " + format_duration_ns(f.lines_ns) + ")";
  const std::string post_run = "reading the records " + format_duration_ns(f.read_ns) + ", building the trace " +
                               format_duration_ns(f.build_ns) + fold_split;
  print_note(std::to_string(trace.kernels.size()) + " kernel launches from " +
             std::to_string(trace.run.process_ids.size()) + " process(es) written to " +
             (output == "-" ? std::string("stdout") : "'" + output + "'") + " (" + format_bytes(bytes) + " in " +
             format_duration_ns(since(exited)) + ": " +
             post_run + (folded_early ? " while the command exited, then writing " : ", writing ") +
             format_duration_ns(since(writing)) +
             (early.dropped() ? "; " + std::to_string(early.dropped()) +
                                    " early read(s) dropped: the records changed after them"
                              : std::string()) +
             (f.last_record_ns && *f.last_record_ns <= exited_ns
                  ? "; the command exited " + format_duration_ns(static_cast<double>(exited_ns - *f.last_record_ns)) +
                        " after its processes' last records"
                  : std::string()) +
             ")");
  // vtrace's and vrender's readers stream a trace (a record at a time) up to one cap: say now, not at the next step,
  // that they will refuse this one.
  const std::uint64_t streamed = max_input_bytes(kStreamedMaxInputBytes);
  if (bytes > streamed)
    print_warning("this trace (" + format_bytes(bytes) + ") is larger than vtrace summary/export/check/diff and vrender read (" +
                  format_bytes(streamed) + ", VTOOLS_MAX_INPUT_BYTES); record less (" +
                  (trace.run.mode == "accesses" ? std::string("--blocks every:N, --kernel, --launch")
                                                : std::string("--kernel, --capture-range cudaProfilerApi")) +
                  ") or raise the limit to read it");
  return trace.run.exit_status;
}

}  // namespace vtools::vtrace
