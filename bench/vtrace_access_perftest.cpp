// vtrace access-mode post-run harness (not a test): what `vtrace run --accesses` does after the traced program exits,
// on a synthetic raw file of LAUNCHES launches with SITES device site summaries each (1 or 2 ranges, 3 arguments over
// 50 allocations, long mangled names): read the raw records, fold the sites into per-block records
// (add_access_captures), format the JSON document. Timed per phase (wall clock); the writer uses up to 16 threads.
// A HuggingFace GPT-2 training step (B=2, T=128, bf16 autocast, AdamW) gives ~1432 launches and ~1.95 M sites.
//
//   vtrace_access_perftest [LAUNCHES=400] [SITES=1360]   prints ms per phase, the raw and the document size
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "tools/vtrace/access/access_capture.hpp"
#include "tools/vtrace/raw_record_reader.hpp"
#include "tools/vtrace/raw_record_writer.hpp"
#include "formats/trace/trace_writer.hpp"

using namespace vtools::vtrace;

namespace {

double ms_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t).count();
}

std::string raw_file(int launches, int sites) {
  raw::RecordBatch b;
  b.add_magic();
  b.add(raw::Tag::kProcess, raw::ProcessRecord{1, 0});
  for (std::uint64_t a = 0; a < 50; ++a)
    b.add(raw::Tag::kMemory, raw::MemoryRecord{a, 0x10000000ull * (a + 1), 0x1000000, 1, 3, 0, 0});
  const std::string name = "_ZN2at6native29vectorized_elementwise_kernelILi4ENS0_11FillFunctorIfEESt5arrayIPcLm1EEEEviT0_T1_";
  for (int l = 0; l < launches; ++l) {
    raw::LaunchRecord r{};
    r.kernel_launch = static_cast<std::uint64_t>(l);
    r.grid[0] = sites / 3;
    r.grid[1] = r.grid[2] = 1;
    r.block[0] = 128;
    r.block[1] = r.block[2] = 1;
    r.recorded = 1;
    r.sites = static_cast<std::uint64_t>(sites);
    b.add(raw::Tag::kLaunch, r, name + std::to_string(l % 40));
    for (int s = 0; s < sites; ++s) {
      raw::AccessSite x{};
      x.block[0] = s / 3;
      x.allocation = 0x10000000ull * (1 + s % 3);
      x.argument = static_cast<std::uint32_t>(s % 3);
      x.loads = 100;
      x.bytes_loaded = 400;
      x.requests = 4;
      x.sectors = 16;
      x.lanes = 128;
      x.range_count = 1 + s % 2;
      x.ranges[0][0] = 512ull * s;
      x.ranges[0][1] = 512ull * s + 256;
      x.ranges[1][0] = 512ull * s + 300;
      x.ranges[1][1] = 512ull * s + 400;
      b.add_bytes_record(raw::Tag::kAccessSite, std::string_view(reinterpret_cast<const char*>(&x),
                                                                 raw::site_record_bytes(x.range_count)));
    }
  }
  b.add(raw::Tag::kEnd, raw::EndRecord{0});
  return std::string(b.bytes());
}

}  // namespace

int main(int argc, char** argv) {
  const int launches = argc > 1 ? std::atoi(argv[1]) : 400, sites = argc > 2 ? std::atoi(argv[2]) : 1360;
  const std::string bytes = raw_file(launches, sites);
  auto t = std::chrono::steady_clock::now();
  std::vector<raw::Capture> captures;
  captures.push_back(raw::read_capture(bytes, "raw"));
  const double read_ms = ms_since(t);
  t = std::chrono::steady_clock::now();
  Trace trace;
  trace.run.mode = "accesses";
  access::add_access_captures(captures, access::BlockSampling(), 1000, trace);
  const double fold_ms = ms_since(t);
  t = std::chrono::steady_clock::now();
  std::size_t out = 0;
  write_trace_document(trace, [&](std::string_view piece) { out += piece.size(); });
  const double write_ms = ms_since(t);
  const std::size_t records = trace.accesses.size();
  t = std::chrono::steady_clock::now();
  captures = {};
  trace = Trace();  // what returning from vtrace run would cost after its closing line
  const double free_ms = ms_since(t);
  std::printf("raw %.1f MB: read %.0f ms, fold %.0f ms (%zu records), format %.0f ms (%.1f MB), freeing %.0f ms\n",
              bytes.size() / 1e6, read_ms, fold_ms, records, write_ms, out / 1e6, free_ms);
  return 0;
}
