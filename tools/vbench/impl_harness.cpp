#include "tools/vbench/impl_harness.hpp"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <optional>

#include "libcommon/cli.hpp"
#include "libcommon/document.hpp"
#include "libcommon/error.hpp"
#include "libcommon/input_file.hpp"
#include "libcommon/output_file.hpp"
#include "libcommon/progress.hpp"
#include "tools/vbench/impl_process.hpp"
#include "tools/vbench/impl_protocol.hpp"
#include "tools/vbench/safetensors_writer.hpp"
#include "tools/vbench/weight_init.hpp"

#ifndef VTOOLS_PYTHON_SOURCE_DIR
#define VTOOLS_PYTHON_SOURCE_DIR ""
#endif

namespace fs = std::filesystem;

namespace vtools::vbench {

namespace {

/// A private temporary folder for one run's request, reply, tokens, logits and weights; removed with everything in
/// it when the run ends, also on an error, and (its files registered with RemoveOnInterrupt) on ^C.
class WorkDir {
 public:
  WorkDir() {
    const char* tmp = std::getenv("TMPDIR");
    std::string pattern = std::string(tmp && *tmp ? tmp : "/tmp") + "/vbench-impl-XXXXXX";
    if (!::mkdtemp(pattern.data()))
      throw Error(ExitCode::kIoError, "cannot create a working folder '" + pattern + "': " + std::strerror(errno));
    path_ = pattern;
    on_interrupt_.push_back(std::make_unique<RemoveOnInterrupt>(path_));
    for (const char* name : {"tokens.i32", "request.json", "reply.json", "logits.f32"})
      on_interrupt_.push_back(std::make_unique<RemoveOnInterrupt>(file(name)));
  }
  ~WorkDir() {
    std::error_code ignored;
    fs::remove_all(path_, ignored);
  }
  WorkDir(const WorkDir&) = delete;
  WorkDir& operator=(const WorkDir&) = delete;
  [[nodiscard]] std::string file(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
  std::vector<std::unique_ptr<RemoveOnInterrupt>> on_interrupt_;
};

void write_weights(const GptWeights& weights, const std::string& path) {
  std::ofstream out(path, std::ios::binary);
  write_safetensors(weights, out);
  out.close();
  if (!out) throw Error(ExitCode::kIoError, "cannot write weights to '" + path + "'");
}

/// The logits file, checked for its size before it is read (a huge file is refused, not loaded).
std::vector<float> read_logits(const std::string& path, const ImplRequest& request) {
  std::error_code ec;
  const auto size = fs::file_size(path, ec);
  if (ec) throw Error(ExitCode::kDataError, "the implementation wrote no logits file", SourceLocation{"logits", 0, 0});
  check_logits_size(size, "logits", request);
  std::ifstream in(path, std::ios::binary);
  std::string bytes(size, '\0');
  in.read(bytes.data(), static_cast<std::streamsize>(size));
  if (!in) throw Error(ExitCode::kIoError, "cannot read '" + path + "'");
  return parse_impl_logits(bytes, "logits", request);
}

/// The environment the implementation gets: PYTHONPATH with the helper module first, where there is one.
std::vector<std::pair<std::string, std::string>> child_env() {
  const std::string dir = impl_python_dir();
  if (dir.empty()) return {};
  const char* old = std::getenv("PYTHONPATH");
  return {{"PYTHONPATH", old && *old ? dir + ":" + old : dir}};
}

void fail(ConfigResult& r, const std::string& kind, const std::string& why) {
  r.status = "failed";
  r.failure_kind = kind;
  r.failure = why;
}

/// One benchmark through the implementation: request, process, reply, gate, samples.
void run_one(ConfigResult& r, const GptWeights& weights, const std::string& weights_path, const HarnessSettings& s,
             const ImplSettings& impl, const WorkDir& dir, BenchRun& run) {
  const auto tokens = make_tokens(r.shape.batch, r.shape.seq, r.config.vocab_size, s.seed);
  ImplRequest q;
  q.config = r.config;
  q.dtype = dtype_name(s.dtype);
  q.batch_size = r.shape.batch;
  q.seq_len = r.shape.seq;
  q.weights_path = weights_path;
  q.tokens_path = dir.file("tokens.i32");
  q.warmup = s.warmup;
  q.iters = s.iters;
  q.min_time_s = s.min_time_s;
  q.repetitions = s.repetitions;
  q.caches = cache_state_name(s.caches);
  q.gpu = impl.gpu;
  q.logits_path = s.check ? dir.file("logits.f32") : "";
  q.reply_path = dir.file("reply.json");
  for (const char* old : {"logits.f32", "reply.json"}) fs::remove(dir.file(old));
  write_output(q.tokens_path, tokens_bytes(tokens));
  write_output(dir.file("request.json"), impl_request_json(q));

  const ProcessOutcome end = run_process(impl.command, dir.file("request.json"), impl.timeout_s, child_env());
  if (!end.ok()) return fail(r, end.timed_out ? "timeout" : "crash", end.describe(impl.timeout_s));
  ImplReply reply;
  std::vector<float> logits;
  try {
    if (!fs::exists(q.reply_path))
      throw Error(ExitCode::kDataError, "the implementation exited 0 but wrote none", SourceLocation{"reply", 0, 0});
    reply = parse_impl_reply(read_input(q.reply_path), "reply", q);
    if (s.check) logits = read_logits(q.logits_path, q);
  } catch (const Error& e) {
    if (e.code() != ExitCode::kDataError) throw;
    return fail(r, "malformed", e.what());
  }
  if (!run.implementation) {
    run.implementation = Implementation{reply.implementation.name, reply.implementation.version,
                                        reply.implementation.device, impl.command};
  } else if (run.implementation->name != reply.implementation.name) {
    run.notes.push_back(r.name + ": the implementation named itself '" + reply.implementation.name + "', not '" +
                        run.implementation->name + "'");
  }
  for (const std::string& note : reply.notes) {
    if (std::find(run.notes.begin(), run.notes.end(), note) == run.notes.end()) run.notes.push_back(note);
  }
  if (s.check) {
    r.correctness = gate_logits(weights, tokens, r.shape, s.dtype, logits, GateReference::kCpuFp32);
    if (!r.correctness->passed) {
      r.status = "failed";
      return;
    }
  }
  for (const auto& samples : reply.repetitions) {
    if (reply.repetitions.size() > 1) r.repetitions.push_back({stats::median(samples), samples.size()});
    r.samples_ms.insert(r.samples_ms.end(), samples.begin(), samples.end());
  }
  r.status = s.check ? "ok" : "unchecked";
  summarize_timing(r);
}

}  // namespace

std::string impl_file_name(const std::string& name) {
  std::string out;
  for (const char c : name) {
    const bool keep = std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '-' || c == '_';
    out += keep ? c : '_';
  }
  return out.empty() ? "impl" : out;
}

std::string impl_python_dir() {
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    const fs::path installed = exe.parent_path().parent_path() / "share" / "vtools" / "python";
    if (fs::exists(installed / "vbench_impl", ec)) return installed.string();
  }
  const fs::path source = VTOOLS_PYTHON_SOURCE_DIR;
  if (!source.empty() && fs::exists(source / "vbench_impl", ec)) return source.string();
  return "";
}

BenchRun run_impl_benchmarks(const std::vector<ConfigJob>& jobs, const HarnessSettings& s, const ImplSettings& impl) {
  check_shapes_fit(jobs, s.shapes);
  BenchRun run;
  run.backend = "impl";
  run.settings = s;
  run.timestamp = iso8601_now();
  const WorkDir dir;
  ProgressBar progress("vbench", jobs.size() * s.shapes.size());
  std::size_t step = 0;
  for (const ConfigJob& job : jobs) {
    GptWeights initialised;
    if (!job.weights) initialised = init_weights(job.config, s.seed);
    const GptWeights& weights = job.weights ? *job.weights : initialised;
    std::string weights_path = impl.weights_path;
    std::optional<RemoveOnInterrupt> weights_on_interrupt;
    if (weights_path.empty()) {  // one config's weights at a time (gpt2-xl's are 6 GB)
      weights_path = dir.file("weights.safetensors");
      weights_on_interrupt.emplace(weights_path);
      write_weights(weights, weights_path);
    } else {
      weights_path = fs::absolute(weights_path).string();
    }
    for (const Shape& shape : s.shapes) {
      ConfigResult r = new_result(job, shape, s);
      progress.update(step++, r.name);
      run_one(r, weights, weights_path, s, impl, dir, run);
      if (!r.failure.empty()) {
        print_error(Error(ExitCode::kCheckFailed, "--impl '" + impl.command + "': " + r.name + ": " +
                                                      (r.failure_kind == "malformed" ? "malformed " : "") +
                                                      r.failure));
      } else if (r.status == "failed") {
        char why[160];
        std::snprintf(why, sizeof why, ": logits failed the correctness gate (rel_err %.3g > tolerance %.3g)",
                      r.correctness->rel_err, r.correctness->tolerance);
        print_error(Error(ExitCode::kCheckFailed, "--impl '" + impl.command + "': " + r.name + why));
      }
      run.results.push_back(std::move(r));
    }
  }
  progress.update(jobs.size() * s.shapes.size());
  if (run.implementation) {
    run.backend = run.implementation->name;
    run.device.name = run.implementation->device;
  } else {
    run.implementation = Implementation{"", "", "", impl.command};  // nothing replied: "impl" names it
  }
  return run;
}

}  // namespace vtools::vbench
