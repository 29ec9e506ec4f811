// vtools.bench documents: BenchRun -> JSON (seed field names kept: metadata{timestamp, gpu_name, compute_capability,
// cuda_version, ...}, benchmarks{<config>: {config{...}, timing{...}, throughput_tokens_per_sec, batch_size,
// seq_len, ...}}), and the read document (formats/bench) as compare, merge, show and
// --forwards-from use it. Shape documented by schemas/vtools.bench.schema.json.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "formats/bench/bench_model.hpp"
#include "libcommon/document.hpp"
#include "tools/vbench/harness.hpp"

namespace vtools::vbench {

/// Metadata the harness does not know (what ran it).
struct RunContext {
  std::string command_line;
  std::string host;
};

/// The whole document with the envelope.
OrderedJson bench_document(const BenchRun& run, const RunContext& context);

/// One benchmark entry as compare and merge need it.
struct BenchEntry {
  std::string name;        ///< key in "benchmarks"
  std::string status;      ///< "ok" when absent (documents from the seed had none)
  std::vector<double> samples_ms;
  std::vector<Repetition> repetitions;  ///< --repetitions 2 or more: each one's median and count; else empty
  double median_ms = 0;    ///< timing.median (NaN when untimed)
  int batch_size = 0, seq_len = 0;
  std::string dtype, backend;
  std::string caches;      ///< "warm" or "cold" (--caches); "warm" when absent
  std::string kept_forward;  ///< plan_search.kept: the forward prepare chose; "" when absent (cpu, older documents)
};

/// The entries of a read document, each with the metadata's batch_size, seq_len, dtype, backend and caches where it
/// names none (status "ok", caches "warm" where neither does).
std::vector<BenchEntry> bench_entries(const BenchDocument& doc);

/// Entries of a parsed vtools.bench document (formats/bench read_bench_document, then bench_entries) in document
/// order. Error(kDataError) at `name` naming the config for
/// a benchmark that is not an object or holds a mistyped field.
std::vector<BenchEntry> read_bench_entries(const OrderedJson& doc, std::string_view name);

/// A vtools.bench document back as the BenchRun that wrote it, as far as its tables need (`vbench show`): the
/// metadata's backend, device, dtype, caches and notes, and per benchmark its shape, status, samples and timing
/// summary, throughput, cost, roofline, kernels, correctness, clocks and plan search. Error(kDataError) at `name`
/// for a mistyped field, as read_bench_entries.
BenchRun read_bench_run(const OrderedJson& doc, std::string_view name);

/// The forward each benchmark of a vtools.bench document kept (plan_search.kept, its gemm_algorithms, and the
/// metadata's GPU and cuBLASLt version), per config and shape: `vbench run --forwards-from`. Error(kUsage) when a
/// benchmark that names one ran another dtype than `dtype`, or when none names one (only cuda runs do);
/// Error(kDataError) at `name` for two different forwards at one config and shape (merged runs) and for mistyped
/// fields, as read_bench_entries.
ForwardPins read_forward_pins(const OrderedJson& doc, std::string_view name, DType dtype);

/// This machine's host name ("unknown" when it cannot be read).
std::string host_name();

}  // namespace vtools::vbench
