// libFuzzer target: vtools.bench bytes -> parse_document -> read_bench_entries -> compare (the document with itself:
// bootstrap, compare document, both tables) and merge (with itself); read_bench_run and its tables (vbench show);
// read_forward_pins (vbench run --forwards-from) in each dtype. Only vtools::Error may escape.
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string_view>

#include "libcommon/document.hpp"
#include "libcommon/error.hpp"
#include "tools/vbench/bench_document.hpp"
#include "tools/vbench/bench_table.hpp"
#include "tools/vbench/compare.hpp"
#include "tools/vbench/merge.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    const auto doc = vtools::parse_document(text, "fuzz.json", {vtools::kBenchFormat});
    const auto entries = vtools::vbench::read_bench_entries(doc, "fuzz.json");
    std::size_t samples = 0;
    for (const auto& e : entries) samples += e.samples_ms.size();
    if (samples <= 4096) {  // the bootstrap resamples each config 1000s of times: keep an input quick
      const auto cmp = vtools::vbench::compare_benchmarks(entries, entries, 5.0);
      std::ostringstream out;
      out << vtools::dump_json(vtools::vbench::compare_document(cmp, doc, "a.json", doc, "b.json"));
      vtools::vbench::write_compare_table(cmp, "table", out);
      vtools::vbench::write_compare_table(cmp, "markdown", out);
      vtools::vbench::write_compare_table(cmp, "csv", out);
    }
    (void)vtools::dump_json(vtools::vbench::merge_bench_documents({doc, doc}, {"a.json", "b.json"}, true));
    const auto run = vtools::vbench::read_bench_run(doc, "fuzz.json");
    std::ostringstream shown;
    for (const char* format : {"table", "markdown", "csv"}) vtools::vbench::write_bench_table(run, format, shown);
  } catch (const vtools::Error&) {
  }
  try {  // apart: a document that compare refuses may still be read for its kept forwards
    const auto doc = vtools::parse_document(text, "fuzz.json", {vtools::kBenchFormat});
    using vtools::vbench::DType;
    for (const DType dtype : {DType::kFp32, DType::kTf32, DType::kBf16}) {
      try {
        const auto pins = vtools::vbench::read_forward_pins(doc, "fuzz.json", dtype);
        for (const auto& e : pins.per_benchmark) (void)pins.find(e.config, e.shape);
      } catch (const vtools::Error&) {
      }
    }
  } catch (const vtools::Error&) {
  }
  return 0;
}
