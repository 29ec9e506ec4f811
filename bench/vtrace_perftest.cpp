// vtrace post-run harness (not a test): what `vtrace run` does after the traced program exits, on a synthetic
// raw record file of N kernel launches (default: as many as bench/gpu-vtrace.sh's launch-bound "mini" run) shaped
// like a PyTorch eager loop (a dozen distinct kernels, long mangled names, ~10% memcpys): read the raw records,
// build the trace (demangling, filtering), format the JSON document while writing it out, commit it (rename).
// Timed per phase (wall clock; the JSON phase uses up to 16 threads). This cost is part of vtrace's wall-time
// overhead (issue 6), paid once at exit.
//
//   vtrace_perftest [KERNELS=134640] [REPEATS=5] [OUT=/tmp/vtrace_perftest.trace.json]
//                                                      prints median wall ms per phase and the document size; the
//                                                      trace stays in OUT (name another when runs share a machine)
#include <algorithm>
#include <cstdio>
#include <chrono>
#include <cstdlib>
#include <string>
#include <vector>

#include "libcommon/output_file.hpp"
#include "libcommon/stats.hpp"
#include "tools/vtrace/kernel_filter.hpp"
#include "tools/vtrace/raw_record_reader.hpp"
#include "tools/vtrace/raw_record_writer.hpp"
#include "tools/vtrace/trace_builder.hpp"
#include "formats/trace/trace_writer.hpp"

using namespace vtools::vtrace;

namespace {

// Wall time: the document is formatted on several threads, and wall time is what the user waits for.
double wall_ms() {
  const auto now = std::chrono::steady_clock::now().time_since_epoch();
  return std::chrono::duration<double, std::milli>(now).count();
}

// Mangled names like the ones PyTorch's elementwise and reduction kernels carry (~130 characters mangled, ~250
// demangled: a traced PyTorch loop writes ~950 bytes per kernel).
std::vector<std::string> kernel_names() {
  std::vector<std::string> names;
  for (int i = 1; i <= 12; ++i) {
    names.push_back("_ZN2at6native29vectorized_elementwise_kernelILi" + std::to_string(i) +
                    "ENS0_13BinaryFunctorIfffNS0_15binary_internal10MulFunctorIfEEEESt5arrayIPcLm3EEEEviT0_T1_");
  }
  names.push_back("_Z17gemv2T_kernel_valIiiffffLi128ELi16ELi4ELi4ELb0ELb0E19cublasGemvParamsExIi30cublasGemvTensor"
                  "StridedBatchedIKfES3_S1_IfEfEEvT11_T4_S7_");
  return names;
}

std::string raw_file(int kernels) {
  raw::RecordBatch b;
  b.add_magic();
  b.add(raw::Tag::kProcess, raw::ProcessRecord{4242, 1000});
  b.add(raw::Tag::kDevice, raw::DeviceRecord{0, 9, 0, 132, 80ull << 30}, "NVIDIA H100 80GB HBM3");
  const std::vector<std::string> names = kernel_names();
  std::uint64_t t = 2000;
  for (int i = 0; i < kernels; ++i) {
    raw::KernelRecord k{};
    k.start_ns = t;
    k.end_ns = t + 3000;
    t += 5000;
    k.correlation_id = static_cast<std::uint32_t>(i + 1);
    k.stream_id = 7;
    k.grid[0] = 1024, k.grid[1] = k.grid[2] = 1;
    k.block[0] = 128, k.block[1] = k.block[2] = 1;
    k.registers_per_thread = 32;
    b.add(raw::Tag::kKernel, k, names[static_cast<std::size_t>(i) % names.size()]);
    if (i % 10 == 0) b.add(raw::Tag::kMemcpy, raw::MemcpyRecord{t, t + 500, 4096, 1, 0, 1, 7, k.correlation_id, 0});
  }
  b.add(raw::Tag::kEnd, raw::EndRecord{t});
  return b.bytes();
}

}  // namespace

int main(int argc, char** argv) {
  const int kernels = argc > 1 ? std::atoi(argv[1]) : 134640;
  const int repeats = argc > 2 ? std::atoi(argv[2]) : 5;
  const std::string output = argc > 3 ? argv[3] : "/tmp/vtrace_perftest.trace.json";
  const std::string bytes = raw_file(kernels);
  std::vector<double> read_ms, build_ms, json_ms, commit_ms;
  std::size_t doc_bytes = 0;
  for (int r = 0; r < repeats; ++r) {
    double t0 = wall_ms();
    std::vector<raw::Capture> captures;  // moved in, as vtrace run does (a braced list would copy every record)
    captures.push_back(raw::read_capture(bytes, "raw-4242.bin"));
    double t1 = wall_ms();
    Trace trace = build_trace(captures, RunInfo{}, KernelFilter(""));
    double t2 = wall_ms();
    // As vtrace run does it: the document goes to the file as it is formatted, so this phase includes write(2).
    vtools::OutputStream out(output);
    doc_bytes = 0;
    write_trace_document(trace, [&](std::string_view piece) {
      out.write(piece);
      doc_bytes += piece.size();
    });
    double t3 = wall_ms();
    out.commit();
    double t4 = wall_ms();
    read_ms.push_back(t1 - t0), build_ms.push_back(t2 - t1), json_ms.push_back(t3 - t2), commit_ms.push_back(t4 - t3);
  }
  auto median = [](const std::vector<double>& v) { return vtools::stats::median(v); };
  std::printf("kernels %d, raw %.1f MB, document %.1f MB, median of %d (wall ms)\n", kernels,
              bytes.size() / 1e6, doc_bytes / 1e6, repeats);
  std::printf("read raw   %8.1f\nbuild      %8.1f\njson+write %8.1f\ncommit     %8.1f   (close, rename)\n"
              "total      %8.1f\n",
              median(read_ms), median(build_ms), median(json_ms), median(commit_ms),
              median(read_ms) + median(build_ms) + median(json_ms) + median(commit_ms));
  return 0;
}
