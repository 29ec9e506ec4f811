#include "formats/bench/bench_reader.hpp"

#include <cmath>

#include "formats/bench/field_reader.hpp"
#include "libcommon/error.hpp"

namespace vtools::vbench {

namespace {

const std::vector<std::string> kDTypes = {"fp32", "tf32", "bf16"};
const std::vector<std::string> kCaches = {"warm", "cold"};

BenchMetadata read_metadata(const OrderedJson& doc, std::string_view name) {
  BenchMetadata m;
  if (!doc.contains("metadata") || doc["metadata"].is_null()) return m;
  if (!doc["metadata"].is_object()) FieldReader(name, "").fail("'metadata' is not an object");
  const OrderedJson& meta = doc["metadata"];
  const FieldReader f(name, "metadata");
  m.timestamp = f.get(meta, "timestamp", std::string());
  m.gpu_name = f.get(meta, "gpu_name", std::string());
  m.device_name = f.get(meta, "device_name", std::string());
  m.compute_capability = f.get(meta, "compute_capability", std::string());
  m.pci_bus_id = f.get(meta, "pci_bus_id", std::string());
  m.cuda_version = f.get(meta, "cuda_version", std::string());
  m.driver_version = f.get(meta, "driver_version", std::string());
  m.blas_version = f.get(meta, "blas_version", std::string());
  m.command = f.text(meta, "command");
  m.command_line = f.text(meta, "command_line");
  m.host = f.get(meta, "host", std::string());
  m.backend = f.get(meta, "backend", std::string());
  m.dtype = f.one_of(meta, "dtype", kDTypes);
  m.caches = f.one_of(meta, "caches", kCaches);
  m.vtools_version = f.get(meta, "vtools_version", std::string());
  m.gpu_index = f.integer(meta, "gpu_index");
  m.batch_size = f.integer(meta, "batch_size");
  m.seq_len = f.integer(meta, "seq_len");
  m.warmup = f.integer(meta, "warmup");
  m.iters = f.integer(meta, "iters");
  m.repetitions = f.integer(meta, "repetitions");
  m.threads = f.integer(meta, "threads");
  m.min_time_s = f.get(meta, "min_time_s", static_cast<double>(NAN));
  m.notes = f.strings(meta, "notes");
  return m;
}

/// A median that the document writes as null (a forward that could not run) reads back as +inf.
std::vector<TimedPlan> read_timed_plans(const FieldReader& f, const OrderedJson& obj) {
  std::vector<TimedPlan> plans;
  for (const OrderedJson* p : f.array(obj, "timed")) {
    if (!p->is_object()) f.fail("a plan_search entry is not an object");
    plans.push_back({f.get(*p, "forward", std::string()), f.get(*p, "median_ms", static_cast<double>(INFINITY))});
  }
  return plans;
}

PlanSearch read_plan_search(const FieldReader& f, const OrderedJson& p) {
  PlanSearch search;
  search.kept = f.get(p, "kept", std::string());
  search.replays = f.get(p, "replays", 0);
  search.timed = read_timed_plans(f, p);
  const OrderedJson& playoff = f.object(p, "playoff");
  search.playoff_rounds = f.get(playoff, "rounds", 0);
  search.playoff_replays = f.get(playoff, "replays", 0);
  search.playoff = read_timed_plans(f, playoff);
  for (const OrderedJson* x : f.array(p, "rejected")) {
    if (!x->is_object()) f.fail("a plan_search entry is not an object");
    search.rejected.push_back({f.get(*x, "forward", std::string()), f.get(*x, "reason", std::string())});
  }
  for (const OrderedJson* g : f.array(p, "gemm_algorithms")) {
    if (!g->is_object()) f.fail("a gemm_algorithms entry is not an object");
    search.gemm_algorithms.push_back({f.get(*g, "gemm", std::string()), f.get(*g, "candidate", 0), f.get(*g, "of", 0)});
  }
  search.pinned_from = f.get(p, "pinned_from", std::string());
  return search;
}

BenchTiming read_timing(const FieldReader& f, const OrderedJson& t) {
  BenchTiming timing;
  timing.mean = f.get(t, "mean", static_cast<double>(NAN));
  timing.std = f.get(t, "std", static_cast<double>(NAN));
  timing.min = f.get(t, "min", static_cast<double>(NAN));
  timing.max = f.get(t, "max", static_cast<double>(NAN));
  timing.median = f.get(t, "median", static_cast<double>(NAN));
  timing.p5 = f.get(t, "p5", static_cast<double>(NAN));
  timing.p25 = f.get(t, "p25", static_cast<double>(NAN));
  timing.p75 = f.get(t, "p75", static_cast<double>(NAN));
  timing.p95 = f.get(t, "p95", static_cast<double>(NAN));
  timing.p99 = f.get(t, "p99", static_cast<double>(NAN));
  if (t.contains("n") && !t["n"].is_null()) timing.n = f.get(t, "n", std::size_t{0});
  for (const OrderedJson* x : f.array(t, "samples_ms")) {
    if (!x->is_number()) f.fail("'samples_ms' holds a non-number");
    timing.samples_ms.push_back(x->get<double>());
  }
  return timing;
}

BenchBenchmark read_benchmark(const std::string& key, const OrderedJson& b, std::string_view name) {
  if (!b.is_object()) FieldReader(name, "").fail("benchmark '" + key + "' is not an object");
  const FieldReader f(name, "benchmark '" + key + "'");
  BenchBenchmark r;
  r.name = key;
  r.status = f.get(b, "status", std::string());
  r.backend = f.get(b, "backend", std::string());
  r.dtype = f.one_of(b, "dtype", kDTypes);
  r.caches = f.one_of(b, "caches", kCaches);
  const OrderedJson& config = f.object(b, "config");
  r.n_layer = f.integer(config, "n_layer");
  r.n_head = f.integer(config, "n_head");
  r.n_embd = f.integer(config, "n_embd");
  r.batch_size = f.integer(b, "batch_size");
  r.seq_len = f.integer(b, "seq_len");
  if (b.contains("timing") && !b["timing"].is_null()) r.timing = read_timing(f, f.object(b, "timing"));
  r.throughput_tokens_per_sec = f.get(b, "throughput_tokens_per_sec", static_cast<double>(NAN));
  for (const OrderedJson* x : f.array(b, "repetitions")) {
    if (!x->is_object()) f.fail("a repetitions entry is not an object");
    r.repetitions.push_back({f.get(*x, "median_ms", static_cast<double>(NAN)), f.get(*x, "n", std::size_t{0})});
  }
  r.flops_per_forward = f.get(b, "flops_per_forward", static_cast<double>(NAN));
  r.bytes_per_forward = f.get(b, "bytes_per_forward", static_cast<double>(NAN));
  const OrderedJson& roofline = f.object(b, "roofline");
  r.floor_ms = f.get(roofline, "floor_ms", static_cast<double>(NAN));
  r.roofline_fraction = f.get(roofline, "fraction", static_cast<double>(NAN));
  r.bound = f.get(roofline, "bound", std::string());
  r.kernels_per_forward = f.integer(b, "kernels_per_forward");
  const OrderedJson& failure = f.object(b, "failure");
  r.failure_kind = f.get(failure, "kind", std::string());
  r.failure = f.get(failure, "reason", std::string());
  if (const OrderedJson& k = f.object(b, "correctness"); !k.empty()) {
    Correctness c;
    c.max_abs_err = f.get(k, "max_abs_err", static_cast<double>(NAN));
    c.rel_err = f.get(k, "rel_err", static_cast<double>(NAN));
    c.top1_agreement = f.get(k, "top1_agreement", 0.0);
    c.tolerance = f.get(k, "tolerance", 0.0);
    c.passed = f.get(k, "passed", false);
    c.reference = f.get(k, "reference", std::string());
    c.compared_rows = f.get(k, "compared_positions", static_cast<std::int64_t>(0));
    r.correctness = c;
  }
  if (const OrderedJson& c = f.object(b, "clocks"); !c.empty()) {
    r.clocks = ClockReading{f.get(c, "sm_mhz", 0), f.get(c, "sm_max_mhz", 0), f.strings(c, "limits")};
  }
  if (const OrderedJson& p = f.object(b, "plan_search"); !p.empty()) r.plan_search = read_plan_search(f, p);
  return r;
}

}  // namespace

BenchDocument read_bench_document(const OrderedJson& doc, std::string_view name) {
  if (!doc.contains("benchmarks") || doc["benchmarks"].is_null()) FieldReader(name, "").fail("missing object 'benchmarks'");
  if (!doc["benchmarks"].is_object()) FieldReader(name, "").fail("'benchmarks' is not an object");
  BenchDocument out;
  if (doc.contains("created") && doc["created"].is_string()) out.created = doc["created"].get<std::string>();
  out.metadata = read_metadata(doc, name);
  for (const auto& item : doc["benchmarks"].items()) {
    out.benchmarks.push_back(read_benchmark(item.key(), item.value(), name));
  }
  return out;
}

}  // namespace vtools::vbench
