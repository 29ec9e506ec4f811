// vtools.trace reader timing (not a test): a generated trace of N kernel launches with every field vtrace writes
// (long mangled names, grid/block/cluster, graph ids, launch times) and N/10 memcpys, written by trace_writer, then
// read back by formats/trace's read_trace REPEATS times. Prints the document size and the median and minimum read
// time. The reader's speed is what vtrace summary|check|export|diff|merge and vrender pay on big traces.
//
//   trace_reader_perftest [KERNELS=100000] [REPEATS=5]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "formats/trace/trace_reader.hpp"
#include "formats/trace/trace_writer.hpp"

using namespace vtools::vtrace;

int main(int argc, char** argv) {
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
