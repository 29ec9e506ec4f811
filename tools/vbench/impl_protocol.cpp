#include "tools/vbench/impl_protocol.hpp"

#include <bit>
#include <cmath>
#include <cstring>

#include "formats/bench/bench_model.hpp"
#include "libcommon/document.hpp"
#include "libcommon/error.hpp"
#include "tools/vbench/harness.hpp"

namespace vtools::vbench {

namespace {

static_assert(std::endian::native == std::endian::little, "the protocol's files are little-endian");

[[noreturn]] void fail(std::string_view name, const std::string& what) {
  throw Error(ExitCode::kDataError, what, SourceLocation{std::string(name), 0, 0});
}

/// obj[key] as a string; fails when absent or not a string (`optional`: "" when absent or null).
std::string text(const OrderedJson& obj, const char* key, std::string_view name, bool optional = false) {
  if (!obj.contains(key) || obj[key].is_null()) {
    if (optional) return "";
    fail(name, "missing '" + std::string(key) + "'");
  }
  if (!obj[key].is_string()) fail(name, "'" + std::string(key) + "' is not a string");
  return obj[key].get<std::string>();
}

int integer(const OrderedJson& obj, const char* key, std::string_view name) {
  if (!obj.contains(key)) fail(name, "missing '" + std::string(key) + "'");
  const auto v = json_integer<int>(obj[key]);
  if (!v) fail(name, "'" + std::string(key) + "' is " + obj[key].dump() + ", not an integer");
  return *v;
}

void check_envelope(const OrderedJson& doc, std::string_view name) {
  if (!doc.is_object()) fail(name, "expected a JSON object");
  if (text(doc, "protocol", name) != kImplProtocol)
    fail(name, "'protocol' is '" + doc["protocol"].get<std::string>() + "', expected '" + std::string(kImplProtocol) +
                   "'");
  if (integer(doc, "version", name) != kImplProtocolVersion)
    fail(name, "protocol version " + doc["version"].dump() + " is not " + std::to_string(kImplProtocolVersion));
}

}  // namespace

std::string impl_request_json(const ImplRequest& r) {
  const GptConfig& c = r.config;
  OrderedJson j;
  j["protocol"] = kImplProtocol;
  j["version"] = kImplProtocolVersion;
  j["config"] = {{"name", c.name},       {"n_layer", c.n_layer},       {"n_head", c.n_head},
                 {"n_embd", c.n_embd},   {"vocab_size", c.vocab_size}, {"block_size", c.block_size},
                 {"tied_head", c.tied_head}};
  j["dtype"] = r.dtype;
  j["batch_size"] = r.batch_size;
  j["seq_len"] = r.seq_len;
  j["weights"] = r.weights_path;
  j["tokens"] = r.tokens_path;
  j["warmup"] = r.warmup;
  j["iters"] = r.iters;
  j["min_time_s"] = r.min_time_s;
  j["repetitions"] = r.repetitions;
  j["caches"] = r.caches;
  j["gpu"] = r.gpu >= 0 ? OrderedJson(r.gpu) : OrderedJson(nullptr);
  j["logits"] = r.logits_path.empty() ? OrderedJson(nullptr) : OrderedJson(r.logits_path);
  j["reply"] = r.reply_path;
  return j.dump() + "\n";
}

ImplRequest parse_impl_request(std::string_view body, std::string_view name) {
  const OrderedJson j = parse_json(body, name);
  check_envelope(j, name);
  ImplRequest r;
  if (!j.contains("config") || !j["config"].is_object()) fail(name, "missing object 'config'");
  const OrderedJson& c = j["config"];
  r.config.name = text(c, "name", name);
  r.config.n_layer = integer(c, "n_layer", name);
  r.config.n_head = integer(c, "n_head", name);
  r.config.n_embd = integer(c, "n_embd", name);
  r.config.vocab_size = integer(c, "vocab_size", name);
  r.config.block_size = integer(c, "block_size", name);
  if (!c.contains("tied_head") || !c["tied_head"].is_boolean()) fail(name, "'tied_head' is not a boolean");
  r.config.tied_head = c["tied_head"].get<bool>();
  r.dtype = text(j, "dtype", name);
  r.batch_size = integer(j, "batch_size", name);
  r.seq_len = integer(j, "seq_len", name);
  r.weights_path = text(j, "weights", name);
  r.tokens_path = text(j, "tokens", name);
  r.warmup = integer(j, "warmup", name);
  r.iters = integer(j, "iters", name);
  if (!j.contains("min_time_s") || !j["min_time_s"].is_number()) fail(name, "'min_time_s' is not a number");
  r.min_time_s = j["min_time_s"].get<double>();
  r.repetitions = integer(j, "repetitions", name);
  r.caches = text(j, "caches", name);
  r.gpu = j.contains("gpu") && !j["gpu"].is_null() ? integer(j, "gpu", name) : -1;
  r.logits_path = text(j, "logits", name, true);
  r.reply_path = text(j, "reply", name);
  if (r.batch_size <= 0 || r.seq_len <= 0 || r.iters <= 0 || r.repetitions <= 0 || r.warmup < 0)
    fail(name, "batch_size, seq_len, iters and repetitions must be positive, warmup not negative");
  return r;
}

std::string impl_reply_json(const ImplReply& reply) {
  OrderedJson j;
  j["protocol"] = kImplProtocol;
  j["version"] = kImplProtocolVersion;
  j["implementation"] = {{"name", reply.implementation.name},
                         {"version", reply.implementation.version},
                         {"device", reply.implementation.device}};
  OrderedJson reps = OrderedJson::array();
  for (const auto& samples : reply.repetitions) reps.push_back({{"samples_ms", samples}});
  j["repetitions"] = reps;
  j["notes"] = reply.notes;
  return j.dump() + "\n";
}

ImplReply parse_impl_reply(std::string_view body, std::string_view name, const ImplRequest& request) {
  const OrderedJson j = parse_json(body, name);
  check_envelope(j, name);
  ImplReply r;
  if (!j.contains("implementation") || !j["implementation"].is_object())
    fail(name, "missing object 'implementation' (name, version, device)");
  const OrderedJson& who = j["implementation"];
  r.implementation = {text(who, "name", name), text(who, "version", name, true), text(who, "device", name, true)};
  if (r.implementation.name.empty()) fail(name, "'implementation.name' is empty");
  for (const char ch : r.implementation.name) {
    if (static_cast<unsigned char>(ch) < 0x20) fail(name, "'implementation.name' holds a control character");
  }
  if (j.contains("notes") && !j["notes"].is_null()) {
    if (!j["notes"].is_array()) fail(name, "'notes' is not an array");
    for (const OrderedJson& n : j["notes"]) {
      if (!n.is_string()) fail(name, "'notes' holds a non-string");
      r.notes.push_back(n.get<std::string>());
    }
  }
  if (!j.contains("repetitions") || !j["repetitions"].is_array()) fail(name, "missing array 'repetitions'");
  const OrderedJson& reps = j["repetitions"];
  if (reps.size() != static_cast<std::size_t>(request.repetitions))
    fail(name, "'repetitions' has " + std::to_string(reps.size()) + " entries, expected " +
                   std::to_string(request.repetitions));
  std::size_t total = 0;
  for (std::size_t i = 0; i < reps.size(); ++i) {
    const std::string where = "repetitions[" + std::to_string(i) + "]";
    if (!reps[i].is_object() || !reps[i].contains("samples_ms") || !reps[i]["samples_ms"].is_array())
      fail(name, where + " has no array 'samples_ms'");
    const OrderedJson& xs = reps[i]["samples_ms"];
    if (xs.size() < static_cast<std::size_t>(request.iters))
      fail(name, where + " has " + std::to_string(xs.size()) + " samples, expected at least " +
                     std::to_string(request.iters) + " (--iters)");
    total += xs.size();
    if (total > kMaxSamples) fail(name, "more than " + std::to_string(kMaxSamples) + " samples");
    std::vector<double> samples;
    for (std::size_t k = 0; k < xs.size(); ++k) {
      const double v = xs[k].is_number() ? xs[k].get<double>() : NAN;
      if (!is_sample_ms(v))
        fail(name, where + ".samples_ms[" + std::to_string(k) + "] is " + xs[k].dump() + ", expected " + kSampleMsWanted);
      samples.push_back(v);
    }
    r.repetitions.push_back(std::move(samples));
  }
  return r;
}

void check_logits_size(std::uint64_t bytes, std::string_view name, const ImplRequest& request) {
  const std::uint64_t n = static_cast<std::uint64_t>(request.batch_size) * static_cast<std::uint64_t>(request.seq_len) *
                          static_cast<std::uint64_t>(request.config.vocab_size);
  if (bytes != n * sizeof(float))
    fail(name, "logits file holds " + std::to_string(bytes) + " bytes, expected " + std::to_string(n * 4) +
                   " (float32 [" + std::to_string(request.batch_size) + "][" + std::to_string(request.seq_len) + "][" +
                   std::to_string(request.config.vocab_size) + "])");
}

std::vector<float> parse_impl_logits(std::string_view bytes, std::string_view name, const ImplRequest& request) {
  check_logits_size(bytes.size(), name, request);
  std::vector<float> logits(bytes.size() / sizeof(float));
  std::memcpy(logits.data(), bytes.data(), bytes.size());
  return logits;
}

std::string tokens_bytes(const std::vector<std::int32_t>& tokens) {
  return std::string(reinterpret_cast<const char*>(tokens.data()), tokens.size() * sizeof(std::int32_t));
}

std::vector<std::int32_t> parse_tokens(std::string_view bytes, std::string_view name) {
  if (bytes.size() % sizeof(std::int32_t) != 0)
    fail(name, "tokens file holds " + std::to_string(bytes.size()) + " bytes, not a multiple of 4 (int32)");
  std::vector<std::int32_t> tokens(bytes.size() / sizeof(std::int32_t));
  std::memcpy(tokens.data(), bytes.data(), bytes.size());
  return tokens;
}

std::string logits_bytes(const std::vector<float>& logits) {
  return std::string(reinterpret_cast<const char*>(logits.data()), logits.size() * sizeof(float));
}

}  // namespace vtools::vbench
