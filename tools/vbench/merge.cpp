#include "tools/vbench/merge.hpp"

#include "formats/bench/benchmark_key.hpp"
#include "libcommon/error.hpp"
#include "tools/vbench/bench_document.hpp"
#include "tools/vbench/compare.hpp"

namespace vtools::vbench {

namespace {

/// Whether a benchmark's key names its shape, as a sweep's do ("gpt2/B:4/T:64"): such entries at different B or T
/// are different benchmarks, not a mix of setups.
bool names_its_shape(const BenchEntry& e) {
  const std::string suffix = shape_suffix(e.batch_size, e.seq_len);
  return e.name.size() > suffix.size() && e.name.ends_with(suffix);
}

/// compare's notion of a different setup (setup_differences), less B and T where both keys name their shape.
bool mixed_setups(const BenchEntry& a, const BenchEntry& b) {
  if (!names_its_shape(a) || !names_its_shape(b)) return !setup_differences(a, b).empty();
  BenchEntry same_shape = b;
  same_shape.batch_size = a.batch_size;
  same_shape.seq_len = a.seq_len;
  return !setup_differences(a, same_shape).empty();
}

}  // namespace

OrderedJson merge_bench_documents(const std::vector<OrderedJson>& docs, const std::vector<std::string>& names,
                                  bool allow_mixed) {
  OrderedJson out = new_document(kBenchFormat, "vbench");
  OrderedJson meta = docs.empty() || !docs[0].contains("metadata") || !docs[0]["metadata"].is_object()
                         ? OrderedJson::object()
                         : docs[0]["metadata"];
  OrderedJson sources = OrderedJson::array();
  OrderedJson benchmarks = OrderedJson::object();
  const BenchEntry* first = nullptr;
  std::string first_file;
  std::vector<std::vector<BenchEntry>> all;
  for (std::size_t i = 0; i < docs.size(); ++i) all.push_back(read_bench_entries(docs[i], names[i]));
  for (std::size_t i = 0; i < docs.size(); ++i) {
    const OrderedJson m = docs[i].contains("metadata") ? docs[i]["metadata"] : OrderedJson::object();
    auto get = [&](const char* k) { return m.is_object() && m.contains(k) ? m[k] : OrderedJson(nullptr); };
    // A merged document passes on the documents it was merged from, not itself: where each benchmark ran stays known.
    const OrderedJson nested = get("merged_from");
    if (nested.is_array() && !nested.empty())
      for (const auto& s : nested) sources.push_back(s);
    else
      sources.push_back({{"file", names[i]}, {"timestamp", get("timestamp")}, {"gpu_name", get("gpu_name")},
                         {"device_name", get("device_name")}, {"backend", get("backend")}, {"host", get("host")}});
    for (const BenchEntry& e : all[i]) {
      if (!first) {
        first = &e;
        first_file = names[i];
      } else if (!allow_mixed && mixed_setups(*first, e)) {
        auto shape = [](const BenchEntry& x) {
          return "B=" + std::to_string(x.batch_size) + " T=" + std::to_string(x.seq_len) + " " + x.dtype + ", " +
                 x.caches + " caches";
        };
        throw Error(ExitCode::kDataError, "benchmark '" + e.name + "' ran at " + shape(e) + " but '" + first->name +
                                              "' in " + first_file + " at " + shape(*first) +
                                              "; pass --allow-mixed to merge them anyway",
                    SourceLocation{names[i], 0, 0});
      }
      std::string key = e.name;
      // name@N for input N; where a document already holds that name too, further suffixes (never overwrite one)
      for (int n = 0; benchmarks.contains(key); ++n)
        key = e.name + "@" + std::to_string(i + 1) + (n ? "." + std::to_string(n) : "");
      OrderedJson b = docs[i]["benchmarks"][e.name];
      if (!b.contains("source") || !b["source"].is_string()) b["source"] = names[i];  // a merged one keeps its own
      benchmarks[key] = b;
    }
  }
  meta["merged_from"] = sources;
  out["metadata"] = meta;
  out["benchmarks"] = benchmarks;
  return out;
}

}  // namespace vtools::vbench
