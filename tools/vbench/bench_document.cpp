#include "tools/vbench/bench_document.hpp"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <type_traits>

#include "libcommon/error.hpp"

namespace vtools::vbench {

namespace {

OrderedJson or_null(const std::string& s) { return s.empty() ? OrderedJson(nullptr) : OrderedJson(s); }
OrderedJson positive_or_null(double v) { return v > 0 && std::isfinite(v) ? OrderedJson(v) : OrderedJson(nullptr); }

OrderedJson metadata_json(const BenchRun& run, const RunContext& ctx) {
  const DeviceInfo& d = run.device;
  const bool gpu = run.backend != "cpu";
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
    j["playoff"] = {{"rounds", s.playoff_rounds}, {"replays", s.playoff_replays}, {"timed", timed_plans_json(s.playoff)}};
  }
  OrderedJson rejected = OrderedJson::array();
  for (const RejectedPlan& p : s.rejected) rejected.push_back({{"forward", p.forward}, {"reason", p.reason}});
  j["rejected"] = rejected;
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

std::vector<BenchEntry> read_bench_entries(const OrderedJson& doc, std::string_view name) {
  auto fail = [&](const std::string& what) {
    throw Error(ExitCode::kDataError, what, SourceLocation{std::string(name), 0, 0});
  };
  if (!doc.contains("benchmarks") || !doc["benchmarks"].is_object()) fail("missing object 'benchmarks'");
  const OrderedJson meta = doc.contains("metadata") && doc["metadata"].is_object() ? doc["metadata"] : OrderedJson::object();
  std::vector<BenchEntry> entries;
  for (const auto& item : doc["benchmarks"].items()) {
    const std::string& key = item.key();  // not a structured binding: clang 14 cannot capture those in lambdas
    const OrderedJson& b = item.value();
    if (!b.is_object()) fail("benchmark '" + key + "' is not an object");
    auto field = [&](const OrderedJson& obj, const char* f, auto fallback) {
      using T = decltype(fallback);
      if (!obj.contains(f) || obj[f].is_null()) return fallback;
      const OrderedJson& v = obj[f];
      bool ok = v.is_number();
      if constexpr (std::is_same_v<T, std::string>) {
        ok = v.is_string();
      } else if constexpr (std::is_integral_v<T>) {  // get<int>() of 1e80 would be undefined: integers only
        ok = json_integer<T>(v).has_value();
      }
      if (!ok) fail("benchmark '" + key + "': field '" + f + "' has the wrong type");
      return v.template get<T>();
    };
    BenchEntry e;
    e.name = key;
    e.status = field(b, "status", std::string("ok"));
    e.batch_size = field(b, "batch_size", field(meta, "batch_size", 0));
    e.seq_len = field(b, "seq_len", field(meta, "seq_len", 0));
    e.dtype = field(b, "dtype", field(meta, "dtype", std::string()));
    e.backend = field(b, "backend", field(meta, "backend", std::string()));
    e.caches = field(b, "caches", field(meta, "caches", std::string("warm")));  // documents before --caches: warm
    if (b.contains("plan_search")) {
      if (!b["plan_search"].is_object()) fail("benchmark '" + key + "': 'plan_search' is not an object");
      e.kept_forward = field(b["plan_search"], "kept", std::string());
    }
    e.median_ms = NAN;
    if (b.contains("timing")) {
      const auto& t = b["timing"];
      if (!t.is_object()) fail("benchmark '" + key + "': 'timing' is not an object");
      e.median_ms = field(t, "median", static_cast<double>(NAN));
      if (t.contains("samples_ms")) {
        if (!t["samples_ms"].is_array()) fail("benchmark '" + key + "': 'samples_ms' is not an array");
        for (const auto& x : t["samples_ms"]) {
          if (!x.is_number()) fail("benchmark '" + key + "': 'samples_ms' holds a non-number");
          e.samples_ms.push_back(x.get<double>());
        }
      }
    }
    entries.push_back(std::move(e));
  }
  return entries;
}

std::string host_name() {
  char buf[256] = {};
  if (::gethostname(buf, sizeof buf - 1) != 0) return "unknown";
  return buf;
}

}  // namespace vtools::vbench
