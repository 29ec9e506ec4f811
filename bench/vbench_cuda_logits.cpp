// Writes the cuda backend's logits (and the tokens) for vbench's seeded tokens as .npy files, so bench/gpu-vbench.sh
// can cross-check them against the PyTorch peer (bench/peers/torch_gpt.py --tokens) on the same weights. Built with
// the cuda backend (tools/vbench/cuda/CMakeLists.txt); runs only where a GPU is.
//   vbench_cuda_logits --weights w.safetensors --dtype fp32 -B 4 -T 64 -o logits.npy --tokens-out tokens.npy
#include <cstdint>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "libcommon/cli.hpp"
#include "libcommon/error.hpp"
#include "libcommon/output_file.hpp"
#include "tools/vbench/backend.hpp"
#include "tools/vbench/forward_cost.hpp"
#include "tools/vbench/harness.hpp"
#include "tools/vbench/model_selection.hpp"
#include "tools/vbench/weight_init.hpp"

namespace {

/// A .npy (format 1.0) holding a little-endian C-order array of `shape` with numpy type `descr` ("<f4", "<i4").
std::string npy(const std::string& descr, const std::vector<std::int64_t>& shape, const void* data, std::size_t bytes) {
  std::ostringstream dict;
  dict << "{'descr': '" << descr << "', 'fortran_order': False, 'shape': (";
  for (const auto d : shape) dict << d << ", ";
  dict << "), }";
  std::string header = dict.str();
  const std::size_t unpadded = 10 + header.size() + 1;  // magic + version + length, dict, '\n'
  header.append((64 - unpadded % 64) % 64, ' ');
  header += '\n';
  std::string out = std::string("\x93NUMPY\x01\x00", 8);
  out += static_cast<char>(header.size() & 0xff);
  out += static_cast<char>(header.size() >> 8);
  out += header;
  out.append(static_cast<const char*>(data), bytes);
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace vtools::vbench;
  ModelOptions model;
  std::string weights_path, dtype = "fp32", output, tokens_output;
  int B = 4, T = 64;
  std::uint64_t seed = 1337;
  auto app = vtools::make_app("vbench_cuda_logits", "the cuda backend's logits on vbench's seeded tokens, as .npy",
                              "  vbench_cuda_logits --weights w.safetensors --dtype bf16 -o logits.npy\n");
  app->add_option("--config", model.configs, "config name (default: the one in --weights, else gpt_nano)");
  app->add_option("--weights", weights_path, "weights .safetensors (default: init from --seed)");
  app->add_option("--dtype", dtype, "fp32|tf32|bf16")->capture_default_str();
  app->add_option("--batch,-B", B, "batch size")->capture_default_str();
  app->add_option("--seq,-T", T, "sequence length")->capture_default_str();
  app->add_option("--seed", seed, "tokens (and init) seed, as vbench run")->capture_default_str();
  app->add_option("-o,--output", output, "logits .npy, float32 [B][T][V]")->required();
  app->add_option("--tokens-out", tokens_output, "tokens .npy, int32 [B][T]");
  return vtools::run_main(*app, argc, argv, [&] {
    std::unique_ptr<GptWeights> storage;
    const std::vector<ConfigJob> jobs = select_jobs(model, weights_path, storage);
    if (jobs.size() != 1) throw vtools::Error(vtools::ExitCode::kUsage, "name exactly one config");
    const GptWeights weights = jobs[0].weights != nullptr ? *jobs[0].weights : init_weights(jobs[0].config, seed);
    const DType dt = parse_dtype(dtype);
    const auto tokens = make_tokens(B, T, weights.config.vocab_size, seed);
    if (!tokens_output.empty()) {
      vtools::write_output(tokens_output, npy("<i4", {B, T}, tokens.data(), tokens.size() * 4));
    }
    std::string why;
    auto backend = make_cuda_backend(-1, &why, cuda_options_from_environment());  // as vbench run
    if (!backend) throw vtools::Error(vtools::ExitCode::kUnavailable, why);
    backend->prepare(weights, B, T, dt);
    const std::vector<float> logits = backend->logits(tokens);
    vtools::write_output(output, npy("<f4", {B, T, weights.config.vocab_size}, logits.data(), logits.size() * 4));
    return 0;
  });
}
