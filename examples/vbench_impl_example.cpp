// A compiled implementation of vbench's external-forward protocol (man vbench(1), IMPLEMENTATIONS): reads the request
// on standard input, loads the weights and tokens, runs vbench's own forward (the cuda backend's kernels through the
// Backend interface, or the cpu backend with --backend cpu), writes the logits and the reply. It proves the protocol
// from C++; a real engine would put its own forward where `backend` is.
//
//   vbench run --impl 'vbench_impl_example' --config gpt2 --dtype bf16 -o example.json
//   vbench run --impl 'vbench_impl_example --backend cpu' --config gpt_nano -B 1 -T 16
#include <cstring>
#include <iostream>
#include <iterator>
#include <string>

#include "libcommon/document.hpp"
#include "libcommon/error.hpp"
#include "libcommon/input_file.hpp"
#include "libcommon/output_file.hpp"
#include "tools/vbench/backend.hpp"
#include "tools/vbench/cpu_backend.hpp"
#include "tools/vbench/forward_cost.hpp"
#include "tools/vbench/impl_protocol.hpp"
#include "tools/vbench/measurement.hpp"
#include "tools/vbench/safetensors_reader.hpp"
#include "tools/vbench/safetensors_writer.hpp"

namespace vb = vtools::vbench;

namespace {

/// One repetition, timed as vbench's harness times its own (measurement.hpp): warm-up, `iters` timed forwards, then
/// more until they add up to min_time_s.
std::vector<double> time_repetition(vb::Backend& backend, const std::vector<std::int32_t>& tokens,
                                    const vb::ImplRequest& q) {
  const vb::CacheState caches = q.caches == "cold" ? vb::CacheState::kCold : vb::CacheState::kWarm;
  return vb::measure_forwards(backend, tokens, {q.warmup, q.iters, q.min_time_s, caches});
}

int serve(const std::string& backend_name) {
  std::string text((std::istreambuf_iterator<char>(std::cin)), std::istreambuf_iterator<char>());
  const vb::ImplRequest q = vb::parse_impl_request(text, "<stdin>");
  const std::string bytes = vtools::read_input(q.weights_path, vtools::kDefaultMaxInputBytes,
                                               vtools::InputContent::kBinary);
  const vb::GptWeights weights =
      vb::load_weights(vb::read_safetensors(bytes, q.weights_path), q.config, q.weights_path);
  const std::vector<std::int32_t> tokens =
      vb::parse_tokens(vtools::read_input(q.tokens_path, vtools::kDefaultMaxInputBytes, vtools::InputContent::kBinary),
                       q.tokens_path);
  std::unique_ptr<vb::Backend> backend;
  std::string why;
  if (backend_name == "cpu") {
    backend = vb::make_cpu_backend();
  } else {
    backend = vb::make_cuda_backend(q.gpu, &why, vb::cuda_options_from_environment());
    if (!backend) throw vtools::Error(vtools::ExitCode::kUnavailable, "no cuda backend: " + why);
  }
  backend->prepare(weights, q.batch_size, q.seq_len, vb::parse_dtype(q.dtype));
  if (!q.logits_path.empty()) vtools::write_output(q.logits_path, vb::logits_bytes(backend->logits(tokens)));
  vb::ImplReply reply;
  reply.implementation = {"vbench-impl-example-" + backend->name(), vtools::tool_version(), backend->device().name};
  for (int i = 0; i < q.repetitions; ++i) reply.repetitions.push_back(time_repetition(*backend, tokens, q));
  reply.notes.push_back("vbench_impl_example: vbench's " + backend->name() + " backend behind the protocol");
  vtools::write_output(q.reply_path, vb::impl_reply_json(reply));
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string backend = argc == 3 && std::strcmp(argv[1], "--backend") == 0 ? argv[2] : "cuda";
  if (argc != 1 && argc != 3) {
    std::cerr << "usage: vbench_impl_example [--backend cpu|cuda] < request.json\n";
    return 2;
  }
  try {
    return serve(backend);
  } catch (const vtools::Error& e) {
    std::cerr << "vbench_impl_example: error: " << e.what() << "\n";
    return static_cast<int>(e.code());
  }
}
