#include "formats/bench/bench_reader.hpp"

#include <doctest/doctest.h>

#include <cmath>

#include "libcommon/error.hpp"

using namespace vtools;
using namespace vtools::vbench;

namespace {
OrderedJson document(OrderedJson metadata, OrderedJson benchmarks) {
  OrderedJson d = new_document(kBenchFormat, "vbench");
  d["metadata"] = std::move(metadata);
  d["benchmarks"] = std::move(benchmarks);
  return d;
}
}  // namespace

TEST_CASE("bench_reader: absent fields read as NaN, nullopt or \"\"; nothing is taken from the metadata") {
  const OrderedJson d = document({{"batch_size", 4}, {"dtype", "bf16"}, {"command", {"python", "bench.py"}}},
                                 {{"a", OrderedJson::object()}, {"b", {{"timing", {{"median", 2.5}}}}}});
  const BenchDocument doc = read_bench_document(d, "d.json");
  CHECK(doc.metadata.batch_size == 4);
  CHECK_FALSE(doc.metadata.seq_len);
  CHECK(doc.metadata.command == "python bench.py");  // the seed wrote commands as arrays of words
  REQUIRE(doc.benchmarks.size() == 2);
  const BenchBenchmark& a = doc.benchmarks[0];
  CHECK(a.name == "a");
  CHECK_FALSE(a.batch_size);  // not the metadata's: that fallback is vbench's (bench_entries)
  CHECK(a.dtype.empty());
  CHECK_FALSE(a.timing);
  CHECK(std::isnan(a.throughput_tokens_per_sec));
  CHECK(std::isnan(a.roofline_fraction));
  CHECK_FALSE(a.plan_search);
  REQUIRE(doc.benchmarks[1].timing);
  CHECK(doc.benchmarks[1].timing->median == 2.5);
  CHECK(std::isnan(doc.benchmarks[1].timing->mean));
  CHECK_FALSE(doc.benchmarks[1].timing->n);
}

TEST_CASE("bench_reader: a null plan median reads as +inf (a forward that could not run)") {
  const OrderedJson d = document(OrderedJson::object(),
                                 {{"g", {{"plan_search", {{"kept", "f"}, {"timed", {{{"forward", "f"}, {"median_ms", 1.0}},
                                                                                    {{"forward", "h"}, {"median_ms", nullptr}}}}}}}}});
  const BenchDocument doc = read_bench_document(d, "d.json");
  REQUIRE(doc.benchmarks[0].plan_search);
  CHECK(doc.benchmarks[0].plan_search->timed.at(1).median_ms == INFINITY);
}

TEST_CASE("bench_reader: refusals name the document, the part and the field") {
  auto refused = [](const OrderedJson& d) {
    try {
      (void)read_bench_document(d, "d.json");
    } catch (const Error& e) {
      CHECK(e.code() == ExitCode::kDataError);
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  OrderedJson no_benchmarks = new_document(kBenchFormat, "vbench");
  CHECK(refused(no_benchmarks) == "d.json: benchmarks: missing, expected an object");
  CHECK(refused(document(OrderedJson::object(), OrderedJson::array())) == "d.json: benchmarks: expected an object, got []");
  CHECK(refused(document("x", OrderedJson::object())) == "d.json: metadata: expected an object, got \"x\"");
  CHECK(refused(document(OrderedJson::object(), {{"g", 3}})) == "d.json: benchmarks.g: expected an object, got 3");
  CHECK(refused(document(OrderedJson::object(), {{"g", {{"batch_size", 1e300}}}})) ==
        "d.json: benchmarks.g.batch_size: expected an integer from 1 to 2147483647, got 1e+300");
  CHECK(refused(document(OrderedJson::object(), {{"g", {{"config", {{"n_layer", 1.5}}}}}})) ==
        "d.json: benchmarks.g.config.n_layer: expected an integer from -2147483648 to 2147483647, got 1.5");
  CHECK(refused(document({{"iters", "20"}}, OrderedJson::object())) ==
        "d.json: metadata.iters: expected an integer from -2147483648 to 2147483647, got \"20\"");
  CHECK(refused(document({{"notes", {1}}}, OrderedJson::object())) == "d.json: metadata.notes[0]: expected a string, got 1");
  CHECK(refused(document(OrderedJson::object(), {{"g", {{"caches", "hot"}}}})) ==
        "d.json: benchmarks.g.caches: expected \"warm\" or \"cold\", got \"hot\"");
  CHECK(refused(document(OrderedJson::object(), {{"g", {{"timing", {{"median", "0.2"}}}}}})) ==
        "d.json: benchmarks.g.timing.median: expected a number, got \"0.2\"");
  // Samples that are no forward's time: compare would compute a negative speedup (read as slower by no gate), a
  // ratio over 0, or an inf.
  for (const char* bad : {"-1.0", "0", "1e308"})
    CHECK(refused(document(OrderedJson::object(),
                           {{"g", {{"timing", {{"samples_ms", {1.0, OrderedJson::parse(bad)}}}}}}})) ==
          "d.json: benchmarks.g.timing.samples_ms[1]: expected a positive number of milliseconds, at most 86400000 (a "
          "day), got " + OrderedJson::parse(bad).dump());
  CHECK(refused(document(OrderedJson::object(), {{"g", {{"timing", {{"std", -0.5}}}}}})) ==
        "d.json: benchmarks.g.timing.std: expected a number of milliseconds, at least 0, got -0.5");
  CHECK(refused(document(OrderedJson::object(), {{"g", {{"status", "bogus"}}}})).starts_with(
      "d.json: benchmarks.g.status: expected "));
}
