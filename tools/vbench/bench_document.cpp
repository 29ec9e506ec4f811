#include "tools/vbench/bench_document.hpp"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <type_traits>
#include <utility>

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

/// Typed reads of one part of a document ("benchmark 'x'", "metadata"), each mistyped field an Error(kDataError) at
/// the document naming the part and the field.
class FieldReader {
 public:
  FieldReader(std::string_view doc, std::string part) : doc_(doc), part_(std::move(part)) {}

  [[noreturn]] void fail(const std::string& what) const {
    throw Error(ExitCode::kDataError, part_.empty() ? what : part_ + ": " + what,
                SourceLocation{std::string(doc_), 0, 0});
  }

  /// obj[f] as T; `fallback` when absent or null. Integers must be JSON integers (get<int>() of 1e80 is undefined).
  template <typename T>
  T get(const OrderedJson& obj, const char* f, T fallback) const {
    if (!obj.contains(f) || obj[f].is_null()) return fallback;
    const OrderedJson& v = obj[f];
    bool ok = v.is_number();
    if constexpr (std::is_same_v<T, std::string>) {
      ok = v.is_string();
    } else if constexpr (std::is_same_v<T, bool>) {
      ok = v.is_boolean();
    } else if constexpr (std::is_integral_v<T>) {
      ok = json_integer<T>(v).has_value();
      if (!ok && v.is_number()) fail("field '" + std::string(f) + "' " + integer_out_of_range<T>(v));
    }
    if (!ok) fail("field '" + std::string(f) + "' has the wrong type");
    return v.template get<T>();
  }

  /// obj[f] when it is an object; an empty object when absent or null; fails when it is something else.
  const OrderedJson& object(const OrderedJson& obj, const char* f) const {
    static const OrderedJson kEmpty = OrderedJson::object();
    if (!obj.contains(f) || obj[f].is_null()) return kEmpty;
    if (!obj[f].is_object()) fail("'" + std::string(f) + "' is not an object");
    return obj[f];
  }

  /// The elements of array obj[f] (none when absent or null); fails when it is something else.
  std::vector<const OrderedJson*> array(const OrderedJson& obj, const char* f) const {
    std::vector<const OrderedJson*> out;
    if (!obj.contains(f) || obj[f].is_null()) return out;
    if (!obj[f].is_array()) fail("'" + std::string(f) + "' is not an array");
    for (const OrderedJson& x : obj[f]) out.push_back(&x);
    return out;
  }

 private:
  std::string_view doc_;
  std::string part_;
};

const OrderedJson& metadata_of(const OrderedJson& doc) {
  static const OrderedJson kEmpty = OrderedJson::object();
  return doc.contains("metadata") && doc["metadata"].is_object() ? doc["metadata"] : kEmpty;
}

}  // namespace

std::vector<BenchEntry> read_bench_entries(const OrderedJson& doc, std::string_view name) {
  if (!doc.contains("benchmarks") || !doc["benchmarks"].is_object()) {
    FieldReader(name, "").fail("missing object 'benchmarks'");
  }
  const OrderedJson& meta = metadata_of(doc);
  std::vector<BenchEntry> entries;
  for (const auto& item : doc["benchmarks"].items()) {
    const std::string& key = item.key();
    const OrderedJson& b = item.value();
    if (!b.is_object()) FieldReader(name, "").fail("benchmark '" + key + "' is not an object");
    const FieldReader f(name, "benchmark '" + key + "'");
    BenchEntry e;
    e.name = key;
    e.status = f.get(b, "status", std::string("ok"));
    e.batch_size = f.get(b, "batch_size", f.get(meta, "batch_size", 0));
    e.seq_len = f.get(b, "seq_len", f.get(meta, "seq_len", 0));
    e.dtype = f.get(b, "dtype", f.get(meta, "dtype", std::string()));
    e.backend = f.get(b, "backend", f.get(meta, "backend", std::string()));
    e.caches = f.get(b, "caches", f.get(meta, "caches", std::string("warm")));  // documents before --caches: warm
    e.kept_forward = f.get(f.object(b, "plan_search"), "kept", std::string());
    const OrderedJson& t = f.object(b, "timing");
    e.median_ms = f.get(t, "median", static_cast<double>(NAN));
    for (const OrderedJson* x : f.array(t, "samples_ms")) {
      if (!x->is_number()) f.fail("'samples_ms' holds a non-number");
      e.samples_ms.push_back(x->get<double>());
    }
    for (const OrderedJson* x : f.array(b, "repetitions")) {
      if (!x->is_object()) f.fail("a repetitions entry is not an object");
      e.repetitions.push_back({f.get(*x, "median_ms", static_cast<double>(NAN)), f.get(*x, "n", std::size_t{0})});
    }
    entries.push_back(std::move(e));
  }
  return entries;
}

namespace {

/// An element of a string array.
std::string text_of(const FieldReader& f, const OrderedJson& v, const char* array) {
  if (!v.is_string()) f.fail("'" + std::string(array) + "' holds a non-string");
  return v.get<std::string>();
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

std::vector<GemmChoice> read_gemm_choices(const FieldReader& f, const OrderedJson& plan_search) {
  std::vector<GemmChoice> gemms;
  for (const OrderedJson* g : f.array(plan_search, "gemm_algorithms")) {
    if (!g->is_object()) f.fail("a gemm_algorithms entry is not an object");
    gemms.push_back({f.get(*g, "gemm", std::string()), f.get(*g, "candidate", 0), f.get(*g, "of", 0)});
  }
  return gemms;
}

/// "gpt2" of "gpt2", "gpt2/B:4/T:64" and merge's "gpt2/B:4/T:64@2".
std::string config_of_key(const std::string& key) { return key.substr(0, std::min(key.find("/B:"), key.find('@'))); }

}  // namespace

ForwardPins read_forward_pins(const OrderedJson& doc, std::string_view name, DType dtype) {
  const std::vector<BenchEntry> entries = read_bench_entries(doc, name);
  const OrderedJson& meta = metadata_of(doc);
  const FieldReader m(name, "metadata");
  ForwardPins pins;
  pins.source = std::string(name);
  for (const BenchEntry& e : entries) {
    if (e.kept_forward.empty()) continue;
    const FieldReader f(name, "benchmark '" + e.name + "'");
    if (e.dtype != dtype_name(dtype)) {
      throw Error(ExitCode::kUsage, std::string(name) + ": benchmark '" + e.name + "' ran in " + e.dtype +
                                        " and this run is " + dtype_name(dtype) + ": pass --dtype " + e.dtype +
                                        " to run the forwards it kept");
    }
    ForwardPins::Entry entry{config_of_key(e.name), {e.batch_size, e.seq_len}, {}};
    entry.pin.forward = e.kept_forward;
    entry.pin.gemm_algorithms = read_gemm_choices(f, f.object(doc["benchmarks"][e.name], "plan_search"));
    entry.pin.device_name = m.get(meta, "gpu_name", std::string());
    entry.pin.blas_version = m.get(meta, "blas_version", std::string());
    entry.pin.from = pins.source;
    const std::optional<ForwardPin> seen = pins.find(entry.config, entry.shape);
    if (seen && seen->forward != entry.pin.forward) {
      f.fail("names another forward for " + entry.config + " at B=" + std::to_string(e.batch_size) + " T=" +
             std::to_string(e.seq_len) + " than an earlier benchmark (a merge of several runs?): '" +
             entry.pin.forward + "' against '" + seen->forward + "'");
    }
    if (!seen) pins.per_benchmark.push_back(std::move(entry));
  }
  if (pins.per_benchmark.empty()) {
    throw Error(ExitCode::kUsage, std::string(name) + ": no benchmark names the forward its prepare kept "
                                  "(plan_search.kept): only cuda runs record one");
  }
  return pins;
}

BenchRun read_bench_run(const OrderedJson& doc, std::string_view name) {
  const std::vector<BenchEntry> entries = read_bench_entries(doc, name);
  const OrderedJson& meta = metadata_of(doc);
  const FieldReader m(name, "metadata");
  BenchRun run;
  run.backend = m.get(meta, "backend", std::string(entries.empty() ? "" : entries[0].backend));
  run.device.name = m.get(meta, "device_name", m.get(meta, "gpu_name", std::string()));
  run.timestamp = m.get(meta, "timestamp", std::string());
  try {
    run.settings.dtype = parse_dtype(m.get(meta, "dtype", std::string(entries.empty() ? "fp32" : entries[0].dtype)));
    run.settings.caches = parse_cache_state(m.get(meta, "caches", std::string("warm")));
  } catch (const Error& e) {
    m.fail(e.what());
  }
  run.settings.warmup = m.get(meta, "warmup", 0);
  run.settings.iters = m.get(meta, "iters", 0);
  run.settings.min_time_s = m.get(meta, "min_time_s", 0.0);
  run.settings.repetitions = m.get(meta, "repetitions", 1);
  run.settings.shapes.clear();
  for (const OrderedJson* n : m.array(meta, "notes")) run.notes.push_back(text_of(m, *n, "notes"));
  for (const BenchEntry& e : entries) {
    const OrderedJson& b = doc["benchmarks"][e.name];
    const FieldReader f(name, "benchmark '" + e.name + "'");
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
    const OrderedJson& t = f.object(b, "timing");
    if (!t.empty()) {
      r.timing.n = f.get(t, "n", e.samples_ms.size());
      r.timing.mean = f.get(t, "mean", static_cast<double>(NAN));
      r.timing.std = f.get(t, "std", static_cast<double>(NAN));
      r.timing.min = f.get(t, "min", static_cast<double>(NAN));
      r.timing.max = f.get(t, "max", static_cast<double>(NAN));
      r.timing.median = e.median_ms;
      r.timing.p5 = f.get(t, "p5", static_cast<double>(NAN));
      r.timing.p25 = f.get(t, "p25", static_cast<double>(NAN));
      r.timing.p75 = f.get(t, "p75", static_cast<double>(NAN));
      r.timing.p95 = f.get(t, "p95", static_cast<double>(NAN));
      r.timing.p99 = f.get(t, "p99", static_cast<double>(NAN));
    }
    r.tokens_per_s = f.get(b, "throughput_tokens_per_sec", 0.0);
    r.cost.flops = f.get(b, "flops_per_forward", static_cast<double>(NAN));
    r.cost.bytes = f.get(b, "bytes_per_forward", static_cast<double>(NAN));
    const OrderedJson& roofline = f.object(b, "roofline");
    r.floor.floor_ms = f.get(roofline, "floor_ms", 0.0);
    r.floor.bound = f.get(roofline, "bound", std::string());
    r.roofline_fraction = f.get(roofline, "fraction", 0.0);
    r.kernels_per_forward = f.get(b, "kernels_per_forward", 0);
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
      ClockReading clocks{f.get(c, "sm_mhz", 0), f.get(c, "sm_max_mhz", 0), {}};
      for (const OrderedJson* l : f.array(c, "limits")) clocks.limits.push_back(text_of(f, *l, "limits"));
      r.clocks = clocks;
    }
    if (const OrderedJson& p = f.object(b, "plan_search"); !p.empty()) {
      PlanSearch search;
      search.kept = e.kept_forward;
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
      search.gemm_algorithms = read_gemm_choices(f, p);
      search.pinned_from = f.get(p, "pinned_from", std::string());
      r.plan_search = search;
    }
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
