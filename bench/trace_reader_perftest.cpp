// vtools.trace reader timing (not a test): a generated trace of N kernel launches with every field vtrace writes
// (long mangled names, grid/block/cluster, graph ids, launch times) and N/10 memcpys, written by trace_writer, then
// read back by formats/trace's read_trace REPEATS times. Prints the document size and the median and minimum read
// time. The reader's speed is what vtrace summary|check|export|diff|merge and vrender pay on big traces.
// Given a file instead (e.g. `vtrace_perftest 1000000 1`'s /tmp/vtrace_perftest.trace.json, 1M launches), it reads
// it as vtrace summary does (mapped, read_input_text; a compressed one decompressed as it is read), summarises it,
// and prints both times and the peak RSS.
//
//   trace_reader_perftest [KERNELS=100000] [REPEATS=5]
//   trace_reader_perftest FILE.json
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "formats/trace/trace_reader.hpp"
#include "formats/trace/trace_summary.hpp"
#include "formats/trace/trace_writer.hpp"
#include "libcommon/input_file.hpp"

using namespace vtools::vtrace;

namespace {

double ms_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

int read_file(const std::string& path) {
  const auto t0 = std::chrono::steady_clock::now();
  const vtools::InputText input = vtools::read_input_text(path, vtools::kStreamedMaxInputBytes);
  const Trace trace = read_trace(input, path);  // a .json.gz/.json.zst decompressed as it is read
  const double read_ms = ms_since(t0);
  const auto t1 = std::chrono::steady_clock::now();
  const TraceSummary summary = summarize_trace(trace);
  const double summary_ms = ms_since(t1);
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  std::printf("kernels %zu  json %.1f MB  read_trace %.0f ms  summarize_trace %.0f ms (%zu names)  peak RSS %.0f MB\n",
              trace.kernels.size(), input.text().size() / 1e6, read_ms, summary_ms, summary.kernels.size(),
              usage.ru_maxrss / 1024.0);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc > 1 && (argv[1][0] < '0' || argv[1][0] > '9')) return read_file(argv[1]);
  const long n = argc > 1 ? std::atol(argv[1]) : 100000;
  const int repeats = argc > 2 ? std::atoi(argv[2]) : 5;
  Trace trace;
  trace.run.command = {"python", "train.py"};
  trace.run.mode = "launch";
  trace.devices.push_back(Device{});
  std::uint64_t t = 1'700'000'000'000'000'000ull;
  for (long i = 0; i < n; ++i) {
    Kernel k;
    k.name = "void at::native::vectorized_elementwise_kernel<" + std::to_string(i % 12) + ", at::native::MulFunctor>";
    k.mangled_name = "_ZN2at6native29vectorized_elementwise_kernelILi" + std::to_string(i % 12) + "ENS0_10MulFunctorE";
    k.code_hash = "0123456789abcdef";
    k.stream_id = 7 + i % 4;
    k.correlation_id = static_cast<std::uint32_t>(i + 1);
    k.grid = {128, 1, 1};
    k.block = {256, 1, 1};
    k.registers_per_thread = 32;
    k.start_ns = t;
    k.end_ns = t + 2000 + (i * 7919) % 50000;
    k.launch_ns = t - 5000;
    k.launch_end_ns = t - 3000;
    k.thread_id = 1;
    t = k.end_ns + 500;
    trace.kernels.push_back(std::move(k));
    if (i % 10 == 0) {
      Memcpy m;
      m.kind = "htod";
      m.bytes = 4096;
      m.start_ns = t;
      m.end_ns = t + 100;
      trace.memcpys.push_back(m);
    }
  }
  const std::string text = trace_document_text(trace);
  std::vector<double> ms;
  std::size_t kernels = 0;
  for (int r = 0; r < repeats; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    kernels = read_trace(text, "generated.json").kernels.size();
    ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  }
  std::sort(ms.begin(), ms.end());
  std::printf("kernels %zu  json %.1f MB  read_trace median %.0f ms  min %.0f ms  (%d repeats)\n", kernels,
              text.size() / 1e6, ms[ms.size() / 2], ms.front(), repeats);
  return 0;
}
