#include "formats/bench/bench_reader.hpp"

#include <cmath>

#include "libcommon/field_reader.hpp"

namespace vtools::vbench {

namespace {

const std::vector<std::string> kDTypes = {"fp32", "tf32", "bf16"};
const std::vector<std::string> kCaches = {"warm", "cold"};
const std::vector<std::string> kStatuses = {"ok", "unchecked", "failed", "passed"};

/// A duration statistic in ms: not negative (a std of 0 is fine); NAN where absent.
double milliseconds(const FieldReader& t, std::string_view key) {
  const double v = t.number(key, NAN);
  if (v < 0) t.expected(key, "a number of milliseconds, at least 0", *t.find(key));
  return v;
}

/// A string, or an array of strings joined by spaces (the seed wrote commands as arrays); "" when absent.
std::string text(const FieldReader& f, std::string_view key) {
  const OrderedJson* v = f.find(key);
  if (!v || !v->is_array()) return f.string(key);
  std::string out;
  for (const std::string& w : f.strings(key)) out += (out.empty() ? "" : " ") + w;
  return out;
}

BenchMetadata read_metadata(const FieldReader& doc) {
  BenchMetadata m;
  const std::optional<FieldReader> meta = doc.object("metadata");
  if (!meta) return m;
  const FieldReader& f = *meta;
  m.timestamp = f.string("timestamp");
  m.gpu_name = f.string("gpu_name");
  m.device_name = f.string("device_name");
  m.compute_capability = f.string("compute_capability");
  m.pci_bus_id = f.string("pci_bus_id");
  m.cuda_version = f.string("cuda_version");
  m.driver_version = f.string("driver_version");
  m.blas_version = f.string("blas_version");
  m.command = text(f, "command");
  m.command_line = text(f, "command_line");
  m.host = f.string("host");
  m.backend = f.string("backend");
  m.dtype = f.one_of("dtype", kDTypes);
  m.caches = f.one_of("caches", kCaches);
  m.vtools_version = f.string("vtools_version");
  m.gpu_index = f.optional_integer<int>("gpu_index");
  m.batch_size = f.optional_integer<int>("batch_size");
  m.seq_len = f.optional_integer<int>("seq_len");
  m.warmup = f.optional_integer<int>("warmup");
  m.iters = f.optional_integer<int>("iters");
  m.repetitions = f.optional_integer<int>("repetitions");
  m.threads = f.optional_integer<int>("threads");
  m.min_time_s = f.number("min_time_s", NAN);
  m.notes = f.strings("notes");
  return m;
}

/// A median that the document writes as null (a forward that could not run) reads back as +inf.
std::vector<TimedPlan> read_timed_plans(const FieldReader& f) {
  std::vector<TimedPlan> plans;
  f.for_each("timed", [&](const FieldReader& p) { plans.push_back({p.string("forward"), p.number("median_ms", INFINITY)}); });
  return plans;
}

PlanSearch read_plan_search(const FieldReader& p) {
  PlanSearch search;
  search.kept = p.string("kept");
  search.replays = p.integer<int>("replays", 0);
  search.timed = read_timed_plans(p);
  if (const std::optional<FieldReader> playoff = p.object("playoff")) {
    search.playoff_rounds = playoff->integer<int>("rounds", 0);
    search.playoff_replays = playoff->integer<int>("replays", 0);
    search.playoff = read_timed_plans(*playoff);
  }
  p.for_each("rejected", [&](const FieldReader& x) { search.rejected.push_back({x.string("forward"), x.string("reason")}); });
  p.for_each("gemm_algorithms", [&](const FieldReader& g) {
    search.gemm_algorithms.push_back({g.string("gemm"), g.integer<int>("candidate", 0), g.integer<int>("of", 0)});
  });
  search.pinned_from = p.string("pinned_from");
  return search;
}

BenchTiming read_timing(const FieldReader& t) {
  BenchTiming timing;
  timing.mean = milliseconds(t, "mean");
  timing.std = milliseconds(t, "std");
  timing.min = milliseconds(t, "min");
  timing.max = milliseconds(t, "max");
  timing.median = milliseconds(t, "median");
  timing.p5 = milliseconds(t, "p5");
  timing.p25 = milliseconds(t, "p25");
  timing.p75 = milliseconds(t, "p75");
  timing.p95 = milliseconds(t, "p95");
  timing.p99 = milliseconds(t, "p99");
  timing.n = t.optional_integer<std::size_t>("n");
  timing.samples_ms = t.numbers("samples_ms");
  // Compare and the pages compute every statistic from the samples: one that is no forward's time (0, negative, past
  // a day) would make a ratio of nothing, or a negative speedup that no gate reads as slower.
  for (std::size_t i = 0; i < timing.samples_ms.size(); ++i)
    if (!is_sample_ms(timing.samples_ms[i])) t.expected("samples_ms", kSampleMsWanted, t.json()["samples_ms"][i], i);
  return timing;
}

BenchBenchmark read_benchmark(const std::string& key, const FieldReader& b) {
  BenchBenchmark r;
  r.name = key;
  r.status = b.one_of("status", kStatuses);
  r.backend = b.string("backend");
  r.dtype = b.one_of("dtype", kDTypes);
  r.caches = b.one_of("caches", kCaches);
  if (const std::optional<FieldReader> config = b.object("config")) {
    r.n_layer = config->optional_integer<int>("n_layer");
    r.n_head = config->optional_integer<int>("n_head");
    r.n_embd = config->optional_integer<int>("n_embd");
  }
  r.batch_size = b.optional_integer<int>("batch_size", 1);
  r.seq_len = b.optional_integer<int>("seq_len", 1);
  if (const std::optional<FieldReader> t = b.object("timing")) r.timing = read_timing(*t);
  r.throughput_tokens_per_sec = b.number("throughput_tokens_per_sec", NAN);
  b.for_each("repetitions", [&](const FieldReader& x) {
    r.repetitions.push_back({x.number("median_ms", NAN), x.integer<std::size_t>("n", 0)});
  });
  r.flops_per_forward = b.number("flops_per_forward", NAN);
  r.bytes_per_forward = b.number("bytes_per_forward", NAN);
  if (const std::optional<FieldReader> roofline = b.object("roofline")) {
    r.floor_ms = roofline->number("floor_ms", NAN);
    r.roofline_fraction = roofline->number("fraction", NAN);
    r.bound = roofline->string("bound");
  }
  r.kernels_per_forward = b.optional_integer<int>("kernels_per_forward");
  if (const std::optional<FieldReader> failure = b.object("failure")) {
    r.failure_kind = failure->string("kind");
    r.failure = failure->string("reason");
  }
  // An empty object reads as absent, as the writer never writes one.
  if (const std::optional<FieldReader> k = b.object("correctness"); k && !k->json().empty()) {
    Correctness c;
    c.max_abs_err = k->number("max_abs_err", NAN);
    c.rel_err = k->number("rel_err", NAN);
    c.top1_agreement = k->number("top1_agreement", 0.0);
    c.tolerance = k->number("tolerance", 0.0);
    c.passed = k->boolean("passed", false);
    c.reference = k->string("reference");
    c.compared_rows = k->integer<std::int64_t>("compared_positions", 0);
    r.correctness = c;
  }
  if (const std::optional<FieldReader> c = b.object("clocks"); c && !c->json().empty())
    r.clocks = ClockReading{c->integer<int>("sm_mhz", 0), c->integer<int>("sm_max_mhz", 0), c->strings("limits")};
  if (const std::optional<FieldReader> p = b.object("plan_search"); p && !p->json().empty())
    r.plan_search = read_plan_search(*p);
  return r;
}

}  // namespace

BenchDocument read_bench_document(const OrderedJson& doc, std::string_view name) {
  const FieldReader top(doc, "", name);
  (void)top.required_object("benchmarks");
  BenchDocument out;
  if (doc.contains("created") && doc["created"].is_string()) out.created = doc["created"].get<std::string>();
  out.metadata = read_metadata(top);
  top.for_each_member("benchmarks", [&](const std::string& key, const FieldReader& b) {
    out.benchmarks.push_back(read_benchmark(key, b));
  });
  return out;
}

}  // namespace vtools::vbench
