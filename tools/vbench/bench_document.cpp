#include "tools/vbench/bench_document.hpp"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <utility>

#include "formats/bench/bench_reader.hpp"
#include "libcommon/error.hpp"

namespace vtools::vbench {

namespace {

OrderedJson or_null(const std::string& s) { return s.empty() ? OrderedJson(nullptr) : OrderedJson(s); }
OrderedJson positive_or_null(double v) { return v > 0 && std::isfinite(v) ? OrderedJson(v) : OrderedJson(nullptr); }

OrderedJson metadata_json(const BenchRun& run, const RunContext& ctx) {
  const DeviceInfo& d = run.device;
  // An implementation (--impl) on the host names its device "cpu ..." (impl_protocol).
  const bool gpu = run.backend != "cpu" && !(run.implementation && d.name.starts_with("cpu"));
  OrderedJson m;
  m["timestamp"] = run.timestamp;
  m["gpu_name"] = gpu ? or_null(d.name) : OrderedJson(nullptr);
  m["compute_capability"] = gpu ? or_null(d.compute_capability) : OrderedJson(nullptr);
  m["gpu_index"] = gpu && d.gpu_index >= 0 ? OrderedJson(d.gpu_index) : OrderedJson(nullptr);
  m["pci_bus_id"] = gpu ? or_null(d.pci_bus_id) : OrderedJson(nullptr);
  m["cuda_version"] = gpu ? or_null(d.runtime_version) : OrderedJson(nullptr);
  m["driver_version"] = or_null(d.driver_version);
  m["blas_version"] = or_null(d.blas_version);
  m["sm_count"] = d.sm_count;
  m["memory_bytes"] = d.memory_bytes;
  m["device_name"] = d.name;
  m["backend"] = run.backend;
  m["dtype"] = dtype_name(run.settings.dtype);
  // One shape: its B and T, as documents always had. A sweep: null there, and the lists in `sweep`.
  const std::vector<Shape>& shapes = run.settings.shapes;
  const bool sweep = shapes.size() > 1;
  m["batch_size"] = sweep ? OrderedJson(nullptr) : OrderedJson(shapes.at(0).batch);
  m["seq_len"] = sweep ? OrderedJson(nullptr) : OrderedJson(shapes.at(0).seq);
  if (sweep) {
    OrderedJson batches = OrderedJson::array(), seqs = OrderedJson::array();
    for (const Shape& shape : shapes) {
      if (std::find(batches.begin(), batches.end(), shape.batch) == batches.end()) batches.push_back(shape.batch);
      if (std::find(seqs.begin(), seqs.end(), shape.seq) == seqs.end()) seqs.push_back(shape.seq);
    }
    m["sweep"] = {{"batch_sizes", batches}, {"seq_lens", seqs}};
  }
  m["warmup"] = run.settings.warmup;
  m["iters"] = run.settings.iters;
  m["min_time_s"] = run.settings.min_time_s;
  m["repetitions"] = run.settings.repetitions;
  m["caches"] = cache_state_name(run.settings.caches);
  m["seed"] = run.settings.seed;
  m["weights"] = run.weights_source;
  m["threads"] = d.threads;
  m["peak_bandwidth_bytes_per_s"] = positive_or_null(d.peak_bandwidth_bytes_per_s);
  m["peak_flops"] = positive_or_null(d.peak_flops);
  m["host"] = ctx.host;
  m["command_line"] = ctx.command_line;
  m["vtools_version"] = tool_version();
  m["notes"] = run.notes;
  if (run.implementation) {  // vbench run --impl: who answered, and the command that ran it
    const Implementation& i = *run.implementation;
    m["implementation"] = {
        {"name", or_null(i.name)}, {"version", or_null(i.version)}, {"device", or_null(i.device)}, {"command", i.command}};
  }
  return m;
}

/// A median that may be +inf (a forward that could not run): null then.
OrderedJson finite_or_null(double v) { return std::isfinite(v) ? OrderedJson(v) : OrderedJson(nullptr); }

OrderedJson timed_plans_json(const std::vector<TimedPlan>& plans) {
  OrderedJson out = OrderedJson::array();
  for (const TimedPlan& p : plans) out.push_back({{"forward", p.forward}, {"median_ms", finite_or_null(p.median_ms)}});
  return out;
}

OrderedJson plan_search_json(const PlanSearch& s) {
  OrderedJson j;
  j["kept"] = s.kept;
  j["replays"] = s.replays;
  j["timed"] = timed_plans_json(s.timed);
  if (!s.playoff.empty()) {
    j["playoff"] = {
        {"rounds", s.playoff_rounds}, {"replays", s.playoff_replays}, {"timed", timed_plans_json(s.playoff)}};
  }
  OrderedJson rejected = OrderedJson::array();
  for (const RejectedPlan& p : s.rejected) rejected.push_back({{"forward", p.forward}, {"reason", p.reason}});
  j["rejected"] = rejected;
  if (!s.gemm_algorithms.empty()) {
    OrderedJson gemms = OrderedJson::array();
    for (const GemmChoice& g : s.gemm_algorithms) {
      gemms.push_back({{"gemm", g.gemm}, {"candidate", g.candidate}, {"of", g.of}});
    }
    j["gemm_algorithms"] = gemms;
  }
  if (!s.pinned_from.empty()) j["pinned_from"] = s.pinned_from;
  return j;
}

OrderedJson result_json(const ConfigResult& r, const BenchRun& run) {
  const GptConfig& c = r.config;
  OrderedJson b;
  b["config"] = {{"n_layer", c.n_layer},       {"n_head", c.n_head},         {"n_embd", c.n_embd},
                 {"vocab_size", c.vocab_size}, {"block_size", c.block_size}, {"tied_head", c.tied_head},
                 {"parameters", r.params.total}};
  b["status"] = r.status;
  b["backend"] = run.backend;
  b["dtype"] = dtype_name(run.settings.dtype);
  b["batch_size"] = r.shape.batch;
  b["seq_len"] = r.shape.seq;
  b["caches"] = cache_state_name(run.settings.caches);
  if (!r.samples_ms.empty()) {
    const auto& t = r.timing;
    b["timing"] = {{"mean", t.mean}, {"std", t.std},   {"min", t.min}, {"max", t.max},
                   {"median", t.median}, {"p5", t.p5}, {"p25", t.p25}, {"p75", t.p75},
                   {"p95", t.p95},   {"p99", t.p99},   {"n", t.n},     {"samples_ms", r.samples_ms}};
    b["throughput_tokens_per_sec"] = r.tokens_per_s;
  }
  if (r.repetitions.size() > 1) {
    OrderedJson reps = OrderedJson::array();
    for (const Repetition& x : r.repetitions) reps.push_back({{"median_ms", x.median_ms}, {"n", x.n}});
    b["repetitions"] = reps;
  }
  b["flops_per_forward"] = r.cost.flops;
  b["bytes_per_forward"] = r.cost.bytes;
  b["roofline"] = {{"floor_ms", positive_or_null(r.floor.floor_ms)},
                   {"fraction", positive_or_null(r.roofline_fraction)},
                   {"bound", or_null(r.floor.bound)}};
  b["kernels_per_forward"] = r.kernels_per_forward;
  if (r.clocks) {
    b["clocks"] = {{"sm_mhz", r.clocks->sm_mhz}, {"sm_max_mhz", r.clocks->sm_max_mhz}, {"limits", r.clocks->limits}};
  }
  if (r.plan_search) b["plan_search"] = plan_search_json(*r.plan_search);
  if (!r.failure_kind.empty()) b["failure"] = {{"kind", r.failure_kind}, {"reason", r.failure}};
  if (r.correctness) {
    const Correctness& k = *r.correctness;
    b["correctness"] = {{"max_abs_err", std::isfinite(k.max_abs_err) ? OrderedJson(k.max_abs_err) : OrderedJson()},
                        {"rel_err", std::isfinite(k.rel_err) ? OrderedJson(k.rel_err) : OrderedJson()},
                        {"top1_agreement", k.top1_agreement},
                        {"passed", k.passed},
                        {"tolerance", k.tolerance},
                        {"reference", k.reference},
                        {"compared_positions", k.compared_rows}};
  }
  return b;
}

}  // namespace

OrderedJson bench_document(const BenchRun& run, const RunContext& context) {
  OrderedJson doc = new_document(kBenchFormat, "vbench");
  doc["metadata"] = metadata_json(run, context);
  OrderedJson benchmarks = OrderedJson::object();
  for (const auto& r : run.results) benchmarks[r.name] = result_json(r, run);
  doc["benchmarks"] = benchmarks;
  return doc;
}

namespace {

/// "gpt2" of "gpt2", "gpt2/B:4/T:64" and merge's "gpt2/B:4/T:64@2".
std::string config_of_key(const std::string& key) { return key.substr(0, std::min(key.find("/B:"), key.find('@'))); }

double or_zero(double v) { return std::isnan(v) ? 0.0 : v; }

}  // namespace

std::vector<BenchEntry> bench_entries(const BenchDocument& doc) {
  const BenchMetadata& meta = doc.metadata;
  std::vector<BenchEntry> entries;
  for (const BenchBenchmark& b : doc.benchmarks) {
    BenchEntry e;
    e.name = b.name;
    e.status = b.status.empty() ? "ok" : b.status;  // documents from the seed had none
    e.batch_size = b.batch_size.value_or(meta.batch_size.value_or(0));
    e.seq_len = b.seq_len.value_or(meta.seq_len.value_or(0));
    e.dtype = b.dtype.empty() ? meta.dtype : b.dtype;
    e.backend = b.backend.empty() ? meta.backend : b.backend;
    e.caches = !b.caches.empty() ? b.caches : !meta.caches.empty() ? meta.caches : "warm";  // before --caches: warm
    e.kept_forward = b.plan_search ? b.plan_search->kept : "";
    e.median_ms = b.timing ? b.timing->median : NAN;
    if (b.timing) e.samples_ms = b.timing->samples_ms;
    e.repetitions = b.repetitions;
    entries.push_back(std::move(e));
  }
  return entries;
}

std::vector<BenchEntry> read_bench_entries(const OrderedJson& doc, std::string_view name) {
  return bench_entries(read_bench_document(doc, name));
}

ForwardPins read_forward_pins(const OrderedJson& json, std::string_view name, DType dtype) {
  const BenchDocument doc = read_bench_document(json, name);
  const std::vector<BenchEntry> entries = bench_entries(doc);
  ForwardPins pins;
  pins.source = std::string(name);
  for (std::size_t i = 0; i < entries.size(); ++i) {
    const BenchEntry& e = entries[i];
    if (e.kept_forward.empty()) continue;
    if (e.dtype != dtype_name(dtype)) {
      throw Error(ExitCode::kUsage, std::string(name) + ": benchmark '" + e.name + "' ran in " + e.dtype +
                                        " and this run is " + dtype_name(dtype) + ": pass --dtype " + e.dtype +
                                        " to run the forwards it kept");
    }
    ForwardPins::Entry entry{config_of_key(e.name), {e.batch_size, e.seq_len}, {}};
    entry.pin.forward = e.kept_forward;
    entry.pin.gemm_algorithms = doc.benchmarks[i].plan_search->gemm_algorithms;
    entry.pin.device_name = doc.metadata.gpu_name;
    entry.pin.blas_version = doc.metadata.blas_version;
    entry.pin.from = pins.source;
    const std::optional<ForwardPin> seen = pins.find(entry.config, entry.shape);
    if (seen && seen->forward != entry.pin.forward) {
      throw Error(ExitCode::kDataError,
                  "benchmark '" + e.name + "': names another forward for " + entry.config + " at B=" +
                      std::to_string(e.batch_size) + " T=" + std::to_string(e.seq_len) +
                      " than an earlier benchmark (a merge of several runs?): '" + entry.pin.forward + "' against '" +
                      seen->forward + "'",
                  SourceLocation{std::string(name), 0, 0});
    }
    if (!seen) pins.per_benchmark.push_back(std::move(entry));
  }
  if (pins.per_benchmark.empty()) {
    throw Error(ExitCode::kUsage, std::string(name) + ": no benchmark names the forward its prepare kept "
                                  "(plan_search.kept): only cuda runs record one");
  }
  return pins;
}

BenchRun read_bench_run(const OrderedJson& json, std::string_view name) {
  const BenchDocument doc = read_bench_document(json, name);
  const std::vector<BenchEntry> entries = bench_entries(doc);
  const BenchMetadata& meta = doc.metadata;
  BenchRun run;
  run.backend = !meta.backend.empty() ? meta.backend : entries.empty() ? "" : entries[0].backend;
  run.device.name = !meta.device_name.empty() ? meta.device_name : meta.gpu_name;
  run.timestamp = meta.timestamp;
  try {
    run.settings.dtype = parse_dtype(!meta.dtype.empty() ? meta.dtype : entries.empty() ? "fp32" : entries[0].dtype);
    run.settings.caches = parse_cache_state(meta.caches.empty() ? "warm" : meta.caches);
  } catch (const Error& e) {
    throw Error(ExitCode::kDataError, std::string("metadata: ") + e.what(), SourceLocation{std::string(name), 0, 0});
  }
  run.settings.warmup = meta.warmup.value_or(0);
  run.settings.iters = meta.iters.value_or(0);
  run.settings.min_time_s = or_zero(meta.min_time_s);
  run.settings.repetitions = meta.repetitions.value_or(1);
  run.settings.shapes.clear();
  run.notes = meta.notes;
  for (std::size_t i = 0; i < entries.size(); ++i) {
    const BenchEntry& e = entries[i];
    const BenchBenchmark& b = doc.benchmarks[i];
    ConfigResult r;
    r.name = e.name;
    r.config.name = e.name.substr(0, e.name.find("/B:"));
    r.shape = {e.batch_size, e.seq_len};
    if (std::find(run.settings.shapes.begin(), run.settings.shapes.end(), r.shape) == run.settings.shapes.end()) {
      run.settings.shapes.push_back(r.shape);
    }
    r.status = e.status;
    r.samples_ms = e.samples_ms;
    r.repetitions = e.repetitions;
    if (b.timing) {
      const BenchTiming& t = *b.timing;
      r.timing.n = t.n.value_or(e.samples_ms.size());
      r.timing.mean = t.mean;
      r.timing.std = t.std;
      r.timing.min = t.min;
      r.timing.max = t.max;
      r.timing.median = t.median;
      r.timing.p5 = t.p5;
      r.timing.p25 = t.p25;
      r.timing.p75 = t.p75;
      r.timing.p95 = t.p95;
      r.timing.p99 = t.p99;
    }
    r.tokens_per_s = or_zero(b.throughput_tokens_per_sec);
    r.cost.flops = b.flops_per_forward;
    r.cost.bytes = b.bytes_per_forward;
    r.floor.floor_ms = or_zero(b.floor_ms);
    r.floor.bound = b.bound;
    r.roofline_fraction = or_zero(b.roofline_fraction);
    r.kernels_per_forward = b.kernels_per_forward.value_or(0);
    r.failure_kind = b.failure_kind;
    r.failure = b.failure;
    r.correctness = b.correctness;
    r.clocks = b.clocks;
    r.plan_search = b.plan_search;
    run.results.push_back(std::move(r));
  }
  if (run.settings.shapes.empty()) run.settings.shapes.push_back(Shape{});
  return run;
}

std::string host_name() {
  char buf[256] = {};
  if (::gethostname(buf, sizeof buf - 1) != 0) return "unknown";
  return buf;
}

}  // namespace vtools::vbench
