#include "tools/vbench/compare.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <sstream>
#include <vector>

#include "libcommon/error.hpp"
#include "tools/vbench/merge.hpp"

using namespace vtools;
using namespace vtools::vbench;

namespace {
BenchEntry entry(std::string name, double center, double spread = 0.01) {
  BenchEntry e;
  e.name = std::move(name);
  for (int i = 0; i < 30; ++i) e.samples_ms.push_back(center * (1.0 + spread * ((i * 7) % 11 - 5) / 5.0));
  e.median_ms = center;
  e.batch_size = 4;
  e.seq_len = 64;
  e.dtype = "fp32";
  e.caches = "warm";
  return e;
}
}  // namespace

TEST_CASE("compare: verdict by whether the bootstrap CI of the speedup excludes 1") {
  const Comparison cmp = compare_benchmarks({entry("a", 10), entry("b", 10), entry("c", 10), entry("gone", 1)},
                                            {entry("a", 5), entry("b", 20), entry("c", 10.001), entry("new", 1)}, 5);
  REQUIRE(cmp.configs.size() == 3);
  CHECK(cmp.configs[0].verdict == "faster");
  CHECK(cmp.configs[0].speedup == doctest::Approx(2.0).epsilon(0.01));
  CHECK(cmp.configs[0].ci_low <= cmp.configs[0].speedup);
  CHECK(cmp.configs[0].speedup <= cmp.configs[0].ci_high);
  CHECK(cmp.configs[1].verdict == "slower");
  CHECK(cmp.configs[1].change_pct == doctest::Approx(100.0).epsilon(0.01));
  CHECK(cmp.configs[1].regression);
  CHECK(cmp.configs[2].verdict == "same");
  CHECK_FALSE(cmp.configs[2].regression);
  CHECK(cmp.has_regression());
  CHECK(cmp.only_in_baseline == std::vector<std::string>{"gone"});
  CHECK(cmp.only_in_candidate == std::vector<std::string>{"new"});
}

TEST_CASE("compare: a slowdown under the threshold, or no threshold, is not a regression; untimed is reported") {
  CHECK_FALSE(compare_benchmarks({entry("a", 10)}, {entry("a", 10.5)}, 10).has_regression());
  CHECK_FALSE(compare_benchmarks({entry("a", 10)}, {entry("a", 20)}, -1).has_regression());
  BenchEntry failed = entry("a", 0);
  failed.samples_ms.clear();
  failed.median_ms = NAN;
  const Comparison cmp = compare_benchmarks({entry("a", 10)}, {failed}, 0);
  CHECK(cmp.configs[0].verdict == "untimed");
  CHECK(std::isnan(cmp.configs[0].speedup));
  CHECK_FALSE(cmp.has_regression());
}

TEST_CASE("compare: runs set up differently are compared and say how they differ") {
  BenchEntry cold = entry("a", 12), bf16 = entry("a", 5);
  cold.caches = "cold";
  bf16.dtype = "bf16";
  bf16.seq_len = 32;
  const Comparison cmp = compare_benchmarks({entry("a", 10)}, {cold}, -1);
  CHECK(cmp.configs[0].verdict == "slower");
  CHECK(cmp.configs[0].differs == "caches warm vs cold");
  CHECK(compare_benchmarks({entry("a", 10)}, {bf16}, -1).configs[0].differs == "dtype fp32 vs bf16, T 64 vs 32");
  CHECK(compare_benchmarks({entry("a", 10)}, {entry("a", 10)}, -1).configs[0].differs.empty());
}

TEST_CASE("compare: a single run pairs with a sweep's key of the same config and shape") {
  BenchEntry swept = entry("a/B:4/T:64", 9), other = entry("a/B:1/T:64", 3);
  other.batch_size = 1;
  const Comparison cmp = compare_benchmarks({entry("a", 10)}, {other, swept}, -1);
  REQUIRE(cmp.configs.size() == 1);
  CHECK(cmp.configs[0].config == "a/B:4/T:64");
  CHECK(cmp.configs[0].candidate_median_ms == doctest::Approx(9));
  CHECK(cmp.only_in_candidate == std::vector<std::string>{"a/B:1/T:64"});
  // and the other way round; a key whose shape is not the entry's own does not pair
  CHECK(compare_benchmarks({swept}, {entry("a", 10)}, -1).configs.size() == 1);
  BenchEntry mislabelled = entry("a/B:4/T:64", 9);
  mislabelled.seq_len = 32;
  CHECK(compare_benchmarks({entry("a", 10)}, {mislabelled}, -1).configs.empty());
}

TEST_CASE("compare: the geometric mean of the speedups over the configs timed on both sides") {
  BenchEntry untimed = entry("c", 1);
  untimed.samples_ms.clear();
  untimed.median_ms = NAN;
  const Comparison cmp = compare_benchmarks({entry("a", 10), entry("b", 10), entry("c", 1)},
                                            {entry("a", 5), entry("b", 20), untimed}, -1);
  CHECK(cmp.geomean_n == 2);
  CHECK(cmp.geomean_speedup == doctest::Approx(1.0));  // sqrt(2 x 0.5)
  std::ostringstream table;
  write_compare_table(cmp, "table", table);
  CHECK(table.str().find("geomean speedup over 2 configs: 1.000x\n") != std::string::npos);
  const OrderedJson doc = compare_document(cmp, OrderedJson::object(), "a", OrderedJson::object(), "b");
  CHECK(doc["geomean_configs"] == 2);
  const Comparison none = compare_benchmarks({untimed}, {untimed}, -1);
  CHECK(none.geomean_n == 0);
  CHECK(compare_document(none, OrderedJson::object(), "a", OrderedJson::object(), "b")["geomean_speedup"].is_null());
}

TEST_CASE("compare: different forwards kept at prepare are named, in the document and the table") {
  BenchEntry base = entry("a", 10), cand = entry("a", 11);
  base.kept_forward = "unfused with programmatic launches";
  cand.kept_forward = "fused block rows";
  const Comparison cmp = compare_benchmarks({base}, {cand}, -1);
  CHECK(cmp.configs[0].baseline_forward == "unfused with programmatic launches");
  CHECK(cmp.configs[0].candidate_forward == "fused block rows");
  CHECK(cmp.configs[0].differs.empty());  // a different pick is not a different setup: merge takes such runs
  std::ostringstream table;
  write_compare_table(cmp, "table", table);
  CHECK(table.str().find("a: prepare kept different forwards: baseline unfused with programmatic launches; "
                         "candidate fused block rows\n") != std::string::npos);
  const OrderedJson doc = compare_document(cmp, OrderedJson::object(), "a.json", OrderedJson::object(), "b.json");
  CHECK(doc["comparisons"][0]["kept_forwards"]["candidate"] == "fused block rows");
  // The same pick, or a side that names none (cpu, older documents): nothing to say.
  cand.kept_forward = base.kept_forward;
  CHECK(compare_benchmarks({base}, {cand}, -1).configs[0].baseline_forward.empty());
  cand.kept_forward.clear();
  const Comparison one_sided = compare_benchmarks({base}, {cand}, -1);
  CHECK(one_sided.configs[0].baseline_forward.empty());
  CHECK(compare_document(one_sided, OrderedJson::object(), "a", OrderedJson::object(), "b")["comparisons"][0]
            ["kept_forwards"].is_null());
}

// The table's cells were escaped, the lines under it were not: a crafted document reached the terminal with them.
TEST_CASE("compare: names and values in the lines under the table are escaped as the table's cells are") {
  BenchEntry base = entry("a\x1b[31m", 10), cand = entry("a\x1b[31m", 10);
  base.dtype = "fp32\x1b]0;title\x07";
  base.kept_forward = "f\x1b[1m";
  cand.kept_forward = "g";
  const Comparison cmp = compare_benchmarks({base, entry("gone\x1b[2J", 1)}, {cand, entry("new\r", 1)}, -1);
  std::ostringstream table;
  write_compare_table(cmp, "table", table);
  const std::string out = table.str();
  CHECK(out.find("a\\x1b[31m: the runs differ in dtype fp32\\x1b]0;title\\x07 vs fp32\n") != std::string::npos);
  CHECK(out.find("a\\x1b[31m: prepare kept different forwards: baseline f\\x1b[1m; candidate g\n") != std::string::npos);
  CHECK(out.find("only in baseline: gone\\x1b[2J\n") != std::string::npos);
  CHECK(out.find("only in candidate: new\\r\n") != std::string::npos);
  CHECK(std::none_of(out.begin(), out.end(), [](unsigned char c) { return c != '\n' && (c < 0x20 || c == 0x7f); }));
}

TEST_CASE("compare: with repetitions on both sides the CI resamples their medians, so drift widens it") {
  // Two runs whose samples are tight (1%) but whose repetitions' medians move by 4% (as prepared forwards can): over
  // the samples a 2% change is "slower"; over the repetitions it is "same".
  BenchEntry base = entry("a", 10), cand = entry("a", 10.2);
  CHECK(compare_benchmarks({base}, {cand}, -1).configs[0].verdict == "slower");
  base.repetitions = {{9.8, 30}, {10.2, 30}, {10.0, 30}, {10.2, 30}};
  cand.repetitions = {{10.0, 30}, {10.4, 30}, {10.2, 30}, {10.0, 30}};
  const Comparison cmp = compare_benchmarks({base}, {cand}, 1.0);
  const ConfigComparison& c = cmp.configs[0];
  CHECK(c.baseline_repetition_medians == std::vector<double>{9.8, 10.2, 10.0, 10.2});
  CHECK(c.candidate_repetition_medians.size() == 4);
  CHECK(c.verdict == "same");
  CHECK_FALSE(c.regression);
  CHECK(c.ci_low < 1.0);
  CHECK(c.ci_high > 1.0);
  CHECK(c.speedup == doctest::Approx(10.0 / 10.2));  // still the ratio of the overall medians
  std::ostringstream table;
  write_compare_table(cmp, "table", table);
  CHECK(table.str().find("a: 95% CI over the medians of 4 and 4 repetitions\n") != std::string::npos);
  const OrderedJson doc = compare_document(cmp, OrderedJson::object(), "a.json", OrderedJson::object(), "b.json");
  CHECK(doc["comparisons"][0]["ci_over"] == "repetitions");
  CHECK(doc["comparisons"][0]["candidate_repetitions"] == 4);
  CHECK(doc["comparisons"][0]["candidate_repetition_medians_ms"][1] == 10.4);
  // One side without repetitions: the samples, as before.
  cand.repetitions.clear();
  const Comparison samples = compare_benchmarks({base}, {cand}, -1);
  CHECK(samples.configs[0].baseline_repetition_medians.empty());
  CHECK(samples.configs[0].verdict == "slower");
  CHECK(compare_document(samples, OrderedJson::object(), "a", OrderedJson::object(), "b")["comparisons"][0]
            ["ci_over"] == "samples");
}

TEST_CASE("merge: joins benchmarks, suffixes repeated names, refuses mixed shapes unless allowed") {
  auto doc = [](int batch) {
    OrderedJson d = new_document(kBenchFormat, "vbench");
    d["metadata"] = {{"timestamp", "2026-11-22T15:00:00Z"}, {"batch_size", batch}, {"seq_len", 64}, {"dtype", "fp32"}};
    d["benchmarks"] = {{"gpt_nano", {{"config", {{"n_layer", 3}}}, {"timing", {{"median", 1.0}}}}}};
    return d;
  };
  const OrderedJson m = merge_bench_documents({doc(4), doc(4)}, {"a.json", "b.json"}, false);
  CHECK(m["benchmarks"].contains("gpt_nano"));
  CHECK(m["benchmarks"]["gpt_nano@2"]["source"] == "b.json");
  CHECK(m["metadata"]["merged_from"].size() == 2);
  // A merge of a merge: each benchmark keeps the file it ran in, merged_from lists every original document.
  const OrderedJson again = merge_bench_documents({m, doc(4)}, {"ab.json", "c.json"}, false);
  CHECK(again["benchmarks"]["gpt_nano"]["source"] == "a.json");
  CHECK(again["benchmarks"]["gpt_nano@2"]["source"] == "b.json");
  CHECK(again["benchmarks"]["gpt_nano@2.1"]["source"] == "c.json");
  REQUIRE(again["metadata"]["merged_from"].size() == 3);
  CHECK(again["metadata"]["merged_from"][1]["file"] == "b.json");
  CHECK(again["metadata"]["merged_from"][2]["file"] == "c.json");
  CHECK_THROWS_WITH_AS(merge_bench_documents({doc(4), doc(8)}, {"a.json", "b.json"}, false),
                       "b.json: benchmark 'gpt_nano' ran at B=8 T=64 fp32, warm caches but 'gpt_nano' in a.json at "
                       "B=4 T=64 fp32, warm caches; pass --allow-mixed to merge them anyway",
                       Error);
  OrderedJson cold = doc(4);  // documents from before --caches are warm
  cold["metadata"]["caches"] = "cold";
  CHECK_THROWS_WITH_AS(merge_bench_documents({doc(4), cold}, {"a.json", "b.json"}, false),
                       "b.json: benchmark 'gpt_nano' ran at B=4 T=64 fp32, cold caches but 'gpt_nano' in a.json at "
                       "B=4 T=64 fp32, warm caches; pass --allow-mixed to merge them anyway",
                       Error);
  CHECK(merge_bench_documents({doc(4), doc(8)}, {"a.json", "b.json"}, true)["benchmarks"].size() == 2);
  // Sweeps (keys that name their shape) at different B or T are different benchmarks, not a mix; a plain key beside
  // them still is.
  auto sweep = [](int batch) {
    OrderedJson d = new_document(kBenchFormat, "vbench");
    d["metadata"] = {{"dtype", "fp32"}, {"batch_size", nullptr}, {"seq_len", nullptr}};
    for (const int t : {32, 64}) {
      d["benchmarks"]["gpt_nano/B:" + std::to_string(batch) + "/T:" + std::to_string(t)] = {
          {"batch_size", batch}, {"seq_len", t}, {"timing", {{"median", 1.0}}}};
    }
    return d;
  };
  CHECK(merge_bench_documents({sweep(1), sweep(4)}, {"a.json", "b.json"}, false)["benchmarks"].size() == 4);
  CHECK_THROWS_WITH_AS(merge_bench_documents({sweep(1), doc(4)}, {"a.json", "b.json"}, false),
                       "b.json: benchmark 'gpt_nano' ran at B=4 T=64 fp32, warm caches but 'gpt_nano/B:1/T:32' in "
                       "a.json at B=1 T=32 fp32, warm caches; pass --allow-mixed to merge them anyway",
                       Error);
  // A name that a document already holds with a suffix does not overwrite it. Metadata that is not an object is
  // refused by the format's reader (it used to be replaced), as vrender refuses it.
  OrderedJson odd = doc(4);
  odd["benchmarks"]["gpt_nano@2"] = odd["benchmarks"]["gpt_nano"];
  const OrderedJson all = merge_bench_documents({odd, odd}, {"a.json", "b.json"}, true);
  CHECK(all["benchmarks"].size() == 4);
  CHECK(all["benchmarks"]["gpt_nano@2.1"]["source"] == "b.json");
  CHECK(all["metadata"]["merged_from"].size() == 2);
  odd["metadata"] = 3;
  CHECK_THROWS_WITH_AS(merge_bench_documents({odd, odd}, {"a.json", "b.json"}, true), "a.json: metadata: expected an object, got 3",
                       Error);
}

TEST_CASE("bench_document: entries are read with their samples; mistyped fields are named") {
  OrderedJson d = new_document(kBenchFormat, "vbench");
  d["metadata"] = {{"timestamp", "t"}, {"dtype", "bf16"}};
  d["benchmarks"] = {{"x", {{"batch_size", 2}, {"seq_len", 8}, {"timing", {{"median", 2.0}, {"samples_ms", {1.0, 2.0, 3.0}}}}}}};
  const auto entries = read_bench_entries(d, "d.json");
  REQUIRE(entries.size() == 1);
  CHECK(entries[0].samples_ms.size() == 3);
  CHECK(entries[0].dtype == "bf16");
  CHECK(entries[0].status == "ok");
  CHECK(entries[0].caches == "warm");  // absent: warm, as every run was before --caches
  CHECK(entries[0].kept_forward.empty());
  d["benchmarks"]["x"]["plan_search"] = {{"kept", "fused block rows"}};
  CHECK(read_bench_entries(d, "d.json")[0].kept_forward == "fused block rows");
  d["benchmarks"]["x"]["plan_search"] = "fused";
  CHECK_THROWS_WITH_AS(read_bench_entries(d, "d.json"), "d.json: benchmarks.x.plan_search: expected an object, got \"fused\"", Error);
  d["benchmarks"]["x"]["plan_search"] = {{"kept", 3}};
  CHECK_THROWS_WITH_AS(read_bench_entries(d, "d.json"), "d.json: benchmarks.x.plan_search.kept: expected a string, got 3", Error);
  d["benchmarks"]["x"].erase("plan_search");
  d["benchmarks"]["x"]["timing"]["samples_ms"] = {1.0, "2"};
  CHECK_THROWS_WITH_AS(read_bench_entries(d, "d.json"), "d.json: benchmarks.x.timing.samples_ms[1]: expected a number, got \"2\"", Error);
  d["benchmarks"]["x"]["timing"]["samples_ms"] = {1.0};
  d["benchmarks"]["x"]["batch_size"] = 1e80;  // an int field: a float would be cast (undefined), so it is refused
  CHECK_THROWS_WITH_AS(
      read_bench_entries(d, "d.json"),
      "d.json: benchmarks.x.batch_size: expected an integer from 1 to 2147483647, got 1e+80", Error);
}
